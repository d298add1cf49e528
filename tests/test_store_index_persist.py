"""The vector index persisted beside the database: saved, loaded with the change log replayed, rebuilt (and said so)
when unusable, never holding a deleted vector, and equal to a rebuild after kill -9 of a writer at any moment."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import faiss
import numpy as np
import pytest

from m3_memory import MemoryStore, StoreConfig
from m3_memory.store.index_files import index_dir

from .store_writer_proc import DIM, INDEX_CONFIG, vecs

ROOT = Path(__file__).resolve().parents[1]
CFG = StoreConfig.from_dict(INDEX_CONFIG)
NO_WRITER_INDEX = StoreConfig.from_dict({**INDEX_CONFIG, "index_on_write": False})


def _write(store: MemoryStore, clips: range, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for c in clips:
        with store.begin_clip(c, c * 30.0, (c + 1) * 30.0) as w:
            face = w.add_entity("face", vecs(rng, 1))
            w.add_memories([f"clip {c} memory {i} about <face_{face}>" for i in range(5)], vectors=vecs(rng, 5))


def _write_and_close(db: Path, clips: range) -> None:
    """A store written by a writer that never searched (its index saved at close)."""
    store = MemoryStore(db, config=CFG)
    store.declare_embedder("test-random", DIM)
    _write(store, clips)
    store.close()


def _rows(store: MemoryStore) -> dict[int, tuple]:
    """Every live row of the store's index: node id -> (clip, end time, vector)."""
    idx = store.index
    live = np.flatnonzero(idx.alive[: idx.n])
    v = idx.vectors_of_rows(live)
    return {int(idx.ids[r]): (int(idx.clip[r]), float(idx.end_time[r]), v[i].tobytes()) for i, r in enumerate(live)}


def _db_truth(store: MemoryStore) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows = store.conn.execute("SELECT n.id, n.end_time, e.vector FROM nodes n JOIN embeddings e ON e.node_id = n.id "
                              "WHERE n.type IN ('episodic', 'semantic') ORDER BY n.id").fetchall()
    return (np.array([r[0] for r in rows]), np.array([r[1] for r in rows]),
            np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), -1))


def _assert_same_search(a: MemoryStore, b: MemoryStore, queries: int = 40) -> None:
    """a and b answer like brute force over the database's vectors: the same ids in order, up to memories whose
    scores tie within float error (the index's inner products and numpy's round differently: two such memories may
    come in either order, CI saw 329 / 312 swapped), and the same scores."""
    ids, end, mat = _db_truth(a)
    rng = np.random.default_rng(9)
    for t in range(queries):
        q = mat[rng.integers(len(mat))] + 0.5 * rng.normal(size=DIM).astype(np.float32)
        q /= np.linalg.norm(q)
        bound = None if t % 2 else float(end[rng.integers(len(end))])
        s = mat @ q
        if bound is not None:
            s[end > bound + 1e-9] = -np.inf
        order = np.argsort(-s, kind="stable")[:8]
        want, best = ids[order], s[order]
        true = dict(zip(ids.tolist(), s.tolist(), strict=True))
        for store in (a, b):
            got, scores = store.index.search(q[None, :], 8, before_time=bound)
            assert len(got) == len(want) and len(set(got.tolist())) == len(got)
            # each id found is the brute force's at its rank, or one whose true score ties that rank's
            assert all(g == w or abs(true[g] - best[k]) <= 1e-5 for k, (g, w) in
                       enumerate(zip(got.tolist(), want.tolist(), strict=True))), (got.tolist(), want.tolist())
            assert np.allclose(scores, best, atol=1e-5)


def test_index_is_saved_at_close_and_loaded_at_open(tmp_path):
    db = tmp_path / "m.db"
    store = MemoryStore(db, config=CFG)
    store.declare_embedder("test-random", DIM)
    _write(store, range(30))
    rows = _rows(store)
    assert store.index.segments and "rebuilt" in store.index_note
    store.close()
    assert (index_dir(db) / "manifest.json").exists()
    again = MemoryStore(db, config=CFG)
    assert _rows(again) == rows
    assert again.index_note.startswith("loaded") and again.index.segments
    _write(again, range(30, 40), seed=1)  # and it keeps up with new clips on top of the loaded segments
    rebuilt = MemoryStore(db, config=dataclasses.replace(CFG, index_persist=False))
    assert _rows(again) == _rows(rebuilt)
    _assert_same_search(again, rebuilt)


def _corrupt_manifest(d: Path) -> None:
    (d / "manifest.json").write_text("{not json")


def _truncate_segment(d: Path) -> None:
    seg = next(d.glob("seg-*.faiss"))
    seg.write_bytes(seg.read_bytes()[:100])


def _edit_manifest(**change: object):
    def edit(d: Path) -> None:
        m = json.loads((d / "manifest.json").read_text())
        m.update(change)
        (d / "manifest.json").write_text(json.dumps(m))
    return edit


@pytest.mark.parametrize("damage,reason", [
    (_corrupt_manifest, "unreadable manifest"),
    (_truncate_segment, "seg-"),
    (_edit_manifest(embedder="another-model"), "embedder"),
    (_edit_manifest(store_id="0" * 32), "store_id"),
    (_edit_manifest(dtype="int8"), "dtype"),
    (_edit_manifest(seq=10**9), "older copy"),
])
def test_an_unusable_index_is_rebuilt_and_the_log_says_why(tmp_path, caplog, damage, reason):
    db = tmp_path / "m.db"
    store = MemoryStore(db, config=CFG)
    store.declare_embedder("test-random", DIM)
    _write(store, range(25))
    rows = _rows(store)
    store.close()
    damage(index_dir(db))
    with caplog.at_level(logging.WARNING, logger="m3_memory.store"):
        again = MemoryStore(db, config=CFG)
        assert _rows(again) == rows
    assert again.index_note.startswith("rebuilt") and reason in again.index_note
    assert any("rebuilt from the database" in r.getMessage() and reason in r.getMessage() for r in caplog.records)
    again.close()  # and the rebuilt index is saved for the next open
    third = MemoryStore(db, config=CFG)
    assert _rows(third) == rows and third.index_note.startswith("loaded")


def test_saved_files_never_hold_a_deleted_vector(tmp_path):
    db = tmp_path / "m.db"
    store = MemoryStore(db, config=NO_WRITER_INDEX)   # the reader's saves alone
    store.declare_embedder("test-random", DIM)
    _write(store, range(30))
    reader = MemoryStore(db, config=CFG, readonly=True)
    assert reader.flush_index()
    _write(store, range(30, 32), seed=1)
    idx = reader.index
    assert idx.pending == 10
    old_seg = idx.segments[0]
    old_file = old_seg.file
    victim = int(idx.ids[old_seg.start + 3])       # in the oldest (already saved) segment
    pend_victim = int(idx.ids[idx.n - 1])          # among the pending rows
    with store.transaction() as conn:
        for v in (victim, pend_victim):
            conn.execute("DELETE FROM nodes WHERE id = ?", (v,))
            conn.execute("INSERT INTO changes (node_id, op) VALUES (?, 'del')", (v,))
    # the reader has not applied the deletions yet: it must not save (its state still holds those vectors)
    assert reader._save_index(reader._index) is False
    assert reader.flush_index()  # refreshes first: now it may
    d = index_dir(db)
    m = json.loads((d / "manifest.json").read_text())
    seg_file = next(s["file"] for s in m["segments"] if s["start"] == old_seg.start)
    assert seg_file != old_file and not (d / old_file).exists()  # written again, the old file removed
    seg = faiss.read_index(str(d / seg_file))
    assert not np.any(seg.storage.reconstruct(3))                 # zeroed in the file ...
    assert np.any(old_seg.index.storage.reconstruct(3))          # ... not in the live (mapped) index
    pending = np.load(d / m["pending"])
    assert not np.any(pending[-1]) and np.any(pending[0])
    assert reader.index.vector(victim) is None


def test_forget_purges_the_persisted_index(tmp_path):
    db = tmp_path / "m.db"
    store = MemoryStore(db, config=CFG)
    store.declare_embedder("test-random", DIM)
    _write(store, range(20))
    assert store.flush_index() and any(index_dir(db).glob("seg-*"))
    cid = store.characters().character_of(store.entities("face")[0].id)
    store.forget_character(cid)
    assert not (index_dir(db) / "manifest.json").exists() and not any(index_dir(db).glob("seg-*"))
    store.close()  # saved again, without the forgotten memories
    again = MemoryStore(db, config=CFG)
    assert len(again.index) == 95 and again.index_note.startswith("loaded")


def _spawn(db: Path, n: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.store_writer_proc", str(db), str(n), "index"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_kill_9_between_commits_and_index_saves_gives_the_rebuild_results(tmp_path):
    """A writer holding the index is killed at random moments (mid-clip, mid-save, between a commit and the next
    save) three times; each restart loads the saved index and replays the change log. The end state must equal
    a rebuild from the database, row for row, and search like brute force."""
    db = tmp_path / "m.db"
    rng = np.random.default_rng(4)
    opened = []
    for _ in range(3):
        proc = _spawn(db, 400)
        deadline = time.monotonic() + 120
        committed = 0
        try:
            assert proc.stdout is not None
            opened.append(proc.stdout.readline().strip())
            target = 18 + int(rng.integers(0, 10))
            while committed < target:
                line = proc.stdout.readline()
                assert line, f"writer died: {proc.stderr.read() if proc.stderr else ''}"
                committed += line.startswith("committed")
                assert time.monotonic() < deadline
            time.sleep(float(rng.uniform(0, 0.05)))  # somewhere in the next clip, its commit or a save
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert opened[0] == "opened new"
    assert all(o.startswith("opened loaded") for o in opened[1:]), opened  # restarts replayed, not rebuilt
    store = MemoryStore(db, config=CFG)
    rebuilt = MemoryStore(db, config=dataclasses.replace(CFG, index_persist=False), readonly=True)
    assert len(store.index) == len(rebuilt.index) > 0
    assert store.index_note.startswith("loaded") and rebuilt.index_note.startswith("rebuilt"), store.index_note
    assert _rows(store) == _rows(rebuilt)
    assert len(store.index) == store.stats()["nodes"]["episodic"]
    _assert_same_search(store, rebuilt)


@pytest.mark.parametrize("dtype", ["float16", "int8"])
def test_quantized_segments_persist_and_find_stored_memories(tmp_path, dtype):
    db = tmp_path / "m.db"
    cfg = dataclasses.replace(CFG, index_dtype=dtype)
    store = MemoryStore(db, config=cfg)
    store.declare_embedder("test-random", DIM)
    _write(store, range(30))
    rows = _rows(store)
    idx = store.index
    float32_bytes = 4 * DIM * (idx.n - idx.pending)
    assert idx.segments[0].xb is None and idx.nbytes()["vectors"] < float32_bytes / (3 if dtype == "int8" else 1.5)
    store.close()
    again = MemoryStore(db, config=cfg)
    assert _rows(again) == rows and again.index_note.startswith("loaded")
    ids, _, mat = _db_truth(again)
    found = sum(int(again.index.search(mat[i][None, :], 1)[0][0] == ids[i]) for i in range(0, len(ids), 7))
    assert found >= 0.9 * len(range(0, len(ids), 7))  # a stored vector finds itself despite the quantization
    # a store opened with another dtype does not use these files
    other = MemoryStore(db, config=CFG)
    assert len(other.index) == len(rows) and "dtype" in other.index_note


def test_a_writer_that_never_searched_leaves_its_index_ready_for_the_next_reader(tmp_path):
    """The memorization node and an upstream import only write. Their store's index used to be rebuilt from the
    database by the first reader (15 s at 100k memories, minutes at 1M): now the writer keeps it as it writes and
    saves it at close (benchmarks/open_ready_bench.py)."""
    db = tmp_path / "m.db"
    _write_and_close(db, range(30))
    reader = MemoryStore(db, config=CFG, readonly=True)
    assert reader.index_note == "" and len(reader.index) == 150
    assert reader.index_note.startswith("loaded"), reader.index_note
    rebuilt = MemoryStore(db, config=CFG, readonly=True)
    rebuilt.refresh(force=True)                    # from the database: the loaded index holds exactly that
    assert reader.index.segments and _rows(reader) == _rows(rebuilt)
    # without the writer's index the same store is rebuilt by its reader
    other = tmp_path / "o.db"
    store = MemoryStore(other, config=NO_WRITER_INDEX)
    store.declare_embedder("test-random", DIM)
    _write(store, range(30))
    store.close()
    assert not (index_dir(other) / "manifest.json").exists()


def test_a_search_over_many_segments_is_the_same_on_one_thread_and_on_two(tmp_path):
    """Segments are walked by ``search_threads`` threads at once: the answers are those of one thread, time bound
    included, and both are brute force's."""
    db = tmp_path / "m.db"
    _write_and_close(db, range(60))
    one = MemoryStore(db, config=dataclasses.replace(CFG, search_threads=1), readonly=True)
    two = MemoryStore(db, config=dataclasses.replace(CFG, search_threads=2), readonly=True)
    assert len(one.index) == len(two.index) == 300 and len(two.index.segments) >= 2
    assert two.index.p.search_threads == 2 and one.index.p.search_threads == 1
    _assert_same_search(one, two)


def test_an_open_maps_the_saved_segments_in_before_the_first_search(tmp_path):
    """A reader of a store whose index files are in the page cache finds every page of its segments already
    mapped (MADV_POPULATE_READ), instead of faulting them in during its first searches."""
    from m3_memory.store import mapped_pages

    if mapped_pages.populate([]) is None:
        pytest.skip("no madvise here")
    db = tmp_path / "m.db"
    _write_and_close(db, range(40))
    reader = MemoryStore(db, config=CFG, readonly=True)
    assert len(reader.index) == 200 and reader.index.segments
    files = [index_dir(db) / s.file for s in reader.index.segments]
    ranges = mapped_pages.mapped_ranges(files)
    assert ranges, "faiss maps the segment files"
    resident = _resident_kb(files)
    assert resident and all(kb >= 0.9 * size_kb for kb, size_kb in resident), resident
    assert reader.index.after_search is None   # nothing left for a background thread
    _assert_same_search(reader, reader, queries=4)


def _resident_kb(files: list[Path]) -> list[tuple[int, int]]:
    """(resident kB, mapped kB) of each mapping of ``files`` in this process (/proc/self/smaps)."""
    want = {os.path.realpath(f) for f in files}
    out, current = [], None
    with open("/proc/self/smaps") as f:
        for line in f:
            parts = line.split()
            if re.fullmatch(r"[0-9a-f]+-[0-9a-f]+", parts[0]):   # a mapping's header (anonymous ones name no file)
                current = parts[5] if len(parts) >= 6 and parts[5] in want else None
            elif current and parts[0] == "Size:":
                size = int(parts[1])
            elif current and parts[0] == "Rss:":
                out.append((int(parts[1]), size))
    return out
