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
