"""Whether two of one person's turns were in the same room: "was A's last turn in the same room as their first?",
"did A speak their first and last turns in the same room?", "were A's first and second words said in different
places?".

One frame selects the person's voice turns (the window and place of the model's frame do not bound them: the turns
are the person's own first, second, ... last); each of the two is placed on the robot's track. The answer says yes or
no to what was asked (same or different), with both turns' times and rooms; a person who spoke once has one turn
for both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query, nth
from .phrase import REFUSAL, _cap, check, phrase
from .polarity import YES_NO_QUESTION
from .result import QueryResult
from .turn_sequence import people_in
from .wording import QUOTED
from .words import the_place as _the

_ROOMS = re.compile(r"\b(?P<same>same|different|another|other)\s+(?:room|place|location|area)s?\b|"
                    r"\b(?:room|place)s?\s+(?P<same2>differ(?:ed)?|matched?|the\s+same)\b", re.IGNORECASE)
_ORD = re.compile(r"\b(first|second|third|fourth|last|final|latest|opening|closing)\b(?=[^?]*?\b(?:turns?|words?|time|"
                  r"sentences?|utterances?|one)\b|[^?]*?\b(?:same|different)\b|\s*[?.!]*\s*$)", re.IGNORECASE)
_N = {"first": 1, "opening": 1, "second": 2, "third": 3, "fourth": 4, "last": -1, "final": -1, "latest": -1,
      "closing": -1}


@dataclass(frozen=True)
class TurnRoomsAsk:
    who: str
    turns: tuple[int, int]     # 1-based, -1 the last
    same: bool                 # the question asks "the same room" (False: "different rooms")


def asks_turn_rooms(question: str) -> TurnRoomsAsk | None:
    people = people_in(question)
    if len(people) != 1 or not YES_NO_QUESTION.match(question):
        return None
    plain = QUOTED.sub(" x ", question)
    m = _ROOMS.search(plain)
    if m is None:
        return None
    ords = list(dict.fromkeys(_N[w.lower()] for w in _ORD.findall(plain)))
    if len(ords) != 2:
        return None
    word = (m.group("same") or m.group("same2") or "").lower()
    return TurnRoomsAsk(people[0], (ords[0], ords[1]), same=word in ("same", "match", "matched", "the same"))


def prepare(q: Query) -> Query:
    """The person's voice turns, all of them (the person is the question's)."""
    return Query(find="who", act="spoke")


def _word(n: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", -1: "last"}[n]


def answer(executor: QueryExecutor, q: Query, ask: TurnRoomsAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(Query(find="who", act="spoke", who=ask.who), before_time)
    if res.status != "ok":
        return phrase(res), res
    cid = res.who["who"].character_id
    who = res.describe[cid]
    mine = sorted((e for e in res.events if e.kind == "voice" and e.character_id == cid), key=lambda e: e.start)
    if not mine:
        return f"{_cap(who)} never spoke.", res
    a, b = (nth(mine, n) for n in ask.turns)
    if not a or not b:
        missing = ask.turns[0] if not a else ask.turns[1]
        res.value = (len(mine),)
        return f"{_cap(who)} spoke only {len(mine)} time{'s' if len(mine) != 1 else ''}: there was no " \
               f"{_word(missing)} turn.", res
    a, b = a[0], b[0]
    executor.place_turns(res, [a, b])
    ra, rb = res.places.get(a.id), res.places.get(b.id)
    res.events = [a, b] + [e for e in res.events if e is not a and e is not b]
    res.steps.append({"step": f"rooms of two of one person's turns ({_word(ask.turns[0])}, {_word(ask.turns[1])})",
                      "rooms": [ra, rb]})
    if ra is None or rb is None:
        return f"I can't place {who}'s {_word(ask.turns[0] if ra is None else ask.turns[1])} turn in a room I knew.", \
            res
    if a is b:
        res.value = (1,)
        text = f"Yes: {who} spoke only once, at {res.say(a.start)} in {_the(ra)}, so their {_word(ask.turns[0])} and " \
               f"{_word(ask.turns[1])} turns were the same one." if ask.same else \
               f"No: {who} spoke only once, at {res.say(a.start)} in {_the(ra)}."
        return (REFUSAL if check(text, res) else text), res
    same = ra == rb
    yes = same if ask.same else not same
    first, second = _word(ask.turns[0]), _word(ask.turns[1])
    if same:
        detail = f"{who}'s {first} turn (at {res.say(a.start)}) and {second} turn (at {res.say(b.start)}) were both " \
                 f"in {_the(ra)}"
    else:
        detail = f"{who}'s {first} turn (at {res.say(a.start)}) was in {_the(ra)}, their {second} (at " \
                 f"{res.say(b.start)}) in {_the(rb)}"
    text = f"{'Yes' if yes else 'No'}: {detail}."
    return (REFUSAL if check(text, res) else text), res
