"""Speaker clustering on real meeting audio (AMI excerpts with RTTM speaker turns, ../shared/data/ami_debug).

    python benchmarks/voices_ami.py [--data ../shared/data/ami_debug]

Each 30 s file goes through the embedded voice pipeline (Silero VAD, Resemblyzer turns) as one clip; the
hypothesis is frame-level (10 ms) speaker labels inside the speech found. Reported against the RTTM:
purity (how much of each hypothesis speaker is its dominant reference speaker), coverage (how much of each
reference speaker lands in its dominant hypothesis speaker), speech detection recall/precision, and the number
of speakers found vs present. Overlapped reference speech counts toward every speaker talking.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from m3_memory.perception.voices import ResemblyzerEmbedder, VoicePipeline, load_wav

HOP = 0.01


def rttm(path: Path) -> dict[str, list[tuple[float, float, str]]]:
    out: dict[str, list[tuple[float, float, str]]] = defaultdict(list)
    for line in path.read_text().splitlines():
        p = line.split()
        if p and p[0] == "SPEAKER":
            out[p[1]].append((float(p[3]), float(p[3]) + float(p[4]), p[7]))
    return out


def frames(segs: list[tuple[float, float, str]], n: int) -> list[set[str]]:
    lab: list[set[str]] = [set() for _ in range(n)]
    for a, b, s in segs:
        for i in range(int(a / HOP), min(n, int(b / HOP))):
            lab[i].add(s)
    return lab


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared/data/ami_debug"))
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "voices_ami.json"))
    a = ap.parse_args()
    data = Path(a.data)
    ref_all = rttm(data / "debug.train.rttm")
    pipe = VoicePipeline(ResemblyzerEmbedder(), None)
    tot = defaultdict(float)
    per_file = {}
    audio_s = busy = 0.0
    for wav_path in sorted(data.glob("trn*.wav")):
        wav = load_wav(wav_path)
        n = int(len(wav) / 16000 / HOP)
        t = time.perf_counter()
        turns, _ = pipe.turns(wav)
        busy += time.perf_counter() - t
        audio_s += len(wav) / 16000
        ref = frames(ref_all.get(wav_path.stem, []), n)
        hyp = frames([(x.start, x.end, str(x.speaker)) for x in turns], n)
        co: dict[tuple[str, str], int] = defaultdict(int)
        hyp_tot: dict[str, int] = defaultdict(int)
        ref_tot: dict[str, int] = defaultdict(int)
        speech_hit = speech_ref = speech_hyp = 0
        for r, h in zip(ref, hyp, strict=True):
            speech_ref += bool(r)
            speech_hyp += bool(h)
            speech_hit += bool(r) and bool(h)
            for hs in h:
                hyp_tot[hs] += 1
                for rs in r:
                    co[(hs, rs)] += 1
            for rs in r:
                ref_tot[rs] += 1
        pur = sum(max((co[(h, r)] for r in ref_tot), default=0) for h in hyp_tot)
        cov = sum(max((co[(h, r)] for h in hyp_tot), default=0) for r in ref_tot)
        per_file[wav_path.stem] = {"ref_speakers": len(ref_tot), "hyp_speakers": len(hyp_tot),
                                   "purity": pur / max(1, sum(hyp_tot.values())),
                                   "coverage": cov / max(1, sum(ref_tot.values()))}
        for k, v in (("pur", pur), ("hyp", sum(hyp_tot.values())), ("cov", cov), ("ref", sum(ref_tot.values())),
                     ("hit", speech_hit), ("sref", speech_ref), ("shyp", speech_hyp)):
            tot[k] += v
    summary = {"files": len(per_file), "audio_s": audio_s, "purity": tot["pur"] / tot["hyp"],
               "coverage": tot["cov"] / tot["ref"], "speech_recall": tot["hit"] / tot["sref"],
               "speech_precision": tot["hit"] / tot["shyp"], "rtf_vad_and_embedding": busy / audio_s,
               "per_file": per_file}
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=1))
    print(json.dumps({k: v for k, v in summary.items() if k != "per_file"}, indent=1))
    for k, v in per_file.items():
        print(k, v)


if __name__ == "__main__":
    main()
