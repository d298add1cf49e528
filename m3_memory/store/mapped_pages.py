"""The page tables of the memory-mapped index files, filled in before the searches need them.

faiss maps each segment file (``IO_FLAG_MMAP_IFC``); a graph walk then takes one page fault per page it first
touches. Even with every page in the page cache (a writer just closed, or a reader opened the store a moment ago)
that is thousands of faults per segment: a new reader's first searches at 1M x 384-d took 150-300 ms, then 30, 19,
14 ms, before settling at 6 ms. ``madvise(MADV_POPULATE_READ)`` (Linux >= 5.14) maps a whole range in one call
(2.1 GB of cached pages in 0.11 s), reading from disk what is not cached. Elsewhere it is not available and the
caller falls back to reading the files into the page cache (``index_files._warm``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import time
from collections.abc import Iterable

MADV_POPULATE_READ = 22
CHUNK = 64 << 20   # bytes per call: a deadline is checked between calls
_libc: ctypes.CDLL | None | bool = False   # False: not looked up yet; None: no libc madvise


def mapped_ranges(paths: Iterable[str | os.PathLike]) -> list[tuple[int, int]]:
    """(address, length) of this process' mappings of ``paths`` (``/proc/self/maps``; [] where there is none)."""
    want = {os.path.realpath(p) for p in paths}
    try:
        with open("/proc/self/maps") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        parts = line.split(maxsplit=5)
        if len(parts) == 6 and parts[5] in want:
            a, b = (int(x, 16) for x in parts[0].split("-"))
            out.append((a, b - a))
    return out


def _madvise() -> ctypes.CDLL | None:
    global _libc
    if _libc is False:
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            lib.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
            lib.madvise.restype = ctypes.c_int
            _libc = lib
        except (OSError, AttributeError):
            _libc = None
    return _libc or None


def populate(ranges: list[tuple[int, int]], deadline: float | None = None) -> list[tuple[int, int]] | None:
    """Map ``ranges`` in, chunk by chunk, until ``deadline`` (``time.monotonic()``); returns the ranges left ([] when
    all are done), or None where ``MADV_POPULATE_READ`` is not available. A range that went away meanwhile (a
    segment merged and unmapped) is skipped."""
    libc = _madvise()
    if libc is None:
        return None
    left = [r for r in ranges if r[1] > 0]
    while left:
        if deadline is not None and time.monotonic() >= deadline:
            return left
        addr, n = left[0]
        step = min(n, CHUNK)
        if libc.madvise(addr, step, MADV_POPULATE_READ) != 0:
            err = ctypes.get_errno()
            if err in (errno.EINVAL, errno.ENOSYS, errno.EPERM):   # an older kernel: the caller falls back
                return None
            left.pop(0)   # ENOMEM / EFAULT: no longer mapped (or an I/O error): nothing to do for it
            continue
        left[0] = (addr + step, n - step)
        if left[0][1] <= 0:
            left.pop(0)
    return []
