"""The robot's own time in two places compared: "where did I spend more time, the kitchen or the lab?", "did I
spend more time in the kitchen than in the lab?", "was I longer in the office or in the garage?".

No frame field compares two places' stays (``find=where pick=most measure=time`` ranks every room; "which of the
rooms did I spend more time in?" is that frame, see question_forms.py), so this measures the robot's track inside
each of the two places the question names (:func:`.robot_track.robot_time_in`, up to the question's moment) and
compares them. A place the memory does not know is said so; the answer names both places with their seconds,
checked against that result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, check
from .polarity import YES_NO_QUESTION
from .result import QueryResult
from .robot_track import robot_time_in
from .rooms import places_named
from .wording import QUOTED
from .words import seconds_word

# the robot is the one who stayed: "did I spend", "was I ... longer", "I stayed", "my time in the kitchen"
_ROBOT_STAY = re.compile(r"\b(?:did|have|had)\s+(?:i|we)\s+(?:spend|stay|remain|be)\b|\b(?:was|were)\s+(?:i|we)\b|"
                         r"\b(?:i|we)\s+(?:spent|stayed|remained)\b|\b(?:my|our)\s+(?:time|stay|visit)\s+(?:in|at|inside)\b",
                         re.IGNORECASE)
_COMPARED = re.compile(r"\b(?:(?P<more>more\s+time|longer)|(?P<less>less\s+time|shorter))\b", re.IGNORECASE)
# a place the question names: "in the kitchen", ", the kitchen or the lab", "than in the garage"
_PLACE = re.compile(r"(?:\b(?:in|at|or|than|and|inside)|,)\s+(?:in\s+|at\s+|inside\s+)?(?:the|my)\s+"
                    r"(?P<p>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)
_NOT_PLACES = {"rooms", "room", "places", "place", "end", "most", "two", "same", "whole", "first", "last", "time",
               "start", "beginning", "meantime", "other", "others", "longest", "shortest"}


@dataclass(frozen=True)
class StaysAsk:
    a: str          # the first place, as the question says it
    b: str          # the place it is compared with
    more: bool      # more time (False: less)
    yes_no: bool    # "did I spend more time in A than in B?" (else: which of the two)


def asks_stays_compared(question: str) -> StaysAsk | None:
    """Two places the robot stayed in, compared by time, or None."""
    if QUOTED.search(question) or not _ROBOT_STAY.search(question):
        return None      # (a person's time is talk_time's)
    m = _COMPARED.search(question)
    places = list(dict.fromkeys(p.group("p").lower() for p in _PLACE.finditer(question)
                                if p.group("p").lower() not in _NOT_PLACES))
    if m is None or len(places) != 2:
        return None
    return StaysAsk(places[0], places[1], more=m.group("more") is not None,
                    yes_no=bool(YES_NO_QUESTION.match(question)))


def answer(executor: QueryExecutor, ask: StaysAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(Query(find="where", act="spoke"), before_time)    # (the result the answer is checked on)
    if res.status != "ok":
        return REFUSAL, res
    named = places_named(executor, res, (ask.a, ask.b))
    if isinstance(named, str):
        return named, res
    secs = tuple(robot_time_in(executor.store, res, name, None, before_time) for name in named)
    res.value = secs
    res.steps.append({"step": "the robot's time in each place", "seconds": dict(zip(named, secs, strict=True))})
    (a, b), (sa, sb) = named, secs
    both = f"{seconds_word(sa)} in the {a} and {seconds_word(sb)} in the {b}"
    if abs(sa - sb) <= 1:
        text = f"{'No, about' if ask.yes_no else 'About'} the same time in each: {both}."
    elif ask.yes_no:
        text = f"{'Yes' if (sa > sb) == ask.more else 'No'}: I spent {both}."
    else:
        pick = a if (sa > sb) == ask.more else b
        text = f"The {pick}: I spent {both}."
    return (REFUSAL if check(text, res) else text), res
