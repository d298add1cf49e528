""""Was I in the bathroom when A last spoke?", "were we in the lab when Ann first spoke?", "was I in the office when
B spoke?": the robot's own place at one person's turn (their first, last or n-th; or each of them), from its pose
track, against the place the question names. A frame's yes / no about a place asks whether the person spoke there,
and "when A last spoke" read as a second person ("spoke last") answered about somebody else."""

from __future__ import annotations

import re
from dataclasses import dataclass

from m3_memory.people import Turn

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, check, phrase
from .result import QueryResult
from .rooms import places_named
from .turn_sequence import people_in
from .words import ORD, join, the_place

_WHEN = re.compile(r"^\W*(?:was|were)\s+(?:i|we)\s+(?:still\s+|already\s+)?(?:in|at|inside)\s+(?:the\s+|my\s+)?"
                   r"(?P<place>[a-z]+(?:\s+room)?)\s+(?:when|while|as)\s+(?P<rest>.+)$", re.IGNORECASE)
_NTH = {word: n for n, word in ORD.items()}


@dataclass(frozen=True)
class WhenAsk:
    place: str           # the place's words
    person: str          # their quoted words or name
    nth: int | None      # 1: first, -1: last, n: the n-th turn; None: each of their turns


def asks_robot_when(question: str) -> WhenAsk | None:
    m = _WHEN.match(question.strip())
    if m is None:
        return None
    people = people_in(question)
    rest = re.sub(r'"[^"]*"', " ", m.group("rest")).lower()   # (a quote's own words are no rank)
    if len(people) != 1 or not re.search(r"\b(?:spoke|speak|talked|said|was\s+(?:speaking|talking)|heard)\b", rest):
        return None
    nth: int | None = None
    if re.search(r"\b(?:last|final)\b", rest):
        nth = -1
    elif (word := re.search(r"\b(" + "|".join(_NTH) + r")\b", rest)) is not None:
        nth = _NTH[word.group(1)]
    return WhenAsk(m.group("place"), people[0], nth)


def answer(executor: QueryExecutor, ask: WhenAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(Query(find="where", who=ask.person, act="spoke"), before_time)   # each turn's place
    if res.status != "ok":
        return phrase(res), res
    named = places_named(executor, res, (ask.place,))
    if isinstance(named, str):
        return named, res
    place = named[0]
    cid = res.who["who"].character_id
    d = res.describe[cid]  # type: ignore[index]
    turns = sorted((e for e in res.events if e.kind == "voice" and e.character_id == cid), key=lambda e: e.start)
    which, nth = "", f" for the {ORD.get(ask.nth, f'{ask.nth}th')} time" if ask.nth and ask.nth > 1 else ""
    if ask.nth is not None:
        k = ask.nth - 1 if ask.nth > 0 else ask.nth
        if not -len(turns) <= k < len(turns):
            res.value = False
            return f"{d[:1].upper() + d[1:]} spoke {len(turns)} time{'s' if len(turns) != 1 else ''} in all: there " \
                   f"was no {ORD.get(ask.nth, 'such')} time.", res
        turns = [turns[k]]
        which = {1: " first", -1: " last"}.get(ask.nth, "")
    if not turns:
        res.value = False
        return f"I never heard {d}.", res
    res.events = turns
    executor.place_turns(res, turns)
    there = [e for e in turns if res.places.get(e.id) == place]
    res.value = len(there) == len(turns)

    def at(e: Turn) -> str:
        return f"{res.say(e.start)} ({_in(res.places.get(e.id))})"

    if len(turns) == 1:
        e = turns[0]
        text = f"Yes, I was in {the_place(place)} when {d}{which} spoke{nth} ({res.say(e.start)})." if there else \
            f"No: when {d}{which} spoke{nth} ({res.say(e.start)}) I was {_in(res.places.get(e.id))}, not in " \
            f"{the_place(place)}."
    elif res.value:
        text = f"Yes: I was in {the_place(place)} each time {d} spoke ({join([res.say(e.start) for e in turns])})."
    else:
        lead = "Only sometimes" if there else "No"
        text = f"{lead}: {d} spoke at {join([at(e) for e in turns])}."
    return (REFUSAL if check(text, res) else text), res


def _in(place: str | None) -> str:
    if place is None:
        return "somewhere I have no name for"
    return f"at {place}" if place.startswith("x ") else f"in the {place}"
