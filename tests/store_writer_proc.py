"""Subprocess writer used by the crash and concurrency tests.

usage: python -m tests.store_writer_proc DB N_CLIPS MODE
  MODE=steady : write N clips, print "committed <clip>" after each commit
  MODE=hang   : write N clips, then open a big transaction, print "in-transaction", and wait to be killed
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


def main() -> None:
    db, n, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rng = np.random.default_rng(0)
    store = MemoryStore(db)
    store.declare_embedder("test-random", DIM)
    for c in range(n):
        with store.begin_clip(c, c * 30.0, (c + 1) * 30.0) as w:
            face = w.add_entity("face", vecs(rng, 2))
            texts = [f"clip {c} memory {i} about <face_{face}>" for i in range(5)]
            w.add_memories(texts, "episodic", vectors=vecs(rng, 5))
        print(f"committed {c}", flush=True)
    if mode == "hang":
        with store.begin_clip(n, n * 30.0, (n + 1) * 30.0) as w:
            w.add_memories([f"uncommitted {i}" for i in range(500)], "episodic", vectors=vecs(rng, 500))
            print("in-transaction", flush=True)
            time.sleep(600)


if __name__ == "__main__":
    main()
