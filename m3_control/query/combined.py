"""Plans that run several frames (one per place, window, condition or person) and answer from their results
together: run them all, stop at the first that cannot run, and make one result of them for provenance and the
answer's check."""

from __future__ import annotations

from dataclasses import replace

from .execute import QueryExecutor
from .frame import Query
from .phrase import phrase
from .result import QueryResult


def run_each(executor: QueryExecutor, frames: list[Query], before_time: float | None
             ) -> tuple[list[QueryResult], tuple[str, QueryResult] | None]:
    """(every frame's result, None), or (them, the first one that stopped: phrased, as a frame's own answer)."""
    results = [executor.run(f, before_time) for f in frames]
    stopped = next((r for r in results if r.status != "ok"), None)
    return results, (phrase(stopped), stopped) if stopped is not None else None


def combined(results: list[QueryResult], step: str) -> QueryResult:
    """A copy of the first result holding every result's events (each once, in time order) and steps, after a step
    naming the frames that were run."""
    out = replace(results[0])
    out.events = sorted({e for r in results for e in r.events}, key=lambda e: (e.start, e.end, e.id))
    out.steps = [{"step": step, "frames": [r.query.compact() for r in results]}] + [s for r in results for s in r.steps]
    return out


def union_people(results: list[QueryResult]) -> list:
    """The people of every result, each once (as the first result that has them gives them)."""
    seen: dict[int, object] = {}
    for r in results:
        for p in r.people:
            seen.setdefault(p.character_id, p)
    return list(seen.values())
