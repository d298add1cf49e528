"""The tests' PostgreSQL servers keep their data outside pytest's temp root. As root, pgserver runs the server as
user ``pgserver``; every pytest session that starts makes /tmp/pytest-of-root private again (0700), and a server
whose data sat under it lost it mid-run: its next checkpoint PANICked and every later PostgreSQL test errored (seen
when a second pytest ran beside a CI run)."""

from __future__ import annotations

import os

import pytest

pytestmark = pytest.mark.once


def test_another_pytest_session_beside_this_one_leaves_the_server_its_data(pg_server, tmp_path_factory) -> None:
    import psycopg

    root = tmp_path_factory.getbasetemp().parent   # /tmp/pytest-of-<user>
    mode = root.stat().st_mode
    os.chmod(root, mode & ~0o077)                  # what pytest's getbasetemp does at the start of each session
    try:
        with psycopg.connect(pg_server.database("beside"), autocommit=True) as c:
            c.execute("CREATE TABLE t (x int)")
            c.execute("INSERT INTO t VALUES (1)")
            c.execute("CHECKPOINT")                # writes global/pg_control: needs the data folder
            assert c.execute("SELECT count(*) FROM t").fetchone() == (1,)
    finally:
        os.chmod(root, mode)


def test_a_server_whose_test_process_was_killed_is_stopped_by_the_next_session(tmp_path) -> None:
    import subprocess
    import time

    from .conftest import PG_FOLDER_PREFIX, own_pg_server, stop_orphaned_servers

    gone = subprocess.Popen(["true"])
    gone.wait()                                    # a pid no process has now: the killed session's
    orphan = tmp_path / f"{PG_FOLDER_PREFIX}{gone.pid}_x"
    alive = tmp_path / f"{PG_FOLDER_PREFIX}{os.getpid()}_y"
    alive.mkdir()
    server = own_pg_server(orphan)
    postmaster = int((orphan / "postmaster.pid").read_text().split()[0])
    try:
        assert stop_orphaned_servers(tmp_path) == [orphan]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and os.path.exists(f"/proc/{postmaster}"):
            time.sleep(0.1)
        assert not os.path.exists(f"/proc/{postmaster}"), "the orphaned server still runs"
        assert not orphan.exists() and alive.is_dir(), "only the folder of a process that is gone is removed"
    finally:
        try:
            server.stop()
        except Exception:  # noqa: BLE001  (stopped already: what the test wants)
            pass
