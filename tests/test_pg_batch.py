"""``executemany`` on PostgreSQL as one statement (m3_memory/store/pg/batch.py): the same rows end up in the tables
as when they go one by one, including the cases one statement would get wrong (repeated keys, a value of the wrong
kind), and a clip's reinforcing and weakening at its commit leaves what SQLite's one-by-one updates leave."""

from __future__ import annotations

import numpy as np

from m3_memory import MemoryStore
from m3_memory.store.pg import batch
from m3_memory.store.pg.connection import PgConnection, _plan
from m3_memory.store.pg.dialect import PRIMARY_KEYS

from .store_helpers import unit

TABLE = "CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER, name TEXT, score REAL, data BLOB)"
ROWS = [(1, 10, "a", 0.5, b"\x00\x01"), (2, 10, "b", None, None), (3, 11, "a", 2.0, b""), (4, None, "c", -1.0, b"x")]


def _pg(pg_server, name: str) -> PgConnection:
    conn = PgConnection(pg_server.database(name))
    conn.execute(TABLE)
    return conn


def _table(conn) -> list[tuple]:
    return [tuple(r) for r in conn.execute("SELECT id, k, name, score, data FROM t ORDER BY id").fetchall()]


def _run(conn, steps) -> list[tuple]:
    """The steps in one write transaction (a clip's pipeline), then the table."""
    conn.execute("BEGIN IMMEDIATE")
    for sql, rows in steps:
        conn.executemany(sql, rows)
    conn.execute("COMMIT")
    return [(i, k, n, s, bytes(d) if d is not None else None) for i, k, n, s, d in _table(conn)]


STEPS = [
    ("INSERT INTO t (id, k, name, score, data) VALUES (?, ?, ?, ?, ?)", ROWS),
    # repeated keys: SQLite replaces row by row, the last row of each key stays
    ("INSERT OR REPLACE INTO t (id, k, name, score, data) VALUES (?, ?, ?, ?, ?)",
     [(1, 10, "a", 9.0, b"new"), (5, 12, "e", 1.0, None), (1, 10, "a", 7.0, b"last")]),
    ("INSERT OR IGNORE INTO t (id, k, name, score, data) VALUES (?, ?, ?, ?, ?)",
     [(2, 99, "zz", 0.0, None), (6, 13, "f", 3.0, None), (6, 13, "f", 4.0, None)]),
    # one row updated twice: both updates count (WHERE id = ANY(...) would apply one)
    ("UPDATE t SET score = coalesce(score, 0) + ? WHERE id = ?", [(1.0, 3), (1.0, 3), (0.5, 2)]),
    # two statements, one per SET value
    ("UPDATE t SET score = score + ? WHERE id = ?", [(1.0, 1), (1.0, 5), (2.5, 6)]),
    ("UPDATE t SET name = ? WHERE k = ? AND id = ?", [("bb", 10, 2), ("ff", 13, 6)]),
    ("DELETE FROM t WHERE k = ? OR name = ?", [(11, "nobody"), (99, "c")]),
    # a float for an integer column: sent row by row, as before
    ("INSERT INTO t (id, k, name, score, data) VALUES (?, ?, ?, ?, ?)",
     [(7, 1.0, "g", 1.0, None), (8, 2, "h", 2, None)]),
    ("DELETE FROM t WHERE id = ?", [(8,), (99,), (5,)]),
]


def test_batches_leave_what_rows_one_by_one_leave(pg_server, tmp_path, monkeypatch):
    monkeypatch.setitem(PRIMARY_KEYS, "t", ("id",))   # INSERT OR REPLACE's conflict target
    batched = _pg(pg_server, "batch_on")
    calls = []
    real = PgConnection._batch

    def counting(self, pg, rows, sql):
        n = real(self, pg, rows, sql)
        calls.append(n is not None)
        return n

    monkeypatch.setattr(PgConnection, "_batch", counting)
    got = _run(batched, STEPS)
    assert calls == [True, True, True, False, True, False, False, False, True], calls   # one statement where it
    # does the same; one by one: a key updated twice, WHERE of two columns or with OR, a float for an integer
    monkeypatch.setattr(PgConnection, "_batch", lambda self, pg, rows, sql: None)
    one_by_one = _run(_pg(pg_server, "batch_off"), STEPS)
    import sqlite3

    lite = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    lite.execute(TABLE)
    assert got == one_by_one == _run(lite, STEPS)
    scores = {r[0]: r[3] for r in got}
    assert scores[1] == 8.0 and scores[2] == 0.5 and scores[6] == 5.5 and {3, 5, 8}.isdisjoint(scores)


def test_plans_refuse_what_one_statement_cannot_do():
    def plan(sql):
        return batch.plan(_plan(sql)[0].removesuffix(" RETURNING id"), sql.startswith("INSERT OR REPLACE"))

    assert plan("DELETE FROM edges WHERE text_id = ? RETURNING entity_id") is None
    assert plan("UPDATE nodes SET weight = ? WHERE id IN (SELECT text_id FROM edges WHERE entity_id = ?)") is None
    assert plan("UPDATE nodes SET weight = ? WHERE id = ? OR clip_id = ?") is None
    assert plan("INSERT INTO nodes (id, text) VALUES (?, lower(?))") is None
    p = plan("INSERT OR REPLACE INTO edges (text_id, entity_id, weight) VALUES (?, ?, 1.0)")
    assert p is not None and p.key == (0, 1) and p.keep_last
    p = plan("UPDATE edges SET weight = weight + ? WHERE text_id = ?")
    assert p is not None and p.columns == ("text_id",) and p.fixed == 1
    assert batch.parameters(p, [int], [(1.0, 5), (2.0, 5)]) is None   # one key twice: one by one
    assert batch.parameters(p, [int], [(1.0, 5), (2.0, 6)]) is None   # no fewer statements
    assert batch.parameters(p, [int], [(1.0, 5), (-1.0, 6), (1.0, 7)]) == [(1.0, [5, 7]), (-1.0, [6])]


def _clip_with_changes(store: MemoryStore, memories: list[int]) -> None:
    with store.begin_clip(5, 120.0, 150.0):
        for text_id, delta in ((memories[0], +1.0), (memories[1], -1.0), (memories[0], -1.0),
                               (memories[2], -1.0), (memories[1], +1.0), (memories[2], -1.0)):
            store._edge_delta(text_id, delta)


def _weights(store: MemoryStore) -> tuple[list, list]:
    nodes = store.conn.execute("SELECT id, weight FROM nodes WHERE type = 'semantic' ORDER BY id").fetchall()
    edges = store.conn.execute("SELECT text_id, entity_id, weight FROM edges ORDER BY text_id, entity_id").fetchall()
    return [tuple(r) for r in nodes], [tuple(r) for r in edges]


def test_a_clips_reinforcing_and_weakening_at_commit_matches_sqlite(tmp_path, pg_server):
    """On PostgreSQL the clip's edge weight changes wait for its commit and go in rounds; SQLite applies them one
    by one as they come. A memory weakened to zero loses its edges (and stays without when reinforced after)."""
    out = []
    for store in (MemoryStore(tmp_path / "m.db"), MemoryStore(pg_server.database("deltas"))):
        rng = np.random.default_rng(3)
        with store.begin_clip(0, 0.0, 30.0) as w:
            face = w.add_entity("face", unit(rng, 1, 8))
            ids = [w.insert_text_node(f"<face_{face}> fact {i}", "semantic", unit(rng, 1, 8)[0], [face], False, None)
                   for i in range(3)]
        store.conn.execute("UPDATE edges SET weight = 2.0 WHERE text_id = ?", (ids[2],))
        _clip_with_changes(store, ids)
        out.append(_weights(store))
        store.close()
    assert out[0] == out[1]
    nodes, edges = out[1]
    assert [(t, w) for t, _, w in edges] == [(ids[0], 1.0)]   # ids[1] fell to 0 then rose: no edges; ids[2]: 2 -> 0
    assert [w for _, w in nodes][1:] == [nodes[0][1], nodes[0][1] - 2.0]


def test_a_young_store_is_analyzed_by_its_writer(pg_server, monkeypatch):
    """Autovacuum visits a database once a minute at best; a store filled faster than that has no statistics and
    the planner may scan whole tables (at 100k memories: the memories of one clip through the primary key,
    filtered, 3.6 ms instead of 0.1; benchmarks/engines_bench.py). The writer analyzes the tables that changed by
    more than half since their last statistics (fails without it: no table here would have been analyzed)."""
    from m3_memory.store.pg import statistics

    monkeypatch.setattr(statistics, "CHECK_EVERY_S", 0.0)
    store = MemoryStore(pg_server.database("young"))
    store.declare_embedder("test-embedder", 8)
    rng = np.random.default_rng(0)
    for clip in range(60):
        with store.begin_clip(clip, clip * 30.0, clip * 30.0 + 30.0) as w:
            w.add_memories([f"memory {clip}.{i}" for i in range(40)], vectors=unit(rng, 40, 8))
    assert {"nodes", "embeddings", "changes"} <= set(store.conn.statistics.analyzed)
    never = store.conn.execute("SELECT relname FROM pg_stat_user_tables WHERE relname IN ('nodes', 'changes') "
                               "AND last_analyze IS NULL AND last_autoanalyze IS NULL").fetchall()
    assert never == []
    assert len(store.clip_memories(7)) == 40
    store.close()
