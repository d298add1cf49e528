"""Runs in the order of turns: "at most, how many turns in a row passed without A speaking?" (the longest run without
one person), "how long did the longest back-and-forth between A and B last?" (the longest run of the two alternating),
"how many turns were longer than the turn right before them?" (each turn against the one before).

One frame selects everyone's voice turns in the question's place and window; code walks them in time order. The answer
names the run (its turns' times) or the turns counted, checked against the result like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query, voice_turns
from .named_ids import named_ids
from .phrase import REFUSAL, _cap, check, phrase
from .result import QueryResult
from .turn_sequence import people_in

_WITHOUT = re.compile(r"\b(?:turns?\s+in\s+a\s+row|run\s+of\s+turns|consecutive\s+turns|stretch\s+of\s+turns)\b[^?]*?"
                      r"\bwithout\b|\bwithout\b[^?]*?\b(?:in\s+a\s+row|consecutive)\b", re.IGNORECASE)
_ALTERNATE = re.compile(r"\bback[\s-]+and[\s-]+forth\b|\balternat\w+\b|\bexchange\b", re.IGNORECASE)
_LONGEST = re.compile(r"\b(?:longest|long)\b", re.IGNORECASE)
_THAN_BEFORE = re.compile(r"\b(?P<cmp>longer|shorter)\s+than\s+the\s+(?:turn|one)\s+(?:right\s+|just\s+|immediately\s+|"
                          r"directly\s+)?(?:before|preceding)\s+(?:it|them|each)\b|\b(?P<cmp2>longer|shorter)\s+than\s+the\s+"
                          r"(?:previous|preceding)\s+(?:turn|one)\b", re.IGNORECASE)


@dataclass(frozen=True)
class RunsAsk:
    kind: str                  # without | alternate | than_before
    people: tuple[str, ...] = ()
    shorter: bool = False      # than_before: "shorter than the turn before"


def asks_runs(question: str) -> RunsAsk | None:
    people = people_in(question)
    m = _THAN_BEFORE.search(question)
    if m is not None and re.match(r"^\W*how\s+many\b", question, re.IGNORECASE) and not people:
        return RunsAsk("than_before", shorter=(m.group("cmp") or m.group("cmp2")).lower() == "shorter")
    if len(people) == 1 and _WITHOUT.search(question):
        return RunsAsk("without", tuple(people))
    if len(people) == 2 and _ALTERNATE.search(question) and _LONGEST.search(question):
        return RunsAsk("alternate", tuple(people))
    return None


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's place and window."""
    return voice_turns(q)


def answer(executor: QueryExecutor, q: Query, ask: RunsAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    where = f" in the {q.place}" if q.place else ""
    if ask.kind == "than_before":
        return _than_before(res, turns, ask, where)
    ids = named_ids(executor, Query(find="who", act="spoke"), list(ask.people), res, before_time)
    if isinstance(ids, QueryResult):
        return phrase(ids), ids
    text = _without(res, turns, ids[0], where) if ask.kind == "without" else _alternate(res, turns, ids, where)
    problems = [p for p in check(_cap(text), res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else _cap(text)), res


def _without(res: QueryResult, turns: list, cid: int, where: str) -> str:
    """"3 turns in a row without A: from 00:25 to 00:35 (between A's turns at 00:20 and 00:40)."."""
    runs, cur = [], []
    for e in turns:
        if e.character_id == cid:
            runs.append(cur)
            cur = []
        else:
            cur.append(e)
    runs.append(cur)
    who = res.describe[cid]
    if not any(e.character_id == cid for e in turns):
        return f"I did not hear {who}{where}: all {len(turns)} turns were without them."
    best = max(runs, key=len)
    res.value = (len(best), len(turns))
    if not best:
        return f"None: {who} took every turn{where}."
    res.events = best + [e for e in res.events if e not in best]
    return f"{len(best)} turn{'s' if len(best) != 1 else ''} in a row without {who}{where}: from " \
           f"{res.say(best[0].start)} to {res.say(best[-1].start)} (of {len(turns)} turns)."


def _alternate(res: QueryResult, turns: list, ids: list[int], where: str) -> str:
    """"The longest back-and-forth of A and B was 4 turns, 00:52 to 01:09 (16.4 seconds)."."""
    a, b = ids
    best: list = []
    cur: list = []
    for e in turns:
        if e.character_id in (a, b) and (not cur or cur[-1].character_id != e.character_id):
            cur.append(e)
        elif e.character_id in (a, b):
            cur = [e]
        else:
            cur = []
        if len(cur) > len(best) or (len(cur) == len(best) and cur and cur[-1].end - cur[0].start >
                                    best[-1].end - best[0].start):
            best = list(cur)
    da, db = res.describe[a], res.describe[b]
    if len(best) < 2:
        return f"{da} and {db} never spoke one right after the other{where}."
    span = best[-1].end - best[0].start
    res.events = best + [e for e in res.events if e not in best]
    res.seconds = {**res.seconds, -1: round(span, 1)}
    res.value = (len(best),)
    return f"The longest back-and-forth of {da} and {db}{where} was {len(best)} turns in a row, from " \
           f"{res.say(best[0].start)} to {res.say(best[-1].end)} ({span:.1f} seconds)."


def _than_before(res: QueryResult, turns: list, ask: RunsAsk, where: str) -> tuple[str, QueryResult]:
    """"8 of the 19 turns after the first were longer than the turn right before them: ..."."""
    word = "shorter" if ask.shorter else "longer"
    hits = [(p, e) for p, e in zip(turns, turns[1:], strict=False)
            if ((e.end - e.start) < (p.end - p.start)) == ask.shorter and (e.end - e.start) != (p.end - p.start)]
    res.value = (len(hits), max(0, len(turns) - 1))
    res.events = [e for _, e in hits] + [e for e in res.events if all(e is not h for _, h in hits)]
    said = "; ".join(f"{res.say(e.start)} ({e.end - e.start:.2f} s after {p.end - p.start:.2f} s)"
                     for p, e in hits[:10])
    n = max(0, len(turns) - 1)
    text = f"{len(hits)} of the {n} turns after the first{where} were {word} than the turn right before them" + \
        (f": {said}" if hits else "") + ("; and more" if len(hits) > 10 else "") + "."
    problems = [x for x in check(_cap(text), res) if not x.startswith(("count not in the result", "time not in"))]
    return (REFUSAL if problems else _cap(text)), res
