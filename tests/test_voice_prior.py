"""Face-aware voice re-identification (m3_memory/perception/voice_prior.py) on a real store."""

from __future__ import annotations

import numpy as np

from m3_memory import MemoryStore
from m3_memory.perception import voice_prior
from m3_memory.writing import FaceEvidence

from .store_helpers import unit

MATCH, SAME, SURE = 0.55, 0.45, 0.65


def _orth(rng: np.random.Generator, basis: list[np.ndarray]) -> np.ndarray:
    r = rng.normal(size=basis[0].shape[1])
    for b in basis:
        r -= (r @ b[0]) * b[0]
    return (r / np.linalg.norm(r))[None, :].astype(np.float32)


def _mix(rng: np.random.Generator, parts: list[tuple[float, np.ndarray]]) -> np.ndarray:
    """A unit vector with the given cosines to (nearly orthogonal) unit vectors."""
    rest = 1.0 - sum(c * c for c, _ in parts)
    v = sum(c * b for c, b in parts) + np.sqrt(rest) * _orth(rng, [b for _, b in parts])
    return (v / np.linalg.norm(v)).astype(np.float32)


def _person(w, rng: np.random.Generator) -> tuple[int, int, np.ndarray]:  # noqa: ANN001
    """A face and a voice node joined by an equivalence memory."""
    voice = unit(rng, 1, 192)
    f, v = w.add_entity("face", unit(rng, 1, 128)), w.add_entity("voice", voice)
    w.add_memory(f"Equivalence: <face_{f}>, <voice_{v}>", "semantic")
    return f, v, voice


def _alone(face: int, t0: float) -> tuple[list[FaceEvidence], list[float]]:
    times = [t0 + i for i in range(10)]
    return [FaceEvidence(face, b"j", times)], times


def _lip_samples() -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """(a talking mouth's, a still mouth's) activity samples over 31-35 s."""
    return ([(31.0 + 0.2 * i, 1.5 if i % 2 else 0.2) for i in range(20)],
            [(31.0 + 0.2 * i, 0.0) for i in range(20)])


def test_a_new_face_on_camera_does_not_take_a_weakly_matching_voice_of_someone_not_there(tmp_path):
    rng = np.random.default_rng(1)
    store = MemoryStore(tmp_path / "m.db")
    with store.begin_clip(0, 0.0, 30.0) as w:
        _, va, a = _person(w, rng)
    with store.begin_clip(1, 30.0, 60.0) as w:
        newface = w.add_entity("face", unit(rng, 1, 128))
        faces, times = _alone(newface, 30.0)
        x = _mix(rng, [(0.60, a)])                      # above the matching threshold, below "sure"
        turns = [(31.0, 35.0)]
        plain = voice_prior.decide(w, x, turns, [], times, MATCH, SAME, SURE)
        assert (plain.node, plain.reason) == (va, "plain")    # without the camera: the old rule's match
        d = voice_prior.decide(w, x, turns, faces, times, MATCH, SAME, SURE)
        assert (d.node, d.reason) == (None, "not the talking face's")
        sure = voice_prior.decide(w, _mix(rng, [(0.8, a)]), turns, faces, times, MATCH, SAME, SURE)
        assert sure.node == va                           # a confident match stands (someone talking off camera)
        # the voice's own face on camera as well: no reason to doubt the match
        both = faces + [FaceEvidence(store.conn.execute("SELECT min(id) FROM nodes WHERE type = 'face'")
                                     .fetchone()[0], b"j", [33.0])]
        assert voice_prior.decide(w, x, turns, both, times, MATCH, SAME, SURE).node == va


def test_the_visible_faces_own_voice_wins_a_close_call(tmp_path):
    rng = np.random.default_rng(2)
    store = MemoryStore(tmp_path / "m.db")
    with store.begin_clip(0, 0.0, 30.0) as w:
        fa, va, a = _person(w, rng)
        _, vc, c = _person(w, rng)
    with store.begin_clip(1, 30.0, 60.0) as w:
        faces, times = _alone(fa, 30.0)
        x = _mix(rng, [(0.56, a), (0.62, c)])           # c scores a little higher, a is A's own voice
        turns = [(31.0, 36.0)]
        assert voice_prior.decide(w, x, turns, [], times, MATCH, SAME, SURE).node == vc
        d = voice_prior.decide(w, x, turns, faces, times, MATCH, SAME, SURE)
        assert (d.node, d.reason) == (va, "own voice")
        far = _mix(rng, [(0.46, a), (0.75, c)])         # not a close call: the plain rule stands
        assert voice_prior.decide(w, far, turns, faces, times, MATCH, SAME, SURE).node == vc


def test_a_voice_print_of_another_width_is_a_clear_error_not_a_new_node(tmp_path):
    import pytest

    from m3_memory.store import StoreError

    rng = np.random.default_rng(3)
    store = MemoryStore(tmp_path / "m.db")
    with store.begin_clip(0, 0.0, 30.0) as w:
        f, _, _ = _person(w, rng)
        faces, times = _alone(f, 0.0)
        with pytest.raises(StoreError, match="dim 256 != stored 192"):
            voice_prior.decide(w, unit(rng, 1, 256), [(1.0, 4.0)], faces, times, MATCH, SAME, SURE)


def test_a_face_on_camera_whose_lips_are_still_does_not_keep_its_voice_for_the_talker_beside_it(tmp_path):
    rng = np.random.default_rng(3)
    store = MemoryStore(tmp_path / "m.db")
    with store.begin_clip(0, 0.0, 30.0) as w:
        fa, va, a = _person(w, rng)
    with store.begin_clip(1, 30.0, 60.0) as w:
        newface = w.add_entity("face", unit(rng, 1, 128))
        times = [30.0 + i for i in range(10)]
        talking, still = _lip_samples()
        x = _mix(rng, [(0.60, a)])                      # A's voice scores above the matching threshold
        turns = [(31.0, 35.0)]
        lips = [FaceEvidence(newface, b"j", times, activity=talking), FaceEvidence(fa, b"j", times, activity=still)]
        d = voice_prior.decide(w, x, turns, lips, times, MATCH, SAME, SURE)
        assert (d.node, d.reason) == (None, "not the talking face's")
        # the lips the other way round: A is talking, A's own voice stands
        swapped = [FaceEvidence(newface, b"j", times, activity=still), FaceEvidence(fa, b"j", times, activity=talking)]
        assert voice_prior.decide(w, x, turns, swapped, times, MATCH, SAME, SURE).node == va
        # no lip activity (motion frames off): both faces merely seen, the plain match stands
        seen_only = [FaceEvidence(newface, b"j", times), FaceEvidence(fa, b"j", times)]
        assert voice_prior.decide(w, x, turns, seen_only, times, MATCH, SAME, SURE).node == va


def test_a_talker_whose_print_drifted_toward_a_silent_neighbour_keeps_their_own_voice(tmp_path):
    """B talks beside A, whose lips are still; in a noisy room B's print scores a little closer to A's voice node
    than to B's own (far apart): B's own voice is taken, never A's; with B's own too unlike, a new node."""
    rng = np.random.default_rng(4)
    store = MemoryStore(tmp_path / "m.db")
    with store.begin_clip(0, 0.0, 30.0) as w:
        fa, va, a = _person(w, rng)
        fb, vb, b = _person(w, rng)
    with store.begin_clip(1, 30.0, 60.0) as w:
        times = [30.0 + i for i in range(10)]
        talking, still = _lip_samples()
        lips = [FaceEvidence(fa, b"j", times, activity=still), FaceEvidence(fb, b"j", times, activity=talking)]
        turns = [(31.0, 35.0)]
        drifted = _mix(rng, [(0.60, a), (0.47, b)])     # A's node best by 0.13, B's own above "same"
        assert voice_prior.decide(w, drifted, turns, [], times, MATCH, SAME, SURE).node == va
        d = voice_prior.decide(w, drifted, turns, lips, times, MATCH, SAME, SURE)
        assert (d.node, d.reason) == (vb, "own voice")
        lost = _mix(rng, [(0.60, a), (0.30, b)])        # B's own below "same": a new node, not A's
        d = voice_prior.decide(w, lost, turns, lips, times, MATCH, SAME, SURE)
        assert (d.node, d.reason) == (None, "not the talking face's")
        sure = _mix(rng, [(0.80, a), (0.47, b)])        # a sure match to A's node stands
        assert voice_prior.decide(w, sure, turns, lips, times, MATCH, SAME, SURE).node == va
