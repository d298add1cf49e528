"""The store's two engines: the PostgreSQL schema equals SQLite's, the dialect rewrite, several robots writing one
memory at the same time (on both engines), and a server that is not there."""

from __future__ import annotations

import json
import sqlite3
import threading
import time

import numpy as np
import pytest

from m3_memory import MemoryStore
from m3_memory.poses import Pose
from m3_memory.store.pg.dialect import translate
from m3_memory.store.schema import SCHEMA_VERSION
from m3_memory.store.where import pose_near, record_poses, track_between

from .store_helpers import near, unit


def _sqlite_shape(store: MemoryStore) -> dict[str, set[str]]:
    tables = [r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT "
                                               "LIKE 'sqlite_%'")]
    return {t: {r[1] for r in store.conn.execute(f"PRAGMA table_info({t})")} for t in tables}


def _pg_shape(store: MemoryStore) -> dict[str, set[str]]:
    shape: dict[str, set[str]] = {}
    for table, col in store.conn.execute("SELECT table_name, column_name FROM information_schema.columns "
                                         "WHERE table_schema = current_schema()"):
        shape.setdefault(table, set()).add(col)
    return shape


def _indexes(store: MemoryStore) -> set[str]:
    if store.engine == "sqlite":
        return {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT "
                                                 "LIKE 'sqlite_%'")}
    return {r[0] for r in store.conn.execute("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
                                             "AND indexname NOT LIKE '%_pkey'")}


def test_postgresql_schema_has_every_table_column_and_index_of_sqlite(tmp_path, pg_server):
    lite = MemoryStore(tmp_path / "m.db")
    pg = MemoryStore(pg_server.database("schema_shape"))
    assert int(pg.meta("schema_version")) == int(lite.meta("schema_version")) == SCHEMA_VERSION
    assert _pg_shape(pg) == _sqlite_shape(lite)
    assert _indexes(pg) == _indexes(lite)
    assert len(pg.meta("store_id")) == len(lite.meta("store_id")) == 32
    # REAL is 8 bytes on SQLite: PostgreSQL must not round stream times to 4-byte floats
    with pg.begin_clip(0, 0.0, 30.0) as w:
        w.add_memory("a memory at a precise time")
    pg.conn.execute("UPDATE clips SET start_time = ? WHERE id = 0", (1795718482.1954305,))
    assert pg.conn.execute("SELECT start_time FROM clips").fetchone()[0] == 1795718482.1954305
    lite.close()
    pg.close()


@pytest.mark.parametrize(("sqlite_sql", "postgres_sql"), [
    ("SELECT x FROM t WHERE a = ? AND b LIKE '%k%'", "SELECT x FROM t WHERE a = %s AND b ILIKE '%%k%%'"),
    ("INSERT OR IGNORE INTO turn_memories (turn_id, memory_id) VALUES (?, ?)",
     "INSERT INTO turn_memories (turn_id, memory_id) VALUES (%s, %s) ON CONFLICT DO NOTHING"),
    ("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
     "INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"),
    ("UPDATE nodes SET end_time = max(coalesce(end_time, 0), ?) WHERE id = ?",
     "UPDATE nodes SET end_time = GREATEST(coalesce(end_time, 0), %s) WHERE id = %s"),
    ("SELECT max(seq), min(a) FROM changes", "SELECT max(seq), min(a) FROM changes"),
    ("SELECT group_concat(text_id) FROM edges", "SELECT string_agg(CAST(text_id AS TEXT), ',') FROM edges"),
    ("SELECT a FROM nodes n CROSS JOIN edges e ON e.text_id = n.id",
     "SELECT a FROM nodes n JOIN edges e ON e.text_id = n.id"),
    ("SELECT 1 FROM t WHERE x BETWEEN :x0 AND :x1", "SELECT 1 FROM t WHERE x BETWEEN %(x0)s AND %(x1)s"),
    ("INSERT INTO voice_speech (voice_id, speech_s) VALUES (?, ?) ON CONFLICT (voice_id) DO UPDATE SET "
     "speech_s = speech_s + excluded.speech_s",
     "INSERT INTO voice_speech (voice_id, speech_s) VALUES (%s, %s) ON CONFLICT (voice_id) DO UPDATE SET "
     "speech_s = voice_speech.speech_s + excluded.speech_s"),
])
def test_dialect_rewrites_each_sqlite_form_the_store_uses(sqlite_sql, postgres_sql):
    assert translate(sqlite_sql) == postgres_sql


def test_insert_or_replace_into_a_table_without_a_known_key_is_refused_not_guessed():
    with pytest.raises(ValueError, match="primary key"):
        translate("INSERT OR REPLACE INTO somewhere (a, b) VALUES (?, ?)")


# ---------------------------------------------------------------------------------------------- several robots
def _robot_writes(location, robot: str, face: np.ndarray, clips: int, seed: int, errors: list) -> None:
    rng = np.random.default_rng(seed)
    try:
        store = MemoryStore(location, robot=robot)
        for k in range(clips):
            with store.begin_clip(k, 30.0 * k, 30.0 * k + 30) as w:
                probe = near(face, rng)
                nid, _ = w.match_entity("face", probe)
                nid = w.add_entity("face", probe) if nid is None else (w.update_entity(nid, probe) or nid)
                w.add_memory(f"<face_{nid}> is seen by {robot} in clip {k}.")
                record_poses(w, [Pose(30.0 * k + s, x=seed + 0.1 * s, y=0.0) for s in (1.0, 15.0, 29.0)])
        store.close()
    except Exception as e:  # reported by the test (a thread's exception is otherwise lost)
        errors.append(f"{robot}: {type(e).__name__}: {e}")


def test_two_robots_write_one_memory_at_once_and_each_keeps_its_clips_poses_and_the_shared_people(db_at):
    location = db_at("shared.db")
    person = unit(np.random.default_rng(5), 1, 128)
    MemoryStore(location, robot="robot1").close()   # created before the robots race
    errors: list[str] = []
    threads = [threading.Thread(target=_robot_writes, args=(location, name, person, 6, seed, errors))
               for seed, name in ((1, "robot1"), (2, "robot2"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    reader = MemoryStore(location, readonly=True)
    assert reader.robots() == ["robot1", "robot2"]
    rows = reader.conn.execute("SELECT id, robot, stream_clip FROM clips ORDER BY id").fetchall()
    ids = [r[0] for r in rows]
    assert len(set(ids)) == 12, "the store numbers every robot's clips: 12 clips"
    for name in ("robot1", "robot2"):   # in the order each robot wrote them
        mine = sorted((r[2], r[0]) for r in rows if r[1] == name)
        assert [i for _, i in mine] == sorted(i for _, i in mine)
    assert sorted((r[1], r[2]) for r in rows) == sorted((n, k) for n in ("robot1", "robot2") for k in range(6))
    # each memory says which robot wrote it, through its clip
    mems = [m for r in rows for m in reader.clip_memories(r[0])]
    robots = reader.clip_robots(m.clip_id for m in mems)
    assert len(mems) == 12 and all(f"seen by {robots[m.clip_id]} " in m.text for m in mems)
    # the person both robots saw is one face node (each writer matched the other's), so one character
    assert len(reader.entities("face")) == 1 and len(reader.characters().members) == 1
    # each robot resumes from, and reads, its own track
    for name, x0 in (("robot1", 1.0), ("robot2", 2.0)):
        mine = MemoryStore(location, readonly=True, robot=name)
        assert mine.has_clip(5) and not mine.has_clip(6)
        assert mine.last_clip()[1:] == (150.0, 180.0)
        track = track_between(mine)
        assert len(track) == 18 and {round(p.x - 0.1 * (p.t % 30.0), 6) for p in track} == {x0}
        assert pose_near(mine, 45.0).x == pytest.approx(x0 + 1.5)
        mine.close()
    # a robot without a name cannot write into a memory named robots share: its clip ids would collide
    anonymous = MemoryStore(location)
    with pytest.raises(Exception, match="shared by named robots"), anonymous.begin_clip(99, 0.0, 1.0):
        pass
    anonymous.close()
    reader.close()


def test_a_clip_a_robot_already_wrote_is_refused_for_it_but_not_for_another_robot(db_at):
    a = MemoryStore(db_at("m.db"), robot="robot1")
    b = MemoryStore(db_at("m.db"), robot="robot2")
    with a.begin_clip(0, 0.0, 30.0) as w:
        w.add_memory("robot1's first clip")
    mine = w.clip_id
    with pytest.raises(Exception, match="clip 0 of robot1 is already committed"), a.begin_clip(0, 0.0, 30.0):
        pass
    with b.begin_clip(0, 0.0, 30.0) as w:
        w.add_memory("robot2's first clip")
    assert w.clip_id != mine and a.clip_robots([mine, w.clip_id]) == {mine: "robot1", w.clip_id: "robot2"}
    with pytest.raises(ValueError, match="robot name"):
        MemoryStore(db_at("m.db"), robot="robot 3; DROP TABLE clips")
    a.close()
    b.close()


# ---------------------------------------------------------------------------------------------- pipelined writes
def test_a_write_transactions_statements_are_pipelined_yet_read_back_in_order_and_a_late_error_commits_nothing(
        pg_server):
    """PostgreSQL runs a write transaction in pipeline mode: results are read when asked for, after every statement
    before them; a failed statement whose result nobody read fails the COMMIT, and nothing of it is committed."""
    from m3_memory.store.pg.connection import PgConnection

    url = pg_server.database("pipelined")
    conn = PgConnection(url)
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO t (id, v) VALUES (?, ?)", (1, "a"))
    conn.executemany("INSERT INTO t (id, v) VALUES (?, ?)", [(2, "b"), (3, "c")])
    counted = conn.execute("SELECT count(*) FROM t")     # sees the writes before it, though none was waited for
    updated = conn.execute("UPDATE t SET v = ? WHERE id >= ?", ("z", 2))
    assert counted.fetchone() == (3,) and updated.rowcount == 2
    conn.execute("COMMIT")
    assert conn.execute("SELECT v FROM t ORDER BY id").fetchall() == [("a",), ("z",), ("z",)]

    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO t (id, v) VALUES (?, ?)", (4, "d"))
    # fails; its result is never read: the error comes out where psycopg next hears from the server (this or a later
    # statement) or at the latest at COMMIT, as the sqlite3 class; the caller then rolls back, as the store does
    with pytest.raises(sqlite3.IntegrityError, match="PostgreSQL"):
        try:
            conn.execute("INSERT INTO t (id, v) VALUES (?, ?)", (1, "duplicate"))
            conn.execute("UPDATE t SET v = ? WHERE id = ?", ("lost", 1))
            conn.execute("COMMIT")
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
    assert not conn.in_transaction
    assert conn.execute("SELECT id, v FROM t ORDER BY id").fetchall() == [(1, "a"), (2, "z"), (3, "z")]
    conn.execute("BEGIN IMMEDIATE")   # the session goes on
    conn.execute("INSERT INTO t (id, v) VALUES (?, ?)", (4, "d"))
    conn.execute("COMMIT")
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (4,)
    conn.close()


def test_a_clip_transaction_whose_error_was_read_and_passed_over_commits_nothing(pg_server):
    """A clip's BEGIN and COMMIT go in its pipeline. A statement that failed, whose error the caller caught and went
    on, leaves the transaction failed: PostgreSQL answers its COMMIT with ROLLBACK, which must come out as an error,
    with nothing committed, never as a commit."""
    from m3_memory.store.pg.connection import PgConnection

    conn = PgConnection(pg_server.database("passed_over"))
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    conn.execute("BEGIN DEFERRED")
    assert conn.take_write_lock()   # as a clip that decided on a new person: nothing is left to send but COMMIT
    conn.execute("INSERT INTO t (id, v) VALUES (?, ?)", (1, "a"))
    conn.execute("INSERT INTO t (id, v) VALUES (?, ?)", (1, "duplicate"))
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("SELECT count(*) FROM t").fetchone()   # the held inserts go first: the error comes out here
    with pytest.raises(sqlite3.DatabaseError, match="rolled back|aborted"):
        try:
            conn.execute("COMMIT")
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
    assert not conn.in_transaction
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)
    conn.execute("BEGIN DEFERRED")   # the session goes on: a clip's transaction commits as before
    conn.execute("INSERT INTO t (id, v) VALUES (?, ?)", (2, "b"))
    assert conn.execute("SELECT v FROM t").fetchall() == [("b",)]
    conn.execute("COMMIT")
    assert conn.execute("SELECT id, v FROM t").fetchall() == [(2, "b")]
    conn.close()


def test_rows_given_their_ids_and_rows_taking_the_next_id_mix_in_one_transaction(pg_server):
    """An identity table's sequence goes on after explicit ids once per transaction (at commit), or at once when a
    row of the same transaction takes its id from it."""
    store = MemoryStore(pg_server.database("identities"))
    conn = store.conn
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany("INSERT INTO clips (id, start_time, end_time) VALUES (?, ?, ?)", [(5, 0.0, 1.0), (6, 1.0, 2.0)])
    taken = conn.execute("INSERT INTO clips (start_time, end_time) VALUES (?, ?)", (2.0, 3.0)).lastrowid
    conn.execute("INSERT INTO clips (id, start_time, end_time) VALUES (?, ?, ?)", (20, 3.0, 4.0))
    conn.execute("COMMIT")
    after = conn.execute("INSERT INTO clips (start_time, end_time) VALUES (?, ?)", (4.0, 5.0)).lastrowid
    assert (taken, after) == (7, 21)
    store.close()


def test_a_clip_writes_the_ids_sqlite_would_give_and_an_imported_id_moves_the_next_ones_on(db_at):
    """Rows of a clip get their ids from the writer (no read back per row): max(id) + 1, ..., on both engines, and
    after a row written with a given id (an import) the next new ids follow it."""
    rng = np.random.default_rng(3)
    store = MemoryStore(db_at())
    with store.begin_clip(0, 0.0, 30.0) as w:
        face = w.add_entity("face", unit(rng, 1, 32))
        a = w.add_memory(f"<face_{face}> waves").node_id
        vec = store.embed_texts(["imported"])[0]
        b = w.insert_text_node("imported", "semantic", vec, [], False, 40)
        c = w.add_memories(["one", "two"])
        voice = w.add_entity("voice", unit(rng, 1, 16))   # ids handed out after rows of every kind
    assert (face, a, b, [r.node_id for r in c], voice) == (1, 2, 40, [41, 42], 43)
    with store.begin_clip(1, 30.0, 60.0) as w:
        w.update_entity(face, unit(rng, 1, 32))
        d = w.add_memory("three").node_id
    assert d == 44
    rows = store.conn.execute("SELECT id, node_id FROM embeddings ORDER BY id").fetchall()
    assert [r[1] for r in rows] == [1, 2, 40, 41, 42, 43, 1, 44] and [r[0] for r in rows] == list(range(1, 9))
    store.close()


# ---------------------------------------------------------------------------------------------- no server
def test_a_server_of_ones_own_gets_databases_and_is_left_running_when_released(pg_server):
    """``ExternalPostgres`` (``--pg-url``, ``M3_TEST_PG_URL``): databases made on it as on the private server; its
    ``stop`` (what a benchmark calls when it is done) leaves the server alone."""
    import psycopg

    from m3_memory.store.pg.server import ExternalPostgres

    own = ExternalPostgres(pg_server.url)
    url = own.database("own_server")
    MemoryStore(url, robot="robot1").close()
    own.stop()
    with psycopg.connect(url) as c:
        assert c.execute("SELECT count(*) FROM clips").fetchone()[0] == 0


def test_a_server_that_is_not_there_is_a_clear_error_within_the_timeout(tmp_path):
    pytest.importorskip("psycopg")
    t0 = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="cannot connect to PostgreSQL at postgresql://robot:\\*\\*\\*@"):
        MemoryStore(f"postgresql://robot:secret@/m3?host={tmp_path}&connect_timeout=2")
    assert time.monotonic() - t0 < 10


def test_a_server_restarted_between_clips_fails_one_clip_clearly_and_the_next_is_written(pg_folder):
    """The server goes away (restart, failover): the clip being written fails with a clear error and nothing of
    it is half-written; the store reconnects by itself and the next clip commits; a reader follows."""
    from .conftest import own_pg_server

    server = own_pg_server(pg_folder)
    url = server.database("restarts")
    store = MemoryStore(url, robot="robot1")
    with store.begin_clip(0, 0.0, 30.0) as w:
        w.add_memory("before the restart")
    first = w.clip_id
    server.stop()
    with pytest.raises(sqlite3.OperationalError, match="PostgreSQL"), store.begin_clip(1, 30.0, 60.0) as w:
        w.add_memory("while the server is down")
    server = own_pg_server(pg_folder)   # the same data folder: the same memory
    try:
        with store.begin_clip(1, 30.0, 60.0) as w:
            w.add_memory("after the restart")
        second = w.clip_id
        assert store.conn.reconnects == 1
        reader = MemoryStore(url, readonly=True)
        assert [m.text for c in (first, second) for m in reader.clip_memories(c)] == ["before the restart",
                                                                                      "after the restart"]
        assert reader.conn.execute("SELECT count(*) FROM clips").fetchone()[0] == 2
        assert [h.clip_id for h in reader.search_clips("after the restart", topk=1, threshold=0.0)] == [second]
        reader.close()
        store.close()
    finally:
        server.stop()


def test_each_machine_keeps_its_copy_of_a_shared_memorys_index_and_a_forget_retires_every_copy(pg_server, tmp_path):
    """PostgreSQL holds the rows; a machine's readers load the index its writer (or an earlier reader) saved in the
    index cache instead of fetching every vector, and after a forget elsewhere a cached copy (which may hold the
    forgotten person's vectors) is refused and deleted."""
    from m3_memory import StoreConfig

    from .store_helpers import kitchen_store
    from .store_writer_proc import INDEX_CONFIG

    url = pg_server.database("index_cache")
    here, there = (StoreConfig.from_dict({**INDEX_CONFIG, "index_cache_dir": str(tmp_path / name)})
                   for name in ("here", "there"))
    store, ids = kitchen_store(url)
    store.close()
    writer = MemoryStore(url, config=here, robot="robot1")   # enough memories for HNSW segments (small here)
    for k in range(3):
        with writer.begin_clip(k, 100.0 + 30 * k, 130.0 + 30 * k) as w:
            w.add_memories([f"Item {k}-{i} is put on shelf {i % 7} of the pantry." for i in range(40)])
            w.add_memory("The robot charges its battery in the hallway.") if k == 2 else None
    writer.close()   # saves its index in this machine's cache
    cached = list((tmp_path / "here").glob("pg-*.index"))
    assert len(cached) == 1 and (cached[0] / "manifest.json").exists()
    reader = MemoryStore(url, config=here, readonly=True)
    assert reader.search_nodes("battery charging", topk=1)[0].text.startswith("The robot charges")
    assert reader.index_note.startswith("loaded"), reader.index_note
    reader.close()
    # another machine forgets Alice: this machine's cached copy is from the old epoch
    elsewhere = MemoryStore(url, config=there)
    elsewhere.forget_character(elsewhere.characters().character_of(ids["alice_face"]))
    elsewhere.close()
    reader = MemoryStore(url, config=here, readonly=True)
    assert all("coffee" not in m.text for m in reader.search_nodes("coffee", topk=5))
    assert reader.index_note.startswith("rebuilt") and "store_id" in reader.index_note, reader.index_note
    reader.close()
    manifest = cached[0] / "manifest.json"   # gone, or saved anew for the new epoch
    assert not manifest.exists() or json.loads(manifest.read_text())["store_id"].endswith("#1")


# ---------------------------------------------------------------------------- seen by one robot, heard by another
def _camera_clip(store: MemoryStore, face: np.ndarray, at: tuple[float, float]) -> int:
    """robot with a camera only: one face alone in view for the whole clip 0 (0-30 s), standing at ``at``."""
    from m3_memory.memorize import record_turns
    from m3_memory.writing.base import ClipEvidence, FaceEvidence
    from m3_memory.writing.factory import make_writer

    times = [0.5 * i for i in range(60)]
    poses = [Pose(t, at[0], at[1], 0.0, 0.0, "map") for t in np.arange(0.0, 30.5, 1.0)]
    with store.begin_clip(0, 0.0, 30.0) as w:
        fid = w.add_entity("face", face)
        ev = ClipEvidence(w.clip_id, 0.0, 30.0, faces=[FaceEvidence(fid, b"", times)], frame_times=times, poses=poses)
        out = make_writer("embedded").write(ev, graph=w)
        record_turns(w, ev, [(r.node_id, t) for r, t in zip(w.add_memories(out.episodic), out.episodic, strict=True)])
        for s in out.semantic:
            w.add_memory(s, "semantic")
        record_poses(w, poses)
    return fid


def _microphone_clip(store: MemoryStore, voice: np.ndarray, at: tuple[float, float]) -> tuple[int, list[str]]:
    """robot with a microphone only: one person says three sentences in clip 0, the robot standing at ``at``."""
    from m3_memory.memorize import record_turns
    from m3_memory.writing.base import ClipEvidence, VoiceTurnEvidence
    from m3_memory.writing.factory import make_writer

    poses = [Pose(t, at[0], at[1], 0.0, 0.0, "map") for t in np.arange(0.0, 30.5, 1.0)]
    with store.begin_clip(0, 0.0, 30.0) as w:
        vid = w.add_entity("voice", voice)
        turns = [VoiceTurnEvidence(vid, a, b, f"sentence {i}") for i, (a, b) in enumerate(((2, 6), (10, 14), (20, 25)))]
        ev = ClipEvidence(w.clip_id, 0.0, 30.0, voices=turns, poses=poses)
        out = make_writer("embedded").write(ev, graph=w)
        record_turns(w, ev, [(r.node_id, t) for r, t in zip(w.add_memories(out.episodic), out.episodic, strict=True)])
        for s in out.semantic:
            w.add_memory(s, "semantic")
        record_poses(w, poses)
    return vid, out.semantic


@pytest.mark.parametrize("microphone_at,joined", [((1.5, 0.0), True), ((40.0, 0.0), False)])
def test_a_person_one_robot_sees_and_the_other_hears_is_one_character_when_the_robots_are_together(
        db_at, microphone_at, joined):
    rng = np.random.default_rng(9)
    seer = MemoryStore(db_at("m.db"), robot="robot1")
    hearer = MemoryStore(db_at("m.db"), robot="robot2")
    face = _camera_clip(seer, unit(rng, 1, 128), (0.0, 0.0))
    voice, stated = _microphone_clip(hearer, unit(rng, 1, 192), microphone_at)
    chars = MemoryStore(db_at("m.db"), readonly=True).characters()
    assert (chars.character_of(face) == chars.character_of(voice)) is joined
    assert (f"Equivalence: <face_{face}>, <voice_{voice}>" in stated) is joined
    seer.close()
    hearer.close()


def test_robots_opening_a_new_memory_at_the_same_moment_all_get_it(db_at):
    """Two robots' nodes started together create the schema once between them (the first migrates, the others find
    it done): no error for any of them."""
    location = db_at("fresh.db")
    errors: list[str] = []
    start = threading.Barrier(4)

    def open_it(i: int) -> None:
        try:
            start.wait(timeout=30)
            MemoryStore(location, robot=f"robot{i}").close()
        except Exception as e:
            errors.append(f"robot{i}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=open_it, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    assert int(MemoryStore(location, readonly=True).meta("schema_version")) == SCHEMA_VERSION
