"""Bad input gets a clear error and loses nothing."""

import numpy as np
import pytest

from m3_memory import EmbeddingError, MemoryStore, StoreError

from .store_helpers import kitchen_store, unit


def _counts(store):
    return store.stats()["nodes"], store.stats()["clips"]


def test_nan_embedding_rolls_back_the_whole_clip(db_at):
    store, _ = kitchen_store(db_at("m.db"))
    before = _counts(store)
    bad = unit(np.random.default_rng(0), 2, 128)
    bad[1, 5] = np.nan
    with pytest.raises(EmbeddingError, match="NaN"), store.begin_clip(3, 90.0, 120.0) as w:
        w.add_memory("this memory must not survive the failed clip")
        w.add_entity("face", bad)
    assert _counts(store) == before
    assert store.search_clips("this memory must not survive", threshold=0.8) == []
    with store.begin_clip(3, 90.0, 120.0) as w:  # the same clip can be written again afterwards
        w.add_memory("the retry works")
    assert store.stats()["clips"] == before[1] + 1


@pytest.mark.parametrize("start,end", [(10.0, 5.0), (float("nan"), 5.0), (0.0, float("inf"))])
def test_invalid_clip_times(db_at, start, end):
    store = MemoryStore(db_at("m.db"))
    with pytest.raises(StoreError, match="time range"), store.begin_clip(0, start, end):
        pass


def test_duplicate_clip_wrong_kinds_dims_and_empty_text(db_at):
    store, ids = kitchen_store(db_at("m.db"))
    with pytest.raises(StoreError, match="already committed"), store.begin_clip(0, 0.0, 30.0):
        pass
    rng = np.random.default_rng(0)
    with pytest.raises(StoreError), store.begin_clip(5, 150.0, 180.0) as w:
        w.add_entity("hand", unit(rng, 1, 128))
    with pytest.raises(StoreError, match="dim"), store.begin_clip(5, 150.0, 180.0) as w:
        w.match_entity("face", unit(rng, 1, 64))
    with pytest.raises(StoreError, match="empty"), store.begin_clip(5, 150.0, 180.0) as w:
        w.add_memory("   ")
    with pytest.raises(StoreError, match="episodic or semantic"), store.begin_clip(5, 150.0, 180.0) as w:
        w.add_memory("x", kind="dream")
    # a turn of a memory, or a face's turn said to be a voice's: refused (the writer cache knows each entity's kind)
    for kind, node in (("voice", ids["m_coffee"]), ("voice", ids["alice_face"]), ("face", 10**9)):
        with pytest.raises(StoreError, match=f"not a {kind} node"), store.begin_clip(5, 150.0, 180.0) as w:
            w.add_turn(kind, node, 151.0, 152.0, "hello")
    with store.begin_clip(5, 150.0, 180.0) as w:   # a right one after them: ids given by the writer
        t1 = w.add_turn("voice", ids["alice_voice"], 151.0, 152.0, "hello", [ids["m_coffee"]])
        t2 = w.add_turn("face", ids["alice_face"], 150.0, 160.0)
    assert t2 == t1 + 1 or store.engine == "postgresql"
    assert store.stats()["clips"] == 4


def test_readonly_store_refuses_writes_and_missing_file(db_at):
    kitchen_store(db_at("m.db"))[0].close()
    ro = MemoryStore(db_at("m.db"), readonly=True)
    with pytest.raises(StoreError, match="read-only"), ro.begin_clip(9, 0.0, 1.0):
        pass
    with pytest.raises(FileNotFoundError):
        MemoryStore(db_at("missing.db"), readonly=True)


def test_embedder_mismatch_is_refused(db_at):
    store, _ = kitchen_store(db_at("m.db"))
    store.close()

    class Other:
        name, dim = "other-model", 384

        def embed(self, texts):
            return unit(np.random.default_rng(0), len(texts), 384)

    other = MemoryStore(db_at("m.db"), embedder=Other())
    with pytest.raises(StoreError, match="all-MiniLM"):
        other.search_clips("anything")


def test_newer_schema_is_refused(db_at):
    store = MemoryStore(db_at("m.db"))
    store.conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    store.close()
    with pytest.raises(RuntimeError, match="newer"):
        MemoryStore(db_at("m.db"))
