"""Each field of a frame checked against what the memory holds, and a value written into the wrong field moved to
the right one: a small model sometimes writes a time as a person (``other="the one-minute mark"``) or a place as
a person (``who="kitchen"``). Only unambiguous moves are made (the value is a time expression, or a known place
and nobody said it); each is recorded in the trace.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import replace

from .frame import Query, compares_with_other, count_rank
from .words import NUMBER_WORDS

_NUM: dict[str, float] = {**NUMBER_WORDS, "half": 0.5}
_UNIT = {"second": 1, "seconds": 1, "minute": 60, "minutes": 60, "hour": 3600, "hours": 3600}
_CLOCK = re.compile(r"^(?:at |the )?(\d{1,3}):([0-5]\d)(?: mark)?$")
_AMOUNT = re.compile(r"^(?:the |a |an )?(?:first )?([a-z]+|\d+(?:\.\d+)?)[ -](second|seconds|minute|minutes|hour|hours)"
                     r"(?:[ -]mark| point| in)?$")


def time_of(text: str) -> float | None:
    """Seconds for a time expression ("1:30", "the one-minute mark", "two minutes", "90 seconds"), else None."""
    t = " ".join(text.lower().strip(" .?!\"'").split())
    m = _CLOCK.match(t)
    if m:
        return int(m.group(1)) * 60 + int(m.group(2))
    m = _AMOUNT.match(t)
    if m:
        n = m.group(1)
        value = float(n) if n[0].isdigit() else _NUM.get(n)
        if value is not None:
            return float(value) * _UNIT[m.group(2)]
    return None


# a moment of the recording by its place in it: "the middle of the recording", "halfway through", "the very start"
_MOMENT = re.compile(r"^(?:the\s+)?(?:very\s+)?(?:(?P<mid>middle|midpoint|mid-point|halfway(?:\s+(?:point|mark|"
                     r"through))?)|(?P<start>start|beginning)|(?P<end>end))(?:\s+(?:of|through)\s+(?:the\s+)?"
                     r"(?:recording|conversation|video|session|talk|memory))?$", re.IGNORECASE)


def moment_of(text: str, end: float | None) -> float | None:
    """Stream seconds of a moment named by its place in the recording (its start to ``end``, the last input the
    memory holds), else None: "the middle of the recording" is ``end / 2``."""
    m = _MOMENT.match(" ".join(text.strip(" .?!\"'").split()))
    if m is None or end is None:
        return None
    return 0.0 if m.group("start") else end / 2 if m.group("mid") else end


def mss(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 60}:{s % 60:02d}"


def repair(q: Query, place_names: list[str], said_by_someone: object,
           end: Callable[[], float | None] = lambda: None) -> tuple[Query, list[str]]:
    """``q`` with misplaced values moved; ``said_by_someone(text) -> bool`` tells whether a reference matches a
    person (then it stays a person); ``end()``: the recording's end, for a moment such as "the middle of the
    recording". Returns the query and what was moved."""
    moved: list[str] = []
    if q.by == "turn" and count_rank(q.pick) is not None:
        # "what did the most talkative person say?" written pick=most by=turn: most ranks people, not turns
        q = replace(q, by=None)
        moved.append(f"by=turn dropped: pick={q.pick} ranks people by their turns")
    if q.at is None and q.from_ is not None and q.to is not None and q.find != "gap" and \
            (t := time_of(q.from_)) is not None and time_of(q.to) == t:
        # "was anyone talking at exactly 0:30?" written from=0:30 to=0:30: a window of no length is that moment
        q = replace(q, at=mss(t), from_=None, to=None)
        moved.append(f"from= and to= are one time: {q.compact()}")
    names = {p.lower(): p for p in place_names}
    for field in ("other", "who"):
        ref = getattr(q, field)
        if ref is None:
            continue
        t, stamp = time_of(ref), mss
        if t is None and _MOMENT.match(" ".join(ref.strip(" .?!\"'").split())) and not said_by_someone(ref):
            t, stamp = moment_of(ref, end()), (lambda x: f"{x:.2f}")    # (in stream seconds, not to the second)
        if t is not None:
            # right after a moment: the first one after it; right before: the last one before it
            if field == "other" and q.rel in ("after", "right_after"):
                q = replace(q, other=None, rel=None, from_=stamp(t),
                            pick=q.pick or ("first" if q.rel == "right_after" else None))
            elif field == "other" and q.rel in ("before", "right_before"):
                q = replace(q, other=None, rel=None, to=stamp(t),
                            pick=q.pick or ("last" if q.rel == "right_before" else None))
            elif q.at is None and q.from_ is None and q.to is None:
                q = replace(q, **{field: None}, at=stamp(t))
            elif any(x is not None and time_of(x) == t for x in (q.at, q.from_, q.to)):
                # "how many times did A speak after 0:50?" written from=0:50 and other="0:50": the time twice
                q = replace(q, **{field: None}, **({"rel": None} if field == "other" else {}))
            else:
                continue
            moved.append(f"{field}={ref!r} is a time: {q.compact()}")
            continue
        key = " ".join(ref.lower().split()).removeprefix("the ")
        if key in names and q.place is None and not said_by_someone(ref):
            q = replace(q, **{field: None}, place=names[key])
            if field == "other":
                q = replace(q, rel=None)
            moved.append(f"{field}={ref!r} is a place: {q.compact()}")
    if q.place is not None:
        t = time_of(q.place)
        key = " ".join(q.place.lower().split()).removeprefix("the ")
        if t is not None and q.at is None:
            moved.append(f"place={q.place!r} is a time")
            q = replace(q, place=None, at=mss(t))
        elif key in _ANYWHERE and key not in names:
            moved.append(f"place={q.place!r} is no place")
            q = replace(q, place=None)
        elif key not in names:
            near = [n for k, n in names.items() if k.startswith(key) or key in k.split()] or \
                difflib.get_close_matches(key, list(names), n=2, cutoff=0.8)
            if len(near) == 1:        # "hall" -> "hallway": one known place only
                moved.append(f"place={q.place!r} is {near[0]!r}")
                q = replace(q, place=names.get(near[0], near[0]))
    for field in ("who", "other"):       # "the last person", "first": a role, not somebody's words
        ref = getattr(q, field)
        role = " ".join(ref.lower().split()).removeprefix("the ").removesuffix(" one").removesuffix(" person") \
            .removesuffix(" speaker") if ref else ""
        if role in ("first", "last") and field == "other" and q.rel and q.rel not in ("with", "same_place") \
                and ref.lower().strip() != f"the {role} speaker":
            # "who spoke right before the last person to speak?": the anchor is the speaker by rank (by_role)
            moved.append(f"other={ref!r} is the {role} speaker")
            q = replace(q, other=f"the {role} speaker")
        elif role in ("first", "last") and q.pick in (None, role) and q.find not in ("same", "more", "less") \
                and not (field == "other" and q.rel):
            # (a comparison keeps its two people: "the first speaker" is a person by rank, people.by_role)
            moved.append(f"{field}={ref!r} is pick={role}")
            q = replace(q, **{field: None}, pick=role, rel=None if field == "other" else q.rel)
    if q.find in ("same", "more", "less") and q.who is None and q.other is None:
        moved.append(f"find={q.find} names nobody to compare: a yes or no about whom the frame selects")
        q = replace(q, find="yes")
    if q.other is not None and q.rel is None and q.who is None and q.until is None and \
            q.find not in ("same", "more", "less") and not compares_with_other(q.times):
        moved.append("other without rel is the person asked about")
        q = replace(q, who=q.other, other=None)
    if q.act == "spoke" and q.times in ("=0", "<1", "<=0") and not (q.place or q.from_ or q.to or q.at):
        # over all time, people who spoke and never spoke are nobody; in a place or a window they are the people
        # heard elsewhere with no turn there (execute.py)
        moved.append("times=0 with act=spoke asks for nobody: dropped")
        q = replace(q, times=None)
    if q.find == "what" and q.act == "seen":
        # what someone said is in their voice turns, never in their face's: act=seen would answer "A did not say
        # anything I heard" of someone heard six times ("what car does A drive?" was written so)
        moved.append("act=seen dropped: find=what reads words, which only voice turns hold")
        q = replace(q, act=None)
    if q.find in ("more", "less") and q.other is None and q.who is not None:
        k = int(q.times.lstrip("<>=")) if q.times and q.times[-1].isdigit() else 1   # "more than k times": a count
        moved.append(f"find={q.find} without other: spoke {'more' if q.find == 'more' else 'fewer'} than {k}")
        q = replace(q, find="yes", times=(">" if q.find == "more" else "<") + str(k))
    return q, moved


_ANYWHERE = frozenset({"any", "anywhere", "everywhere", "all", "any place", "all places", "somewhere",
                       # "who spoke last in the recording?": the whole of it, not a room
                       "recording", "whole recording", "entire recording", "conversation", "whole conversation",
                       "video", "session"})
