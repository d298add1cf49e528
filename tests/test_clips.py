"""Clip assembly from a live stream (frames + audio chunks) and from video files."""

from __future__ import annotations

import numpy as np
import pytest

from m3_memory.ingest.clips import ClipAssembler, clips_from_video

SR = 16000


def _stream(asm: ClipAssembler, seconds: float, fps: float = 10.0, chunk_s: float = 0.5, audio_lag_s: float = 0.0):
    """Interleave frames and audio chunks in arrival order; audio sample i has value i / SR (a ramp)."""
    out = []
    events = [(i / fps, "f", i / fps) for i in range(int(seconds * fps))]
    events += [(j * chunk_s + audio_lag_s, "a", j * chunk_s) for j in range(int(seconds / chunk_s))]
    for _, kind, t in sorted(events):
        if kind == "f":
            out += asm.add_frame(t, np.full((4, 4, 3), int(t) % 256, np.uint8))
        else:
            n = int(chunk_s * SR)
            out += asm.add_audio(t, (np.arange(n) + t * SR).astype(np.float32) / SR)
    return out


def test_clips_are_emitted_in_order_with_sampled_frames_and_exact_audio():
    asm = ClipAssembler(clip_seconds=30.0, sample_fps=1.0)
    clips = _stream(asm, 65.0)
    assert [c.clip_id for c in clips] == [0, 1]
    clips += asm.flush()
    assert [(c.clip_id, c.start_time, c.end_time) for c in clips] == [(0, 0, 30), (1, 30, 60), (2, 60, 90)]
    c1 = clips[1]
    assert c1.frame_times == [float(t) for t in range(30, 60)]
    assert c1.audio_coverage == 1.0 and len(c1.audio) == 30 * SR
    # sample-exact: the ramp value equals the absolute stream time of each sample
    assert np.allclose(c1.audio[::SR], np.arange(30, 60), atol=1e-3)
    assert clips[2].audio_coverage == pytest.approx(5 / 30)


class WallClock:
    """A settable wall clock for the assembler's stall rule."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_late_audio_waits_for_the_grace_period_then_missing_audio_is_silence():
    wall = WallClock()
    asm = ClipAssembler(clip_seconds=10.0, sample_fps=1.0, audio_grace_s=3.0, stall_s=5.0, clock=wall)
    out = []
    for i in range(125):  # 12.5 s of video, no audio at all yet
        out += asm.add_frame(i / 10, np.zeros((2, 2, 3), np.uint8))
    assert out == []  # video passed 10 s but audio might still come
    out += asm.add_audio(0.0, np.ones(5 * SR, np.float32))  # late audio for the first half of clip 0
    out += asm.add_frame(13.1, np.zeros((2, 2, 3), np.uint8))
    assert out == []   # video is grace past the end, but the microphone is delivering: its audio is on the way
    wall.now += 5.0    # ... then it stalls
    out += asm.add_frame(13.2, np.zeros((2, 2, 3), np.uint8))
    assert [c.clip_id for c in out] == [0]
    assert out[0].audio_coverage == pytest.approx(0.5)
    assert out[0].audio[: 5 * SR].min() == 1.0 and out[0].audio[5 * SR :].max() == 0.0
    asm.add_audio(1.0, np.ones(SR, np.float32))  # arrives after clip 0 was finished: dropped, counted
    assert asm.stats.late_audio_s == pytest.approx(1.0)


def test_a_lagging_stream_that_still_delivers_loses_nothing_a_dead_one_is_given_up():
    """Under load the audio callbacks fell 8 s (wall) behind the camera's in a replay at 4x: the clip was cut when
    video was grace past its end and 26 s of audio arrived late. A stream that keeps delivering is waited for (up to
    max_open_clips); one silent for stall_s wall seconds is not."""
    wall = WallClock()
    asm = ClipAssembler(clip_seconds=10.0, sample_fps=1.0, audio_grace_s=2.0, stall_s=5.0, clock=wall,
                        audio_tail_s=0.0)   # no audio past the end to wait for (see the tests of the tail)
    out = []
    for i in range(25):           # video runs to 24 s while audio crawls: 1 s of audio per wall second
        out += asm.add_frame(float(i), np.zeros((2, 2, 3), np.uint8))
        out += asm.add_audio(i * 0.5, np.ones(SR // 2, np.float32))
        wall.now += 1.0
    # video is 14 s past clip 1's end, audio at 12.5 s: clip 0 is complete, clip 1 waits for the audio on its way
    assert [c.clip_id for c in out] == [0]
    for i in range(25, 40):
        out += asm.add_audio(i * 0.5, np.ones(SR // 2, np.float32))
        wall.now += 0.2
    assert [c.clip_id for c in out] == [0, 1]
    assert all(c.audio_coverage == 1.0 for c in out) and asm.stats.late_audio_s == 0.0
    wall.now += 5.0               # the microphone stops: the camera's clips go on without it
    out += asm.add_frame(25.0, np.zeros((2, 2, 3), np.uint8))
    assert out[-1].clip_id == 1
    out += asm.add_frame(32.5, np.zeros((2, 2, 3), np.uint8))
    assert [c.clip_id for c in out] == [0, 1, 2] and out[-1].audio_coverage == 0.0


def test_a_clip_keeps_the_audio_right_after_its_end_and_waits_for_it():
    """Speech running over a clip's end is heard whole by the clip it started in (perception/clip_edges.py): the
    clip keeps a copy of the next audio_tail_s seconds, which still belong to the next clip."""
    asm = ClipAssembler(clip_seconds=10.0, sample_fps=1.0, audio_tail_s=3.0)
    out = _stream(asm, 12.5)
    assert out == []                      # video and audio are past 10 s, not yet past the tail
    out += _stream_from(asm, 12.5, 14.0)
    assert [c.clip_id for c in out] == [0]
    c0 = out[0]
    assert len(c0.audio) == 10 * SR and len(c0.audio_tail) == 3 * SR
    assert np.allclose(c0.audio_tail[::SR], np.arange(10, 13), atol=1e-3)   # stream times 10..13 s
    out += asm.flush()
    c1 = out[1]
    assert np.allclose(c1.audio[: 4 * SR : SR], np.arange(10, 14), atol=1e-3)   # the next clip keeps its own
    assert c1.audio_tail is None                                              # nothing came after it


def test_a_watermark_finishes_a_clip_with_the_tail_received_so_far_and_a_hole_ends_it():
    asm = ClipAssembler(clip_seconds=10.0, sample_fps=1.0, audio_tail_s=3.0)
    _stream(asm, 11.5)
    out = asm.advance_to(11.5)            # no more input before 11.5 s will come: clip 0 goes with 1.5 s of tail
    assert [c.clip_id for c in out] == [0] and len(out[0].audio_tail) == int(1.5 * SR)
    asm2 = ClipAssembler(clip_seconds=10.0, sample_fps=1.0, audio_tail_s=3.0)
    _stream(asm2, 10.0)
    asm2.add_audio(11.0, np.ones(2 * SR, np.float32))   # 10-11 s never came
    out = asm2.advance_to(13.0)
    assert out[0].clip_id == 0 and out[0].audio_tail is None   # only the part without a hole is a tail
    with pytest.raises(ValueError):
        ClipAssembler(audio_tail_s=-1.0)


def test_a_microphone_that_stops_leaves_its_clip_to_the_clock_with_the_tail_it_got():
    wall = WallClock()
    asm = ClipAssembler(clip_seconds=10.0, sample_fps=1.0, audio_tail_s=3.0, stall_s=5.0, clock=wall)
    out = _stream(asm, 12.0)              # both streams stop 2 s past the end, 1 s short of the tail
    assert out == [] and asm.poll() == []
    wall.now += 5.0                       # nothing for stall_s: no input will finish the clip, the clock does
    out = asm.poll()
    assert [c.clip_id for c in out] == [0] and len(out[0].audio_tail) == 2 * SR


def _stream_from(asm: ClipAssembler, t0: float, t1: float, fps: float = 10.0, chunk_s: float = 0.5) -> list:
    out = []
    for t in np.arange(t0, t1, chunk_s):
        for f in np.arange(t, t + chunk_s, 1 / fps):
            out += asm.add_frame(float(f), np.zeros((4, 4, 3), np.uint8))
        n = int(chunk_s * SR)
        out += asm.add_audio(float(t), (np.arange(n) + t * SR).astype(np.float32) / SR)
    return out


def test_late_frames_are_dropped_and_open_clips_are_bounded():
    asm = ClipAssembler(clip_seconds=1.0, sample_fps=5.0, expect_audio=True, max_open_clips=2)
    out = []
    for t in np.arange(0, 5, 0.2):
        out += asm.add_frame(float(t), np.zeros((2, 2, 3), np.uint8))
    assert len(asm._open) <= 3  # never more than max_open_clips + the one being filled
    assert out and out[0].audio is None and out[0].audio_coverage == 0.0
    before = asm.stats.late_frames
    asm.add_frame(0.1, np.zeros((2, 2, 3), np.uint8))
    assert asm.stats.late_frames == before + 1
    with pytest.raises(ValueError):
        asm.add_frame(float("nan"), np.zeros((2, 2, 3), np.uint8))


def test_clips_from_a_real_video_file():
    av = pytest.importorskip("av")
    from pathlib import Path

    video = Path(__file__).resolve().parents[2] / "shared/data/grid_talking_faces/bbaf2n.mpg"
    if not video.exists():
        pytest.skip("shared test media not available")
    clips = list(clips_from_video(video, clip_seconds=1.0, sample_fps=2.0))
    with av.open(str(video)) as c:
        duration = float(c.duration) / 1e6
    assert len(clips) == int(np.ceil(duration - 1e-6))
    assert all(len(c.frames) == len(c.frame_times) <= 2 for c in clips)
    assert clips[0].frames[0].ndim == 3 and clips[0].frames[0].shape[2] == 3
    full = [c for c in clips if c.end_time <= duration - 0.1]
    assert full and all(c.audio is not None and c.audio_coverage > 0.9 for c in full)
    assert all(np.isfinite(c.audio).all() for c in full)
