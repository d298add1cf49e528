"""One person's sentence cut in two by the diarizer (m3_memory/perception/cut_sentences.py): the short piece's
speaker joins the speaker it was cut from, on the timing (two or more pieces) or with the same face alone on camera
(one piece); a pause between, a long piece, two partners or two different faces keep two people. Pieces filed
under a speaker who also has whole turns move to the speaker they were cut from where the speech runs on through the
cut; touching turns are transcribed as one stretch, each taking its own words."""

from __future__ import annotations

import numpy as np

from m3_memory.perception.cut_sentences import join_cut_sentences, move_cut_pieces
from m3_memory.perception.voices import Speaker, VoicePipeline, VoiceTurn, touching_runs, words_to_turns
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


def _scene_620() -> dict[int, Speaker]:
    """Fresh scene 620's first clip as the CAM++ diarizer heard it: "lay" (0.5 s) of "lay blue at x four now" filed
    three times under the voice of "set blue with e five now", who has a whole turn of their own."""
    e5 = _spk(0, (1.35, 1.85, "Lay"), (10.7, 12.6, "Set blue with E5 now."), (14.76, 15.27, "Lay"),
              (22.63, 23.14, "Lay"))
    x4 = _spk(1, (1.85, 3.35, "blue at X4 now."), (15.27, 16.69, "blue at X4 now."), (23.14, 24.57, "blue at X4 now."))
    c2 = _spk(2, (18.99, 20.85, "lay blue by c to again."), (27.43, 29.3, "Lay blue by C to again."))
    return {0: e5, 1: x4, 2: c2}


def test_pieces_under_a_speaker_with_whole_turns_move_where_the_speech_runs_on():
    out, moves = move_cut_pieces(_scene_620(), lambda t: True)
    assert moves == [(0, 1, 3)]
    assert [t.start for t in out[0].turns] == [10.7] and out[0].turns[0].speaker == 0
    assert [t.start for t in out[1].turns] == [1.35, 1.85, 14.76, 15.27, 22.63, 23.14]
    assert all(t.speaker == 1 for t in out[1].turns)
    assert [t.start for t in out[2].turns] == [18.99, 27.43]


def test_pieces_stay_at_a_pause_alone_or_against_a_face():
    out, moves = move_cut_pieces(_scene_620(), lambda t: False)      # a pause at each cut: a handover
    assert not moves and len(out[0].turns) == 4
    out, moves = move_cut_pieces(_scene_620(), lambda t: t < 10)     # one piece runs on: one is not enough
    assert not moves and len(out[0].turns) == 4
    out, moves = move_cut_pieces(_scene_620(), lambda t: t < 10, _view((7, 0.0, 4.0)))   # ... unless a face vouches
    assert moves == [(0, 1, 1)] and [t.start for t in out[0].turns] == [10.7, 14.76, 22.63]
    out, moves = move_cut_pieces(_scene_620(), lambda t: True, _view((7, 0.0, 1.8), (8, 1.9, 4.0), (7, 14.7, 15.25),
                                                                    (8, 15.3, 17.0), (7, 22.6, 23.1),
                                                                    (8, 23.2, 25.0)))
    assert not moves                                                 # a different face alone during each part


def test_touching_turns_are_one_stretch_and_words_go_to_the_turn_they_fall_in():
    turns = [VoiceTurn(1.35, 1.85, 0), VoiceTurn(1.85, 3.35, 1), VoiceTurn(3.9, 5.0, 1), VoiceTurn(5.02, 6.0, 2)]
    runs = touching_runs(turns)
    assert [[t.start for t in r] for r in runs] == [[1.35, 1.85], [3.9, 5.02]]
    words = [(0.05, 0.4, " Lay"), (0.55, 0.8, " blue"), (0.8, 1.0, " at"), (1.1, 1.9, " X4"), (1.9, 2.1, " now.")]
    assert words_to_turns(words, runs[0]) == ["Lay", "blue at X4 now."]
    assert words_to_turns([], runs[0]) == ["", ""]


class _Words:
    """A transcriber that hears a stretch as words with times (as faster-whisper's word timestamps)."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def transcribe_turn(self, wav, beam=1):  # noqa: ANN001, ANN201
        self.calls.append(len(wav))
        return "alone", "en"

    def transcribe_words(self, wav, beam=1):  # noqa: ANN001, ANN201
        self.calls.append(len(wav))
        n = len(wav) / 16000
        return [(0.1, 0.3, " Lay"), (0.6, n - 0.1, " blue at X4 now.")], "en"


def test_the_pipeline_hears_touching_turns_as_one_stretch():
    pipe = VoicePipeline.__new__(VoicePipeline)
    pipe.transcriber = _Words()
    pipe.cfg = type("C", (), {"asr_beam": 1})()
    turns = [VoiceTurn(1.35, 1.85, 0), VoiceTurn(1.85, 3.35, 1), VoiceTurn(10.0, 12.0, 0)]
    pipe._transcribe(np.zeros(16000 * 13, np.float32), turns)
    assert [t.text for t in turns] == ["Lay", "blue at X4 now.", "alone"]
    assert pipe.transcriber.calls == [int(3.35 * 16000) - int(1.35 * 16000), 2 * 16000]
