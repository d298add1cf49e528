"""The vector index's parts (:mod:`m3_memory.store.vector_index`): its parameters, the immutable HNSW segments and
the exact scoring of their allowed rows, the node id -> row map, exact top-k over rows, and keeping BLAS to one thread
around searches."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

import faiss
import numpy as np

log = logging.getLogger("m3_memory.store.vector_index")

EPS = 1e-9              # time bounds include rows ending exactly at the bound (as SQL's end_time <= bound + 1e-9)


_BLAS: list | None = None


def _blas_one_thread() -> list[tuple]:
    """Run the exact scans' BLAS on one thread; returns what to restore (:func:`_blas_restore`).

    A search multiplies one query by at most a few ten thousand rows: one core does that in about a millisecond,
    while a two-thread OpenBLAS on a busy machine (memorization, the chat model) waits for its second thread and
    takes ten times longer (measured under load: 1.6 vs 20 ms p50 for 30k x 384). The process' BLAS thread count
    is set for the duration of the search."""
    global _BLAS
    if _BLAS is None:
        try:
            from threadpoolctl import ThreadpoolController

            _BLAS = [c for c in ThreadpoolController().lib_controllers if c.user_api == "blas"]
        except Exception:  # no threadpoolctl: leave BLAS as it is
            _BLAS = []
    saved = []
    for c in _BLAS:
        n = c.get_num_threads()
        if n != 1:
            c.set_num_threads(1)
            saved.append((c, n))
    return saved


def _trim_heap() -> None:
    """glibc keeps freed blocks in its arenas; after a merge freed a few hundred MB, give them back."""
    global _LIBC
    if _LIBC is None:
        try:
            import ctypes

            _LIBC = ctypes.CDLL("libc.so.6")
            _LIBC.malloc_trim.argtypes = [ctypes.c_size_t]
        except (OSError, AttributeError):
            _LIBC = False
    if _LIBC:
        _LIBC.malloc_trim(0)


_LIBC = None


def _blas_restore(saved: list[tuple]) -> None:
    for c, n in saved:
        c.set_num_threads(n)
_MAX_DENSE_ID = 1 << 26  # node ids below this map to rows through a dense array, larger ones through a dict
DTYPES = ("float32", "float16", "int8")


@dataclass
class IndexParams:
    hnsw_min_size: int = 8192            # exact search until the index holds this many rows ...
    hnsw_m: int = 16
    hnsw_ef_search: int = 128
    hnsw_ef_construction: int = 64
    exact_subset_max: int = 32768        # a filtered part with at most this many allowed rows is scored exactly
    exact_max_floats: int = 4_000_000    # ... and rows x dim above this (10k x 384, 1.3k x 3072)
    segment_rows: int = 4096             # pending rows are sealed into a segment once this many wait
    max_segment_rows: int = 262144       # segments are merged up to this size
    merge_factor: int = 4
    max_small_segments: int = 3          # segments under max_segment_rows beyond this are merged (searches stay cheap)
    dtype: str = "float32"               # segment vector storage: float32 | float16 | int8
    background: bool = True              # build segments in a background thread (else inline, for tests)
    build_threads: int = 1               # OpenMP threads of the builder (0: all cores while catching up)
    search_threads: int = 1              # threads a search walks its segments with (1: one after another)


class Segment:
    """An immutable HNSW graph over rows [start, stop)."""

    __slots__ = ("start", "stop", "index", "xb", "min_end", "max_end", "dead", "file", "file_dead", "_sel")

    def __init__(self, start: int, stop: int, index: faiss.Index, min_end: float, max_end: float) -> None:
        self.start, self.stop, self.index = start, stop, index
        self.min_end, self.max_end = min_end, max_end
        self.xb = _flat_view(index)   # float32 rows (a view into faiss' storage) or None for quantized storage
        self.dead = 0
        self.file: str | None = None  # the file this segment was persisted to (index_files)
        self.file_dead = 0            # dead rows when it was written (a file never holds a dead row's vector)
        self._sel: tuple | None = None

    @property
    def rows(self) -> int:
        return self.stop - self.start

    def selector(self, alive: np.ndarray) -> tuple | None:
        """(bitmap, IDSelectorBitmap) of the segment's live rows, None when none is dead."""
        if self.dead == 0:
            return None
        if self._sel is None:
            bits = np.packbits(alive[self.start : self.stop], bitorder="little")
            self._sel = (bits, faiss.IDSelectorBitmap(self.rows, faiss.swig_ptr(bits)))
        return self._sel


def _flat_view(index: faiss.Index) -> np.ndarray | None:
    storage = faiss.downcast_index(index.storage)
    if not isinstance(storage, faiss.IndexFlat):
        return None
    return faiss.rev_swig_ptr(storage.get_xb(), index.ntotal * index.d).reshape(index.ntotal, index.d)


def segment_vectors(seg: Segment) -> np.ndarray:
    """float32 copy-free view (float32 storage) or decoded copy (quantized storage) of a segment's vectors."""
    if seg.xb is not None:
        return seg.xb
    return faiss.downcast_index(seg.index.storage).reconstruct_n(0, seg.rows)


class _IdMap:
    """node id -> row: a dense int64 array for ordinary ids, a dict for huge ones."""

    def __init__(self) -> None:
        self.arr = np.full(1024, -1, dtype=np.int64)
        self.big: dict[int, int] = {}

    def set(self, ids: np.ndarray, rows: np.ndarray) -> None:
        ids = np.asarray(ids, dtype=np.int64)
        rows = np.asarray(rows, dtype=np.int64)
        small = (ids >= 0) & (ids < _MAX_DENSE_ID)
        if small.any():
            need = int(ids[small].max()) + 1
            if need > len(self.arr):
                grown = np.full(max(need, 2 * len(self.arr)), -1, dtype=np.int64)
                grown[: len(self.arr)] = self.arr
                self.arr = grown
            self.arr[ids[small]] = rows[small]
        for i, r in zip(ids[~small].tolist(), rows[~small].tolist(), strict=True):
            if r < 0:
                self.big.pop(i, None)
            else:
                self.big[i] = r

    def get(self, ids: Iterable[int] | np.ndarray) -> np.ndarray:
        ids = np.asarray(ids if isinstance(ids, np.ndarray) else list(ids), dtype=np.int64).reshape(-1)
        out = np.full(len(ids), -1, dtype=np.int64)
        small = (ids >= 0) & (ids < len(self.arr))
        out[small] = self.arr[ids[small]]
        if self.big:
            for j in np.flatnonzero(~small & (ids >= 0)).tolist():
                out[j] = self.big.get(int(ids[j]), -1)
        return out

    def nbytes(self) -> int:
        return int(self.arr.nbytes) + 64 * len(self.big)


def _empty() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)


def _best(rows: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k best (row, score) pairs, one per row (its max score), best first."""
    if len(rows) == 0:
        return _empty()
    order = np.argsort(-scores, kind="stable")
    rows, scores = rows[order], scores[order]
    _, first = np.unique(rows, return_index=True)
    if len(first) < len(rows):
        keep = np.sort(first)
        rows, scores = rows[keep], scores[keep]
    return rows[:k], scores[:k]


def _topk_dense(rows: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top k of a score vector over distinct rows (argpartition, then sort the k)."""
    if len(scores) > k:
        part = np.argpartition(-scores, k - 1)[:k]
        rows, scores = rows[part], scores[part]
    order = np.argsort(-scores, kind="stable")
    return rows[order], scores[order]


def exact_in_segment(seg: Segment, q: np.ndarray, k: int, ok: np.ndarray, cnt: int) -> tuple[np.ndarray, np.ndarray]:
    """The k best of a segment's ``cnt`` allowed rows (``ok``, a mask over its rows), scored exactly (max over the
    query rows)."""
    local = np.flatnonzero(ok)
    lo, hi = int(local[0]), int(local[-1]) + 1
    if seg.xb is not None and hi - lo <= 3 * cnt:
        # a time prefix with some rows dead (updated, deleted) is scored as the view it lies in; rows scattered
        # over the segment are scored in place by faiss (below): gathering them copied up to 46 MB per search
        # (7-11 ms at 100k memories, against 2 for the view)
        scores = (seg.xb[lo:hi] @ q.T).max(axis=1)
        scores = scores if hi - lo == cnt else scores[local - lo]
        return _topk_dense(local + seg.start, scores, k)
    if seg.xb is not None and cnt <= 4096:   # a few rows: a copy of them costs less than faiss' pass over all
        return _topk_dense(local + seg.start, (seg.xb[local] @ q.T).max(axis=1), k)
    bits = np.packbits(ok, bitorder="little")
    params = faiss.SearchParameters()
    params.sel = faiss.IDSelectorBitmap(seg.rows, faiss.swig_ptr(bits))
    dist, lab = faiss.downcast_index(seg.index.storage).search(q, min(k, cnt), params=params)
    found = lab >= 0
    return _best(lab[found].astype(np.int64) + seg.start, dist[found], k)
