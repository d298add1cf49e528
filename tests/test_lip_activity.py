"""Who of several faces in view is talking: motion frames, lip activity, face = voice credit from it."""

from __future__ import annotations

import numpy as np
import pytest

from m3_memory import MemoryStore
from m3_memory.ingest.clips import ClipAssembler
from m3_memory.perception.lip_activity import Loudness, lip_activity, lips_still
from m3_memory.store.av_links import AVParams, alone_credit, lip_credit, talker_credit
from m3_memory.writing import ClipEvidence, FaceEvidence, VoiceTurnEvidence
from m3_memory.writing.embedded import EmbeddedWriter

from .store_helpers import unit


def test_the_assembler_keeps_grey_motion_frames_beside_the_sampled_ones() -> None:
    asm = ClipAssembler(10.0, 1.0, 16000, motion_fps=5.0, expect_audio=False)
    for i in range(100):                       # a 10 fps camera for 10 s
        asm.add_frame(i / 10, np.full((48, 64, 3), i, np.uint8))
    (clip,) = asm.flush()
    assert len(clip.frames) == 10 and clip.frame_times == [float(i) for i in range(10)]
    assert len(clip.motion_frames) == 50
    assert np.allclose(np.diff(clip.motion_times), 0.2)
    assert set(clip.frame_times) <= set(clip.motion_times), "every sampled frame is a motion frame too"
    assert clip.motion_frames[3].shape == (48, 64) and clip.motion_frames[3].dtype == np.uint8
    none = ClipAssembler(10.0, 1.0, 16000, expect_audio=False)
    for i in range(100):
        none.add_frame(i / 10, np.zeros((48, 64, 3), np.uint8))
    assert none.flush()[0].motion_frames == []
    with pytest.raises(ValueError):
        ClipAssembler(10.0, 1.0, 16000, motion_fps=-1)


def test_a_moving_mouth_scores_above_a_still_one_under_camera_shake() -> None:
    rng = np.random.default_rng(0)
    base = rng.integers(0, 255, (200, 300)).astype(np.uint8)   # texture everywhere: shake changes every region
    boxes = [(40, 60, 100, 120), (180, 60, 240, 120)]          # two 60 px faces; the left one talks
    frames, times = [], []
    for i in range(10):
        f = base.copy()
        if i % 2:   # the left face's mouth region (below the nose) changes every other frame
            f[100:125, 55:85] = rng.integers(0, 255, (25, 30))
        dx, dy = rng.integers(-2, 3, 2)
        frames.append(np.roll(f, (int(dy), int(dx)), axis=(0, 1)))
        times.append(i * 0.2)
    tracks = [[(0.0, b), (1.0, b), (2.0, b)] for b in boxes]
    talker, listener = lip_activity(tracks, times, frames)
    assert len(talker) == len(listener) == 9
    assert np.percentile([s for _, s in talker], 75) > 0.5
    assert np.percentile([s for _, s in listener], 75) < 0.05
    # frames too far apart make no pair, a face detected nowhere near gives no samples
    assert lip_activity(tracks, [0.0, 1.0], frames[:2]) == [[], []]
    assert lip_activity([[(9.0, boxes[0])]], times, frames) == [[]]


def test_a_panning_camera_does_not_make_a_listener_look_like_a_talker() -> None:
    """The camera pans 8 px per motion frame (40 px a second) and faces are detected once a second: the box of the
    nearest detection is followed into each pair's frames, so the listener's still mouth scores low and the
    talker's moving one high. Carried over unchanged, the box slid off both mouths onto moving texture."""
    from m3_memory.perception.lip_activity import LipParams, follow

    rng = np.random.default_rng(2)
    base = rng.integers(0, 255, (200, 420)).astype(np.uint8)
    faces = [(140, 60, 200, 120), (300, 60, 360, 120)]           # at t = 0; the left one talks
    frames, times = [], []
    for i in range(11):
        f = base.copy()
        if i % 2:
            f[100:125, 155:185] = rng.integers(0, 255, (25, 30))  # the talker's mouth, in room coordinates
        frames.append(np.roll(f, -8 * i, axis=1))                 # the room moves left in the picture
        times.append(i * 0.2)
    assert follow(frames[0].astype(np.float32), faces[1], frames[3].astype(np.float32), LipParams()) == (-24, 0)

    def at(box: tuple[int, int, int, int], t: float) -> tuple[int, int, int, int]:
        dx = -int(round(40 * t))
        return box[0] + dx, box[1], box[2] + dx, box[3]

    tracks = [[(0.0, at(b, 0.0)), (1.0, at(b, 1.0)), (2.0, at(b, 2.0))] for b in faces]
    talker, listener = lip_activity(tracks, times, frames)
    assert len(talker) == len(listener) == 10
    assert np.percentile([s for _, s in talker], 75) > 0.5
    assert np.percentile([s for _, s in listener], 75) < 0.05


def test_a_mouth_moving_in_a_dim_face_scores_like_one_in_a_bright_face() -> None:
    """The score is the mouth's change over its texture, so light (and contrast) does not decide who talks."""
    rng = np.random.default_rng(1)
    base = rng.integers(0, 255, (200, 300)).astype(np.float32)
    frames = []
    for i in range(6):
        f = base.copy()
        if i % 2:
            f[100:125, 55:85] = rng.integers(0, 255, (25, 30))
            f[100:125, 195:225] = rng.integers(0, 255, (25, 30))
        f[:, 150:] *= 0.3        # the right half of the room is dim
        frames.append(f.astype(np.uint8))
    boxes = [(40, 60, 100, 120), (180, 60, 240, 120)]
    bright, dim = lip_activity([[(0.0, b)] for b in boxes], [i * 0.2 for i in range(6)], frames)
    b, d = np.median([s for _, s in bright]), np.median([s for _, s in dim])
    assert b > 0.5 and abs(b - d) < 0.15 * b


def _samples(scores: list[float]) -> list[tuple[float, float]]:
    return [(2.0 + 0.2 * i, s) for i, s in enumerate(scores)]


def _ev(activity_a: list[float], activity_b: list[float] | None, seen_b: bool = True) -> ClipEvidence:
    times = [float(t) for t in range(10)]
    faces = [FaceEvidence(1, b"j", times, activity=_samples(activity_a))]
    if seen_b:
        faces.append(FaceEvidence(2, b"j", times, activity=_samples(activity_b or [])))
    return ClipEvidence(0, 0.0, 10.0, frame_times=times, faces=faces)


def test_the_face_whose_lips_clearly_moved_most_earns_the_turn_and_no_face_does_when_it_is_unclear() -> None:
    p = AVParams()
    talk, still = [1.5, 0.1, 2.0, 0.3, 1.8, 0.0, 1.2, 0.2], [0.0, -0.1, 0.05, -0.2, 0.0, 0.1, -0.1, 0.0]
    assert lip_credit(_ev(talk, still), 2.0, 3.5, p) == {1: 1.5}
    assert lip_credit(_ev(still, talk), 2.0, 3.5, p) == {2: 1.5}
    assert lip_credit(_ev(talk, talk), 2.0, 3.5, p) == {}, "two moving mouths: nobody stands out"
    assert lip_credit(_ev(still, still), 2.0, 3.5, p) == {}, "nobody's lips moved"
    assert lip_credit(_ev(talk, []), 2.0, 3.5, p) == {}, "a face in view without samples cannot be ruled out"
    # a frame pair that changes every face (the camera shakes, blurs) is not anybody's talking: activity counts
    # relative to the other faces at the same pair
    shaken = [0.0, 3.0, 0.1, 2.5, 0.0, 3.2, 0.1, 2.8]
    talk_shaken = [a + b for a, b in zip(shaken, [0.6, 0.0, 0.7, 0.1, 0.6, 0.0, 0.5, 0.0], strict=True)]
    assert lip_credit(_ev(talk_shaken, shaken), 2.0, 3.5, p) == {1: 1.5}
    assert lip_credit(_ev(shaken, shaken), 2.0, 3.5, p) == {}
    # one face in view: the older rule (alone on camera) decides, lip activity is not needed
    assert lip_credit(_ev(talk, None, seen_b=False), 2.0, 3.5, p) == {}
    assert talker_credit(_ev(still, None, seen_b=False), 2.0, 3.5, p) == {1: 1.5}


def test_lip_activity_links_the_talker_among_two_faces_in_the_store(db_at) -> None:  # noqa: ANN001
    rng = np.random.default_rng(5)
    store = MemoryStore(db_at("m.db"))
    writer = EmbeddedWriter(min_overlap_s=3.0)
    fa, fb, va = unit(rng, 1, 128), unit(rng, 1, 128), unit(rng, 1, 192)
    said = []
    for clip in range(3):
        t0 = clip * 30.0
        with store.begin_clip(clip, t0, t0 + 30.0) as w:
            a = w.match_entity("face", fa)[0] or w.add_entity("face", fa)
            b = w.match_entity("face", fb)[0] or w.add_entity("face", fb)
            v = w.match_entity("voice", va)[0] or w.add_entity("voice", va)
            times = [t0 + i for i in range(30)]
            lips = [(t0 + 2.0 + 0.2 * i, 1.5 if i % 2 else 0.1) for i in range(10)]
            still = [(t0 + 2.0 + 0.2 * i, 0.0) for i in range(10)]
            ev = ClipEvidence(clip, t0, t0 + 30.0, frame_times=times,
                              faces=[FaceEvidence(b, b"j", times, activity=still),
                                     FaceEvidence(a, b"j", times, activity=lips)],
                              voices=[VoiceTurnEvidence(v, t0 + 2.0, t0 + 4.0, "talking")])
            out = writer.write(ev, graph=w)
            w.add_memories(out.episodic, "episodic")
            for text in out.semantic:
                w.add_memory(text, "semantic")
            said.append([t for t in out.semantic if t.startswith("Equivalence")])
    assert said[0] == [] and said[1] == [f"Equivalence: <face_{a}>, <voice_{v}>"]
    chars = store.characters()
    assert chars.character_of(a) == chars.character_of(v) != chars.character_of(b)


# ------------------------------------------------------------------------------------------------ still lips
SR = 16000


def _speech_at(spans: list[tuple[float, float]], seconds: float = 10.0, noise: float = 0.01) -> np.ndarray:
    """Noise with bursts of 'speech' (4 Hz syllables of a 200 Hz tone) in ``spans``: the sound a room gives."""
    rng = np.random.default_rng(3)
    t = np.arange(int(seconds * SR)) / SR
    a = noise * rng.standard_normal(len(t))
    for s, e in spans:
        m = (t >= s) & (t < e)
        a[m] += 0.3 * np.sin(2 * np.pi * 200 * t[m]) * (0.5 + 0.5 * np.sin(2 * np.pi * 4 * t[m]))
    return a.astype(np.float32)


def _mouth(level: Loudness, moves_with_sound: bool, seconds: float = 10.0) -> list[tuple[float, float]]:
    """Lip activity at 5 fps: following the sound (a talker), or a listener's small steady movements."""
    rng = np.random.default_rng(4)
    out = []
    for t in np.arange(0.1, seconds, 0.2):
        db = level.mean(t - 0.1, t + 0.1)
        talking = moves_with_sound and db is not None and db > -20
        out.append((round(float(t), 3), (1.5 if talking else 0.3) + 0.1 * float(rng.random())))
    return out


def test_loudness_follows_the_sound_and_says_none_where_the_clip_has_none() -> None:
    level = Loudness.of(_speech_at([(4.0, 6.0)]), 100.0)
    assert level is not None and len(level.times) == 500
    assert level.mean(104.2, 105.8) > level.mean(101.0, 103.0) + 15, "speech is louder than the room"
    assert level.mean(111.0, 112.0) is None and Loudness.of(None, 0.0) is None
    assert Loudness.of(np.full(SR, np.nan, np.float32), 0.0) is not None, "NaN samples read as silence"


def test_still_lips_tell_a_listener_alone_on_camera_from_the_talker() -> None:
    level = Loudness.of(_speech_at([(4.0, 6.0)]), 0.0)
    talker, listener = _mouth(level, True), _mouth(level, False)
    assert not lips_still(talker, 4.0, 6.0, level), "the mouth moved with the speech"
    assert lips_still(listener, 4.0, 6.0, level), "steady small movements, no higher while the voice spoke"
    # cannot be told: no sound level, or too few samples around the turn
    assert not lips_still(listener, 4.0, 6.0, None)
    assert not lips_still([x for x in listener if 4.0 <= x[0] <= 6.0], 4.0, 6.0, level)


def test_a_face_alone_on_camera_with_still_lips_earns_no_credit_for_the_voice() -> None:
    level = Loudness.of(_speech_at([(4.0, 6.0)]), 0.0)
    times = [float(t) for t in range(10)]

    def ev(moving: bool, loud: Loudness | None) -> ClipEvidence:
        face = FaceEvidence(1, b"j", times, activity=_mouth(level, moving))
        return ClipEvidence(0, 0.0, 10.0, frame_times=times, faces=[face], loudness=loud)

    p = AVParams()
    assert alone_credit(ev(True, level), 4.0, 6.0, p) == {1: 2.0}
    assert alone_credit(ev(False, level), 4.0, 6.0, p) == {}, "someone off camera talked"
    assert talker_credit(ev(False, level), 4.0, 6.0, p) == {}
    assert alone_credit(ev(False, None), 4.0, 6.0, p) == {1: 2.0}, "without the sound level: the alone rule"
    off = AVParams(still_lips_earn_nothing=False)
    assert alone_credit(ev(False, level), 4.0, 6.0, off) == {1: 2.0}
