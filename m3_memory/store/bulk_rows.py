"""Row-level reads and writes for bulk loaders (the upstream graph import) and for callers that only ask
whether something is there, mixed into MemoryStore. Writes here join the caller's open transaction
(``with store.transaction():``) instead of committing on their own."""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from .select_in import select_in


class BulkRows:
    conn: sqlite3.Connection
    robot: str

    # -- reads ---------------------------------------------------------------------------------------
    def meta_values(self, prefix: str) -> Iterator[str]:
        """The values of every ``meta`` key that starts with ``prefix`` (compared as a prefix, not as a range: a
        range follows the text collation, which on PostgreSQL is not the bytes' order)."""
        for (value,) in self.conn.execute("SELECT value FROM meta WHERE substr(key, 1, ?) = ?", (len(prefix), prefix)):
            yield value

    def existing_node_ids(self, ids: Iterable[int]) -> set[int]:
        return {r[0] for r in select_in(self.conn, "SELECT id FROM nodes WHERE id IN ({})", ids)}

    def is_empty(self) -> bool:
        """No memory node and no clip yet."""
        return not (self.conn.execute("SELECT 1 FROM nodes LIMIT 1").fetchone()
                    or self.conn.execute("SELECT 1 FROM clips LIMIT 1").fetchone())

    def has_clip(self, clip_id: int) -> bool:
        """Is this robot's clip ``clip_id`` (its own clip number when it has a name) committed?"""
        if self.robot:
            return self.conn.execute("SELECT 1 FROM clips WHERE robot = ? AND stream_clip = ?",
                                     (self.robot, clip_id)).fetchone() is not None
        return self.conn.execute("SELECT 1 FROM clips WHERE id = ?", (clip_id,)).fetchone() is not None

    def clip_row(self, clip_id: int) -> tuple[int, float, float, str] | None:
        """(id, start, end, source) of a committed clip, or None."""
        return self.conn.execute("SELECT id, start_time, end_time, source FROM clips WHERE id = ?",
                                 (clip_id,)).fetchone()

    def clip_rows(self) -> Iterator[tuple[int, float, float, str, dict[str, Any]]]:
        """(id, start, end, source, extra) of every committed clip, in id order (``extra``: the clip's JSON notes,
        e.g. its stage timings; {} when unreadable)."""
        for cid, start, end, source, extra in self.conn.execute(
                "SELECT id, start_time, end_time, source, extra FROM clips ORDER BY id"):
            try:
                notes = json.loads(extra) if extra else {}
            except ValueError:
                notes = {}
            yield cid, start, end, source, notes if isinstance(notes, dict) else {}

    def node_kinds_and_texts(self, ids: Iterable[int]) -> list[tuple[int, str, str]]:
        """(id, kind, text or '') of these nodes."""
        return select_in(self.conn, "SELECT id, type, coalesce(text, '') FROM nodes WHERE id IN ({})", ids)

    def has_nodes(self, kind: str) -> bool:
        return self.conn.execute("SELECT 1 FROM nodes WHERE type = ? LIMIT 1", (kind,)).fetchone() is not None

    def id_extents(self) -> tuple[int, int | None, float | None]:
        """(largest node id or -1, largest clip id, latest clip end) of what the store holds."""
        max_node = self.conn.execute("SELECT coalesce(max(id), -1) FROM nodes").fetchone()[0]
        clip, end = self.conn.execute("SELECT max(id), max(end_time) FROM clips").fetchone()
        return int(max_node), clip, end

    def node_stats(self, ids: Iterable[int]) -> tuple[dict[str, tuple[int, int, int]], int, int]:
        """For these nodes: kind -> (nodes, embeddings, contents), how many are equivalences, and their edges."""
        ids = list(ids)
        counts: Counter[str] = Counter()
        emb: Counter[str] = Counter()
        cont: Counter[str] = Counter()
        eq = 0
        for kind, n, ne, nc, n_eq in select_in(
                self.conn, "SELECT type, count(*), sum((SELECT count(*) FROM embeddings e WHERE e.node_id = n.id)), "
                "sum((SELECT count(*) FROM contents c WHERE c.node_id = n.id)), sum(is_equivalence) "
                "FROM nodes n WHERE id IN ({}) GROUP BY type", ids):
            counts[kind] += n
            emb[kind] += ne or 0
            cont[kind] += nc or 0
            eq += n_eq or 0
        edges = sum(r[0] for r in select_in(self.conn, "SELECT count(*) FROM edges WHERE text_id IN ({})", ids))
        return {k: (counts[k], emb[k], cont[k]) for k in counts}, eq, edges

    # -- writes (inside the caller's transaction) -----------------------------------------------------
    def put_edges(self, rows: Iterable[tuple[int, int, float]]) -> None:
        """(text id, entity id, weight) edges, replacing any already there."""
        self.conn.executemany("INSERT OR REPLACE INTO edges (text_id, entity_id, weight) VALUES (?, ?, ?)", rows)

    def set_node_weight(self, node_id: int, weight: float) -> None:
        self.conn.execute("UPDATE nodes SET weight = ? WHERE id = ?", (weight, node_id))

    def insert_clip_row(self, clip_id: int, start: float, end: float, source: str, extra: dict[str, Any]) -> None:
        """The ``clips`` row that :meth:`MemoryStore.begin_clip` writes when it commits."""
        self.conn.execute(
            "INSERT INTO clips (id, start_time, end_time, source, committed_at, extra) VALUES (?,?,?,?,?,?)",
            (clip_id, start, end, source, time.time(), json.dumps(extra, default=str)))

    def fold_wal(self) -> None:
        """Fold the write-ahead log into the database file (one self-contained file, e.g. to publish it)."""
        self.conn.execute("PRAGMA journal_mode = DELETE")
