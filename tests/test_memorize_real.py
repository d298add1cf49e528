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
