"""The entity-centric memory graph, persisted in SQLite (WAL) and searched through an in-memory index.

One process writes (memorization), any number read (control, CLI, evaluation) at the same time:

* every clip is written in ONE ``BEGIN IMMEDIATE`` transaction (:meth:`MemoryStore.begin_clip`), so a killed
  writer leaves either the whole clip or none of it;
* readers never block in WAL mode; before each search a reader applies the rows of the ``changes`` log it
  has not seen to its vector index (cheap when nothing changed: one ``PRAGMA data_version``);
* the vector index and the character table are derived data: the index is saved beside the database
  (:mod:`m3_memory.store.index_files`) and loaded at open with the changes since replayed, or rebuilt from SQLite;
* the writer keeps what its inserts compare against in memory (:mod:`m3_memory.store.writer_cache`) and checkpoints
  the WAL from a background thread (:mod:`m3_memory.store.checkpointer`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from ..characters import Characters, resolve
from ..config import StoreConfig
from ..embedders import EmbeddingError, TextEmbedder, make_embedder
from ..errors import ClipConflictError, ReadOnlyStoreError, StoreError, UnknownCharacterError
from ..tags import back_translate, character_tag, find_tags, is_equivalence, replace_tags
from ..timeline import META_ORIGIN, META_ZONE, WALL_STAMP_MIN, Timeline, check_zone
from .bulk_rows import BulkRows
from .checkpointer import Checkpointer
from .clip_writer import ClipWriter
from .index_files import Header, index_dir
from .index_keeping import IndexKeeping
from .pg import PgConnection, is_postgres_url, redact_url
from .pg.schema import PREPARE as PG_PREPARE
from .records import TEXT_KINDS, CheckpointResult, ClipHit, Entity, ForgetReport, Memory
from .schema import check_robot_name, migrate
from .select_in import select_in
from .turn_reads import TurnReads
from .vector_index import VectorIndex
from .write_log import WriteLog
from .writer_cache import WriterCache

log = logging.getLogger(__name__)

_MEMORY_COLS = "id, type, text, clip_id, start_time, end_time, weight"


def _memory(row: Sequence) -> Memory:
    return Memory(id=row[0], kind=row[1], text=row[2] or "", clip_id=row[3], start_time=row[4],
                  end_time=row[5], weight=row[6])


class MemoryStore(IndexKeeping, TurnReads, BulkRows, WriteLog):
    """Open (and create/migrate if needed) a memory database: a SQLite file, or a ``postgresql://`` URL (one memory
    that several robots write and read; give each its ``robot`` name).

    ``embedder``: a :class:`~m3_memory.embedders.TextEmbedder`, a config dict/name for ``make_embedder``, or
    ``None`` for the embedded default, created on first use. ``readonly=True`` refuses every write.
    """

    def __init__(self, path: str | Path, config: StoreConfig | dict | None = None,
                 embedder: TextEmbedder | dict | str | None = None, readonly: bool = False, robot: str = "") -> None:
        self.config = config if isinstance(config, StoreConfig) else StoreConfig.from_dict(config)
        self.readonly = readonly
        # which robot this process is, when several share the memory ("" = the store's only robot): its clips are
        # numbered by the store and keep the robot's own clip number; its pose track is its own
        self.robot = check_robot_name(robot)
        self._lock = threading.RLock()
        if is_postgres_url(path):   # one memory shared by several robots (m3_memory/store/pg)
            self.engine, self.location = "postgresql", redact_url(str(path))
            self.path = Path(self.location)   # a name only: no file of this store is on this machine
            self.conn = PgConnection(str(path), readonly=readonly,   # type: ignore[assignment]
                                     busy_timeout_ms=self.config.busy_timeout_ms)
            if not readonly:   # under the write lock: robots starting at once must not create it twice
                self.conn.execute("BEGIN IMMEDIATE")
                try:
                    for stmt in PG_PREPARE:
                        self.conn.execute(stmt)
                except BaseException:
                    self.conn.execute("ROLLBACK")
                    raise
                self.conn.execute("COMMIT")
        else:
            self.engine, self.path = "sqlite", Path(path)
            self.location = str(self.path)
            if self.config.vector_search == "server":
                raise StoreError("vector_search = 'server' is pgvector's index in PostgreSQL; a SQLite store "
                                 f"({self.location}) searches its own index (vector_search: local)")
            if readonly and not self.path.exists():
                raise FileNotFoundError(f"memory database not found: {self.path}")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False,
                                        timeout=self.config.busy_timeout_ms / 1000)
            self.conn.execute(f"PRAGMA busy_timeout = {int(self.config.busy_timeout_ms)}")
            if not readonly:
                self._wal_mode()
            self.conn.execute(f"PRAGMA synchronous = {self.config.synchronous}")
            self.conn.execute(f"PRAGMA cache_size = {-1024 * int(self.config.cache_mb)}")
            self.conn.execute("PRAGMA foreign_keys = ON")
        migrate(self.conn) if not readonly else self._check_schema()
        self._embedder_spec = embedder
        self._embedder: TextEmbedder | None = embedder if hasattr(embedder, "embed") else None  # type: ignore
        self._index: VectorIndex | None = None
        self._last_seq = 0
        self._data_version = -1
        self._characters: dict[tuple, Characters] = {}   # by what a time bound sees; a new dict on any change
        self._char_rows: tuple | None = None   # entities and equivalences by time, for that dict (characters())
        self._tx = 0                          # write transactions begun (the writer cache is checked per one)
        self._wcache = WriterCache()          # semantic memories per entity, face/voice embeddings
        self._clip_changes: list[tuple[int, str]] | None = None   # the open clip's change log (begin_clip)
        self._clip_deltas: list[tuple[int, float]] | None = None   # its edge weight changes, until its lock
        self._index_dir: Path | None = self._index_location() if self.config.index_persist else None
        self._index_header: Header | None = None
        self._index_saved: tuple[int, int] | None = None   # (seq, builds) of the last save
        self.index_note = ""                  # how the vector index was opened (loaded, or rebuilt and why)
        self._checkpointer: Checkpointer | None = None   # started by the first clip written
        self._dim: str | None = None          # the declared text embedding dim (meta), once known

    def _wal_mode(self) -> None:
        """``PRAGMA journal_mode = WAL``, retried within the busy timeout: two writers creating one file at the same
        moment (two robots started together) get SQLITE_BUSY from it at once, without the busy handler."""
        deadline = time.monotonic() + self.config.busy_timeout_ms / 1000
        while True:
            try:
                self.conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def _index_location(self) -> Path | None:
        """Where the vector index is saved: beside a SQLite file; for PostgreSQL in this machine's index cache, one
        folder per store (its id), so every robot and reader on the machine shares one copy."""
        if self.engine == "sqlite":
            return None if str(self.path) == ":memory:" else index_dir(self.path)
        store_id = self.meta("store_id")
        root = Path(self.config.index_cache_dir or Path.home() / ".cache" / "m3_agent" / "index").expanduser()
        return root / f"pg-{store_id}.index" if store_id else None

    def side_connection(self) -> sqlite3.Connection:
        """A read-only connection of its own (for a background thread), to the same store."""
        if self.engine == "postgresql":
            return PgConnection(self.conn.url, readonly=True)  # type: ignore[attr-defined,return-value]
        return sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=10)

    def _check_schema(self) -> None:
        from .schema import SCHEMA_VERSION, current_version

        v = current_version(self.conn)
        if v == 0 and self.engine == "postgresql":   # the database exists (it connected) but holds no memory
            raise FileNotFoundError(f"no memory store in {self.location} (open it read-write once to create it)")
        if v != SCHEMA_VERSION:
            raise StoreError(f"{self.location}: schema version {v}, expected {SCHEMA_VERSION} (open it read-write "
                             "once to migrate)")

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Close the database; the vector index is saved beside it first (see :mod:`m3_memory.store.index_files`)."""
        with self._lock:
            if self._checkpointer is not None:
                self._checkpointer.close()
                self._checkpointer = None
            if self._index is not None:
                self._finish_index_for_readers()
                self._index.close()
                self._save_index(self._index)
                self._index = None
            self.conn.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ meta
    def meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: object) -> None:
        """Set a ``meta`` value inside the caller's transaction (``with store.transaction():``)."""
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, str(value)))

    # ------------------------------------------------------------------ time
    def timeline(self) -> Timeline:
        """How this memory's stream seconds map to the wall clock (:mod:`m3_memory.timeline`)."""
        origin = self.meta(META_ORIGIN)
        return Timeline(float(origin) if origin is not None else None, self.meta(META_ZONE) or "UTC")

    def anchor_wall_clock(self, stamp: float, zone: str) -> Timeline:
        """Make ``stamp`` (epoch seconds) this memory's stream time 0 unless it already has a wall origin (the first
        wall-clock stream wins, so stream time continues across restarts); returns the timeline in force."""
        self.require_writable()
        if not math.isfinite(stamp) or stamp < WALL_STAMP_MIN:
            raise StoreError(f"{stamp!r} is not a wall-clock stamp (epoch seconds)")
        check_zone(zone)
        with self.transaction():
            if self.meta(META_ORIGIN) is None:
                if self.conn.execute("SELECT 1 FROM clips LIMIT 1").fetchone() is not None:
                    raise StoreError("this memory already holds clips in stream time: a wall-clock stream cannot "
                                     "join it (use a new database for the robot)")
                self.set_meta(META_ORIGIN, f"{round(stamp, 3):.3f}")
                self.set_meta(META_ZONE, zone)
        return self.timeline()

    # ------------------------------------------------------------------ embedder
    @property
    def embedder(self) -> TextEmbedder:
        if self._embedder is None:
            spec = self._embedder_spec
            self._embedder = make_embedder(spec if not hasattr(spec, "embed") else None)  # type: ignore
        return self._embedder

    def _check_embedder(self, writing: bool) -> TextEmbedder:
        emb = self.embedder
        name, dim = self.meta("embedder_name"), self.meta("embedder_dim")
        if name is None:
            if writing:
                self.set_meta("embedder_name", emb.name)
                self.set_meta("embedder_dim", emb.dim)
            return emb
        if name != emb.name or int(dim or 0) != emb.dim:
            raise StoreError(
                f"{self.location} holds text embeddings from {name!r} ({dim}-d) but the configured embedder is "
                f"{emb.name!r} ({emb.dim}-d); configure the same embedder (e.g. an OpenAI-compatible endpoint for "
                "text-embedding-3-large) or import upstream pickles with --reembed"
            )
        return emb

    def declare_embedder(self, name: str, dim: int) -> None:
        """Record which model made the text vectors written with explicit ``vector=`` (e.g. an import)."""
        self.require_writable()
        have = self.meta("embedder_name")
        if have is not None and (have != name or int(self.meta("embedder_dim") or 0) != dim):
            raise StoreError(f"{self.location} already holds vectors from {have!r}; cannot mix with {name!r}")
        with self.transaction():
            self.set_meta("embedder_name", name)
            self.set_meta("embedder_dim", dim)

    def _check_vector_dim(self, dim: int) -> None:
        stored = self._dim or self.meta("embedder_dim")
        if stored is not None:
            self._dim = stored  # declared once, never changes: read it once (it is checked at every insert)
        if stored is None:
            raise StoreError("vectors given without an embedder: call declare_embedder(name, dim) first")
        if int(stored) != dim:
            raise EmbeddingError(f"text vector dim {dim} != the store's {stored}")

    def embed_texts(self, texts: Sequence[str], writing: bool = False) -> np.ndarray:
        return self._check_embedder(writing).embed(list(texts))

    # ------------------------------------------------------------------ characters
    def _character_rows(self) -> tuple:
        """Entities and equivalences with the stream time each becomes visible, read once per change of them (a
        new ``_characters`` dict, see ``refresh``), so a question at "now" -- a new time bound each time -- costs
        two binary searches instead of two queries."""
        rows = self._char_rows
        if rows is None or rows[0] is not self._characters:
            ents = self.conn.execute("SELECT id, type, character_seed, start_time FROM nodes "
                                     "WHERE type IN ('face', 'voice') ORDER BY id").fetchall()
            groups: dict[int, list] = {}
            # from the few equivalence nodes (their partial index) to their edges (CROSS JOIN fixes the loop
            # order): SQLite's own plan scanned every edge (156 ms at 1M memories, 1.4 s from a cold disk)
            for tid, eid, end in self.conn.execute(
                    "SELECT e.text_id, e.entity_id, n.end_time FROM nodes n "
                    "CROSS JOIN edges e ON e.text_id = n.id WHERE n.is_equivalence = 1 AND e.weight > 0 "
                    "ORDER BY e.text_id, e.entity_id"):
                groups.setdefault(tid, [end, []])[1].append(eid)
            ent_t = np.array([np.inf if r[3] is None else r[3] for r in ents], dtype=np.float64)
            grp = list(groups.values())
            grp_t = np.array([np.inf if g[0] is None else g[0] for g in grp], dtype=np.float64)
            oe, og = np.argsort(ent_t, kind="stable"), np.argsort(grp_t, kind="stable")
            rows = self._char_rows = (self._characters, [ents[i][:3] for i in oe.tolist()], ent_t[oe],
                                      [grp[i][1] for i in og.tolist()], grp_t[og])
        return rows

    def characters(self, before_time: float | None = None) -> Characters:
        """Characters from the equivalences visible at ``before_time`` (all when None)."""
        with self._lock:
            self.refresh()
            _, ents, ent_t, groups, grp_t = self._character_rows()
            if before_time is None:
                key: tuple = (len(ents), len(groups), None)
            else:  # entities started and equivalences written by the bound (as SQL's "<= bound + 1e-9")
                b = before_time + 1e-9
                key = (int(np.searchsorted(ent_t, b, "right")), int(np.searchsorted(grp_t, b, "right")), 0)
            cached = self._characters.get(key)
            if cached is not None:
                return cached
            chars = resolve(ents[: key[0]], groups[: key[1]])
            if len(self._characters) > 64:
                self._characters.clear()
            self._characters[key] = chars
            return chars

    def character_members(self, before_time: float | None = None) -> dict[int, list[str]]:
        chars = self.characters(before_time)
        return {cid: chars.member_tags(cid) for cid in chars.members}

    def translate(self, text: str, names: bool = False, before_time: float | None = None,
                  hide_equivalences: bool = True) -> str:
        """Raw ``<face_N>``/``<voice_N>`` -> ``<character_k>`` (or the character's name with ``names=True``).

        Equivalence statements translate to "" (the control model never sees them), as upstream.
        """
        if hide_equivalences and is_equivalence(text):
            return ""
        chars = self.characters(before_time)
        known = self.character_names() if names else {}

        def fn(kind: str, nid: int) -> str | None:
            cid = chars.character_of(nid) if kind != "character" else chars.resolve_alias(nid)
            if cid is None:
                return None
            return known.get(cid) or character_tag(cid)

        return replace_tags(text, fn)

    def entity_ids_in(self, text: str, before_time: float | None = None) -> list[int]:
        """Entity node ids referred to by the tags in ``text`` (characters expand to their members)."""
        chars = self.characters(before_time)
        known = {m for members in chars.members.values() for m in members}
        out: list[int] = []
        for kind, nid in find_tags(text):
            if kind == "character":
                cid = chars.resolve_alias(nid)
                out.extend(m for _, m in chars.members.get(cid, []) if cid is not None)
            elif (kind, nid) in known:
                out.append(nid)
        return list(dict.fromkeys(out))

    # ------------------------------------------------------------------ names
    def character_names(self) -> dict[int, str]:
        chars = self.characters()
        by_seed = dict(self.conn.execute("SELECT seed, name FROM character_names").fetchall())
        names: dict[int, str] = {}
        for cid, members in chars.members.items():
            seeds = sorted(chars.seed_of[m] for _, m in members)
            for s in seeds:
                if s in by_seed:
                    names[cid] = by_seed[s]
                    break
        return names

    def set_character_name(self, character_id: int, name: str, source: str = "user") -> None:
        self.require_writable()
        name = " ".join(str(name).split())
        if not name or len(name) > 200:
            raise StoreError("a character name must be 1-200 characters")
        chars = self.characters()
        cid = chars.resolve_alias(character_id)
        if cid is None:
            raise UnknownCharacterError(f"unknown character {character_id}")
        with self.transaction():
            self.conn.execute("INSERT OR REPLACE INTO character_names (seed, name, source, updated_at) "
                              "VALUES (?, ?, ?, ?)", (cid, name, source, time.time()))

    # ------------------------------------------------------------------ writing
    def require_writable(self) -> None:
        if self.readonly:
            raise ReadOnlyStoreError(f"{self.location} is open read-only")

    @contextlib.contextmanager
    def transaction(self, lock_at_commit: bool = False) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT, ROLLBACK on any error). ``lock_at_commit``: on
        PostgreSQL the write lock is taken only to log and commit (a clip: :meth:`begin_clip`), so several
        robots write at once; SQLite has one writer per file and takes it at the start either way."""
        self.require_writable()
        with self._lock:
            self.conn.execute("BEGIN DEFERRED" if lock_at_commit and self.engine == "postgresql"
                              else "BEGIN IMMEDIATE")
            self._tx += 1
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                self._wcache.invalidate()  # it may hold this transaction's writes
                raise
            self.conn.execute("COMMIT")
            if self._index is not None or self._keeps_index():
                self.refresh(own_write=True)
            self._characters = {}

    @contextlib.contextmanager
    def begin_clip(self, clip_id: int, start_time: float, end_time: float, source: str | None = None,
                   extra: dict | None = None) -> Iterator[ClipWriter]:
        """Write one clip atomically: ``with store.begin_clip(3, 90.0, 120.0) as w: w.add_memory(...)``."""
        if not (np.isfinite(start_time) and np.isfinite(end_time)) or end_time < start_time:
            raise StoreError(f"clip {clip_id}: invalid time range [{start_time}, {end_time}]")
        if self._checkpointer is None and self.config.checkpoint_interval_s > 0 and not self.readonly \
                and str(self.path) != ":memory:" and self.engine == "sqlite":
            self.conn.execute("PRAGMA wal_autocheckpoint = 16384")  # a safety net: the thread checkpoints first
            self._checkpointer = Checkpointer(self, self.path, self.config.checkpoint_interval_s,
                                              self.config.synchronous)
        with self.transaction(lock_at_commit=True):
            if self.engine == "postgresql":   # the writer cache's catch-up read goes with the clip number's
                self._wcache.send_ahead(self.conn, self._tx)
            stream_clip, clip_id = self._clip_number(int(clip_id))
            writer = ClipWriter(self, clip_id, float(start_time), float(end_time))
            writer._changes = self._clip_changes = []
            # on PostgreSQL, reinforcing and weakening memories (rows that exist: row locks) waits for the lock
            self._clip_deltas = [] if self.engine == "postgresql" else None
            writer.extra.update(extra or {})
            try:
                yield writer
                if self.engine == "postgresql":   # the change log is written in commit order: under the lock
                    self.conn.take_write_lock()  # type: ignore[attr-defined]
                deltas, self._clip_deltas = self._clip_deltas, None
                if deltas:
                    self._edge_deltas(deltas)
            finally:
                self._clip_changes = self._clip_deltas = None
            own = writer._flush_changes()
            if self._wcache.mark(self.conn, self._tx, own):
                raise ClipConflictError(f"clip {clip_id}: a person or memory it may name was deleted (forget, split, "
                                        "merge) while it was written; nothing of it was stored: write it again")
            pose = writer.clip_pose  # where the robot was at the clip's middle (m3_memory.store.where), if known
            self.conn.execute(
                "INSERT INTO clips (id, start_time, end_time, source, committed_at, extra, x, y, yaw, frame, robot, "
                "stream_clip) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (clip_id, start_time, end_time, source, time.time(),
                 json.dumps(writer.extra, default=str) if writer.extra else None,
                 *((pose.x, pose.y, pose.yaw, pose.frame) if pose is not None else (None,) * 4),
                 self.robot or None, stream_clip))

    def _clip_number(self, stream_clip: int) -> tuple[int | None, int]:
        """(the robot's own clip number, the store's clip id) of a clip about to be written (in its transaction).

        One robot: the clip id is the stream's clip number. A named robot: the store numbers the clip (the next id,
        under the write lock) and keeps the robot's number, so two robots' clip 7 are two clips."""
        if not self.robot:
            if self.conn.execute("SELECT 1 FROM clips WHERE id = ?", (stream_clip,)).fetchone():
                raise StoreError(f"clip {stream_clip} is already committed")
            if self.conn.execute("SELECT 1 FROM clips WHERE robot IS NOT NULL LIMIT 1").fetchone():
                raise StoreError(f"{self.location} is shared by named robots: open it with a robot name (robot_name)")
            return None, stream_clip
        taken = self.conn.execute("SELECT 1 FROM clips WHERE robot = ? AND stream_clip = ?", (self.robot, stream_clip))
        if self.engine == "postgresql":   # robots writing at once: from the sequence (see transaction()); the two
            # reads wait for the server once (an id taken for a clip refused here is skipped, never given twice)
            clip_id = self.conn.reserve_ids("clips", 1, block=1)[0]  # type: ignore[attr-defined]
        else:
            clip_id = int(self.conn.execute("SELECT coalesce(max(id), -1) + 1 FROM clips").fetchone()[0])
        if taken.fetchone():
            raise StoreError(f"clip {stream_clip} of {self.robot} is already committed")
        return stream_clip, clip_id

    def last_clip(self) -> tuple[int, float, float] | None:
        """The last committed clip (id, start, end) of this robot (of any, for the store's only robot)."""
        mine = " WHERE robot = ?" if self.robot else ""
        row = self.conn.execute(f"SELECT id, start_time, end_time FROM clips{mine} ORDER BY end_time DESC, id DESC "
                                "LIMIT 1", (self.robot,) if self.robot else ()).fetchone()
        return tuple(row) if row else None  # type: ignore[return-value]

    def robots(self) -> list[str]:
        """The named robots that wrote clips into this memory."""
        return [r[0] for r in self.conn.execute("SELECT DISTINCT robot FROM clips WHERE robot IS NOT NULL "
                                                "ORDER BY robot")]

    def clip_robots(self, clip_ids: Iterable[int]) -> dict[int, str]:
        """Which robot wrote each clip (clips of the store's only robot are left out)."""
        return {int(r[0]): r[1] for r in select_in(self.conn, "SELECT id, robot FROM clips WHERE robot IS NOT NULL "
                                                   "AND id IN ({})", dict.fromkeys(int(c) for c in clip_ids))}

    # ------------------------------------------------------------------ forget
    def forget_character(self, character_id: int, *, checkpoint_timeout_s: float = 10.0,
                         vacuum: bool = False) -> ForgetReport:
        """Delete a person everywhere (privacy delete, see :mod:`m3_memory.store.forget`): their face/voice nodes with
        embeddings, contents, turns and names, the memories about only them and every equivalence involving them;
        memories that also mention others keep their text with the person's tags and names replaced by
        ``<redacted>``. Works on any store (a store made by another embedder gets the rewritten memories' vectors
        dropped instead of re-embedded). ``report.checkpointed`` is False when other connections kept the WAL
        checkpoint from finishing within ``checkpoint_timeout_s``: call :meth:`checkpoint` once they are closed."""
        from . import index_files
        from .forget import forget_character

        report = forget_character(self, character_id, checkpoint_timeout_s=checkpoint_timeout_s, vacuum=vacuum)
        if self._index_dir is not None:  # the persisted index may hold the deleted memories' vectors
            index_files.purge(self._index_dir)
            self._index_saved = None
            if self._index_header is not None:
                self._index_header = self._header()   # the new forget epoch
        return report

    def checkpoint(self, timeout_s: float = 10.0) -> CheckpointResult:
        """``PRAGMA wal_checkpoint(TRUNCATE)``, retried until done or ``timeout_s``; ``.ok`` says if it was done."""
        from .forget import checkpoint_truncate

        self.require_writable()
        with self._lock:
            return checkpoint_truncate(self.conn, timeout_s)

    # ------------------------------------------------------------------ people corrections (see corrections.py)
    def merge_characters(self, a: int, b: int, origin: str = "") -> int:
        """Join two characters (a user's equivalence memory); returns the merged (older) id. Logged in ``edits``."""
        from .corrections import merge_characters

        return merge_characters(self, a, b, origin)

    def split_link(self, memory_id: int, origin: str = "") -> list[int]:
        """Remove a wrong equivalence and refuse its pairs from now on; returns the characters afterwards."""
        from .corrections import split_link

        return split_link(self, memory_id, origin)

    # ------------------------------------------------------------------ reading
    def get_memories(self, ids: Iterable[int]) -> list[Memory]:
        ids = list(ids)
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = self.conn.execute(f"SELECT {_MEMORY_COLS} FROM nodes WHERE id IN ({marks})", ids).fetchall()
        by_id = {r[0]: _memory(r) for r in rows}
        return [by_id[i] for i in ids if i in by_id]

    def clip_memories(self, clip_id: int) -> list[Memory]:
        rows = self.conn.execute(f"SELECT {_MEMORY_COLS} FROM nodes WHERE clip_id = ? AND type IN "
                                 "('episodic', 'semantic')", (clip_id,)).fetchall()
        return [_memory(r) for r in sorted(rows)]   # (sorted here: ORDER BY id may walk the primary key instead)

    def entities(self, kind: str | None = None, before_time: float | None = None) -> list[Entity]:
        chars = self.characters()
        q = ("SELECT n.id, n.type, n.character_seed, n.clip_id, n.start_time, n.end_time, "
             "(SELECT count(*) FROM embeddings e WHERE e.node_id = n.id), "
             "(SELECT count(*) FROM contents c WHERE c.node_id = n.id) FROM nodes n WHERE n.type IN ('face','voice')")
        args: list = []
        if kind:
            q += " AND n.type = ?"
            args.append(kind)
        if before_time is not None:
            q += " AND n.start_time <= ?"
            args.append(before_time + 1e-9)
        return [Entity(id=r[0], kind=r[1], seed=r[2], character_id=chars.of_entity.get(r[0], r[2]), clip_id=r[3],
                       start_time=r[4], end_time=r[5], n_embeddings=r[6], n_contents=r[7])
                for r in self.conn.execute(q + " ORDER BY n.id", args)]

    def entity_embeddings(self, node_id: int) -> np.ndarray:
        rows = self.conn.execute("SELECT vector FROM embeddings WHERE node_id = ? ORDER BY id", (node_id,)).fetchall()
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        return np.frombuffer(b"".join(r[0] for r in rows), dtype=np.float32).reshape(len(rows), -1)

    def entity_contents(self, node_id: int) -> list[dict]:
        return [dict(zip(("kind", "clip_id", "score", "text", "data"), r, strict=True)) for r in self.conn.execute(
            "SELECT kind, clip_id, score, text, data FROM contents WHERE node_id = ? ORDER BY id", (node_id,))]

    def _db_bytes(self) -> int:
        if self.engine == "postgresql":
            return int(self.conn.execute("SELECT pg_database_size(current_database())").fetchone()[0])
        return self.path.stat().st_size if self.path.exists() else 0

    def stats(self) -> dict:
        counts = dict(self.conn.execute("SELECT type, count(*) FROM nodes GROUP BY type").fetchall())
        chars = self.characters()
        return {
            "path": self.location,
            "engine": self.engine,
            "schema_version": int(self.meta("schema_version") or 0),
            "embedder": self.meta("embedder_name"),
            "embedder_dim": int(self.meta("embedder_dim") or 0) or None,
            "clips": self.conn.execute("SELECT count(*) FROM clips").fetchone()[0],
            "nodes": {k: counts.get(k, 0) for k in ("face", "voice", "episodic", "semantic")},
            "edges": self.conn.execute("SELECT count(*) FROM edges").fetchone()[0],
            "equivalences": self.conn.execute("SELECT count(*) FROM nodes WHERE is_equivalence = 1").fetchone()[0],
            "characters": len(chars.members),
            "last_clip": self.last_clip(),
            "gaps": self.conn.execute("SELECT count(*) FROM gaps").fetchone()[0],
            "crashed_runs": self.conn.execute("SELECT count(*) FROM runs WHERE status = 'crashed'").fetchone()[0],
            "db_bytes": self._db_bytes(),
        }

    # ------------------------------------------------------------------ retrieval (see retrieval.py)
    def search_clips(self, query: str, topk: int = 2, threshold: float | None = None,
                     before_time: float | None = None, exclude_clips: Iterable[int] = ()) -> list[ClipHit]:
        from .retrieval import search_clips

        return search_clips(self, query, topk, self.config.search_threshold if threshold is None else threshold,
                            before_time, set(exclude_clips))

    def search_nodes(self, query: str, topk: int = 20, before_time: float | None = None,
                     kinds: Sequence[str] = TEXT_KINDS) -> list[Memory]:
        from .retrieval import search_nodes

        return search_nodes(self, query, topk, before_time, tuple(kinds))

    def query_variants(self, query: str, before_time: float | None = None) -> list[str]:
        return back_translate(query, self.character_members(before_time))
