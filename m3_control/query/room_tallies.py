"""Turns counted per room, over rooms: "on average, how many turns were there per room?", "what was the mean number of
turns per room?" (``mean``), and people by their turns in two rooms: "how many people spoke exactly as often in the
garden as in the porch?", "how many people took the same number of turns in the office as in the workshop?"
(``same``).

One frame selects everyone's voice turns; each is placed in the room the robot was in when it began
(:meth:`QueryExecutor.place_turns`); rooms are those the robot stayed in (:func:`.robot_track.visits`), a room with
nobody heard counted as none. The answer gives each room's (person's) counts, checked against that result.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, _cap, _join, check, phrase
from .result import QueryResult
from .robot_track import room_named, visits
from .words import the_place, times_word

_MEAN = re.compile(r"\b(?:average|mean|typical)\s+(?:number\s+of\s+)?(?:turns|utterances|times\s+someone\s+spoke)\s+"
                   r"(?:per|in\s+each|for\s+each|a)\s+(?:room|place)\b|\b(?:on\s+average|in\s+the\s+mean)\b[^?]*?\b"
                   r"(?:turns|utterances)\b[^?]*?\b(?:per|each|every|a)\s+(?:room|place)\b", re.IGNORECASE)
_SAME = re.compile(r"^\W*(?:how\s+many|which|who)\b[^?]*?\b(?:(?:exactly\s+)?as\s+(?:often|many\s+times|many\s+turns)|"
                   r"the\s+same\s+number\s+of\s+(?:turns|times))\s+in\s+(?:the\s+)?(?P<a>[a-z]+(?:\s+room)?)\s+as\s+in\s+"
                   r"(?:the\s+)?(?P<b>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)


@dataclass(frozen=True)
class RoomTalliesAsk:
    kind: str                        # mean | same
    rooms: tuple[str, ...] = ()      # same: the two rooms as written
    how_many: bool = False           # same: a count (else who)


def asks_room_tallies(question: str) -> RoomTalliesAsk | None:
    if _MEAN.search(question):
        return RoomTalliesAsk("mean")
    m = _SAME.search(question)
    if m is not None:
        return RoomTalliesAsk("same", (m.group("a"), m.group("b")), bool(re.match(r"^\W*how\s+many", question, re.I)))
    return None


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's window (the rooms are the robot's track)."""
    return Query(find="who", act="spoke", from_=q.from_, to=q.to)


def answer(executor: QueryExecutor, q: Query, ask: RoomTalliesAsk,
           before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    rooms = list(dict.fromkeys(p for p, _, _ in visits(executor.store, before_time)))
    if not rooms:
        return "I have no record of the rooms I was in.", res
    executor.place_turns(res, turns)
    per_room = Counter(res.places.get(e.id) for e in turns)
    res.place_counts = {r: per_room.get(r, 0) for r in rooms}
    unplaced = len(turns) - sum(res.place_counts.values())
    if ask.kind == "mean":
        mean = sum(res.place_counts.values()) / len(rooms)
        said = f"{mean:.1f}".rstrip("0").rstrip(".")
        res.value = (len(turns), len(rooms), unplaced)
        res.seconds = {**res.seconds, -1: round(mean, 1), -2: int(round(mean))}
        res.steps.append({"step": "turns per room", "rooms": dict(res.place_counts)})
        each = "; ".join(f"{the_place(r)} {res.place_counts[r]}" for r in rooms)
        extra = f"; {unplaced} more in no room I know" if unplaced else ""
        text = f"{said} turns per room on average: {sum(res.place_counts.values())} turns in {len(rooms)} rooms " \
            f"({each}{extra})."
        return (REFUSAL if check(text, res) else text), res
    named = [room_named(rooms, w) for w in ask.rooms]
    if any(r is None for r in named):
        word = next(w for w, r in zip(ask.rooms, named, strict=True) if r is None)
        return f"I can't tell: I was never in a place called the {word.split()[0].lower()}.", res
    a, b = named
    people = list(dict.fromkeys(e.character_id for e in turns))
    counts = {c: (sum(1 for e in turns if e.character_id == c and res.places.get(e.id) == a),
                  sum(1 for e in turns if e.character_id == c and res.places.get(e.id) == b)) for c in people}
    same = [c for c in people if counts[c][0] == counts[c][1]]
    res.value = (len(same), len(people), *(n for c in people for n in counts[c]))
    res.steps.append({"step": f"each person's turns in the {a} and the {b}", "same": len(same)})
    res.events = [e for e in turns if e.character_id in same] + [e for e in turns if e.character_id not in same]

    def one(c: int) -> str:
        x, y = counts[c]
        return f"{res.describe[c]} ({times_word(x)} in {the_place(a)}, {times_word(y)} in {the_place(b)})"

    others = "; ".join(one(c) for c in people if c not in same)
    tail = f"; the others: {others}" if others else ""
    if not same:
        text = f"{'None' if ask.how_many else 'Nobody'}: nobody spoke as often in {the_place(a)} as in " \
            f"{the_place(b)}{tail}."
    else:
        lead = f"{len(same)}: " if ask.how_many else ""
        text = f"{lead}{_join([one(c) for c in same])} spoke as often in {the_place(a)} as in {the_place(b)}{tail}."
    text = _cap(text.replace("no times", "never").replace("0 times", "never"))
    return (REFUSAL if check(text, res) else text), res
