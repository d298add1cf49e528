"""A day of memory, time-compressed: ingest rate, search latency and memory use stay flat over a 24 h stream.

    python benchmarks/stream_bench.py --hours 24 --rate 4 --prefill 100000

A memorization process (a child) fills the store with ``--prefill`` memories (the weeks before), then writes the
synthetic household's 30 s clips (benchmarks/synth.py: 20 memories, entity matching and updates per clip) at
``--rate`` clips/s, i.e. 24 h of stream in 2,880 clips (12 minutes at 4/s, 120x real time); the control
process (this one) asks ``--questions`` questions per stream hour meanwhile, each a ``search_clips`` with the time
bound at the stream's present plus a ``search_nodes`` (as the control loop does), through its own read-only
store, which follows the writer through the change log and builds its index segments in the background.
Per stream hour: the writer's ingest rate (store time only) and RSS, the reader's search p50 / p99 and its RSS
beside its index's own bytes. Flatness targets compare the last three hours with hours 2-4 (in the first hour the
writer's caches and the reader's fill): ingest rate >= 0.8x, search p99 <= 1.5x and <= 10 ms; RSS growth of the
writer and of the reader beyond its index (data it must hold) <= 32 MB over the second half of the stream.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from store_bench import EMBEDDER, QueryVectors, machine, pct, rss_mb  # noqa: E402
from synth import World  # noqa: E402

from m3_memory import MemoryStore  # noqa: E402

CLIPS_PER_HOUR = 120


def child(db: str, dim: int, hours: int, rate: float, prefill: int) -> None:
    store = MemoryStore(db)
    store.declare_embedder(EMBEDDER, dim)
    world = World(dim, seed=3)
    nodes = 0
    while nodes < prefill:  # the memory the robot already had: as fast as it goes, not timed
        nodes += world.write(store, world.plan())["inserted"]
    print(json.dumps({"prefilled": nodes, "clips": world.clip}), flush=True)
    sys.stdin.readline()  # the control process has opened its index: the day starts
    first = world.clip
    t0 = time.perf_counter()
    for h in range(hours):
        spent, memories = 0.0, 0
        for _ in range(CLIPS_PER_HOUR):
            plan = world.plan()
            t = time.perf_counter()
            memories += world.write(store, plan)["memories"]
            spent += time.perf_counter() - t
            lag = t0 + (world.clip - first) / rate - time.perf_counter()
            if lag > 0:
                time.sleep(lag)
        print(json.dumps({"hour": h, "memories_per_s": memories / spent, "store_ms_per_clip": 1000 * spent /
                          CLIPS_PER_HOUR, "rss_mb": rss_mb()}), flush=True)
    store.close()


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hours", type=int, default=24)
    ap.add_argument("--rate", type=float, default=4.0, help="clips/s (30 s clips: 4/s is 120x real time)")
    ap.add_argument("--questions", type=int, default=120, help="questions per stream hour")
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--prefill", type=int, default=100_000, help="text nodes the store holds before the day starts "
                    "(a robot with weeks of memory; 0: from empty)")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "stream_bench.json"))
    a = ap.parse_args()
    info = machine()
    tmp = Path(tempfile.mkdtemp(prefix="m3stream"))
    db = tmp / "m.db"
    try:
        boot = MemoryStore(db)
        boot.declare_embedder(EMBEDDER, a.dim)
        boot.close()
        proc = subprocess.Popen([sys.executable, __file__, "--child", str(db), str(a.dim), str(a.hours), str(a.rate),
                                 str(a.prefill)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stdin is not None
        prefilled = json.loads(proc.stdout.readline())
        first_clip = prefilled["clips"]
        emb = QueryVectors(a.dim)
        reader = MemoryStore(db, embedder=emb, readonly=True)
        reader.index.wait_idle()  # the control node has had its index for weeks: opened and built before the day
        proc.stdin.write("go\n")
        proc.stdin.flush()
        space = World(a.dim, seed=3).space
        rng = np.random.default_rng(1)
        lat: dict[int, list[float]] = {}
        reader_rss: dict[int, list[tuple[float, float]]] = {}   # (RSS, index MB) samples per hour
        interval = CLIPS_PER_HOUR / a.rate / a.questions
        while proc.poll() is None:
            last = reader.conn.execute("SELECT max(id), max(end_time) FROM clips").fetchone()
            if last[0] is None:
                time.sleep(0.05)
                continue
            hour = (int(last[0]) - first_clip) // CLIPS_PER_HOUR
            if hour < 0:
                time.sleep(0.05)
                continue
            idx = reader.index
            live = np.flatnonzero(idx.alive[: idx.n])
            emb.next = space.near(idx.vectors_of_rows(live[rng.integers(len(live))][None])[0], 0.6)[0]
            t = time.perf_counter()
            reader.search_clips("where is it", topk=2, threshold=0.5, before_time=float(last[1]))
            reader.search_nodes("what is the character id of the person", topk=20, before_time=float(last[1]))
            lat.setdefault(hour, []).append(time.perf_counter() - t)
            if len(lat[hour]) % 10 == 1:
                reader_rss.setdefault(hour, []).append((rss_mb(), idx.nbytes()["total"] / 2**20))
            time.sleep(interval)
        out, err = proc.communicate(input="")
        if proc.returncode != 0:
            raise RuntimeError(f"writer failed: {err}")
        writer = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        rows = []
        for w in writer:
            h = w["hour"]
            samples = np.array(reader_rss.get(h, [(np.nan, np.nan)]))
            # the median sample: a merge in progress holds its inputs and output for seconds (the max says how much)
            rows.append({**w, "search": pct(lat[h]) if lat.get(h) else None,
                         "reader_rss_mb": float(np.median(samples[:, 0])),
                         "reader_rss_max_mb": float(samples[:, 0].max()),
                         "reader_index_mb": float(np.median(samples[:, 1]))})
        reader.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    # flatness: the first hour is an empty store (nothing to match, reinforce or search), so compare hours 2-4 with
    # the last three (pooled search samples: 360 per window); memory growth over the second half, once SQLite's page
    # cache and the writer's caches have filled
    early, late = rows[1:4], rows[-3:]
    half = rows[len(rows) // 2 - 1]

    def pooled_p99(rs: list[dict]) -> float:
        return float(np.percentile(np.concatenate([np.array(lat[r["hour"]]) for r in rs]) * 1000, 99))

    def beyond_index(r: dict) -> float:
        return r["reader_rss_mb"] - r["reader_index_mb"]

    checks = {
        "ingest_last3h_vs_hours2to4": (np.mean([r["memories_per_s"] for r in late])
                                       / np.mean([r["memories_per_s"] for r in early]), ">=", 0.8),
        "search_p99_last3h_vs_hours2to4": (pooled_p99(late) / pooled_p99(early), "<=", 1.5),
        "search_p99_last3h_ms": (pooled_p99(late), "<=", 10.0),
        "writer_rss_growth_second_half_mb": (rows[-1]["rss_mb"] - half["rss_mb"], "<=", 32.0),
        "reader_rss_beyond_index_growth_second_half_mb": (beyond_index(rows[-1]) - beyond_index(half), "<=", 32.0),
    }
    info["load_after"] = os.getloadavg()
    lines = [f"Machine: {info['cpu']}, {info['cores']} cores; {info['date']}; load average before "
             f"{info['load_before'][0]:.1f}, after {info['load_after'][0]:.1f}. A store of "
             f"{prefilled['prefilled']:,} memories, then {a.hours} h of 30 s clips written at {a.rate} clips/s, "
             f"{a.questions} questions per stream hour.", "",
             "| stream hour | ingest memories/s | store ms / clip | writer RSS MB | search p50 / p99 ms | "
             "reader RSS MB median / max | reader index MB |", "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        s = r["search"]
        lines.append(f"| {r['hour'] + 1} | {r['memories_per_s']:,.0f} | {r['store_ms_per_clip']:.2f} | "
                     f"{r['rss_mb']:.0f} | {s['p50_ms']:.2f} / {s['p99_ms']:.2f} | {r['reader_rss_mb']:.0f} / "
                     f"{r['reader_rss_max_mb']:.0f} | "
                     f"{r['reader_index_mb']:.0f} |")
    lines += ["", "| flatness | target | measured | met |", "| --- | ---: | ---: | --- |"]
    for k, (v, op, t) in checks.items():
        ok = v >= t if op == ">=" else v <= t
        lines.append(f"| {k} | {op} {t} | {v:.2f} | {'met' if ok else 'NOT MET'} |")
    md = "\n".join(lines)
    outp = Path(a.out)
    outp.parent.mkdir(parents=True, exist_ok=True)
    outp.write_text(json.dumps({"machine": info, "args": vars(a), "prefilled": prefilled, "hours": rows, "checks": {
        k: {"value": v, "op": op, "target": t} for k, (v, op, t) in checks.items()}}, indent=1))
    outp.with_suffix(".md").write_text(md + "\n")
    print(md)


if __name__ == "__main__":
    main()
