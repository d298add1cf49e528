"""One SELECT with an ``IN (...)`` list of ids, run in chunks (SQLite limits the bound parameters of a statement)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

CHUNK = 500


def select_in(conn: sqlite3.Connection, sql: str, ids: Iterable[int], chunk: int = CHUNK) -> list[tuple]:
    """``sql`` with one ``IN ({})`` filled with ``ids``, chunk by chunk; the rows of every chunk, in chunk order."""
    ids = list(ids)
    out: list[tuple] = []
    for i in range(0, len(ids), chunk):
        part = ids[i:i + chunk]
        out += conn.execute(sql.format(",".join("?" * len(part))), part).fetchall()
    return out
