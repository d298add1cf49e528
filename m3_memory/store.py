"""The entity-centric memory graph, persisted in SQLite (WAL) and searched through an in-memory index.

One process writes (memorization), any number read (control, CLI, evaluation) at the same time:

* every clip is written in ONE ``BEGIN IMMEDIATE`` transaction (:meth:`MemoryStore.begin_clip`), so a killed
  writer leaves either the whole clip or none of it;
* readers never block in WAL mode; before each search a reader applies the rows of the ``changes`` log it
  has not seen to its vector index (cheap when nothing changed: one ``PRAGMA data_version``);
* the vector index and the character table are derived data: the index is saved beside the database
  (:mod:`m3_memory.index_files`) and loaded at open with the changes since replayed, or rebuilt from SQLite;
* the writer keeps what its inserts compare against in memory (:mod:`m3_memory.writer_cache`) and checkpoints
  the WAL from a background thread (:mod:`m3_memory.checkpointer`).
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
import sqlite_utils

from .characters import Characters, resolve
from .checkpointer import Checkpointer
from .config import StoreConfig
from .corrections import split_between
from .embedders import EmbeddingError, TextEmbedder, make_embedder, normalize_rows
from .errors import StoreError
from .index_files import Header, IndexFileError, index_dir
from .poses import Pose
from .records import (
    ENTITY_KINDS,
    TEXT_KINDS,
    CheckpointResult,
    ClipHit,
    Entity,
    ForgetReport,
    InsertResult,
    Memory,
)
from .schema import migrate
from .tags import back_translate, character_tag, find_tags, is_equivalence, replace_tags
from .timeline import META_ORIGIN, META_ZONE, WALL_STAMP_MIN, Timeline, check_zone
from .vector_index import IndexParams, VectorIndex
from .writer_cache import WriterCache

log = logging.getLogger(__name__)

_MEMORY_COLS = "id, type, text, clip_id, start_time, end_time, weight"


def _blob(vec: np.ndarray) -> bytes:
    return np.ascontiguousarray(vec, dtype=np.float32).tobytes()


def _memory(row: Sequence) -> Memory:
    return Memory(id=row[0], kind=row[1], text=row[2] or "", clip_id=row[3], start_time=row[4],
                  end_time=row[5], weight=row[6])


class MemoryStore:
    """Open (and create/migrate if needed) a memory database.

    ``embedder``: a :class:`~m3_memory.embedders.TextEmbedder`, a config dict/name for ``make_embedder``, or
    ``None`` for the embedded default, created on first use. ``readonly=True`` refuses every write.
    """

    def __init__(self, path: str | Path, config: StoreConfig | dict | None = None,
                 embedder: TextEmbedder | dict | str | None = None, readonly: bool = False) -> None:
        self.path = Path(path)
        self.config = config if isinstance(config, StoreConfig) else StoreConfig.from_dict(config)
        self.readonly = readonly
        if readonly and not self.path.exists():
            raise FileNotFoundError(f"memory database not found: {self.path}")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self.conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False,
                                    timeout=self.config.busy_timeout_ms / 1000)
        self.conn.execute(f"PRAGMA busy_timeout = {int(self.config.busy_timeout_ms)}")
        if not readonly:
            self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute(f"PRAGMA synchronous = {self.config.synchronous}")
        self.conn.execute(f"PRAGMA cache_size = {-1024 * int(self.config.cache_mb)}")
        self.conn.execute("PRAGMA foreign_keys = ON")
        migrate(self.conn) if not readonly else self._check_schema()
        self.db = sqlite_utils.Database(self.conn)
        self._embedder_spec = embedder
        self._embedder: TextEmbedder | None = embedder if hasattr(embedder, "embed") else None  # type: ignore
        self._index: VectorIndex | None = None
        self._last_seq = 0
        self._data_version = -1
        self._characters: dict[tuple, Characters] = {}   # by what a time bound sees; a new dict on any change
        self._char_rows: tuple | None = None   # entities and equivalences by time, for that dict (characters())
        self._tx = 0                          # write transactions begun (the writer cache is checked per one)
        self._wcache = WriterCache()          # semantic memories per entity, face/voice embeddings
        persist = self.config.index_persist and str(path) != ":memory:"
        self._index_dir: Path | None = index_dir(self.path) if persist else None
        self._index_header: Header | None = None
        self._index_saved: tuple[int, int] | None = None   # (seq, builds) of the last save
        self.index_note = ""                  # how the vector index was opened (loaded, or rebuilt and why)
        self._checkpointer: Checkpointer | None = None   # started by the first clip written
        self._dim: str | None = None          # the declared text embedding dim (meta), once known

    def _check_schema(self) -> None:
        from .schema import SCHEMA_VERSION, current_version

        v = current_version(self.conn)
        if v != SCHEMA_VERSION:
            raise StoreError(f"{self.path}: schema version {v}, expected {SCHEMA_VERSION} (open it read-write "
                             "once to migrate)")

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Close the database; the vector index is saved beside it first (see :mod:`m3_memory.index_files`)."""
        with self._lock:
            if self._checkpointer is not None:
                self._checkpointer.close()
                self._checkpointer = None
            if self._index is not None:
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

    def _set_meta(self, key: str, value: object) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, str(value)))

    # ------------------------------------------------------------------ time
    def timeline(self) -> Timeline:
        """How this memory's stream seconds map to the wall clock (:mod:`m3_memory.timeline`)."""
        origin = self.meta(META_ORIGIN)
        return Timeline(float(origin) if origin is not None else None, self.meta(META_ZONE) or "UTC")

    def anchor_wall_clock(self, stamp: float, zone: str) -> Timeline:
        """Make ``stamp`` (epoch seconds) this memory's stream time 0 unless it already has a wall origin (the first
        wall-clock stream wins, so stream time continues across restarts); returns the timeline in force."""
        self._require_writable()
        if not math.isfinite(stamp) or stamp < WALL_STAMP_MIN:
            raise StoreError(f"{stamp!r} is not a wall-clock stamp (epoch seconds)")
        check_zone(zone)
        with self.transaction():
            if self.meta(META_ORIGIN) is None:
                if self.conn.execute("SELECT 1 FROM clips LIMIT 1").fetchone() is not None:
                    raise StoreError("this memory already holds clips in stream time: a wall-clock stream cannot "
                                     "join it (use a new database for the robot)")
                self._set_meta(META_ORIGIN, f"{round(stamp, 3):.3f}")
                self._set_meta(META_ZONE, zone)
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
                self._set_meta("embedder_name", emb.name)
                self._set_meta("embedder_dim", emb.dim)
            return emb
        if name != emb.name or int(dim or 0) != emb.dim:
            raise StoreError(
                f"{self.path} holds text embeddings from {name!r} ({dim}-d) but the configured embedder is "
                f"{emb.name!r} ({emb.dim}-d); configure the same embedder (e.g. an OpenAI-compatible endpoint for "
                "text-embedding-3-large) or import upstream pickles with --reembed"
            )
        return emb

    def declare_embedder(self, name: str, dim: int) -> None:
        """Record which model made the text vectors written with explicit ``vector=`` (e.g. an import)."""
        self._require_writable()
        have = self.meta("embedder_name")
        if have is not None and (have != name or int(self.meta("embedder_dim") or 0) != dim):
            raise StoreError(f"{self.path} already holds vectors from {have!r}; cannot mix with {name!r}")
        with self.transaction():
            self._set_meta("embedder_name", name)
            self._set_meta("embedder_dim", dim)

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

    # ------------------------------------------------------------------ keeping derived data in step
    def refresh(self, force: bool = False, own_write: bool = False) -> None:
        """Apply committed changes from any process to the vector index and character cache.

        ``PRAGMA data_version`` tells cheaply whether another connection committed; our own commits don't
        change it, so the writer passes ``own_write=True`` after each transaction. The first call opens the
        index: the persisted one (then the changes after it are replayed here), else a rebuild; ``force``
        rebuilds from the database."""
        with self._lock:
            dv = self.conn.execute("PRAGMA data_version").fetchone()[0]
            if not (force or own_write) and self._index is not None and dv == self._data_version:
                return
            self._data_version = dv
            if force or (self._index is None and not self._load_index()):
                self._full_load()
                return
            lo = self.conn.execute("SELECT min(seq) FROM changes").fetchone()[0]
            if lo is not None and lo > self._last_seq + 1:  # log was pruned past us: reload everything
                self._full_load()
                return
            rows = self.conn.execute("SELECT seq, node_id, op FROM changes WHERE seq > ? ORDER BY seq",
                                     (self._last_seq,)).fetchall()
            if rows:
                self._apply_changes(rows)

    def _new_index(self, dim: int) -> VectorIndex:
        if self._index is not None:
            self._index.close()
        idx = VectorIndex(dim, self._index_params())
        idx.on_built = self._save_index
        return idx

    def _header(self) -> Header:
        return Header(self.meta("store_id"), self.meta("embedder_name"), int(self.meta("embedder_dim") or 0),
                      self.config.index_dtype, self.config.hnsw_m)

    def _load_index(self) -> bool:
        """Open the persisted index (True; the caller replays the changes after it) or say why not (False)."""
        from . import index_files

        self._index_header = header = self._header()
        if self._index_dir is None or not header.dim:
            self.index_note = "rebuilt from the database: " + ("no text vectors yet" if not header.dim
                                                               else "index persistence is off")
            return False
        t0 = time.perf_counter()
        try:
            idx = index_files.load(self._index_dir, header, self._index_params())
            # two queries: each is one b-tree descent, min and max in one statement scan the whole log
            hi = self.conn.execute("SELECT coalesce(max(seq), 0) FROM changes").fetchone()[0]
            lo = self.conn.execute("SELECT min(seq) FROM changes").fetchone()[0]
            if idx.seq > hi:
                idx.close()
                raise IndexFileError(f"the index is at change {idx.seq}, the database at {hi} (an older copy?)")
            if lo is not None and lo > idx.seq + 1:
                idx.close()
                raise IndexFileError(f"the change log starts at {lo}, after the index's {idx.seq}")
        except IndexFileError as e:
            missing = not (self._index_dir / index_files.MANIFEST).exists()
            self.index_note = f"rebuilt from the database: {e}"
            (log.debug if missing else log.warning)("vector index of %s %s", self.path, self.index_note)
            return False
        idx.on_built = self._save_index
        self._index, self._last_seq, self._characters = idx, idx.seq, {}
        self._index_saved = (idx.seq, idx.built_at)
        self.index_note = (f"loaded {len(idx.segments)} segments, {idx.n} rows at change {idx.seq} in "
                           f"{time.perf_counter() - t0:.2f} s")
        log.info("vector index of %s: %s", self.path, self.index_note)
        return True

    def _full_load(self) -> None:
        """Rebuild from SQLite: every text vector, in time order, into the exact part; the background builder
        turns them into HNSW segments while exact search serves."""
        self._index_header = self._header()
        self.conn.execute("BEGIN")
        try:
            self._last_seq = self.conn.execute("SELECT coalesce(max(seq), 0) FROM changes").fetchone()[0]
            dim = int(self.meta("embedder_dim") or 0)
            cur = self.conn.execute(
                "SELECT n.id, n.clip_id, n.end_time, e.vector FROM nodes n JOIN embeddings e ON e.node_id = n.id "
                "WHERE n.type IN ('episodic', 'semantic') ORDER BY n.end_time, n.id")
            index = None
            while rows := cur.fetchmany(65536):
                if index is None:
                    index = self._new_index(dim or len(rows[0][3]) // 4)
                index.add(
                    np.array([r[0] for r in rows], dtype=np.int64),
                    np.frombuffer(b"".join(r[3] for r in rows), dtype=np.float32).reshape(len(rows), index.dim),
                    np.array([-1 if r[1] is None else r[1] for r in rows], dtype=np.int64),
                    np.array([np.inf if r[2] is None else r[2] for r in rows], dtype=np.float64),
                )
        finally:
            self.conn.execute("COMMIT")
        self._index = index or self._new_index(dim)
        self._index.seq = self._last_seq
        self._characters = {}
        if self._index.unsaved_build:
            self._index.unsaved_build = False
            self._save_index(self._index)

    def _index_params(self) -> IndexParams:
        c = self.config
        return IndexParams(hnsw_min_size=c.hnsw_min_size, hnsw_m=c.hnsw_m, hnsw_ef_search=c.hnsw_ef_search,
                           hnsw_ef_construction=c.hnsw_ef_construction, exact_subset_max=c.exact_subset_max,
                           exact_max_floats=c.exact_max_floats, segment_rows=c.index_segment_rows,
                           max_segment_rows=c.index_max_segment_rows, dtype=c.index_dtype,
                           background=c.index_background)

    def _apply_changes(self, rows: list[tuple[int, int, str]]) -> None:
        assert self._index is not None
        touched = list(dict.fromkeys(nid for _, nid, op in rows if op in ("add", "upd", "del")))
        if any(op in ("eq", "del") for _, _, op in rows):
            self._characters = {}
        self._last_seq = rows[-1][0]
        found = []
        for i in range(0, len(touched), 30000):  # SQLite allows 32766 variables per statement
            part = touched[i : i + 30000]
            found += self.conn.execute(  # one row per node; only text nodes' vectors (an entity has many)
                f"SELECT n.id, n.type, n.clip_id, n.end_time, (SELECT e.vector FROM embeddings e WHERE e.node_id = "
                f"n.id AND n.type IN ('episodic', 'semantic') LIMIT 1) FROM nodes n "
                f"WHERE n.id IN ({','.join('?' * len(part))})", part).fetchall()
        with_vector = {r[0] for r in found if r[4] is not None}  # deleted, or text whose vector was dropped
        text_rows = [r for r in found if r[1] in TEXT_KINDS and r[4] is not None]
        # characters change with entities added (deleted: "del" above); an entity's "upd" is new embeddings or a
        # later end time, which no character depends on
        added = {nid for _, nid, op in rows if op == "add"}
        if any(r[1] in ENTITY_KINDS and r[0] in added for r in found):
            self._characters = {}
        if text_rows and self._index.dim == 0:
            self._index = self._new_index(len(text_rows[0][4]) // 4)
        index = self._index
        with index.lock:  # the state and its change-log position move together (a save snapshots both)
            index.remove([nid for nid in touched if nid not in with_vector])
            if text_rows:
                index.add(
                    np.array([r[0] for r in text_rows], dtype=np.int64),
                    np.frombuffer(b"".join(r[4] for r in text_rows), dtype=np.float32).reshape(len(text_rows), -1),
                    np.array([-1 if r[2] is None else r[2] for r in text_rows], dtype=np.int64),
                    np.array([np.inf if r[3] is None else r[3] for r in text_rows], dtype=np.float64),
                )
            index.seq = self._last_seq
        if index.unsaved_build:  # built inline (no background thread): save now that the state has its seq
            index.unsaved_build = False
            self._save_index(index)

    def _save_index(self, idx: VectorIndex) -> bool:
        """Persist ``idx`` beside the database (after builds, and at close); True when the files hold its state."""
        from . import index_files

        if self._index_dir is None or self._index_header is None or not idx.segments:
            return False
        state = (idx.seq, idx.built_at)
        if state == self._index_saved:
            return True   # what is on disk is this state
        if idx.pending > max(65536, 4 * idx.p.segment_rows):
            return False  # still catching up: the pending rows would make a big file (saved after the builds)
        try:
            ok = index_files.save(idx, self._index_dir, self._index_header, self._unapplied_deletes)
        except OSError as e:
            log.warning("vector index of %s not saved: %s", self.path, e)
            return False
        if ok:
            self._index_saved = state
        return ok

    def _unapplied_deletes(self, seq: int) -> str | None:
        """Why a state at change ``seq`` must not be saved: a deletion after it (its vectors would be written)."""
        conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
        try:
            row = conn.execute("SELECT seq, op FROM changes WHERE seq > ? AND op IN ('del', 'upd') LIMIT 1",
                               (seq,)).fetchone()
        finally:
            conn.close()
        return f"change {row[0]} ({row[1]}) is not applied yet" if row else None

    def flush_index(self) -> bool:
        """Save the vector index now (it is saved after background builds and at close anyway)."""
        with self._lock:
            self.refresh()
            return self._index is not None and self._save_index(self._index)

    @property
    def index(self) -> VectorIndex:
        self.refresh()
        assert self._index is not None
        return self._index

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
        self._require_writable()
        name = " ".join(str(name).split())
        if not name or len(name) > 200:
            raise StoreError("a character name must be 1-200 characters")
        chars = self.characters()
        cid = chars.resolve_alias(character_id)
        if cid is None:
            raise StoreError(f"unknown character {character_id}")
        with self.transaction():
            self.conn.execute("INSERT OR REPLACE INTO character_names (seed, name, source, updated_at) "
                              "VALUES (?, ?, ?, ?)", (cid, name, source, time.time()))

    # ------------------------------------------------------------------ writing
    def _require_writable(self) -> None:
        if self.readonly:
            raise StoreError(f"{self.path} is open read-only")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT, ROLLBACK on any error)."""
        self._require_writable()
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            self._tx += 1
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                self._wcache.invalidate()  # it may hold this transaction's writes
                raise
            self.conn.execute("COMMIT")
            if self._index is not None:
                self.refresh(own_write=True)
            self._characters = {}

    @contextlib.contextmanager
    def begin_clip(self, clip_id: int, start_time: float, end_time: float, source: str | None = None,
                   extra: dict | None = None) -> Iterator[ClipWriter]:
        """Write one clip atomically: ``with store.begin_clip(3, 90.0, 120.0) as w: w.add_memory(...)``."""
        if not (np.isfinite(start_time) and np.isfinite(end_time)) or end_time < start_time:
            raise StoreError(f"clip {clip_id}: invalid time range [{start_time}, {end_time}]")
        if self._checkpointer is None and self.config.checkpoint_interval_s > 0 and not self.readonly \
                and str(self.path) != ":memory:":
            self.conn.execute("PRAGMA wal_autocheckpoint = 16384")  # a safety net: the thread checkpoints first
            self._checkpointer = Checkpointer(self, self.path, self.config.checkpoint_interval_s,
                                              self.config.synchronous)
        with self.transaction():
            if self.conn.execute("SELECT 1 FROM clips WHERE id = ?", (clip_id,)).fetchone():
                raise StoreError(f"clip {clip_id} is already committed")
            writer = ClipWriter(self, int(clip_id), float(start_time), float(end_time))
            writer._changes = []
            writer.extra.update(extra or {})
            yield writer
            writer._flush_changes()
            self._wcache.mark(self.conn, self._tx)
            pose = writer.clip_pose  # where the robot was at the clip's middle (m3_memory.where), if known
            self.conn.execute(
                "INSERT INTO clips (id, start_time, end_time, source, committed_at, extra, x, y, yaw, frame) "
                "VALUES (?,?,?,?,?,?,?,?,?,?)",
                (clip_id, start_time, end_time, source, time.time(),
                 json.dumps(writer.extra, default=str) if writer.extra else None,
                 *((pose.x, pose.y, pose.yaw, pose.frame) if pose is not None else (None,) * 4)))

    def last_clip(self) -> tuple[int, float, float] | None:
        """The last committed clip (id, start, end): where a restarted memorization resumes."""
        row = self.conn.execute("SELECT id, start_time, end_time FROM clips ORDER BY end_time DESC, id DESC "
                                "LIMIT 1").fetchone()
        return tuple(row) if row else None  # type: ignore[return-value]

    def _log(self, node_id: int, op: str) -> None:
        self.conn.execute("INSERT INTO changes (node_id, op) VALUES (?, ?)", (node_id, op))

    def _next_seed(self) -> int:
        seed = int(self.meta("next_character_seed", "0") or 0)
        self._set_meta("next_character_seed", seed + 1)
        return seed

    def _edge_delta(self, text_id: int, delta: float) -> None:
        """Reinforce (+) / weaken (-) every edge of a text node; edges <= 0 are removed."""
        self.conn.execute("UPDATE edges SET weight = weight + ? WHERE text_id = ?", (delta, text_id))
        gone = []
        if delta < 0:
            gone = self.conn.execute("DELETE FROM edges WHERE text_id = ? AND weight <= 0 RETURNING entity_id",
                                     (text_id,)).fetchall()
            self._wcache.unlink(text_id, {r[0] for r in gone})
        # an equivalence that lost its edges changes who is who: readers recompute characters ("eq"); a weight
        # that only grows (or stays above zero) changes no character
        if self.conn.execute("UPDATE nodes SET weight = weight + ? WHERE id = ? RETURNING is_equivalence",
                             (delta, text_id)).fetchone()[0] and gone:
            self._log(text_id, "eq")

    # ------------------------------------------------------------------ forget
    def forget_character(self, character_id: int, *, checkpoint_timeout_s: float = 10.0,
                         vacuum: bool = False) -> ForgetReport:
        """Delete a person everywhere (privacy delete, see :mod:`m3_memory.forget`): their face/voice nodes with
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
        return report

    def checkpoint(self, timeout_s: float = 10.0) -> CheckpointResult:
        """``PRAGMA wal_checkpoint(TRUNCATE)``, retried until done or ``timeout_s``; ``.ok`` says if it was done."""
        from .forget import checkpoint_truncate

        self._require_writable()
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
                                 "('episodic', 'semantic') ORDER BY id", (clip_id,)).fetchall()
        return [_memory(r) for r in rows]

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

    def stats(self) -> dict:
        counts = dict(self.conn.execute("SELECT type, count(*) FROM nodes GROUP BY type").fetchall())
        chars = self.characters()
        return {
            "path": str(self.path),
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
            "db_bytes": self.path.stat().st_size if self.path.exists() else 0,
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


class ClipWriter:
    """Adds nodes inside one clip transaction. Obtain it from :meth:`MemoryStore.begin_clip`."""

    def __init__(self, store: MemoryStore, clip_id: int, start_time: float, end_time: float) -> None:
        self.store = store
        self.conn = store.conn
        self.clip_id = clip_id
        self.start_time = start_time
        self.end_time = end_time
        self.node_ids: list[int] = []
        self.extra: dict = {}   # stored as the clip row's extra JSON at commit (e.g. processing timings)
        self.cache = store._wcache
        self.cache.validate(self.conn, store._tx)  # (a writer lives inside one transaction)
        self._changes: list[tuple[int, str]] | None = None  # begin_clip buffers the change log until its commit
        self.clip_pose: Pose | None = None  # a poses.Pose stored with the clip row at commit (m3_memory.where)

    def _log(self, node_id: int, op: str) -> None:
        if self._changes is None:
            self.store._log(node_id, op)
        else:
            self._changes.append((node_id, op))

    def _flush_changes(self) -> None:
        if self._changes:
            self.conn.executemany("INSERT INTO changes (node_id, op) VALUES (?, ?)", self._changes)
        self._changes = None

    # -------------------------------------------------------------- entities (faces, voices)
    def _cap(self, kind: str) -> int:
        c = self.store.config
        return c.max_face_embeddings if kind == "face" else c.max_voice_embeddings

    def _check_entity_kind(self, kind: str) -> None:
        if kind not in ENTITY_KINDS:
            raise StoreError(f"entity kind must be one of {ENTITY_KINDS}, got {kind!r}")

    def add_entity(self, kind: str, embeddings: np.ndarray, contents: Sequence[str | bytes] = (),
                   content_kind: str | None = None, scores: Sequence[float] | None = None,
                   node_id: int | None = None) -> int:
        """A new face/voice node with its first embeddings (capped) and contents (crops / voice turns)."""
        self._check_entity_kind(kind)
        embs = normalize_rows(embeddings)
        cur = self.conn.execute(
            "INSERT INTO nodes (id, type, clip_id, start_time, end_time, character_seed, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (node_id, kind, self.clip_id, self.start_time, self.end_time, self.store._next_seed(), time.time()))
        nid = int(cur.lastrowid)  # type: ignore[arg-type]
        self.cache.entity_added(nid, kind)
        self._log(nid, "add")
        self._store_embeddings(nid, embs, self._cap(kind), kind)
        self._store_contents(nid, kind, contents, content_kind, scores)
        self.node_ids.append(nid)
        return nid

    def update_entity(self, node_id: int, embeddings: np.ndarray | None = None,
                      contents: Sequence[str | bytes] = (), content_kind: str | None = None,
                      scores: Sequence[float] | None = None) -> None:
        kind = self.cache.entity_kind(self.conn, node_id)
        if kind is None:
            raise StoreError(f"node {node_id} is not a face/voice node")
        if embeddings is not None and len(embeddings):
            embs = normalize_rows(embeddings)
            self._store_embeddings(node_id, embs, self._cap(kind), kind)
        self._store_contents(node_id, kind, contents, content_kind, scores)
        self.conn.execute("UPDATE nodes SET end_time = max(coalesce(end_time, 0), ?) WHERE id = ?",
                          (self.end_time, node_id))
        self._log(node_id, "upd")
        if node_id not in self.node_ids:
            self.node_ids.append(node_id)

    def _store_embeddings(self, node_id: int, embs: np.ndarray, cap: int, kind: str | None = None) -> None:
        embs = np.ascontiguousarray(embs, dtype=np.float32)
        if kind is not None:  # the node's embeddings are in the writer cache: no read back
            ids_arr, mat = self.cache.entity_embeddings(self.conn, kind, node_id)
            if len(ids_arr) and mat.shape[1] != embs.shape[1]:
                raise StoreError(f"node {node_id}: embedding dim {embs.shape[1]} != stored {mat.shape[1]}")
        else:
            old = self.conn.execute("SELECT length(vector) FROM embeddings WHERE node_id = ? LIMIT 1",
                                    (node_id,)).fetchone()
            if old and old[0] != 4 * embs.shape[1]:
                raise StoreError(f"node {node_id}: embedding dim {embs.shape[1]} != stored {old[0] // 4}")
        new_ids = [int(self.conn.execute("INSERT INTO embeddings (node_id, clip_id, vector) VALUES (?, ?, ?)",
                                         (node_id, self.clip_id, _blob(vec))).lastrowid) for vec in embs]
        if kind is not None:
            ids = [*ids_arr.tolist(), *new_ids]
            mat = np.concatenate([mat.reshape(len(ids_arr), embs.shape[1]), embs])
        else:
            rows = self.conn.execute("SELECT id, vector FROM embeddings WHERE node_id = ? ORDER BY id",
                                     (node_id,)).fetchall()
            ids = [r[0] for r in rows]
            mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        if len(ids) <= cap:
            if kind is not None:
                self.cache.entity_updated(kind, node_id, np.array(ids, dtype=np.int64), mat)
            return
        # Over the cap: repeatedly drop the most redundant vector (highest cosine to the node mean),
        # which keeps the node's spread of poses/conditions. Deterministic, unlike upstream's random.sample.
        keep = list(range(len(ids)))
        while len(keep) > cap:
            sub = mat[keep]
            mean = sub.mean(axis=0)
            drop = keep[int(np.argmax(sub @ mean))]
            keep.remove(drop)
        dropped = [ids[i] for i in range(len(ids)) if i not in set(keep)]
        self.conn.executemany("DELETE FROM embeddings WHERE id = ?", [(i,) for i in dropped])
        if kind is not None:
            self.cache.entity_updated(kind, node_id, np.array(ids, dtype=np.int64)[keep], mat[keep])

    def _store_contents(self, node_id: int, kind: str, contents: Sequence[str | bytes], content_kind: str | None,
                        scores: Sequence[float] | None) -> None:
        if not contents:
            return
        ck = content_kind or ("face_jpeg" if kind == "face" else "voice_asr")
        scores = list(scores) if scores is not None else [None] * len(contents)
        if len(scores) != len(contents):
            raise StoreError("scores must match contents")
        for item, score in zip(contents, scores, strict=True):
            text, data = (item, None) if isinstance(item, str) else (None, bytes(item))
            self.conn.execute("INSERT INTO contents (node_id, kind, clip_id, score, text, data) VALUES (?,?,?,?,?,?)",
                              (node_id, ck, self.clip_id, score, text, data))
        c = self.store.config
        cap = {"face_jpeg": c.max_face_crops, "voice_wav": c.max_voice_snippets}.get(ck, c.max_contents_per_entity)
        # keep the best-scored (then newest) contents per kind
        self.conn.execute(
            "DELETE FROM contents WHERE node_id = ? AND kind = ? AND id NOT IN (SELECT id FROM contents WHERE "
            "node_id = ? AND kind = ? ORDER BY coalesce(score, 0) DESC, id DESC LIMIT ?)",
            (node_id, ck, node_id, ck, cap))

    def match_entity(self, kind: str, embeddings: np.ndarray, threshold: float | None = None
                     ) -> tuple[int | None, float]:
        """Best existing node of ``kind`` by mean pairwise cosine (upstream rule); (None, best) below threshold."""
        c = self.store.config
        thr = threshold if threshold is not None else (c.face_match_threshold if kind == "face"
                                                       else c.voice_match_threshold)
        nodes, per_node = self.entity_scores(kind, embeddings)
        if not len(nodes):
            return None, 0.0
        best = int(np.argmax(per_node))
        score = float(per_node[best])
        return (int(nodes[best]) if score >= thr else None), score

    def entity_scores(self, kind: str, embeddings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(node ids, score of each) of every ``kind`` node with embeddings: the mean pairwise cosine of
        ``embeddings`` against the node's stored embeddings (upstream's matching rule)."""
        self._check_entity_kind(kind)
        embs = normalize_rows(embeddings)
        # every stored embedding of the kind (the writer cache keeps them in memory), grouped by node
        nodes, starts, counts, mat = self.cache.entity_rows(self.conn, kind)
        if not len(nodes):
            return nodes, np.zeros(0, dtype=np.float64)
        if mat.shape[1] != embs.shape[1]:
            raise StoreError(f"{kind} embedding dim {embs.shape[1]} != stored {mat.shape[1]}")
        # mean over the query embeddings, per stored embedding (one embedding: itself, no mean to take)
        sims = mat @ embs[0] if len(embs) == 1 else (mat @ embs.T).mean(axis=1)
        return nodes, np.add.reduceat(sims.astype(np.float64), starts) / counts

    # -------------------------------------------------------------- memories (episodic, semantic)
    def add_memory(self, text: str, kind: str = "episodic", vector: np.ndarray | None = None,
                   node_id: int | None = None) -> InsertResult:
        return self.add_memories([text], kind, None if vector is None else np.asarray(vector)[None, :],
                                 node_ids=None if node_id is None else [node_id])[0]

    def add_memories(self, texts: Sequence[str], kind: str = "episodic", vectors: np.ndarray | None = None,
                     node_ids: Sequence[int] | None = None) -> list[InsertResult]:
        """Insert memories as upstream does: episodic always new; semantic near-duplicates reinforce."""
        if kind not in TEXT_KINDS:
            raise StoreError(f"memory kind must be episodic or semantic, got {kind!r}")
        texts = [" ".join(str(t).split()) for t in texts]
        if any(not t for t in texts):
            raise StoreError("empty memory text")
        if vectors is None:
            vectors = self.store.embed_texts(texts, writing=True)
        else:
            vectors = normalize_rows(vectors)
            self.store._check_vector_dim(vectors.shape[1])
        if kind == "episodic" and node_ids is None:
            return self._insert_episodic(texts, vectors)
        return [self._insert_memory(t, kind, v, None if node_ids is None else node_ids[i])
                for i, (t, v) in enumerate(zip(texts, vectors, strict=True))]

    def _insert_episodic(self, texts: list[str], vectors: np.ndarray) -> list[InsertResult]:
        """Episodic memories are always new nodes: one statement per table for the batch, with the ids SQLite
        would have given them one by one (max(id) + 1, ...; the clip's transaction holds the write lock)."""
        ents = [self._entities_of(t) for t in texts]
        first = self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM nodes").fetchone()[0]
        ids = list(range(first, first + len(texts)))
        now = time.time()
        c, st, et = self.clip_id, self.start_time, self.end_time
        self.conn.executemany(
            "INSERT INTO nodes (id, type, clip_id, start_time, end_time, text, is_equivalence, created_at) "
            "VALUES (?, 'episodic', ?, ?, ?, ?, 0, ?)",
            [(nid, c, st, et, t, now) for nid, t in zip(ids, texts, strict=True)])
        self.conn.executemany("INSERT INTO embeddings (node_id, clip_id, vector) VALUES (?, ?, ?)",
                              [(nid, c, _blob(v)) for nid, v in zip(ids, vectors, strict=True)])
        self.conn.executemany("INSERT OR REPLACE INTO edges (text_id, entity_id, weight) VALUES (?, ?, 1.0)",
                              [(nid, e) for nid, es in zip(ids, ents, strict=True) for e in es])
        for nid in ids:
            self._log(nid, "add")
        self.node_ids.extend(ids)
        return [InsertResult(nid, "inserted", [], [], e) for nid, e in zip(ids, ents, strict=True)]

    def _entities_of(self, text: str) -> list[int]:
        out: list[int] = []
        chars = None
        for tag_kind, nid in find_tags(text):
            if tag_kind == "character":
                chars = chars or resolve(
                    self.conn.execute("SELECT id, type, character_seed FROM nodes WHERE type IN ('face','voice')"),
                    self._equivalence_groups())
                cid = chars.resolve_alias(nid)
                if cid is not None:
                    out.extend(m for _, m in chars.members[cid])
            elif self.cache.entity_kind(self.conn, nid) == tag_kind:
                out.append(nid)
        return list(dict.fromkeys(out))

    def _equivalence_groups(self) -> list[list[int]]:
        groups: dict[int, list[int]] = {}
        for tid, eid in self.conn.execute(
                "SELECT e.text_id, e.entity_id FROM edges e JOIN nodes n ON n.id = e.text_id "
                "WHERE n.is_equivalence = 1 AND e.weight > 0"):
            groups.setdefault(tid, []).append(eid)
        return list(groups.values())

    def _insert_memory(self, text: str, kind: str, vec: np.ndarray, node_id: int | None) -> InsertResult:
        ents = self._entities_of(text)
        eq = kind == "semantic" and is_equivalence(text)
        if eq and split_between(self.conn, ents):  # a person split these apart (corrections.py): not again
            log.info("equivalence %r refused: a user split these entities apart", text)
            return InsertResult(None, "refused", entities=ents)
        if kind == "semantic" and ents:
            c = self.store.config
            # the semantic memories linked to the first entity (writer_cache.py keeps them in memory)
            cache = self.cache
            linked = cache.linked(self.conn, ents[0])
            ids, mat = linked.ids[: linked.n].copy(), linked.mat[: linked.n]
            if len(ids) and len(ents) > 1:  # keep the candidates linked to every entity of the new memory
                keep = np.ones(len(ids), dtype=bool)
                for e in ents[1:]:
                    keep &= cache.linked(self.conn, e).contains(ids)
                ids, mat = ids[keep], mat[keep]
            reinforced: list[int] = []
            weakened: list[int] = []
            if len(ids):
                cos = mat @ vec
                for cid, s in zip(ids.tolist(), cos.tolist(), strict=True):
                    if s > c.semantic_reinforce_threshold:
                        self.store._edge_delta(cid, +1.0)
                        reinforced.append(cid)
                    elif c.semantic_weaken_threshold is not None and s < c.semantic_weaken_threshold:
                        self.store._edge_delta(cid, -1.0)
                        weakened.append(cid)
            if reinforced:
                self.node_ids.extend(r for r in reinforced if r not in self.node_ids)  # updated nodes
                return InsertResult(None, "reinforced", reinforced, weakened, ents)
            # upstream drops the new memory after weakening an old one (its own comment says it should be
            # added); we add it.
            nid = self._new_text_node(text, kind, vec, ents, eq, node_id)
            return InsertResult(nid, "inserted", [], weakened, ents)
        nid = self._new_text_node(text, kind, vec, ents, eq, node_id)
        return InsertResult(nid, "inserted", [], [], ents)

    def _new_text_node(self, text: str, kind: str, vec: np.ndarray, ents: list[int], eq: bool,
                       node_id: int | None) -> int:
        cur = self.conn.execute(
            "INSERT INTO nodes (id, type, clip_id, start_time, end_time, text, is_equivalence, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (node_id, kind, self.clip_id, self.start_time, self.end_time, text, int(eq), time.time()))
        nid = int(cur.lastrowid)  # type: ignore[arg-type]
        self.conn.execute("INSERT INTO embeddings (node_id, clip_id, vector) VALUES (?, ?, ?)",
                          (nid, self.clip_id, _blob(vec)))
        self.conn.executemany("INSERT OR REPLACE INTO edges (text_id, entity_id, weight) VALUES (?, ?, 1.0)",
                              [(nid, e) for e in ents])
        if kind == "semantic" and ents:
            self.cache.added(nid, ents, vec)
        self._log(nid, "add")
        if eq:
            self._log(nid, "eq")
        self.node_ids.append(nid)
        return nid

    # -------------------------------------------------------------- per-turn facts (who said / appeared when)
    def add_turn(self, kind: str, entity_id: int, start_time: float, end_time: float, text: str | None = None,
                 memory_ids: Sequence[int] = ()) -> int:
        """One voice turn (``kind="voice"``, with its transcript) or face appearance (``"face"``) of this clip,
        linked to the episodic memories written from it."""
        self._check_entity_kind(kind)
        if not (np.isfinite(start_time) and np.isfinite(end_time)) or end_time < start_time:
            raise StoreError(f"turn of node {entity_id}: invalid time range [{start_time}, {end_time}]")
        row = self.conn.execute("SELECT type FROM nodes WHERE id = ?", (entity_id,)).fetchone()
        if not row or row[0] != kind:
            raise StoreError(f"node {entity_id} is not a {kind} node")
        cur = self.conn.execute("INSERT INTO turns (clip_id, kind, entity_id, start_time, end_time, text) "
                                "VALUES (?, ?, ?, ?, ?, ?)", (self.clip_id, kind, entity_id, float(start_time),
                                                              float(end_time), text))
        tid = int(cur.lastrowid)  # type: ignore[arg-type]
        self.conn.executemany("INSERT OR IGNORE INTO turn_memories (turn_id, memory_id) VALUES (?, ?)",
                              [(tid, int(m)) for m in dict.fromkeys(memory_ids)])
        return tid

    def set_name(self, entity_id: int, name: str, source: str = "memorization") -> None:
        row = self.conn.execute("SELECT character_seed FROM nodes WHERE id = ?", (entity_id,)).fetchone()
        if not row or row[0] is None:
            raise StoreError(f"node {entity_id} is not a face/voice node")
        self.conn.execute("INSERT OR REPLACE INTO character_names (seed, name, source, updated_at) VALUES "
                          "(?, ?, ?, ?)", (row[0], name, source, time.time()))

