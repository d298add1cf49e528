"""forget: delete a person everywhere, redact them from memories about others."""

from .store_helpers import kitchen_store


def test_forget_deletes_entities_and_their_memories_and_redacts_shared_ones(tmp_path):
    store, ids = kitchen_store(tmp_path / "m.db")
    a, v, b = ids["alice_face"], ids["alice_voice"], ids["bob_face"]
    alice = store.characters().character_of(a)
    store.set_character_name(alice, "Alice")
    report = store.forget_character(alice)
    assert sorted(report.entities) == sorted([a, v])
    assert set(report.deleted_memories) == {ids["m_coffee"], ids["m_name"], ids["eq"], ids["m_likes"]}
    assert report.redacted_memories == [ids["m_folder"]]
    # nothing of Alice is left: nodes, embeddings, contents, edges, names
    for table, col in (("nodes", "id"), ("embeddings", "node_id"), ("contents", "node_id"), ("edges", "entity_id")):
        assert store.conn.execute(f"SELECT count(*) FROM {table} WHERE {col} IN (?, ?)", (a, v)).fetchone()[0] == 0
    assert store.conn.execute("SELECT count(*) FROM character_names").fetchone()[0] == 0
    assert store.conn.execute("SELECT count(*) FROM nodes WHERE text LIKE ?", (f"%<face_{a}>%",)).fetchone()[0] == 0
    folder = store.get_memories([ids["m_folder"]])[0]
    assert folder.text == f"<face_{b}> hands <redacted> a red folder."
    # the redacted memory was re-embedded and is still found; Alice's coffee memory is not
    hits = store.search_clips("who hands over a red folder", topk=1, threshold=0.3)
    assert hits and hits[0].clip_id == 1
    assert all("coffee" not in m.text for h in store.search_clips("coffee", topk=3, threshold=0.0)
               for m in h.memories)
    assert alice not in store.characters().members
    assert store.characters().character_of(b) is not None
