""""How long was I in the house before I went into the office?", "how long had I been here before I entered the
lab?": the robot's own time from the start of its track to its first arrival in a place, with the rooms it was in
meanwhile.

No frame says it: ``find=how_long`` without a place or a person is people's talk, and "the house" is no place the
memory knows. Code reads the arrival from the track (the frame ``find=when place=...``, whose result the answer is
checked against) and the time before it from the poses.
"""

from __future__ import annotations

import re

from m3_memory.store.where import track_between

from .execute import QueryExecutor
from .frame import Query
from .moves import _ENTER
from .phrase import REFUSAL, check, phrase
from .result import QueryResult
from .robot_track import robot_seconds_by_place
from .words import HOW_LONG, cap, join, seconds_word, the_place

# "was I in the house", "had I been here", "did I spend around": anywhere, not a room
_ABOUT = r"(?:in\s+(?:the|this|my|our)\s+(?:house|home|building|flat|apartment)|here|around|about|awake|up|on)"
_BEFORE_MOVE = re.compile(rf"^\W*(?:for\s+)?{HOW_LONG}\s+(?:(?:was|were|had|have)\s+(?:i|we)\s+(?:been\s+)?{_ABOUT}|"
                          rf"did\s+(?:i|we)\s+(?:spend|stay|wait)(?:\s+{_ABOUT})?)\s+before\s+(?:i|we)\s+(?:first\s+)?"
                          rf"(?:{_ENTER})\s+(?:the\s+)?(?P<place>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)


def asks_before_move(question: str) -> str | None:
    """The place the robot went into, when the question asks how long it had been about before that, else None."""
    m = _BEFORE_MOVE.search(question)
    return m.group("place").lower() if m else None


def prepare(place: str) -> Query:
    """The frame that runs: the robot's first arrival in the place."""
    return Query(find="when", place=place, pick="first")


def answer(executor: QueryExecutor, q: Query, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(q, before_time)
    if res.status != "ok" or not res.value:
        return phrase(res), res
    arrived = float(sorted(res.value)[0])
    track = track_between(executor.store, None, arrived)
    if not track:
        return f"I have no record of where I was before I got to the {q.place} ({res.say(arrived)}).", res
    start = track[0].t
    secs = int(round(arrived - start))
    rooms = {p: s for p, s in robot_seconds_by_place(executor.store, start, arrived).items() if s > 0}
    res.steps.append({"step": "the robot's track before its arrival", "from": round(start, 1),
                      "to": round(arrived, 1), "seconds": rooms})
    res.value = (secs, *rooms.values())      # the numbers the answer states, its times on the track:
    res.robot_places = [(start, next(iter(rooms), "")), (arrived, q.place or "")]
    where = f"; until then I was in {join([f'{the_place(p)} ({seconds_word(s)})' for p, s in rooms.items()])}" \
        if rooms else ""
    text = f"{cap(seconds_word(secs))}: my record of where I was begins at {res.say(start)}, and I got to the " \
           f"{res.query.place} at {res.say(arrived)}{where}."
    return (REFUSAL if check(text, res) else text), res
