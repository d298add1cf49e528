"""Reasoning-loop overhead per round, excluding model time, at 10k and 100k memories.

    python benchmarks/control_bench.py --sizes 10000 100000

The store is filled through the real write path with 384-d vectors labelled as the embedded MiniLM model, so
queries are embedded for real (MiniLM int8, ~3 ms); the chat model is a zero-latency stand-in that alternates
[Search] with varying queries, so the time measured per round is: parse the reply, embed the query, search the
store (clip mode and "character id" node mode), translate ids, build the next turn.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from store_bench import build, pct  # noqa: E402

from m3_control.loop import ReasoningLoop  # noqa: E402
from m3_memory import MemoryStore  # noqa: E402
from m3_memory.embedders import minilm_embedder  # noqa: E402

WORDS = [
    "keys",
    "folder",
    "coffee",
    "kitchen",
    "window",
    "drawer",
    "plant",
    "phone",
    "laptop",
    "door",
    "red",
    "blue",
    "meeting",
    "lunch",
]


class Timed:
    name = "zero-latency stand-in"

    def __init__(self, rounds: int) -> None:
        self.i, self.rounds = 0, rounds

    def complete(self, messages: list[dict]) -> str:
        self.i += 1
        w = WORDS[self.i % len(WORDS)]
        if self.i % 5 == 0:
            return f"Action: [Search]\nContent: What is the character id of the person with the {w}"
        return f"Action: [Search]\nContent: Where is the {w} {self.i}?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    ap.add_argument("--questions", type=int, default=60)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "control_bench.json"))
    a = ap.parse_args()
    emb = minilm_embedder()
    results = []
    for n in a.sizes:
        tmp = Path(tempfile.mkdtemp(prefix="m3ctl"))
        try:
            b = build(tmp / "m.db", n, 384, np.random.default_rng(1))
            store = MemoryStore(tmp / "m.db", embedder=emb, readonly=True)
            store.conn.execute("PRAGMA query_only = 1")
            # the vectors were declared as "bench-random"; answer queries with the real MiniLM model
            store.meta = lambda k, d=None, _m=store.meta: "all-MiniLM-L6-v2-int8" if k == "embedder_name" else _m(k, d)  # type: ignore[method-assign]
            store.refresh()
            per_round = []
            for _ in range(a.questions):
                loop = ReasoningLoop(store, Timed(5), threshold=0.0)
                t = time.perf_counter()
                ans = loop.run("Where did I leave my keys?", max_rounds=5)
                per_round.append((time.perf_counter() - t) / max(1, ans.rounds_used))
            r = {"text_nodes": b["text_nodes"], **{f"round_{k}": v for k, v in pct(per_round).items()}}
            results.append(r)
            print(json.dumps(r), flush=True)
            store.close()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    Path(a.out).write_text(json.dumps(results, indent=1))
    print("| memories | per-round overhead p50 ms | p99 ms |\n| ---: | ---: | ---: |")
    for r in results:
        print(f"| {r['text_nodes']:,} | {r['round_p50_ms']:.1f} | {r['round_p99_ms']:.1f} |")


if __name__ == "__main__":
    main()
