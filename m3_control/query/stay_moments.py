"""A moment the question gives as a time into one of the robot's stays: "did A speak in the garage after I had been
there for 20 seconds?", "who spoke once I had been in the lab for a minute?", "how many people had spoken before I had
been in the porch for half a minute?". It is resolved before the model reads the question, from the robot's pose
track: the robot's first arrival in that place plus the time said, written as a clock time the frame reads as any
other ("after 0:20"). The resolution is in the trace (``stay_moment``); a place the robot never stayed in, or a stay
shorter than the time said, is answered as such, not guessed.

A window at an edge of a stay is resolved the same way: "did B speak in the last 20 seconds of my time in the porch?",
"in my first 20 seconds in the bedroom, how many turns did I hear?", "was A heard during my final 20 seconds in the
kitchen?" read "between 0:05 and 0:25" (the first stay there for the first seconds, the last for the last; a stay
shorter than the time said is the whole stay, and the trace says so; a stay still going on ends at the last input the
memory holds).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from m3_memory.store.where import robot_stays

from .robot_track import visits

_AMOUNT = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10, "fifteen": 15,
           "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60}
_LENGTH = r"(?:(?P<half{0}>half\s+a\s+minute)|(?P<n{0}>\d+(?:\.\d+)?|" + "|".join(_AMOUNT) + r")\s+" \
    r"(?P<unit{0}>seconds?|secs?|minutes?|mins?))"
_STAY = re.compile(r"\b(?P<rel>after|before|once|until|till|by\s+the\s+time|when)\s+(?:i|we|you)\s+(?:had\s+|have\s+)?"
                   r"(?:been\s+(?:(?:in|at|inside)\s+the\s+(?P<place>[a-z]+(?:\s+room)?)|there|here)\s+for\s+(?:about\s+)?"
                   + _LENGTH.format("") + r"|spent\s+(?:about\s+)?" + _LENGTH.format("2") + r"\s+(?:in|at|inside)\s+"
                   r"the\s+(?P<place2>[a-z]+(?:\s+room)?))\b", re.IGNORECASE)   # ("after I had spent 10 s in the lab")
# "in the last 20 seconds of my time in the porch", "my first 20 seconds in the bedroom", "during the final minute I
# spent in the lab", "in the first 30 seconds of my stay in the garden"
_EDGE = re.compile(r"\b(?:(?:in|during|within|over|throughout)\s+)?(?:the\s+(?P<edge>first|last|final|opening|"
                   r"closing)\s+" + _LENGTH.format("") +
                   r"\s+(?:of\s+(?:my|our)\s+(?:time|stay|visit)\s+(?:in|at|inside|to)|"
                   r"(?:that\s+)?(?:i|we)\s+(?:spent|was|were|stayed)\s+(?:in|at|inside))|(?:my|our)\s+"
                   r"(?P<edge2>first|last|final|opening|closing)\s+" + _LENGTH.format("2") +
                   r"\s+(?:in|at|inside))\s+the\s+(?P<place>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)
_REL = {"once": "after", "by the time": "before", "till": "until", "when": "at"}


@dataclass
class StayMoment:
    said: str                 # the question's words for the moment
    at: float | None          # the moment (stream seconds; None: there is no such moment)
    why: str                  # how it was found, or why there is none

    def trace(self) -> dict[str, Any]:
        return {"said": self.said, "at": self.at, "why": self.why}


def resolve(question: str, executor: Any, before_time: float | None) -> tuple[str, StayMoment | None]:
    """(the question with the moment as a clock time, the resolution) or (the question unchanged, None)."""
    m = _STAY.search(question)
    if m is None:
        return _edge_window(question, executor, before_time)
    stays = robot_stays(executor.store, before_time)
    names = {p for p, _, _ in stays}
    place = (m.group("place") or m.group("place2") or "").lower() or _place_before(question[:m.start()], names)
    low = m.group(0).lower()
    said = m.group(0)[low.index("been") if "been" in low else low.index("spent"):]
    if place is None:
        return question, StayMoment(said, None, "I cannot tell which place you mean")
    first = next(((start, end) for p, start, end in stays if p.lower() == place), None)
    if first is None:
        return question, StayMoment(said, None, f"I was never in the {place}")
    seconds = _length_said(m)
    start, end = first
    timeline = executor.store.timeline()   # (read once: the clock times below are said on it)
    now = timeline.now(before_time)

    def say(t: float) -> str:
        return timeline.say(t, now)

    if end is None and now is not None and start + seconds > now:   # still there, not that long yet
        return question, StayMoment(said, None, f"I have been in the {place} for {round(now - start)} seconds so far")
    if end is not None and start + seconds > end:
        return question, StayMoment(said, None, f"I stayed in the {place} for {round(end - start)} seconds the first "
                                                f"time ({say(start)} to {say(end)})")
    at = start + seconds
    rel = _REL.get(re.sub(r"\s+", " ", m.group("rel").lower()), m.group("rel").lower())
    clock = say(at)
    asked = question[:m.start()] + f"{rel} {clock}" + question[m.end():]
    return asked, StayMoment(said, at, f"I got to the {place} at {say(start)}")


def _length_said(m: re.Match) -> float:
    """The seconds of a :data:`_LENGTH` the match holds (either of its two spellings: ``n`` / ``n2``)."""
    half, amount, unit = m.group("half") or m.group("half2"), m.group("n") or m.group("n2"), \
        m.group("unit") or m.group("unit2")
    n = 30.0 if half else float(_AMOUNT.get(amount.lower(), 0) or amount)
    return n * 60 if (unit or "").lower().startswith("min") else n


def _edge_window(question: str, executor: Any, before_time: float | None) -> tuple[str, StayMoment | None]:
    """"The last 20 seconds of my time in the porch": (the question with that window as two clock times, the
    resolution), or (the question unchanged, None) where it names no such window."""
    m = _EDGE.search(question)
    if m is None:
        return question, None
    stays = visits(executor.store, before_time)   # (a moment driving through a place is no time there)
    place = m.group("place").lower()
    mine = [(start, end) for p, start, end in stays if p.lower() == place]
    said = m.group(0)[re.match(r"(?:(?:in|during|within|over|throughout)\s+)?", m.group(0), re.IGNORECASE).end():]
    if not mine:
        if {p.lower() for p, _, _ in stays} and place not in {p.lower() for p, _, _ in stays}:
            return question, StayMoment(said, None, f"I was never in the {place}")
        return question, None
    first = (m.group("edge") or m.group("edge2")).lower() in ("first", "opening")
    seconds = _length_said(m)
    start, end = mine[0] if first else mine[-1]
    timeline = executor.store.timeline()
    now = timeline.now(before_time)
    if end is None:   # still there: the stay so far, to the last input the memory holds
        end = executor.store.perceived_until(before_time) or now or start
    a, b = (start, min(end, start + seconds)) if first else (max(start, end - seconds), end)
    why = f"I was in the {place} from {timeline.say(start, now)} to {timeline.say(end, now)}"
    if end - start < seconds:
        why += f" (only {round(end - start)} seconds: the window is the whole stay)"
    asked = question[:m.start()] + f"between {timeline.say(a, now)} and {timeline.say(b, now)} in the " \
        f"{m.group('place')}" + question[m.end():]
    return asked, StayMoment(said, a, why)


def _place_before(text: str, names: set[str]) -> str | None:
    """The place "there" stands for: the last one the question names before it."""
    known = {n.lower() for n in names}
    found = [m for m in re.finditer(r"\bthe\s+([a-z]+(?:\s+room)?)\b", text, re.IGNORECASE)
             if m.group(1).lower() in known]
    # (else the last place the question puts anyone in: one the robot never went to)
    found = found or list(re.finditer(r"\b(?:in|at|inside)\s+the\s+([a-z]+(?:\s+room)?)\b", text, re.IGNORECASE))
    return found[-1].group(1).lower() if found else None

