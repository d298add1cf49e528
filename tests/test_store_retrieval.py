"""Retrieval: clip search, node search, time bound, exclusion, character expansion."""

from .store_helpers import kitchen_store


def test_search_clips_finds_the_right_clip_and_returns_all_its_memories(db_at):
    store, ids = kitchen_store(db_at("m.db"))
    hits = store.search_clips("Where are the car keys?", topk=1, threshold=0.3)
    assert [h.clip_id for h in hits] == [2]
    assert {m.id for m in hits[0].memories} == {ids["m_plant"], ids["m_keys"]}
    best = max(hits[0].memories, key=lambda m: m.score or -1)
    assert best.id == ids["m_keys"]


def test_threshold_and_exclusion(db_at):
    store, _ = kitchen_store(db_at("m.db"))
    assert store.search_clips("Where are the car keys?", topk=2, threshold=0.99) == []
    first = store.search_clips("Where are the car keys?", topk=1, threshold=0.0)
    again = store.search_clips("Where are the car keys?", topk=1, threshold=0.0, exclude_clips=[first[0].clip_id])
    assert again and again[0].clip_id != first[0].clip_id


def test_time_bound_hides_later_memories(db_at):
    store, ids = kitchen_store(db_at("m.db"))
    assert store.search_clips("Where are the car keys?", topk=3, threshold=0.0, before_time=60.0)
    for hit in store.search_clips("Where are the car keys?", topk=3, threshold=0.0, before_time=60.0):
        assert hit.clip_id in (0, 1)
        assert all(m.end_time <= 60.0 for m in hit.memories)
    assert store.search_clips("keys", topk=3, threshold=0.0, before_time=29.0) == []
    nodes = store.search_nodes("car keys drawer", topk=10, before_time=30.0)
    assert nodes and all(m.clip_id == 0 for m in nodes)
    # the voice->face equivalence exists from clip 0 on; a bound before it sees no entities at all
    assert store.characters(before_time=-1.0).members == {}


def test_character_query_is_scoped_to_that_characters_memories(db_at):
    store, ids = kitchen_store(db_at("m.db"))
    bob = store.characters().character_of(ids["bob_face"])
    variants = store.query_variants(f"What did <character_{bob}> do?")
    assert variants == [f"What did <face_{ids['bob_face']}> do?"]
    nodes = store.search_nodes(f"What did <character_{bob}> do?", topk=10)
    assert {m.id for m in nodes} == {ids["m_folder"], ids["m_plant"], ids["m_keys"]}
    alice = store.characters().character_of(ids["alice_face"])
    # Alice's character expands to face AND voice: the memory linked only to her voice is found too
    alice_nodes = {m.id for m in store.search_nodes(f"<character_{alice}> good morning", topk=10)}
    assert ids["m_name"] in alice_nodes and ids["m_coffee"] in alice_nodes
    assert ids["m_plant"] not in alice_nodes


def test_semantic_near_duplicate_reinforces_instead_of_inserting(db_at):
    store, ids = kitchen_store(db_at("m.db"))
    a = ids["alice_face"]
    n_before = store.stats()["nodes"]["semantic"]
    with store.begin_clip(3, 90.0, 120.0) as w:
        res = w.add_memory(f"<face_{a}> likes black coffee without sugar", "semantic")
    assert res.action == "reinforced" and res.reinforced == [ids["m_likes"]]
    assert store.stats()["nodes"]["semantic"] == n_before
    w_edge = store.conn.execute("SELECT weight FROM edges WHERE text_id = ?", (ids["m_likes"],)).fetchone()[0]
    assert w_edge == 2.0
    with store.begin_clip(4, 120.0, 150.0) as w:
        res = w.add_memory(f"<face_{a}> is wearing a blue apron today", "semantic")
    assert res.action == "inserted" and res.node_id is not None


def test_searching_an_empty_store_returns_nothing(db_at):
    from m3_memory import MemoryStore

    store = MemoryStore(db_at("empty.db"))
    assert store.search_clips("anything at all", threshold=0.0) == []
    assert store.search_nodes("anything at all") == []


def test_hnsw_index_path_with_time_bound_and_deletes(db_at):
    import numpy as np

    from m3_memory import MemoryStore, StoreConfig

    cfg = StoreConfig(hnsw_min_size=50, exact_max_floats=0, exact_subset_max=0)
    store = MemoryStore(db_at("h.db"), config=cfg)
    store.declare_embedder("test-random", 32)
    rng = np.random.default_rng(3)
    vecs = rng.normal(size=(200, 32)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    ids = []
    for c in range(20):
        with store.begin_clip(c, 10.0 * c, 10.0 * c + 10) as w:
            texts = [f"m{c}-{i}" for i in range(10)]
            ids += [r.node_id for r in w.add_memories(texts, vectors=vecs[c * 10 : (c + 1) * 10])]
    index = store.index
    assert index.hnsw is not None
    for probe in (5, 77, 150):
        got, _ = index.search(vecs[probe][None, :], 5)
        assert got[0] == ids[probe]  # a stored vector finds itself
    mask = index.allowed_mask(before_time=100.0)
    got, _ = index.search(vecs[150][None, :], 5, mask)
    assert ids[150] not in got.tolist() and all(i <= ids[99] for i in got.tolist())
    index.remove([ids[77]])
    got, _ = index.search(vecs[77][None, :], 5)
    assert ids[77] not in got.tolist()
