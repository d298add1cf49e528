"""A moment the question gives as a time into one of the robot's stays: "did A speak in the garage after I had been
there for 20 seconds?", "who spoke once I had been in the lab for a minute?", "how many people had spoken before I had
been in the porch for half a minute?". It is resolved before the model reads the question, from the robot's pose
track: the robot's first arrival in that place plus the time said, written as a clock time the frame reads as any
other ("after 0:20"). The resolution is in the trace (``stay_moment``); a place the robot never stayed in, or a stay
shorter than the time said, is answered as such, not guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from m3_memory.store.where import robot_stays

_AMOUNT = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10, "fifteen": 15,
           "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60}
_LENGTH = r"(?:(?P<half{0}>half\s+a\s+minute)|(?P<n{0}>\d+(?:\.\d+)?|" + "|".join(_AMOUNT) + r")\s+" \
    r"(?P<unit{0}>seconds?|secs?|minutes?|mins?))"
_STAY = re.compile(r"\b(?P<rel>after|before|once|until|till|by\s+the\s+time|when)\s+(?:i|we|you)\s+(?:had\s+|have\s+)?"
                   r"(?:been\s+(?:(?:in|at|inside)\s+the\s+(?P<place>[a-z]+(?:\s+room)?)|there|here)\s+for\s+(?:about\s+)?"
                   + _LENGTH.format("") + r"|spent\s+(?:about\s+)?" + _LENGTH.format("2") + r"\s+(?:in|at|inside)\s+"
                   r"the\s+(?P<place2>[a-z]+(?:\s+room)?))\b", re.IGNORECASE)   # ("after I had spent 10 s in the lab")
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
        return question, None
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
    half, amount, unit = m.group("half") or m.group("half2"), m.group("n") or m.group("n2"), \
        m.group("unit") or m.group("unit2")
    n = 30.0 if half else float(_AMOUNT.get(amount.lower(), 0) or amount)
    seconds = n * 60 if (unit or "").lower().startswith("min") else n
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


def _place_before(text: str, names: set[str]) -> str | None:
    """The place "there" stands for: the last one the question names before it."""
    known = {n.lower() for n in names}
    found = [m for m in re.finditer(r"\bthe\s+([a-z]+(?:\s+room)?)\b", text, re.IGNORECASE)
             if m.group(1).lower() in known]
    # (else the last place the question puts anyone in: one the robot never went to)
    found = found or list(re.finditer(r"\b(?:in|at|inside)\s+the\s+([a-z]+(?:\s+room)?)\b", text, re.IGNORECASE))
    return found[-1].group(1).lower() if found else None

