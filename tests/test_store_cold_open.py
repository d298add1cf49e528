"""Opening a persisted index fast from a cold disk: segment files memory-mapped (the same answers as read fully), the
graphs read ahead sequentially, the vectors warmed in the background after the first answer, and the queries of the
first answer that SQLite could plan as full scans (characters' equivalences, the change log's ends) kept to index
lookups."""

from __future__ import annotations

import threading
import time

import faiss
import numpy as np
import pytest

from m3_memory import MemoryStore
from m3_memory.store.index_files import _prefetch, index_dir

from .store_writer_proc import DIM
from .test_store_index_persist import CFG, _assert_same_search, _write_and_close


def _store(tmp_path) -> MemoryStore:
    _write_and_close(tmp_path / "m.db", range(30))
    store = MemoryStore(tmp_path / "m.db", config=CFG, readonly=True)
    assert store.index.segments
    return store


def test_mapped_segments_answer_like_segments_read_fully(tmp_path):
    store = _store(tmp_path)
    idx = store.index
    assert store.index_note.startswith("loaded")
    rng = np.random.default_rng(3)
    for seg in idx.segments:
        full = faiss.read_index(str(index_dir(store.path) / seg.file))  # no mmap: every byte copied in
        q = rng.normal(size=(5, DIM)).astype(np.float32)
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        d_map, i_map = seg.index.search(q, 10)
        d_full, i_full = full.search(q, 10)
        assert i_map.tolist() == i_full.tolist()
        assert np.allclose(d_map, d_full)
    store.close()


@pytest.mark.parametrize("where", ["no MADV_POPULATE_READ", "no mappings listed", "open's budget spent"])
def test_vectors_are_warmed_after_the_first_search_and_answers_do_not_change(tmp_path, monkeypatch, where):
    """What the open did not map in (its 0.3 s ran out: a cold disk) is mapped in by a thread after the first answer;
    where the kernel has no MADV_POPULATE_READ, that thread reads the files into the page cache instead."""
    from m3_memory.store import index_files

    if where == "no MADV_POPULATE_READ":
        monkeypatch.setattr(index_files, "populate", lambda ranges, deadline=None: None)
    elif where == "no mappings listed":   # no /proc/self/maps
        monkeypatch.setattr(index_files, "mapped_ranges", lambda paths: [])
    else:
        if index_files.populate([]) is None:
            pytest.skip("no madvise here")
        monkeypatch.setattr(index_files, "OPEN_POPULATE_S", -1.0)
    store = _store(tmp_path)
    idx = store.index
    assert idx.after_search is not None  # set by the load, run once by the first search
    rng = np.random.default_rng(4)
    q = rng.normal(size=(1, DIM)).astype(np.float32)
    before = idx.search(q, 8)
    assert idx.after_search is None
    deadline = time.monotonic() + 10
    while any(t.name == "m3-index-warm" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.01)
    after = idx.search(q, 8)
    assert before[0].tolist() == after[0].tolist()
    rebuilt = MemoryStore(store.path, config=CFG.__class__(**{**CFG.__dict__, "index_persist": False}))
    _assert_same_search(store, rebuilt, queries=10)
    store.close()
    rebuilt.close()


def test_prefetch_of_a_missing_or_short_file_is_harmless(tmp_path):
    _prefetch(tmp_path / "absent.faiss", 1 << 20)
    short = tmp_path / "short.faiss"
    short.write_bytes(b"x" * 100)
    _prefetch(short, 1 << 20)   # asks for more than the file holds
    _prefetch(short, 10, start=50)


def test_character_and_change_log_queries_use_indexes(tmp_path):
    (tmp_path / "a").mkdir()
    _store(tmp_path / "a").close()
    sql: list[str] = []
    store = MemoryStore(tmp_path / "a" / "m.db", config=CFG, readonly=True)
    store.conn.set_trace_callback(sql.append)
    store.characters()   # opens the index (the change log's ends) and reads the characters
    store.conn.set_trace_callback(None)
    assert store.index_note.startswith("loaded")

    def plan(q: str) -> str:
        return " | ".join(r[3] for r in store.conn.execute("EXPLAIN QUERY PLAN " + q, (0,) * q.count("?")))

    eq = next(s for s in sql if "is_equivalence = 1" in s)
    assert "SCAN e" not in plan(eq), plan(eq)       # from the equivalence nodes to their edges, not every edge
    log = [s for s in sql if "FROM changes" in s]
    assert log and all("SCAN changes" not in plan(s) for s in log), [(s, plan(s)) for s in log]
    store.close()
