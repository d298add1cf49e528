"""The writer's in-memory caches decide exactly as the SQL they replace (semantic reinforce/weaken, entity matching),
through foreign writes, a rolled-back clip, explicit node ids and a forget."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from m3_memory import MemoryStore, StoreError

from .store_helpers import near, unit

DIM = 24


def _expected(conn: sqlite3.Connection, ents: list[int], vec: np.ndarray, thr: float = 0.85, weak: float = 0.0
              ) -> tuple[list[int], list[int]]:
    """The reinforce/weaken decision as the store made it before the writer cache (one SQL join per insert)."""
    cands = conn.execute(
        "SELECT n.id, v.vector FROM edges e JOIN nodes n ON n.id = e.text_id JOIN embeddings v ON "
        "v.node_id = n.id WHERE e.entity_id = ? AND n.type = 'semantic' ORDER BY n.id", (ents[0],)).fetchall()
    if cands and len(ents) > 1:
        marks = ",".join("?" * len(ents))
        full = {r[0] for r in conn.execute(
            f"SELECT text_id FROM edges WHERE entity_id IN ({marks}) GROUP BY text_id "
            f"HAVING count(DISTINCT entity_id) = ?", (*ents, len(ents)))}
        cands = [r for r in cands if r[0] in full]
    reinforced, weakened = [], []
    for cid, blob in cands:
        s = float(np.frombuffer(blob, dtype=np.float32) @ vec)
        if s > thr:
            reinforced.append(cid)
        elif s < weak:
            weakened.append(cid)
    return reinforced, weakened


def _expected_match(conn: sqlite3.Connection, kind: str, embs: np.ndarray) -> tuple[int | None, float]:
    rows = conn.execute("SELECT e.node_id, e.vector FROM embeddings e JOIN nodes n ON n.id = e.node_id "
                        "WHERE n.type = ? ORDER BY e.node_id, e.id", (kind,)).fetchall()
    ids = np.array([r[0] for r in rows])
    mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    sims = (mat @ embs.T).mean(axis=1)
    uniq, inv = np.unique(ids, return_inverse=True)
    per_node = np.bincount(inv, weights=sims) / np.bincount(inv)
    best = int(np.argmax(per_node))
    return int(uniq[best]), float(per_node[best])


def test_semantic_dedupe_and_entity_matching_decide_as_the_sql_they_replace(db_at):
    rng = np.random.default_rng(5)
    db = db_at("m.db")
    store = MemoryStore(db)
    store.declare_embedder("test-random", DIM)
    faces: list[int] = []
    facts: list[tuple[list[int], np.ndarray]] = []
    checked = {"reinforced": 0, "weakened": 0, "inserted": 0, "matched": 0}
    base = unit(rng, 1, DIM)[0]
    for c in range(60):
        with store.begin_clip(c, 30.0 * c, 30.0 * c + 30) as w:
            if c < 6:
                faces.append(w.add_entity("face", unit(rng, 2, 16)))
            elif c % 3 == 0:  # perception's question: which face is this? (then the node gets the new embedding)
                probe = unit(rng, 2, 16)
                want = _expected_match(store.conn, "face", probe)
                got = w.match_entity("face", probe, threshold=-1.0)
                assert got[0] == want[0] and got[1] == pytest.approx(want[1], abs=1e-6)
                w.update_entity(want[0], probe)
                checked["matched"] += 1
            for i in range(4):
                who = [faces[int(rng.integers(len(faces)))]]
                if i == 3:
                    who = list(dict.fromkeys([*who, faces[int(rng.integers(len(faces)))]]))
                if facts and rng.random() < 0.4:  # a re-statement of a known fact about the same people
                    who, old = facts[int(rng.integers(len(facts)))]
                    vec = old + 0.15 * rng.normal(size=DIM).astype(np.float32)
                else:
                    vec = 0.4 * base + rng.normal(size=DIM).astype(np.float32) / np.sqrt(DIM)
                vec = (vec / np.linalg.norm(vec)).astype(np.float32)
                text = f"clip {c} fact {i}: " + " and ".join(f"<face_{f}>" for f in who)
                want_r, want_w = _expected(store.conn, who, vec)
                res = w.add_memory(text, "semantic", vector=vec)
                assert (res.reinforced, res.weakened) == (want_r, want_w)
                checked[res.action] += 1
                checked["weakened"] += len(res.weakened)
                if res.action == "inserted":
                    facts.append((who, vec))
        if c == 20:  # another connection writes a fact about a face (logged): the cache must not miss it
            other = MemoryStore(db)   # another writer (its own connection), on either engine
            with other.transaction() as conn:
                vec = facts[0][1]
                cur = conn.execute("INSERT INTO nodes (type, clip_id, start_time, end_time, text) VALUES "
                                    "('semantic', 999, 0, 1, 'foreign')")
                conn.execute("INSERT INTO embeddings (node_id, clip_id, vector) VALUES (?, 999, ?)",
                              (cur.lastrowid, vec.tobytes()))
                conn.execute("INSERT INTO edges (text_id, entity_id, weight) VALUES (?, ?, 1)",
                              (cur.lastrowid, facts[0][0][0]))
                conn.execute("INSERT INTO changes (node_id, op) VALUES (?, 'add')", (cur.lastrowid,))
            other.close()
        if c == 30:  # a clip that fails after its semantic inserts rolls back: the cache must forget them too
            with pytest.raises(RuntimeError), store.begin_clip(1000, 0.0, 1.0) as w:
                who, vec = facts[1]
                w.add_memory("doomed: " + " and ".join(f"<face_{f}>" for f in who), "semantic",
                             vector=-vec)  # weakens (and deletes the edge of) every fact it is opposite to
                w.add_entity("face", unit(rng, 1, 16))
                raise RuntimeError("perception failed")
        if c == 40:  # explicit node ids (as an import gives), the second one below the first
            with store.begin_clip(2000, 0.0, 1.0) as w:
                for nid in (10_000_000, 5_000_000):
                    who = [faces[0]]
                    vec = unit(rng, 1, DIM)[0]
                    want_r, want_w = _expected(store.conn, who, vec)
                    res = w.add_memories([f"explicit id {nid} <face_{who[0]}>"], "semantic", vectors=vec[None, :],
                                         node_ids=[nid])[0]
                    assert (res.reinforced, res.weakened) == (want_r, want_w)
                    checked[res.action] += 1
                    facts.append((who, vec))
    assert min(checked.values()) > 0, checked  # every path was exercised
    assert store.stats()["nodes"]["semantic"] == checked["inserted"] + 1  # + the foreign one
    store.close()


def test_batched_episodic_inserts_match_one_by_one(db_at):
    rng = np.random.default_rng(2)
    a, b = MemoryStore(db_at("a.db")), MemoryStore(db_at("b.db"))
    vecs = unit(rng, 9, DIM)
    for s in (a, b):
        s.declare_embedder("test-random", DIM)
        with s.begin_clip(0, 0.0, 30.0) as w:
            f = w.add_entity("face", unit(np.random.default_rng(1), 1, 16))
            texts = [f"memory {i} <face_{f}>" if i % 2 else f"memory {i} <voice_{f}>" for i in range(9)]
            if s is a:
                w.add_memories(texts, vectors=vecs)
            else:
                for t, v in zip(texts, vecs, strict=True):
                    w.add_memory(t, vector=v)
    q = "SELECT id, type, clip_id, text, is_equivalence FROM nodes ORDER BY id"
    assert a.conn.execute(q).fetchall() == b.conn.execute(q).fetchall()
    for q in ("SELECT * FROM edges ORDER BY text_id, entity_id", "SELECT seq, node_id, op FROM changes ORDER BY seq",
              "SELECT node_id, clip_id, vector FROM embeddings ORDER BY id"):
        assert a.conn.execute(q).fetchall() == b.conn.execute(q).fetchall()
    with pytest.raises(StoreError), a.begin_clip(1, 30.0, 60.0) as w:
        w.add_memories(["ok", ""], vectors=vecs[:2])


def test_two_robots_writing_in_turn_follow_each_others_changes_instead_of_reloading(db_at):
    """Two writers (robots) alternate clips about the same people: each writer's caches follow the other's new
    faces, new embeddings and new, reinforced and weakened-away semantic memories from the change log, so every
    decision equals the one a fresh read of the database gives, and the caches are not reloaded at every clip."""
    rng = np.random.default_rng(4)
    robots = [MemoryStore(db_at("m.db"), robot=name) for name in ("robot1", "robot2")]
    robots[0].declare_embedder("test-random", DIM)
    with robots[0].begin_clip(0, 0.0, 30.0) as w:
        faces = [w.add_entity("face", unit(rng, 2, 16)) for _ in range(3)]
    base = unit(rng, 1, DIM)[0]
    facts: list[tuple[int, np.ndarray]] = []
    followed = 0
    for c in range(1, 40):
        store = robots[c % 2]
        with store.begin_clip(c, 30.0 * c, 30.0 * c + 30) as w:
            loaded = set(store._wcache.by_entity)
            if c > 2:   # what this writer loaded before survived the other's clip (followed, not emptied)
                followed += bool(loaded)
            if c % 5 == 0:   # a new person seen by this robot; the other must match them next time
                faces.append(w.add_entity("face", unit(rng, 2, 16)))
            probe = near(np.asarray(store.entity_embeddings(faces[-1]))[:1], rng, 0.05)
            assert w.match_entity("face", probe, threshold=-1.0)[0] == _expected_match(store.conn, "face", probe)[0]
            for i in range(3):
                who = faces[int(rng.integers(len(faces)))]
                if facts and rng.random() < 0.5:   # a re-statement (reinforce) or its opposite (weaken to zero)
                    old_who, old = facts[int(rng.integers(len(facts)))]
                    who, vec = old_who, (old + 0.1 * rng.normal(size=DIM).astype(np.float32)) * (1 if i else -1)
                else:
                    vec = 0.3 * base + rng.normal(size=DIM).astype(np.float32) / np.sqrt(DIM)
                vec = (vec / np.linalg.norm(vec)).astype(np.float32)
                want = _expected(store.conn, [who], vec)
                res = w.add_memory(f"clip {c} fact {i}: <face_{who}>", "semantic", vector=vec)
                assert (res.reinforced, res.weakened) == want, (c, i)
                if res.action == "inserted":
                    facts.append((who, vec))
    assert followed >= 30, followed
    for s in robots:
        s.close()


def test_a_face_voice_link_written_by_one_robot_is_followed_by_the_other_not_a_reload(db_at):
    """Equivalence memories ("Equivalence: <face_1>, <voice_2>") written, restated and weakened away by two robots in
    turn log ``eq`` changes. They are semantic memories like any other: the other writer follows them (its loaded
    entities survive) and still decides exactly as a fresh read of the database."""
    rng = np.random.default_rng(8)
    robots = [MemoryStore(db_at("m.db"), robot=name) for name in ("robot1", "robot2")]
    robots[0].declare_embedder("test-random", DIM)
    with robots[0].begin_clip(0, 0.0, 30.0) as w:
        faces = [w.add_entity("face", unit(rng, 2, 16)) for _ in range(3)]
        voices = [w.add_entity("voice", unit(rng, 2, 16)) for _ in range(3)]
    links: list[tuple[list[int], np.ndarray]] = []
    followed = weakened = 0
    for c in range(1, 30):
        store = robots[c % 2]
        with store.begin_clip(c, 30.0 * c, 30.0 * c + 30) as w:
            loaded = set(store._wcache.by_entity)
            if c > 2:
                followed += bool(loaded)
            for i in range(2):
                if links and rng.random() < 0.6:   # the same link restated, or its opposite (weakened to zero)
                    who, old = links[int(rng.integers(len(links)))]
                    vec = (old + 0.05 * rng.normal(size=DIM).astype(np.float32)) * (1 if i else -1)
                else:
                    who = [faces[int(rng.integers(3))], voices[int(rng.integers(3))]]
                    vec = rng.normal(size=DIM).astype(np.float32)
                vec = (vec / np.linalg.norm(vec)).astype(np.float32)
                want = _expected(store.conn, who, vec)
                res = w.add_memory(f"Equivalence: <face_{who[0]}>, <voice_{who[1]}>", "semantic", vector=vec)
                assert (res.reinforced, res.weakened) == want, (c, i)
                weakened += len(res.weakened)
                if res.action == "inserted":
                    links.append((who, vec))
    ops = {r[0] for r in robots[0].conn.execute("SELECT DISTINCT op FROM changes")}
    assert "eq" in ops and weakened > 0, (ops, weakened)
    assert followed >= 20, followed
    for s in robots:
        s.close()


def test_reinforcements_and_weakenings_within_one_clip_add_up_in_order(db_at):
    """A memory restated and contradicted within one clip: each weakening sees the reinforcements before it (the edge
    survives at weight 2, and goes only when the weight reaches zero); an updated face ends at the clip's end."""
    rng = np.random.default_rng(3)
    store = MemoryStore(db_at("m.db"))
    store.declare_embedder("test-random", DIM)
    fact = unit(rng, 1, DIM)[0]
    with store.begin_clip(0, 0.0, 30.0) as w:
        face = w.add_entity("face", unit(rng, 2, 16))
        first = w.add_memory(f"<face_{face}> likes tea", "semantic", vector=fact).node_id
    with store.begin_clip(1, 30.0, 60.0) as w:
        for _ in range(2):   # restated twice: weight 1 -> 3
            assert w.add_memory(f"<face_{face}> likes tea a lot", "semantic", vector=fact).action == "reinforced"
        w.update_entity(face, unit(rng, 1, 16))
        res = w.add_memory(f"<face_{face}> hates tea", "semantic", vector=-fact)   # 3 -> 2: kept
        assert res.weakened == [first]
        assert w.linked_entities(face, "voice") == set()
    with store.begin_clip(2, 60.0, 90.0) as w:
        assert w.add_memory(f"<face_{face}> likes tea", "semantic", vector=fact).action == "reinforced"   # 2 -> 3
        for _ in range(3):   # 3 -> 0 within one clip: the edge goes
            w.add_memory(f"<face_{face}> does not like tea", "semantic", vector=-fact)
    rows = store.conn.execute("SELECT weight FROM nodes WHERE id = ?", (first,)).fetchall()
    assert rows == [(0.0,)]
    assert store.conn.execute("SELECT count(*) FROM edges WHERE text_id = ?", (first,)).fetchone()[0] == 0
    assert store.conn.execute("SELECT end_time FROM nodes WHERE id = ?", (face,)).fetchone()[0] == 60.0
    store.close()


def test_faces_another_robot_updated_are_followed_in_place_and_match_as_a_fresh_read(db_at):
    """Faces another robot adds a view to (at their embedding cap: the most redundant row dropped) are followed by
    overwriting their row in the follower's matrix of per-face means, not by building it again for every face (at
    a household of faces, a copy per clip), and matching by those means decides exactly as the mean cosine over
    every stored row, read fresh from the database."""
    rng = np.random.default_rng(11)
    robots = [MemoryStore(db_at("m.db"), robot=name) for name in ("robot1", "robot2")]
    robots[0].declare_embedder("test-random", DIM)
    cap = robots[0].config.max_face_embeddings
    with robots[0].begin_clip(0, 0.0, 30.0) as w:
        faces = [w.add_entity("face", unit(rng, cap, 16)) for _ in range(5)]
    kept = 0
    for c in range(1, 24):
        store = robots[c % 2]
        with store.begin_clip(c, 30.0 * c, 30.0 * c + 30) as w:
            before = store._wcache.means.get("face")
            probe = near(np.asarray(store.entity_embeddings(faces[c % 5]))[:2], rng, 0.2)
            got = w.match_entity("face", probe, threshold=-1.0)
            want = _expected_match(store.conn, "face", probe)
            assert got[0] == want[0] and got[1] == pytest.approx(want[1], abs=1e-5), (c, got, want)
            if c > 2 and before is not None:   # the other robot's updates were written into the same matrix
                kept += store._wcache.means.get("face") is before
            w.update_entity(faces[int(rng.integers(5))], unit(rng, 1, 16))
    assert kept >= 18, kept
    for s in robots:
        s.close()
