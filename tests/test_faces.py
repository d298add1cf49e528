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


def _reference_clusters(dets, threshold):  # noqa: ANN001, ANN202
    """The plain average-linkage loop (every pair's mean recomputed per step): what cluster_faces must equal."""
    emb = np.stack([d.embedding for d in dets])
    emb = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    sim = emb @ emb.T
    clusters = [[i] for i in range(len(dets))]
    while len(clusters) > 1:
        best, pair = -2.0, None
        for a in range(len(clusters)):
            for b in range(a + 1, len(clusters)):
                if {dets[i].frame_index for i in clusters[a]} & {dets[i].frame_index for i in clusters[b]}:
                    continue
                s = float(sim[np.ix_(clusters[a], clusters[b])].mean())
                if s > best:
                    best, pair = s, (a, b)
        if pair is None or best < threshold:
            break
        a, b = pair
        clusters[a] += clusters.pop(b)
    return sorted(sorted(c) for c in clusters)


@pytest.mark.parametrize("seed", range(6))
def test_clustering_equals_plain_average_linkage_and_never_joins_one_frames_faces(seed):
    from m3_memory.perception.faces import FaceDetection

    rng = np.random.default_rng(seed)
    people = rng.normal(size=(4, 16))
    dets = []
    for frame in range(12):
        for p in rng.choice(4, size=int(rng.integers(1, 4)), replace=False):
            d = FaceDetection(frame, float(frame), (0, 0, 1, 1), 1.0)
            d.embedding = (people[p] + rng.normal(scale=0.6, size=16)).astype(np.float32)
            dets.append(d)
    index = {id(d): i for i, d in enumerate(dets)}
    for thr in (0.3, 0.6, 0.8):
        got = sorted(sorted(index[id(d)] for d in c.detections) for c in cluster_faces(dets, thr))
        assert got == _reference_clusters(dets, thr)
        for c in cluster_faces(dets, thr):
            assert len({d.frame_index for d in c.detections}) == len(c.detections)


def test_a_face_that_stays_put_reuses_its_embedding_for_a_few_frames_only(backend):
    frames, times, _ = grid_clip(GRID_IDS[0])
    frames, times = list(frames)[:6], list(times)[:6]
    assert len(frames) == 6
    calls = []

    class Counting:
        name, dim = backend.name, backend.dim

        def detect(self, rgb):  # noqa: ANN001, ANN202
            return backend.detect(rgb)

        def embed(self, rgb, boxes):  # noqa: ANN001, ANN202
            calls.append(len(boxes))
            return backend.embed(rgb, boxes)

    dets, _ = detect_faces(Counting(), frames, times, FaceConfig(reembed_every=3))
    assert len(dets) == 6 and sum(calls) == 2, "frames 0 and 3 embedded; the others reuse"
    assert dets[1].embedding is dets[0].embedding and dets[3].embedding is not dets[0].embedding
    calls.clear()
    every, _ = detect_faces(Counting(), frames, times, FaceConfig(reembed_every=1))
    assert sum(calls) == 6
    assert min(float(a.embedding @ b.embedding) for a, b in zip(dets, every, strict=True)) > 0.95


def test_after_a_cut_a_face_in_the_last_ones_place_is_embedded_again(backend):
    """Two people filmed alike, one shot after the other: the second person's face sits where the first one's was
    (the boxes overlap), but the picture is not the last one shifted, so nothing is reused; within a shot it is."""
    from m3_memory.perception.faces import iou

    a_frames, _, _ = grid_clip(GRID_IDS[0])
    b_frames, _, _ = grid_clip(GRID_IDS[1])
    frames = [a_frames[0], a_frames[1], b_frames[0], b_frames[1]]
    dets, _ = detect_faces(backend, frames, [0.0, 1.0, 2.0, 3.0], FaceConfig(reembed_every=3))
    assert [d.frame_index for d in dets] == [0, 1, 2, 3]
    assert iou(dets[1].bbox, dets[2].bbox) >= FaceConfig.track_iou, "the boxes overlap: IoU alone would reuse"
    assert dets[1].embedding is dets[0].embedding, "same shot: reused"
    assert dets[2].embedding is not dets[1].embedding, "after the cut: the other person's own print"
    own = backend.embed(np.ascontiguousarray(b_frames[0]), [dets[2].bbox])[0]
    assert float(np.dot(own, dets[2].embedding)) > 0.99


class _Prints:
    """A face backend that is only its thresholds (the stage's attach never calls it)."""

    name, dim, same_person_threshold, same_person_spread = "prints", 8, 0.92, 0.04


def _cluster(rng: np.random.Generator, centre: np.ndarray, spread: float, n: int = 6):  # noqa: ANN202
    from m3_memory.perception.faces import FaceCluster, FaceDetection

    embs = centre + spread * rng.normal(size=(n, len(centre)))
    return FaceCluster([FaceDetection(i, float(i), (0, 0, 50, 50), 1.0, 100.0, e / np.linalg.norm(e), b"\xff\xd8")
                        for i, e in enumerate(embs)])


def test_a_look_alike_over_the_threshold_but_far_below_the_faces_own_cohesion_gets_a_node_of_its_own(tmp_path):
    """Two people whose prints score 0.91 (over the 0.90 threshold), each tight (0.98 with itself): not one node.
    The same person a little changed (0.96 to their node) stays theirs; without the rule both would merge."""
    from m3_memory.perception.face_stage import FaceAnalysis

    rng = np.random.default_rng(0)
    b = np.eye(8)[0]
    look_alike = 0.925 * b + np.sqrt(1 - 0.925 ** 2) * np.eye(8)[1]      # about 0.91 to b, with the spread
    same_again = 0.965 * b + np.sqrt(1 - 0.965 ** 2) * np.eye(8)[2]
    store = MemoryStore(tmp_path / "m.db")
    stage = FaceStage(_Prints(), expression=None)
    nodes = []
    for k, centre in enumerate((b, look_alike, same_again)):
        cl = _cluster(rng, centre, 0.03)
        with store.begin_clip(k, 30.0 * k, 30.0 * (k + 1)) as w:
            score = float(w.entity_scores("face", cl.embeddings)[1].max()) if k else 0.0
            assert k == 0 or score >= stage.match_threshold, f"clip {k} scores {score:.3f}: over the threshold"
            nodes.append(stage.attach(w, FaceAnalysis([cl]))[0].node_id)
    assert nodes[1] != nodes[0], "the look-alike is someone else"
    assert nodes[2] == nodes[0], "the same person, a little changed, is still theirs"
    store.close()
