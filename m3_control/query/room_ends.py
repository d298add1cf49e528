""""Was the first speaker in the kitchen also the first in the lab?", "did the same person speak first in both
rooms?", "was the last person to speak in the office the first one in the garage?", "who spoke first in every room?":
one room's first (last) speaker against another's; and "did the conversation start in the kitchen?": the room of the
first (last) words of all. A frame picks one rank in one place, so this places every voice
turn on the robot's track, takes each room's first (last) turn, and compares the people. "Both rooms" / "every room"
are the rooms the turns were placed in, in the order the robot went; a room the memory does not hold is said. The
answer names each room's turn it compared (person, time), checked against the result like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, _join, check, phrase
from .polarity import YES_NO_QUESTION
from .result import QueryResult
from .rooms import places_named
from .turn_sequence import people_in

_RANK = r"(?P<{0}>first|last|final|opening|closing)"
_ONE = r"(?:speaker|person|one|voice|man|woman)"
_ROOM = r"(?:the\s+|my\s+)?(?P<{0}>[a-z]+(?:\s+room)?)"
# "the first speaker in the kitchen ... also the first (one) in the lab", "the last person to speak in A ... the
# first in B", "the person who spoke first in A ... also speak first in B"
_TWO = re.compile(rf"\b(?:{_RANK.format('w1')}\s+{_ONE}(?:\s+(?:to\s+(?:speak|talk)|(?:i\s+)?heard))?|{_ONE}\s+"
                  rf"(?:who|that)\s+(?:spoke|talked)\s+{_RANK.format('w1b')})\s+(?:in|at)\s+{_ROOM.format('p1')}\b"
                  rf"[^?]*?\b(?:also\s+|as\s+well\s+as\s+)?(?:the\s+|speak\s+|spoke\s+|talk\s+)?{_RANK.format('w2')}"
                  rf"(?:\s+{_ONE})?(?:\s+(?:to\s+(?:speak|talk)|(?:i\s+)?heard))?\s+(?:in|at)\s+{_ROOM.format('p2')}\b",
                  re.IGNORECASE)
# "did the same person speak first in both rooms?", "... in the kitchen and the lab?", "who spoke first in every room?"
_SAME = re.compile(rf"\b(?:(?P<same>same\s+{_ONE})\s+(?:(?:speak|spoke|talk|talked)\s+)?|^\W*who\s+(?:spoke|talked)\s+)"
                   rf"{_RANK.format('w')}\s+in\s+(?:(?P<all>both|all|each|every)\s+(?:of\s+)?(?:the\s+|my\s+)?(?:two\s+|"
                   rf"three\s+)?(?:rooms?|places?)|(?:both\s+)?{_ROOM.format('a')}\s+and\s+(?:in\s+)?{_ROOM.format('b')})",
                   re.IGNORECASE)


# "did the conversation start in the kitchen?", "was the talking over in the garden?": the first (last) words' room
_EDGE_IN = re.compile(r"^\W*(?:did|was|does|has|had)\s+(?:the\s+)?(?:talk|talking|conversation|speaking|chat|chatting|"
                      r"discussion|speech)\s+(?:\w+\s+)?(?P<edge>start|begin|end|finish|stop|started|began|ended|"
                      r"finished|stopped|over)\s+(?:in|at)\s+" + _ROOM.format("p") + r"\b", re.IGNORECASE)

# "was A ever the last speaker in a room?", "did B speak first in any room?": one person against every room's end
_EVER = re.compile(rf"^\W*(?:was|were|is|did|has|had)\b[^?]*?\b(?:{_RANK.format('w')}\s+(?:(?:{_ONE})(?:\s+to\s+"
                   rf"(?:speak|talk))?|to\s+(?:speak|talk))|(?:speak|spoke|talk|talked)\s+{_RANK.format('w2')})\s+(?:in|at)\s+(?:a|any|some|"
                   rf"one\s+of\s+the)\s+(?:rooms?|places?)\b", re.IGNORECASE)


@dataclass(frozen=True)
class RoomEnds:
    ranks: tuple[str, ...]          # first | last, per room compared
    rooms: tuple[str, ...]          # the question's words for each room ("": every room the turns were placed in)
    who: bool = False               # "who spoke first in every room?": the person, not a yes or no
    edge: bool = False              # "did the conversation start in the kitchen?": the first (last) words of all
    person: str | None = None       # "was A ever the last speaker in a room?": their words or name


def _rank(w: str) -> str:
    return "last" if w.lower() in ("last", "final", "closing") else "first"


def asks_room_ends(question: str) -> RoomEnds | None:
    m = _EDGE_IN.search(question)
    if m is not None:
        first = m.group("edge").lower().startswith(("start", "begin", "began"))
        return RoomEnds(("first" if first else "last",), (m.group("p"),), edge=True)
    m = _EVER.search(question)
    if m is not None and len(people := people_in(question)) == 1:
        return RoomEnds((_rank(m.group("w") or m.group("w2")),), ("",), person=people[0])
    m = _TWO.search(question)
    if m is not None:
        return RoomEnds((_rank(m.group("w1") or m.group("w1b")), _rank(m.group("w2"))), (m.group("p1"), m.group("p2")))
    m = _SAME.search(question)
    if m is not None:
        rank = _rank(m.group("w"))
        rooms = ("",) if m.group("all") else (m.group("a"), m.group("b"))
        return RoomEnds((rank,) * max(2, len(rooms)), rooms, who=m.group("same") is None)
    return None


def prepare(q: Query) -> Query:
    return Query(find="who", act="spoke", from_=q.from_, to=q.to)


def answer(executor: QueryExecutor, q: Query, ask: RoomEnds, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return REFUSAL, res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.end, e.id))
    executor.place_turns(res, turns)
    placed = res.places_of(turns)
    if ask.rooms == ("",):
        rooms, ranks = placed, [ask.ranks[0]] * len(placed)
    else:
        named, ranks = places_named(executor, res, ask.rooms), list(ask.ranks)
        if isinstance(named, str):
            return named, res
        rooms = named
    if ask.edge:
        return _edge_in(res, turns, ranks[0], rooms[0])
    if ask.person is not None:
        return _ever_end(executor, res, turns, ranks[0], rooms, ask.person, before_time)
    ends = []
    for room, rank in zip(rooms, ranks, strict=True):
        there = [e for e in turns if res.places.get(e.id) == room]
        ends.append((room, rank, (there[0] if rank == "first" else there[-1]) if there else None))
    res.events = [e for _, _, e in ends if e is not None]
    res.steps.append({"step": "room ends", "rooms": [(r, k, e.id if e else None) for r, k, e in ends]})
    if len(rooms) < 2:
        one = f"I only heard people in one place (the {rooms[0]})." if rooms else "I heard nobody in a named place."
        return one, res
    silent = [r for r, _, e in ends if e is None]
    if silent:
        return f"I heard nobody in {_join([f'the {r}' for r in silent])}.", res
    told = _join([f"{res.describe[e.character_id]} spoke {k} in the {r} (at {res.say(e.start)})"
                  for r, k, e in ends])
    same = len({e.character_id for _, _, e in ends}) == 1
    res.value = same
    if ask.who:
        every = f"{'both' if len(ends) == 2 else 'every one of'} {_join([f'the {r}' for r, _, _ in ends])}"
        text = f"{res.describe[ends[0][2].character_id]} spoke {ends[0][1]} in {every}: {told}." if same else \
            f"Nobody spoke {ends[0][1]} in {every}: {told}."
        text = text[0].upper() + text[1:]
    elif YES_NO_QUESTION.match(question):
        text = f"{'Yes' if same else 'No'}: {told}."
    else:
        text = f"{'The same person' if same else 'Not the same person'}: {told}."
    return (REFUSAL if check(text, res) else text), res


def _edge_in(res: QueryResult, turns: list, rank: str, room: str) -> tuple[str, QueryResult]:
    """"Did the conversation start in the kitchen?": the room of the first (last) words of all."""
    if not turns:
        return "I heard nobody.", res
    e = turns[0] if rank == "first" else turns[-1]
    res.events = [e]
    there = res.places.get(e.id)
    res.value = there == room
    res.steps.append({"step": f"talk {'started' if rank == 'first' else 'ended'} in", "turn": e.id, "room": there})
    words = "first words" if rank == "first" else "last words"
    said = f"the {words}, by {res.describe[e.character_id]} at {res.say(e.start)}, were"
    text = f"Yes: {said} in the {room}." if there == room else \
        f"No: {said} in the {there}." if there else f"No: {said} not in a place I know."
    return (REFUSAL if check(text, res) else text), res


def _ever_end(executor: QueryExecutor, res: QueryResult, turns: list, rank: str, rooms: list[str], person: str,
              before_time: float | None) -> tuple[str, QueryResult]:
    """"Was A ever the last speaker in a room?": each room's first (last) turn; yes where one of them is A's."""
    own = executor.run(Query(find="who", who=person, act="spoke"), before_time)
    if own.status != "ok":
        return phrase(own), own
    cid = own.who["who"].character_id
    res.who, d = own.who, res.describe[cid]  # type: ignore[index]
    ends = [(room, there[0] if rank == "first" else there[-1]) for room in rooms
            if (there := [e for e in turns if res.places.get(e.id) == room])]
    res.events = [e for _, e in ends]
    mine = [(r, e) for r, e in ends if e.character_id == cid]
    res.value = bool(mine)
    if not ends:
        return "I heard nobody in a named place.", res
    if mine:
        text = f"Yes: {d} spoke {rank} in {_join([f'the {r} (at {res.say(e.start)})' for r, e in mine])}."
    else:
        told = "; ".join(f"the {r}: {res.describe[e.character_id]} at {res.say(e.start)}" for r, e in ends)
        text = f"No, {d} spoke {rank} in no room ({told})."
    return (REFUSAL if check(text, res) else text), res
