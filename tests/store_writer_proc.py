"""Subprocess writer used by the crash and concurrency tests.

usage: python -m tests.store_writer_proc DB N_CLIPS MODE
  MODE=steady : write N clips, print "committed <clip>" after each commit
  MODE=gated  : as steady, and after clips 9, 19, 29, ... (not the last) print "gate <clip>" and wait for a line on
                stdin: a reader is sure to see those states while the writer is still writing
  MODE=hang   : write N clips, then open a big transaction, print "in-transaction", and wait to be killed
  MODE=index  : with the vector index loaded (INDEX_CONFIG: tiny HNSW segments, each build saved beside the
                database), continue after the last clip: N clips, deleting a memory every 4th, printing
                "committed <clip>", then wait to be killed
"""

from __future__ import annotations

import sys
import time

import numpy as np

from m3_memory import MemoryStore

DIM = 32


def vecs(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.normal(size=(n, DIM)).astype(np.float32) + 0.3
    return v / np.linalg.norm(v, axis=1, keepdims=True)


INDEX_CONFIG = {"hnsw_min_size": 40, "exact_max_floats": 0, "index_segment_rows": 40, "index_max_segment_rows": 640,
                "index_background": False, "hnsw_ef_search": 400, "checkpoint_interval_s": 0}


def index_mode(db: str, n: int) -> None:
    store = MemoryStore(db, config=INDEX_CONFIG)
    store.declare_embedder("test-random", DIM)
    last = store.last_clip()
    first = 0 if last is None else last[0] + 1
    rng = np.random.default_rng(first)
    store.index  # noqa: B018  (open it: from now on every commit is applied to it, every build saves it)
    print(f"opened {store.index_note if first else 'new'}", flush=True)
    for c in range(first, first + n):
        with store.begin_clip(c, c * 30.0, (c + 1) * 30.0) as w:
            face = w.add_entity("face", vecs(rng, 1))
            w.add_memories([f"clip {c} memory {i} about <face_{face}>" for i in range(5)], vectors=vecs(rng, 5))
        if c % 4 == 3:  # a deletion (as a forget or a split link makes): a row of the index dies
            with store.transaction() as conn:
                victim = conn.execute("SELECT id FROM nodes WHERE type = 'episodic' ORDER BY random() LIMIT 1"
                                      ).fetchone()[0]
                conn.execute("DELETE FROM nodes WHERE id = ?", (victim,))
                conn.execute("INSERT INTO changes (node_id, op) VALUES (?, 'del')", (victim,))
        print(f"committed {c}", flush=True)
    print("done", flush=True)
    time.sleep(600)


def main() -> None:
    db, n, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if mode == "index":
        index_mode(db, n)
        return
    rng = np.random.default_rng(0)
    store = MemoryStore(db)
    store.declare_embedder("test-random", DIM)
    for c in range(n):
        with store.begin_clip(c, c * 30.0, (c + 1) * 30.0) as w:
            face = w.add_entity("face", vecs(rng, 2))
            texts = [f"clip {c} memory {i} about <face_{face}>" for i in range(5)]
            w.add_memories(texts, "episodic", vectors=vecs(rng, 5))
        print(f"committed {c}", flush=True)
        if mode == "gated" and c % 10 == 9 and c < n - 1:
            print(f"gate {c}", flush=True)
            sys.stdin.readline()
    if mode == "hang":
        with store.begin_clip(n, n * 30.0, (n + 1) * 30.0) as w:
            w.add_memories([f"uncommitted {i}" for i in range(500)], "episodic", vectors=vecs(rng, 500))
            print("in-transaction", flush=True)
            time.sleep(600)


if __name__ == "__main__":
    main()
