"""One SELECT with an ``IN (...)`` list of ids, run in chunks (SQLite limits the bound parameters of a statement)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator

CHUNK = 500


def select_in(conn: sqlite3.Connection, sql: str, ids: Iterable[int], chunk: int = CHUNK) -> list[tuple]:
    """``sql`` with one ``IN ({})`` filled with ``ids``, chunk by chunk; the rows of every chunk, in chunk order."""
    return [row for cur in execute_in(conn, sql, ids, chunk) for row in cur.fetchall()]


def execute_in(conn: sqlite3.Connection, sql: str, ids: Iterable[int], chunk: int = CHUNK) -> Iterator[sqlite3.Cursor]:
    """:func:`select_in`'s statements one chunk at a time, each chunk's cursor given before it is read (on
    PostgreSQL a write transaction's statements are then sent without waiting: the caller reads them when it needs
    the rows)."""
    ids = list(ids)
    for i in range(0, len(ids), chunk):
        part = ids[i:i + chunk]
        yield conn.execute(sql.format(",".join("?" * len(part))), part)
