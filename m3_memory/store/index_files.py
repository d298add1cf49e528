"""The vector index persisted beside its database (``memory.db.index/``), so opening a big store takes seconds.

Files (every name but ``manifest.json`` and ``lock`` carries a random token, so a write never touches a file a
manifest still names):

  manifest.json           format, store id, embedder, dim, storage dtype, HNSW M, the change-log position ``seq``
                          the state reflects, row count, segments and the files below
  seg-<start>-<stop>-*.faiss  one immutable HNSW segment each; read back memory-mapped (IO_FLAG_MMAP_IFC)
  rows-*.npz              node id, clip, end time and alive flag per row
  pend-*.npy              the pending rows' vectors (rows not in a segment yet)
  train-*.npy             the sample quantized (float16/int8) segments are trained on
  lock                    flock: one writer at a time; readers of the files take it shared

Opening from a cold disk (after a reboot): each segment file holds its graph first and its vectors after. The graphs
are read ahead in one sequential read per file before faiss maps it (faiss walks a mapped graph one page fault at a
time: 2 s at 1M rows against 0.2 s), the vectors stay mapped and are read in by a low-priority thread once the
first search has answered (until then a search costs a disk read per vector it visits). Where the page cache holds
the files (a writer just closed them), the open maps every page in (``MADV_POPULATE_READ``, mapped_pages.py) instead
of leaving each to a page fault in the first searches.

A save writes the new files (temp + fsync + rename), then the manifest the same way (the commit point), then
removes the files no manifest names; a crash at any moment leaves the previous manifest and its files. At open the
store loads the state and replays the ``changes`` rows after ``seq``; a missing, unreadable or foreign index
(another store, embedder, dtype or M; a log pruned past it; a database older than it) is rebuilt from SQLite in
the background while exact search serves, and a log line says why.

A file never holds the vector of a deleted row: a segment with dead rows is written from a copy whose dead
vectors are zeroed, and one whose rows died after it was written is written again. Replaced files are unlinked,
not overwritten (another process may have them mapped). ``purge`` (called after a forget) removes every file.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import faiss
import numpy as np

from ..thread_priority import lower_this_thread
from .mapped_pages import mapped_ranges, populate
from .vector_index import IndexParams, Segment, VectorIndex

log = logging.getLogger(__name__)

FORMAT = 1
MANIFEST = "manifest.json"
OPEN_POPULATE_S = 0.3   # how long an open maps segment pages in before it returns (the rest follows in background)


class IndexFileError(Exception):
    """The persisted index cannot be used (the message says why); the caller rebuilds."""


def index_dir(db_path: str | Path) -> Path:
    return Path(f"{db_path}.index")


@dataclass
class Header:
    """What a persisted index must have been built for."""

    store_id: str | None
    embedder: str | None
    dim: int
    dtype: str
    hnsw_m: int

    def describe(self) -> dict:
        return {"store_id": self.store_id, "embedder": self.embedder, "dim": self.dim, "dtype": self.dtype,
                "hnsw_m": self.hnsw_m}


@contextlib.contextmanager
def _flock(path: Path, exclusive: bool, blocking: bool) -> Iterator[bool]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _fsync_dir(d: Path) -> None:
    fd = os.open(d, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _atomic(path: Path, write: Callable[[Path], None]) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        write(tmp)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


@dataclass
class _Snapshot:
    seq: int
    n: int
    pstart: int
    segments: list[tuple[Segment, int]]   # (segment, its dead rows now)
    ids: np.ndarray
    clip: np.ndarray
    end_time: np.ndarray
    alive: np.ndarray
    pending: np.ndarray
    train: np.ndarray | None


def _snapshot(index: VectorIndex) -> _Snapshot:
    with index.lock:
        n, ps = index.n, index.pstart
        pending = index.pmat[: n - ps].copy()
        alive = index.alive[:n].copy()
        pending[~alive[ps:n]] = 0.0   # never persist a deleted row's vector
        return _Snapshot(index.seq, n, ps, [(s, s.dead) for s in index.segments], index.ids[:n].copy(),
                         index.clip[:n].copy(), index.end_time[:n].copy(), alive, pending, index.train)


def _clean_copy(seg: Segment, alive: np.ndarray) -> faiss.Index:
    """The segment's index with its dead rows' vectors zeroed (an owned copy: the original may be mapped)."""
    copy = faiss.deserialize_index(faiss.serialize_index(seg.index))
    storage = faiss.downcast_index(copy.storage)
    dead = np.flatnonzero(~alive[seg.start : seg.stop])
    if isinstance(storage, faiss.IndexFlat):
        view = faiss.rev_swig_ptr(storage.get_xb(), copy.ntotal * copy.d).reshape(copy.ntotal, copy.d)
    else:
        cs = storage.code_size
        view = faiss.rev_swig_ptr(storage.codes.data(), copy.ntotal * cs).reshape(copy.ntotal, cs)
    view[dead] = 0
    return copy


def save(index: VectorIndex, dirpath: Path, header: Header, check: Callable[[int], str | None] | None = None
         ) -> bool:
    """Persist ``index`` into ``dirpath``. False (and nothing written) when another process is saving, or ``check``
    (given the state's change-log position) names a reason not to (e.g. deletions the state has not applied)."""
    dirpath.mkdir(parents=True, exist_ok=True)
    with _flock(dirpath / "lock", exclusive=True, blocking=False) as got:
        if not got:
            return False
        snap = _snapshot(index)
        if check is not None:
            why = check(snap.seq)
            if why:
                log.debug("vector index not saved: %s", why)
                return False
        t0 = time.perf_counter()
        token = uuid.uuid4().hex[:8]
        segs = []
        for seg, dead in snap.segments:
            name = seg.file
            if name is None or dead != seg.file_dead or not (dirpath / name).exists():
                name = f"seg-{seg.start:010d}-{seg.stop:010d}-{token}.faiss"
                out = seg.index if dead == 0 else _clean_copy(seg, snap.alive)
                _atomic(dirpath / name, lambda p, out=out: faiss.write_index(out, str(p)))
                seg.file, seg.file_dead = name, dead
            segs.append({"file": name, "start": seg.start, "stop": seg.stop, "dead": dead})
        rows_name, pend_name = f"rows-{token}.npz", f"pend-{token}.npy"

        def write_rows(p: Path) -> None:
            with open(p, "wb") as f:
                np.savez(f, ids=snap.ids, clip=snap.clip, end_time=snap.end_time, alive=snap.alive)

        def write_pend(p: Path) -> None:
            with open(p, "wb") as f:
                np.save(f, snap.pending)

        _atomic(dirpath / rows_name, write_rows)
        _atomic(dirpath / pend_name, write_pend)
        train_name = None
        if snap.train is not None:
            train_name = f"train-{snap.train.shape[0]}x{snap.train.shape[1]}.npy"
            if not (dirpath / train_name).exists():
                def write_train(p: Path) -> None:
                    with open(p, "wb") as f:
                        np.save(f, snap.train)

                _atomic(dirpath / train_name, write_train)
        manifest = {"format": FORMAT, **header.describe(), "seq": snap.seq, "n": snap.n, "pstart": snap.pstart,
                    "segments": segs, "rows": rows_name, "pending": pend_name, "train": train_name,
                    "written_at": time.time()}
        _atomic(dirpath / MANIFEST, lambda p: p.write_text(json.dumps(manifest, indent=1)))
        _fsync_dir(dirpath)
        keep = {MANIFEST, "lock", rows_name, pend_name, train_name, *(s["file"] for s in segs)}
        for f in dirpath.iterdir():
            stale_tmp = f.name.startswith(".") and time.time() - f.stat().st_mtime > 600  # left by a killed save
            if (f.name not in keep and not f.name.startswith(".")) or stale_tmp:
                with contextlib.suppress(FileNotFoundError):
                    f.unlink()
        log.debug("vector index saved: %d rows, %d segments, seq %d in %.2f s", snap.n, len(segs), snap.seq,
                  time.perf_counter() - t0)
        return True


def read_manifest(dirpath: Path) -> dict:
    try:
        return json.loads((dirpath / MANIFEST).read_text())
    except FileNotFoundError:
        raise IndexFileError(f"no persisted index in {dirpath}") from None
    except (OSError, ValueError) as e:
        raise IndexFileError(f"unreadable manifest {dirpath / MANIFEST}: {e}") from None


def load(dirpath: Path, header: Header, params: IndexParams) -> VectorIndex:
    """The persisted index (its ``seq`` says where to replay from); IndexFileError when it cannot be used."""
    m = read_manifest(dirpath)
    if m.get("format") != FORMAT:
        raise IndexFileError(f"{dirpath}: format {m.get('format')}, expected {FORMAT}")
    want = header.describe()
    for key, value in want.items():
        if m.get(key) != value:
            raise IndexFileError(f"{dirpath} was built for {key}={m.get(key)!r}, this store has {value!r}")
    try:
        with _flock(dirpath / "lock", exclusive=False, blocking=True):
            return _read(dirpath, m, header.dim, params)
    except IndexFileError:
        raise
    except Exception as e:  # a truncated or corrupt file: rebuild
        raise IndexFileError(f"{dirpath}: {type(e).__name__}: {e}") from None


def _open(path: Path, read: Callable[[str], object]) -> object:
    """Read one file; any failure names the file."""
    try:
        return read(str(path))
    except Exception as e:
        raise IndexFileError(f"{path}: {type(e).__name__}: {str(e).strip().splitlines()[-1][:200]}") from None


def _load_rows(path: str) -> tuple[np.ndarray, ...]:
    with np.load(path) as z:
        return z["ids"], z["clip"], z["end_time"], z["alive"]


_CODE_BYTES = {"float32": 4, "float16": 2, "int8": 1}


def _warm(regions: list[tuple[Path, int, int]]) -> None:
    """Background: read the segments' vectors into the page cache (newest segment first), so the searches after a
    cold open stop paying a disk read per vector visited (0.4-0.6 s a search at 1M x 384-d until then). At a low
    priority, in 8 MB reads; nothing is held (the pages are the kernel's to drop again)."""
    lower_this_thread(19)
    for path, start, nbytes in regions:
        _prefetch(path, nbytes, start)


def _prefetch(path: Path, nbytes: int, start: int = 0) -> None:
    """Read ``nbytes`` of a file from ``start`` into the page cache, sequentially (the graph at the head of a
    segment file, or its vectors). faiss maps the file and walks the graph's pages one fault at a time: 9k
    single-page reads per 262k-row segment from a cold disk (0.7 s) against 60 ms for one sequential read. A hint:
    failures are ignored."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        chunk, at, end = 8 << 20, start, start + nbytes
        while at < end:
            got = len(os.pread(fd, min(chunk, end - at), at))
            if got == 0:
                break
            at += got
    except OSError:
        pass
    finally:
        os.close(fd)


def _read(dirpath: Path, m: dict, dim: int, params: IndexParams, warm: bool = True) -> VectorIndex:
    n, pstart = int(m["n"]), int(m["pstart"])
    vec_bytes = dim * _CODE_BYTES.get(str(m.get("dtype")), 4)
    vectors = []
    for s in m["segments"]:  # the graphs (each file's head; the vectors follow) in one sequential read per file
        path = dirpath / s["file"]
        with contextlib.suppress(OSError):
            size, nvec = path.stat().st_size, (int(s["stop"]) - int(s["start"])) * vec_bytes
            _prefetch(path, max(0, size - nvec))
            vectors.append((path, max(0, size - nvec), nvec))

    ids, clip, end_time, alive = _open(dirpath / m["rows"], _load_rows)  # type: ignore[misc]
    if not (len(ids) == len(clip) == len(end_time) == len(alive) == n):
        raise IndexFileError(f"{dirpath / m['rows']}: the row arrays do not hold {n} rows")
    pending = _open(dirpath / m["pending"], np.load)
    if pending.shape != (n - pstart, dim):  # type: ignore[union-attr]
        raise IndexFileError(f"{dirpath / m['pending']}: pending rows {pending.shape}, "  # type: ignore[union-attr]
                             f"expected {(n - pstart, dim)}")
    idx = VectorIndex(dim, params)
    if m.get("train"):
        idx.train = _open(dirpath / m["train"], np.load)  # type: ignore[assignment]
    idx._grow(n)
    idx.ids[:n], idx.clip[:n], idx.end_time[:n], idx.alive[:n] = ids, clip, end_time, alive
    idx.n, idx.pstart = n, pstart
    idx.pmat = np.zeros((max(256, 2 * (n - pstart)), dim), dtype=np.float32)
    idx.pmat[: n - pstart] = pending
    at = 0
    segs = []
    for s in m["segments"]:
        start, stop = int(s["start"]), int(s["stop"])
        path = dirpath / s["file"]
        if start != at:
            raise IndexFileError(f"{path}: starts at row {start}, the segments before end at {at}")
        index = _open(path, lambda p: faiss.read_index(p, faiss.IO_FLAG_MMAP_IFC))
        if index.ntotal != stop - start or index.d != dim:  # type: ignore[attr-defined]
            raise IndexFileError(f"{path}: {index.ntotal} x {index.d}-d, "  # type: ignore[attr-defined]
                                 f"expected {stop - start} x {dim}-d")
        seg = Segment(start, stop, index, float(end_time[start:stop].min()), float(end_time[start:stop].max()))
        seg.dead = int((~alive[start:stop]).sum())
        seg.file, seg.file_dead = s["file"], int(s.get("dead", seg.dead))
        segs.append(seg)
        at = stop
    if at != pstart:
        raise IndexFileError(f"{dirpath}: the segments end at row {at}, the pending rows start at {pstart}")
    idx.segments = segs
    live = np.flatnonzero(alive)
    idx.idmap.set(ids[live], live)
    idx._dead_total = n - len(live)
    idx.seq = int(m["seq"])
    if vectors and warm:
        _map_in(idx, vectors)
    return idx


def _map_in(idx: VectorIndex, vectors: list[tuple[Path, int, int]]) -> None:
    """Map the segments' pages in before the first searches need them (mapped_pages.py): up to
    ``OPEN_POPULATE_S`` now (all of them when the page cache holds the files: 2.1 GB in 0.11 s), the rest by a
    low-priority thread after the first answer, so that answer's page faults do not queue behind its disk reads.
    Without ``MADV_POPULATE_READ``, or without the mappings to hand it (no ``/proc/self/maps``), that thread reads
    the vectors into the page cache instead."""
    ranges = mapped_ranges(p for p, _, _ in vectors)
    left = populate(ranges, time.monotonic() + OPEN_POPULATE_S) if ranges else None
    if left == []:
        return
    if left is None:
        job, args = _warm, (vectors[::-1],)
    else:
        job, args = _populate_later, (left,)
    idx.after_search = lambda: threading.Thread(target=job, args=args, name="m3-index-warm", daemon=True).start()


def _populate_later(ranges: list[tuple[int, int]]) -> None:
    lower_this_thread(19)
    populate(ranges)


def purge(dirpath: Path) -> None:
    """Remove the persisted index (manifest first, so a crash midway leaves an index that is simply missing)."""
    if not dirpath.exists():
        return
    with _flock(dirpath / "lock", exclusive=True, blocking=True):
        with contextlib.suppress(FileNotFoundError):
            (dirpath / MANIFEST).unlink()
        _fsync_dir(dirpath)
        for f in dirpath.iterdir():
            if f.name != "lock":
                with contextlib.suppress(FileNotFoundError):
                    f.unlink()


def disk_bytes(dirpath: Path) -> int:
    return sum(f.stat().st_size for f in dirpath.iterdir() if f.is_file()) if dirpath.exists() else 0
