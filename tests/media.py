"""Real test media from ../shared/data (GRID talking faces, LibriSpeech, JFK); tests skip when it is absent."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
GRID = DATA / "grid_talking_faces"
GRID_IDS = ["bbaf2n", "brbk7n", "lbax4n", "lbbc2a", "sbwe5n"]   # five different people (checked by eye)
LIBRI = DATA / "speech_librispeech"
AMI = DATA / "ami_debug"


def need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"test media not available: {path}")
    return path


def rttm_turns(path: Path, file_id: str) -> list[tuple[float, float, str]]:
    """Reference speaker turns (start, end, speaker) of one file of an RTTM file."""
    out = []
    for line in need(path).read_text().splitlines():
        p = line.split()
        if p and p[0] == "SPEAKER" and p[1] == file_id:
            out.append((float(p[3]), float(p[3]) + float(p[4]), p[7]))
    return out


def ami_turns(meeting: str) -> list[tuple[float, float, str]]:
    """Reference speaker turns of one AMI excerpt of ../shared/data/ami_debug."""
    return rttm_turns(AMI / "debug.train.rttm", meeting)


def purity_coverage(ref: list[tuple[float, float, str]], turns: list, duration: float) -> tuple[float, float]:
    """pyannote.metrics purity and coverage of ``turns`` (objects with start, end, speaker) against ``ref`` over
    the whole ``duration`` (as benchmarks/voices_ami.py: turn time over silence counts against purity)."""
    metrics = pytest.importorskip("pyannote.metrics.diarization")
    from pyannote.core import Annotation, Segment, Timeline

    r, h = Annotation(), Annotation()
    for i, (a, b, spk) in enumerate(ref):
        r[Segment(a, b), i] = spk
    for i, t in enumerate(turns):
        h[Segment(t.start, t.end), i] = f"v{t.speaker}"
    uem = Timeline([Segment(0.0, duration)])
    return float(metrics.DiarizationPurity()(r, h, uem=uem)), float(metrics.DiarizationCoverage()(r, h, uem=uem))


def grid_transcripts() -> dict[str, str]:
    out = {}
    for line in need(GRID / "transcripts_derived.tsv").read_text().splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and not line.startswith(("#", "file")):
            out[parts[1]] = parts[2]
    return out


@lru_cache(maxsize=16)
def grid_clip(code: str, fps: float = 2.0) -> tuple[tuple[np.ndarray, ...], tuple[float, ...], np.ndarray]:
    """(frames, frame times from 0, 16 kHz mono audio) of one 3 s GRID clip."""
    from m3_memory.ingest.clips import clips_from_video

    clips = list(clips_from_video(need(GRID / f"{code}.mpg"), clip_seconds=30.0, sample_fps=fps))
    c = clips[0]
    assert c.audio is not None
    n = int(round(min(c.frame_times[-1] + 0.5, 2.98) * 16000))
    return tuple(c.frames), tuple(c.frame_times), c.audio[:n].copy()


def grid_stream(codes: list[str], fps: float = 2.0):  # noqa: ANN201 - list[Clip]
    """One 3 s clip per code, back to back in stream time: clip k covers [3k, 3k + 3)."""
    from m3_memory.ingest.clips import Clip

    out = []
    for k, code in enumerate(codes):
        frames, times, audio = grid_clip(code, fps)
        t0 = 3.0 * k
        out.append(Clip(k, t0, t0 + 3.0, list(frames), [t0 + t for t in times], audio, 16000, 1.0))
    return out


def grid_audio(code: str, rate: int, channels: int) -> np.ndarray:
    """The audio track of one GRID clip (44.1 kHz stereo MP2 in the .mpg) converted by libswresample to float32 at
    ``rate`` with ``channels`` channels (1 or 2): shape (samples, channels), as a microphone driver would deliver it."""
    import av

    layout = {1: "mono", 2: "stereo"}[channels]
    rs = av.AudioResampler(format="flt", layout=layout, rate=rate)
    parts = []
    with av.open(str(need(GRID / f"{code}.mpg"))) as c:
        for frame in c.decode(audio=0):
            parts += [f.to_ndarray().reshape(-1, channels) for f in rs.resample(frame)]
    parts += [f.to_ndarray().reshape(-1, channels) for f in rs.resample(None)]
    return np.concatenate(parts).astype(np.float32)
