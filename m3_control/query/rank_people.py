"""Most / least of the people a query found, by their turns or by the seconds they talked (``measure=time``), and
the k most (``top=k``): used by :mod:`.execute`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .frame import Query, by_count, count_rank
from .talk_seconds import TIE_S, equal, keep, talk_seconds

if TYPE_CHECKING:
    from .result import PersonRow, QueryResult


def ranked(res: QueryResult, q: Query, people: list[PersonRow]) -> list[PersonRow]:
    """most / least (second most ...) of ``people`` by their turns, or with ``measure=time`` by the seconds of their
    events (``res.seconds``); ranked without gaps (a tie for the most leaves the next count second). ``top=k``: the k
    highest (lowest), everyone tied with the k-th included."""
    kind = "face" if q.act == "seen" else "voice"
    most, _ = count_rank(q.pick) or (True, 1)
    if q.measure == "time":
        exact = {p.character_id: talk_seconds(p.events, kind) for p in people}
        res.seconds = {}
        keep(res, exact)
        return _ranked_by_time(q, people, exact, most)
    score = {p.character_id: p.spoke for p in people}
    scored = [p for p in people if score[p.character_id] > 0]
    if q.top:
        ordered = sorted(scored, key=lambda p: score[p.character_id], reverse=most)
        k = int(q.top)
        if len(ordered) <= k:
            return ordered
        edge = score[ordered[k - 1].character_id]
        return [p for p in ordered if (score[p.character_id] >= edge if most else score[p.character_id] <= edge)]
    best = by_count([score[p.character_id] for p in scored], q.pick or "most")
    return [p for p in scored if best is not None and score[p.character_id] == best]


def _ranked_by_time(q: Query, people: list[PersonRow], exact: dict[int, float], most: bool) -> list[PersonRow]:
    """``ranked`` by seconds of talk: the exact seconds decide, people closer than ``TIE_S`` are equal (seconds
    rounded first made 4.4 and 3.8 a tie)."""
    scored = sorted((p for p in people if exact[p.character_id] > 0), key=lambda p: exact[p.character_id],
                    reverse=most)
    if q.top:
        k = int(q.top)
        if len(scored) <= k:
            return scored
        edge = exact[scored[k - 1].character_id]
        return [p for p in scored if (exact[p.character_id] > edge - TIE_S if most else
                                      exact[p.character_id] < edge + TIE_S)]
    # places as by_count gives them, over the seconds with equal ones (within TIE_S) merged into one value
    values: list[float] = []
    for p in scored:
        s = exact[p.character_id]
        if not values or not equal(s, values[-1]):
            values.append(s)
    place = by_count([_value_of(exact[p.character_id], values) for p in scored], q.pick or "most")
    return [p for p in scored if place is not None and equal(_value_of(exact[p.character_id], values), place)]


def _value_of(s: float, values: list[float]) -> float:
    return next(v for v in values if equal(s, v))
