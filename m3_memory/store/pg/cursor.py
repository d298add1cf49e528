"""The cursor :class:`~m3_memory.store.pg.connection.PgConnection` returns: ``sqlite3.Cursor``'s face over the rows
of one PostgreSQL statement, fetched at once or, in a write transaction's pipeline, when first read."""

from __future__ import annotations

from collections.abc import Callable


class PgCursor:
    """The rows of one statement. Outside a pipeline they are fetched at once; inside one (a write transaction),
    ``load`` fetches them when first read (a statement's result is read before the transaction ends or never)."""

    def __init__(self, rows: list[tuple] | None, rowcount: int = -1, lastrowid: int | None = None,
                 load: Callable[[], tuple[list[tuple] | None, int, int | None]] | None = None) -> None:
        self._rows = rows or []
        self._at = 0
        self._rowcount = rowcount
        self._lastrowid = lastrowid
        self._load = load

    def _ready(self) -> None:
        if self._load is not None:
            load, self._load = self._load, None
            rows, self._rowcount, self._lastrowid = load()
            self._rows = rows or []

    @property
    def rowcount(self) -> int:
        self._ready()
        return self._rowcount

    @property
    def lastrowid(self) -> int | None:
        self._ready()
        return self._lastrowid

    def fetchone(self) -> tuple | None:
        self._ready()
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]

    def fetchmany(self, size: int = 1) -> list[tuple]:
        self._ready()
        out = self._rows[self._at: self._at + size]
        self._at += len(out)
        return out

    def fetchall(self) -> list[tuple]:
        self._ready()
        out = self._rows[self._at:]
        self._at = len(self._rows)
        return out

    def __iter__(self):
        while (row := self.fetchone()) is not None:
            yield row
