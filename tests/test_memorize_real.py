"""End to end without ROS: a stream of real GRID talking-face clips with recurring people -> memories."""

from __future__ import annotations

import pytest

from m3_memory import MemoryStore
from m3_memory.memorize import Memorizer
from m3_memory.perception.face_stage import FaceStage
from m3_memory.perception.faces import DlibFaceBackend
from m3_memory.perception.voice_stage import VoiceStage
from m3_memory.perception.voices import ResemblyzerEmbedder, Transcriber, VoicePipeline
from m3_memory.perception.wer import wer

from .media import grid_stream, grid_transcripts

pytestmark = pytest.mark.once   # the same numerics on every Python: .ci/run runs it on the default one only

pytest.importorskip("dlib")
pytest.importorskip("resemblyzer")


def test_grid_stream_gives_stable_ids_transcripts_and_the_right_equivalences(tmp_path):
    codes = ["bbaf2n", "brbk7n", "bbaf2n", "brbk7n", "bbaf2n", "brbk7n"]
    store = MemoryStore(tmp_path / "m.db")
    voices = VoiceStage(VoicePipeline(ResemblyzerEmbedder(), Transcriber()))
    mem = Memorizer(store, FaceStage(DlibFaceBackend()), voices, "embedded")
    results = [mem.process(c) for c in grid_stream(codes)]
    assert all(not r.errors for r in results), [r.errors for r in results]
    faces = store.entities("face")
    voices = store.entities("voice")
    assert len(faces) == 2 and len(voices) == 2, "two people -> two face nodes and two voice nodes"
    # which node is whom: the node created in clip 0 is bbaf2n's
    face_of = {"bbaf2n": min(f.id for f in faces if f.clip_id == 0),
               "brbk7n": min(f.id for f in faces if f.clip_id == 1)}
    voice_of = {"bbaf2n": min(v.id for v in voices if v.clip_id == 0),
                "brbk7n": min(v.id for v in voices if v.clip_id == 1)}
    chars = store.characters()
    for who in face_of:
        assert chars.character_of(face_of[who]) == chars.character_of(voice_of[who]), f"{who}: face == voice"
    assert chars.character_of(face_of["bbaf2n"]) != chars.character_of(face_of["brbk7n"])
    refs = grid_transcripts()
    said = {who: [m.text for m in store.search_nodes(f"<voice_{voice_of[who]}> says", topk=20)
                  if m.text.startswith(f"<voice_{voice_of[who]}> says:")] for who in voice_of}
    for who, lines in said.items():
        assert len(lines) == 3
        quoted = [line.split(":", 1)[1].strip().strip('"') for line in lines]
        # tiny.en: "Bimblue F2 now." for "bin blue at f two now" (WER 0.5), brbk7n 0.33
        assert max(wer(refs[who], q) for q in quoted) <= 0.5, quoted
    # the time bound: at 7 s only clips 0 and 1 are visible
    early = store.search_nodes("says", topk=50, before_time=6.0)
    assert early and all(m.end_time <= 6.0 for m in early)
    timings = {k for r in results for k in r.timings}
    assert {"faces", "voices", "writer", "store"} <= timings


def _pieces(codes: list[str], cut_s: float) -> list:
    """Each person's 3 s GRID clip cut at ``cut_s`` into two clips (a second or so of speech each), everyone's
    first piece, then everyone's second piece: nobody says enough in one clip to be linked."""
    from m3_memory.ingest.clips import Clip

    from .media import grid_clip

    out, k = [], 0
    for lo, hi in ((0.0, cut_s), (cut_s, 3.0)):
        for code in codes:
            frames, times, audio = grid_clip(code)
            sel = [(f, t) for f, t in zip(frames, times, strict=True) if lo <= t < hi]
            t0 = 3.0 * k
            out.append((code, Clip(k, t0, t0 + hi - lo, [f for f, _ in sel], [t0 + t - lo for _, t in sel],
                                   audio[int(lo * 16000): int(hi * 16000)].copy(), 16000, 1.0)))
            k += 1
    return out


def test_people_who_say_a_second_or_two_per_clip_are_linked_face_to_voice_from_evidence_over_clips(tmp_path):
    """Issue 11: a face=voice link for every person who speaks >= 2 s in total across clips (here ~1.8-2.2 s,
    1-1.5 s per clip), none between different people, each with a confidence."""
    from m3_memory.perception.voices import make_voice_embedder
    from m3_memory.store.corrections import links

    pytest.importorskip("kaldi_native_fbank")
    try:
        embedder = make_voice_embedder("campplus")
    except ModuleNotFoundError as e:
        pytest.skip(str(e))
    codes = ["bbaf2n", "brbk7n", "lbax4n", "lbbc2a", "sbwe5n"]
    store = MemoryStore(tmp_path / "m.db")
    mem = Memorizer(store, FaceStage(DlibFaceBackend()), VoiceStage(VoicePipeline(embedder, Transcriber())),
                    "embedded")
    first_clip: dict[str, int] = {}
    for code, clip in _pieces(codes, 1.5):
        r = mem.process(clip)
        assert not r.errors, r.errors
        first_clip.setdefault(code, clip.clip_id)
    faces = store.entities("face")
    assert len(faces) == len(codes)
    face_of = {code: next(f.id for f in faces if f.clip_id == first_clip[code]) for code in codes}
    chars = store.characters()
    spoke = dict(store.conn.execute("SELECT voice_id, speech_s FROM voice_speech"))
    for code, f in face_of.items():
        cid = chars.character_of(f)
        voices = [nid for kind, nid in chars.members[cid] if kind == "voice"]
        assert voices, f"{code}: no voice linked to face {f}"
        assert sum(spoke.get(v, 0.0) for v in voices) >= 1.5, f"{code}: the linked voices hardly spoke"
        assert all(lk.confidence is not None and lk.confidence > 0.3 for lk in links(store, cid)), code
    assert len({chars.character_of(f) for f in face_of.values()}) == len(codes), "two people were joined"


def test_speech_too_short_to_attribute_is_counted_not_dropped_silently(tmp_path):
    """Resemblyzer drops turns under 1 s (too short for its voice print): the clip says how much speech that was."""
    import json

    store = MemoryStore(tmp_path / "m.db")
    mem = Memorizer(store, None, VoiceStage(VoicePipeline(ResemblyzerEmbedder(), Transcriber())), "embedded")
    shorts = []
    for _, clip in _pieces(["bbaf2n", "brbk7n", "lbax4n"], 1.5)[3:]:   # the second pieces: under a second of speech
        r = mem.process(clip)
        assert not r.errors
        extra = json.loads(store.conn.execute("SELECT extra FROM clips WHERE id = ?", (clip.clip_id,)).fetchone()[0])
        said = [t for t in r.texts if " says: " in t]
        if r.short_speech:
            assert extra["short_speech"]["turns"] == len(r.short_speech)
            assert extra["short_speech"]["seconds"] == pytest.approx(sum(b - a for a, b in r.short_speech), abs=1e-3)
            assert all(clip.start_time <= a < b <= clip.end_time + 0.5 for a, b in r.short_speech)
        else:
            assert said, f"clip {clip.clip_id}: speech neither memorized nor counted"
        shorts += r.short_speech
    assert shorts, "these pieces hold turns under 1 s"
