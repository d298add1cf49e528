"""Perception in a robot's view (issue 30): robot-view scenes (m3_agent_ros/bags/robot_view.py) memorized by the same
Memorizer the node runs, scored against the scenes' ground truth (m3_agent_ros/bags/robot_view_score.py).

    python benchmarks/robot_view_bench.py --split report [--bags DIR] [--json F] [--upsample 1] [--sample-fps 1]

Splits: ``tune`` seeds 600-603 and 610-617 (looked at while changing perception), ``report`` seeds 700-707 (run
three times to report; its per-scene results were read), ``fresh`` seeds 800-807 (run once to report), ``fresh2``
820-827 and ``looks`` 900-907 (with ``--onlooker smiling``), each run once on later code; ``tune2`` 640-647 (looked
at) and ``fresh3`` 860-867 (run once) from 2026-11-29, and for ``--onlooker laughing`` ``laugh_tune`` (600-603,
610, 611) and ``laugh_fresh`` 920-927 (run once). Each scene:
3-4 people, 2-3 in view at once at 1.3-4 m (faces 40-120 px in 640x480), head turns up to 25 degrees, entering and
leaving, pan, shake, blur, dim light in some, reverberant room, noise at 5 / 10 / 15 / 20 dB SNR per shot.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from memorization_bench import bag_clips  # noqa: E402

from m3_agent_ros.bags.robot_view import make_robot_scene  # noqa: E402
from m3_agent_ros.bags.robot_view_bag import build_robot_bag, load_scene  # noqa: E402
from m3_agent_ros.bags.robot_view_score import (  # noqa: E402
    FaceRecord,
    Recording,
    StoredTurn,
    score_expressions,
    score_faces,
    score_talkers,
    score_text,
    score_transcripts,
    score_voices,
)
from m3_agent_ros.params import MemorizationParams  # noqa: E402
from m3_memory import MemoryStore  # noqa: E402
from m3_memory.ingest.clips import ClipAssembler  # noqa: E402
from m3_memory.ingest.pipeline import IngestSettings  # noqa: E402
from m3_memory.memorize import Memorizer  # noqa: E402
from m3_memory.perception.stages import make_face_stage, make_stages  # noqa: E402

# tune: looked at while changing perception (610-617 added on 2026-11-27); report: run three times on 2026-11-27,
# once after each set of changes (its per-scene results were read); fresh: run once, on the final code of that day
SPLITS = {"tune": list(range(600, 604)) + list(range(610, 618)), "report": list(range(700, 708)),
          "fresh": list(range(800, 808)),
          # run once each, on the final code of 2026-11-27's second session: fresh2 without, looks with an onlooker
          "fresh2": list(range(820, 828)), "looks": list(range(900, 908)),
          # 2026-11-29: tune2 is looked at while changing how voices heard in noise join faces; fresh3 is run once,
          # on that session's final code (both chosen before either was built)
          "tune2": list(range(640, 648)), "fresh3": list(range(860, 868)),
          # with --onlooker laughing: the tune seeds she was measured on before, and 920-927 held out (run once)
          "laugh_tune": [600, 601, 602, 603, 610, 611], "laugh_fresh": list(range(920, 928)),
          # 2026-11-29, eighth session: fresh3 was looked at (its misses diagnosed); fresh4 is held out for that
          # session's changes, run once on its final code and the code before, side by side
          "fresh4": list(range(880, 888)),
          # fresh4's scene text was then looked at (887, 881: dropped spaces, O read as 0); fresh5 is held out for
          # the scene-text change and the session's final code
          "fresh5": list(range(940, 948)),
          # fresh5's 945 was then diagnosed (a panning face's lips); fresh6 is held out for following the face box
          # into the motion frames, run once on that code and the code before
          "fresh6": list(range(960, 968)),
          # the eighth session's final code, run once: a last held-out look at every target after its three changes
          "fresh7": list(range(980, 988))}
TARGETS = [("face purity", "faces.purity", 0.90), ("face coverage", "faces.coverage", 0.90),
           ("talking person right", "talkers.right_rate", 0.90),
           ("voice purity (>= 10 dB)", "voices_10db.purity", 0.90),
           ("voice coverage (>= 10 dB)", "voices_10db.coverage", 0.85),
           ("scene text read exactly", "text.exact_rate", 0.90), ("RTF", "rtf", 0.5)]


class RecordingFaces:
    """The face stage, recording every detection's box and the node its cluster went to."""

    def __init__(self, inner, rec: Recording) -> None:  # noqa: ANN001
        self.inner, self.rec, self.name = inner, rec, inner.name

    def analyze(self, clip):  # noqa: ANN001, ANN201
        self.rec.frame_times += list(clip.frame_times)
        return self.inner.analyze(clip)

    def attach(self, graph, analysis):  # noqa: ANN001, ANN201
        ev = self.inner.attach(graph, analysis)
        for cl, e in zip(analysis.clusters, ev, strict=True):
            self.rec.faces += [FaceRecord(d.time, tuple(map(float, d.bbox)), e.node_id) for d in cl.detections]
            if e.expression is not None:
                self.rec.expressions.append((e.node_id, e.expression[0]))
        return ev


class RecordingTexts:
    """The scene-text stage, recording which frames it read and what."""

    def __init__(self, inner) -> None:  # noqa: ANN001
        self.inner, self.name = inner, inner.name
        self.frames_read: list[float] = []
        self.readings: list[tuple[float, str]] = []

    def analyze(self, clip):  # noqa: ANN001, ANN201
        an = self.inner.analyze(clip)
        self.frames_read += an.frames_read
        self.readings += [(r.time, r.text) for r in an.readings]
        return an


def run_scene(bag: Path, face_kw: dict, sample_fps: float, motion_fps: float = IngestSettings.motion_fps,
              asr_model: str = MemorizationParams.asr_model, audio_tail_s: float = IngestSettings.audio_tail_s) -> dict:
    """Memorize the scene's bag with the node's default stages (MemorizationParams), ``face_kw`` overriding the
    face stage's options."""
    scene, snrs = load_scene(bag)
    rec = Recording()
    built = make_stages(MemorizationParams(asr_model=asr_model))
    faces = RecordingFaces(make_face_stage("dlib", **face_kw) if face_kw else built["faces"], rec)
    texts = RecordingTexts(built["texts"]) if built["texts"] is not None else None
    stages: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore(Path(tmp) / "m.db")
        mem = Memorizer(store, faces, built["voices"], "embedded", texts=texts)
        asm = ClipAssembler(30.0, sample_fps, 16000, motion_fps=motion_fps, audio_tail_s=audio_tail_s)
        dec = [0.0]
        for _, clips in bag_clips(bag, asm, dec):
            for c in clips:
                for k, v in mem.process(c).timings.items():
                    stages[k] = stages.get(k, 0.0) + v
        stages["decode"] = dec[0]
        rec.turns = [StoredTurn(r[3], r[4], r[0], r[5], r[6]) for r in store.turn_rows()]
        rec.character_of = dict(store.characters().of_entity)
        store.close()
    f = score_faces(scene, rec)
    node_person = f.pop("node_person")
    return {"seed": scene.seed, "duration_s": scene.duration, "faces": f,
            "talkers": score_talkers(scene, rec, node_person),
            "expressions": score_expressions(scene, rec, node_person),
            "voices_10db": score_voices(scene, rec, snrs, 10.0), "voices_all": score_voices(scene, rec, snrs, 0.0),
            "wer_by_snr": score_transcripts(scene, rec),
            "text": score_text(scene, texts.frames_read, texts.readings) if texts else {},
            "characters": len(set(rec.character_of.values())), "people": len(scene.everyone),
            "rtf": sum(stages.values()) / scene.duration,
            "rtf_per_stage": {k: v / scene.duration for k, v in stages.items()}}


def _get(d: dict, path: str):  # noqa: ANN202
    for k in path.split("."):
        d = d.get(k) if isinstance(d, dict) else None
    return d


def summary(results: list[dict]) -> dict:
    """Means over scenes of each target's value (scenes where it is undefined left out), WER pooled per SNR."""
    out: dict = {}
    for _, path, _ in TARGETS:
        vals = [v for r in results if (v := _get(r, path)) is not None]
        out[path] = sum(vals) / len(vals) if vals else None
    wer: dict[str, list[float]] = {}
    for r in results:
        for snr, w in r["wer_by_snr"].items():
            if w["wer"] is not None:
                wer.setdefault(snr, []).append(w["wer"])
    out["wer_by_snr"] = {k: sum(v) / len(v) for k, v in sorted(wer.items(), key=lambda kv: float(kv[0]))}
    bands: dict[str, list[float]] = {}
    for r in results:
        for b, v in r["faces"]["detection_rate_by_size"].items():
            if v is not None:
                bands.setdefault(b, []).append(v)
    out["detection_rate_by_size"] = {b: sum(v) / len(v) for b, v in bands.items()}
    stages: dict[str, list[float]] = {}
    for r in results:
        for k, v in r["rtf_per_stage"].items():
            stages.setdefault(k, []).append(v)
    out["rtf_per_stage"] = {k: sum(v) / len(results) for k, v in stages.items()}
    outside = [v for r in results if (v := r["voices_10db"].get("outside_speech")) is not None]
    out["voices_10db.outside_speech"] = sum(outside) / len(outside) if outside else None
    for k, field in (("expected", "expected"), ("right", "stated_right"), ("wrong", "wrong_statements")):
        out[f"expressions_{k}"] = sum(r["expressions"][field] for r in results)
    out["characters_within_1"] = sum(abs(r["characters"] - r["people"]) <= 1 for r in results) / len(results)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--split", choices=sorted(SPLITS), default="tune")
    ap.add_argument("--seeds", type=int, nargs="*", help="instead of a split")
    ap.add_argument("--bags", default=str(ROOT / ".cache" / "robot_view"), help="where scenes are built (reused)")
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--upsample", type=int, default=None, help="dlib HOG upsampling (default: the stage's)")
    ap.add_argument("--sample-fps", type=float, default=IngestSettings.sample_fps)
    ap.add_argument("--motion-fps", type=float, default=IngestSettings.motion_fps, help="0: no lip activity")
    ap.add_argument("--asr-model", default=MemorizationParams.asr_model, help="tiny.en, base or a CTranslate2 folder")
    ap.add_argument("--audio-tail", type=float, default=IngestSettings.audio_tail_s,
                    help="seconds of audio after a clip's end kept with it (0: cut at the end)")
    ap.add_argument("--onlooker", choices=("smiling", "laughing"),
                    help="scenes with a silent onlooker (bags in BAGS_onlooker_WAY): expressions scored")
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args()
    if a.onlooker:
        a.bags = a.bags.rstrip("/") + f"_onlooker_{a.onlooker}"
    grid = Path(a.data) / "grid_talking_faces"
    face_kw = {} if a.upsample is None else {"upsample": a.upsample}
    results = []
    for seed in a.seeds or SPLITS[a.split]:
        bag = Path(a.bags) / f"robot_{seed}"
        if not bag.with_suffix(".json").is_file():
            build_robot_bag(make_robot_scene(seed, grid, onlooker=a.onlooker), a.bags, grid)
        t = time.perf_counter()
        r = run_scene(bag, face_kw, a.sample_fps, a.motion_fps, a.asr_model, a.audio_tail)
        print(f"seed {seed}: faces purity {r['faces']['purity']:.2f} coverage {r['faces']['coverage']:.2f} "
              f"found {r['faces']['detection_rate']:.2f}; talker {r['talkers']}; voices>=10dB "
              f"{r['voices_10db']}; characters {r['characters']} of {r['people']} people; expressions "
              f"{r['expressions']}; RTF {r['rtf']:.2f} "
              f"({time.perf_counter() - t:.0f} s)", flush=True)
        results.append(r)
    s = summary(results)
    split = "seeds " + " ".join(map(str, a.seeds)) if a.seeds else f"split {a.split}"
    split += f" with an onlooker, {a.onlooker}" if a.onlooker else ""
    print(f"\n{split}, {len(results)} scenes, face options {face_kw or 'default'}, sample fps {a.sample_fps:g}, "
          f"motion fps {a.motion_fps:g}, ASR {a.asr_model}, audio tail {a.audio_tail:g} s")
    print("| measure | target | measured | met |\n| --- | ---: | ---: | --- |")
    for name, path, target in TARGETS:
        v = s[path]
        ok = v is not None and (v <= target if path == "rtf" else v >= target)
        print(f"| {name} | {'<=' if path == 'rtf' else '>='} {target:g} | "
              f"{'-' if v is None else f'{v:.3f}'} | {'met' if ok else 'NOT MET'} |")
    print(f"| characters within +-1 of the people | all scenes | {s['characters_within_1']:.2f} of scenes | "
          f"{'met' if s['characters_within_1'] == 1 else 'NOT MET'} |")
    if s["expressions_expected"]:
        rate = s["expressions_right"] / s["expressions_expected"]
        print(f"| onlookers' expression stated | >= 0.9 | {rate:.3f} | {'met' if rate >= 0.9 else 'NOT MET'} |")
    print(f"| expressions stated wrongly (all scenes) | 0 | {s['expressions_wrong']} | "
          f"{'met' if s['expressions_wrong'] == 0 else 'NOT MET'} |")
    if s["voices_10db.outside_speech"] is not None:
        print(f"stored voice time outside the true speech (>= 10 dB; VAD padding and echo, left out of purity): "
              f"{s['voices_10db.outside_speech']:.2f}")
    print("face detection rate by size: " + ", ".join(f"{b} {v:.2f}" for b, v in s["detection_rate_by_size"].items()))
    print("RTF per stage: " + ", ".join(f"{k} {v:.3f}" for k, v in s["rtf_per_stage"].items()))
    print("WER by SNR: " + ", ".join(f"{k} dB {v:.3f}" for k, v in s["wer_by_snr"].items()))
    if a.json:
        Path(a.json).write_text(json.dumps({"split": split, "face_options": face_kw, "sample_fps": a.sample_fps,
                                            "asr_model": a.asr_model, "audio_tail_s": a.audio_tail,
                                            "motion_fps": a.motion_fps,
                                            "summary": s, "scenes": results}, indent=1))


if __name__ == "__main__":
    main()
