"""Who is who on city-council meetings no setting was chosen on (not shipped; first measured 2026-11-25).

    PYTHONPATH=. python benchmarks/voices_council.py --data DIR [--backend campplus campplus-local ..]
                                                     [--seed 0] [--clip-s 30] [--overlap-share 0.5]
                                                     [--reid-thresholds 0.55 0.65 0.8]

Data: the speaker clips of speakerbox 1.2.0 (CouncilDataProject, MIT; PyPI sdist ``speakerbox-1.2.0.tar.gz``, file
``speakerbox/tests/data/diarized.zip``; unzip it and pass the ``diarized`` folder). 73 clips (19.3 min, 16 kHz mono)
cut from five Seattle City Council sessions (``diarized/<session>/<member>/<start_ms>-<end_ms>.wav``); nine council
members, six to nine per session, most in several sessions. Each clip holds one person (pyannote's diarization, then
checked and named by hand by speakerbox's authors). The recordings are public council meetings; the package does
not state terms for the audio itself, so it is not copied into this repository.

What is built from it (``--seed``, deterministic): per session, 30 s **turn-taking clips**: 2-4 members of that
session (each with at least 8 s of clips left) take turns of 2-8 s drawn in order from their own clips, separated by
0.2-0.8 s of silence. The turns and the room are real; the turn changes are joins (no cross-talk, no one
interrupting). The reference of a turn is its whole span, pauses inside it included. ``--overlap-share p``: a share
p of the turns starts 0.5-2 s before the previous one ends instead (at most half of either turn; the two recordings
added up): someone talking over the end of a turn, as in a meeting, though not in one room's acoustics.

Two measurements, both held out from every threshold (none was chosen looking at this data):

- **Diarization inside a clip**: each clip through the voice pipeline as ``voices_ami.py`` does (same metrics:
  pyannote.metrics DER, purity, coverage, people found vs present, against the issue's targets).
- **Re-identification across sessions**: every clip of every session in order as one stream into one store (the
  memorizer's voice stage: each clip's speakers matched to the voice nodes before), scored with the voice node as
  the label; the nine members recur over sessions recorded on different days, so a person must keep one voice node
  across days. For the backend's matching threshold and ``--reid-thresholds``.

Results: benchmarks/results/voices_council.json and docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from benchmarks.voices_ami import (
    TARGETS,
    evaluate,
    pipeline,
    pipeline_turns,
    reid_line,
    reid_stream,
    rttm,
    table,
    verdict,
    verdict_table,
)
from m3_memory.perception.voices import load_wav

SR = 16000
TURN_S = (2.0, 8.0)
PAUSE_S = (0.2, 0.8)
PEOPLE = (2, 4)
MIN_LEFT_S = 8.0
OVERLAP_S = (0.5, 2.0)


def member_audio(session: Path) -> dict[str, np.ndarray]:
    """Each member's clips of one session, in time order, joined (the member's own speech, one after another)."""
    out = {}
    for member in sorted(p for p in session.iterdir() if p.is_dir()):
        clips = sorted((f for f in member.iterdir() if f.suffix in (".wav", ".flac")),
                       key=lambda f: (int(f.stem.split("-")[0]) if f.stem.split("-")[0].isdigit() else 0, f.name))
        if clips:
            out[member.name] = np.concatenate([load_wav(f) for f in clips])
    return out


def turn_taking_clips(data: Path, out: Path, clip_s: float, seed: int, overlap_share: float = 0.0) -> list[str]:
    """Write ``<session>_<k>.wav`` + ``.rttm`` turn-taking clips (module doc) into ``out``; their names in order.
    ``overlap_share``: that share of turns starts ``OVERLAP_S`` before the previous one ends (at most half of either
    turn) instead of after a pause, the two voices added up (someone talking over the end of a turn)."""
    rng = np.random.default_rng(seed)
    clip_n = int(clip_s * SR)
    names = []
    for session in sorted(p for p in data.iterdir() if p.is_dir()):
        audio = member_audio(session)
        used = dict.fromkeys(audio, 0)
        for k in range(1000):
            left = [m for m in audio if (len(audio[m]) - used[m]) / SR >= MIN_LEFT_S]
            if len(left) < PEOPLE[0]:
                break
            people = list(rng.choice(left, size=min(len(left), int(rng.integers(PEOPLE[0], PEOPLE[1] + 1))),
                                     replace=False))
            mix = np.zeros(clip_n, np.float32)
            turns: list[tuple[int, int, str]] = []            # (start, end) samples, member
            pos, prev = 0, None                                # pos: after the previous turn and its pause
            while pos < clip_n - int(TURN_S[0] * SR):
                who = [m for m in people if m != prev and len(audio[m]) - used[m] >= int(TURN_S[0] * SR)]
                if not who:
                    break
                m = str(rng.choice(who))
                n = min(int(rng.uniform(*TURN_S) * SR), len(audio[m]) - used[m], clip_n - pos)
                a = pos
                if overlap_share > 0 and turns and rng.random() < overlap_share:
                    pa, pb, _ = turns[-1]
                    a = pb - int(min(rng.uniform(*OVERLAP_S) * SR, (pb - pa) // 2, n // 2))
                mix[a : a + n] += audio[m][used[m] : used[m] + n]
                used[m] += n
                turns.append((a, a + n, m))
                pos = a + n + int(rng.uniform(*PAUSE_S) * SR)
                prev = m
            if len({m for _, _, m in turns}) < 2:
                continue
            name = f"{session.name}_{k:02d}"
            sf.write(out / f"{name}.wav", np.clip(mix[: min(clip_n, pos)], -1.0, 1.0), SR)
            (out / f"{name}.rttm").write_text("".join(
                f"SPEAKER {name} 1 {a / SR:.3f} {(b - a) / SR:.3f} <NA> <NA> {m} <NA> <NA>\n" for a, b, m in turns))
            names.append(name)
    return names


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", required=True, help="the unzipped diarized/ folder of speakerbox 1.2.0 (module doc)")
    ap.add_argument("--backend", nargs="*", default=["campplus", "campplus-local"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--clip-s", type=float, default=30.0)
    ap.add_argument("--overlap-share", type=float, default=0.0,
                    help="share of turns that start 0.5-2 s before the previous one ends (0: pauses only)")
    ap.add_argument("--reid-thresholds", nargs="*", type=float, default=[0.55, 0.65, 0.8])
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "voices_council.json"))
    a = ap.parse_args()
    result: dict[str, Any] = {"data": "speakerbox 1.2.0 tests/data/diarized.zip (Seattle City Council), not shipped",
                              "seed": a.seed, "clip_s": a.clip_s, "overlap_share": a.overlap_share,
                              "held_out": "from every threshold and design",
                              "targets": TARGETS, "backends": {}}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        names = turn_taking_clips(Path(a.data), folder, a.clip_s, a.seed, a.overlap_share)
        refs = rttm(folder)
        people = defaultdict(set)
        for n in names:
            people[n.split("_")[0]] |= {who for _, _, who in refs[n]}
        result["clips"] = len(names)
        result["people_per_session"] = {s: sorted(p) for s, p in people.items()}
        print(f"{len(names)} turn-taking clips of {a.clip_s:g} s from {len(people)} sessions, "
              f"{len(set().union(*people.values()))} people")
        for backend in a.backend:
            pipe = pipeline(backend)
            res: dict[str, Any] = {"council": evaluate(pipeline_turns(pipe), folder, names)}
            print(f"== {backend}")
            print(table("COUNCIL (held out)", res["council"]))
            res["verdict"] = verdict({"COUNCIL": res["council"]}, None)
            print(verdict_table(res["verdict"]))
            thresholds = sorted({pipe.embedder.match_threshold, *a.reid_thresholds})
            res["reid"] = reid = reid_stream(pipe, [(folder, n, 0.0, None) for n in names], thresholds)
            reid["match_threshold"] = pipe.embedder.match_threshold
            for thr in thresholds:
                print(reid_line("across sessions", len(names), thr, reid[f"{thr:g}"], pipe.embedder.match_threshold))
            result["backends"][backend] = res
    p = Path(a.out)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(result, indent=1, default=float))


if __name__ == "__main__":
    main()
