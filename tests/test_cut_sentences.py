"""One person's sentence cut in two by the diarizer (m3_memory/perception/cut_sentences.py): the short piece's
speaker joins the speaker it was cut from, on the timing (two or more pieces) or with the same face alone on camera
(one piece); a pause between, a long piece, two partners or two different faces keep two people."""

from __future__ import annotations

import numpy as np

from m3_memory.perception.cut_sentences import join_cut_sentences
from m3_memory.perception.voices import Speaker, VoiceTurn
from m3_memory.writing.base import ClipEvidence, FaceEvidence


def _spk(key: int, *spans: tuple[float, float, str]) -> Speaker:
    turns = [VoiceTurn(a, b, key, text) for a, b, text in spans]
    return Speaker(turns, [np.ones(4) * (key + 1) for _ in turns])


def _view(*faces: tuple[int, float, float]) -> ClipEvidence:
    """Faces on camera (id, from, to), frames every 0.25 s over 0-30 s."""
    frames = [i * 0.25 for i in range(121)]
    ev = [FaceEvidence(f, b"", [t for t in frames if a <= t <= b]) for f, a, b in faces]
    return ClipEvidence(0, 0.0, 30.0, faces=ev, frame_times=frames)


def test_pieces_cut_from_one_persons_speech_join_them():
    # scene 574: "set blue" | "with E5 now" three times, the heads filed under a speaker of their own
    a = _spk(0, (1.65, 2.87, "with E5 now."), (8.9, 10.1, "with E5 now."), (26.76, 27.96, "the five now."),
             (12.0, 14.0, "Set blue with E5 now."))
    heads = _spk(1, (0.94, 1.65, "set blue"), (8.2, 8.9, "Set blue"), (26.06, 26.76, "set blue"))
    other = _spk(2, (4.6, 6.5, "Been read by K7 now."))
    out, joins = join_cut_sentences({0: a, 1: heads, 2: other})
    assert sorted(out) == [0, 2] and joins == [(0, [0, 1])]
    assert len(out[0].turns) == 7 and all(t.speaker == 0 for t in out[0].turns)
    assert [t.start for t in out[0].turns] == sorted(t.start for t in out[0].turns)
    assert len(out[0].embeddings) == 4                      # the pieces' prints are left out of the centroid


def test_one_piece_needs_the_same_face_alone_on_camera():
    a, head = _spk(0, (1.65, 2.87, "with E5 now.")), _spk(1, (0.94, 1.65, "set blue"))
    out, joins = join_cut_sentences({0: a, 1: head})          # timing alone: could be a quick reply
    assert sorted(out) == [0, 1] and not joins
    a, head = _spk(0, (1.65, 2.87, "with E5 now.")), _spk(1, (0.94, 1.65, "set blue"))
    out, joins = join_cut_sentences({0: a, 1: head}, _view((7, 0.0, 3.0)))
    assert sorted(out) == [0] and joins == [(0, [0, 1])]
    a, head = _spk(0, (1.65, 2.87, "with E5 now.")), _spk(1, (0.94, 1.65, "set blue"))
    out, joins = join_cut_sentences({0: a, 1: head}, _view((7, 0.0, 1.6), (8, 1.7, 3.0)))
    assert sorted(out) == [0, 1] and not joins               # a different face alone during each part


def test_a_pause_a_long_turn_or_two_partners_keep_two_people():
    a = _spk(0, (1.65, 2.87, "x"), (8.9, 10.1, "y"))
    cases = [
        _spk(1, (0.94, 1.35, "yes"), (8.2, 8.6, "right")),          # 0.3 s pauses: a reply, not a cut
        _spk(1, (0.2, 1.65, "set blue with"), (8.2, 8.9, "set")),   # one part 1.45 s long: a print of its own
    ]
    for b in cases:
        out, joins = join_cut_sentences({0: a, 1: b})
        assert sorted(out) == [0, 1] and not joins, b.turns
    c = _spk(2, (20.0, 21.0, "z"))
    b = _spk(1, (0.94, 1.65, "p"), (21.0, 21.5, "q"))                 # glued to two different speakers
    out, joins = join_cut_sentences({0: a, 1: b, 2: c})
    assert sorted(out) == [0, 1, 2] and not joins
