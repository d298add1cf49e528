"""Faces on real GRID talking-face clips with the embedded dlib backend."""

from __future__ import annotations

import numpy as np
import pytest

from m3_memory import MemoryStore
from m3_memory.perception.face_stage import FaceStage
from m3_memory.perception.faces import DlibFaceBackend, FaceConfig, cluster_faces, detect_faces

from .media import GRID_IDS, grid_clip, grid_stream

pytest.importorskip("dlib")


@pytest.fixture(scope="module")
def backend() -> DlibFaceBackend:
    return DlibFaceBackend()


def test_one_face_per_frame_and_identity_separation(backend):
    embs = {}
    for code in GRID_IDS:
        frames, times, _ = grid_clip(code)
        dets, bad = detect_faces(backend, list(frames), list(times), FaceConfig())
        assert bad == 0
        assert len(dets) == len(frames), f"{code}: expected one face in each sampled frame"
        assert {d.frame_index for d in dets} == set(range(len(frames)))
        assert all(d.crop_jpeg[:2] == b"\xff\xd8" and d.embedding.shape == (128,) for d in dets)
        embs[code] = np.stack([d.embedding for d in dets])
    thr = backend.same_person_threshold
    for a in GRID_IDS:
        assert float((embs[a] @ embs[a].T).min()) > thr, f"{a}: frames of one person must cluster"
        for b in GRID_IDS:
            if a < b:
                assert float((embs[a] @ embs[b].T).mean()) < thr - 0.02, f"{a} vs {b} must stay apart"
    dets = []
    for i, code in enumerate(GRID_IDS[:3]):
        frames, times, _ = grid_clip(code)
        for d in detect_faces(backend, list(frames), list(times), FaceConfig())[0]:
            d.frame_index += 100 * i
            dets.append(d)
    assert len(cluster_faces(dets, thr)) == 3


def test_recurring_person_keeps_one_node_across_clips(backend, tmp_path):
    store = MemoryStore(tmp_path / "m.db")
    stage = FaceStage(backend)
    nodes = []
    for clip in grid_stream(["bbaf2n", "brbk7n", "bbaf2n", "lbax4n", "brbk7n"]):
        an = stage.analyze(clip)
        with store.begin_clip(clip.clip_id, clip.start_time, clip.end_time) as w:
            ev = stage.attach(w, an)
        assert len(ev) == 1 and ev[0].times == clip.frame_times
        nodes.append(ev[0].node_id)
    assert nodes[0] == nodes[2] and nodes[1] == nodes[4]
    assert len({nodes[0], nodes[1], nodes[3]}) == 3
    assert len(store.entities("face")) == 3
    crops = store.entity_contents(nodes[0])
    assert 1 <= len(crops) <= store.config.max_contents_per_entity and crops[0]["data"][:2] == b"\xff\xd8"


def test_bad_frames_are_skipped_and_counted(backend):
    frames, times, _ = grid_clip("bbaf2n")
    junk = [np.zeros((0, 0, 3), np.uint8), np.zeros((10, 10), np.uint8), "not an image",
            np.zeros((20, 20, 3), np.float32), frames[0]]
    dets, bad = detect_faces(backend, junk, [0.0, 0.5, 1.0, 1.5, 2.0], FaceConfig())
    assert bad == 4 and len(dets) == 1 and dets[0].frame_index == 4
