"""A write transaction's plain ``INSERT`` s, held on the client until something needs them on the server, then sent
as one statement per table and form (:mod:`.batch`) instead of one per row.

A clip adds its memories one at a time (a node, its vector, its edges; the next node, ...): each a statement of its
own, each a Bind / Execute the client sends and the server answers, although nobody reads their results. Held here,
they go to the server when the transaction next needs the server to have them: a read, an ``UPDATE`` or ``DELETE``
that runs now, a statement that is not held, the write lock (so they run before it, as when sent at once), the
commit; or when a held statement's own result is read (then what was held before it goes first, and it alone); or
when more than ``MAX_HELD_ROWS`` rows are held (a large import in one transaction).

Sent together, the held rows are grouped by table, parents first (by the database's foreign keys: a vector's node
before the vector); within one table the statements keep their order and only neighbours of the same form are
joined, so whatever depends on order within a table (a conflict, a replace) sees the rows as it would have one by
one. Rows of different tables do not see each other but through foreign keys. An error of a held row comes out
where the rows are sent or at the commit, as any pipelined statement's does: the transaction is rolled back and
nothing of it is committed.

A held statement's result, read after it was sent with others: ``lastrowid`` is the id the row was written with;
``rowcount`` is its number of rows for a plain ``INSERT`` and -1 ("not known", as DB-API allows) for one with a
conflict clause. Statements whose new id only the server knows (``RETURNING``) are not held.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

_TABLE = re.compile(r"^\s*INSERT\s+INTO\s+(\w+)\s*\([^)]*\)\s*VALUES\s*\(", re.I | re.S)
_READS = re.compile(r"\b(SELECT|RETURNING)\b", re.I)   # a statement that reads tables or gives rows back
_CONFLICT = re.compile(r"\bON\s+CONFLICT\b", re.I)
RETURNING_ID = " RETURNING id"
MAX_HELD_ROWS = 4096   # more held than this (a large import in one transaction): sent now, memory stays bounded


@dataclass(eq=False)
class Held:
    """One held statement: its form (without ``RETURNING id``), its rows, the ``sqlite3`` text it came as."""

    form: str
    table: str
    rows: list[tuple]
    sql: str
    id_at: int | None = None        # position of the row's explicit id
    sent: bool = False              # sent with others (its own cursor is not kept)
    dropped: bool = False           # never sent: the transaction rolled back
    cursor: Any = field(default=None, repr=False)   # sent alone: its psycopg cursor

    def result(self) -> tuple[None, int, int | None]:
        """(rows, rowcount, lastrowid) of a statement sent with others (or dropped: nothing)."""
        if self.dropped:
            return None, 0, None
        count = -1 if _CONFLICT.search(self.form) else len(self.rows)
        rowid = self.rows[-1][self.id_at] if self.id_at is not None else None
        return None, count, int(rowid) if rowid is not None else None


@lru_cache(maxsize=1024)
def table_of(form: str) -> str | None:
    """The table a plain ``INSERT ... VALUES`` writes (nothing read, nothing given back but its id), or None for any
    other statement."""
    m = _TABLE.match(form)
    if m is None or _READS.search(form.removesuffix(RETURNING_ID)):
        return None
    return m.group(1).lower()


def parent_ranks(foreign_keys: Sequence[tuple[str, str]]) -> dict[str, int]:
    """Table -> how many tables deep it hangs below tables without parents (``(child, parent)`` pairs); a table
    no foreign key names is 0. Self-references do not count."""
    parents: dict[str, set[str]] = {}
    for child, parent in foreign_keys:
        if child != parent:
            parents.setdefault(child.lower(), set()).add(parent.lower())
    ranks: dict[str, int] = {}

    def rank(t: str, path: frozenset[str]) -> int:
        if t not in ranks:
            ps = [p for p in parents.get(t, ()) if p not in path]   # a cycle (none in the store) ends here
            ranks[t] = 1 + max((rank(p, path | {t}) for p in ps), default=-1)
        return ranks[t]

    for t in list(parents):
        rank(t, frozenset())
    return ranks


class WriteBehind:
    """The held statements of one write transaction, in the order they came."""

    def __init__(self) -> None:
        self.held: list[Held] = []
        self.rows = 0   # rows held

    @property
    def full(self) -> bool:
        return self.rows > MAX_HELD_ROWS

    def __bool__(self) -> bool:
        return bool(self.held)

    def hold(self, form: str, table: str, rows: list[tuple], sql: str, id_at: int | None) -> Held:
        """Hold ``form`` (a plain ``INSERT`` into ``table``: :func:`table_of`) with its rows."""
        h = Held(form.removesuffix(RETURNING_ID), table, rows, sql, id_at)
        self.held.append(h)
        self.rows += len(rows)
        return h

    def take(self, before: Held | None = None) -> list[Held]:
        """Every held statement (or those before ``before``), no longer held."""
        n = len(self.held) if before is None else self.held.index(before)
        out, self.held = self.held[:n], self.held[n:]
        self.rows -= sum(len(h.rows) for h in out)
        return out

    def release(self, h: Held) -> None:
        """``h`` is sent on its own (the statements before it were taken first)."""
        self.held.remove(h)
        self.rows -= len(h.rows)

    def clear(self) -> None:
        for h in self.held:
            h.dropped = True
        self.held = []
        self.rows = 0


def groups(held: Sequence[Held], ranks: dict[str, int]) -> Iterator[tuple[str, list[tuple], str]]:
    """(form, rows, sqlite3 text) to send, parents' tables first (then in the order tables first came), each table's
    statements in their order with neighbours of one form joined."""
    first: dict[str, int] = {}
    for i, h in enumerate(held):
        first.setdefault(h.table, i)
    for table in sorted(first, key=lambda t: (ranks.get(t, 0), first[t])):
        run: Held | None = None
        rows: list[tuple] = []
        for h in held:
            if h.table != table:
                continue
            if run is not None and h.form != run.form:
                yield run.form, rows, run.sql
                rows = []
            run = h
            rows.extend(h.rows)
        if run is not None:
            yield run.form, rows, run.sql
