"""The store's reads of turn records (who spoke or was seen when, and which memories quote them), mixed into
MemoryStore so that the modules answering questions (people.py, m3_control's tools) hold no SQL of their own."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from .select_in import select_in

TurnRow = tuple[float, int, int, str, int, float, str, float, float]
"""(start, id, clip id, kind, entity id, end, text, clip end, clip start) of one turn record."""


class TurnReads:
    conn: sqlite3.Connection

    def turns_version(self) -> tuple[int, int]:
        """(count, largest id) of the turn records: changes whenever turns are added or removed."""
        n, last = self.conn.execute("SELECT count(*), coalesce(max(id), 0) FROM turns").fetchone()
        return int(n), int(last)

    def memory_version(self) -> tuple:
        """Changes whenever a memory is written or deleted or a character is (re)named."""
        return (self.conn.execute("SELECT coalesce(max(seq), 0) FROM changes").fetchone()[0],
                *self.conn.execute("SELECT count(*), max(updated_at) FROM character_names").fetchone())

    def perceived_until(self, before_time: float | None = None) -> float | None:
        """The latest stream time the memory holds input of (a pose, a turn, a memorization run's last stream
        time), up to ``before_time``; None for an empty memory. A recording replayed and asked about afterwards ends
        here, not at the question's moment."""
        bound = float("inf") if before_time is None else before_time
        ends = [self.conn.execute("SELECT max(t) FROM poses WHERE t <= ?", (bound,)).fetchone()[0],
                self.conn.execute("SELECT max(end_time) FROM turns WHERE start_time <= ?", (bound,)).fetchone()[0],
                self.conn.execute("SELECT max(last_stream_time) FROM runs WHERE last_stream_time <= ?",
                                  (bound,)).fetchone()[0]]
        known = [min(float(t), bound) for t in ends if t is not None]
        return max(known) if known else None

    def turn_rows(self, after_id: int | None = None) -> list[TurnRow]:
        """Every turn record (or those with an id above ``after_id``) with its clip's end and start, unsorted."""
        q = ("SELECT t.start_time, t.id, t.clip_id, t.kind, t.entity_id, t.end_time, coalesce(t.text, ''), "
             "c.end_time, c.start_time FROM turns t JOIN clips c ON c.id = t.clip_id")
        if after_id is None:
            return self.conn.execute(q).fetchall()
        return self.conn.execute(q + " WHERE t.id > ?", (after_id,)).fetchall()

    def memories_of_turns(self, turn_ids: Iterable[int]) -> dict[int, list[int]]:
        """turn id -> the ids of the memories written from it, in id order (turns without any are left out)."""
        out: dict[int, list[int]] = {}
        for tid, mid in select_in(self.conn, "SELECT turn_id, memory_id FROM turn_memories WHERE turn_id IN ({}) "
                                             "ORDER BY turn_id, memory_id", dict.fromkeys(turn_ids)):
            out.setdefault(tid, []).append(mid)
        return out

    def turns_of_memories(self, memory_ids: Iterable[int]) -> set[int]:
        """The ids of the turns these memories were written from."""
        return {r[0] for r in select_in(self.conn, "SELECT DISTINCT turn_id FROM turn_memories WHERE memory_id IN ({})",
                                        dict.fromkeys(memory_ids))}
