"""A clip speaker whose turns the lips give to two faces is split into one speaker per face (talker_split.py)."""

from __future__ import annotations

import numpy as np

from m3_memory.perception.talker_split import split_by_lips
from m3_memory.perception.voices import Speaker, VoiceTurn
from m3_memory.writing import FaceEvidence


def _lips(talks: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Activity samples every 0.2 s over 0-30 s: a moving mouth inside the spans, a still one elsewhere."""
    out = []
    for i in range(150):
        t = round(0.2 * i + 0.1, 3)
        out.append((t, (1.5 if i % 2 else 0.3) if any(a <= t <= b for a, b in talks) else 0.0))
    return out


def _turn(a: float, b: float, rng: np.random.Generator, overlapped: bool = False) -> VoiceTurn:
    e = rng.normal(size=192).astype(np.float32)
    return VoiceTurn(a, b, 0, "words", e / np.linalg.norm(e), overlapped)


def test_a_speaker_whose_turns_two_faces_lips_say_is_split_per_face() -> None:
    rng = np.random.default_rng(0)
    times = [float(t) for t in range(30)]
    a_talks, b_talks = [(2.0, 4.0), (14.0, 16.0)], [(8.0, 10.0), (20.0, 22.0)]
    faces = [FaceEvidence(1, b"", times, activity=_lips(a_talks)), FaceEvidence(2, b"", times, activity=_lips(b_talks))]
    turns = [_turn(a, b, rng) for a, b in sorted(a_talks + b_talks)] + [_turn(25.0, 26.5, rng)]  # 25 s: no lips
    merged = Speaker(list(turns), [t.embedding for t in turns])
    out, splits = split_by_lips({0: merged, 3: Speaker([_turn(27.0, 28.0, rng)], [])}, faces, times)
    assert splits == [(0, [0, 4])]
    assert [(t.start, t.speaker) for t in out[0].turns] == [(2.0, 0), (14.0, 0), (25.0, 0)]
    assert [(t.start, t.speaker) for t in out[4].turns] == [(8.0, 4), (20.0, 4)]
    assert len(out[4].embeddings) == 2 and np.allclose(out[4].embeddings[0], turns[1].embedding)
    assert out[3].turns[0].start == 27.0, "a one-turn speaker is left alone"


def test_no_split_without_a_clear_verdict_of_the_lips() -> None:
    rng = np.random.default_rng(1)
    times = [float(t) for t in range(30)]
    talks = [(2.0, 4.0), (8.0, 10.0)]
    one_talker = [FaceEvidence(1, b"", times, activity=_lips(talks)), FaceEvidence(2, b"", times, activity=_lips([]))]
    turns = [_turn(a, b, rng) for a, b in talks]
    spk = {0: Speaker(list(turns), [t.embedding for t in turns])}
    assert split_by_lips(spk, one_talker, times)[1] == [], "one face talked in every turn"
    alone = [FaceEvidence(1, b"", times[:6]), FaceEvidence(2, b"", times[6:])]   # each alone in turn: no lips
    assert split_by_lips(spk, alone, times)[1] == [], "without a threshold to hear them apart"
    both = [FaceEvidence(1, b"", times, activity=_lips(talks[:1])),
            FaceEvidence(2, b"", times, activity=_lips(talks[1:]))]
    unprinted = {0: Speaker([VoiceTurn(a, b, 0) for a, b in talks], [])}
    assert split_by_lips(unprinted, both, times)[1] == [], "turns without their own prints stay together"
    assert split_by_lips(spk, both, times)[1] == [(0, [0, 1])]


def test_two_clip_speakers_the_same_mouth_talked_through_are_joined() -> None:
    """A sentence cut in two by the diarizer: a short head under one speaker, the rest under another, one face's
    lips moving through both; a third speaker, another face's, stays apart."""
    rng = np.random.default_rng(2)
    times = [float(t) for t in range(30)]
    faces = [FaceEvidence(1, b"", times, activity=_lips([(2.0, 5.0), (12.0, 15.0)])),
             FaceEvidence(2, b"", times, activity=_lips([(20.0, 22.0)]))]
    head, rest = [_turn(2.0, 2.6, rng), _turn(12.0, 12.6, rng)], [_turn(2.6, 5.0, rng), _turn(12.6, 15.0, rng)]
    other = [_turn(20.0, 22.0, rng)]
    spk = {0: Speaker(head, [t.embedding for t in head]), 1: Speaker(rest, [t.embedding for t in rest]),
           2: Speaker(other, [t.embedding for t in other])}
    out, changes = split_by_lips(spk, faces, times)
    assert changes == [(1, [1, 0])] and sorted(out) == [1, 2]
    assert [(t.start, t.speaker) for t in out[1].turns] == [(2.0, 1), (2.6, 1), (12.0, 1), (12.6, 1)]
    assert len(out[1].embeddings) == 4 and out[2].turns == other


def test_faces_alone_on_camera_split_a_speaker_only_where_the_turns_sound_apart() -> None:
    """Two people filed under one clip speaker, each alone on camera while talking: split when their turn prints
    are further apart than the matching threshold; one person off camera, talking while first one face, then
    another is in view (prints alike), stays one speaker; a part named only by a face alone is never joined."""
    rng = np.random.default_rng(3)
    times = [float(t) for t in range(30)]
    talks = [(2.0, 4.0), (8.0, 10.0)]
    alone = [FaceEvidence(1, b"", times[:6]), FaceEvidence(2, b"", times[6:])]
    two = [_turn(a, b, rng) for a, b in talks]                     # random 192-d prints: cosine near 0
    out, splits = split_by_lips({0: Speaker(list(two), [t.embedding for t in two])}, alone, times, apart_below=0.75)
    assert splits == [(0, [0, 1])] and [t.start for t in out[1].turns] == [8.0]
    voice = two[0].embedding
    one = [VoiceTurn(a, b, 0, "words", voice) for a, b in talks]   # the same voice in both turns
    out, splits = split_by_lips({0: Speaker(list(one), [voice, voice])}, alone, times, apart_below=0.75)
    assert splits == [] and len(out[0].turns) == 2
    # a third speaker whose lips say face 2 is not joined with the part only a face alone on camera named
    lips2 = [FaceEvidence(1, b"", times[:6]), FaceEvidence(2, b"", times[6:], activity=_lips([(20.0, 22.0)])),
             FaceEvidence(3, b"", times[15:], activity=_lips([]))]
    three = [_turn(a, b, rng) for a, b in talks]
    other = [_turn(20.0, 22.0, rng)]
    out, splits = split_by_lips({0: Speaker(list(three), [t.embedding for t in three]),
                                 2: Speaker(other, [t.embedding for t in other])}, lips2, times, apart_below=0.75)
    assert splits == [(0, [0, 3])] and sorted(out) == [0, 2, 3], splits   # no join of 3 and 2
