"""Rooms by how many different people were in them: "which room had just one speaker?", "in which room did only one
person speak?", "which rooms had more than two speakers?", "was there a room where exactly two people spoke?".

One frame selects everyone in the question's window (by its act: heard, seen or either); each turn is placed on the
robot's track and each room of the robot's stays in that window gets its set of people (a room it was in where
nobody was heard counts none). The answer names the rooms whose number fits, or says that none did, with every
room's number: not the people in every room, not a list of the rooms visited.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from m3_memory.store.where import robot_stays

from .execute import QueryExecutor
from .fidelity import act_of_question
from .frame import Query
from .phrase import REFUSAL, _cap, _join, check, phrase
from .result import QueryResult
from .words import COUNT_CMP, COUNT_N, COUNT_OPS, count_condition
from .words import the_place as _the

_N, _CMP = COUNT_N, COUNT_CMP
_WHO = r"(?:different\s+|distinct\s+|separate\s+)?(?:person|people|persons|speakers?|voices?|faces?|visitors?)"
# "which room had just one speaker?", "in which room did only one person speak?", "what rooms had more than two
# people?", "which room had a single speaker?"
_WHICH = re.compile(r"^\W*(?:in\s+)?(?:which|what)\s+(?:of\s+the\s+)?(?:rooms?|places?)\b[^?]*?\b(?:"
                    + _CMP + r"\s+" + _N + r"|(?P<single>a\s+single|one\s+single))\s+" + _WHO + r"\b", re.IGNORECASE)
# "was there a room where only one person spoke?", "were there any rooms with more than two speakers?"
_ANY = re.compile(r"^\W*(?:was|were|is|are)\s+there\s+(?:a|any|one)\s+(?:rooms?|places?)\s+(?:where|in\s+which|with|"
                  r"that\s+had)\b[^?]*?\b(?:" + _CMP + r"\s+" + _N + r"|(?P<single>a\s+single|one\s+single))\s+" + _WHO
                  + r"\b", re.IGNORECASE)
# "in how many rooms did I hear more than two different people?", "how many rooms had exactly one speaker?"
_HOW_MANY = re.compile(r"^\W*(?:in\s+)?how\s+many\s+(?:of\s+the\s+)?(?:rooms?|places?)\b[^?]*?\b(?:" + _CMP + r"\s+"
                       + _N + r"|(?P<single>a\s+single|one\s+single))\s+" + _WHO + r"\b", re.IGNORECASE)
# "how many people did I hear in each room?", "how many different speakers were there per room?": every room's number
_EACH = re.compile(r"^\W*how\s+many\s+" + _WHO + r"\b[^?]*?\b(?:in\s+each|in\s+every|per|for\s+each)\s+(?:of\s+the\s+)?"
                   r"(?:rooms?|places?)\b", re.IGNORECASE)
_OPS: dict[str, Callable[[float, float], bool]] = {"each": lambda a, b: True, **COUNT_OPS}


@dataclass(frozen=True)
class RoomPeopleAsk:
    cmp: str          # only | more than | fewer than | at least | at most (a key of _OPS)
    n: int
    said: str         # the question's words for it ("just one speaker")
    yes_no: bool = False
    count: bool = False   # "in how many rooms ...?": the number of rooms that fit


def asks_room_people(question: str) -> RoomPeopleAsk | None:
    if _EACH.search(question):
        return RoomPeopleAsk("each", 0, "")
    m = _WHICH.search(question) or _ANY.search(question) or _HOW_MANY.search(question)
    if m is None:
        return None
    cond = count_condition(None if m.group("single") else m.group("cmp"), m.group("n"))
    if cond is None:
        return None
    cmp, n = cond
    return RoomPeopleAsk(cmp, n, m.group(0)[m.start("cmp" if m.group("cmp") else "single") - m.start():],
                         yes_no=m.re is _ANY, count=m.re is _HOW_MANY)


def check_question(question: str, ask: RoomPeopleAsk) -> str:
    """The checks read the question without the number of people (it is no count of times)."""
    return question.replace(ask.said, " ") if ask.said else question


def prepare(q: Query) -> Query:
    """Everyone in the model's window (the rooms are counted here)."""
    return Query(find="who", act=q.act, from_=q.from_, to=q.to, at=q.at)


def answer(executor: QueryExecutor, q: Query, ask: RoomPeopleAsk, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    act = act_of_question(question) or ("spoke" if re.search(r"\b(?:speakers?|voices?|spoke|speak|talk\w*|heard)\b",
                                                             question, re.IGNORECASE) else "any")
    res = executor.run(Query(find="who", act=act, from_=q.from_, to=q.to), before_time)
    if res.status != "ok":
        return phrase(res), res
    events = sorted(res.events, key=lambda e: (e.start, e.id))
    executor.place_turns(res, events)
    t1, t2 = res.read(q.from_), res.read(q.to)
    rooms = list(dict.fromkeys(p for p, a, b in robot_stays(executor.store, before_time)
                               if (t1 is None or b is None or b >= t1) and (t2 is None or a <= t2)))
    people: dict[str, list[int]] = {r: [] for r in rooms}
    for e in events:
        room = res.places.get(e.id)
        if room is not None and e.character_id not in people.setdefault(room, []):
            people[room].append(e.character_id)
    if not people:
        return "I have no record of the rooms I was in.", res
    fits = [r for r in people if _OPS[ask.cmp](len(people[r]), ask.n)]
    counts = tuple(sorted({len(v) for v in people.values()} | {ask.n}))
    res.value = counts
    res.steps.append({"step": f"rooms by their people ({ask.cmp} {ask.n})", "rooms": {r: len(v) for r, v in
                                                                                       people.items()}})
    keep = {c for r in fits for c in people[r]}
    res.events = [e for e in events if res.places.get(e.id) in fits] + \
        [e for e in events if res.places.get(e.id) not in fits]
    noun = {"spoke": "speaker", "seen": "person seen"}.get(act, "person")

    def many(k: int) -> str:
        return f"{k} {noun}" if k == 1 else f"{k} {noun.replace('person', 'people').replace('speaker', 'speakers')}"

    def room(r: str) -> str:
        who = _join([res.describe[c] for c in people[r]]) if people[r] else ""
        return f"{_the(r)} ({many(len(people[r]))}{': ' + who if who and r in fits and len(people[r]) <= 3 else ''})"

    if ask.cmp == "each":
        res.value = tuple(sorted({len(v) for v in people.values()}))
        text = "; ".join(f"{_the(r)}: {many(len(people[r]))}" + (f" ({_join([res.describe[c] for c in people[r]])})"
                                                                  if people[r] else "") for r in people) + "."
    elif ask.count:
        res.value = tuple(sorted({*counts, len(fits), len(people)}))
        text = f"{len(fits)} of the {len(people)} rooms had {ask.said.strip()}: " + "; ".join(room(r) for r in people) \
            + "."
    elif not fits:
        lead = "No" if ask.yes_no else "None"
        text = f"{lead}: no room had {ask.said.strip()}; " + "; ".join(room(r) for r in people) + "."
    else:
        lead = "Yes: " if ask.yes_no else ""
        text = f"{lead}{_join([room(r) for r in fits])}" + (
            f"; the other{'s' if len(people) - len(fits) > 1 else ''}: " + "; ".join(
                room(r) for r in people if r not in fits) if len(fits) < len(people) else "") + "."
    res.people = [p for p in res.people if p.character_id in keep]
    return (REFUSAL if check(_cap(text), res) else _cap(text)), res
