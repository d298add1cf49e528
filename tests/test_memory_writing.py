"""Memory writing: output parsing, the trained request layout, the embedded writer, an OpenAI endpoint."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest

from m3_memory import MemoryStore
from m3_memory.writing import ClipEvidence, FaceEvidence, MemoryParseError, VoiceTurnEvidence, parse_memory_output
from m3_memory.writing.embedded import EmbeddedWriter
from m3_memory.writing.openai_writer import OpenAIMemoryWriter
from m3_memory.writing.protocol_text import MEMORY_PROMPT_SFT
from m3_memory.writing.request import qwen_omni_content

from .store_helpers import near, unit


@pytest.mark.parametrize("reply", [
    '{"video_descriptions": ["<face_1> sits."], "high_level_conclusions": ["Equivalence: <face_1>, <voice_2>"]}',
    '```json\n{"video_description": ["<face_1> sits."], '
    '"high_level_conclusions": ["Equivalence: <face_1>, <voice_2>"]}\n```',
    '<think>let me see {"video_descriptions": ["wrong"]}</think>Here: {"video_descriptions": ["<face_1> sits."], '
    '"high_level_conclusions": ["Equivalence: <face_1>, <voice_2>"]} done',
])
def test_parse_accepts_both_key_spellings_fences_and_think(reply):
    assert parse_memory_output(reply) == (["<face_1> sits."], ["Equivalence: <face_1>, <voice_2>"])


@pytest.mark.parametrize("reply", ["", "I cannot help with that.", '{"foo": 1}', "[1, 2]", '{"video_descriptions": '])
def test_parse_rejects_garbage(reply):
    with pytest.raises(MemoryParseError):
        parse_memory_output(reply)


def test_parse_drops_non_strings_and_trims():
    ep, se = parse_memory_output('{"video_descriptions": ["  a   b ", 3, null, ""], "high_level_conclusions": "c"}')
    assert ep == ["a b"] and se == ["c"]


def _evidence(faces=True) -> ClipEvidence:
    ev = ClipEvidence(clip_id=2, start_time=60.0, end_time=90.0, video_path="/clips/2.mp4",
                      frame_times=[60.0, 65.0, 70.0, 75.0])
    if faces:
        ev.faces = [FaceEvidence(3, b"\xff\xd8jpeg", [60.0, 65.0])]
    ev.voices = [VoiceTurnEvidence(7, 61.0, 64.4, "hello there"), VoiceTurnEvidence(7, 125.0, 126.0, "late")]
    return ev


def test_request_layout_matches_the_trained_format():
    parts = qwen_omni_content(_evidence())
    assert parts[0] == {"type": "text", "text": MEMORY_PROMPT_SFT}
    assert parts[1] == {"type": "video", "video": "/clips/2.mp4"}
    assert [p.get("text") for p in parts[2:4]] == ["Face features:", "<face_3>:"]
    assert parts[4]["image"].startswith("data:image;base64,")
    assert parts[5] == {"type": "text", "text": "Voice features:"}
    assert json.loads(parts[6]["text"]) == {"<voice_7>": [
        {"start_time": "00:01", "end_time": "00:04", "asr": "hello there"},
        {"start_time": "01:05", "end_time": "01:06", "asr": "late"}]}
    no_faces = qwen_omni_content(_evidence(faces=False))
    assert [p.get("text") for p in no_faces[2:4]] == ["Face features:", "Voice features:"]
    assert "Equivalence: <face_1>, <voice_2>" in MEMORY_PROMPT_SFT and "\t" in MEMORY_PROMPT_SFT


def test_embedded_writer_says_only_what_was_observed():
    ev = ClipEvidence(clip_id=0, start_time=0.0, end_time=30.0, frame_times=[0.0, 1.0, 2.0, 3.0])
    ev.faces = [FaceEvidence(1, b"j", [0.0, 1.0, 2.0]), FaceEvidence(2, b"j", [2.0, 3.0])]
    ev.voices = [VoiceTurnEvidence(5, 0.0, 1.5, "Hi, my name is Anna and I'm fine."),
                 VoiceTurnEvidence(6, 3.0, 3.5, "")]
    out = EmbeddedWriter().write(ev)
    assert out.episodic == ["<face_1> appears in the scene.", "<face_2> appears in the scene.",
                            "<face_1> and <face_2> are in the scene at the same time.",
                            '<voice_5> says: "Hi, my name is Anna and I\'m fine."']
    assert out.semantic == ["<voice_5>'s name is Anna."]


def test_embedded_equivalence_accumulates_across_clips_in_the_store(db_at):
    rng = np.random.default_rng(3)
    store = MemoryStore(db_at("m.db"))
    writer = EmbeddedWriter(min_overlap_s=4.0)
    face_vec, voice_vec, other_face = unit(rng, 1, 128), unit(rng, 1, 192), unit(rng, 1, 128)
    said = []
    for clip in range(3):
        t0 = clip * 30.0
        with store.begin_clip(clip, t0, t0 + 30.0) as w:
            f = w.match_entity("face", face_vec)[0] or w.add_entity("face", face_vec)
            v = w.match_entity("voice", voice_vec)[0] or w.add_entity("voice", voice_vec)
            g = w.match_entity("face", other_face)[0] or w.add_entity("face", other_face)
            times = [t0 + i for i in range(30)]
            # face f alone on camera for the first 10 s while voice v talks (3 s per clip); g appears later
            ev = ClipEvidence(clip, t0, t0 + 30.0, frame_times=times,
                              faces=[FaceEvidence(f, b"j", times[:10]), FaceEvidence(g, b"j", times[20:])],
                              voices=[VoiceTurnEvidence(v, t0 + 2.0, t0 + 5.0, "talking")])
            out = writer.write(ev, graph=w)
            w.add_memories(out.episodic, "episodic")
            if out.semantic:
                w.add_memories(out.semantic, "semantic")
            said.append(out.semantic)
    assert said[0] == []  # 3 s of evidence is not enough
    assert said[1] == said[2] == [f"Equivalence: <face_{f}>, <voice_{v}>"]
    chars = store.characters()
    assert chars.character_of(f) == chars.character_of(v) != chars.character_of(g)
    # the repeated statement reinforced the first one instead of adding a node
    assert store.stats()["equivalences"] == 1


def _talk(store, writer, clip, face_vec, voice_vec, speech_s, new_voice=False):
    """One 30 s clip: the face alone on camera for 10 s while the voice speaks ``speech_s`` seconds; returns
    (face id, voice id, the equivalences written)."""
    t0 = clip * 30.0
    with store.begin_clip(clip, t0, t0 + 30.0) as w:
        f = w.match_entity("face", face_vec)[0] or w.add_entity("face", face_vec)
        v = (None if new_voice else w.match_entity("voice", voice_vec)[0]) or w.add_entity("voice", voice_vec)
        times = [t0 + i for i in range(30)]
        ev = ClipEvidence(clip, t0, t0 + 30.0, frame_times=times, faces=[FaceEvidence(f, b"j", times[:10])],
                          voices=[VoiceTurnEvidence(v, t0 + 2.0, t0 + 2.0 + speech_s, "yes")])
        out = writer.write(ev, graph=w)
        w.add_memories(out.episodic, "episodic")
        for text in out.semantic:
            w.add_memory(text, "semantic")
    return f, v, [t for t in out.semantic if t.startswith("Equivalence")]


def test_a_short_speaker_filed_under_two_voice_nodes_is_linked_once_the_pooled_evidence_is_enough(db_at):
    from m3_memory.store.corrections import links

    rng = np.random.default_rng(5)
    store = MemoryStore(db_at("m.db"))
    writer = EmbeddedWriter()                       # min_overlap_s 1.5
    face, voice = unit(rng, 1, 128), unit(rng, 1, 192)
    f, v1, said0 = _talk(store, writer, 0, face, voice, 1.0)
    assert said0 == []                              # 1 s of evidence is not enough
    # the same person's next 1 s turn did not match their voice node (a short turn is a weak voice print)
    f2, v2, said1 = _talk(store, writer, 1, face, near(voice, rng, 0.04), 1.0, new_voice=True)
    assert f2 == f and v2 != v1
    assert sorted(said1) == [f"Equivalence: <face_{f}>, <voice_{v1}>", f"Equivalence: <face_{f}>, <voice_{v2}>"]
    chars = store.characters()
    cid = chars.character_of(f)
    assert chars.character_of(v1) == chars.character_of(v2) == cid
    found = links(store, cid)
    assert len(found) == 2 and all(0 < lk.confidence <= 1 and lk.evidence_clips == 1 for lk in found)
    assert {lk.evidence_s for lk in found} == {1.0}


def test_voices_that_do_not_sound_alike_are_not_pooled(db_at):
    rng = np.random.default_rng(6)
    store = MemoryStore(db_at("m.db"))
    writer = EmbeddedWriter()
    face = unit(rng, 1, 128)
    f, v1, said0 = _talk(store, writer, 0, face, unit(rng, 1, 192), 1.0)
    _, v2, said1 = _talk(store, writer, 1, face, unit(rng, 1, 192), 1.0, new_voice=True)   # someone else
    assert v2 != v1 and said0 == said1 == []     # 1 s + 1 s, but not one person's: nothing is linked
    chars = store.characters()
    assert len({chars.character_of(f), chars.character_of(v1), chars.character_of(v2)}) == 3


def test_confidence_grows_with_evidence_and_an_off_camera_voice_is_not_linked(db_at):
    from m3_memory.store.corrections import links

    rng = np.random.default_rng(7)
    store = MemoryStore(db_at("m.db"))
    writer = EmbeddedWriter()
    face, voice, other = unit(rng, 1, 128), unit(rng, 1, 192), unit(rng, 1, 192)
    f, v, said = _talk(store, writer, 0, face, voice, 1.6)
    assert said == [f"Equivalence: <face_{f}>, <voice_{v}>"]
    first = links(store, store.characters().character_of(f))[0].confidence
    _talk(store, writer, 1, face, voice, 1.6)
    again = links(store, store.characters().character_of(f))[0]
    assert again.confidence > first and again.evidence_clips == 2
    # someone off camera talks while only this face is on camera: the face already has its own voice
    _, w_id, said = _talk(store, writer, 2, face, other, 2.0, new_voice=True)
    assert said == []
    chars = store.characters()
    assert chars.character_of(w_id) != chars.character_of(f)


class _Chat(BaseHTTPRequestHandler):
    replies: list[str] = []
    bodies: list[dict] = []

    def do_POST(self):  # noqa: N802
        type(self).bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        text = type(self).replies.pop(0)
        out = json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *a):
        pass


def test_openai_writer_retries_unparseable_output():
    server = HTTPServer(("127.0.0.1", 0), _Chat)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        _Chat.replies = ["Sure! Here are the memories.", '{"video_descriptions": ["<face_3> waves."], '
                         '"high_level_conclusions": []}']
        ev = _evidence()
        ev.frames = [np.zeros((48, 64, 3), np.uint8)] * 20
        w = OpenAIMemoryWriter(f"http://127.0.0.1:{server.server_port}/v1", "qwen-omni", max_frames=4)
        out = w.write(ev)
        assert out.episodic == ["<face_3> waves."] and out.attempts == 2 and len(out.errors) == 1
        content = _Chat.bodies[-1]["messages"][1]["content"]
        assert content[0]["text"] == MEMORY_PROMPT_SFT
        assert sum(p["type"] == "image_url" for p in content) == 4 + 1  # 4 sampled frames + 1 face crop
    finally:
        server.shutdown()


def test_speech_under_someone_else_is_no_face_voice_evidence(db_at):
    """An overlapped turn (overlap-aware diarization: a talker under someone else) is heard, but the face alone on
    camera is most likely the other talker's: it earns no face=voice credit, however long."""
    rng = np.random.default_rng(11)
    store = MemoryStore(db_at("m.db"))
    writer = EmbeddedWriter(min_overlap_s=4.0)
    face_vec, voice_vec = unit(rng, 1, 128), unit(rng, 1, 192)
    for clip in range(3):
        t0 = clip * 30.0
        with store.begin_clip(clip, t0, t0 + 30.0) as w:
            f = w.match_entity("face", face_vec)[0] or w.add_entity("face", face_vec)
            v = w.match_entity("voice", voice_vec)[0] or w.add_entity("voice", voice_vec)
            times = [t0 + i for i in range(30)]
            ev = ClipEvidence(clip, t0, t0 + 30.0, frame_times=times, faces=[FaceEvidence(f, b"j", times[:10])],
                              voices=[VoiceTurnEvidence(v, t0 + 1.0, t0 + 9.0, "", overlapped=True)])
            out = writer.write(ev, graph=w)
            assert not any(t.startswith("Equivalence") for t in out.semantic)
            assert not out.episodic or all("says" not in t for t in out.episodic)
    credit = store.conn.execute("SELECT COALESCE(SUM(overlap_s), 0) FROM av_evidence").fetchone()[0]
    heard = store.conn.execute("SELECT speech_s FROM voice_speech WHERE voice_id = ?", (v,)).fetchone()[0]
    assert credit == 0.0
    assert heard == pytest.approx(24.0)
