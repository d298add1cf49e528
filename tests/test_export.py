"""JSON export: counts, weights, characters, translations, optional vectors and blobs."""

from __future__ import annotations

import base64
import io
import json

import numpy as np

from m3_memory import MemoryStore
from m3_memory.store.export import build_export, export_json
from m3_memory.upstream import import_videograph

from .fixtures_upstream import build_upstream_pickle
from .store_helpers import kitchen_store, unit


def test_export_matches_the_store(db_at, tmp_path):
    store, ids = kitchen_store(db_at("m.db"))
    a, v, b = ids["alice_face"], ids["alice_voice"], ids["bob_face"]
    with store.transaction():
        store._edge_delta(ids["m_likes"], +1.0)  # a reinforced semantic memory: weight 2
    with store.begin_clip(3, 90.0, 120.0) as w:  # a binary content (WAV bytes) on Alice's voice
        w.update_entity(v, contents=[b"RIFF\x00\x01wav"], content_kind="voice_wav")
    chars = store.characters()
    ca, cb = chars.character_of(a), chars.character_of(b)
    store.set_character_name(ca, "Alice")

    counts = export_json(store, tmp_path / "out" / "m.json")
    doc = json.loads((tmp_path / "out" / "m.json").read_text())
    stats = store.stats()
    assert counts == {"clips": 4, "nodes": sum(stats["nodes"].values()), "edges": stats["edges"],
                      "characters": stats["characters"], "contents": 2}
    assert doc["format"] == "m3-memory-export" and doc["meta"]["embedder_name"] == store.meta("embedder_name")
    assert [c["id"] for c in doc["clips"]] == [0, 1, 2, 3] and doc["clips"][1]["start_time"] == 30.0

    nodes = {n["id"]: n for n in doc["nodes"]}
    assert {e["text_id"]: e["weight"] for e in doc["edges"] if e["text_id"] == ids["m_likes"]} == {ids["m_likes"]: 2.0}
    assert nodes[ids["m_likes"]]["weight"] == 2.0
    folder = nodes[ids["m_folder"]]
    assert folder["text"] == f"<face_{b}> hands <face_{a}> a red folder."
    assert folder["translated"] == f"<character_{cb}> hands <character_{ca}> a red folder."
    assert folder["translated"] == store.translate(folder["text"])
    assert folder["entities"] == sorted([a, b]) and set(folder["character_ids"]) == {ca, cb}
    assert nodes[ids["eq"]]["is_equivalence"] is True and nodes[ids["eq"]]["translated"] == ""
    assert nodes[v]["character_id"] == nodes[a]["character_id"] == ca and nodes[v]["n_embeddings"] == 1
    assert "vectors" not in nodes[a]

    by_id = {c["id"]: c for c in doc["characters"]}
    assert by_id[ca]["members"] == [f"<face_{a}>", f"<voice_{v}>"] and by_id[ca]["name"] == "Alice"
    assert by_id[cb]["name"] is None
    # Alice: coffee, name, folder, likes (the equivalence is not counted); Bob: folder, plant, keys
    assert (by_id[ca]["n_memories"], by_id[cb]["n_memories"]) == (4, 3)

    contents = [c for c in doc["contents"] if c["node_id"] == v]
    assert [(c["kind"], c["text"], c["data_bytes"]) for c in contents] == [
        ("voice_asr", "Good morning, I'm Alice.", None), ("voice_wav", None, 9)]
    assert all("data_base64" not in c for c in contents)


def test_vectors_and_blobs_on_request(db_at):
    store, ids = kitchen_store(db_at("m.db"))
    rng = np.random.default_rng(3)
    with store.begin_clip(3, 90.0, 120.0) as w:
        w.update_entity(ids["alice_voice"], unit(rng, 1, 192), [b"\x00\x01binary"], content_kind="voice_wav")
    buf = io.StringIO()
    export_json(store, buf, include_vectors=True, include_blobs=True)
    doc = json.loads(buf.getvalue())
    nodes = {n["id"]: n for n in doc["nodes"]}
    np.testing.assert_allclose(np.array(nodes[ids["alice_face"]]["vectors"]),
                               store.entity_embeddings(ids["alice_face"]), atol=1e-7)
    assert len(nodes[ids["alice_voice"]]["vectors"]) == nodes[ids["alice_voice"]]["n_embeddings"] == 2
    text_vec = nodes[ids["m_keys"]]["vectors"]
    assert len(text_vec) == 1 and len(text_vec[0]) == store.embedder.dim
    blob = [c for c in doc["contents"] if c["kind"] == "voice_wav"][0]
    assert base64.b64decode(blob["data_base64"]) == b"\x00\x01binary"


def test_export_of_an_imported_upstream_graph(db_at, tmp_path):
    build_upstream_pickle(tmp_path / "g.pkl")
    store = MemoryStore(db_at("m.db"))
    import_videograph(tmp_path / "g.pkl", store)
    doc = build_export(store)
    assert len(doc["nodes"]) == 18 and len(doc["edges"]) == 14 and len(doc["clips"]) == 4
    edges = {(e["text_id"], e["entity_id"]): e["weight"] for e in doc["edges"]}
    assert edges[(5, 1)] == edges[(5, 0)] == 3.0 and edges[(6, 1)] == 2.0
    nodes = {n["id"]: n for n in doc["nodes"]}
    assert nodes[12]["translated"] == "<character_2> asks where the car keys are."
    assert nodes[2]["character_id"] == nodes[10]["character_id"] == 2
    faces = [c for c in doc["contents"] if c["node_id"] == 1]
    assert [c["kind"] for c in faces] == ["face_jpeg_b64"] * 3
    assert base64.b64decode(faces[0]["text"]).startswith(b"\xff\xd8")
    assert json.loads(doc["meta"]["upstream_imports"])[0]["upstream_next_node_id"] == 18
