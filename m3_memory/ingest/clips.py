"""Cut a stream of frames and audio into fixed-length clips (30 s by default), the unit of memorization.

Works on a live ROS stream (``ClipAssembler``: push frames/audio as they arrive, get finished clips back) and on
a video file (``clips_from_video``, PyAV). Clip ``k`` covers stream time ``[origin + k*L, origin + (k+1)*L)``,
so clip ids depend only on timestamps: a restarted memorization sees the same ids and can skip committed ones.

Buffers are bounded: frames are sampled at ``sample_fps`` on arrival, audio lives in one fixed-size array per
open clip, and at most ``max_open_clips`` clips are open. A clip is finished when video has moved past its end
and audio has too, or when one stream is ``audio_grace_s`` (stream seconds) past the end and the other has stalled:
delivered nothing for ``stall_s`` wall seconds. A lagging stream that still delivers is waited for (up to
``max_open_clips``): under load one stream's callbacks can fall seconds behind the other's, and a clip cut then would
lose audio that is on its way. Audio that never came is silence, reported as ``audio_coverage`` < 1. Data for a clip
that was already finished is dropped and counted.

A clip also keeps the first ``audio_tail_s`` seconds of audio after its end (``Clip.audio_tail``). The clip waits
for it as for its own audio, or takes what came when a watermark finishes it or the microphone stops (``poll``).
A sentence that runs over the clip's end is then heard whole by the clip it started in (perception/clip_edges.py)
instead of as two fragments, one per clip. The tail is a copy: those samples still belong to the next clip.

With a :class:`~m3_memory.ingest.stream_ledger.StreamLedger`, nothing goes unaccounted: late data (``late``), stream
time without frames for more than ``video_gap_s`` (``no_video``) or without audio (``no_audio``, the audio is
silence there) are recorded per topic with their stream-time spans. ``advance_to(t)`` is a watermark from a
producer that knows no more input before ``t`` will come (a bag replay): clips ending by ``t`` finish at once.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..poses import Pose
from .stream_ledger import StreamLedger

AUDIO_GAP_S = 0.05   # audio missing for longer than this is recorded as a gap (one lost 0.1 s chunk is)
AUDIO_TAIL_S = 4.0   # seconds of audio after a clip's end kept with it (speech running over the end)


@dataclass
class Clip:
    clip_id: int
    start_time: float
    end_time: float
    frames: list[np.ndarray] = field(default_factory=list)     # sampled RGB uint8 frames
    frame_times: list[float] = field(default_factory=list)     # their stream times
    audio: np.ndarray | None = None                           # float32 mono at sample_rate, clip length
    sample_rate: int = 16000
    audio_coverage: float = 0.0                               # fraction of the clip covered by received audio
    video_path: str | None = None
    poses: list[Pose] = field(default_factory=list)            # the robot's pose samples around the clip, if any
    # grey frames at motion_fps (every sampled frame among them) for lip activity; empty when motion_fps is 0
    motion_frames: list[np.ndarray] = field(default_factory=list)
    motion_times: list[float] = field(default_factory=list)
    # the audio received right after end_time (a copy of the next clip's first samples, contiguous from end_time,
    # at most the assembler's audio_tail_s): lets speech that runs over the clip's end be heard whole
    audio_tail: np.ndarray | None = None

    @property
    def duration(self) -> float:
        return self.end_time - self.start_time


@dataclass
class AssemblerStats:
    frames_in: int = 0
    frames_kept: int = 0
    late_frames: int = 0
    late_audio_s: float = 0.0
    clips_out: int = 0


class ClipAssembler:
    def __init__(self, clip_seconds: float = 30.0, sample_fps: float = 1.0, sample_rate: int = 16000,
                 origin: float = 0.0, audio_grace_s: float = 2.0, max_open_clips: int = 3,
                 expect_audio: bool = True, expect_video: bool = True, ledger: StreamLedger | None = None,
                 video_topic: str = "video", audio_topic: str = "audio", video_gap_s: float = 2.0,
                 stall_s: float = 5.0, clock: Callable[[], float] = time.monotonic, motion_fps: float = 0.0,
                 audio_tail_s: float = AUDIO_TAIL_S) -> None:
        if clip_seconds <= 0 or sample_fps <= 0 or sample_rate <= 0:
            raise ValueError("clip_seconds, sample_fps and sample_rate must be positive")
        if not audio_tail_s >= 0:
            raise ValueError("audio_tail_s must be >= 0")
        self.tail_s = min(float(audio_tail_s), float(clip_seconds))   # at most the next clip
        self._tails: dict[int, tuple[np.ndarray, np.ndarray]] = {}   # open clip -> (tail samples, received)
        if not 0 <= motion_fps <= 60:
            raise ValueError("motion_fps must be in [0, 60] (0: no motion frames)")
        self.motion_fps = float(motion_fps)
        self._next_motion: dict[int, float] = {}
        self.L, self.fps, self.sr, self.origin = float(clip_seconds), float(sample_fps), int(sample_rate), origin
        self.grace, self.max_open = audio_grace_s, max_open_clips
        self.stall_s, self.clock = float(stall_s), clock
        now = clock()
        self._video_seen = self._audio_seen = now   # wall time of each stream's last input (or the start)
        self.expect_audio, self.expect_video = expect_audio, expect_video
        self._open: dict[int, Clip] = {}
        self._covered: dict[int, np.ndarray] = {}
        self._next_sample: dict[int, float] = {}
        self._done_upto = -1            # every clip id <= this has been emitted
        self._video_t = -math.inf
        self._audio_t = -math.inf
        self._video_mark = -math.inf    # gaps before these stream times are already recorded
        self._audio_mark = -math.inf
        self.ledger = ledger if ledger is not None else StreamLedger()
        self.video_topic, self.audio_topic, self.video_gap_s = video_topic, audio_topic, float(video_gap_s)
        self.stats = AssemblerStats()

    def clip_of(self, t: float) -> int:
        return int(math.floor((t - self.origin) / self.L + 1e-9))

    def _clip(self, k: int) -> Clip:
        c = self._open.get(k)
        if c is None:
            t0 = self.origin + k * self.L
            n = int(round(self.L * self.sr))
            c = Clip(k, t0, t0 + self.L, audio=np.zeros(n, np.float32), sample_rate=self.sr)
            self._open[k] = c
            self._covered[k] = np.zeros(n, bool)
            self._next_sample[k] = t0
            m = int(round(self.tail_s * self.sr)) if self.expect_audio else 0
            self._tails[k] = (np.zeros(m, np.float32), np.zeros(m, bool))
        return c

    def wants_frame(self, t: float) -> bool:
        """Would a frame at ``t`` be kept by the sampling? (Lets callers skip decoding/converting it.)"""
        k = self.clip_of(t)
        return k > self._done_upto and (t + 1e-9 >= self._next_sample.get(k, -math.inf)
                                        or (self.motion_fps > 0 and t + 1e-9 >= self._next_motion.get(k, -math.inf)))

    def note_video_time(self, t: float) -> list[Clip]:
        """Advance the video clock without a frame (a frame that was skipped)."""
        self._note_video(t)
        return self._ready()

    def _note_video(self, t: float) -> None:
        self._video_seen = self.clock()
        since = max(self._video_t, self._video_mark)
        if math.isfinite(since) and t - since > self.video_gap_s:
            self.ledger.record(self.video_topic, "no_video", since, t)
        self._video_t = max(self._video_t, t)

    def add_frame(self, t: float, rgb: np.ndarray) -> list[Clip]:
        self.stats.frames_in += 1
        if not math.isfinite(t):
            raise ValueError("frame time is not finite")
        k = self.clip_of(t)
        if k <= self._done_upto:
            self.stats.late_frames += 1
            self.ledger.record(self.video_topic, "late", t)
            return []
        c = self._clip(k)
        sampled = t + 1e-9 >= self._next_sample[k]
        if sampled:
            c.frames.append(rgb)
            c.frame_times.append(float(t))
            self._next_sample[k] = t + 1.0 / self.fps
            self.stats.frames_kept += 1
        if self.motion_fps > 0 and (sampled or t + 1e-9 >= self._next_motion.get(k, -math.inf)):
            c.motion_frames.append(_grey(rgb))
            c.motion_times.append(float(t))
            self._next_motion[k] = t + 1.0 / self.motion_fps
        self._note_video(t)
        return self._ready()

    def add_audio(self, t0: float, samples: np.ndarray) -> list[Clip]:
        """``samples``: float32 mono at ``sample_rate`` (see m3_memory.perception for conversion)."""
        x = np.asarray(samples, dtype=np.float32).reshape(-1)
        if not math.isfinite(t0):
            raise ValueError("audio time is not finite")
        since = max(self._audio_t, self._audio_mark)
        if math.isfinite(since) and t0 - since > AUDIO_GAP_S:
            self.ledger.record(self.audio_topic, "no_audio", since, t0)
        pos = 0
        while pos < len(x):
            t = t0 + pos / self.sr
            k = self.clip_of(t)
            c_start = self.origin + k * self.L
            off = int(round((t - c_start) * self.sr))
            n_clip = int(round(self.L * self.sr))
            off = min(max(off, 0), n_clip - 1)
            take = min(len(x) - pos, n_clip - off)
            if k <= self._done_upto:
                self.stats.late_audio_s += take / self.sr
                self.ledger.record(self.audio_topic, "late", t, t + take / self.sr)
            else:
                c = self._clip(k)
                assert c.audio is not None
                c.audio[off : off + take] = x[pos : pos + take]
                self._covered[k][off : off + take] = True
            prev = self._tails.get(k - 1)
            if prev is not None and off < len(prev[0]):     # also the tail of the clip before, while it is open
                m = min(take, len(prev[0]) - off)
                prev[0][off : off + m] = x[pos : pos + m]
                prev[1][off : off + m] = True
            pos += take
        self._audio_t = max(self._audio_t, t0 + len(x) / self.sr)
        self._audio_seen = self.clock()
        return self._ready()

    def _finish(self, k: int) -> Clip:
        c = self._open.pop(k)
        cov = self._covered.pop(k)
        self._next_sample.pop(k, None)
        self._next_motion.pop(k, None)
        c.audio_coverage = float(cov.mean()) if len(cov) else 0.0
        tail, got = self._tails.pop(k, (np.zeros(0, np.float32), np.zeros(0, bool)))
        n_tail = len(got) if got.all() else int(np.argmin(got))   # the part received without a hole
        c.audio_tail = tail[:n_tail] if n_tail else None
        if c.audio_coverage == 0.0:
            c.audio = c.audio_tail = None
        self._record_missing(c)
        self._done_upto = max(self._done_upto, k)
        self.stats.clips_out += 1
        return c

    def stalled(self, stream: str) -> bool:
        """Has ``stream`` ("video" / "audio") delivered nothing for ``stall_s`` wall seconds?"""
        seen = self._video_seen if stream == "video" else self._audio_seen
        return self.clock() - seen >= self.stall_s

    def _ready(self) -> list[Clip]:
        out = []
        for k in sorted(self._open):
            end = self.origin + (k + 1) * self.L
            video_ok = not self.expect_video or self._video_t >= end
            # the audio after the end too (Clip.audio_tail), unless the microphone stopped delivering
            audio_ok = not self.expect_audio or self._audio_t >= end + self.tail_s or (
                self._audio_t >= end and self.stalled("audio"))
            # one stream is grace past the end; the one that lags has stopped delivering (late / absent)
            lagging_gone = (video_ok or self.stalled("video")) and (audio_ok or self.stalled("audio"))
            grace_over = max(self._video_t, self._audio_t) >= end + self.grace and lagging_gone
            if (video_ok and audio_ok) or grace_over or len(self._open) > self.max_open:
                out.append(self._finish(k))
            else:
                break
        return out

    def poll(self) -> list[Clip]:
        """Clips finished by the passing of wall time alone (a stream that stopped: ``stall_s``); call it now and
        then (the node does, every second), since without input nothing else would finish them."""
        return self._ready()

    @property
    def reached(self) -> float:
        """Stream time the input has reached (the end of the last audio chunk, the last frame)."""
        return max(self._video_t, self._audio_t)

    def _record_missing(self, c: Clip) -> None:
        """A clip finished before a stream reached its end: the rest of it is a gap on that stream (up to where
        the stream as a whole got, so the end of a recording is not a gap)."""
        reached = max(self._video_t, self._audio_t)
        for expected, t, topic, cause, mark in ((self.expect_audio, self._audio_t, self.audio_topic, "no_audio",
                                                 "_audio_mark"),
                                                (self.expect_video, self._video_t, self.video_topic, "no_video",
                                                 "_video_mark")):
            start = max(t, getattr(self, mark), c.start_time)
            end = min(c.end_time, reached)
            if expected and end - start > (AUDIO_GAP_S if cause == "no_audio" else self.video_gap_s):
                self.ledger.record(topic, cause, start, end)
                setattr(self, mark, end)

    def advance_to(self, t: float) -> list[Clip]:
        """Watermark: no more input before stream time ``t`` will come; finish every clip that ends by ``t``."""
        out = [self._finish(k) for k in sorted(self._open) if self.origin + (k + 1) * self.L <= t + 1e-9]
        self._done_upto = max(self._done_upto, self.clip_of(t) - 1)
        return out + self._ready()

    def flush(self) -> list[Clip]:
        """Finish every open clip (end of stream)."""
        return [self._finish(k) for k in sorted(self._open)]


def _grey(rgb: np.ndarray) -> np.ndarray:
    """uint8 luma (BT.601) of an RGB frame; a grey frame is kept as it is."""
    if rgb.ndim == 2:
        return rgb
    import cv2

    return cv2.cvtColor(np.ascontiguousarray(rgb[..., :3]), cv2.COLOR_RGB2GRAY)


def clips_from_video(path: str | Path, clip_seconds: float = 30.0, sample_fps: float = 1.0,
                     sample_rate: int = 16000, max_side: int | None = None) -> Iterator[Clip]:
    """Decode a video file with PyAV into clips: sampled RGB frames and 16 kHz mono float audio."""
    import av

    path = str(path)
    asm = ClipAssembler(clip_seconds, sample_fps, sample_rate, origin=0.0)
    with av.open(path) as container:
        streams = [s for s in container.streams if s.type in ("video", "audio")]
        has_audio = any(s.type == "audio" for s in streams)
        asm.expect_audio = has_audio
        asm.expect_video = any(s.type == "video" for s in streams)
        resampler = av.AudioResampler(format="flt", layout="mono", rate=sample_rate) if has_audio else None
        audio_t: float | None = None
        for frame in container.decode(*streams):
            if frame.time is None:
                continue
            if isinstance(frame, av.VideoFrame):
                t = float(frame.time)
                if not asm.wants_frame(t):
                    for c in asm.note_video_time(t):
                        c.video_path = path
                        yield c
                    continue
                img = frame.to_ndarray(format="rgb24")
                if max_side and max(img.shape[:2]) > max_side:
                    import cv2

                    s = max_side / max(img.shape[:2])
                    img = cv2.resize(img, (int(img.shape[1] * s), int(img.shape[0] * s)), interpolation=cv2.INTER_AREA)
                done = asm.add_frame(t, img)
            else:
                assert resampler is not None
                done = []
                for rf in resampler.resample(frame):
                    if audio_t is None:
                        audio_t = float(frame.time)
                    pcm = rf.to_ndarray().reshape(-1)
                    done += asm.add_audio(audio_t, pcm)
                    audio_t += len(pcm) / sample_rate
            for c in done:
                c.video_path = path
                yield c
    for c in asm.flush():
        c.video_path = path
        yield c
