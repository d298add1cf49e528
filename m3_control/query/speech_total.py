"""Everyone's speech added up in a place or window: "what was the total length of all the turns in the bedroom, in
seconds?", "adding up every turn in the hallway, how many seconds of speech were there?", "how much speech was there
in all?"; and one room's part of all of it: "what share of all the speech was in the porch?" (:func:`answer_share`).

The frame is the model's with its place and window kept, asking how long people spoke in all (``find=how_long``
without a person): the executor adds up the detected speech of every turn in scope, overlapping turns once.
"""

from __future__ import annotations

import re

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, check, phrase
from .result import QueryResult
from .turn_sequence import people_in

_TOTAL = re.compile(r"\b(?:total|combined|summed|overall)\s+(?:length|duration|time)\s+of\s+(?:all\s+)?"
                    r"(?:the\s+|every\s+)?(?:turns?|speech|talk(?:ing)?|speaking|utterances?|sentences?)\b|"
                    r"\b(?:add(?:ing)?|sum(?:ming)?)\s+up\s+(?:all\s+(?:the\s+)?|every\s+|each\s+)?(?:turns?|utterances?|"
                    r"sentences?)\b|"
                    r"^\W*how\s+(?:many\s+seconds|much\s+time)\s+of\s+(?:speech|talk(?:ing)?|speaking)\s+(?:were|was)\s+"
                    r"there\b|^\W*how\s+much\s+(?:speech|talking)\s+(?:was|were)\s+there\b|"
                    r"\btotal\s+(?:speaking|talking|speech)\s+time\s+(?:of\s+everyone|altogether|in\s+all|overall)\b",
                    re.IGNORECASE)


def asks_speech_total(question: str) -> bool:
    """Everyone's seconds of speech in all asked (no person named), else False."""
    return not people_in(question) and bool(_TOTAL.search(question)) and \
        not re.search(r"\b(?:each|every)\s+(?:person|speaker|one)\b|\bper\s+(?:person|speaker)\b", question, re.I)


# "what share of all the speech was in the porch?", "what fraction of the total speech happened in the kitchen?"
_ROOM_SHARE = re.compile(r"^\W*(?:what|which)\s+(?:share|fraction|proportion|percentage|part|portion)\s+of\s+"
                         r"(?:all\s+)?(?:the\s+)?(?:total\s+|whole\s+)?(?:speech|talking|talk|speaking(?:\s+time)?|talking\s+time)\b"
                         r"[^?]*?\b(?:in|at)\s+the\s+(?P<place>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)


def asks_room_share(question: str) -> str | None:
    """The room whose part of everyone's speech is asked (no person named), else None."""
    m = _ROOM_SHARE.search(question)
    return m.group("place") if m is not None and not people_in(question) else None


def answer_share(executor: QueryExecutor, q: Query, place: str, before_time: float | None) -> tuple[str, QueryResult]:
    """"9.6 of the 37.7 seconds of speech I heard (25 %) were in the porch." (detected speech, turns counted in the
    room the robot was in as they began)."""
    every = executor.run(Query(find="who", act="spoke", from_=q.from_, to=q.to), before_time)
    there = executor.run(Query(find="who", act="spoke", place=place, from_=q.from_, to=q.to), before_time)
    for r in (every, there):
        if r.status != "ok":
            return phrase(r), r
    total = sum(e.end - e.start for e in every.events if e.kind == "voice")
    mine = [e for e in there.events if e.kind == "voice"]
    part = sum(e.end - e.start for e in mine)
    if total <= 0:
        return "I heard nobody speak.", every
    pct = int(round(100 * part / total))
    every.events = mine + [e for e in every.events if e not in mine]
    every.seconds = {**every.seconds, -1: round(part, 1), -2: round(total, 1)}
    every.value = (pct, len(mine), len([e for e in every.events if e.kind == "voice"]))
    text = f"{part:.1f} of the {total:.1f} seconds of speech I heard ({pct} %) were in the {place}, in " \
           f"{len(mine)} turn{'s' if len(mine) != 1 else ''}."
    problems = [x for x in check(text, every) if not x.startswith("count not in the result")]
    return (REFUSAL if problems else text), every


def prepare(q: Query) -> Query:
    """How long everyone spoke in all, in the frame's place and window."""
    return Query(find="how_long", act="spoke", place=q.place, from_=q.from_, to=q.to, at=q.at)


def answer(executor: QueryExecutor, q: Query, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    return phrase(res), res
