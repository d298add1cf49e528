"""In-memory vector index over the text nodes: exact on the newest rows, faiss HNSW segments in time order behind.

Rows
  Every vector added gets the next row number (append-only): ``ids``, ``clip``, ``end_time`` and ``alive`` are numpy
  arrays over rows. A deleted node's row is tombstoned (``alive=False``), an updated node gets a new row.
Pending rows
  The newest rows, searched exactly (one BLAS product over a contiguous float32 block).
Segments
  Immutable faiss HNSW graphs (inner product on unit vectors = cosine) over consecutive row ranges. Once the index
  holds ``hnsw_min_size`` rows and ``exact_max_floats`` floats, a background thread seals the pending rows into a
  segment (in chunks of at least ``segment_rows``) and merges ``merge_factor`` segments of one size class into one
  of the next, up to ``max_segment_rows``; a search never waits for a build and never sees a graph being changed.
  ``dtype`` float16 / int8 stores the segments' vectors as faiss scalar-quantized codes (2 / 1 byte per float).

Time bound as a row range
  Rows arrive in memorization order, so each segment covers a narrow span of end times: a bound at or after its
  last end time searches its graph unfiltered, a bound before its first end time skips it, and only the one
  segment the bound falls into is filtered: exactly over its allowed rows when they are few, else by a bitmap
  selector inside the graph walk with ``efSearch`` raised by the fraction filtered out. Correctness never depends
  on the order (an out-of-order row just widens its segment's span).

The index is derived data: :mod:`m3_memory.store.index_files` persists it beside the database and the store replays the
``changes`` log on top at open.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import faiss
import numpy as np

from ..thread_priority import lower_this_thread
from .vector_segments import (
    DTYPES,
    EPS,
    IndexParams,
    Segment,
    _best,
    _blas_one_thread,
    _blas_restore,
    _empty,
    _IdMap,
    _topk_dense,
    _trim_heap,
    exact_in_segment,
    segment_vectors,
)

log = logging.getLogger(__name__)
BUILD_CALL_FLOATS = 128 * 2**20   # floats per faiss add() call when building a segment (512 MB): see _build
_POOLS: dict[int, ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _search_pool(threads: int) -> ThreadPoolExecutor:
    """One pool per size for every index of the process (searches are short; readers share the threads)."""
    with _POOLS_LOCK:
        pool = _POOLS.get(threads)
        if pool is None:
            pool = _POOLS[threads] = ThreadPoolExecutor(threads, thread_name_prefix="m3-search")
        return pool


class VectorIndex:
    def __init__(self, dim: int, params: IndexParams | None = None) -> None:
        self.dim = dim
        self.p = params or IndexParams()
        if self.p.dtype not in DTYPES:
            raise ValueError(f"index dtype must be one of {DTYPES}, got {self.p.dtype!r}")
        self.lock = threading.RLock()
        self.n = 0
        cap = 1024
        self.ids = np.zeros(cap, dtype=np.int64)
        self.clip = np.zeros(cap, dtype=np.int64)
        self.end_time = np.zeros(cap, dtype=np.float64)
        self.alive = np.zeros(cap, dtype=bool)
        self.idmap = _IdMap()
        self.segments: list[Segment] = []
        self.pstart = 0                                            # first pending row
        self.pmat = np.zeros((256, dim), dtype=np.float32)          # pending rows' vectors (pmat[i] = row pstart+i)
        self.train: np.ndarray | None = None                       # sample quantized segments are trained on
        self.seq = 0                                               # change-log position this state reflects
        self.on_built: Callable[[VectorIndex], None] | None = None  # called (builder thread) after each build
        self.built_at = 0                                          # number of builds (to tell a state changed)
        self.unsaved_build = False                                 # an inline build happened (the caller saves)
        self.after_search: Callable[[], None] | None = None         # called once, after the next search
        self._dead_total = 0
        self._thread: threading.Thread | None = None
        self._wake = threading.Condition(self.lock)
        self._busy = False
        self._closed = False

    # ------------------------------------------------------------------ building
    def _grow(self, need: int) -> None:
        cap = len(self.ids)
        if need <= cap:
            return
        new = max(need, cap * 2)
        for name in ("ids", "clip", "end_time", "alive"):
            arr = getattr(self, name)
            grown = np.zeros(new, dtype=arr.dtype)
            grown[:cap] = arr
            setattr(self, name, grown)

    def _grow_pending(self, need: int) -> None:
        if need <= len(self.pmat):
            return
        grown = np.zeros((max(need, 2 * len(self.pmat)), self.dim), dtype=np.float32)
        m = self.n - self.pstart
        grown[:m] = self.pmat[:m]
        self.pmat = grown

    def add(self, ids: np.ndarray, vecs: np.ndarray, clips: np.ndarray, end_times: np.ndarray) -> None:
        k = len(ids)
        if k == 0:
            return
        ids = np.asarray(ids, dtype=np.int64)
        vecs = np.ascontiguousarray(vecs, dtype=np.float32).reshape(k, self.dim)
        with self.lock:
            self._tombstone(self.idmap.get(ids))   # an update: the old row dies
            self._grow(self.n + k)
            self._grow_pending(self.n + k - self.pstart)
            sl = slice(self.n, self.n + k)
            self.ids[sl] = ids
            self.clip[sl] = clips
            self.end_time[sl] = end_times
            self.alive[sl] = True
            self.pmat[self.n - self.pstart : self.n - self.pstart + k] = vecs
            self.idmap.set(ids, np.arange(self.n, self.n + k))
            self.n += k
        self._schedule()

    def remove(self, ids: Iterable[int]) -> None:
        ids = np.asarray(list(ids), dtype=np.int64)
        if len(ids) == 0:
            return
        with self.lock:
            self._tombstone(self.idmap.get(ids))
            self.idmap.set(ids, np.full(len(ids), -1))

    def _tombstone(self, rows: np.ndarray) -> None:
        rows = rows[rows >= 0]
        rows = rows[self.alive[rows]]
        if len(rows) == 0:
            return
        self.alive[rows] = False
        self._dead_total += len(rows)
        if self.segments:
            starts = np.array([s.start for s in self.segments])
            where = np.searchsorted(starts, rows, side="right") - 1
            for si, cnt in zip(*np.unique(where[rows < self.pstart], return_counts=True), strict=True):
                seg = self.segments[int(si)]
                seg.dead += int(cnt)
                seg._sel = None

    def compact(self) -> None:
        """Rebuild without the dead rows (synchronously)."""
        with self.lock:
            keep = np.flatnonzero(self.alive[: self.n])
            fresh = VectorIndex(self.dim, dataclasses.replace(self.p, background=False))
            fresh.train = self.train
            fresh.add(self.ids[keep].copy(), self.vectors_of_rows(keep), self.clip[keep].copy(),
                      self.end_time[keep].copy())
            for name in ("n", "ids", "clip", "end_time", "alive", "idmap", "segments", "pstart", "pmat", "train",
                         "_dead_total"):
                setattr(self, name, getattr(fresh, name))
            self.built_at += 1

    # ------------------------------------------------------------------ background builder
    def _want_segments(self) -> bool:
        return self.n >= self.p.hnsw_min_size and self.n * self.dim > self.p.exact_max_floats

    def _base(self) -> int:
        """Pending rows sealed at a time: ``segment_rows``, fewer for wide vectors (the exact part of a search
        stays within ~``exact_max_floats`` floats: 4096 rows at 384-d, 1302 at 3072-d)."""
        by_floats = max(256, self.p.exact_max_floats // max(1, self.dim))
        return max(1, min(self.p.segment_rows, self.p.hnsw_min_size, by_floats))

    def _size_class(self, rows: int) -> int:
        if rows < self._base():
            return 0
        return int(np.log(rows / self._base()) / np.log(max(2, self.p.merge_factor)) + 1e-9)

    def _seal(self, pend: int) -> tuple:
        """("seal", i, stop): build one segment from ``segments[i:]`` (none when i is their count) and the pending
        rows up to row ``stop``: every waiting row (at most ``max_segment_rows``), or, when they fill a full segment
        together with the trailing segments below that size, those segments and as many rows as fill it.

        Without absorbing, a builder catching up on a bulk import sealed whatever had piled up meanwhile (150k
        rows): segments that no merge fits, each isolated between full ones. A 1.25M-row import ended in 8
        segments of ~150k where 5 do, and every search walks each segment's graph."""
        segs, cap = self.segments, self.p.max_segment_rows
        i, tail = len(segs), 0
        while i > 0 and tail + segs[i - 1].rows < cap:
            tail += segs[i - 1].rows
            i -= 1
        if i < len(segs) and tail + pend >= cap:
            return ("seal", i, self.pstart + cap - tail)
        return ("seal", len(segs), self.pstart + min(pend, cap))

    def _plan(self) -> tuple | None:
        """Under the lock: the next build, ("seal", i, stop) (:meth:`_seal`) | ("merge", i, j), or None."""
        if self._closed or not self._want_segments():
            return None
        pend = self.n - self.pstart
        if pend >= self._base():
            return self._seal(pend)
        segs, f = self.segments, max(2, self.p.merge_factor)
        for i in range(len(segs) - f, -1, -1):
            run = segs[i : i + f]
            cls = self._size_class(run[0].rows)
            fits = sum(s.rows for s in run) <= self.p.max_segment_rows
            if fits and all(self._size_class(s.rows) == cls for s in run):
                return ("merge", i, i + f)
        # every segment costs each search a graph walk: past max_small_segments small ones, merge the adjacent
        # pair with the fewest rows (the newest, usually)
        if sum(s.rows < self.p.max_segment_rows for s in segs) > self.p.max_small_segments:
            pairs = [(segs[i].rows + segs[i + 1].rows, i) for i in range(len(segs) - 1)
                     if segs[i].rows + segs[i + 1].rows <= self.p.max_segment_rows]
            if pairs:
                _, i = min(pairs)
                return ("merge", i, i + 2)
        return None

    def _task_rows(self, task: tuple) -> int:
        if task[0] == "seal":
            return task[2] - self.pstart + sum(s.rows for s in self.segments[task[1] :])
        return sum(s.rows for s in self.segments[task[1] : task[2]])

    def _schedule(self) -> None:
        while True:
            with self.lock:
                task = self._plan()
                if task is None:
                    return
                if self.p.background and self._task_rows(task) * self.dim > 65536:  # tiny ones: not worth a thread
                    if self._thread is None or not self._thread.is_alive():
                        self._thread = threading.Thread(target=self._run, name="m3-index-builder", daemon=True)
                        self._busy = True
                        self._thread.start()
                    else:
                        self._wake.notify_all()
                    return
            if not self._step(inline=True):
                return

    def _run(self) -> None:
        lower_this_thread(10)   # builds yield the CPU to searches and the writer
        while True:
            with self.lock:
                while not self._closed and self._plan() is None:
                    self._busy = False
                    self._wake.notify_all()
                    self._wake.wait(timeout=5.0)
                if self._closed:
                    self._busy = False
                    self._wake.notify_all()
                    return
                self._busy = True
            try:
                self._step(inline=False)
            except Exception:  # never let the builder die silently: log, back off, keep serving exact
                log.exception("vector index: background build failed")
                time.sleep(1.0)

    def _step(self, inline: bool) -> bool:
        with self.lock:
            task = self._plan()
            if task is None:
                return False
            run = self.segments[task[1] :] if task[0] == "seal" else self.segments[task[1] : task[2]]
            if task[0] == "seal":
                # a view, not a copy (rows once written never change; a grown buffer leaves this one to us):
                # a copy of up to 400 MB here would hold the lock and the GIL while searches wait
                vecs, pstart = self.pmat[: task[2] - self.pstart], self.pstart
            catching_up = (self.n - self.pstart) > 2 * self.p.max_segment_rows
        if not inline:  # OpenMP threads are per calling thread: this sets the builder's only
            threads = self.p.build_threads or (faiss.omp_get_num_procs() if catching_up else 1)
            faiss.omp_set_num_threads(max(1, threads))
        t0 = time.perf_counter()
        if task[0] == "seal":
            _, i, stop = task
            index = self._build([*(segment_vectors(s) for s in run), vecs])
            with self.lock:
                if self._closed or self.pstart != pstart or self.segments[i:] != run:
                    return False
                seg = self._new_segment(run[0].start if run else pstart, stop, index)
                self.segments = [*self.segments[:i], seg]
                m = self.n - stop
                rest = np.zeros((max(256, 2 * m), self.dim), dtype=np.float32)
                rest[:m] = self.pmat[stop - pstart : stop - pstart + m]
                self.pmat, self.pstart = rest, stop
                self.built_at += 1
            what = f"sealed rows {pstart}-{stop}" + (f" with {len(run)} segments" if run else "")
        else:
            _, i, j = task
            index = self._build([segment_vectors(s) for s in run])
            with self.lock:
                if self._closed or self.segments[i:j] != run:
                    return False
                seg = self._new_segment(run[0].start, run[-1].stop, index)
                self.segments = [*self.segments[:i], seg, *self.segments[j:]]
                self.built_at += 1
            what = f"merged {len(run)} segments into rows {seg.start}-{seg.stop}"
        log.debug("vector index: %s in %.2f s", what, time.perf_counter() - t0)
        _trim_heap()  # the replaced segments' memory goes back to the OS (RSS follows the index, not its history)
        if inline:  # inside add(): the caller has not recorded the change-log position of this state yet
            self.unsaved_build = True
        elif self.on_built is not None:
            try:
                self.on_built(self)
            except Exception:
                log.exception("vector index: persisting after a build failed")
        return True

    def _new_segment(self, start: int, stop: int, index: faiss.Index) -> Segment:
        end = self.end_time[start:stop]
        seg = Segment(start, stop, index, float(end.min()), float(end.max()))
        seg.dead = int((~self.alive[start:stop]).sum())
        return seg

    def _build(self, parts: list[np.ndarray]) -> faiss.Index:
        """An HNSW segment over the rows of ``parts`` in order, in as few ``add`` calls as memory allows: faiss
        builds the graph call by call, and a build split into 16,384-row calls lost recall (60k rows of two robots'
        memories: recall@10 0.82-0.95 over row orders where one call gives 0.95-0.96, build time unchanged). Calls
        hold at most ``BUILD_CALL_FLOATS`` floats (one call for every segment at 384-d; a concatenated copy of the
        rows at most that big is made for it)."""
        p = self.p
        if p.dtype == "float32":
            index = faiss.IndexHNSWFlat(self.dim, p.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        else:
            qtype = faiss.ScalarQuantizer.QT_fp16 if p.dtype == "float16" else faiss.ScalarQuantizer.QT_8bit
            index = faiss.IndexHNSWSQ(self.dim, qtype, p.hnsw_m, faiss.METRIC_INNER_PRODUCT)
            if self.train is None:  # the first segment's rows train every later one: decode/encode round trips
                first = parts[0]
                self.train = np.ascontiguousarray(first[:: max(1, len(first) // 16384)], dtype=np.float32)
            index.train(self.train)
        index.hnsw.efConstruction = p.hnsw_ef_construction
        step = max(16384, BUILD_CALL_FLOATS // max(self.dim, 1))
        rows = parts[0] if len(parts) == 1 else None
        if rows is None and sum(len(x) for x in parts) <= step:
            rows = np.concatenate(parts)
        for part in [rows] if rows is not None else parts:
            for i in range(0, len(part), step):
                index.add(np.ascontiguousarray(part[i : i + step], dtype=np.float32))
        return index

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until the builder has nothing left to do (True) or ``timeout`` passed (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        self._schedule()
        with self.lock:
            while self._busy or (self._plan() is not None and not self._closed):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._wake.notify_all()
                self._wake.wait(timeout=0.2 if left is None else min(0.2, left))
            return True

    def close(self) -> None:
        with self.lock:
            self._closed = True
            self._wake.notify_all()

    # ------------------------------------------------------------------ reading
    def __len__(self) -> int:
        return int(self.n - self._dead_total)

    @property
    def hnsw(self) -> faiss.Index | None:
        """The oldest segment's graph (None while the index is all exact)."""
        segs = self.segments
        return segs[0].index if segs else None

    @property
    def pending(self) -> int:
        return self.n - self.pstart

    def clips_of(self, node_ids: np.ndarray) -> np.ndarray:
        """Clip id of each node (-1 when unknown), from the index itself: no database round trip."""
        rows = self.idmap.get(node_ids)
        out = np.full(len(rows), -1, dtype=np.int64)
        ok = rows >= 0
        out[ok] = self.clip[rows[ok]]
        return out

    def vectors_of_rows(self, rows: np.ndarray) -> np.ndarray:
        """float32 vectors of the given rows (any order)."""
        rows = np.asarray(rows, dtype=np.int64)
        out = np.zeros((len(rows), self.dim), dtype=np.float32)
        segs, pstart, pmat = self.segments, self.pstart, self.pmat
        pend = rows >= pstart
        out[pend] = pmat[rows[pend] - pstart]
        if segs and (~pend).any():
            starts = np.array([s.start for s in segs])
            where = np.searchsorted(starts, rows, side="right") - 1
            for si in np.unique(where[~pend]).tolist():
                seg = segs[si]
                sel = np.flatnonzero(~pend & (where == si))
                local = rows[sel] - seg.start
                if seg.xb is not None:
                    out[sel] = seg.xb[local]
                else:
                    st = faiss.downcast_index(seg.index.storage)
                    out[sel] = st.reconstruct_batch(local)
        return out

    def _row_scores(self, rows: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Max score over the query rows of each given row (sorted rows: one gather per segment, no copy back)."""
        out = np.empty(len(rows), dtype=np.float32)
        segs, pstart, pmat = self.segments, self.pstart, self.pmat
        bounds = np.searchsorted(rows, [s.start for s in segs] + [pstart])
        for seg, lo, hi in zip(segs, bounds[:-1], bounds[1:], strict=True):
            if hi > lo:
                local = rows[lo:hi] - seg.start
                block = seg.xb[local] if seg.xb is not None else faiss.downcast_index(
                    seg.index.storage).reconstruct_batch(local)
                out[lo:hi] = (block @ q.T).max(axis=1)
        lo = bounds[-1]
        if lo < len(rows):
            out[lo:] = (pmat[rows[lo:] - pstart] @ q.T).max(axis=1)
        return out

    def vector(self, node_id: int) -> np.ndarray | None:
        row = int(self.idmap.get([node_id])[0])
        if row < 0 or not self.alive[row]:
            return None
        return self.vectors_of_rows(np.array([row]))[0]

    def nbytes(self) -> dict:
        """Bytes held in memory, by part (segments' vectors and graphs, pending rows, per-row arrays)."""
        vec = graph = 0
        for s in self.segments:
            st = faiss.downcast_index(s.index.storage)
            vec += s.rows * (self.dim * 4 if s.xb is not None else st.code_size)
            h = s.index.hnsw
            graph += h.neighbors.size() * 4 + h.offsets.size() * 8 + h.levels.size() * 4
        rows = sum(getattr(self, a).nbytes for a in ("ids", "clip", "end_time", "alive")) + self.idmap.nbytes()
        return {"vectors": vec, "graph": graph, "pending": int(self.pmat.nbytes), "rows": rows,
                "total": vec + graph + int(self.pmat.nbytes) + rows}

    # ------------------------------------------------------------------ searching
    def allowed_mask(self, before_time: float | None = None, exclude_clips: set[int] | None = None) -> np.ndarray:
        mask = self.alive[: self.n].copy()
        if before_time is not None:
            mask &= self.end_time[: self.n] <= before_time + EPS
        if exclude_clips:
            mask &= ~np.isin(self.clip[: self.n], np.fromiter(exclude_clips, dtype=np.int64))
        return mask

    def search(self, queries: np.ndarray, k: int, mask: np.ndarray | None = None,
               subset_ids: list[int] | None = None, before_time: float | None = None,
               exclude_clips: Iterable[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Top-k node ids by max cosine over the query rows, among live rows ending by ``before_time``, outside
        ``exclude_clips``, inside ``mask`` (a boolean array over rows) and ``subset_ids``. Best first."""
        if self.n == 0 or k <= 0:
            return _empty()
        saved = _blas_one_thread()
        try:
            return self._search(queries, k, mask, subset_ids, before_time, exclude_clips)
        finally:
            _blas_restore(saved)
            then, self.after_search = self.after_search, None
            if then is not None:
                then()

    def _search(self, queries: np.ndarray, k: int, mask: np.ndarray | None, subset_ids: list[int] | None,
                before_time: float | None, exclude_clips: Iterable[int] | None) -> tuple[np.ndarray, np.ndarray]:
        q = np.ascontiguousarray(queries, dtype=np.float32).reshape(-1, self.dim)
        bound = None if before_time is None else float(before_time) + EPS
        excl = np.fromiter(exclude_clips, dtype=np.int64) if exclude_clips else None
        if subset_ids is not None:
            rows = self.idmap.get(subset_ids)
            rows = np.unique(rows[rows >= 0])
            ok = self.alive[rows]
            if bound is not None:
                ok &= self.end_time[rows] <= bound
            if mask is not None:
                ok &= mask[rows]
            if excl is not None:
                ok &= ~np.isin(self.clip[rows], excl)
            rows = rows[ok]
            if len(rows) == 0:
                return _empty()
            if len(rows) <= self.p.exact_subset_max:
                r, s = _topk_dense(rows, self._row_scores(rows, q), k)
                return self.ids[r], s
            sub = np.zeros(self.n, dtype=bool)
            sub[rows] = True
            mask = sub  # large subsets: a mask over the graphs (the exclusions and bound are in it already)
            bound, excl = None, None
        kk = k
        while True:
            rows, scores, more = self._search_rows(q, kk + (0 if excl is None else kk), bound, mask)
            if excl is not None and len(rows):
                keep = ~np.isin(self.clip[rows], excl)
                rows, scores = rows[keep], scores[keep]
            if len(rows) >= k or not more:
                return self.ids[rows[:k]], scores[:k]
            kk *= 4

    def _search_rows(self, q: np.ndarray, k: int, bound: float | None, mask: np.ndarray | None
                     ) -> tuple[np.ndarray, np.ndarray, bool]:
        """(rows, scores, maybe_more) best first; maybe_more: some part returned a full k (more may exist)."""
        with self.lock:
            segs, pstart, n, pmat = self.segments, self.pstart, self.n, self.pmat
        all_rows, all_scores, more = [], [], False
        for r, s in self._each_segment(segs, q, k, bound, mask):
            more |= len(r) >= k
            all_rows.append(r)
            all_scores.append(s)
        m = n - pstart
        if m:
            ok = self.alive[pstart:n].copy()
            if bound is not None:
                ok &= self.end_time[pstart:n] <= bound
            if mask is not None:
                ok &= mask[pstart:n]
            cnt = int(ok.sum())
            if cnt:
                if cnt * 4 < m:  # few allowed: gather them
                    local = np.flatnonzero(ok)
                    scores = (pmat[local] @ q.T).max(axis=1)
                else:
                    scores = (pmat[:m] @ q.T).max(axis=1)
                    local = np.flatnonzero(ok)
                    scores = scores[local]
                r, s = _topk_dense(local + pstart, scores, k)
                more |= cnt > k
                all_rows.append(r)
                all_scores.append(s)
        if not all_rows:
            return *_empty(), False
        rows, scores = np.concatenate(all_rows), np.concatenate(all_scores).astype(np.float32)
        r, s = _best(rows, scores, k) if len(segs) + (1 if m else 0) > 1 or len(q) > 1 else (rows, scores)
        return r, s, more

    def _each_segment(self, segs: list[Segment], q: np.ndarray, k: int, bound: float | None,
                      mask: np.ndarray | None) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each segment's (rows, scores); walked by ``search_threads`` threads at once (faiss releases the GIL
        during a walk), so a search over many segments takes the time of the slowest share, not of all."""
        threads = min(self.p.search_threads, len(segs))
        if threads <= 1:
            return [self._search_segment(seg, q, k, bound, mask) for seg in segs]
        return list(_search_pool(threads).map(lambda seg: self._search_segment(seg, q, k, bound, mask), segs))

    def _search_segment(self, seg: Segment, q: np.ndarray, k: int, bound: float | None,
                        mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        if bound is not None and seg.min_end > bound:
            return _empty()
        if mask is None and (bound is None or seg.max_end <= bound):
            sel = seg.selector(self.alive)
            return self._hnsw(seg, q, k, None if sel is None else sel[1], seg.rows - seg.dead)
        ok = self.alive[seg.start : seg.stop].copy()
        if bound is not None and seg.max_end > bound:
            ok &= self.end_time[seg.start : seg.stop] <= bound
        if mask is not None:
            ok &= mask[seg.start : seg.stop]
        cnt = int(ok.sum())
        if cnt == 0:
            return _empty()
        if cnt <= self.p.exact_subset_max:
            return exact_in_segment(seg, q, k, ok, cnt)
        bits = np.packbits(ok, bitorder="little")
        sel = faiss.IDSelectorBitmap(seg.rows, faiss.swig_ptr(bits))
        return self._hnsw(seg, q, k, sel, cnt, bits)

    def _hnsw(self, seg: Segment, q: np.ndarray, k: int, sel: faiss.IDSelector | None, allowed: int,
              _bits: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        kk = min(k, allowed)
        if kk <= 0:
            return _empty()
        ef = max(self.p.hnsw_ef_search, kk)
        if sel is not None and allowed < seg.rows:  # a filtered walk needs a wider beam to find k allowed rows
            ef = max(kk, min(int(ef * seg.rows / allowed), 8 * ef))
        params = faiss.SearchParametersHNSW()
        params.efSearch = ef
        if sel is not None:
            params.sel = sel
        dist, local = seg.index.search(q, kk, params=params)
        found = local >= 0
        rows, scores = local[found].astype(np.int64) + seg.start, dist[found]
        if len(q) > 1:
            return _best(rows, scores, kk)
        return rows, scores
