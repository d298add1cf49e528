"""The robot's own trips: "how long did it take me to get from the garden to the kitchen?", "how long was I moving
between the hallway and the garden?", "how long was the trip from the lab to the office?", "how long was I moving in
total?", "did anyone speak while I was moving?" (the voice turns that overlap a spell of moving).

No frame says it: ``find=how_long`` with a place is the robot's stay there, not the way between two places. Code
reads the robot's stays in named places (:func:`.robot_track.visits`) and its spells of moving from the pose track
(:func:`.robot_track.motions`): a trip from A to B runs from the start of the move that took it out of its last stay
in A to the end of the move that brought it into B; the answer says that time, how much of it was moving, and any
room it stayed in on the way. The times it states are on the track, checked against the result like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from m3_memory.store.where import find_place, load_places

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, check, phrase
from .result import QueryResult
from .robot_track import motions, visits
from .words import cap, join, seconds_word, tenths, the_place

_GO = r"(?:get|go|move|travel|walk|drive|come|reach|make\s+it|ride|roll)"
_GOING = r"(?:getting|going|moving|travell?ing|walking|driving|coming|rolling|on\s+the\s+(?:move|way|road))"
_TRIP = r"(?:trip|journey|move|drive|walk|way|ride|transfer|transit|travel)"
_HOW = r"^\W*(?:for\s+)?how\s+(?:long|much\s+time|many\s+seconds)\s+"
_ASK = re.compile(rf"{_HOW}(?:did\s+it\s+take(?:\s+(?:me|us|the\s+robot))?(?:\s+to)?\s+{_GO}|did\s+(?:i|we)\s+"
                  rf"(?:take|need|spend)\s+(?:to\s+{_GO}|{_GOING})|(?:was|were)\s+(?:i|we)\s+{_GOING}|did\s+(?:i|we)\s+"
                  rf"(?:move|travel|walk|drive|roll)|(?:did|was)\s+(?:my|the|our)\s+{_TRIP})\b(?P<rest>[^?]*)",
                  re.IGNORECASE)
_ROOM = r"(?:the\s+)?(?P<{n}>[a-z]+(?:\s+room)?)"
_FROM_TO = re.compile(rf"\bfrom\s+{_ROOM.format(n='a')}\s+(?:to|into|until|till)\s+{_ROOM.format(n='b')}\b|"
                      rf"\bbetween\s+{_ROOM.format(n='a2')}\s+and\s+{_ROOM.format(n='b2')}\b", re.IGNORECASE)
_TOTAL = re.compile(r"^\s*(?:in\s+(?:total|all)|altogether|overall|all\s+(?:together|told)|during\s+the\s+(?:whole\s+)?"
                    r"recording|in\s+the\s+recording|at\s+all)?\s*[?.!]?\s*$", re.IGNORECASE)


# "did anyone speak while I was moving?", "was anybody talking while I was on the move?": turns during the moves
_SPOKE_MOVING = re.compile(rf"^\W*(?:did|was|were|has|had)\s+(?:anyone|anybody|someone|somebody|people|any\s+one)\s+"
                           rf"(?:speak|talk|say\s+(?:anything|something)|talking|speaking|heard)\b[^?]*?\b(?:while|when|"
                           rf"as)\s+(?:i|we)\s+(?:was|were)\s+{_GOING}\b(?!\s+(?:from|to|into|between|towards?|out|away|"
                           rf"back)\b)", re.IGNORECASE)     # ("... while I was going from A to B?": anchored's)


@dataclass(frozen=True)
class TripAsk:
    rooms: tuple[str, str] | None      # (from, to) as the question words them; None: all its moving
    moving: bool = False               # "how long was I moving ...": the time in motion said first
    speech: bool = False               # "did anyone speak while I was moving?": the turns during the moves


def asks_trip(question: str) -> TripAsk | None:
    if _SPOKE_MOVING.search(question):
        return TripAsk(None, True, speech=True)
    m = _ASK.search(question)
    if m is None:
        return None
    rest = m.group("rest")
    moving = bool(re.search(r"\b(?:moving|travell?ing|on\s+the\s+(?:move|road)|driving|rolling)\b", m.group(0),
                            re.IGNORECASE))
    two = _FROM_TO.search(rest)
    if two is not None:
        a, b = (two.group("a"), two.group("b")) if two.group("a") else (two.group("a2"), two.group("b2"))
        return TripAsk((a.lower(), b.lower()), moving)
    if moving and _TOTAL.match(rest):
        return TripAsk(None, True)
    return None


def answer(executor: QueryExecutor, ask: TripAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(Query(find="when", pick="first"), before_time)     # (a result to say and check times by)
    res.status, res.events, res.near = "ok", [], []
    spells = motions(executor.store, None, before_time)
    if ask.speech:
        return _speech_moving(executor, spells, before_time)
    if ask.rooms is None:
        return _all_moving(res, spells)
    known = load_places(executor.store)
    places = [find_place(known, w) for w in ask.rooms]
    for word, place in zip(ask.rooms, places, strict=True):
        if place is None:
            res.status, res.problem = "unknown_place", word
            return f"I have no place called {word!r} in my memory.", res
    a, b = (p.name for p in places)  # type: ignore[union-attr]
    stays = visits(executor.store, before_time)
    trip = _first_trip(stays, a, b)
    if trip is None:
        back = _first_trip(stays, b, a)
        been = {p for p, _, _ in stays}
        missing = [p for p in (a, b) if p not in been]
        if missing:
            return f"I was never in {join([the_place(p) for p in missing], 'or')}, so I made no trip from " \
                   f"{the_place(a)} to {the_place(b)}.", res
        if back is None:
            return f"I never went from {the_place(a)} to {the_place(b)}.", res
        res.robot_places = [(back[0][2], b), (back[1][1], a)]  # type: ignore[list-item]
        return f"I never went from {the_place(a)} to {the_place(b)}; I went the other way, from {the_place(b)} " \
               f"(left at {res.say(back[0][2])}) to {the_place(a)} (got there at {res.say(back[1][1])}).", res
    (_, _, left), (_, arrived, _), via = trip
    used = [s for s in spells if s[1] >= left - 0.5 and s[0] <= arrived + 0.5] or [(left, arrived)]
    start, end = min(s[0] for s in used), max(s[1] for s in used)
    total, moving = _secs(end - start), _secs(sum(s1 - s0 for s0, s1 in used))
    res.robot_places = [(start, a), (end, b)] + [(t, p) for p, s0, s1 in via for t in (s0, s1)]
    res.seconds = {**res.seconds, -1: total, -2: moving}
    res.value = tuple(x for x in (total, moving) if float(x).is_integer())
    res.steps.append({"step": "the robot's trip", "from": a, "to": b, "start": round(start, 1), "end": round(end, 1),
                      "moving": [(round(s0, 1), round(s1, 1)) for s0, s1 in used]})
    if not via:
        text = f"{cap(seconds_word(total))}: I left {the_place(a)} at {res.say(start)} and got to {the_place(b)} at " \
               f"{res.say(end)}."
    else:
        stops = join([f"{the_place(p)} (from {res.say(s0)} to {res.say(s1)})" for p, s0, s1 in via])
        lead = f"{cap(seconds_word(moving))} moving, {seconds_word(total)} in all" if ask.moving else \
            f"{cap(seconds_word(total))} in all, {seconds_word(moving)} of it moving"
        text = f"{lead}: I left {the_place(a)} at {res.say(start)} and got to {the_place(b)} at {res.say(end)}, " \
               f"staying in {stops} on the way."
    return (REFUSAL if check(text, res) else text), res


def _first_trip(stays: list, a: str, b: str) -> tuple | None:
    """The robot's first arrival in ``b`` after a stay in ``a``: (the last stay in ``a`` before it, the stay in
    ``b``, the stays between them), else None."""
    for i, stay in enumerate(stays):
        if stay[0] != b:
            continue
        before = [j for j in range(i) if stays[j][0] == a and stays[j][2] is not None]
        if before:
            j = before[-1]
            return stays[j], stay, [s for s in stays[j + 1:i] if s[2] is not None]
    return None


def _secs(x: float) -> float | int:
    """Seconds as the answer says them: tenths under ten seconds, whole seconds above."""
    return tenths(x) if x < 10 else int(round(x))


def _all_moving(res: QueryResult, spells: list[tuple[float, float]]) -> tuple[str, QueryResult]:
    """"How long was I moving in total?": every spell of moving, added up."""
    if not spells:
        return "I did not move: my track shows me standing still.", res
    total = _secs(sum(b - a for a, b in spells))
    res.robot_places = [(t, "") for s in spells for t in s]
    res.seconds = {**res.seconds, -1: total, **{-2 - i: _secs(b - a) for i, (a, b) in enumerate(spells)}}
    res.value = (len(spells),)
    each = join([f"{res.say(a)} to {res.say(b)}" for a, b in spells])
    n = len(spells)
    text = f"{cap(seconds_word(total))} in all, in {n} move{'s' if n != 1 else ''}: {each}."
    return (REFUSAL if check(text, res) else text), res


def _speech_moving(executor: QueryExecutor, spells: list[tuple[float, float]],
                   before_time: float | None) -> tuple[str, QueryResult]:
    """"Did anyone speak while I was moving?": the voice turns that overlap a spell of moving; where none did, the
    moves and the turns either side of each said."""
    res = executor.run(Query(find="who", act="spoke"), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    if not spells:
        return "I did not move: my track shows me standing still, so nobody spoke while I was moving.", res
    during = [e for e in turns if any(e.start < b and e.end > a for a, b in spells)]
    res.robot_places = [(t, "") for s in spells for t in s]
    moves = join([f"{res.say(a)} to {res.say(b)}" for a, b in spells])
    if during:
        res.events = during + [e for e in res.events if e not in during]
        said = join([f"{res.describe[e.character_id]} at {res.say(e.start)}" for e in during])
        text = f"Yes: {said}, while I was moving ({moves})."
    else:
        near = [e for a, b in spells
                for e in [t for t in turns if t.end <= a][-1:] + [t for t in turns if t.start >= b][:1]]
        res.events = near + [e for e in res.events if e not in near]
        side = "; ".join(f"{res.describe[e.character_id]} at {res.say(e.start)}, ending at {res.say(e.end)}"
                         for e in near)
        text = f"No: nobody spoke while I was moving ({moves})" + (f"; the nearest words: {side}." if near else ".")
    return (REFUSAL if check(text, res) else text), res
