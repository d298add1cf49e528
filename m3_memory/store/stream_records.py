"""The store's record of input that did not become memory (``gaps``) and of memorization runs (``runs``).

A memorization node opens a run when it starts, beats its heart with the stream time it has received (1 Hz) and
closes it when it stops cleanly. A run found still ``running`` whose process is gone (kill -9, power loss, OOM)
crashed: the span between the last clip it committed and the last stream time it had received was lost, and is
recorded as a ``crash`` gap before the new run starts.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
from collections import defaultdict
from dataclasses import asdict, dataclass

from ..ingest.stream_ledger import Loss
from ..processes import process_exists
from .memory_store import MemoryStore

STALE_HEARTBEAT_S = 30.0   # a run of another host (or a reused pid) silent this long is dead


@dataclass
class Gap:
    id: int
    topic: str
    start_time: float
    end_time: float
    cause: str
    count: int
    detail: str
    source: str


def record_gaps(store: MemoryStore, losses: list[Loss], source: str = "") -> None:
    """Insert the losses; a negative count takes that many back from this source's newest rows of its topic and
    cause (messages recorded lost in transport that arrived at a later watermark: StreamLedger.retract)."""
    if not losses:
        return
    now = time.time()
    with store.transaction() as conn:
        conn.executemany(
            "INSERT INTO gaps (topic, start_time, end_time, cause, count, detail, source, recorded_at, robot) "
            "VALUES (?,?,?,?,?,?,?,?,?)",
            [(x.topic, x.start_time, x.end_time, x.cause, x.count, x.detail or None, source, now, store.robot or None)
             for x in losses if x.count > 0])
        for x in losses:
            if x.count < 0:
                _take_back(conn, store.robot or "", source, x.topic, x.cause, -x.count)


def _take_back(conn: sqlite3.Connection, robot: str, source: str, topic: str, cause: str, n: int) -> None:
    rows = conn.execute("SELECT id, count FROM gaps WHERE topic = ? AND cause = ? AND COALESCE(source, '') = ? "
                        "AND COALESCE(robot, '') = ? ORDER BY id DESC", (topic, cause, source, robot)).fetchall()
    for gap_id, count in rows:
        if n <= 0:
            break
        k = min(n, int(count))
        if k == count:
            conn.execute("DELETE FROM gaps WHERE id = ?", (gap_id,))
        else:
            conn.execute("UPDATE gaps SET count = count - ? WHERE id = ?", (k, gap_id))
        n -= k


def gaps(store: MemoryStore, cause: str | None = None, topic: str | None = None) -> list[Gap]:
    sql = "SELECT id, topic, start_time, end_time, cause, count, COALESCE(detail, ''), COALESCE(source, '') FROM gaps"
    where, args = [], []
    if cause:
        where.append("cause = ?")
        args.append(cause)
    if topic:
        where.append("topic = ?")
        args.append(topic)
    sql += (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY start_time, id"
    return [Gap(*r) for r in store.conn.execute(sql, args)]


def gap_summary(store: MemoryStore) -> dict[str, dict[str, dict[str, float]]]:
    """{topic: {cause: {"rows", "count", "seconds"}}}."""
    out: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
    for topic, cause, rows, n, secs in store.conn.execute(
            "SELECT topic, cause, COUNT(*), SUM(count), SUM(end_time - start_time) FROM gaps GROUP BY topic, cause "
            "ORDER BY topic, cause"):
        out[topic][cause] = {"rows": rows, "count": int(n or 0), "seconds": round(float(secs or 0.0), 3)}
    return dict(out)


def _alive(pid: int | None, host: str | None, heartbeat_at: float | None) -> bool:
    fresh = heartbeat_at is not None and time.time() - heartbeat_at < STALE_HEARTBEAT_S
    if host != socket.gethostname() or not pid:
        return fresh
    if pid == os.getpid():
        return False       # our own process opening again: the old run is over
    return fresh and process_exists(pid)


def recover_crashed_runs(store: MemoryStore) -> list[Gap]:
    """Close every run that died without closing; record the span it lost. Returns the new crash gaps."""
    found = []
    rows = store.conn.execute("SELECT id, source, host, pid, started_at, heartbeat_at, first_stream_time, "
                              "last_stream_time, coalesce(robot, '') FROM runs WHERE status = 'running'").fetchall()
    for run_id, source, host, pid, started_at, heartbeat_at, first_t, last_t, robot in rows:
        if _alive(pid, host, heartbeat_at):
            continue
        committed = store.conn.execute("SELECT MAX(end_time) FROM clips WHERE committed_at >= ? AND "
                                       "coalesce(robot, '') = ?", (started_at, robot)).fetchone()[0]
        start = committed if committed is not None else first_t
        if start is None:
            start = last_t if last_t is not None else 0.0
        end = max(start, last_t if last_t is not None else start)
        detail = json.dumps({"run": run_id, "pid": pid, "host": host, "last_heartbeat": heartbeat_at,
                             "note": "input after the last heartbeat (< 1 s) is not known"})
        with store.transaction() as conn:
            if conn.execute("SELECT status FROM runs WHERE id = ?", (run_id,)).fetchone()[0] != "running":
                continue   # another process recovered it meanwhile
            cur = conn.execute(
                "INSERT INTO gaps (topic, start_time, end_time, cause, count, detail, source, recorded_at, robot) "
                "VALUES ('*', ?, ?, 'crash', 1, ?, ?, ?, ?)", (start, end, detail, source, time.time(), robot or None))
            conn.execute("UPDATE runs SET status = 'crashed', ended_at = ? WHERE id = ?", (heartbeat_at, run_id))
        found.append(Gap(int(cur.lastrowid or 0), "*", start, end, "crash", 1, detail, source or ""))
    return found


def extend_crash_gaps(store: MemoryStore, gap_ids: list[int], resumed_at: float, max_s: float = 3600.0) -> None:
    """The stream resumed at ``resumed_at`` after a crash: the time the node was down is part of the lost span
    (up to ``max_s``; a stream that resumes much later, or on another clock, is not stretched over)."""
    if not gap_ids:
        return
    marks = ",".join("?" * len(gap_ids))
    with store.transaction() as conn:
        conn.execute(f"UPDATE gaps SET end_time = ? WHERE id IN ({marks}) AND end_time < ? AND ? - end_time <= ?",
                     (resumed_at, *gap_ids, resumed_at, resumed_at, max_s))


def open_run(store: MemoryStore, source: str) -> tuple[int, list[Gap]]:
    """Recover crashed runs, then start a new one. Returns (run id, crash gaps just recorded)."""
    crashed = recover_crashed_runs(store)
    now = time.time()
    with store.transaction() as conn:
        cur = conn.execute("INSERT INTO runs (source, host, pid, started_at, heartbeat_at, robot) VALUES "
                           "(?,?,?,?,?,?)", (source, socket.gethostname(), os.getpid(), now, now, store.robot or None))
    return int(cur.lastrowid or 0), crashed


def heartbeat(store: MemoryStore, run_id: int, first_stream_time: float | None, last_stream_time: float | None
              ) -> None:
    with store.transaction() as conn:
        conn.execute("UPDATE runs SET heartbeat_at = ?, first_stream_time = COALESCE(first_stream_time, ?), "
                     "last_stream_time = ? WHERE id = ?", (time.time(), first_stream_time, last_stream_time, run_id))


def close_run(store: MemoryStore, run_id: int) -> None:
    with store.transaction() as conn:
        conn.execute("UPDATE runs SET status = 'clean', ended_at = ? WHERE id = ?", (time.time(), run_id))


def runs(store: MemoryStore) -> list[dict]:
    cols = ["id", "source", "host", "pid", "started_at", "heartbeat_at", "ended_at", "status", "first_stream_time",
            "last_stream_time"]
    rows = store.conn.execute(f"SELECT {', '.join(cols)} FROM runs ORDER BY id")
    return [dict(zip(cols, r, strict=True)) for r in rows]


def as_dicts(items: list[Gap]) -> list[dict]:
    return [asdict(g) for g in items]


def unaccounted_spans(store: MemoryStore, start: float, end: float, min_s: float = 0.05
                      ) -> list[tuple[float, float]]:
    """Stream time in [start, end] that is neither in a committed clip nor in a recorded gap: input lost without a
    word. Empty when every second of the stream is accounted for."""
    mine = (store.robot,)   # this robot's stream (every robot writes its own clips and gaps)
    spans = [(a, b) for a, b in store.conn.execute("SELECT start_time, end_time FROM clips WHERE "
                                                   "coalesce(robot, '') = ?", mine)]
    spans += [(a, b) for a, b in store.conn.execute("SELECT start_time, end_time FROM gaps "
                                                    "WHERE end_time > start_time AND coalesce(robot, '') = ?", mine)]
    spans.sort()
    out, cursor = [], start
    for a, b in spans:
        if b <= cursor:
            continue
        if a > cursor and min(a, end) - cursor > min_s:
            out.append((cursor, min(a, end)))
        cursor = max(cursor, b)
        if cursor >= end:
            break
    if end - cursor > min_s:
        out.append((cursor, end))
    return out
