"""The store's write bookkeeping, mixed into MemoryStore: the change log every reader follows, character seeds, and
the weights of memory edges (reinforce / weaken). Inside a clip on PostgreSQL the first and last wait for the clip's
commit, under the write lock (see MemoryStore.begin_clip)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .select_in import execute_in

if TYPE_CHECKING:
    from .writer_cache import WriterCache


class WriteLog:
    conn: sqlite3.Connection
    engine: str
    _wcache: WriterCache
    _clip_changes: list[tuple[int, str]] | None
    _clip_deltas: list[tuple[int, float]] | None

    def _log(self, node_id: int, op: str) -> None:
        if self._clip_changes is not None:   # a clip's changes are logged at its commit, under the write lock
            self._clip_changes.append((node_id, op))
            return
        self.conn.execute("INSERT INTO changes (node_id, op) VALUES (?, ?)", (node_id, op))

    def _next_seed(self) -> int:
        if self.engine == "postgresql":   # one statement: two robots writing at once never take the same seed
            row = self.conn.execute(
                "INSERT INTO meta (key, value) VALUES ('next_character_seed', '1') ON CONFLICT (key) DO UPDATE "
                "SET value = CAST(CAST(meta.value AS BIGINT) + 1 AS TEXT) RETURNING value").fetchone()
            return int(row[0]) - 1
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'next_character_seed'").fetchone()
        seed = int(row[0] or 0) if row else 0
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('next_character_seed', ?)",
                          (str(seed + 1),))
        return seed

    def _edge_delta(self, text_id: int, delta: float) -> None:
        """Reinforce (+) / weaken (-) every edge of a text node; edges <= 0 are removed."""
        if self._clip_deltas is not None:   # a clip on PostgreSQL before its lock: at its commit (begin_clip)
            self._clip_deltas.append((text_id, delta))
            return
        self._edge_deltas([(text_id, delta)])

    def _edge_deltas(self, deltas: Sequence[tuple[int, float]]) -> None:
        """Apply weight changes in the order given (edges <= 0 removed after each weakening): three statements per
        round (one read: the edges that reached zero, only when one weakens). Round k applies each memory's k-th
        change, so a memory changed twice sees them in order. A clip's changes on PostgreSQL come here at its
        commit, under the lock."""
        rounds: list[list[tuple[float, int]]] = []
        seen: dict[int, int] = {}
        for text_id, delta in deltas:
            k = seen[text_id] = seen.get(text_id, -1) + 1
            if k == len(rounds):
                rounds.append([])
            rounds[k].append((delta, text_id))
        # on PostgreSQL the edges each round removed are read after the last round is sent: one wait, not one per
        # round (what they were is the same: nothing sent after them touches those rows' fate)
        later = self.engine == "postgresql"
        removed: list = []
        for rows in rounds:
            self.conn.executemany("UPDATE edges SET weight = weight + ? WHERE text_id = ?", rows)
            weakened = [t for d, t in rows if d < 0]
            for cur in execute_in(self.conn, "DELETE FROM edges WHERE weight <= 0 AND text_id IN ({}) RETURNING "
                                  "text_id, entity_id, (SELECT is_equivalence FROM nodes WHERE id = edges.text_id)",
                                  weakened):
                removed.append(cur if later else cur.fetchall())
            self.conn.executemany("UPDATE nodes SET weight = weight + ? WHERE id = ?", rows)
        # an equivalence that lost its edges changes who is who: readers recompute characters ("eq"); other lost
        # links: other writers' caches re-read them ("upd", writer_cache.py); a weight that stays above zero changes
        # no character and logs nothing
        lost: dict[int, tuple[set[int], bool]] = {}
        for gone in removed:
            for text_id, entity_id, eq in (gone.fetchall() if later else gone):
                lost.setdefault(text_id, (set(), bool(eq)))[0].add(entity_id)
        for text_id, (entities, eq) in lost.items():
            self._wcache.unlink(text_id, entities)
            self._log(text_id, "eq" if eq else "upd")
