"""The entity-centric memory graph, persisted in SQLite (WAL) and searched through an in-memory index.

One process writes (memorization), any number read (control, CLI, evaluation) at the same time:

* every clip is written in ONE ``BEGIN IMMEDIATE`` transaction (:meth:`MemoryStore.begin_clip`), so a killed
  writer leaves either the whole clip or none of it;
* readers never block in WAL mode; before each search a reader applies the rows of the ``changes`` log it
  has not seen to its vector index (cheap when nothing changed: one ``PRAGMA data_version``);
* the vector index and the character table are derived data, rebuilt from SQLite on open.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
import sqlite_utils

from .characters import Characters, resolve
from .config import StoreConfig
from .embedders import EmbeddingError, TextEmbedder, make_embedder, normalize_rows
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
from .vector_index import IndexParams, VectorIndex

log = logging.getLogger(__name__)

_MEMORY_COLS = "id, type, text, clip_id, start_time, end_time, weight"


class StoreError(RuntimeError):
    """A request the store refuses (bad input, read-only store, model mismatch)."""


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
        self.conn.execute("PRAGMA foreign_keys = ON")
        migrate(self.conn) if not readonly else self._check_schema()
        self.db = sqlite_utils.Database(self.conn)
        self._embedder_spec = embedder
        self._embedder: TextEmbedder | None = embedder if hasattr(embedder, "embed") else None  # type: ignore
        self._index: VectorIndex | None = None
        self._last_seq = 0
        self._data_version = -1
        self._characters: dict[float | None, Characters] = {}   # by time bound; emptied on any change

    def _check_schema(self) -> None:
        from .schema import SCHEMA_VERSION, current_version

        v = current_version(self.conn)
        if v != SCHEMA_VERSION:
            raise StoreError(f"{self.path}: schema version {v}, expected {SCHEMA_VERSION} (open it read-write "
                             "once to migrate)")

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        with self._lock:
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
        stored = self.meta("embedder_dim")
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
        change it, so the writer passes ``own_write=True`` after each transaction."""
        with self._lock:
            dv = self.conn.execute("PRAGMA data_version").fetchone()[0]
            if not (force or own_write) and self._index is not None and dv == self._data_version:
                return
            self._data_version = dv
            if self._index is None or force:
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

    def _full_load(self) -> None:
        self.conn.execute("BEGIN")
        try:
            self._last_seq = self.conn.execute("SELECT coalesce(max(seq), 0) FROM changes").fetchone()[0]
            dim = int(self.meta("embedder_dim") or 0)
            rows = self.conn.execute(
                "SELECT n.id, n.clip_id, n.end_time, e.vector FROM nodes n JOIN embeddings e ON e.node_id = n.id "
                "WHERE n.type IN ('episodic', 'semantic') ORDER BY n.id").fetchall()
        finally:
            self.conn.execute("COMMIT")
        if not dim:
            dim = len(rows[0][3]) // 4 if rows else 0
        self._index = VectorIndex(dim, self._index_params())
        if rows:
            self._index.add(
                np.array([r[0] for r in rows], dtype=np.int64),
                np.frombuffer(b"".join(r[3] for r in rows), dtype=np.float32).reshape(len(rows), dim),
                np.array([-1 if r[1] is None else r[1] for r in rows], dtype=np.int64),
                np.array([np.inf if r[2] is None else r[2] for r in rows], dtype=np.float64),
            )
        self._characters = {}

    def _index_params(self) -> IndexParams:
        c = self.config
        return IndexParams(c.hnsw_min_size, c.hnsw_m, c.hnsw_ef_search, c.hnsw_ef_construction,
                           c.exact_subset_max, c.exact_max_floats)

    def _apply_changes(self, rows: list[tuple[int, int, str]]) -> None:
        assert self._index is not None
        touched = {nid for _, nid, op in rows if op in ("add", "upd", "del")}
        if any(op in ("eq", "del") for _, _, op in rows):
            self._characters = {}
        self._last_seq = rows[-1][0]
        if not touched:
            return
        marks = ",".join("?" * len(touched))
        found = self.conn.execute(
            f"SELECT n.id, n.type, n.clip_id, n.end_time, e.vector FROM nodes n LEFT JOIN embeddings e "
            f"ON e.node_id = n.id WHERE n.id IN ({marks})", tuple(touched)).fetchall()
        with_vector = {r[0] for r in found if r[4] is not None}  # deleted, or text whose vector was dropped
        self._index.remove([nid for nid in touched if nid not in with_vector])
        text_rows = [r for r in found if r[1] in TEXT_KINDS and r[4] is not None]
        if any(r[1] in ENTITY_KINDS for r in found):
            self._characters = {}
        if text_rows:
            if self._index.dim == 0:
                self._index = VectorIndex(len(text_rows[0][4]) // 4, self._index_params())
            self._index.add(
                np.array([r[0] for r in text_rows], dtype=np.int64),
                np.frombuffer(b"".join(r[4] for r in text_rows), dtype=np.float32).reshape(len(text_rows), -1),
                np.array([-1 if r[2] is None else r[2] for r in text_rows], dtype=np.int64),
                np.array([np.inf if r[3] is None else r[3] for r in text_rows], dtype=np.float64),
            )

    @property
    def index(self) -> VectorIndex:
        self.refresh()
        assert self._index is not None
        return self._index

    # ------------------------------------------------------------------ characters
    def characters(self, before_time: float | None = None) -> Characters:
        """Characters from the equivalences visible at ``before_time`` (all when None)."""
        with self._lock:
            self.refresh()
            cached = self._characters.get(before_time)
            if cached is not None:
                return cached
            bounded = before_time is not None
            args: tuple = (before_time + 1e-9,) if bounded else ()
            ents = self.conn.execute(
                "SELECT id, type, character_seed FROM nodes WHERE type IN ('face', 'voice')"
                + (" AND start_time <= ?" if bounded else ""), args).fetchall()
            tb = " AND n.end_time <= ?" if bounded else ""
            groups: dict[int, list[int]] = {}
            for tid, eid in self.conn.execute(
                    "SELECT e.text_id, e.entity_id FROM edges e JOIN nodes n ON n.id = e.text_id "
                    f"WHERE n.is_equivalence = 1 AND e.weight > 0{tb} ORDER BY e.text_id, e.entity_id", args):
                groups.setdefault(tid, []).append(eid)
            chars = resolve(ents, groups.values())
            if len(self._characters) > 64:
                self._characters.clear()
            self._characters[before_time] = chars
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
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
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
        with self.transaction():
            if self.conn.execute("SELECT 1 FROM clips WHERE id = ?", (clip_id,)).fetchone():
                raise StoreError(f"clip {clip_id} is already committed")
            writer = ClipWriter(self, int(clip_id), float(start_time), float(end_time))
            writer.extra.update(extra or {})
            yield writer
            self.conn.execute(
                "INSERT INTO clips (id, start_time, end_time, source, committed_at, extra) VALUES (?,?,?,?,?,?)",
                (clip_id, start_time, end_time, source, time.time(),
                 json.dumps(writer.extra, default=str) if writer.extra else None))

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
        self.conn.execute("DELETE FROM edges WHERE text_id = ? AND weight <= 0", (text_id,))
        self.conn.execute("UPDATE nodes SET weight = weight + ? WHERE id = ?", (delta, text_id))
        if self.conn.execute("SELECT is_equivalence FROM nodes WHERE id = ?", (text_id,)).fetchone()[0]:
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
        from .forget import forget_character

        return forget_character(self, character_id, checkpoint_timeout_s=checkpoint_timeout_s, vacuum=vacuum)

    def checkpoint(self, timeout_s: float = 10.0) -> CheckpointResult:
        """``PRAGMA wal_checkpoint(TRUNCATE)``, retried until done or ``timeout_s``; ``.ok`` says if it was done."""
        from .forget import checkpoint_truncate

        self._require_writable()
        with self._lock:
            return checkpoint_truncate(self.conn, timeout_s)

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
        self.store._log(nid, "add")
        self._store_embeddings(nid, embs, self._cap(kind))
        self._store_contents(nid, kind, contents, content_kind, scores)
        self.node_ids.append(nid)
        return nid

    def update_entity(self, node_id: int, embeddings: np.ndarray | None = None,
                      contents: Sequence[str | bytes] = (), content_kind: str | None = None,
                      scores: Sequence[float] | None = None) -> None:
        row = self.conn.execute("SELECT type FROM nodes WHERE id = ?", (node_id,)).fetchone()
        if not row or row[0] not in ENTITY_KINDS:
            raise StoreError(f"node {node_id} is not a face/voice node")
        kind = row[0]
        if embeddings is not None and len(embeddings):
            embs = normalize_rows(embeddings)
            self._store_embeddings(node_id, embs, self._cap(kind))
        self._store_contents(node_id, kind, contents, content_kind, scores)
        self.conn.execute("UPDATE nodes SET end_time = max(coalesce(end_time, 0), ?) WHERE id = ?",
                          (self.end_time, node_id))
        self.store._log(node_id, "upd")
        if node_id not in self.node_ids:
            self.node_ids.append(node_id)

    def _store_embeddings(self, node_id: int, embs: np.ndarray, cap: int) -> None:
        old = self.store.entity_embeddings(node_id)
        if old.size and old.shape[1] != embs.shape[1]:
            raise StoreError(f"node {node_id}: embedding dim {embs.shape[1]} != stored {old.shape[1]}")
        for vec in embs:
            self.conn.execute("INSERT INTO embeddings (node_id, clip_id, vector) VALUES (?, ?, ?)",
                              (node_id, self.clip_id, _blob(vec)))
        rows = self.conn.execute("SELECT id, vector FROM embeddings WHERE node_id = ? ORDER BY id",
                                 (node_id,)).fetchall()
        if len(rows) <= cap:
            return
        # Over the cap: repeatedly drop the most redundant vector (highest cosine to the node mean),
        # which keeps the node's spread of poses/conditions. Deterministic, unlike upstream's random.sample.
        ids = [r[0] for r in rows]
        mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        keep = list(range(len(ids)))
        while len(keep) > cap:
            sub = mat[keep]
            mean = sub.mean(axis=0)
            drop = keep[int(np.argmax(sub @ mean))]
            keep.remove(drop)
        dropped = [ids[i] for i in range(len(ids)) if i not in set(keep)]
        self.conn.executemany("DELETE FROM embeddings WHERE id = ?", [(i,) for i in dropped])

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
        cap = self.store.config.max_contents_per_entity
        # keep the best-scored (then newest) contents per kind
        self.conn.execute(
            "DELETE FROM contents WHERE node_id = ? AND kind = ? AND id NOT IN (SELECT id FROM contents WHERE "
            "node_id = ? AND kind = ? ORDER BY coalesce(score, 0) DESC, id DESC LIMIT ?)",
            (node_id, ck, node_id, ck, cap))

    def match_entity(self, kind: str, embeddings: np.ndarray, threshold: float | None = None
                     ) -> tuple[int | None, float]:
        """Best existing node of ``kind`` by mean pairwise cosine (upstream rule); (None, best) below threshold."""
        self._check_entity_kind(kind)
        embs = normalize_rows(embeddings)
        c = self.store.config
        thr = threshold if threshold is not None else (c.face_match_threshold if kind == "face"
                                                       else c.voice_match_threshold)
        rows = self.conn.execute("SELECT e.node_id, e.vector FROM embeddings e JOIN nodes n ON n.id = e.node_id "
                                 "WHERE n.type = ? ORDER BY e.node_id, e.id", (kind,)).fetchall()
        if not rows:
            return None, 0.0
        ids = np.array([r[0] for r in rows])
        mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        if mat.shape[1] != embs.shape[1]:
            raise StoreError(f"{kind} embedding dim {embs.shape[1]} != stored {mat.shape[1]}")
        sims = (mat @ embs.T).mean(axis=1)  # mean over the query embeddings, per stored embedding
        uniq, inv = np.unique(ids, return_inverse=True)
        per_node = np.bincount(inv, weights=sims) / np.bincount(inv)
        best = int(np.argmax(per_node))
        score = float(per_node[best])
        return (int(uniq[best]) if score >= thr else None), score

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
        return [self._insert_memory(t, kind, v, None if node_ids is None else node_ids[i])
                for i, (t, v) in enumerate(zip(texts, vectors, strict=True))]

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
            elif self.conn.execute("SELECT 1 FROM nodes WHERE id = ? AND type = ?", (nid, tag_kind)).fetchone():
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
        if kind == "semantic" and ents:
            c = self.store.config
            cands = self.conn.execute(
                "SELECT n.id, v.vector FROM edges e JOIN nodes n ON n.id = e.text_id JOIN embeddings v ON "
                "v.node_id = n.id WHERE e.entity_id = ? AND n.type = 'semantic' ORDER BY n.id", (ents[0],)).fetchall()
            if cands and len(ents) > 1:  # keep the candidates linked to every entity of the new memory
                marks = ",".join("?" * len(ents))
                full = {r[0] for r in self.conn.execute(
                    f"SELECT text_id FROM edges WHERE entity_id IN ({marks}) GROUP BY text_id "
                    f"HAVING count(DISTINCT entity_id) = ?", (*ents, len(ents)))}
                cands = [r for r in cands if r[0] in full]
            reinforced: list[int] = []
            weakened: list[int] = []
            if cands:
                cos = np.frombuffer(b"".join(r[1] for r in cands), dtype=np.float32).reshape(len(cands), -1) @ vec
                for (cid, _), s in zip(cands, cos.tolist(), strict=True):
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
        self.store._log(nid, "add")
        if eq:
            self.store._log(nid, "eq")
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

