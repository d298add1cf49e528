"""Memory store benchmark: ingest rate and search latency at 1k-100k text nodes, 384-d and 3072-d vectors.

    python benchmarks/store_bench.py --sizes 1000 10000 100000 --dims 384 3072 --queries 300

Memories go through the real write path (one transaction per 30 s clip of 20 memories: 14 episodic, 6 semantic,
tags of a few face/voice entities, so the semantic near-duplicate path runs too). Vectors are random with a shared
direction (pairwise cosine ~0.1, like real text embeddings; zero-mean vectors would send half of the semantic
inserts down the "cosine < 0 => weaken" branch). Queries are vectors with cosine ~0.6 to one stored memory and go
through the full ``search_clips`` / ``search_nodes`` path (SQL included); the query embedder is a stand-in that
returns those vectors, so the numbers exclude text-embedding time (MiniLM adds ~3 ms, see README).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from m3_memory import MemoryStore

PER_CLIP, EPISODIC, N_ENT = 20, 14, 40


class QueryVectors:
    """Stand-in embedder: hands out the next prepared query vector."""

    def __init__(self, name: str, dim: int) -> None:
        self.name, self.dim = name, dim
        self.next: np.ndarray | None = None

    def embed(self, texts: list[str]) -> np.ndarray:
        assert self.next is not None
        return np.repeat(self.next[None, :], len(texts), axis=0)


def vectors(rng: np.random.Generator, n: int, dim: int, shared: np.ndarray) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    v = v + 0.35 * shared
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def build(path: Path, n: int, dim: int, rng: np.random.Generator) -> dict:
    shared = rng.standard_normal(dim).astype(np.float32)
    shared /= np.linalg.norm(shared)
    store = MemoryStore(path, embedder=QueryVectors("bench-random", dim))
    store.declare_embedder("bench-random", dim)
    clips = n // PER_CLIP
    ents: list[int] = []
    t0 = time.perf_counter()
    for c in tqdm(range(clips), desc=f"ingest {n} x {dim}-d", unit="clip", leave=False):
        with store.begin_clip(c, 30.0 * c, 30.0 * (c + 1)) as w:
            if len(ents) < N_ENT and c % max(1, clips // (2 * N_ENT)) == 0:  # entities appear over the first half
                ents.append(w.add_entity("face" if len(ents) % 2 == 0 else "voice",
                                         vectors(rng, 1, 128 if len(ents) % 2 == 0 else 192, np.zeros(1))))
            tags = [f"<{'face' if e % 2 else 'voice'}_{e}>" for e in ents]
            texts = [f"clip {c} event {i} {tags[i % len(tags)] if tags else ''}" for i in range(PER_CLIP)]
            vec = vectors(rng, PER_CLIP, dim, shared)
            w.add_memories(texts[:EPISODIC], "episodic", vectors=vec[:EPISODIC])
            for t, v in zip(texts[EPISODIC:], vec[EPISODIC:], strict=True):
                w.add_memory(t, "semantic", vector=v)
    ingest_s = time.perf_counter() - t0
    nodes = store.stats()["nodes"]
    store.close()
    return {"clips": clips, "text_nodes": nodes["episodic"] + nodes["semantic"], "ingest_s": ingest_s,
            "ingest_nodes_per_s": (nodes["episodic"] + nodes["semantic"]) / ingest_s,
            "db_mb": (path.stat().st_size + (path.with_name(path.name + "-wal").stat().st_size
                                             if path.with_name(path.name + "-wal").exists() else 0)) / 1e6}


def pct(xs: list[float]) -> dict:
    a = np.array(xs) * 1000
    return {"p50_ms": float(np.percentile(a, 50)), "p99_ms": float(np.percentile(a, 99)), "mean_ms": float(a.mean())}


def measure(path: Path, dim: int, queries: int, rng: np.random.Generator) -> dict:
    emb = QueryVectors("bench-random", dim)
    t0 = time.perf_counter()
    store = MemoryStore(path, embedder=emb, readonly=True)
    idx = store.index  # full load (+ HNSW build above the threshold)
    cold = time.perf_counter() - t0
    n = len(idx)
    half_t = float(store.conn.execute("SELECT max(end_time) FROM clips").fetchone()[0]) / 2
    chars = list(store.characters().members)

    def near_query() -> np.ndarray:
        v = idx.mat[rng.integers(0, idx.n)]
        noise = rng.standard_normal(dim).astype(np.float32)
        noise -= (noise @ v) * v
        noise /= np.linalg.norm(noise)
        q = 0.6 * v + 0.8 * noise
        return q / np.linalg.norm(q)

    out: dict = {"text_nodes": n, "cold_open_s": cold, "index": "hnsw" if idx.hnsw is not None else "exact"}
    cases = {
        "search_clips": lambda: store.search_clips("q", topk=2, threshold=0.5),
        "search_clips_time_bound": lambda: store.search_clips("q", topk=2, threshold=0.5, before_time=half_t),
        "search_clips_character": lambda: store.search_clips(f"what did <character_{chars[0]}> do", topk=2,
                                                             threshold=0.0),
        "search_nodes_top20": lambda: store.search_nodes("q", topk=20),
    }
    for name, fn in cases.items():
        times = []
        for i in range(queries + 10):
            emb.next = near_query()
            t = time.perf_counter()
            fn()
            if i >= 10:  # warm-up
                times.append(time.perf_counter() - t)
        out[name] = pct(times)
    raw = []
    for _ in range(queries):
        q = near_query()[None, :]
        t = time.perf_counter()
        idx.search(q, 64)
        raw.append(time.perf_counter() - t)
    out["index_search_k64"] = pct(raw)
    if idx.hnsw is not None:  # does the approximate index still find the memory each query was made from?
        found = 0
        for _ in range(200):
            row = int(rng.integers(0, idx.n))
            v = idx.mat[row]
            noise = rng.standard_normal(dim).astype(np.float32)
            noise -= (noise @ v) * v
            q = 0.6 * v + 0.8 * noise / np.linalg.norm(noise)
            approx, _ = idx._hnsw(q[None, :] / np.linalg.norm(q), 10, idx.alive[: idx.n])
            found += int(idx.ids[row] in approx.tolist())
        out["hnsw_recall_at_10"] = found / 200
    store.close()
    return out


def machine() -> dict:
    import faiss

    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor())
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "numpy": np.__version__,
            "faiss": faiss.__version__, "date": time.strftime("%Y-%m-%d")}


def markdown(results: list[dict], info: dict) -> str:
    lines = [f"Machine: {info['cpu']}, {info['cores']} cores; Python {info['python']}, numpy {info['numpy']}, "
             f"faiss {info['faiss']}; {info['date']}.", "",
             "| text nodes | dim | index | ingest nodes/s | cold open s | search_clips p50 / p99 ms "
             "| time-bounded p50 / p99 ms | character p50 / p99 ms | search_nodes p50 / p99 ms | target in top 10 "
             "| DB MB |",
             "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in results:
        def pp(k: str, r: dict = r) -> str:
            return f"{r[k]['p50_ms']:.2f} / {r[k]['p99_ms']:.2f}"

        rec = f"{r['hnsw_recall_at_10']:.3f}" if "hnsw_recall_at_10" in r else "exact"
        lines.append(f"| {r['text_nodes']:,} | {r['dim']} | {r['index']} | {r['ingest_nodes_per_s']:,.0f} | "
                     f"{r['cold_open_s']:.2f} | {pp('search_clips')} | {pp('search_clips_time_bound')} | "
                     f"{pp('search_clips_character')} | {pp('search_nodes_top20')} | {rec} | {r['db_mb']:.0f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--dims", type=int, nargs="+", default=[384, 3072])
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "store_bench.json"))
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    info = machine()
    results = []
    for dim in a.dims:
        for n in a.sizes:
            tmp = Path(tempfile.mkdtemp(prefix="m3bench"))
            try:
                b = build(tmp / "m.db", n, dim, rng)
                gc.collect()
                r = {"dim": dim, **b, **measure(tmp / "m.db", dim, a.queries, rng)}
                results.append(r)
                print(json.dumps(r), flush=True)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"machine": info, "results": results}, indent=1))
    md = markdown(results, info)
    out.with_suffix(".md").write_text(md + "\n")
    print(md)


if __name__ == "__main__":
    main()
