"""People a plan's question names (their words, name or look), resolved as the plan's own frame would resolve them:
one resolution for every plan that counts over everyone's turns and then picks the named people out of them."""

from __future__ import annotations

from dataclasses import replace

from .execute import QueryExecutor
from .frame import Query
from .result import QueryResult


def named_into(executor: QueryExecutor, base: Query, ref: str, res: QueryResult,
               before_time: float | None) -> QueryResult:
    """The person ``ref`` (their words or name) resolved as the frame ``base`` would, their description and resolution
    added to ``res``; the named query's result (a status other than ok: the reference stopped it, said as such)."""
    named = executor.run(replace(base, who=ref), before_time)
    if named.status == "ok":
        cid = named.who["who"].character_id
        res.describe[cid] = named.describe[cid]  # type: ignore[index]
        res.who[ref] = named.who["who"]
    return named


def named_ids(executor: QueryExecutor, base: Query, refs: tuple[str, ...] | list[str], res: QueryResult,
              before_time: float | None) -> list[int] | QueryResult:
    """Each of ``refs`` resolved into ``res`` (as :func:`named_into`), their character ids in order; or the first
    result that stopped (its status says why: nobody said those words, two people might be meant)."""
    ids: list[int] = []
    for ref in refs:
        named = named_into(executor, base, ref, res, before_time)
        if named.status != "ok":
            return named
        ids.append(named.who["who"].character_id)  # type: ignore[arg-type]
    return ids


def scope_and_people(executor: QueryExecutor, frame: Query, refs: tuple[str, ...] | list[str],
                     before_time: float | None) -> tuple[QueryResult, list[int] | None]:
    """``frame`` run (everyone's turns in a plan's scope) and ``refs`` resolved into its result: (the result, their
    ids), or (the result that stopped, None): the frame could not run, or a reference matched nobody (or two)."""
    res = executor.run(frame, before_time)
    if res.status != "ok":
        return res, None
    ids = named_ids(executor, Query(find="who", act="spoke"), refs, res, before_time)
    return (ids, None) if isinstance(ids, QueryResult) else (res, ids)
