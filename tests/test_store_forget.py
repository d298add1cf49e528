"""forget: delete a person everywhere, redact them from memories about others."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from pathlib import Path

import numpy as np

from m3_memory import MemoryStore
from m3_memory.cli import main
from m3_memory.store.retrieval import characters_named
from m3_memory.upstream import import_videograph

from .fixtures_upstream import build_upstream_pickle
from .store_helpers import ALICE_CROP, ALICE_WAV, kitchen_store, named_store


def test_forget_deletes_entities_and_their_memories_and_redacts_shared_ones(db_at):
    store, ids = kitchen_store(db_at("m.db"))
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


# ---------------------------------------------------------------------------------------------- privacy delete
def _file_bytes(db: Path) -> bytes:
    """Everything SQLite keeps on disk for ``db``: the database, its WAL and its shared-memory index."""
    return b"".join(p.read_bytes() for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists())


def _leaks(db: Path, needles: dict[str, bytes]) -> list[str]:
    """Which needles occur in the files: names case-insensitively, binary data by any 64-byte piece (a record
    larger than a page is split over overflow pages)."""
    data = _file_bytes(db)
    low = data.lower()

    def found(key: str, b: bytes) -> bool:
        if key.startswith("name:"):
            return b.lower() in low
        return any(b[i:i + 64] in data for i in range(0, max(1, len(b) - 63), 64))

    return [k for k, b in needles.items() if found(k, b)]


def _secrets(store: MemoryStore, ids: dict[str, int]) -> dict[str, bytes]:
    """Byte strings that must not survive forgetting Alice (names, biometric vectors, crops, old text vectors)."""
    def text_vector(nid: int) -> bytes:
        return store.conn.execute("SELECT vector FROM embeddings WHERE node_id = ?", (nid,)).fetchone()[0]

    return {"name:alice": b"alice", "name:liddell": b"liddell",
            "face embedding": store.entity_embeddings(ids["alice_face"])[0].tobytes(),
            "voice embedding": store.entity_embeddings(ids["alice_voice"])[1].tobytes(),
            "face crop": ALICE_CROP, "voice wav": ALICE_WAV,
            "vector of a deleted memory": text_vector(ids["m_hello"]),
            "old vector of a redacted memory": text_vector(ids["m_thanks"])}


def test_forget_redacts_the_name_everywhere_and_leaves_no_bytes_on_disk(tmp_path):
    db = tmp_path / "m.db"
    store, ids = named_store(db)
    af, av, bf, bv, cf = (ids[k] for k in ("alice_face", "alice_voice", "bob_face", "bob_voice", "carol_face"))
    alice = store.characters().character_of(af)
    assert [m for m in store.search_nodes("Alice", topk=20) if "alice" in m.text.lower()]   # found before
    assert characters_named(store, "Alice Liddell") == [alice]
    secrets = _secrets(store, ids)
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")   # half of the data in the database file, half in the WAL
    with store.begin_clip(1, 30.0, 60.0) as w:
        ids["m_later"] = w.add_memory(f"<face_{bf}> tells ALICE's brother about the meeting.").node_id  # type: ignore
    assert set(_leaks(db, secrets)) == set(secrets)
    # Debian's SQLite has secure_delete on by default, others don't: the forget must switch it on itself
    store.conn.execute("PRAGMA secure_delete = OFF")

    report = store.forget_character(alice)

    assert store.conn.execute("PRAGMA secure_delete").fetchone()[0] == 0   # only for the forget
    texts = {k: store.get_memories([ids[k]])[0].text for k in ("m_thanks", "m_folder", "m_wave", "m_budget",
                                                              "m_later")}
    assert texts == {"m_thanks": f"<voice_{bv}> says: thanks <redacted>, see you at noon.",
                     "m_folder": f"<face_{bf}> hands <redacted> a red folder.",
                     "m_wave": f"<face_{cf}> waves at <redacted> by the door.",
                     "m_budget": f"<face_{bf}> works with <redacted> on the budget.",
                     "m_later": f"<face_{bf}> tells <redacted>'s brother about the meeting."}
    assert store.conn.execute("SELECT text FROM turns").fetchall() == [("Thanks <redacted>, see you at noon.",)]
    assert [c["text"] for c in store.entity_contents(bv)] == ["Thanks <redacted>, see you at noon."]
    for table, cols in (("nodes", ["id"]), ("embeddings", ["node_id"]), ("contents", ["node_id"]),
                        ("edges", ["entity_id"]), ("turns", ["entity_id"]), ("av_evidence", ["face_id", "voice_id"]),
                        ("voice_speech", ["voice_id"])):
        where = " OR ".join(f"{c} IN (?, ?)" for c in cols)
        left = store.conn.execute(f"SELECT count(*) FROM {table} WHERE {where}", (af, av) * len(cols)).fetchone()[0]
        assert left == 0, table
    assert store.conn.execute("SELECT count(*) FROM turn_memories").fetchone()[0] == 1   # Bob's turn -> m_thanks
    assert store.conn.execute("SELECT count(*) FROM character_names").fetchone()[0] == 0
    # search for the name finds nothing; the redacted memories are re-embedded and still found
    assert not [m for m in store.search_nodes("Alice", topk=50) if re.search("alice|liddell", m.text, re.I)]
    assert characters_named(store, "Alice") == [] and characters_named(store, "Alice Liddell") == []
    assert store.search_nodes("who hands over a red folder", topk=1)[0].id == ids["m_folder"]
    # and nothing of her is left in the files: names, face/voice vectors, crop, WAV, old text vectors
    assert _leaks(db, secrets) == []
    # what the report says
    assert sorted(report.entities) == sorted([af, av])
    assert sorted(report.deleted_memories) == sorted([ids["m_hello"], ids["m_named"], ids["eq_alice"]])
    assert report.redacted_memories == sorted(ids[k] for k in ("m_thanks", "m_folder", "m_wave", "m_budget",
                                                               "m_later"))
    assert report.reembedded == report.redacted_memories and report.needs_reembed == []
    assert report.deleted_turns == 2
    # names: thanks/wave/budget/later memories + Bob's turn + Bob's transcript; the folder memory only had a tag
    assert (report.names_redacted, report.texts_rewritten) == (6, 7)
    assert report.checkpointed and not report.open_readers_blocking and report.checkpoint[0] == 0


def test_forget_on_postgresql_vacuums_the_person_out_of_the_table_files_and_says_what_the_wal_keeps(pg_server):
    url = pg_server.database("forget_bytes")
    store, ids = named_store(url)
    alice = store.characters().character_of(ids["alice_face"])
    secrets = _secrets(store, ids)
    oid = store.conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()[0]
    tables = Path(pg_server.folder) / "base" / str(oid)

    def leaks(folder: Path) -> list[str]:
        data = b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())
        return [k for k, b in secrets.items()
                if (b.lower() in data.lower() if k.startswith("name:") else b[:64] in data)]

    store.conn.execute("CHECKPOINT")   # the rows are in the table files now (a check that can fail)
    assert set(leaks(tables)) == set(secrets)

    report = store.forget_character(alice, vacuum=True)

    assert report.vacuumed and report.checkpointed
    assert leaks(tables) == []
    # what the report says remains is true: the WAL still holds the deleted rows' images
    assert "write-ahead log" in report.remains and "backups" in report.remains
    assert leaks(Path(pg_server.folder) / "pg_wal")
    assert characters_named(store, "Alice") == [] and alice not in store.characters().members
    store.close()


def test_forget_works_on_a_store_imported_without_reembedding(tmp_path):
    exp = build_upstream_pickle(tmp_path / "g.pkl")
    db = tmp_path / "m.db"
    with MemoryStore(db) as imp:
        import_videograph(tmp_path / "g.pkl", imp)   # keeps the pickle's 3072-d text-embedding-3-large vectors
    store = MemoryStore(db)                            # the running embedder is the default (384-d MiniLM)
    assert store.meta("embedder_name") != store.embedder.name
    reader = MemoryStore(db, readonly=True)
    assert reader.index.vector(8) is not None and reader.index.vector(3) is not None
    alice = store.characters().character_of(1)
    store.set_character_name(alice, "Alice")
    secrets = {"name:alice": b"alice", "face embedding": store.entity_embeddings(1)[0].tobytes(),
               "old vector of a redacted memory": store.conn.execute(
                   "SELECT vector FROM embeddings WHERE node_id = 8").fetchone()[0]}
    assert np.allclose(np.frombuffer(secrets["old vector of a redacted memory"], np.float32), exp.texts[8]["vector"],
                       atol=1e-6)
    assert set(_leaks(db, secrets)) == set(secrets)
    store.conn.execute("PRAGMA secure_delete = OFF")

    report = store.forget_character(alice)

    assert sorted(report.entities) == [0, 1] and report.deleted_memories == [3, 4, 5, 6]
    assert report.redacted_memories == [8, 16] and report.needs_reembed == [8, 16] and report.reembedded == []
    assert report.checkpointed
    assert [m.text for m in store.get_memories([8, 16])] == ["<face_2> hands <redacted> a red folder.",
                                                             "<redacted> and <face_2> leave the house together."]
    for nid in (8, 16):   # the old vectors encoded the person: dropped, node marked for re-embedding
        assert store.conn.execute("SELECT count(*) FROM embeddings WHERE node_id = ?", (nid,)).fetchone()[0] == 0
        assert json.loads(store.conn.execute("SELECT extra FROM nodes WHERE id = ?", (nid,)).fetchone()[0]) == {
            "needs_reembed": True}
    assert store.meta("embedder_name") == "openai:text-embedding-3-large"   # the store's vectors stay consistent
    assert store.conn.execute("SELECT count(*) FROM embeddings e JOIN nodes n ON n.id = e.node_id "
                              "WHERE n.type IN ('episodic', 'semantic')").fetchone()[0] == 5
    # every reader's index follows through the changes log: deleted and vector-less memories are gone from it
    reader.refresh()
    assert reader.index.vector(8) is None and reader.index.vector(3) is None and reader.index.vector(14) is not None
    assert len(reader.index) == len(store.index) == 5
    assert _leaks(db, secrets) == []


def test_a_reader_blocking_the_checkpoint_is_reported_and_a_later_checkpoint_clears_the_bytes(tmp_path):
    db = tmp_path / "m.db"
    store, ids = named_store(db)
    alice = store.characters().character_of(ids["alice_face"])
    secrets = _secrets(store, ids)
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM nodes WHERE text LIKE '%alice%'").fetchone()[0] == 4

    store.conn.execute("PRAGMA secure_delete = OFF")
    t0 = time.monotonic()
    report = store.forget_character(alice, checkpoint_timeout_s=0.3)

    assert time.monotonic() - t0 < 5
    assert not report.checkpointed and report.open_readers_blocking and report.checkpoint[0] == 1
    assert report.deleted_memories and report.names_redacted == 5
    assert store.conn.execute("SELECT count(*) FROM nodes WHERE text LIKE '%alice%'").fetchone()[0] == 0
    # the reader's snapshot still needs the old pages: the report is right that the bytes are still on disk
    assert reader.execute("SELECT count(*) FROM nodes WHERE text LIKE '%alice%'").fetchone()[0] == 4
    assert "name:alice" in _leaks(db, secrets)
    assert not store.checkpoint(timeout_s=0.2).ok

    reader.execute("COMMIT")
    reader.close()
    res = store.checkpoint(timeout_s=5.0)
    assert res.ok and res.busy == 0
    assert Path(f"{db}-wal").stat().st_size == 0
    assert _leaks(db, secrets) == []


def test_cli_forget_warns_and_exits_3_while_a_reader_blocks_then_checkpoint_finishes(tmp_path, capsys):
    db = tmp_path / "m.db"
    store, ids = named_store(db)
    alice = store.characters().character_of(ids["alice_face"])
    store.close()
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM nodes").fetchone()
    rc = main(["forget", str(alice), "--db", str(db), "--yes", "--wait", "0.2"])
    out, err = capsys.readouterr()
    assert rc == 3 and "names redacted:    5 occurrence(s); 6 text(s) rewritten" in out
    assert "WAL NOT checkpointed" in out and "warning:" in err and f"checkpoint --db {db}" in err
    assert main(["checkpoint", "--db", str(db), "--wait", "0.2"]) == 3
    reader.execute("COMMIT")
    reader.close()
    capsys.readouterr()
    assert main(["checkpoint", "--db", str(db)]) == 0
    assert "WAL copied into the database and truncated" in capsys.readouterr().out
    assert b"alice" not in _file_bytes(db).lower()
