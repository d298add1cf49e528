"""Keeping the store's derived data in step with the database: the vector index (opened from its saved files and
brought up to date by replaying the ``changes`` log, or rebuilt), saved after background builds, and the character
cache. A part of :class:`m3_memory.store.MemoryStore` (mixed in), in a module of its own."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from pathlib import Path

import numpy as np

from ..config import StoreConfig
from .index_files import Header, IndexFileError
from .records import ENTITY_KINDS, TEXT_KINDS
from .select_in import select_in
from .vector_index import IndexParams, VectorIndex

log = logging.getLogger("m3_memory.store")
REFRESH_ROWS = 50_000   # changes a reader applies per read while it follows the log
SERVER_REBUILD_BEHIND = 20_000   # the server's index this far behind the log at open: rebuilt, not caught up


class IndexKeeping:
    """Mixed into MemoryStore (which sets every attribute below in its ``__init__``)."""

    conn: sqlite3.Connection
    config: StoreConfig
    readonly: bool
    path: Path
    location: str
    _lock: threading.RLock
    _index: VectorIndex | None
    _index_dir: Path | None
    _index_header: Header | None
    _data_version: int
    _last_seq: int
    index_note: str

    def meta(self, key: str, default: str | None = None) -> str | None: ...   # MemoryStore

    def side_connection(self) -> sqlite3.Connection: ...   # MemoryStore

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
            while True:   # in ordered, limited reads: an index range on any engine, whatever its statistics
                rows = self.conn.execute("SELECT seq, node_id, op FROM changes WHERE seq > ? ORDER BY seq LIMIT ?",
                                         (self._last_seq, REFRESH_ROWS)).fetchall()
                if rows and not self._apply_changes(rows):
                    break   # the server's index is being brought up by another process: search what it holds
                if len(rows) < REFRESH_ROWS:
                    break

    def _new_index(self, dim: int) -> VectorIndex:
        if self._index is not None:
            self._index.close()
        idx = VectorIndex(dim, self._index_params())
        idx.on_built = self._save_index
        return idx

    def _header(self) -> Header:
        """What a saved index must match: this store (and its forget epoch: an index saved before a forget may
        hold the forgotten person's vectors), its embedder and the index settings."""
        store_id, epoch = self.meta("store_id"), self.meta("forget_epoch")
        return Header(f"{store_id}#{epoch}" if store_id and epoch else store_id, self.meta("embedder_name"),
                      int(self.meta("embedder_dim") or 0), self.config.index_dtype, self.config.hnsw_m)

    def _load_index(self) -> bool:
        """Open the persisted index (True; the caller replays the changes after it) or say why not (False)."""
        from . import index_files

        self._index_header = header = self._header()
        if self._server_search():
            return self._open_server_index()
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
            if "store_id" in str(e):   # another store's, or saved before a forget: may hold deleted vectors
                index_files.purge(self._index_dir)
            self.index_note = f"rebuilt from the database: {e}"
            (log.debug if missing else log.warning)("vector index of %s %s", self.location, self.index_note)
            return False
        idx.on_built = self._save_index
        self._index, self._last_seq, self._characters = idx, idx.seq, {}
        self._index_saved = (idx.seq, idx.built_at)
        self.index_note = (f"loaded {len(idx.segments)} segments, {idx.n} rows at change {idx.seq} in "
                           f"{time.perf_counter() - t0:.2f} s")
        log.info("vector index of %s: %s", self.location, self.index_note)
        return True

    def _server_search(self) -> bool:
        """Is the vector index pgvector's, on the server (``StoreConfig.vector_search``)?"""
        return self.config.vector_search == "server"

    def _open_server_index(self) -> bool:
        from .pg.server_index import ServerIndex

        if self._index is not None:
            self._index.close()
        idx = ServerIndex(self.conn.url, self._index_params())   # type: ignore[attr-defined]
        self._index, self._last_seq, self._characters = idx, idx.seq, {}   # type: ignore[assignment]
        behind = self.conn.execute("SELECT coalesce(max(seq), 0) FROM changes").fetchone()[0] - idx.seq
        if behind > SERVER_REBUILD_BEHIND:   # rows first, the graph after: faster than growing it row by row
            self.index_note = f"on the server (pgvector HNSW), rebuilt: {behind} changes behind"
            log.info("vector index of %s: %s", self.location, self.index_note)
            return False
        self.index_note = (f"on the server (pgvector HNSW), {len(idx)} rows at change {idx.seq}" if idx.exists
                           else "on the server (pgvector HNSW), no text vectors yet")
        log.info("vector index of %s: %s", self.location, self.index_note)
        return True

    def _full_load(self) -> None:
        """Rebuild from SQLite: every text vector, in time order, into the exact part; the background builder
        turns them into HNSW segments while exact search serves. With the index on the server: its table
        rewritten from the database."""
        self._index_header = self._header()
        if self._server_search():
            self._full_load_server()
            return
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
                index.add(*_text_rows(rows))
        finally:
            self.conn.execute("COMMIT")
        self._index = index or self._new_index(dim)
        self._index.seq = self._last_seq
        self._characters = {}
        if self._index.unsaved_build:
            self._index.unsaved_build = False
            self._save_index(self._index)

    def _full_load_server(self) -> None:
        from .pg.server_index import ServerIndex

        if not isinstance(self._index, ServerIndex):
            self._open_server_index()
        idx = self._index
        assert isinstance(idx, ServerIndex)
        self.conn.execute("BEGIN")
        try:
            last = self.conn.execute("SELECT coalesce(max(seq), 0) FROM changes").fetchone()[0]
            cur = self.conn.execute(
                "SELECT n.id, n.clip_id, n.end_time, e.vector FROM nodes n JOIN embeddings e ON e.node_id = n.id "
                "WHERE n.type IN ('episodic', 'semantic') ORDER BY n.id")

            def chunks():
                while rows := cur.fetchmany(16384):
                    yield _text_rows(rows)

            idx.replace_all(chunks(), last)
        finally:
            self.conn.execute("COMMIT")
        self._last_seq, self._characters = last, {}

    def _index_params(self) -> IndexParams:
        c = self.config
        return IndexParams(hnsw_min_size=c.hnsw_min_size, hnsw_m=c.hnsw_m, hnsw_ef_search=c.hnsw_ef_search,
                           hnsw_ef_construction=c.hnsw_ef_construction, exact_subset_max=c.exact_subset_max,
                           exact_max_floats=c.exact_max_floats, segment_rows=c.index_segment_rows,
                           max_segment_rows=c.index_max_segment_rows, dtype=c.index_dtype,
                           background=c.index_background, search_threads=c.search_threads)

    def _apply_changes(self, rows: list[tuple[int, int, str]]) -> bool:
        """Follow ``rows`` of the change log; False when the server's index was busy (nothing moved)."""
        from .pg.server_index import ServerIndex

        assert self._index is not None
        touched = list(dict.fromkeys(nid for _, nid, op in rows if op in ("add", "upd", "del")))
        if any(op in ("eq", "del") for _, _, op in rows):
            self._characters = {}
        server = self._index if isinstance(self._index, ServerIndex) else None
        try:   # another process brought the server's index this far: the rows' kinds only (for the character cache)
            vectors = server is None or not server.covers(rows[-1][0])
        except ServerIndex.ServerError as e:
            return self._server_behind(e)
        found = select_in(  # one row per node; only text nodes' vectors (an entity has many)
            self.conn, "SELECT n.id, n.type, n.clip_id, n.end_time, " + (
                "(SELECT e.vector FROM embeddings e WHERE e.node_id = n.id AND n.type IN ('episodic', 'semantic') "
                "LIMIT 1)" if vectors else "NULL") + " FROM nodes n WHERE n.id IN ({})",
            touched, chunk=30000)   # SQLite allows 32766 variables per statement
        with_vector = {r[0] for r in found if r[4] is not None}  # deleted, or text whose vector was dropped
        text_rows = [r for r in found if r[1] in TEXT_KINDS and r[4] is not None]
        # characters change with entities added (deleted: "del" above); an entity's "upd" is new embeddings or a
        # later end time, which no character depends on
        added = {nid for _, nid, op in rows if op == "add"}
        if any(r[1] in ENTITY_KINDS and r[0] in added for r in found):
            self._characters = {}
        if server is not None:   # the log position moves only once the server holds the changes
            try:
                applied = not vectors or server.apply([nid for nid in touched if nid not in with_vector],
                                                      *_text_rows(text_rows), rows[-1][0], wait=not self.readonly)
            except ServerIndex.ServerError as e:
                return self._server_behind(e)
            if not applied:
                self._data_version = -1   # another process is applying them: search what is there, ask again
                return False
            self._last_seq = rows[-1][0]
            return True
        self._last_seq = rows[-1][0]
        if text_rows and self._index.dim == 0:
            self._index = self._new_index(len(text_rows[0][4]) // 4)
        index = self._index
        with index.lock:  # the state and its change-log position move together (a save snapshots both)
            index.remove([nid for nid in touched if nid not in with_vector])
            if text_rows:
                index.add(*_text_rows(text_rows))
            index.seq = self._last_seq
        if index.unsaved_build:  # built inline (no background thread): save now that the state has its seq
            index.unsaved_build = False
            self._save_index(index)
        return True

    def _server_behind(self, e: Exception) -> bool:
        """The server's index could not be brought up (the server restarted after a clip's commit, say): the clip
        stays written, the table trails the log, the next refresh applies the changes (its session reconnected)."""
        log.warning("vector index of %s: changes after %d not applied on the server yet (%s); the next refresh "
                    "applies them", self.location, self._last_seq, str(e).strip())
        self._data_version = -1
        return False

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
            log.warning("vector index of %s not saved: %s", self.location, e)
            return False
        if ok:
            self._index_saved = state
        return ok

    def _keeps_index(self) -> bool:
        """Does this store keep the vector index as it writes (``StoreConfig.index_on_write``, a persisted index or
        the server's)?"""
        return (self.config.index_on_write and not self.readonly
                and (self._index_dir is not None or self._server_search()))

    def _finish_index_for_readers(self) -> None:
        """At a writer's close: finish the index builds still planned (sealing pending rows, merging segments; at
        most ``index_close_wait_s``), so the next reader loads an index as fast to search as a long-lived reader's
        instead of rebuilding it from the database or merging while it serves. A writer that keeps up (the
        memorization node: one clip per 30 s) has nothing left; a bulk import waits here (a log line says so)."""
        idx = self._index
        if idx is None or not self._keeps_index():
            return
        if not idx.wait_idle(timeout=0):   # builds planned or running
            t0 = time.perf_counter()
            log.info("vector index of %s: finishing its builds before close (%d rows pending, %d segments), so "
                     "readers open it ready", self.location, idx.pending, len(idx.segments))
            done = idx.wait_idle(timeout=self.config.index_close_wait_s)
            log.info("vector index of %s: %s in %.1f s", self.location,
                     "built" if done else "still building, saved as is",
                     time.perf_counter() - t0)

    def _unapplied_deletes(self, seq: int) -> str | None:
        """Why a state at change ``seq`` must not be saved: a deletion after it (its vectors would be written)."""
        conn = self.side_connection()
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


def _text_rows(rows: list[tuple]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ids, vectors, clips, end times) of ``(id, [type,] clip, end time, vector bytes)`` rows (-1: no clip,
    inf: no end time)."""
    vec_of = [r[-1] for r in rows]
    dim = len(vec_of[0]) // 4 if rows else 0
    return (np.array([r[0] for r in rows], dtype=np.int64),
            np.frombuffer(b"".join(vec_of), dtype=np.float32).reshape(len(rows), dim),
            np.array([-1 if r[-3] is None else r[-3] for r in rows], dtype=np.int64),
            np.array([np.inf if r[-2] is None else r[-2] for r in rows], dtype=np.float64))
