"""Recall@10 and search time of the vector index's HNSW segments over its build and search parameters.

The engines benchmark measures one configuration at 1M memories (recall@10 0.943-0.971 over runs of the same code,
target 0.95); this one picks the configuration. Vectors come from the engines benchmark's synthetic household
(``synth.World``, two robots' clips interleaved as two writers leave them), are laid out in segments as the index
keeps them (``max_segment_rows`` rows, each built in one ``add`` call like ``vector_index._build``), and queried
as ``engines_bench._recall`` does (a vector near a stored one, cosine 0.6) against an exact scan.

    python benchmarks/hnsw_sweep.py --n 1000000 --ef-construction 40 64 100 --ef-search 64 128 192 256

Prints, per (efConstruction, efSearch): build seconds, recall@10, search p50 / p99 (ms, one thread walking every
segment); ``--json`` keeps them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import faiss
import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import World  # noqa: E402

DIM, HOUSEHOLD = 384, 1000   # engines_bench's


def household_vectors(n: int, writers: int = 2) -> np.ndarray:
    """``n`` text-memory vectors of ``writers`` robots of one home, their clips interleaved."""
    worlds = [World(DIM, seed=1 + w, household=HOUSEHOLD) for w in range(writers)]
    out, have = [], 0
    with tqdm(total=n, desc="vectors", unit="vec") as bar:
        while have < n:
            for w in worlds:
                plan = w.plan()
                v = np.stack([x[2] for x in plan.episodic + plan.semantic]).astype(np.float32)
                out.append(v)
                have += len(v)
                bar.update(len(v))
    return np.ascontiguousarray(np.concatenate(out)[:n])


def build(mat: np.ndarray, m: int, ef_construction: int, seg_rows: int) -> tuple[list, float]:
    segs, t = [], time.perf_counter()
    for start in tqdm(range(0, len(mat), seg_rows), desc=f"build efC={ef_construction}", unit="seg"):
        index = faiss.IndexHNSWFlat(DIM, m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = ef_construction
        index.add(mat[start : start + seg_rows])
        segs.append((start, index))
    return segs, time.perf_counter() - t


def search(segs: list, q: np.ndarray, ef: int, k: int = 10) -> np.ndarray:
    params = faiss.SearchParametersHNSW()
    params.efSearch = ef
    rows, scores = [], []
    for start, index in segs:
        d, i = index.search(q[None, :], k, params=params)
        ok = i[0] >= 0
        rows.append(i[0][ok] + start)
        scores.append(d[0][ok])
    rows_a, scores_a = np.concatenate(rows), np.concatenate(scores)
    return rows_a[np.argsort(-scores_a)[:k]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--m", type=int, default=16)
    ap.add_argument("--ef-construction", type=int, nargs="+", default=[40, 64, 100])
    ap.add_argument("--ef-search", type=int, nargs="+", default=[64, 128, 192, 256])
    ap.add_argument("--segment-rows", type=int, default=262144)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    mat = household_vectors(a.n)
    rng = np.random.default_rng(5)
    world = World(DIM, seed=99, household=HOUSEHOLD)
    queries = [world.space.near(mat[rng.integers(len(mat))], 0.6)[0] for _ in range(a.queries)]
    truth = [set(np.argpartition(-(mat @ q), 10)[:10].tolist()) for q in tqdm(queries, desc="exact", unit="q")]
    faiss.omp_set_num_threads(1)
    rows = []
    for efc in a.ef_construction:
        faiss.omp_set_num_threads(2)
        segs, build_s = build(mat, a.m, efc, a.segment_rows)
        faiss.omp_set_num_threads(1)   # a search walks its segments on one thread here
        for efs in a.ef_search:
            got, times = 0, []
            for q, t in zip(queries, truth, strict=True):
                t0 = time.perf_counter()
                found = search(segs, q, efs)
                times.append(time.perf_counter() - t0)
                got += len(t & set(found.tolist()))
            ms = 1e3 * np.array(times)
            row = {"n": a.n, "m": a.m, "ef_construction": efc, "ef_search": efs, "build_s": round(build_s, 1),
                   "recall_at_10": got / (10 * len(queries)), "p50_ms": float(np.percentile(ms, 50)),
                   "p99_ms": float(np.percentile(ms, 99))}
            rows.append(row)
            print(f"efC {efc:4d} efS {efs:4d}  build {build_s:6.1f} s  recall@10 {row['recall_at_10']:.3f}  "
                  f"p50 {row['p50_ms']:.2f} ms  p99 {row['p99_ms']:.2f} ms", flush=True)
        del segs
    if a.json:
        Path(a.json).write_text(json.dumps({"queries": a.queries, "segment_rows": a.segment_rows, "rows": rows},
                                           indent=1))


if __name__ == "__main__":
    main()
