"""The vector index on the server: pgvector's HNSW over a PostgreSQL store's text memories, shared by every process
that opens the store with ``StoreConfig.vector_search = "server"``.

With the default (``"local"``) each process keeps its own faiss index (``vector_index.py``), loaded from the
machine's index cache and brought up to date from the ``changes`` log; a process that has none builds it from the
database (minutes at 1M memories). Here the index lives in the database instead:

* ``text_vectors`` (node id, clip, end time, ``vector(dim)``): one row per episodic / semantic memory, a B-tree on
  the end time beside an HNSW index (inner product on unit vectors = cosine, the local index's measure). A search
  with a time bound or excluded clips is a filtered HNSW scan; pgvector's *iterative* scans (``relaxed_order``)
  keep walking the graph until ``k`` rows pass the filter. Searches among a few named people's memories (the
  entity-restricted search) are exact.
* ``text_vectors_state``: the position in the ``changes`` log up to which the table holds every change.

The table *trails* the log like a local index does: a process in this mode applies the changes after that position
(the vectors of text nodes added or changed, deletions) when it refreshes: a writer after each commit, a reader
before it searches. So a new process answers at once (nothing to build), writers in ``"local"`` mode pay nothing,
and whoever searches first catches the table up. Rows follow their node: ``ON DELETE CASCADE`` (a forget removes
them in its transaction; ``forget.py`` vacuums the table with the others).

Cost, measured on a 2-core machine (docs/benchmarks.md, "Engines"): an HNSW insert of a 384-d vector is ~6 ms of
server CPU at 100k rows, so keeping the table is ~100 ms per 30 s clip of a robot, but caps a bulk import at
165-182 memories/s there.
pgvector's HNSW indexes vectors of at most 2,000 dimensions.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Iterator

import numpy as np

from ...errors import StoreError
from ..vector_segments import EPS, IndexParams, _empty
from .vectors import Vector, Vectors, register

log = logging.getLogger("m3_memory.store")

SYNC_LOCK = 0x6D33_7673   # advisory lock key of the table's upkeep ("m3vs"); the store's write lock is another
MAX_DIM = 2000            # pgvector's HNSW on ``vector``
BUILD_MEMORY = "512MB"    # maintenance_work_mem of a rebuild (100k 384-d memories: a ~200 MB graph)
_LEN_TTL_S = 5.0          # how long a row count is reused (``len()``: a search's "did it see everything?")


class ServerIndex:
    """The face of :class:`m3_memory.store.vector_index.VectorIndex` the store uses, on pgvector."""

    from psycopg import Error as ServerError  # what the server's failures raise (a lost session among them)

    segments: tuple = ()       # nothing of it is kept on this machine: nothing to save or merge
    unsaved_build = False
    pending = 0
    built_at = 0
    on_built = None

    def __init__(self, url: str, params: IndexParams) -> None:
        import psycopg

        self.url, self.p = url, params
        self.lock = threading.RLock()
        self.seq, self.dim = 0, 0
        self._clips: dict[int, int] = {}
        self._len: tuple[float, int] | None = None
        try:
            self._session = self._connect()
        except psycopg.Error as e:
            raise StoreError(f"server vector index: {str(e).strip()}") from e
        self._read_state()

    def _connect(self):
        import psycopg

        conn = psycopg.connect(self.url, autocommit=True)
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
            conn.close()
            raise StoreError("vector_search = 'server' needs the vector extension (pgvector >= 0.8) in the "
                             "database: CREATE EXTENSION vector")
        register(conn)
        # iterative scans: a filtered search walks on until k rows pass (pgvector >= 0.8; an older one ignores it)
        conn.execute(f"SET hnsw.ef_search = {int(self.p.hnsw_ef_search)}")
        conn.execute("SET hnsw.iterative_scan = relaxed_order")
        return conn

    @property
    def _conn(self):
        """The session, reconnected after the server dropped it (a restart, a failover), as the store's own."""
        if self._session.closed or self._session.broken:
            self._session = self._connect()
        return self._session

    # -- the tables -------------------------------------------------------------------------------------------
    def _read_state(self) -> None:
        if self._conn.execute("SELECT to_regclass('text_vectors_state')").fetchone()[0] is None:
            return
        row = self._conn.execute("SELECT seq, dim FROM text_vectors_state").fetchone()
        if row is not None:
            self.seq, self.dim = int(row[0]), int(row[1])

    @property
    def exists(self) -> bool:
        return self.dim > 0

    def ensure(self, dim: int) -> None:
        """Create the tables for ``dim``-d vectors (once per database; a store has one text embedder)."""
        if self.dim == dim:
            return
        if self.dim:
            self._other_dim(dim)
        if dim > MAX_DIM:
            raise StoreError(f"pgvector's HNSW indexes at most {MAX_DIM} dimensions, the embedder gives {dim}: "
                             "use vector_search: local")
        with self._conn.transaction():
            self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (SYNC_LOCK,))
            self._conn.execute(
                f"CREATE TABLE IF NOT EXISTS text_vectors (node_id BIGINT PRIMARY KEY REFERENCES nodes (id) "
                f"ON DELETE CASCADE, clip_id BIGINT, end_time DOUBLE PRECISION, vec vector({int(dim)}) NOT NULL)")
            self._conn.execute("CREATE INDEX IF NOT EXISTS text_vectors_time ON text_vectors (end_time)")
            self._conn.execute(self._hnsw_ddl())
            self._conn.execute("CREATE TABLE IF NOT EXISTS text_vectors_state (one BOOLEAN PRIMARY KEY DEFAULT true "
                               "CHECK (one), seq BIGINT NOT NULL, dim INTEGER NOT NULL)")
            self._conn.execute("INSERT INTO text_vectors_state (seq, dim) VALUES (0, %s) ON CONFLICT DO NOTHING",
                               (dim,))
        self._read_state()
        if self.dim != dim:   # another process created it first, for another embedder
            self._other_dim(dim)

    def _other_dim(self, dim: int) -> None:
        raise StoreError(f"the server's vector index holds {self.dim}-d vectors, the embedder gives {dim}-d")

    def _hnsw_ddl(self) -> str:
        return (f"CREATE INDEX IF NOT EXISTS text_vectors_hnsw ON text_vectors USING hnsw (vec vector_ip_ops) "
                f"WITH (m = {int(self.p.hnsw_m)}, ef_construction = {int(self.p.hnsw_ef_construction)})")

    # -- keeping it up to date --------------------------------------------------------------------------------
    def covers(self, seq: int) -> bool:
        """Does the table hold every change up to ``seq`` (another process applied them)?"""
        if self.exists:
            self.seq = int(self._conn.execute("SELECT seq FROM text_vectors_state").fetchone()[0])
        return self.exists and self.seq >= seq

    def apply(self, removed: Iterable[int], ids: np.ndarray, vecs: np.ndarray, clips: np.ndarray,
              end_times: np.ndarray, seq: int, wait: bool = True) -> bool:
        """Changes up to ``seq``: drop ``removed`` nodes' rows, write (insert or replace) the others'. Idempotent:
        two processes applying the same changes leave the same rows (an unchanged row is not rewritten). With
        ``wait=False`` (a reader about to search) nothing is done while another process applies changes (a writer
        right after its commit: it holds the upkeep lock while the server grows the graph): False, ask again."""
        removed = [int(i) for i in removed]
        if len(ids):
            self.ensure(vecs.shape[1])
        if not self.exists:   # no text vector yet, nothing to keep
            return True
        with self._conn.transaction():
            if wait:
                self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (SYNC_LOCK,))
            elif not self._conn.execute("SELECT pg_try_advisory_xact_lock(%s)", (SYNC_LOCK,)).fetchone()[0]:
                return False
            done = int(self._conn.execute("SELECT seq FROM text_vectors_state").fetchone()[0])
            if done < seq:
                if removed:
                    self._conn.execute("DELETE FROM text_vectors WHERE node_id = ANY(%s)", (removed,))
                if len(ids):
                    self._write(ids, vecs, clips, end_times)
                self._conn.execute("UPDATE text_vectors_state SET seq = %s", (seq,))
        self.seq = max(done, seq)
        self._len = None
        return True

    def _write(self, ids: np.ndarray, vecs: np.ndarray, clips: np.ndarray, end_times: np.ndarray) -> None:
        times = [None if not np.isfinite(t) else float(t) for t in end_times.tolist()]
        self._conn.execute(
            "INSERT INTO text_vectors (node_id, clip_id, end_time, vec) SELECT u.* FROM unnest(%s::bigint[], "
            "%s::bigint[], %s::float8[], %s) AS u (node_id, clip_id, end_time, vec) "
            "WHERE EXISTS (SELECT 1 FROM nodes n WHERE n.id = u.node_id) "   # deleted since the caller read it
            "ON CONFLICT (node_id) DO UPDATE SET clip_id = EXCLUDED.clip_id, end_time = EXCLUDED.end_time, "
            "vec = EXCLUDED.vec WHERE (text_vectors.clip_id, text_vectors.end_time, text_vectors.vec) "
            "IS DISTINCT FROM (EXCLUDED.clip_id, EXCLUDED.end_time, EXCLUDED.vec)",
            ([int(i) for i in ids.tolist()], [None if c < 0 else int(c) for c in clips.tolist()], times,
             Vectors(vecs)))

    def replace_all(self, chunks: Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
                    seq: int) -> int:
        """Rebuild from every text vector (the change log was pruned past the table, or a forced rebuild): the rows
        first, the HNSW graph after (pgvector builds it faster than it grows it row by row); one transaction."""
        t0, n = time.perf_counter(), 0
        with self._conn.transaction():
            self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (SYNC_LOCK,))
            if self.exists:
                self._conn.execute("DROP INDEX IF EXISTS text_vectors_hnsw")
                self._conn.execute("TRUNCATE text_vectors")
            for ids, vecs, clips, end_times in chunks:
                if not len(ids):
                    continue
                if not self.exists:
                    self.ensure(vecs.shape[1])
                    self._conn.execute("DROP INDEX IF EXISTS text_vectors_hnsw")
                self._write(ids, vecs, clips, end_times)
                n += len(ids)
            if self.exists:   # a graph that fits in memory builds several times faster (pgvector's notice)
                self._conn.execute(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'")
                self._conn.execute(self._hnsw_ddl())
                self._conn.execute("UPDATE text_vectors_state SET seq = %s", (seq,))
        self.seq, self._len = seq, None
        log.info("server vector index: %d rows written and indexed in %.1f s", n, time.perf_counter() - t0)
        return n

    # -- searching --------------------------------------------------------------------------------------------
    def search(self, queries: np.ndarray, k: int, mask: np.ndarray | None = None,
               subset_ids: list[int] | np.ndarray | None = None, before_time: float | None = None,
               exclude_clips: Iterable[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Top-k node ids by max cosine over the query rows, as ``VectorIndex.search`` (no ``mask``: a row mask
        belongs to a local index)."""
        if mask is not None:
            raise ValueError("a row mask is a local index's; the server index filters by time, clip and node ids")
        if not self.exists or k <= 0:
            return _empty()
        q = np.ascontiguousarray(queries, dtype=np.float32).reshape(-1, self.dim)
        where, args = ["true"], []
        if before_time is not None:
            where.append("end_time <= %s")
            args.append(float(before_time) + EPS)
        excl = sorted({int(c) for c in exclude_clips or ()})
        if excl:
            where.append("coalesce(clip_id, -1) <> ALL(%s)")
            args.append(excl)
        if subset_ids is not None:
            subset = np.unique(np.asarray(subset_ids, dtype=np.int64))
            if not len(subset):
                return _empty()
            where.append("node_id = ANY(%s)")
            args.append(subset.tolist())
            # exact among the few: the fence (OFFSET 0) keeps the planner off the HNSW index
            sql = (f"SELECT node_id, clip_id, d FROM (SELECT node_id, clip_id, vec <#> %s AS d FROM text_vectors "
                   f"WHERE {' AND '.join(where)} OFFSET 0) s ORDER BY d LIMIT %s")
            params = [[Vector(row), *args, k] for row in q]
        else:
            sql = (f"SELECT node_id, clip_id, vec <#> %s AS d FROM text_vectors WHERE {' AND '.join(where)} "
                   f"ORDER BY vec <#> %s LIMIT %s")
            params = [[Vector(row), *args, Vector(row), k] for row in q]
        best: dict[int, float] = {}
        with self.lock:
            if len(params) == 1:
                results = [self._conn.execute(sql, params[0]).fetchall()]
            else:   # the query's variants in one round trip
                with self._conn.pipeline():
                    curs = [self._conn.execute(sql, p) for p in params]
                results = [c.fetchall() for c in curs]
            if len(self._clips) > 200_000:
                self._clips.clear()
            for rows in results:
                for nid, clip, d in rows:
                    self._clips[nid] = -1 if clip is None else int(clip)
                    s = -float(d)   # <#> is the negative inner product
                    if s > best.get(nid, -np.inf):
                        best[nid] = s
        if not best:
            return _empty()
        order = sorted(best.items(), key=lambda kv: -kv[1])[:k]
        return (np.array([i for i, _ in order], dtype=np.int64), np.array([s for _, s in order], dtype=np.float32))

    def clips_of(self, node_ids: np.ndarray) -> np.ndarray:
        ids = [int(i) for i in np.asarray(node_ids).tolist()]
        missing = [i for i in ids if i not in self._clips]
        if missing:
            with self.lock:
                for nid, clip in self._conn.execute("SELECT id, clip_id FROM nodes WHERE id = ANY(%s)", (missing,)):
                    self._clips[nid] = -1 if clip is None else int(clip)
        return np.array([self._clips.get(i, -1) for i in ids], dtype=np.int64)

    @property
    def n(self) -> int:
        return len(self)

    def __len__(self) -> int:
        if not self.exists:
            return 0
        now = time.monotonic()
        if self._len is None or now - self._len[0] > _LEN_TTL_S:
            with self.lock:
                self._len = (now, int(self._conn.execute("SELECT count(*) FROM text_vectors").fetchone()[0]))
        return self._len[1]

    def wait_idle(self, timeout: float | None = None) -> bool:
        return True

    def close(self) -> None:
        self._session.close()
