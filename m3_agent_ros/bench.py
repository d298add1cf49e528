"""m3-bench: measure the system the way its users will.

    m3-bench run BAG_OR_DIR... --out OUT [--rate 4] [--jobs 1] [--judge-url URL --judge-model M]
        Replay each bag (made by `m3-bag convert/batch`) through fresh memorization + control nodes, ask its
        questions at their timestamps over the Query service, judge, and report accuracy per question type,
        latency and memorization real-time factor. Resumable: bags with results in OUT are skipped.
        --jobs N runs N bags at once, each in its own ROS domain.
    m3-bench graphs --annotations robot.json --graphs DIR --out OUT [--answerer m3|extractive] [--reembed]
        Control-only: import upstream's memory-graph pickles (M3-Bench `memory_graphs`), answer every question
        with the memory as it was at the question's time (clips ending by then), judge and report.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tqdm import tqdm

from m3_agent_ros import dds_env

ROOT = Path(__file__).resolve().parents[1]


def job_domains(jobs: int, env: dict | os._Environ) -> list[int]:
    """One DDS domain per parallel job (1..101); a ROS_DOMAIN_ID set by the user is honoured (the first job's)."""
    n = max(1, min(jobs, 101))
    mine = env.get("ROS_DOMAIN_ID", "")
    if mine.isdigit() and 0 <= int(mine) <= 232:
        return [int(mine)] + random.sample([d for d in range(1, 102) if d != int(mine)], k=n - 1)
    return random.sample(range(1, 102), k=n)

def _bags(items: list[str]) -> list[Path]:
    out = []
    for it in items:
        p = Path(it)
        if (p / "metadata.yaml").exists():
            out.append(p)
        elif p.is_dir():
            out += sorted(d for d in p.iterdir() if (d / "metadata.yaml").exists())
        else:
            raise FileNotFoundError(f"not a bag or a folder of bags: {p}")
    return out


def _judge_args(a: argparse.Namespace) -> list[str]:
    return ["--judge-url", a.judge_url, "--judge-model", a.judge_model] if a.judge_url else []


def cmd_run(a: argparse.Namespace) -> int:
    from m3_control.evaluation.judge import make_judge
    from m3_control.evaluation.report import markdown_table, summarize, write_report

    out = Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    bags = _bags(a.bags)
    todo = [b for b in bags if not (out / "bags" / b.name / "summary.json").exists()]
    domains = job_domains(a.jobs, os.environ)

    def one(i_bag: tuple[int, Path]) -> int:
        i, bag = i_bag
        env = {**os.environ, "ROS_DOMAIN_ID": str(domains[i % len(domains)])}
        dds_env.apply(env)   # loopback-only DDS (m3_agent_ros/dds_env.py)
        cmd = [sys.executable, "-m", "m3_agent_ros.demo", "--bag", str(bag), "--out", str(out / "bags" / bag.name),
               "--rate", str(a.rate), "--params", a.params, *_judge_args(a)]
        if a.answerer:
            cmd += ["--answerer", a.answerer]
        with open(out / f"{bag.name}.log", "w") as log:
            return subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT)

    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        codes = list(tqdm(pool.map(one, enumerate(todo)), total=len(todo), desc="bags", unit="bag"))
    rows: list[dict] = []
    extras = []
    for b in bags:
        d = out / "bags" / b.name
        if (d / "answers.jsonl").exists():
            rows += [json.loads(x) for x in (d / "answers.jsonl").read_text().splitlines()]
            extras.append(json.loads((d / "summary.json").read_text()))
    rtfs = [e["memorization_rtf"] for e in extras if e.get("memorization_rtf") is not None]
    judge = make_judge({"base_url": a.judge_url, "model": a.judge_model} if a.judge_url else None)
    summary = summarize(rows, judge.name, {"bags": len(extras), "memorization_rtf": sum(rtfs) / len(rtfs)
                                          if rtfs else None, "failed_bags": sum(c != 0 for c in codes)})
    write_report(rows, summary, out, title=f"m3-bench: {len(extras)} bags")
    print(markdown_table(summary))
    print(f"report: {out / 'report.html'}")
    return 0 if not any(codes) else 1


def cmd_graphs(a: argparse.Namespace) -> int:
    from m3_agent_ros.bags.questions import load_annotations, questions_for_video
    from m3_control.answerer import run_query
    from m3_control.answerers import make_answerer
    from m3_control.evaluation.judge import make_judge
    from m3_control.evaluation.report import markdown_table, summarize, write_report
    from m3_memory import MemoryStore
    from m3_memory.upstream import import_pickle_file

    ann = load_annotations(a.annotations)
    out = Path(a.out)
    (out / "stores").mkdir(parents=True, exist_ok=True)
    judge = make_judge({"base_url": a.judge_url, "model": a.judge_model} if a.judge_url else None)
    rows: list[dict] = []
    done = out / "answers.partial.jsonl"
    seen = {json.loads(x)["question_id"]: json.loads(x) for x in done.read_text().splitlines()} \
        if done.exists() else {}
    rows += list(seen.values())
    videos = [v for v in sorted(ann) if (Path(a.graphs) / f"{v}.pkl").exists()]
    for vid in tqdm(videos, desc="videos", unit="video"):
        qs = [q for q in questions_for_video(ann, vid) if q.question_id not in seen]
        if not qs:
            continue
        db = out / "stores" / f"{vid}.db"
        if not db.exists():   # all or nothing: a killed run leaves no half-imported store to be skipped later
            import_pickle_file(Path(a.graphs) / f"{vid}.pkl", db, reembed=a.reembed)
        store = MemoryStore(db, readonly=True)
        opts: dict = {"threshold": a.threshold}
        if a.answerer == "m3":
            opts.update(backend=json.loads(a.backend), max_consecutive_invalid=2)
        answerer = make_answerer(a.answerer, store, **opts)
        with done.open("a") as f:
            for q in qs:
                before = (int(q.time // 30)) * 30.0  # the clips fully finished when the question is asked
                t = time.perf_counter()
                ans = run_query(answerer, q.question, before, 5)
                v = judge.judge(q.question, q.answer, ans.answer)
                row = {"question_id": q.question_id, "question": q.question, "reference": q.answer,
                       "types": q.types, "time": q.time, "answer": ans.answer, "error": ans.error,
                       "latency_s": time.perf_counter() - t, "rounds": ans.rounds_used, "correct": v.correct}
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
                rows.append(row)
        store.close()
    summary = summarize(rows, judge.name, {"videos": len(videos), "answerer": a.answerer})
    write_report(rows, summary, out, title="m3-bench graphs: control on upstream memory graphs")
    print(markdown_table(summary))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="m3-bench", description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("run", "graphs"):
        p = sub.add_parser(name, help="replay bags through the nodes, judge the answers" if name == "run" else
                           "answer from upstream memory graphs (control only), judge")
        p.add_argument("--out", required=True, help="results folder (answers, report; resumable)")
        p.add_argument("--answerer", default=None if name == "run" else "m3",
                       help="m3 or extractive (run: default the params file's)")
        p.add_argument("--judge-url", default=os.environ.get("M3_JUDGE_URL", ""),
                       help="OpenAI-compatible judge endpoint (default $M3_JUDGE_URL; none: the strict local judge)")
        p.add_argument("--judge-model", default=os.environ.get("M3_JUDGE_MODEL", "gpt-4o-2024-11-20"),
                       help="judge model name (default $M3_JUDGE_MODEL or %(default)s)")
        if name == "run":
            p.add_argument("bags", nargs="+", help="bag folders, or folders of bags")
            p.add_argument("--rate", type=float, default=4.0, help="replay speed-up (0: as fast as possible)")
            p.add_argument("--jobs", type=int, default=1, help="bags at once, each in its own ROS domain")
            p.add_argument("--params", default=str(ROOT / "config" / "default.yaml"), help="ROS params file")
            p.set_defaults(fn=cmd_run)
        else:
            p.add_argument("--annotations", required=True, help="M3-Bench robot.json (questions, references)")
            p.add_argument("--graphs", required=True, help="folder of <video_id>.pkl memory graphs")
            p.add_argument("--reembed", action="store_true", help="re-embed memories with the embedded model")
            p.add_argument("--backend", default='{"backend": "embedded"}', help="chat backend config (JSON)")
            p.add_argument("--threshold", type=float, default=0.35,
                           help="min clip score (0.35 for the embedded MiniLM; upstream used 0.5 with OpenAI vectors)")
            p.set_defaults(fn=cmd_graphs)
    a = ap.parse_args(argv)
    try:
        return a.fn(a)
    except (FileNotFoundError, KeyError, ValueError) as e:
        print(f"m3-bench: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
