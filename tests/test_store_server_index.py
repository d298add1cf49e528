"""The vector index on the server (``vector_search: server``, m3_memory/store/pg/server_index.py): pgvector's HNSW
in the database, kept from the change log by whichever process searches or writes in that mode, searched with the
time bound, excluded clips and a person's memories as the local index is."""

from __future__ import annotations

import random

import numpy as np
import psycopg
import pytest

from m3_memory import MemoryStore, StoreConfig
from m3_memory.errors import StoreError
from m3_memory.store.pg.vectors import Vector, Vectors, register

from .store_helpers import kitchen_store, unit

SERVER = StoreConfig(vector_search="server")
DIM = 384   # the embedded text embedder's


def _fresh(server, name: str) -> str:
    """A new database on the server (a server of one's own keeps earlier runs' databases)."""
    return server.database(f"{name}_{random.SystemRandom().getrandbits(32):x}")


def _exact(vecs: dict[int, np.ndarray], meta: dict[int, tuple[int, float]], q: np.ndarray, k: int,
           before: float | None = None, exclude: set[int] = frozenset(), among: set[int] | None = None) -> list[int]:
    ok = [i for i in vecs if (before is None or meta[i][1] <= before) and meta[i][0] not in exclude
          and (among is None or i in among)]
    return sorted(ok, key=lambda i: -float(vecs[i] @ q))[:k]


def _filled(url: str, config: StoreConfig, clips: int = 12, per_clip: int = 25, seed: int = 3):
    """``clips`` 30 s clips of ``per_clip`` memories with known vectors; (store, vectors by node id, (clip, end))."""
    rng = np.random.default_rng(seed)
    store = MemoryStore(url, config=config)
    store.declare_embedder("test-random", DIM)
    vecs: dict[int, np.ndarray] = {}
    meta: dict[int, tuple[int, float]] = {}
    for c in range(clips):
        v = unit(rng, per_clip, DIM)
        with store.begin_clip(c, 30.0 * c, 30.0 * c + 30) as w:
            got = w.add_memories([f"memory {c}-{i}" for i in range(per_clip)], vectors=v)
            clip_id = w.clip_id
        for r, row in zip(got, v, strict=True):
            vecs[r.node_id], meta[r.node_id] = row, (clip_id, 30.0 * c + 30)
    return store, vecs, meta


def test_server_search_finds_what_an_exact_scan_finds_with_a_time_bound_excluded_clips_and_a_subset(pgvector_server):
    url = _fresh(pgvector_server, "server_search")
    store, vecs, meta = _filled(url, SERVER)
    index = store.index
    assert index.exists and len(index) == len(vecs) == 300
    rng = np.random.default_rng(9)
    ids = sorted(vecs)
    hits = total = 0
    for trial in range(20):
        q = unit(rng, 1, DIM)[0]
        before = [None, 95.0, 200.0][trial % 3]
        exclude = {meta[ids[trial * 7]][0]} if trial % 2 else set()
        found, scores = index.search(q[None, :], 10, before_time=before, exclude_clips=exclude)
        want = _exact(vecs, meta, q, 10, before, exclude)
        assert all(meta[i][1] <= (before or np.inf) and meta[i][0] not in exclude for i in found.tolist())
        assert np.all(np.diff(scores) <= 1e-6), "best first"
        assert np.allclose(scores, [vecs[i] @ q for i in found.tolist()], atol=1e-4), "scores are cosines"
        hits += len(set(found.tolist()) & set(want))
        total += len(want)
        among = set(rng.choice(ids, 40, replace=False).tolist())   # a person's memories: exact
        found, _ = index.search(q[None, :], 5, subset_ids=sorted(among), before_time=before)
        assert found.tolist() == _exact(vecs, meta, q, 5, before, among=among)
    assert hits / total >= 0.95, f"recall@10 {hits / total:.3f}"
    # several query rows (a question's variants): each node scores its best row
    q2 = unit(rng, 2, DIM)
    found, scores = index.search(q2, 5)
    best = {i: max(float(vecs[i] @ q2[0]), float(vecs[i] @ q2[1])) for i in vecs}
    assert found.tolist() == sorted(best, key=lambda i: -best[i])[:5]
    assert index.clips_of(found).tolist() == [meta[i][0] for i in found.tolist()]
    store.close()


def test_a_new_reader_answers_from_the_server_at_once_and_keeps_no_index_of_its_own(pgvector_server, tmp_path):
    url = _fresh(pgvector_server, "server_reader")
    config = StoreConfig(vector_search="server", index_cache_dir=str(tmp_path / "cache"))
    store, ids = kitchen_store(url)   # written in the default mode: the server's table does not exist yet
    store.close()
    reader = MemoryStore(url, config=config, readonly=True)
    assert reader.search_nodes("who likes coffee without sugar", topk=1)[0].id == ids["m_likes"]
    assert reader.index_note.startswith("on the server"), reader.index_note
    with psycopg.connect(url) as c:   # caught up from the change log by the reader's first search
        assert c.execute("SELECT count(*) FROM text_vectors").fetchone()[0] == 7
    # a writer in the same mode keeps the table as it commits; the reader sees its clip at its next search
    writer = MemoryStore(url, config=config)
    with writer.begin_clip(3, 90.0, 120.0) as w:
        battery = w.add_memory("The robot charges its battery in the hallway.").node_id
    with psycopg.connect(url) as c:
        seq, rows = c.execute("SELECT (SELECT seq FROM text_vectors_state), count(*) FROM text_vectors").fetchone()
        assert rows == 8 and seq == c.execute("SELECT max(seq) FROM changes").fetchone()[0]
    assert reader.search_nodes("battery charging", topk=1)[0].id == battery
    assert reader.search_clips("battery charging", topk=1, before_time=100.0) == []   # the time bound holds
    writer.close()
    reader.close()
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


def test_forget_takes_the_persons_memories_out_of_the_server_index_and_vacuums_it(pgvector_server):
    url = _fresh(pgvector_server, "server_forget")
    store, ids = kitchen_store(url)
    store.close()
    store = MemoryStore(url, config=SERVER)
    assert store.search_nodes("coffee", topk=1)[0].id == ids["m_coffee"]
    report = store.forget_character(store.characters().character_of(ids["alice_face"]))
    gone = {ids["m_coffee"], ids["m_name"], ids["m_likes"], ids["eq"]}
    with psycopg.connect(url) as c:
        left = {r[0] for r in c.execute("SELECT node_id FROM text_vectors")}
        assert not gone & left and left, left
        vacuumed = c.execute("SELECT coalesce(last_vacuum, last_autovacuum) FROM pg_stat_user_tables "
                             "WHERE relname = 'text_vectors'").fetchone()[0]
    assert vacuumed is not None and report.remains
    assert all("coffee" not in m.text for m in store.search_nodes("coffee", topk=5))
    store.close()


def test_a_forced_refresh_rebuilds_the_server_table_from_the_database(pgvector_server):
    url = _fresh(pgvector_server, "server_rebuild")
    store, vecs, _ = _filled(url, SERVER, clips=3, per_clip=10)
    with psycopg.connect(url, autocommit=True) as c:   # damaged by hand: a row lost, one wrong
        register(c)
        c.execute("DELETE FROM text_vectors WHERE node_id = %s", (min(vecs),))
        c.execute("UPDATE text_vectors SET vec = %s WHERE node_id = %s", (Vector(-vecs[max(vecs)]), max(vecs)))
    store.refresh(force=True)
    with psycopg.connect(url) as c:
        assert c.execute("SELECT count(*) FROM text_vectors").fetchone()[0] == 30
        assert c.execute("SELECT count(*) FROM pg_indexes WHERE indexname = 'text_vectors_hnsw'").fetchone()[0] == 1
    found, scores = store.index.search(vecs[max(vecs)][None, :], 1)
    assert found.tolist() == [max(vecs)] and scores[0] > 0.999
    store.close()


def test_a_server_index_far_behind_the_log_is_rebuilt_at_open_not_grown_row_by_row(pgvector_server, monkeypatch):
    from m3_memory.store import index_keeping

    url = _fresh(pgvector_server, "server_behind")
    store, vecs, _ = _filled(url, StoreConfig(), clips=4, per_clip=10)   # written in the default mode
    store.close()
    monkeypatch.setattr(index_keeping, "SERVER_REBUILD_BEHIND", 20)
    reader = MemoryStore(url, config=SERVER, readonly=True)
    found, _ = reader.index.search(vecs[min(vecs)][None, :], 1)
    assert found.tolist() == [min(vecs)] and "rebuilt" in reader.index_note, reader.index_note
    with psycopg.connect(url) as c:
        assert c.execute("SELECT count(*) FROM text_vectors").fetchone()[0] == 40
        assert c.execute("SELECT seq FROM text_vectors_state").fetchone()[0] == c.execute(
            "SELECT max(seq) FROM changes").fetchone()[0]
    reader.close()


def test_a_dropped_server_session_loses_no_clip_and_the_next_refresh_catches_the_table_up(pgvector_server):
    url = _fresh(pgvector_server, "server_dropped")
    store, vecs, _ = _filled(url, SERVER, clips=2, per_clip=5)
    with psycopg.connect(url, autocommit=True) as c:   # the index's session ends under it (a restart, a failover)
        c.execute("SELECT pg_terminate_backend(%s)", (store.index._session.info.backend_pid,))
    v = unit(np.random.default_rng(4), 1, DIM)
    with store.begin_clip(9, 300.0, 330.0) as w:    # committed; applying it to the table fails, logged, not raised
        new = w.add_memories(["memory 9-0"], vectors=v)[0].node_id
    found, _ = store.index.search(v, 1)             # the next refresh reconnects and applies it
    assert found.tolist() == [new]
    with psycopg.connect(url) as c:
        assert c.execute("SELECT count(*) FROM text_vectors").fetchone()[0] == len(vecs) + 1
    store.close()


def test_server_search_needs_postgresql_and_refuses_what_pgvector_cannot_hold(tmp_path):
    with pytest.raises(StoreError, match="vector_search"):
        MemoryStore(tmp_path / "m.db", config=SERVER)
    with pytest.raises(ValueError, match="vector_search"):
        StoreConfig.from_dict({"vector_search": "remote"})
    with pytest.raises(ValueError, match="NaN"):
        Vectors(np.array([[0.1, np.nan]]))
    with pytest.raises(ValueError, match="1-D"):
        Vector(np.zeros((2, 3)))
