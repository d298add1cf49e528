"""Two people compared by how many places they were in: "did A speak in more rooms than B?", "was A seen in fewer
places than Bo?", "who spoke in more rooms, A or B?".

No frame field counts one person's places against another's (a frame with both people is a yes / no about both), so
this runs one frame per person (their turns in the question's window, by its act), places each turn on the robot's
track, and compares the two sets of places. The answer names both people with their places, checked against the
executed results like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .combined import combined, run_each
from .execute import QueryExecutor
from .fidelity import act_of_question
from .frame import Query
from .phrase import REFUSAL, check
from .polarity import YES_NO_QUESTION
from .result import QueryResult
from .wording import QUOTED
from .words import cap, join, the_place

_ROOM = r"(?:rooms?|places?|locations?|areas?)"
_MORE = re.compile(rf"\b(?P<w>more|fewer|less)\s+(?:different\s+|distinct\s+|separate\s+)?{_ROOM}\b", re.IGNORECASE)
_NAME = r"(?:[A-Z][a-z]+)"
_SUBJECT_NAME = re.compile(rf"^\W*(?i:did|has|had|was|is|were)\s+({_NAME})\b(?!\s+(?:I|we)\b)")
_THAN_NAME = re.compile(rf"\bthan\s+({_NAME})\b")
_OR_NAMES = (re.compile(rf",\s*({_NAME})\s+or\b"), re.compile(rf"\bor\s+({_NAME})\s*[?.!]*\s*$"))


@dataclass(frozen=True)
class PlacesAsk:
    a: str            # the first person (words they said, or a name)
    b: str            # the one compared with
    more: bool        # more places (False: fewer)
    choose: bool      # "who ..., A or B?": say which; else a yes / no about A


def asks_places_compared(question: str) -> PlacesAsk | None:
    """Two people and "more / fewer rooms", or None."""
    m = _MORE.search(question)
    if m is None:
        return None
    more = m.group("w").lower() == "more"
    people = [(q.start(), next(g for g in q.groups() if g)) for q in QUOTED.finditer(question)]
    plain = QUOTED.sub(lambda q: "q" * len(q.group(0)), question)   # (positions kept: the people's order)
    for pattern in (_SUBJECT_NAME, _THAN_NAME, *_OR_NAMES):
        for n in pattern.finditer(plain):
            people.append((n.start(1), n.group(1)))
    people = sorted(dict(people).items())
    if len(people) != 2:
        return None
    (_, a), (_, b) = people
    if YES_NO_QUESTION.match(question):
        return PlacesAsk(a, b, more, choose=False) if re.search(r"\bthan\b", question, re.IGNORECASE) else None
    return PlacesAsk(a, b, more, choose=True)


def prepare(q: Query) -> Query:
    """The question's window and act; the people are the question's (one frame each)."""
    return Query(find="who", act=q.act, from_=q.from_, to=q.to, at=q.at)


def answer(executor: QueryExecutor, q: Query, ask: PlacesAsk, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    act = act_of_question(question) or (q.act if q.act in ("spoke", "seen") else "any")
    frames = [replace(prepare(q), act=act, who=ask.a), replace(prepare(q), act=act, who=ask.b)]
    results, stopped = run_each(executor, frames, before_time)
    if stopped is not None:
        return stopped
    places, who = [], []
    for r in results:
        executor.place_turns(r, r.events)
        places.append(r.places_of(r.events))
        who.append(r.describe[r.who["who"].character_id])  # type: ignore[index]
    res = combined(results, "places of each of two people")
    res.places = {k: v for r in results for k, v in r.places.items()}
    res.people = [p for r in results for p in r.people]
    res.who = {"who": results[0].who["who"], "other": results[1].who["who"]}   # both people, as the question named them
    if who[0] == who[1]:
        return f"{cap(who[0])} and {who[1]} are the same person to me.", res
    na, nb = len(places[0]), len(places[1])
    res.value = (na, nb)   # (the two numbers of places: what the answer counts)
    res.steps.append({"step": "places compared", "places": places})
    verb = {"spoke": "spoke", "seen": "was seen"}.get(act, "was seen or heard")

    def said(i: int) -> str:
        n = len(places[i])
        return f"{n} place{'s' if n != 1 else ''} ({join([the_place(p) for p in places[i]])})" if n else "no place"

    if ask.choose:
        if na == nb:
            text = f"Neither: {who[0]} {verb} in {said(0)}, {who[1]} in {said(1)}."
        else:
            win = 0 if (na > nb) == ask.more else 1
            text = f"{cap(who[win])} {verb} in {said(win)}; {who[1 - win]} in {said(1 - win)}."
    else:
        yes = na > nb if ask.more else na < nb
        text = f"{'Yes' if yes else 'No'}: {who[0]} {verb} in {said(0)}, {who[1]} in {said(1)}."
    return (REFUSAL, res) if check(text, res) else (text, res)
