"""In-memory vector index over the text nodes, rebuilt from SQLite and kept in step incrementally.

Rows are append-only: a deleted node's row is tombstoned (``alive=False``) and an updated node gets a new
row, so row numbers stay valid for faiss. ``compact()`` rebuilds without the dead rows.

Search is exact (one BLAS matrix-vector product) below ``hnsw_min_size`` rows or ``exact_max_floats`` stored
floats (an exact scan of 100k x 384 floats takes a few ms, with perfect recall and no build cost), and on small
filtered subsets; above it a faiss HNSW graph (inner product on unit vectors = cosine) answers, with the
filter (time bound, excluded clips, tombstones) applied inside the graph walk by an IDSelectorBitmap.
"""

from __future__ import annotations

from dataclasses import dataclass

import faiss
import numpy as np


@dataclass
class IndexParams:
    hnsw_min_size: int = 20000
    hnsw_m: int = 32
    hnsw_ef_search: int = 128
    hnsw_ef_construction: int = 80
    exact_subset_max: int = 20000
    exact_max_floats: int = 50_000_000   # rows x dim kept exact even above hnsw_min_size (100k x 384 = 38M)


class VectorIndex:
    def __init__(self, dim: int, params: IndexParams | None = None) -> None:
        self.dim = dim
        self.p = params or IndexParams()
        self.n = 0
        cap = 1024
        self.mat = np.zeros((cap, dim), dtype=np.float32)
        self.ids = np.zeros(cap, dtype=np.int64)
        self.clip = np.zeros(cap, dtype=np.int64)
        self.end_time = np.zeros(cap, dtype=np.float64)
        self.alive = np.zeros(cap, dtype=bool)
        self.row_of: dict[int, int] = {}
        self.hnsw: faiss.IndexHNSWFlat | None = None

    # ------------------------------------------------------------------ building
    def _grow(self, need: int) -> None:
        cap = len(self.ids)
        if need <= cap:
            return
        new = max(need, cap * 2)
        self.mat = np.resize(self.mat, (new, self.dim))
        for name in ("ids", "clip", "end_time", "alive"):
            arr = getattr(self, name)
            grown = np.zeros(new, dtype=arr.dtype)
            grown[:cap] = arr
            setattr(self, name, grown)

    def add(self, ids: np.ndarray, vecs: np.ndarray, clips: np.ndarray, end_times: np.ndarray) -> None:
        k = len(ids)
        if k == 0:
            return
        vecs = np.ascontiguousarray(vecs, dtype=np.float32).reshape(k, self.dim)
        for node_id in ids:  # an update: tombstone the old row first
            old = self.row_of.get(int(node_id))
            if old is not None:
                self.alive[old] = False
        self._grow(self.n + k)
        sl = slice(self.n, self.n + k)
        self.mat[sl] = vecs
        self.ids[sl] = ids
        self.clip[sl] = clips
        self.end_time[sl] = end_times
        self.alive[sl] = True
        for i, node_id in enumerate(ids):
            self.row_of[int(node_id)] = self.n + i
        start = self.n
        self.n += k
        if self.hnsw is not None:
            self.hnsw.add(self.mat[start : self.n])
        elif self.n >= self.p.hnsw_min_size and self.n * self.dim > self.p.exact_max_floats:
            self._build_hnsw()

    def remove(self, ids: list[int]) -> None:
        for node_id in ids:
            row = self.row_of.pop(int(node_id), None)
            if row is not None:
                self.alive[row] = False
        if self.n and (self.n - int(self.alive[: self.n].sum())) > max(1000, self.n // 5):
            self.compact()

    def compact(self) -> None:
        keep = np.flatnonzero(self.alive[: self.n])
        mat, ids, clip, end = self.mat[keep].copy(), self.ids[keep].copy(), self.clip[keep], self.end_time[keep]
        self.__init__(self.dim, self.p)  # type: ignore[misc]
        self.add(ids, mat, clip.copy(), end.copy())

    def _build_hnsw(self) -> None:
        index = faiss.IndexHNSWFlat(self.dim, self.p.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = self.p.hnsw_ef_construction
        index.add(self.mat[: self.n])
        self.hnsw = index

    def __len__(self) -> int:
        return int(self.alive[: self.n].sum())

    def clips_of(self, node_ids: np.ndarray) -> np.ndarray:
        """Clip id of each node (-1 when unknown), from the index itself: no database round trip."""
        rows = [self.row_of.get(int(i), -1) for i in node_ids]
        return np.array([self.clip[r] if r >= 0 else -1 for r in rows], dtype=np.int64)

    def vector(self, node_id: int) -> np.ndarray | None:
        row = self.row_of.get(int(node_id))
        return None if row is None else self.mat[row]

    # ------------------------------------------------------------------ searching
    def allowed_mask(self, before_time: float | None = None, exclude_clips: set[int] | None = None) -> np.ndarray:
        mask = self.alive[: self.n].copy()
        if before_time is not None:
            mask &= self.end_time[: self.n] <= before_time + 1e-9
        if exclude_clips:
            mask &= ~np.isin(self.clip[: self.n], np.fromiter(exclude_clips, dtype=np.int64))
        return mask

    def search(self, queries: np.ndarray, k: int, mask: np.ndarray | None = None,
               subset_ids: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Top-k node ids by max cosine over the query rows. Returns (node_ids, scores), best first."""
        if self.n == 0 or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        q = np.ascontiguousarray(queries, dtype=np.float32).reshape(-1, self.dim)
        if mask is None:
            mask = self.alive[: self.n]
        if subset_ids is not None:
            rows = np.array([r for r in (self.row_of.get(int(i)) for i in subset_ids) if r is not None],
                            dtype=np.int64)
            rows = rows[mask[rows]] if len(rows) else rows
            return self._exact_rows(q, k, rows)
        allowed = int(mask.sum())
        if allowed == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if self.hnsw is None or allowed <= self.p.exact_subset_max:
            if allowed == self.n:
                return self._exact_all(q, k)
            if allowed * 4 < self.n:  # few rows: gather them
                return self._exact_rows(q, k, np.flatnonzero(mask))
            return self._exact_all(q, k, mask)  # most rows: score all, mask out the rest (no copy)
        return self._hnsw(q, k, mask)

    def _topk(self, rows: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        if len(scores) > k:
            part = np.argpartition(-scores, k - 1)[:k]
            rows, scores = rows[part], scores[part]
        order = np.argsort(-scores, kind="stable")
        return self.ids[rows[order]], scores[order]

    def _exact_all(self, q: np.ndarray, k: int, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        scores = (self.mat[: self.n] @ q.T).max(axis=1)
        rows = np.arange(self.n)
        if mask is not None:
            rows, scores = rows[mask], scores[mask]
        return self._topk(rows, scores, k)

    def _exact_rows(self, q: np.ndarray, k: int, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if len(rows) == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        scores = (self.mat[rows] @ q.T).max(axis=1)
        return self._topk(rows, scores, k)

    def _hnsw(self, q: np.ndarray, k: int, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        assert self.hnsw is not None
        bits = np.packbits(mask, bitorder="little")
        sel = faiss.IDSelectorBitmap(self.n, faiss.swig_ptr(bits))
        params = faiss.SearchParametersHNSW(sel=sel, efSearch=max(self.p.hnsw_ef_search, k))
        dist, rows = self.hnsw.search(q, k, params=params)
        best: dict[int, float] = {}
        for drow, rrow in zip(dist, rows, strict=True):
            for s, r in zip(drow, rrow, strict=True):
                if r >= 0 and s > best.get(int(r), -np.inf):
                    best[int(r)] = float(s)
        if not best:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        r = np.fromiter(best.keys(), dtype=np.int64)
        s = np.fromiter(best.values(), dtype=np.float32)
        return self._topk(r, s, k)
