"""Answer quality and latency on procedural scenes built from the GRID talking-face clips, ROS-free.

    python benchmarks/scene_bench.py --split tune|report|seen|fresh [--seeds 100 101] [--kinds first_speaker ...]
                                     [--json out.json] [--keep DIR]

For each seed a random scene is drawn (m3_agent_ros.bags.procedural.make_scene: 3-5 people from the GRID clips,
10-22 speaking turns, usually a muted appearance, 2-4 named places on the robot's path), converted to a bag (cached
in --keep DIR: rebuilt only when the scene definition changed), memorized into a fresh SQLite store by the
Memorizer the node runs (reasoning_bench.memorize), and every question of the split is answered at the end of the
scene by the control answerer (embedded model, tool prompt; loaded once for all seeds) and judged by the strict
offline judge. Every reference is computed from the scene definition (procedural_questions), never written by
hand. Splits, fixed in code before any tuning: tune = seeds 100-103 x phrasings 0-1, report = seeds 400-407 x
phrasings 2+ (other kinds of words for the same question kinds, on scenes never looked at while tuning); seen =
seeds 200-207 x phrasings 2+, the first report split, looked at while tuning (a regression check, not a report);
fresh = seeds 500-999 x phrasings 2+ (--seeds; default 500-503): one-off checks after changes a report run showed,
each seed run once and then retired (say which seeds in the results).
Prints a table per kind, then target / measured / met for strict accuracy (overall and per kind), declining
unanswerable questions, answers about another person where nobody matches, and answer latency p50/p95.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).parent))
from reasoning_bench import memorize  # noqa: E402

from m3_agent_ros.bags.procedural import SceneDef, make_scene  # noqa: E402
from m3_agent_ros.bags.procedural_bag import build_bag  # noqa: E402
from m3_agent_ros.bags.procedural_questions import (  # noqa: E402
    FRESH_SEEDS,
    KINDS,
    TUNE_PHRASINGS,
    SceneQuestion,
    scene_questions,
)
from m3_agent_ros.bags.procedural_questions import split_seeds as _split_seeds  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GRID = ROOT.parent / "shared" / "data" / "grid_talking_faces"
BACKEND = {"backend": "embedded", "max_tokens": 96}
TARGETS = {"overall": 0.95, "kind": 0.80, "declined": 0.95, "p50_s": 2.0, "p95_s": 5.0}


def _progress(it, **kw):  # noqa: ANN001, ANN202
    try:
        from tqdm import tqdm
    except ImportError:
        return it
    return tqdm(it, **kw)


def split_seeds(split: str, seeds: list[int] | None) -> list[int]:
    """The split's seeds, or the given ones; a seed of another split is refused (no report scene in tuning)."""
    own = FRESH_SEEDS if split == "fresh" else _split_seeds(split)
    chosen = list(seeds) if seeds else list(_split_seeds(split))
    bad = [s for s in chosen if s not in own]
    if bad:
        raise SystemExit(f"seeds {bad} are not the {split} split's; --split {split} uses {own.start}-{own.stop - 1}")
    return chosen


def split_of_questions(scene: SceneDef, split: str, kinds: list[str] | None) -> list[SceneQuestion]:
    tune = split == "tune"
    return [q for q in scene_questions(scene, kinds) if (q.phrasing in TUNE_PHRASINGS) == tune]


def ensure_bag(scene: SceneDef, out_dir: Path, grid: Path) -> tuple[Path, bool]:
    """The scene's bag in out_dir, built unless one of the same scene definition is there. (bag, built)."""
    bag, saved = out_dir / f"scene_{scene.seed}", out_dir / "scene.json"
    if (bag / "metadata.yaml").is_file() and saved.is_file() and \
            json.loads(saved.read_text()) == json.loads(json.dumps(scene.to_json())):
        return bag, False
    return build_bag(scene, out_dir, grid), True


def declined(answer: str) -> bool:
    """The answer says it has no memory of this (the strict judge's abstention rule)."""
    from m3_control.evaluation.judge import _ABSTAIN, _plain

    return bool(_ABSTAIN.search(_plain(answer)))


def _answerer(store, shared):  # noqa: ANN001, ANN202
    """An answerer over ``store``; the model is loaded by the first one and shared by the later ones."""
    from m3_control.m3_answerer import M3Answerer

    ans = M3Answerer(store, backend=BACKEND, prompt="tools")
    if shared is not None:
        ans.backend = ans.loop.backend = shared.backend
        ans.load_error = shared.load_error
    return ans


def run(split: str, seeds: list[int], kinds: list[str] | None, keep: Path | None, grid: Path,
        voice_backend: str = "campplus", reuse_memory: bool = False) -> dict:
    from m3_control.evaluation.judge import make_judge
    from m3_memory import MemoryStore

    judge = make_judge(None)
    rows: list[dict] = []
    per_seed: list[dict] = []
    shared = None
    load_s, load_error = 0.0, ""
    with tempfile.TemporaryDirectory() as tmp:
        base = keep or Path(tmp)
        for seed in seeds:
            scene = make_scene(seed, grid)
            qs = split_of_questions(scene, split, kinds)
            if not qs:
                continue
            out_dir = base / f"seed_{seed}"
            t = time.perf_counter()
            bag, built = ensure_bag(scene, out_dir, grid)
            build_s = time.perf_counter() - t
            t = time.perf_counter()
            db = out_dir / "memory.db"
            if built or not reuse_memory or not db.is_file():
                stats = memorize(bag, db, voice_backend)
            else:
                stats = {"reused": str(db)}
            mem_s = time.perf_counter() - t
            store = MemoryStore(out_dir / "memory.db", readonly=True)
            ans = _answerer(store, shared)
            if shared is None:
                t = time.perf_counter()
                load_error = ans.load()
                load_s, shared = time.perf_counter() - t, ans
            per_seed.append({"seed": seed, "duration_s": scene.duration, "people": len(scene.people),
                             "turns": sum(e.kind == "voice" for e in scene.events), "questions": len(qs),
                             "bag_built": built, "build_s": build_s, "memorize_s": mem_s, "stats": stats})
            heard = heard_sentences(scene, store)
            for q in _progress(qs, desc=f"seed {seed}", unit="q", leave=False):
                t = time.perf_counter()
                a = ans.answer(q.question, q.at, 5)
                lat = time.perf_counter() - t
                text = a.answer or a.error
                v = judge.judge(q.question, q.answer, text)
                no = declined(text)
                # a miss that the same answer would not be, had speech recognition heard the sentences right
                asr = not v.correct and any(judge.judge(q.question, as_heard(q.answer, h), text).correct
                                            for h in heard_readings(heard))
                rows.append({"seed": seed, "id": q.id, "kind": q.kind, "phrasing": q.phrasing,
                             "question": q.question, "answer": text, "reference": q.answer, "correct": v.correct,
                             "why": v.detail, "latency_s": lat, "source": a.trace.get("answer_source", "error"),
                             "answerable": q.answerable, "declined": no,
                             "about_other_person": (not q.answerable) and not no, "asr_miss": asr,
                             "replies": [r.get("reply", "") for r in a.trace.get("rounds", [])],
                             # what each round's checks did and any error it met: why a round went where it went
                             "flags": [r.get("flags", []) for r in a.trace.get("rounds", [])],
                             "errors": [(r.get("result") or {}).get("error", "") if isinstance(r.get("result"), dict)
                                        else "" for r in a.trace.get("rounds", [])]})
            store.close()
    return summarize(rows) | {"split": split, "seeds": seeds, "judge": judge.name, "load_s": load_s,
                              "load_error": load_error, "scenes": per_seed}


def heard_sentences(scene: SceneDef, store) -> dict[str, list[str]]:  # noqa: ANN001
    """Each scene sentence -> what speech recognition made of it in this memory (every transcript of the memory's
    voice turns that overlap the scene's turns of that person, the most frequent first: one sentence may be heard as
    "Bimblue F2 now" and "Bimbloo F2 now"); for telling speech-recognition misses apart from reasoning misses in the
    report, never for scoring."""
    from collections import Counter

    from m3_memory.people import PeopleFacts

    turns = [t for t in PeopleFacts(store, None).turns if t.kind == "voice" and t.text.strip()]
    out: dict[str, str] = {}
    for person, sentence in scene.sentences.items():
        spans = [(e.start, e.end) for e in scene.events if e.person == person and e.kind == "voice"]
        said = Counter(" ".join(t.text.split()).rstrip(".!?") for t in turns
                       if any(t.start < b and t.end > a for a, b in spans))
        if said:
            out[sentence] = [text for text, _ in said.most_common()]
    return out


def heard_readings(heard: dict[str, list[str]], most: int = 4) -> list[dict[str, str]]:
    """Ways the scene's sentences were heard, one transcript per sentence each: the most frequent for all, then each
    sentence's other transcripts in turn (at most ``most`` per sentence)."""
    first = {s: texts[0] for s, texts in heard.items()}
    out = [first]
    for s, texts in heard.items():
        out += [{**first, s: t} for t in texts[1:most]]
    return out


def as_heard(reference: str, heard: dict[str, str]) -> str:
    for sentence, text in heard.items():
        reference = reference.replace(sentence, text)
    return reference


def summarize(rows: list[dict]) -> dict:
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)
    kinds = {k: {"n": len(v), "right": sum(r["correct"] for r in v), "acc": sum(r["correct"] for r in v) / len(v)}
             for k, v in sorted(by_kind.items(), key=lambda kv: list(KINDS).index(kv[0]))}
    unans = [r for r in rows if not r["answerable"]]
    lat = [r["latency_s"] for r in rows] or [0.0]
    return {"rows": rows, "kinds": kinds, "n": len(rows),
            "accuracy": sum(r["correct"] for r in rows) / max(1, len(rows)),
            "declined": sum(r["declined"] for r in unans) / max(1, len(unans)), "unanswerable": len(unans),
            "about_other_person": sum(r["about_other_person"] for r in unans),
            "model_share": sum(r["source"] == "model" for r in rows) / max(1, len(rows)),
            "asr_misses": sum(bool(r.get("asr_miss")) for r in rows),
            "p50_s": float(np.percentile(lat, 50)), "p95_s": float(np.percentile(lat, 95))}


def checks(res: dict) -> list[tuple[str, str, str, bool]]:
    worst = min(res["kinds"].items(), key=lambda kv: kv[1]["acc"], default=("-", {"acc": 0.0}))
    return [("strict accuracy, overall", f">= {TARGETS['overall']:.0%}", f"{res['accuracy']:.1%} of {res['n']}",
             res["accuracy"] >= TARGETS["overall"]),
            ("strict accuracy, every kind", f">= {TARGETS['kind']:.0%}", f"lowest {worst[1]['acc']:.0%} ({worst[0]})",
             worst[1]["acc"] >= TARGETS["kind"]),
            ("unanswerable: declined", f">= {TARGETS['declined']:.0%}",
             f"{res['declined']:.1%} of {res['unanswerable']}", res["declined"] >= TARGETS["declined"]),
            ("unanswerable: answers about another person", "0", str(res["about_other_person"]),
             res["about_other_person"] == 0),
            ("answer latency p50", f"<= {TARGETS['p50_s']:g} s", f"{res['p50_s']:.2f} s",
             res["p50_s"] <= TARGETS["p50_s"]),
            ("answer latency p95", f"<= {TARGETS['p95_s']:g} s", f"{res['p95_s']:.2f} s",
             res["p95_s"] <= TARGETS["p95_s"])]


def report(res: dict) -> str:
    wrong = [r for r in res["rows"] if not r["correct"]]
    out = [tabulate([[k, v["n"], v["right"], f"{100 * v['acc']:.0f} %"] for k, v in res["kinds"].items()],
                    headers=["kind", "n", "right", "%"])]
    if wrong:
        out.append("\nwrong answers:\n" + tabulate(
            [[r["id"], r["question"], r["answer"], r["reference"], ("ASR: " if r.get("asr_miss") else "") + r["why"]]
             for r in wrong],
            headers=["id", "question", "answer", "reference", "why"], maxcolwidths=[None, 50, 50, 40, 40]))
    out.append(f"\nmisses speech recognition explains (the answer would be right against the sentence as heard): "
               f"{res['asr_misses']} of {len(wrong)}")
    out.append(f"\nsplit {res['split']}, seeds {res['seeds']}; judge: {res['judge']}; answers by the model "
               f"{100 * res['model_share']:.0f} %; model load + warm-up {res['load_s']:.1f} s {res['load_error']}")
    out.append(tabulate([[n, t, m, "met" if ok else "NOT MET"] for n, t, m, ok in checks(res)],
                        headers=["metric", "target", "measured", ""]))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--split", choices=("tune", "report", "seen", "fresh"), required=True)
    ap.add_argument("--seeds", type=int, nargs="+", help="default: the split's seeds")
    ap.add_argument("--kinds", nargs="+", choices=list(KINDS), metavar="KIND", help="default: every kind")
    ap.add_argument("--json", default="", help="default: benchmarks/results/scene_bench_<split>.json")
    ap.add_argument("--keep", default="", help="keep bags and stores here (bags are reused when unchanged)")
    ap.add_argument("--grid", default=str(GRID), help="the GRID talking-face clips")
    ap.add_argument("--voice-backend", default="campplus", help="speaker embedder: resemblyzer or campplus")
    ap.add_argument("--reuse-memory", action="store_true",
                    help="with --keep: answer from the stores a previous run memorized (when the bag is unchanged)")
    a = ap.parse_args(argv)
    res = run(a.split, split_seeds(a.split, a.seeds), a.kinds, Path(a.keep) if a.keep else None, Path(a.grid),
              a.voice_backend, a.reuse_memory)
    print(report(res))
    out = Path(a.json) if a.json else ROOT / "benchmarks" / "results" / f"scene_bench_{a.split}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res | {"checks": [dict(zip(("metric", "target", "measured", "met"), c, strict=True))
                                                for c in checks(res)]}, indent=1, default=str))
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
