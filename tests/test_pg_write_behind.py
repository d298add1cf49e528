"""A write transaction's plain inserts on PostgreSQL, held and sent together (m3_memory/store/pg/write_behind.py):
the tables end up as with every statement sent at once and as on SQLite, reads in between see the held rows, a
child row's parent goes first, a held row's error still fails the transaction, and fewer statements reach the
server."""

from __future__ import annotations

import sqlite3

import psycopg
import pytest

from m3_memory.store.pg import write_behind
from m3_memory.store.pg.connection import PgConnection

SCHEMA = (
    "CREATE TABLE kid (id INTEGER PRIMARY KEY, parent INTEGER NOT NULL REFERENCES parent (id), v REAL)",
    "CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT)",
    "CREATE TABLE tally (k TEXT PRIMARY KEY, n INTEGER)",
)
KID = "INSERT INTO kid (id, parent, v) VALUES (?, ?, ?)"
PARENT = "INSERT INTO parent (id, name) VALUES (?, ?)"
TALLY = "INSERT INTO tally (k, n) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET n = tally.n + excluded.n"

# (how, statement, parameters): "one" execute, "many" executemany, "read" execute and fetch every row
STEPS = [
    ("one", PARENT, (1, "a")),
    ("read", "SELECT count(*) FROM parent", ()),   # sends parent 1
    ("one", KID, (10, 1, 0.5)),        # a kid of a parent that exists: its table comes first in what is held ...
    ("one", PARENT, (2, "b")),         # ... and the kids after it need this parent: parents must go first
    ("one", KID, (11, 2, 1.0)),
    ("one", KID, (12, 2, 2.0)),
    ("many", KID, [(14, 1, 4.0), (15, 1, 5.0)]),
    ("one", TALLY, ("x", 1)),
    ("one", TALLY, ("x", 2)),          # the same key twice: both count, in order
    ("many", TALLY, [("y", 5), ("x", 10)]),
    ("read", "SELECT id, parent FROM kid ORDER BY id", ()),   # the held rows are there for a read
    ("one", "UPDATE kid SET v = v + 1 WHERE parent = ?", (2,)),
    ("one", PARENT, (3, "c")),
    ("one", KID, (13, 3, 3.0)),
    ("read", "SELECT k, n FROM tally ORDER BY k", ()),
]


def _tables(conn) -> list[list[tuple]]:
    return [[tuple(r) for r in conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()]
            for t in ("parent", "kid", "tally")]


def _run(conn, steps=STEPS) -> tuple[list, list]:
    conn.execute("BEGIN IMMEDIATE")
    reads = []
    for how, sql, params in steps:
        if how == "many":
            conn.executemany(sql, params)
        elif how == "read":
            reads.append([tuple(r) for r in conn.execute(sql, params).fetchall()])
        else:
            conn.execute(sql, params)
    conn.execute("COMMIT")
    return reads, _tables(conn)


def _pg(pg_server, name: str) -> PgConnection:
    conn = PgConnection(pg_server.database(name))
    conn.execute(SCHEMA[1])
    conn.execute(SCHEMA[0])
    conn.execute(SCHEMA[2])
    return conn


def _counting(monkeypatch) -> list[str]:
    sent: list[str] = []
    execute, executemany = psycopg.Connection.execute, psycopg.Cursor.executemany

    def one(self, query, params=None, **kw):
        sent.append(str(query))
        return execute(self, query, params, **kw)

    def many(self, query, rows, **kw):
        rows = list(rows)
        sent.extend([str(query)] * len(rows))
        return executemany(self, query, rows, **kw)

    monkeypatch.setattr(psycopg.Connection, "execute", one)
    monkeypatch.setattr(psycopg.Cursor, "executemany", many)
    return sent


def test_held_inserts_leave_what_statements_sent_at_once_leave(pg_server, tmp_path, monkeypatch):
    sent = _counting(monkeypatch)
    held = _run(_pg(pg_server, "held_on"))
    n_held = sum("INSERT" in q for q in sent)
    sent.clear()
    monkeypatch.setattr(PgConnection, "hold_inserts", False)
    at_once = _run(_pg(pg_server, "held_off"))
    n_at_once = sum("INSERT" in q for q in sent)
    lite = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    lite.execute("PRAGMA foreign_keys = ON")
    for ddl in SCHEMA:
        lite.execute(ddl)
    assert held == at_once == _run(lite)
    reads, (parents, kids, tally) = held
    assert reads[0] == [(1,)] and reads[1] == [(10, 1), (11, 2), (12, 2), (14, 1), (15, 1)]
    assert dict(reads[2]) == {"x": 13, "y": 5}
    assert [k[2] for k in kids] == [0.5, 2.0, 3.0, 3.0, 4.0, 5.0] and len(parents) == 3
    # sent together: the five kids held before the second read as one statement (the tally's rows name one key
    # twice: one by one, as batch.py leaves them)
    assert (n_held, n_at_once) == (9, 11)


def test_a_held_rows_error_fails_the_transaction_and_nothing_is_committed(pg_server):
    conn = _pg(pg_server, "held_error")
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(PARENT, (1, "a"))
    conn.execute(KID, (10, 99, 0.0))   # no parent 99: refused when it reaches the server
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("COMMIT")
    assert not conn.in_transaction
    assert _tables(conn) == [[], [], []]
    conn.execute("BEGIN IMMEDIATE")    # the session goes on
    conn.execute(PARENT, (1, "a"))
    conn.execute("ROLLBACK")           # held rows of a rolled-back transaction are never sent
    assert _tables(conn) == [[], [], []]


def test_a_session_the_rollback_cannot_bring_back_is_replaced_and_nothing_is_committed(pg_server):
    """A failed commit whose session does not come back to idle (CI once saw psycopg left in an aborted pipeline,
    the held row's error read while the COMMIT was still being sent: every later statement "pipeline aborted") is
    closed and the next statement reconnects: the failure is the one transaction's, not every one after it."""
    conn = _pg(pg_server, "held_error_reset")
    session = conn._conn

    class Stuck:   # the session as psycopg left it: its rollback fails
        def __init__(self, real):  # noqa: ANN001
            self.real = real

        def __getattr__(self, name):  # noqa: ANN001, ANN204
            return getattr(self.real, name)

        def execute(self, sql, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN201
            if sql == "ROLLBACK":
                raise psycopg.errors.PipelineAborted("pipeline aborted")
            return self.real.execute(sql, *args, **kwargs)

    conn.execute("BEGIN IMMEDIATE")
    conn.execute(PARENT, (1, "a"))
    conn.execute(KID, (10, 99, 0.0))
    conn._conn = Stuck(session)
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("COMMIT")
    assert session.closed and not conn.in_transaction
    assert _tables(conn) == [[], [], []] and conn.reconnects == 1
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(PARENT, (2, "b"))
    conn.execute("COMMIT")
    assert _tables(conn)[0] == [(2, "b")]


def test_a_held_inserts_result_read_sends_it_in_order(pg_server):
    conn = _pg(pg_server, "held_result")
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(PARENT, (1, "a"))
    cur = conn.execute(KID, (10, 1, 0.0))
    assert conn._behind.held, "plain inserts wait on the client"
    assert cur.rowcount == 1               # read: its parent goes first, then it alone
    later = conn.execute(TALLY, ("x", 1))
    conn.execute("SELECT 1").fetchall()    # sends the tally with nothing else
    assert later.rowcount == -1            # sent with others (a conflict clause: not known)
    conn.execute("COMMIT")
    assert _tables(conn)[1] == [(10, 1, 0.0)]


def test_parents_come_first_and_only_neighbours_of_one_form_join():
    ranks = write_behind.parent_ranks([("kid", "parent"), ("grandkid", "kid"), ("parent", "parent")])
    assert ranks == {"parent": 0, "kid": 1, "grandkid": 2}   # a parent only of itself counts as none
    w = write_behind.WriteBehind()
    a = "INSERT INTO kid (id) VALUES (%s)"
    b = "INSERT INTO kid (id, v) VALUES (%s, %s)"
    p = "INSERT INTO parent (id) VALUES (%s)"
    for form, rows in ((a, [(1,)]), (p, [(7,)]), (a, [(2,)]), (b, [(3, 0)]), (a, [(4,)]), (p, [(8,)])):
        w.hold(form, write_behind.table_of(form), rows, form, None)
    assert [(f, r) for f, r, _ in write_behind.groups(w.take(), ranks)] == [
        (p, [(7,), (8,)]), (a, [(1,), (2,)]), (b, [(3, 0)]), (a, [(4,)])]
    assert write_behind.table_of("INSERT INTO kid (id) SELECT id FROM parent") is None
    assert write_behind.table_of("INSERT INTO kid (id) VALUES (%s) RETURNING v") is None
    assert write_behind.table_of("INSERT INTO kid (id) VALUES (%s) RETURNING id") == "kid"


def test_a_large_transaction_sends_what_it_holds_past_the_limit(pg_server, monkeypatch):
    """An import writes everything in one transaction: held rows past ``MAX_HELD_ROWS`` go to the server then, so
    the client never holds more than that."""
    monkeypatch.setattr(write_behind, "MAX_HELD_ROWS", 50)
    conn = _pg(pg_server, "held_limit")
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(PARENT, [(i, f"p{i}") for i in range(1, 41)])
    assert conn._behind.rows == 40                   # under the limit: held
    conn.executemany(PARENT, [(i, f"p{i}") for i in range(41, 61)])
    assert conn._behind.rows == 0                    # past it: sent
    conn.executemany(KID, [(i, i, 0.0) for i in range(1, 11)])
    assert conn._behind.rows == 10
    conn.execute("COMMIT")
    assert [len(t) for t in _tables(conn)] == [60, 10, 0]
