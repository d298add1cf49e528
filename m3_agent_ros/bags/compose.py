"""Compose a scene video from short real clips (e.g. GRID talking faces): each segment shows one clip with its own
sound, gaps show an empty background with silence. Used to build the bundled demo bag from ../shared/data."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

SR_OUT = 16000


@dataclass
class Segment:
    source: Path | None       # a video file, or None for a gap
    seconds: float = 0.0      # gap length (sources play in full)
    muted: bool = False       # show the clip's frames with silence instead of its sound (seen, not heard)


def _decode(path: Path, size: tuple[int, int], fps: int) -> tuple[list[np.ndarray], np.ndarray]:
    import av
    import cv2

    frames: list[np.ndarray] = []
    with av.open(str(path)) as c:
        rs = av.AudioResampler(format="s16", layout="mono", rate=SR_OUT)
        audio = [f.to_ndarray().reshape(-1) for fr in c.decode(audio=0) for f in rs.resample(fr)]
        audio += [f.to_ndarray().reshape(-1) for f in rs.resample(None)]
    with av.open(str(path)) as c:
        src_fps = float(c.streams.video[0].average_rate or fps)
        for i, fr in enumerate(c.decode(video=0)):
            if round(i * fps / src_fps) >= len(frames) + 1 or not frames:
                frames.append(cv2.resize(fr.to_ndarray(format="rgb24"), size, interpolation=cv2.INTER_AREA))
    pcm = np.concatenate(audio).astype(np.int16) if audio else np.zeros(0, np.int16)
    n = int(round(len(frames) / fps * SR_OUT))
    return frames, np.pad(pcm, (0, max(0, n - len(pcm))))[:n]


def compose(segments: list[Segment], out: Path, size: tuple[int, int] = (360, 288), fps: int = 25,
            background: tuple[int, int, int] = (40, 90, 140)) -> float:
    """Write an MPEG-4 + AAC video; returns its duration in seconds."""
    import av

    out.parent.mkdir(parents=True, exist_ok=True)
    bg = np.zeros((size[1], size[0], 3), np.uint8)
    bg[:] = background
    with av.open(str(out), "w") as container:
        vs = container.add_stream("mpeg4", rate=fps)
        vs.width, vs.height, vs.pix_fmt = size[0], size[1], "yuv420p"
        vs.bit_rate = 800_000
        aus = container.add_stream("aac", rate=SR_OUT)
        aus.layout = "mono"
        n_frames = 0
        audio_parts: list[np.ndarray] = []
        for seg in segments:
            if seg.source is None:
                frames = [bg] * int(round(seg.seconds * fps))
                pcm = np.zeros(int(round(len(frames) / fps * SR_OUT)), np.int16)
            else:
                frames, pcm = _decode(seg.source, size, fps)
                if seg.muted:
                    pcm = np.zeros_like(pcm)
            for f in frames:
                vf = av.VideoFrame.from_ndarray(f, format="rgb24")
                vf.pts, vf.time_base = n_frames, Fraction(1, fps)
                container.mux(vs.encode(vf))
                n_frames += 1
            audio_parts.append(pcm)
        container.mux(vs.encode(None))
        pcm = np.concatenate(audio_parts)
        step = 1024
        for i in range(0, len(pcm), step):
            af = av.AudioFrame.from_ndarray(pcm[i : i + step].reshape(1, -1), format="s16", layout="mono")
            af.sample_rate, af.pts, af.time_base = SR_OUT, i, Fraction(1, SR_OUT)
            container.mux(aus.encode(af))
        container.mux(aus.encode(None))
    return n_frames / fps
