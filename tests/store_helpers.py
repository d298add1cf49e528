"""Helpers for store tests: deterministic random entity embeddings and a small filled store."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from m3_memory import MemoryStore


def unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    v = rng.normal(size=(n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def near(base: np.ndarray, rng: np.random.Generator, noise: float = 0.05) -> np.ndarray:
    v = base + noise * rng.normal(size=base.shape).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def kitchen_store(path: Path) -> tuple[MemoryStore, dict[str, int]]:
    """Two people (Alice: face+voice, Bob: face) across three 30 s clips, with an equivalence."""
    rng = np.random.default_rng(7)
    store = MemoryStore(path)
    ids: dict[str, int] = {}
    with store.begin_clip(0, 0.0, 30.0) as w:
        ids["alice_face"] = w.add_entity("face", unit(rng, 3, 128))
        ids["alice_voice"] = w.add_entity("voice", unit(rng, 1, 192), ["Good morning, I'm Alice."])
        a, v = ids["alice_face"], ids["alice_voice"]
        ids["m_coffee"] = w.add_memory(f"<face_{a}> pours a cup of coffee in the kitchen.").node_id
        ids["m_name"] = w.add_memory(f"<voice_{v}> says: Good morning, I'm Alice.").node_id
        ids["eq"] = w.add_memory(f"Equivalence: <face_{a}>, <voice_{v}>", "semantic").node_id
    with store.begin_clip(1, 30.0, 60.0) as w:
        ids["bob_face"] = w.add_entity("face", unit(rng, 3, 128))
        b = ids["bob_face"]
        ids["m_folder"] = w.add_memory(f"<face_{b}> hands <face_{a}> a red folder.").node_id
        ids["m_likes"] = w.add_memory(f"<face_{a}> likes black coffee without sugar.", "semantic").node_id
    with store.begin_clip(2, 60.0, 90.0) as w:
        ids["m_plant"] = w.add_memory(f"<face_{b}> waters the plant by the window.").node_id
        ids["m_keys"] = w.add_memory(f"<face_{b}> puts the car keys in the top drawer.").node_id
    return store, ids
