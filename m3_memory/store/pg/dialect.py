"""SQLite's SQL as the store writes it -> PostgreSQL's, one statement at a time (cached).

What the store's statements use and how it is rewritten:

* ``?`` parameters -> ``%s``, ``:name`` -> ``%(name)s`` (a literal ``%`` is doubled first); the store never
  writes ``?`` inside a literal;
* ``INSERT OR IGNORE`` -> ``INSERT ... ON CONFLICT DO NOTHING``; ``INSERT OR REPLACE`` -> ``INSERT ... ON CONFLICT
  (<primary key>) DO UPDATE SET`` every other column (the tables' keys are in :data:`PRIMARY_KEYS`);
* ``lower(hex(randomblob(16)))`` (the store id) -> 32 hex digits from ``gen_random_uuid()``;
* scalar ``max(a, b)`` / ``min(a, b)`` -> ``GREATEST`` / ``LEAST``;
* ``CROSS JOIN t ON ...`` (SQLite's way to fix the join order) -> ``JOIN t ON ...``;
* an upsert's ``DO UPDATE SET c = c + excluded.c`` -> ``c = t.c + excluded.c``;
* ``LIKE`` -> ``ILIKE`` (SQLite's LIKE ignores ASCII case), ``group_concat(x)`` -> ``string_agg(x::text, ',')``;
* ``BEGIN IMMEDIATE`` (the write lock) and ``BEGIN`` (a read snapshot) are the connection's business
  (:mod:`.connection`), ``PRAGMA`` statements too.

Anything else must be written so that both engines read it alike (tests/test_store_postgres.py runs the store's
tests on both).
"""

from __future__ import annotations

import re
from functools import lru_cache

# the conflict target of INSERT OR REPLACE, per table
PRIMARY_KEYS: dict[str, tuple[str, ...]] = {
    "meta": ("key",),
    "edges": ("text_id", "entity_id"),
    "character_names": ("seed",),
    "places": ("name",),
    "av_evidence": ("face_id", "voice_id"),
    "voice_speech": ("voice_id",),
    "turn_memories": ("turn_id", "memory_id"),
    "entity_splits": ("entity_a", "entity_b"),
    "clips": ("id",),
    "nodes": ("id",),
}

_OR = re.compile(r"^\s*INSERT\s+OR\s+(IGNORE|REPLACE)\s+INTO\s+(\w+)\s*\(([^)]*)\)", re.I | re.S)
_RETURNING = re.compile(r"\sRETURNING\s", re.I)
_LIKE = re.compile(r"(?<![\w])(NOT\s+)?LIKE(?![\w])", re.I)
_CROSS_JOIN_ON = re.compile(r"\bCROSS\s+JOIN(\s+\w+(?:\s+\w+)?\s+ON\b)", re.I)
_UPSERT = re.compile(r"\bON\s+CONFLICT\s*\([^)]*\)\s*DO\s+UPDATE\s+SET\b", re.I)
_INSERT_COLS = re.compile(r"^\s*INSERT\s+INTO\s+(\w+)\s*\(([^)]*)\)", re.I | re.S)
_NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
_MIN_MAX = re.compile(r"(?<![\w.])(max|min)\(", re.I)
_RANDOM_ID = re.compile(r"lower\(hex\(randomblob\(16\)\)\)", re.I)
_GROUP_CONCAT = re.compile(r"group_concat\(\s*([\w.]+)\s*\)", re.I)


def _insert_or(sql: str) -> str:
    m = _OR.match(sql)
    if not m:
        return sql
    how, table, cols = m.group(1).upper(), m.group(2), [c.strip() for c in m.group(3).split(",")]
    body = "INSERT INTO " + sql[m.start(2):]
    if how == "IGNORE":
        clause = " ON CONFLICT DO NOTHING"
    else:
        keys = PRIMARY_KEYS.get(table)
        if keys is None:
            raise ValueError(f"INSERT OR REPLACE into {table}: its primary key is not in dialect.PRIMARY_KEYS")
        rest = [c for c in cols if c not in keys]
        sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in rest)
        clause = f" ON CONFLICT ({', '.join(keys)}) " + (f"DO UPDATE SET {sets}" if rest else "DO NOTHING")
    r = _RETURNING.search(body)
    return body[: r.start()] + clause + body[r.start():] if r else body.rstrip().rstrip(";") + clause


def _scalar_min_max(sql: str) -> str:
    """SQLite's two-argument ``max(a, b)`` / ``min(a, b)`` -> ``GREATEST`` / ``LEAST`` (aggregates stay)."""
    out, at = [], 0
    for m in _MIN_MAX.finditer(sql):
        depth, i, commas = 1, m.end(), 0
        while i < len(sql) and depth:
            c = sql[i]
            depth += (c == "(") - (c == ")")
            commas += c == "," and depth == 1
            i += 1
        if commas:
            out += [sql[at: m.start()], "GREATEST(" if m.group(1).lower() == "max" else "LEAST("]
            at = m.end()
    return "".join(out) + sql[at:]


def _qualify_upsert(sql: str) -> str:
    """``INSERT INTO t (...) ... ON CONFLICT (...) DO UPDATE SET c = c + excluded.c``: PostgreSQL needs the old
    row's columns on the right-hand side qualified (``t.c``), SQLite reads them bare."""
    m = _UPSERT.search(sql)
    ins = _INSERT_COLS.match(sql)
    if not m or not ins:
        return sql
    table, cols = ins.group(1), {c.strip().lower() for c in ins.group(2).split(",")}
    sets = []
    for assignment in split_top(sql[m.end():]):
        lhs, _, rhs = assignment.partition("=")
        rhs = re.sub(r"(?<![\w.])(\w+)(?![\w(])", lambda w: f"{table}.{w.group(1)}"
                     if w.group(1).lower() in cols else w.group(1), rhs)
        sets.append(f"{lhs}={rhs}")
    return sql[: m.end()] + ",".join(sets)


def split_top(text: str) -> list[str]:
    """``a, f(b, c), ?`` -> ``["a", " f(b, c)", " ?"]``: split at the commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [*out, cur]


def values_tuple(sql: str, start: int) -> tuple[list[str], int]:
    """The items of the parenthesised list that opens just before ``start`` (after ``VALUES (``), and the position
    after its closing parenthesis."""
    depth, end = 1, start
    while end < len(sql) and depth:
        depth += (sql[end] == "(") - (sql[end] == ")")
        end += 1
    return split_top(sql[start: end - 1]), end


@lru_cache(maxsize=2048)
def translate(sql: str) -> str:
    """The PostgreSQL form of one SQLite statement of the store (see the module docstring)."""
    s = _qualify_upsert(_insert_or(sql)) if _UPSERT.search(sql) else _insert_or(sql)
    s = _GROUP_CONCAT.sub(lambda m: f"string_agg(CAST({m.group(1)} AS TEXT), ',')", s)
    s = _scalar_min_max(s)
    s = _CROSS_JOIN_ON.sub(r"JOIN\1", s)
    s = _RANDOM_ID.sub("replace(gen_random_uuid()::text, '-', '')", s)
    s = _LIKE.sub(lambda m: (m.group(1) or "") + "ILIKE", s)
    s = s.replace("%", "%%").replace("?", "%s")
    return _NAMED.sub(r"%(\1)s", s)
