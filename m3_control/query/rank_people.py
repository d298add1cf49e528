"""Most / least of the people a query found, by their turns or by the seconds they talked (``measure=time``), and
the k most (``top=k``): used by :mod:`.execute`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .frame import Query, by_count, count_rank

if TYPE_CHECKING:
    from .result import PersonRow, QueryResult


def ranked(res: QueryResult, q: Query, people: list[PersonRow]) -> list[PersonRow]:
    """most / least (second most ...) of ``people`` by their turns, or with ``measure=time`` by the seconds of their
    events (``res.seconds``); ranked without gaps (a tie for the most leaves the next count second). ``top=k``: the k
    highest (lowest), everyone tied with the k-th included."""
    kind = "face" if q.act == "seen" else "voice"
    if q.measure == "time":
        res.seconds = {p.character_id: int(round(sum(e.end - e.start for e in p.events if e.kind == kind)))
                       for p in people}
        score = res.seconds
    else:
        score = {p.character_id: p.spoke for p in people}
    scored = [p for p in people if score[p.character_id] > 0]
    most, _ = count_rank(q.pick) or (True, 1)
    if q.top:
        ordered = sorted(scored, key=lambda p: score[p.character_id], reverse=most)
        k = int(q.top)
        if len(ordered) <= k:
            return ordered
        edge = score[ordered[k - 1].character_id]
        return [p for p in ordered if (score[p.character_id] >= edge if most else score[p.character_id] <= edge)]
    best = by_count([score[p.character_id] for p in scored], q.pick or "most")
    return [p for p in scored if best is not None and score[p.character_id] == best]
