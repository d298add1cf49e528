"""How close two people's turns came in time: "what was the shortest gap between a turn of A's and a turn of C's?",
"how close in time did a turn of A's come to a turn of C's?", "what is the least time between one of A's turns and one
of B's?".

One frame selects everyone's voice turns in the question's place and window; code pairs each turn of the one person
with each of the other's and measures the silence between them (from the end of the earlier to the start of the later;
none where they overlap), whatever was said between. The answer names the closest pair, with their times, checked
against the result like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query, voice_turns
from .named_ids import scope_and_people
from .phrase import REFUSAL, _cap, check, phrase
from .result import QueryResult
from .turn_sequence import people_in

_CLOSEST = re.compile(r"^\W*(?:what\s+(?:was|is)\s+the\s+(?:shortest|smallest|least|briefest)\s+(?:gap|time|silence|"
                      r"pause|wait|interval|distance)|how\s+close\s+(?:in\s+time\s+)?(?:did|do|does)|how\s+(?:near|soon)\s+"
                      r"(?:in\s+time\s+)?did)\b[^?]*?\b(?:turns?|words)\s+(?:of|by|from)\b", re.IGNORECASE)


@dataclass(frozen=True)
class PairGapAsk:
    people: tuple[str, str]


def asks_pair_gap(question: str) -> PairGapAsk | None:
    if _CLOSEST.search(question) is None:
        return None
    people = people_in(question)
    if len(people) != 2:
        return None
    return PairGapAsk((people[0], people[1]))


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's place and window."""
    return voice_turns(q)


def answer(executor: QueryExecutor, q: Query, ask: PairGapAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res, ids = scope_and_people(executor, prepare(q), list(ask.people), before_time)
    if ids is None:
        return phrase(res), res
    a, b = ids
    if a == b:
        return f"{_cap(res.describe[a])} is one person: both are theirs.", res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    mine, theirs = [e for e in turns if e.character_id == a], [e for e in turns if e.character_id == b]
    where = f" in the {q.place}" if q.place else ""
    if not mine or not theirs:
        missing = res.describe[a] if not mine else res.describe[b]
        return f"I did not hear {missing}{where}, so there is no gap to measure.", res
    pairs = []
    for x in mine:
        for y in theirs:
            first, second = (x, y) if (x.start, x.id) <= (y.start, y.id) else (y, x)
            pairs.append((max(0.0, second.start - first.end), first, second))
    gap, first, second = min(pairs, key=lambda p: (p[0], p[1].start))
    res.events = [first, second] + [e for e in res.events if e not in (first, second)]
    res.seconds = {**res.seconds, -1: round(gap, 1)}
    res.value = (len(mine), len(theirs))
    da, db = res.describe[first.character_id], res.describe[second.character_id]
    if gap == 0.0:
        text = f"They overlapped: {da}'s turn at {res.say(first.start)} was still going when {db} began at " \
               f"{res.say(second.start)}."
    else:
        text = f"{gap:.1f} seconds: {da}'s turn at {res.say(first.start)} ended at {res.say(first.end)} and {db} " \
               f"began at {res.say(second.start)}; the closest a turn of one came to a turn of the other{where}."
    problems = [p for p in check(_cap(text), res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else _cap(text)), res
