"""The per-clip memorization flow around perception (scripted stages; the real ones have their own tests)."""

from __future__ import annotations

import numpy as np

from m3_memory import MemoryStore
from m3_memory.ingest.clips import Clip
from m3_memory.memorize import Memorizer
from m3_memory.writing import FaceEvidence, VoiceTurnEvidence

from .store_helpers import unit

RNG = np.random.default_rng(5)
FACE, VOICE = unit(RNG, 1, 128), unit(RNG, 1, 192)


class Faces:
    name = "scripted-faces"
    fail = False

    def analyze(self, clip):
        if self.fail:
            raise RuntimeError("detector crashed")
        return clip.frame_times

    def attach(self, graph, times):
        nid = graph.match_entity("face", FACE)[0] or graph.add_entity("face", FACE, [b"jpeg"])
        return [FaceEvidence(nid, b"jpeg", list(times))]


class Voices:
    name = "scripted-voices"

    def analyze(self, clip):
        return [(clip.start_time + 1.0, clip.start_time + 6.0, "Hello, my name is Anna.")]

    def attach(self, graph, turns, faces=None, frame_times=None):
        nid = graph.match_entity("voice", VOICE)[0] or graph.add_entity("voice", VOICE)
        return [VoiceTurnEvidence(nid, s, e, text) for s, e, text in turns]


def _clip(k: int) -> Clip:
    t0 = k * 30.0
    times = [t0 + i for i in range(10)]
    return Clip(k, t0, t0 + 30.0, frames=[np.zeros((4, 4, 3), np.uint8)] * 10, frame_times=times,
                audio=np.zeros(30 * 16000, np.float32), audio_coverage=1.0)


def test_clips_become_memories_and_restart_resumes_without_duplicates(db_at):
    store = MemoryStore(db_at("m.db"))
    m = Memorizer(store, Faces(), Voices(), "embedded")
    r0 = m.process(_clip(0))
    assert not r0.skipped and r0.errors == []
    assert '<voice_2> says: "Hello, my name is Anna."' in r0.texts
    assert "<voice_2>'s name is Anna." in r0.texts
    assert "Equivalence: <face_1>, <voice_2>" in r0.texts  # 5 s alone on camera while talking
    assert set(r0.timings) == {"faces", "voices", "writer", "store"}
    r1 = m.process(_clip(1))
    assert "Equivalence: <face_1>, <voice_2>" in r1.texts  # stated again: the existing node is reinforced
    chars = store.characters()
    assert chars.character_of(1) == chars.character_of(2)
    n = store.stats()["nodes"]
    store.close()
    # restart on the same database and stream: committed clips are skipped
    store = MemoryStore(db_at("m.db"))
    m = Memorizer(store, Faces(), Voices(), "embedded")
    assert m.process(_clip(0)).skipped and m.process(_clip(1)).skipped
    assert store.stats()["nodes"] == n
    assert not m.process(_clip(2)).skipped


def test_a_failing_perception_stage_loses_that_modality_not_the_clip(db_at):
    store = MemoryStore(db_at("m.db"))
    faces = Faces()
    faces.fail = True
    r = Memorizer(store, faces, Voices(), "embedded").process(_clip(0))
    assert r.errors == ["faces: detector crashed"]
    assert store.stats()["clips"] == 1 and store.stats()["nodes"]["face"] == 0
    assert any("says" in t for t in r.texts)
