"""``executemany`` on PostgreSQL in as few statements as do the same: the rows go to the server as arrays
(binary), not row by row.

psycopg sends ``executemany`` row by row (in a pipeline: one Bind / Execute and one result to read per row); at a
clip's hundred-odd rows that per-row work, on both ends, is a large part of a writer's CPU.

* ``INSERT INTO t (a, b, c) VALUES (%s, %s, 'x') [ON CONFLICT ...]`` -> one ``INSERT INTO t (a, b, c) SELECT
  u._p1, u._p2, 'x' FROM unnest(%b::bigint[], %b::text[]) AS u(_p1, _p2) ...``;
* ``UPDATE t SET a = a + %s WHERE id = %s`` -> ``UPDATE t SET a = a + %s WHERE id = ANY(%b::bigint[])``, one per
  distinct set of SET values (a clip's +1 / -1 weights: one or two statements);
* ``DELETE FROM t WHERE id = %s`` -> ``DELETE FROM t WHERE id = ANY(%b::bigint[])``.

``= ANY(array)`` is an index scan whatever the table's statistics say; a join with ``unnest()`` was planned as a scan
of the whole table while a new store's statistics were young (measured: 0.6 ms against 0.1 ms for a clip's weight
updates). Each array takes the type of its column in the database's catalog. Where one statement would not do
what the rows one by one do, the rows go one by one as before: a statement of another form, a value of another
type than its column's (a float for an integer), an ``UPDATE`` whose rows name one key twice (both must apply), an
upsert whose rows conflict with each other (``ON CONFLICT DO UPDATE`` cannot change a row twice; ``INSERT OR
REPLACE`` keeps the last row of each key, as SQLite's row-by-row replace leaves it).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .dialect import values_tuple

_INSERT = re.compile(r"^\s*INSERT\s+INTO\s+(\w+)\s*\(([^)]*)\)\s*VALUES\s*\(", re.I | re.S)
_UPDATE = re.compile(r"^\s*UPDATE\s+(\w+)\s+SET\s+(.*?)\s+WHERE\s+(.*)$", re.I | re.S)
_DELETE = re.compile(r"^\s*DELETE\s+FROM\s+(\w+)\s+WHERE\s+(.*)$", re.I | re.S)
_CONFLICT = re.compile(r"^\s*ON\s+CONFLICT\s*(?:\(([^)]*)\))?\s*DO\s+(UPDATE|NOTHING)\b", re.I | re.S)
_KEY = re.compile(r"^\s*(\w+)\s*=\s*%s\s*$")
_REFUSED = re.compile(r"\b(RETURNING|FROM|USING|SELECT|JOIN)\b|%\(", re.I)
_DEFAULT_ID = re.compile(r"^\s*COALESCE\(%s,\s*nextval\([^%]*\)\)\s*$", re.I)


def _float(v: Any) -> float:
    if isinstance(v, (str, bytes)):
        raise TypeError("text for a number")
    return float(v)


def _text(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError("not text")
    return v


def _bytes(v: Any) -> bytes:
    if not isinstance(v, (bytes, bytearray, memoryview)):
        raise TypeError("not bytes")
    return bytes(v)


# column type (information_schema's data_type) -> array element type and the Python value it is sent as; a value
# of another kind (a float for an integer column, bytes for text) is not converted: the rows go one by one
ARRAY_TYPES: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "bigint": ("bigint", operator.index),
    "integer": ("integer", operator.index),
    "smallint": ("smallint", operator.index),
    "double precision": ("float8", _float),
    "real": ("float4", _float),
    "text": ("text", _text),
    "character varying": ("text", _text),
    "bytea": ("bytea", _bytes),
}


@dataclass(frozen=True)
class Plan:
    """A statement's batch form, before the parameter types are known."""
    kind: str                          # insert / update / delete
    table: str
    head: str                          # the statement, "{src}" where the arrays go (an INSERT reads u._p1, ...)
    columns: tuple[str, ...]           # the column each parameter is typed by
    key: tuple[int, ...]               # parameters whose values must not repeat across rows (empty: any)
    keep_last: bool                    # repeated keys: keep each key's last row (INSERT OR REPLACE)
    fixed: int = 0                     # UPDATE: its SET parameters, one statement per distinct set of values


@lru_cache(maxsize=512)
def plan(pg: str, replace: bool = False) -> Plan | None:
    """The batch form of one PostgreSQL statement (``replace``: it was SQLite's ``INSERT OR REPLACE``), or None."""
    if "%%" in pg:
        return None
    m = _INSERT.match(pg)
    if m:
        return _plan_insert(pg, m, replace)
    m = _UPDATE.match(pg) or _DELETE.match(pg)
    if not m:
        return None
    sets, where = (m.group(2), m.group(3)) if m.re is _UPDATE else ("", m.group(2))
    key = _KEY.match(where)
    # one key per row, compared by equality: WHERE key = ANY(keys) (an index scan; a join with unnest() is
    # planned as a scan of the whole table while the table's statistics are young)
    if not key or _REFUSED.search(sets) or "%s" in sets.split("=")[0]:
        return None
    fixed = sets.count("%s")
    if m.re is _UPDATE:
        head = f"UPDATE {m.group(1)} SET {sets} WHERE {key.group(1)} = ANY({{src}})"
    else:
        head = f"DELETE FROM {m.group(1)} WHERE {key.group(1)} = ANY({{src}})"
    update = m.re is _UPDATE   # (a key deleted twice is deleted once either way)
    return Plan("update" if update else "delete", m.group(1).lower(), head, (key.group(1).lower(),),
                (fixed,) if update else (), False, fixed)


def _plan_insert(pg: str, m: re.Match, replace: bool) -> Plan | None:
    table, cols = m.group(1).lower(), [c.strip().lower() for c in m.group(2).split(",")]
    values, end = values_tuple(pg, m.end())
    tail = pg[end:]
    if len(values) != len(cols) or "%s" in tail or re.search(r"\bRETURNING\b", tail, re.I):
        return None
    columns: list[str] = []
    exprs = []
    for col, v in zip(cols, values, strict=True):
        if v.strip() == "%s" or _DEFAULT_ID.match(v):
            columns.append(col)
            exprs.append(v.replace("%s", f"u._p{len(columns)}"))
        elif "%s" in v:
            return None
        else:
            exprs.append(v)
    key: tuple[int, ...] = ()
    keep_last = False
    c = _CONFLICT.match(tail)
    if c and c.group(2).upper() == "UPDATE":
        target = [t.strip().lower() for t in (c.group(1) or "").split(",") if t.strip()]
        if not target or any(t not in columns for t in target):
            return None
        key, keep_last = tuple(columns.index(t) for t in target), replace
    elif tail.strip() and not c:
        return None
    # (WHERE true: "FROM unnest(...) AS u ON CONFLICT" would read as a join's ON)
    head = f"INSERT INTO {m.group(1)} ({m.group(2)}) SELECT {','.join(exprs)} FROM {{src}}" + \
        (f" WHERE true{tail}" if tail.strip() else "")
    return Plan("insert", table, head, tuple(columns), key, keep_last)


def statement(p: Plan, types: dict[tuple[str, str], str]) -> tuple[str, list[Callable[[Any], Any]]] | None:
    """The batch statement for a table's column types, and the converter of each array's values (None: a type
    it does not send as an array)."""
    casts, convert = [], []
    for col in p.columns:
        t = ARRAY_TYPES.get(types.get((p.table, col), ""))
        if t is None:
            return None
        casts.append(f"%b::{t[0]}[]")
        convert.append(t[1])
    if p.kind != "insert":
        return p.head.replace("{src}", casts[0]), convert
    names = ", ".join(f"_p{i + 1}" for i in range(len(casts)))
    return p.head.replace("{src}", f"unnest({', '.join(casts)}) AS u({names})"), convert


def parameters(p: Plan, convert: Sequence[Callable[[Any], Any]],
               rows: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]] | None:
    """The parameters of each statement the rows take (an INSERT or DELETE: one; an UPDATE: one per distinct set
    of SET values); None where the batch would not do what the rows one by one do (see the module docstring)."""
    width = p.fixed + len(convert) if p.kind != "insert" else len(convert)
    if any(len(r) != width for r in rows):
        return None
    if p.key:
        keys = [tuple(r[i] for i in p.key) for r in rows]
        if len(set(keys)) < len(keys):
            if not p.keep_last:
                return None
            last = {k: i for i, k in enumerate(keys)}
            rows = [r for i, r in enumerate(rows) if last[keys[i]] == i]
    try:
        if p.kind == "insert":
            return [tuple([None if r[j] is None else f(r[j]) for r in rows] for j, f in enumerate(convert))]
        f = convert[0]
        if any(r[-1] is None for r in rows):   # (a NULL key matches nothing either way: rare, left one by one)
            return None
        groups: dict[tuple, list[Any]] = {}
        for r in rows:
            groups.setdefault(tuple(r[:p.fixed]), []).append(f(r[-1]))
    except (TypeError, ValueError):
        return None
    if len(groups) == len(rows) > 1:   # every row its own SET values: no fewer statements
        return None
    return [(*vals, keys) for vals, keys in groups.items()]
