"""SQLite schema of the memory graph, with numbered migrations.

Tables
  meta(key, value)            schema_version, embedder name/dim, counters
  clips                       one row per committed clip (the unit of a write transaction)
  nodes                       face | voice | episodic | semantic; text nodes carry the memory text
  embeddings                  float32 vectors (text: exactly one per node; face/voice: capped per node)
  contents                    face crops (JPEG), voice turns (ASR text / WAV) attached to entity nodes
  edges                       text node -> entity node, weighted (weight <= 0 removes the edge)
  character_names             names known for a character (keyed by the character's seed, see characters.py)
  changes                     append-only log (seq) that readers use to keep their vector index in step
  av_evidence, voice_speech   seconds a voice spoke while a face was alone on camera, in how many clips, and the
                              confidence of the face=voice equivalence it supports (embedded writer, av_links.py)
  turns, turn_memories        who-said-what-when facts: one row per voice turn (speech, with its transcript) and
                              per face appearance, linked to the episodic memories written from it
  gaps                        input that did not become memory: stream time span, topic, cause (late, future,
                              duplicate, bad, overflow, no_audio, no_video, transport, crash, clip_error,
                              short_speech, unattributed_speech, ...: stream_ledger.py), count
  runs                        one row per memorization run (heartbeat of the stream time it reached), so a run
                              that died without closing (kill -9, power loss) is found and its lost span recorded
  entity_splits               face/voice pairs a person said are NOT the same (a split link): an equivalence stating
                              such a pair is refused from then on (corrections.py)
  poses, places               the robot's pose track (stream time -> x, y, yaw in a frame; clips and turns also carry
                              the pose at their middle) and named places (circles in that frame)
  (robot columns)             clips, poses, gaps and runs name the robot that wrote them when several robots share
                              one memory (a clip keeps that robot's own clip number in stream_clip)
  edits                       audit log of people corrections (name, merge, split, forget): action, character,
                              ids and counts as JSON, origin; never a name (a forget must leave none behind)
"""

from __future__ import annotations

import re
import sqlite3

MIGRATIONS: list[str] = [
    # 1: initial schema
    """
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
    CREATE TABLE clips (
        id INTEGER PRIMARY KEY,
        start_time REAL NOT NULL,
        end_time REAL NOT NULL,
        source TEXT,
        committed_at REAL,
        extra TEXT
    );
    CREATE TABLE nodes (
        id INTEGER PRIMARY KEY,
        type TEXT NOT NULL CHECK (type IN ('face', 'voice', 'episodic', 'semantic')),
        clip_id INTEGER,
        start_time REAL,
        end_time REAL,
        text TEXT,
        is_equivalence INTEGER NOT NULL DEFAULT 0,
        weight REAL NOT NULL DEFAULT 1.0,
        character_seed INTEGER,
        created_at REAL,
        extra TEXT
    );
    CREATE INDEX nodes_clip ON nodes (clip_id);
    CREATE INDEX nodes_type ON nodes (type);
    CREATE UNIQUE INDEX nodes_seed ON nodes (character_seed) WHERE character_seed IS NOT NULL;
    CREATE TABLE embeddings (
        id INTEGER PRIMARY KEY,
        node_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
        clip_id INTEGER,
        vector BLOB NOT NULL
    );
    CREATE INDEX embeddings_node ON embeddings (node_id);
    CREATE TABLE contents (
        id INTEGER PRIMARY KEY,
        node_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        clip_id INTEGER,
        score REAL,
        text TEXT,
        data BLOB
    );
    CREATE INDEX contents_node ON contents (node_id);
    CREATE TABLE edges (
        text_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
        entity_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
        weight REAL NOT NULL,
        PRIMARY KEY (text_id, entity_id)
    ) WITHOUT ROWID;
    CREATE INDEX edges_entity ON edges (entity_id);
    CREATE TABLE character_names (
        seed INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        source TEXT,
        updated_at REAL
    );
    CREATE TABLE changes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        node_id INTEGER NOT NULL,
        op TEXT NOT NULL CHECK (op IN ('add', 'del', 'upd', 'eq'))
    );
    """,
    # 2: audio-visual co-occurrence evidence behind the embedded writer's face-voice equivalences
    """
    CREATE TABLE av_evidence (
        face_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
        voice_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
        overlap_s REAL NOT NULL DEFAULT 0,
        PRIMARY KEY (face_id, voice_id)
    ) WITHOUT ROWID;
    CREATE TABLE voice_speech (
        voice_id INTEGER PRIMARY KEY REFERENCES nodes (id) ON DELETE CASCADE,
        speech_s REAL NOT NULL DEFAULT 0
    );
    """,
    # 3: per-turn facts (entity-centric reasoning: who spoke / appeared when, how often, in what order)
    """
    CREATE TABLE turns (
        id INTEGER PRIMARY KEY,
        clip_id INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('voice', 'face')),
        entity_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
        start_time REAL NOT NULL,
        end_time REAL NOT NULL,
        text TEXT
    );
    CREATE INDEX turns_time ON turns (start_time);
    CREATE INDEX turns_entity ON turns (entity_id);
    CREATE INDEX turns_clip ON turns (clip_id);
    CREATE TABLE turn_memories (
        turn_id INTEGER NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
        memory_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
        PRIMARY KEY (turn_id, memory_id)
    ) WITHOUT ROWID;
    CREATE INDEX turn_memories_memory ON turn_memories (memory_id);
    """,
    # 4: accounting of input that did not become memory, and crash detection
    """
    CREATE TABLE gaps (
        id INTEGER PRIMARY KEY,
        topic TEXT NOT NULL,
        start_time REAL NOT NULL,
        end_time REAL NOT NULL,
        cause TEXT NOT NULL,
        count INTEGER NOT NULL DEFAULT 1,
        detail TEXT,
        source TEXT,
        recorded_at REAL
    );
    CREATE INDEX gaps_time ON gaps (start_time);
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        source TEXT,
        host TEXT,
        pid INTEGER,
        started_at REAL NOT NULL,
        heartbeat_at REAL,
        ended_at REAL,
        status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'clean', 'crashed')),
        first_stream_time REAL,
        last_stream_time REAL,
        last_committed_time REAL
    );
    """,
    # 5: people corrections (memory browser, CLI): split face/voice pairs and the audit log of edits
    """
    CREATE TABLE entity_splits (
        entity_a INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
        entity_b INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
        created_at REAL,
        PRIMARY KEY (entity_a, entity_b),
        CHECK (entity_a < entity_b)
    ) WITHOUT ROWID;
    CREATE INDEX entity_splits_b ON entity_splits (entity_b);
    CREATE TABLE edits (
        id INTEGER PRIMARY KEY,
        at REAL NOT NULL,
        action TEXT NOT NULL,
        character_id INTEGER,
        detail TEXT,
        origin TEXT
    );
    """,
    # 6: kind-aware indexes for stores of 1M memories (equivalences, entities and text nodes by time, without a
    #    scan of every node) and the store's identity, which a persisted vector index is checked against
    """
    CREATE INDEX IF NOT EXISTS nodes_equivalence ON nodes (id) WHERE is_equivalence = 1;
    CREATE INDEX IF NOT EXISTS nodes_type_end ON nodes (type, end_time);
    DROP INDEX IF EXISTS nodes_type;
    INSERT OR IGNORE INTO meta (key, value) VALUES ('store_id', lower(hex(randomblob(16))));
    """,
    # 7: where things happened: the robot's pose track, the pose of every clip (at its middle) and turn (at its
    #    middle), and named places (from the memorization node's config)
    """
    CREATE TABLE poses (
        t REAL NOT NULL,
        x REAL NOT NULL,
        y REAL NOT NULL,
        z REAL,
        yaw REAL,
        frame TEXT,
        clip_id INTEGER
    );
    CREATE INDEX poses_time ON poses (t);
    ALTER TABLE clips ADD COLUMN x REAL;
    ALTER TABLE clips ADD COLUMN y REAL;
    ALTER TABLE clips ADD COLUMN yaw REAL;
    ALTER TABLE clips ADD COLUMN frame TEXT;
    ALTER TABLE turns ADD COLUMN x REAL;
    ALTER TABLE turns ADD COLUMN y REAL;
    ALTER TABLE turns ADD COLUMN yaw REAL;
    CREATE TABLE places (
        name TEXT PRIMARY KEY COLLATE NOCASE,
        x REAL NOT NULL,
        y REAL NOT NULL,
        radius REAL NOT NULL,
        frame TEXT,
        source TEXT,
        updated_at REAL
    );
    """,
    # 8: face-voice evidence accumulated over clips: in how many clips the pair was heard-while-alone, and the
    #    confidence of the equivalence it supports (set when linked, av_links.py)
    """
    ALTER TABLE av_evidence ADD COLUMN clips INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE av_evidence ADD COLUMN confidence REAL;
    ALTER TABLE av_evidence ADD COLUMN linked_clip INTEGER;
    """,
    # 9: several robots, one memory: which robot wrote a clip (its own clip number beside the store's clip id),
    #    a pose, a gap and a run; NULL = the store's only robot (a store written before robots had names)
    """
    ALTER TABLE clips ADD COLUMN robot TEXT;
    ALTER TABLE clips ADD COLUMN stream_clip INTEGER;
    CREATE UNIQUE INDEX clips_robot_clip ON clips (robot, stream_clip) WHERE robot IS NOT NULL;
    ALTER TABLE poses ADD COLUMN robot TEXT;
    CREATE INDEX poses_robot_time ON poses (robot, t);
    ALTER TABLE gaps ADD COLUMN robot TEXT;
    ALTER TABLE runs ADD COLUMN robot TEXT;
    """,
    # 10: the language a voice turn was heard in (ISO 639-1 from the ASR; NULL: not transcribed, or a store
    #     written before turns kept it)
    """
    ALTER TABLE turns ADD COLUMN language TEXT;
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)
_ROBOT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")


def check_robot_name(name: str) -> str:
    """A robot's name in a shared memory: a ROS-namespace-like word ("robot1", "kitchen_bot"), or "" for none."""
    name = (name or "").strip().strip("/")
    if name and not _ROBOT_NAME.fullmatch(name):
        raise ValueError(f"robot name {name!r}: use a letter then letters, digits or _ (at most 64)")
    return name


def current_version(conn: sqlite3.Connection) -> int:
    has_meta = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
    if not has_meta:
        return 0
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the schema to SCHEMA_VERSION, one transaction per migration. Returns the version."""
    version = current_version(conn)
    if version > SCHEMA_VERSION:
        raise RuntimeError(
            f"memory database has schema version {version}, newer than this software ({SCHEMA_VERSION}); "
            "upgrade m3-agent-ros"
        )
    for target in range(version + 1, SCHEMA_VERSION + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            if current_version(conn) >= target:  # another process migrated meanwhile
                conn.execute("COMMIT")
                continue
            for stmt in MIGRATIONS[target - 1].split(";"):
                if stmt.strip():
                    conn.execute(stmt)
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", (str(target),))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return SCHEMA_VERSION
