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


ALICE_CROP = b"\xff\xd8\xff\xe0ALICE-CROP-0001\xff\xd9"
ALICE_WAV = b"RIFF\x24\x00\x00\x00WAVEfmt ALICE-WAV-0001"


def named_store(path: Path) -> tuple[MemoryStore, dict[str, int]]:
    """Alice (face + voice, named "Alice Liddell"), Bob (face + voice) and Carol (face) in one clip.

    Alice's name is in memories about others ("thanks Alice", "waves at alice", "works with Liddell"), in Bob's
    speech turn and in Bob's voice transcript; her entities have crops, a WAV, turns and audio-visual evidence.
    """
    rng = np.random.default_rng(11)
    store = MemoryStore(path)
    ids: dict[str, int] = {}
    with store.begin_clip(0, 0.0, 30.0) as w:
        af = ids["alice_face"] = w.add_entity("face", unit(rng, 3, 128), [ALICE_CROP], "face_jpeg")
        av = ids["alice_voice"] = w.add_entity("voice", unit(rng, 2, 192), ["Good morning, I'm Alice."])
        w.update_entity(av, contents=[ALICE_WAV], content_kind="voice_wav")
        bf = ids["bob_face"] = w.add_entity("face", unit(rng, 3, 128))
        bv = ids["bob_voice"] = w.add_entity("voice", unit(rng, 2, 192), ["Thanks Alice, see you at noon."])
        cf = ids["carol_face"] = w.add_entity("face", unit(rng, 3, 128))

        def mem(key: str, text: str, kind: str = "episodic") -> int:
            nid = w.add_memory(text, kind).node_id
            assert nid is not None
            ids[key] = nid
            return nid

        mem("m_hello", f"<voice_{av}> says: Good morning, I'm Alice.")
        mem("m_named", f"<voice_{av}>'s name is Alice.", "semantic")
        mem("eq_alice", f"Equivalence: <face_{af}>, <voice_{av}>", "semantic")
        mem("eq_bob", f"Equivalence: <face_{bf}>, <voice_{bv}>", "semantic")
        mem("m_thanks", f"<voice_{bv}> says: thanks Alice, see you at noon.")
        mem("m_folder", f"<face_{bf}> hands <face_{af}> a red folder.")
        mem("m_wave", f"<face_{cf}> waves at alice by the door.")
        mem("m_budget", f"<face_{bf}> works with Liddell on the budget.")
        ids["turn_alice"] = w.add_turn("voice", av, 1.0, 3.0, "Good morning, I'm Alice.", [ids["m_hello"]])
        ids["turn_alice_face"] = w.add_turn("face", af, 0.0, 10.0, None, [ids["m_hello"], ids["m_folder"]])
        ids["turn_bob"] = w.add_turn("voice", bv, 5.0, 7.0, "Thanks Alice, see you at noon.", [ids["m_thanks"]])
        w.conn.execute("INSERT INTO av_evidence (face_id, voice_id, overlap_s) VALUES (?, ?, 2.0)", (af, av))
        w.conn.execute("INSERT INTO voice_speech (voice_id, speech_s) VALUES (?, 2.0)", (av,))
        w.set_name(av, "Alice")
    store.set_character_name(store.characters().character_of(af), "Alice Liddell")
    return store, ids
