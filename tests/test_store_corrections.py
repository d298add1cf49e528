"""People corrections: merge two characters, split a wrong link (and keep it split), the audit log, bounded media."""

from __future__ import annotations

import json

import numpy as np
import pytest

from m3_memory import MemoryStore
from m3_memory.config import StoreConfig
from m3_memory.store import StoreError
from m3_memory.store.corrections import edits, links, name_character

from .store_helpers import kitchen_store, named_store, unit


def test_merge_joins_two_characters_under_the_older_id_for_every_reader(db_at):
    store, ids = kitchen_store(db_at("m.db"))
    chars = store.characters()
    alice, bob = chars.character_of(ids["alice_face"]), chars.character_of(ids["bob_face"])
    assert alice != bob
    merged = store.merge_characters(bob, alice, origin="test")
    assert merged == min(alice, bob) == alice
    reader = MemoryStore(db_at("m.db"), readonly=True)   # another connection sees it too
    for s in (store, reader):
        c = s.characters()
        assert c.character_of(ids["bob_face"]) == c.character_of(ids["alice_face"]) == alice
        assert c.resolve_alias(bob) == alice, "the younger id stays an alias"
    # the merge is a user equivalence, visible from the time both people existed (clip 1 started at 30 s)
    link = [lk for lk in links(store, alice) if lk.source == "user"]
    assert len(link) == 1 and sorted(link[0].tags) == sorted([f"<face_{ids['alice_face']}>",
                                                              f"<face_{ids['bob_face']}>"])
    assert store.characters(before_time=29.0).character_of(ids["bob_face"]) is None
    assert store.characters(before_time=31.0).character_of(ids["bob_face"]) == alice
    assert store.translate(f"<face_{ids['bob_face']}> waters the plant") == f"<character_{alice}> waters the plant"
    log = edits(store)
    assert [(e["action"], e["character_id"], e["origin"]) for e in log] == [("merge", alice, "test")]
    assert log[0]["detail"]["characters"] == [bob, alice]
    with pytest.raises(StoreError, match="already one character"):
        store.merge_characters(alice, bob)
    with pytest.raises(StoreError, match="unknown character 999"):
        store.merge_characters(alice, 999)


def test_split_removes_a_wrong_link_and_later_memorization_does_not_join_them_again(db_at):
    store, ids = kitchen_store(db_at("m.db"))
    a, v = ids["alice_face"], ids["alice_voice"]
    alice = store.characters().character_of(a)
    assert store.characters().character_of(v) == alice
    (link,) = links(store, alice)
    assert link.memory_id == ids["eq"] and link.source == "memorization"
    after = store.split_link(link.memory_id, origin="test")
    chars = store.characters()
    assert chars.character_of(a) != chars.character_of(v) and sorted(after) == sorted(
        [chars.character_of(a), chars.character_of(v)])
    assert chars.character_of(a) == alice, "the part with the older seed keeps the id"
    assert store.get_memories([ids["eq"]]) == [], "the wrong equivalence memory is gone"
    assert store.conn.execute("SELECT entity_a, entity_b FROM entity_splits").fetchall() == [tuple(sorted((a, v)))]
    # memorization states the same equivalence again in a later clip: refused, they stay apart
    with store.begin_clip(3, 90.0, 120.0) as w:
        res = w.add_memory(f"Equivalence: <voice_{v}>, <face_{a}>", "semantic")
        other = w.add_memory(f"<face_{a}> drinks tea.", "semantic")
    assert res.action == "refused" and res.node_id is None and other.action == "inserted"
    assert store.characters().character_of(v) != store.characters().character_of(a)
    assert [e["action"] for e in edits(store)] == ["split"]
    # a merge by the user lifts the split
    store.merge_characters(store.characters().character_of(v), alice)
    assert store.conn.execute("SELECT count(*) FROM entity_splits").fetchone()[0] == 0
    assert store.characters().character_of(v) == alice
    with pytest.raises(StoreError, match="not a link"):
        store.split_link(ids["m_coffee"])


def test_split_removes_every_statement_of_the_pair_and_keeps_the_rest_of_the_character(db_at):
    store, ids = kitchen_store(db_at("m.db"))
    a, v, b = ids["alice_face"], ids["alice_voice"], ids["bob_face"]
    with store.begin_clip(3, 90.0, 120.0) as w:   # a second statement of a-v in other words, and a wrong b-v link
        again = w.add_memory(f"Equivalence: <voice_{v}>, <face_{a}>, <face_{b}>", "semantic").node_id
    alice = store.characters().character_of(a)
    assert store.characters().character_of(b) == alice
    assert {lk.memory_id for lk in links(store, alice)} == {ids["eq"], again}
    store.split_link(ids["eq"])
    chars = store.characters()
    assert store.get_memories([again]) == [], "the other statement joining a and v went too"
    assert len({chars.character_of(a), chars.character_of(v), chars.character_of(b)}) == 3


def test_name_character_logs_the_edit_without_the_name_and_forget_clears_splits(db_at):
    store, ids = named_store(db_at("m.db"))
    bob = store.characters().character_of(ids["bob_face"])
    assert name_character(store, bob, "Robert Paulson", origin="browser 127.0.0.1") == bob
    assert store.character_names()[bob] == "Robert Paulson"
    (bob_link,) = links(store, bob)
    store.split_link(bob_link.memory_id)
    store.forget_character(store.characters().character_of(ids["bob_face"]))
    # the split pair belonged to Bob: deleted with his nodes
    assert store.conn.execute("SELECT count(*) FROM entity_splits").fetchone()[0] == 0
    rows = store.conn.execute("SELECT action, detail, origin FROM edits").fetchall()
    assert [r[0] for r in rows] == ["name", "split"]
    assert not any("robert" in json.dumps(r).lower() or "paulson" in json.dumps(r).lower() for r in rows)


def test_face_crops_and_voice_samples_are_bounded_best_first(db_at):
    rng = np.random.default_rng(5)
    store = MemoryStore(db_at("m.db"), config=StoreConfig(max_face_crops=2, max_voice_snippets=1))
    with store.begin_clip(0, 0.0, 30.0) as w:
        f = w.add_entity("face", unit(rng, 3, 128), [b"\xff\xd8crop-a", b"\xff\xd8crop-b", b"\xff\xd8crop-c"],
                         "face_jpeg", scores=[0.2, 0.9, 0.5])
        v = w.add_entity("voice", unit(rng, 1, 192), ["hello there"])
        w.update_entity(v, contents=[b"RIFF-short"], content_kind="voice_wav", scores=[1.2])
    with store.begin_clip(1, 30.0, 60.0) as w:
        w.update_entity(v, contents=[b"RIFF-long"], content_kind="voice_wav", scores=[2.8])
        w.update_entity(v, contents=[b"RIFF-shorter"], content_kind="voice_wav", scores=[0.8])
    crops = [c["data"] for c in store.entity_contents(f)]
    assert sorted(crops) == [b"\xff\xd8crop-b", b"\xff\xd8crop-c"]
    wavs = [c["data"] for c in store.entity_contents(v) if c["kind"] == "voice_wav"]
    assert wavs == [b"RIFF-long"]
    assert [c["text"] for c in store.entity_contents(v) if c["kind"] == "voice_asr"] == ["hello there"]
