"""The segmented vector index against brute force: time bounds, exclusions, subsets, deletions, updates."""

from __future__ import annotations

import numpy as np
import pytest

from m3_memory.store.vector_index import IndexParams, VectorIndex

D, N = 24, 2400


def _data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, D)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True), np.arange(1, N + 1) * 3


def _filled(dtype: str, background: bool, exact_subset_max: int = 40) -> tuple[VectorIndex, np.ndarray, np.ndarray]:
    x, ids = _data()
    p = IndexParams(hnsw_min_size=100, exact_max_floats=0, segment_rows=100, max_segment_rows=1600,
                    exact_subset_max=exact_subset_max, hnsw_ef_search=400, dtype=dtype, background=background)
    vi = VectorIndex(D, p)
    for i in range(0, N, 50):  # rows arrive in time order, 50 per "clip"
        vi.add(ids[i : i + 50], x[i : i + 50], ids[i : i + 50] // 150, np.arange(i, i + 50, dtype=float))
    assert vi.wait_idle(120)
    return vi, x, ids


def _truth(x: np.ndarray, ids: np.ndarray, q: np.ndarray, k: int, allowed: np.ndarray) -> list[int]:
    s = x @ q
    s[~allowed] = -np.inf
    order = np.argsort(-s)[:k]
    return ids[order[np.isfinite(s[order])]].tolist()


@pytest.mark.parametrize("dtype,background", [("float32", False), ("float32", True), ("float16", True)])
def test_segmented_search_equals_brute_force(dtype, background):
    vi, x, ids = _filled(dtype, background)
    sizes = [s.rows for s in vi.segments]
    # sealed (100 rows at a time) and merged: at most 3 segments below the 1600-row cap
    assert sum(sizes) + vi.pending == N and len(sizes) >= 2 and max(sizes) > 100
    assert sum(r < 1600 for r in sizes) <= 3
    rng = np.random.default_rng(1)
    dead = rng.choice(N, 300, replace=False)
    vi.remove(ids[dead].tolist())
    alive = np.ones(N, dtype=bool)
    alive[dead] = False
    updated = rng.choice(np.flatnonzero(alive), 20, replace=False)  # re-added rows: the old row dies
    newv = rng.standard_normal((20, D)).astype(np.float32)
    newv /= np.linalg.norm(newv, axis=1, keepdims=True)
    vi.add(ids[updated], newv, ids[updated] // 150, updated.astype(float))
    x = x.copy()
    x[updated] = newv
    assert len(vi) == alive.sum()
    misses = 0
    for t in range(60):
        q = x[rng.integers(N)] + 0.3 * rng.standard_normal(D).astype(np.float32)
        q /= np.linalg.norm(q)
        bound = None if t % 3 == 0 else float(rng.integers(N))
        ok = alive & (np.arange(N) <= (N if bound is None else bound))
        got, scores = vi.search(q[None, :], 10, before_time=bound)
        assert np.all(np.diff(scores) <= 1e-6)  # best first
        want = _truth(x, ids, q, 10, ok)
        misses += set(got.tolist()) != set(want)
        assert set(got.tolist()) <= set(ids[ok].tolist())  # never a dead, updated-away or too-late row
        excl = {int(w) // 150 for w in want[:2]}
        got, _ = vi.search(q[None, :], 10, before_time=bound, exclude_clips=excl)
        assert not ({int(g) // 150 for g in got.tolist()} & excl)
        assert set(got.tolist()) == set(_truth(x, ids, q, 10, ok & ~np.isin(ids // 150, list(excl)))) or \
            dtype != "float32"
        sub = rng.choice(N, 300, replace=False)
        got, _ = vi.search(q[None, :], 5, subset_ids=ids[sub].tolist(), before_time=bound)
        in_sub = np.zeros(N, dtype=bool)
        in_sub[sub] = True
        assert got.tolist() == _truth(x, ids, q, 5, ok & in_sub) or dtype != "float32"
    assert misses <= (0 if dtype == "float32" else 6), misses
    vi.close()


def test_multiple_query_rows_score_by_their_max():
    vi, x, ids = _filled("float32", False)
    q = np.stack([x[10], x[2000]])
    got, scores = vi.search(q, 2)
    assert set(got.tolist()) == {ids[10], ids[2000]} and np.allclose(scores, 1.0, atol=1e-5)


def test_compact_drops_dead_rows_and_keeps_results():
    vi, x, ids = _filled("float32", False)
    vi.remove(ids[::2].tolist())
    before = vi.search(x[7][None, :], 5)[0].tolist()
    vi.compact()
    assert vi.n == N // 2 and len(vi) == N // 2
    assert vi.search(x[7][None, :], 5)[0].tolist() == before
    assert vi.vector(ids[0]) is None and np.allclose(vi.vector(ids[1]), x[1])


def test_a_bulk_write_the_builder_lags_behind_ends_in_full_segments():
    """Rows arriving faster than the builder seals them (a bulk import: 600 pending at each build): each seal
    absorbs the small segment before it into a full one. Sealing all 600 waiting rows on their own made segments
    that no merge fits (600 + 600 > 1024), and every search walked each of them."""
    rng = np.random.default_rng(3)
    p = IndexParams(hnsw_min_size=64, exact_max_floats=0, segment_rows=64, max_segment_rows=1024, background=False)
    vi = VectorIndex(D, p)
    n = 0
    for _ in range(7):
        x = rng.standard_normal((600, D)).astype(np.float32)
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        ids = np.arange(n + 1, n + 601)
        vi.add(ids, x, ids // 100, np.arange(n, n + 600, dtype=float))
        n += 600
    sizes = [s.rows for s in vi.segments]
    assert sum(sizes) + vi.pending == n
    assert sizes[:4] == [1024] * 4 and len(sizes) <= 5, sizes


@pytest.mark.parametrize("share", [0.3, 0.1, 0.003, 0.6])
def test_a_time_bound_inside_a_segment_scores_its_rows_exactly_however_they_are_spread(share):
    """Rows whose end times arrive out of order (an updated memory gets a new row with its old time) leave the
    allowed rows of a bounded segment scattered (scored in place by faiss), few (copied) or in one block (a view):
    each way gives brute force's answer."""
    rng = np.random.default_rng(5)
    n, d = 20000, 16
    x = rng.standard_normal((n, d)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    ids = np.arange(1, n + 1)
    end = rng.permutation(n).astype(float) if share < 0.5 else np.arange(n, dtype=float)
    vi = VectorIndex(d, IndexParams(hnsw_min_size=64, exact_max_floats=0, segment_rows=n, background=False))
    vi.add(ids, x, ids // 100, end)
    assert len(vi.segments) == 1 and vi.pending == 0
    vi.remove(ids[::7].tolist())
    alive = np.ones(n, dtype=bool)
    alive[::7] = False
    bound = float(np.quantile(end, share))
    for _ in range(20):
        q = rng.standard_normal(d).astype(np.float32)
        q /= np.linalg.norm(q)
        got, _ = vi.search(q[None], 10, before_time=bound)
        assert got.tolist() == _truth(x, ids, q, 10, alive & (end <= bound))
