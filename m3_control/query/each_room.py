"""Each room, or each move of the robot's, at once: "who was the first to speak in each room?", "what was the last
thing said in each room?", "who spoke first after each time I changed rooms?", "each time I moved to a new room, who
was the first to talk?".

One frame selects everyone's voice turns; the robot's stays (:func:`.robot_track.visits`) give each room's time (a
room visited twice is one room, its turns in both stays) and each arrival. The answer lists every room (arrival) with
its first (last) turn: the person and, for "what", the words; a room with nobody heard is said so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, _cap, check, phrase
from .result import QueryResult
from .robot_track import began_in, visits
from .words import the_place

_EACH_ROOM = re.compile(r"\b(?P<w>first|last|final)\b[^?]*?\b(?:in|of|for)\s+(?:each|every)\s+(?:one\s+)?(?:of\s+"
                        r"(?:the|my)\s+)?(?:rooms?|places?)\b", re.IGNORECASE)
_EACH_MOVE = re.compile(r"\b(?:after\s+)?(?:each|every)\s+time\s+(?:I|we)\s+(?:changed\s+rooms?|moved|went|entered|"
                        r"arrived|got)\b|\b(?:after\s+)?(?:each|every)\s+(?:move|room\s+change|arrival)\b",
                        re.IGNORECASE)


# "in which room did the first turn come soonest after I arrived?", "which room had the shortest wait from my arrival
# to the first turn?": each room's wait from the arrival to its first turn, ranked
_SOONEST = re.compile(r"^\W*(?:in\s+)?(?:which|what)\s+(?:room|place)\b(?=[^?]*\b(?:arriv\w*|got\s+there|entered|"
                      r"came\s+in)\b)[^?]*?\b(?P<w>soonest|quickest|fastest|shortest|latest|longest|slowest)\b",
                      re.IGNORECASE)


@dataclass(frozen=True)
class EachRoomAsk:
    last: bool        # the last turn (else the first)
    moves: bool       # after each arrival (else in each room)
    words: bool       # what was said (else who)
    wait: str = ""    # "soonest" / "latest": the rooms ranked by the wait from arrival to their first turn


def asks_each_room(question: str) -> EachRoomAsk | None:
    words = bool(re.match(r"^\W*what\b", question, re.IGNORECASE))
    soon = _SOONEST.search(question)
    if soon is not None and re.search(r"\b(?:first\s+(?:turn|words|speaker|person)|anyone|someone|somebody)\b",
                                      question, re.IGNORECASE):
        late = soon.group("w").lower() in ("latest", "longest", "slowest")
        return EachRoomAsk(False, True, False, wait="latest" if late else "soonest")
    m = _EACH_ROOM.search(question)
    if m is not None:
        return EachRoomAsk(m.group("w").lower() != "first", False, words)
    if _EACH_MOVE.search(question) and re.search(r"\bfirst\b", question, re.IGNORECASE):
        return EachRoomAsk(False, True, words)
    return None


def prepare(q: Query) -> Query:
    """Everyone's voice turns (the rooms and moves are the robot's track)."""
    return Query(find="who", act="spoke")


def answer(executor: QueryExecutor, q: Query, ask: EachRoomAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(Query(find="who", act="spoke"), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    stays = visits(executor.store, before_time)
    if not stays:
        return "I have no record of the rooms I was in.", res
    end = executor.store.perceived_until(before_time) or (turns[-1].end if turns else 0.0)
    spans: list[tuple[str, list]] = []     # (what the answer calls it, the turns in it)
    if ask.moves:
        for place, a, b in stays[1:]:
            mine = [e for e in turns if a <= e.start < (b if b is not None else end + 1)]
            spans.append((f"after I entered {the_place(place)} ({res.say(a)})", mine))
        if not spans:
            return f"I never changed rooms: I was in {the_place(stays[0][0])} all along.", res
    else:
        for place in dict.fromkeys(s[0] for s in stays):
            mine = [e for e in turns if began_in(e, place, stays, end)]
            spans.append((f"in {the_place(place)}", mine))
    if ask.wait:
        return _waits(res, turns, stays, end, ask.wait == "latest")
    picked = [(said, (mine[-1] if ask.last else mine[0]) if mine else None) for said, mine in spans]
    chosen = [e for _, e in picked if e is not None]
    res.events = chosen + [e for e in res.events if e not in chosen]
    word = "last" if ask.last else "first"
    res.steps.append({"step": f"the {word} turn " + ("after each move" if ask.moves else "in each room"),
                      "spans": len(spans)})

    def one(said: str, e) -> str:  # noqa: ANN001
        if e is None:
            return f"{said}: nobody spoke"
        who = res.describe[e.character_id]
        return f'{said}: {who}, "{e.text.strip().rstrip(".!?")}" (at {res.say(e.start)})' if ask.words else \
            f"{said}: {who} (at {res.say(e.start)})"

    lead = f"The {word} {'words' if ask.words else 'speaker'} "
    text = lead + "; ".join(one(said, e) for said, e in picked) + "."
    moved = {res.say(a) for _, a, _ in stays[1:]} if ask.moves else set()   # the arrivals' times (the track's)
    problems = [p for p in check(text, res) if not p.startswith("count not in the result") and
                not (p.startswith("time not in the result") and p.split(": ", 1)[1] in moved)]
    return (REFUSAL if problems else _cap(text)), res


def _waits(res: QueryResult, turns: list, stays: list, end: float, latest: bool) -> tuple[str, QueryResult]:
    """"The porch: the first turn came 0.9 seconds after I arrived (the soonest); each room: the porch 0.9 seconds
    (...); the lab 1.0 seconds (...)."
    (each stay's first turn begun in it; a room entered twice counted from each arrival, its quickest)."""
    waits: dict[str, tuple[float, float, object]] = {}
    for place, a, b in stays:
        first = next((e for e in turns if a <= e.start < (b if b is not None else end + 1)), None)
        if first is not None and (place not in waits or first.start - a < waits[place][0]):
            waits[place] = (first.start - a, a, first)
    if not waits:
        return "I heard nobody in any room I was in.", res
    order = sorted(waits, key=lambda p: waits[p][0], reverse=latest)
    res.events = [waits[p][2] for p in order] + [e for e in res.events if all(e is not waits[p][2] for p in order)]
    res.seconds = {**res.seconds, **{-1 - i: round(waits[p][0], 1) for i, p in enumerate(order)}}
    res.robot_places += [(waits[p][1], p) for p in order]

    def one(p: str) -> str:
        d, a, e = waits[p]
        return f"{the_place(p)} {d:.1f} seconds (I arrived at {res.say(a)}, {res.describe[e.character_id]} spoke at " \
               f"{res.say(e.start)})"

    silent = [p for p in dict.fromkeys(s[0] for s in stays) if p not in waits]
    text = f"{_cap(the_place(order[0]))}: the first turn came {waits[order[0]][0]:.1f} seconds after I arrived" \
           f" ({'the longest' if latest else 'the soonest'}); each room: " + "; ".join(one(p) for p in order) + \
           (f"; nobody spoke in {', '.join(the_place(p) for p in silent)}" if silent else "") + "."
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else text), res
