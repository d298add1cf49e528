"""Answer quality and latency of the embedded reasoning default on the bundled demo bag, ROS-free.

    python benchmarks/reasoning_bench.py [--bag rosbags/demo/grid_scene] [--db /tmp/demo.db] [--json out.json]

The bag is memorized into a fresh SQLite store (odometry and places.yaml included) by the same Memorizer the node
runs (dlib faces, Silero VAD +
Resemblyzer + faster-whisper tiny.en, embedded writer); then every question of the bag is answered at its
timestamp by the control answerer (Qwen2.5-Coder-1.5B Q4_K_M under the tool grammar, extractive fallback) and
judged by the strict offline judge. Prints target / measured / met for accuracy, the share of answers the model
produced (not the fallback), and answer latency p50/p95 on this machine. Split: the bundled demo questions. The
few-shot examples show unrelated scenes, but the prompt, tools and grammar were tuned while looking at these
questions' results: a tuned-on figure, not a held-out one.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).parent))
from memorization_bench import bag_clips  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def memorize(bag: Path, db: Path, voice_backend: str = "campplus") -> dict:
    from m3_agent_ros.params import MemorizationParams
    from m3_memory import MemoryStore
    from m3_memory.ingest.clips import ClipAssembler
    from m3_memory.ingest.pipeline import IngestSettings
    from m3_memory.memorize import Memorizer
    from m3_memory.perception.stages import make_stages

    for p in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        p.unlink(missing_ok=True)
    store = MemoryStore(db)
    places = bag.parent / "places.yaml"  # the named places of the bag's odometry frame, as the demo passes them
    if places.is_file():
        import yaml

        from m3_memory.poses import parse_places
        from m3_memory.store.where import save_places

        save_places(store, parse_places(yaml.safe_load(places.read_text())))
    # the node's stages and ingest settings (MemorizationParams, IngestSettings): motion frames for lip activity
    # (which also split a clip speaker two faces talked through), scene text and expressions, as the node runs them
    st = make_stages(MemorizationParams(voice_backend=voice_backend))
    mem = Memorizer(store, st["faces"], st["voices"], "embedded", texts=st["texts"])
    ing = IngestSettings()
    for _, clips in bag_clips(bag, ClipAssembler(ing.clip_seconds, ing.sample_fps, ing.sample_rate,
                                                 motion_fps=ing.motion_fps)):
        for c in clips:
            mem.process(c)
    stats = store.stats()
    store.close()
    return stats


def run(bag: Path, db: Path, voice_backend: str = "campplus") -> dict:
    from m3_agent_ros.bags.read import bag_questions
    from m3_control.evaluation.judge import make_judge
    from m3_control.m3_answerer import M3Answerer
    from m3_memory import MemoryStore

    stats = memorize(bag, db, voice_backend)
    store = MemoryStore(db, readonly=True)
    ans = M3Answerer(store, backend={"backend": "embedded", "max_tokens": 96}, prompt="tools")
    t = time.perf_counter()
    load_error = ans.load()
    load_s = time.perf_counter() - t
    judge = make_judge(None)
    rows = []
    for q in sorted(bag_questions(bag), key=lambda q: q.time):
        t = time.perf_counter()
        a = ans.answer(q.question, q.time, 5)
        lat = time.perf_counter() - t
        v = judge.judge(q.question, q.answer, a.answer)
        rows.append({"id": q.question_id, "question": q.question, "answer": a.answer or a.error,
                     "reference": q.answer, "correct": v.correct, "why": v.detail, "latency_s": lat,
                     "source": a.trace.get("answer_source", "error"), "rounds": a.rounds_used})
    store.close()
    lat = [r["latency_s"] for r in rows]
    return {"rows": rows, "stats": stats, "load_s": load_s, "load_error": load_error, "judge": judge.name,
            "accuracy": sum(r["correct"] for r in rows) / len(rows),
            "model_share": sum(r["source"] == "model" for r in rows) / len(rows),
            "p50_s": float(np.percentile(lat, 50)), "p95_s": float(np.percentile(lat, 95))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bag", default=str(ROOT / "rosbags" / "demo" / "grid_scene"))
    ap.add_argument("--db", default="/tmp/m3_reasoning_bench.db")
    ap.add_argument("--json", default="")
    ap.add_argument("--voice-backend", default="campplus", help="speaker embedder: resemblyzer or campplus")
    a = ap.parse_args()
    res = run(Path(a.bag), Path(a.db), a.voice_backend)
    print(tabulate([[("ok" if r["correct"] else "NO"), r["id"], f"{r['latency_s']:.2f}", r["source"], r["answer"],
                     r["reference"]] for r in res["rows"]],
                   headers=["", "question", "s", "source", "answer", "reference"], maxcolwidths=[None, None, None,
                                                                                                None, 60, 40]))
    checks = [("accuracy (strict judge)", ">= 90 %", f"{100 * res['accuracy']:.0f} %", res["accuracy"] >= 0.9),
              ("answers by the model", ">= 80 %", f"{100 * res['model_share']:.0f} %", res["model_share"] >= 0.8),
              ("answer latency p50", "<= 3 s", f"{res['p50_s']:.2f} s", res["p50_s"] <= 3.0),
              ("answer latency p95", "<= 8 s", f"{res['p95_s']:.2f} s", res["p95_s"] <= 8.0)]
    print(f"\njudge: {res['judge']}; model load + prompt warm-up {res['load_s']:.1f} s {res['load_error']}")
    print(tabulate([[n, t, m, "met" if ok else "NOT MET"] for n, t, m, ok in checks],
                   headers=["metric", "target", "measured", ""]))
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1, default=str))


if __name__ == "__main__":
    main()
