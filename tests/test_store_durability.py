"""Crash safety and concurrent readers, with a real writer subprocess."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from m3_memory import MemoryStore

ROOT = Path(__file__).resolve().parents[1]


def _writer(db: Path, n: int, mode: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.store_writer_proc", str(db), str(n), mode], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _read_line(proc: subprocess.Popen, deadline: float) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line and time.monotonic() > deadline:
        raise TimeoutError("writer produced no output")
    if not line:
        raise AssertionError(f"writer died: {proc.stderr.read() if proc.stderr else ''}")
    return line.strip()


def test_kill_9_mid_transaction_loses_no_committed_clip(tmp_path):
    db = tmp_path / "m.db"
    proc = _writer(db, 6, "hang")
    deadline = time.monotonic() + 120
    committed = []
    try:
        while True:
            line = _read_line(proc, deadline)
            if line == "in-transaction":
                break
            committed.append(int(line.split()[1]))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert committed == list(range(6))
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    store = MemoryStore(db)  # opening read-write recovers the WAL
    assert [r[0] for r in store.conn.execute("SELECT id FROM clips ORDER BY id")] == committed
    for c in committed:
        assert len(store.clip_memories(c)) == 5
    assert store.conn.execute("SELECT count(*) FROM nodes WHERE text LIKE 'uncommitted%'").fetchone()[0] == 0
    assert len(store.index) == 30
    # and the store keeps working: the next clip can be written
    with store.begin_clip(6, 180.0, 210.0) as w:
        w.add_memory("after the crash", vector=[1.0] + [0.0] * 31)
    assert len(store.index) == 31


def test_reader_sees_consistent_growth_while_a_writer_commits(tmp_path):
    import queue
    import threading

    db = tmp_path / "m.db"
    MemoryStore(db).declare_embedder("test-random", 32)
    reader = MemoryStore(db, readonly=True)
    # the writer runs free but stops after clips 9, 19 and 29 until told to go on: the reader polls throughout, and
    # is sure to look at those three states (a free-running writer had sometimes finished before the first look)
    proc = subprocess.Popen([sys.executable, "-m", "tests.store_writer_proc", str(db), "40", "gated"], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
    seen: list[int] = []
    gates: list[int] = []

    def look() -> int:
        clips = reader.conn.execute("SELECT count(*) FROM clips").fetchone()[0]
        reader.refresh()
        n = len(reader.index)
        # every committed clip is complete: 5 text nodes per clip, never a partial clip
        assert n % 5 == 0
        assert n >= clips * 5  # everything committed before the refresh is searchable after it
        seen.append(n)
        return n

    deadline = time.monotonic() + 120
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            look()
            while not lines.empty():
                line = lines.get()
                if line.startswith("gate "):
                    c = int(line.split()[1])
                    gates.append(look())   # the writer waits: exactly the clips up to c
                    assert gates[-1] == (c + 1) * 5
                    proc.stdin.write("go\n")  # type: ignore[union-attr]
                    proc.stdin.flush()  # type: ignore[union-attr]
        assert proc.wait(timeout=60) == 0, proc.stderr.read()  # type: ignore[union-attr]
    finally:
        if proc.poll() is None:
            proc.kill()
    reader.refresh()
    assert len(reader.index) == 200
    assert gates == [50, 100, 150], "the reader looked at each state the writer stopped in"
    assert seen == sorted(seen), "the reader's view never goes backwards"
