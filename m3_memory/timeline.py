"""Stream time and the wall clock (ROS-free).

Everything in the memory is timed in **stream seconds** (clips, turns, face appearances, poses, gaps). A
recording converted by ``m3-bag`` is stamped in stream time from 0. A live robot stamps its messages in ROS time
(seconds since 1970): the first such stamp a store sees becomes its **wall origin**, kept in the store's meta with
the robot's time zone, and stream time is the stamp less that origin from then on, across restarts. So every
record keeps its wall time (origin + stream time) without a second column, and one store never mixes the two.

:class:`Timeline` turns stream seconds into what people say and back:

* ``say(t)``: "14:32:05" (today), "14:32:05 yesterday", "14:32:05 on Tue 24 Nov" on a wall-clock memory,
  "01:10" (minutes:seconds into the recording) otherwise, or when ``into_recording`` is asked for;
* ``read("9:01")``: a clock time the question wrote. On a wall-clock memory it is the most recent 9:01 before
  *now* when the memory covers that moment, else (a replayed recording asked in recording times) 9 min 1 s into the
  recording; "3:15pm", "3 pm" and "noon" are always wall times;
* ``spans(question, now)``: the times a question names in words ("an hour ago", "ten minutes ago", "this
  morning", "yesterday afternoon", "in the last hour", "at 3 pm", "since noon", "in the second half of the
  recording"), resolved by code, so a small model
  never does calendar arithmetic.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path

WALL_STAMP_MIN = 1e9   # header stamps from 2001-09-09 on are ROS (wall-clock) time; smaller ones are stream time
META_ORIGIN, META_ZONE = "wall_origin", "time_zone"


def local_zone() -> str:
    """The machine's IANA time zone: ``$TZ``, else the /etc/localtime link, else UTC."""
    tz = os.environ.get("TZ", "").lstrip(":")
    if tz and _zone(tz) is not None:
        return tz
    try:
        target = str(Path("/etc/localtime").resolve())
        if "zoneinfo/" in target:
            name = target.split("zoneinfo/", 1)[1]
            if _zone(name) is not None:
                return name
    except OSError:
        pass
    return "UTC"


def _zone(name: str) -> tzinfo | None:
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name)
    except Exception:   # ZoneInfoNotFoundError, ValueError for odd names
        return None


def check_zone(name: str) -> str:
    if _zone(name) is None:
        raise ValueError(f"unknown time zone {name!r} (an IANA name such as 'Europe/Berlin' or 'UTC')")
    return name


def mmss(seconds: float) -> str:
    """Stream seconds -> "MM:SS" (minutes may exceed 59): a time into the recording."""
    s = max(0, int(round(seconds)))
    return f"{s // 60:02d}:{s % 60:02d}"


_UNIT_S = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400}
_COUNT = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "forty-five": 45,
          "fifty": 50, "a few": 3, "a couple of": 2, "half an": 0.5, "half a": 0.5}
_N = r"(\d+(?:\.\d+)?|half an?|a few|a couple of|an?|one|two|three|four|five|six|seven|eight|nine|ten|fifteen|" \
     r"twenty|thirty|forty-five|forty|fifty)"
_AGO = re.compile(rf"\b{_N}\s+(second|minute|hour|day|week)s?\s+ago\b", re.IGNORECASE)
_LAST = re.compile(rf"\b(?:in|during|within|over)\s+the\s+(?:last|past|final|closing)\s+(?:{_N}\s+)?"
                   r"(second|minute|hour|day|week)s?\b", re.IGNORECASE)
# into the recording: "after the one-minute mark", "before the 2-minute mark", "in the first two minutes"
_MARK = re.compile(rf"\b(after|since|from|past|before|until|till|by)\s+the\s+{_N}[\s-]"
                   r"(second|minute|hour)s?[\s-]mark\b",
                   re.IGNORECASE)
_FIRST = re.compile(rf"\b(?:in|during|within|over)\s+the\s+first\s+(?:{_N}\s+)?(second|minute|hour)s?\b", re.IGNORECASE)
# "in the second half of the recording", "during the first half": the recording's start to the question's now, halved
_HALF = re.compile(r"\b(?:(?:in|during|within|over|throughout)\s+)?the\s+"
                   r"(first|earlier|former|second|last|latter|later)\s+half\b(?![\s-]*(?:an?\s+)?(?:minute|hour|second)s?\b)(?:\s+of\s+(?:the|my|this|our)\s+"
                   r"(?:recording|video|conversation|session|stream|meeting|time|memory|visit|day))?", re.IGNORECASE)
_PARTS = {"morning": (5, 12), "afternoon": (12, 18), "evening": (18, 23), "night": (18, 30)}
_DAY_PART = re.compile(r"\b(this|yesterday|last)\s+(morning|afternoon|evening|night)\b|\b(tonight|today|yesterday)\b",
                       re.IGNORECASE)
_MERIDIEM = r"(?:\s*(am|pm|a\.m\.|p\.m\.))"
_WALL_CLOCK = re.compile(rf"\b(\d{{1,2}})(?::([0-5]\d))?{_MERIDIEM}(?!\w)|\b(noon|midday|midnight)\b", re.IGNORECASE)
_BOUND = re.compile(r"\b(since|after|before|until|till|from|at|around|by)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Span:
    """A time the question names, as a window in stream seconds (either end may be open): "ten minutes ago" is
    9-11 minutes ago, "at 3 pm" the minute from 15:00, "this morning" 05:00-12:00 of today."""
    text: str
    start: float | None = None
    end: float | None = None


@dataclass(frozen=True)
class Timeline:
    origin: float | None = None   # epoch seconds of stream time 0; None: a recording in stream time only
    zone: str = "UTC"

    @property
    def is_wall(self) -> bool:
        return self.origin is not None

    @property
    def tz(self) -> tzinfo:
        return _zone(self.zone) or timezone.utc

    # -- stream seconds <-> wall clock -----------------------------------------------------------
    def wall(self, t: float) -> datetime:
        if self.origin is None:
            raise ValueError("this memory keeps stream time only (no wall origin)")
        return datetime.fromtimestamp(self.origin + t, self.tz)

    def stream(self, when: datetime) -> float:
        if self.origin is None:
            raise ValueError("this memory keeps stream time only (no wall origin)")
        return when.timestamp() - self.origin

    def now(self, before_time: float | None = None) -> float | None:
        """The question's moment in stream seconds: its time bound, else the wall clock's now (None on a recording
        without one: the end of what is remembered)."""
        if before_time is not None:
            return before_time
        import time

        return time.time() - self.origin if self.origin is not None else None

    # -- saying ---------------------------------------------------------------------------------
    def say(self, t: float, now: float | None = None, into_recording: bool = False) -> str:
        """What to write after "at": a wall time with its day relative to ``now``, or minutes:seconds into the
        recording."""
        if self.origin is None or into_recording or not math.isfinite(t):
            return mmss(t)
        when = self.wall(t)
        text = when.strftime("%H:%M:%S")
        ref = self.wall(now) if now is not None and math.isfinite(now) else None
        if ref is None or when.date() == ref.date():
            return text
        if when.date() == ref.date() - timedelta(days=1):
            return f"{text} yesterday"
        return f"{text} on {when.strftime('%a %d %b')}"

    # -- reading --------------------------------------------------------------------------------
    def read(self, text: str, now: float | None = None) -> float:
        """Stream seconds of a time as written: plain seconds (stream time), "m:ss" / "h:mm:ss", or a wall time
        ("14:32", "3:15pm", "3 pm", "noon"). Raises ValueError for anything else."""
        return self.reading(text, now)[0]

    def reading(self, text: str, now: float | None = None) -> tuple[float, str]:
        """(stream seconds, how it was read: "seconds" | "recording" (into the recording) | "wall")."""
        s = str(text).strip().lower()
        if re.fullmatch(r"-?\d+(?:\.\d+)?", s):
            return float(s), "seconds"
        m = re.fullmatch(rf"(\d{{1,2}})(?::([0-5]\d))?{_MERIDIEM}", s) or re.fullmatch(r"(noon|midday|midnight)", s)
        if m is not None:
            return self._wall_clock(m, now), "wall"
        m = re.fullmatch(r"(\d{1,3}):([0-5]\d)(?::([0-5]\d))?", s)
        if m is None:
            raise ValueError(f"a time must be seconds, m:ss or a clock time, got {text!r}")
        a, b, c = int(m.group(1)), int(m.group(2)), m.group(3)
        offset = float(a * 3600 + b * 60 + int(c) if c is not None else a * 60 + b)
        if self.origin is None or a > 23:
            return offset, "recording"
        wall = self._clock_at(a, b, int(c or 0), now)
        if wall >= -60.0 or offset > (now if now is not None else math.inf):
            return wall, "wall"   # a moment this memory covers, or no recording time fits either
        return offset, "recording"

    def _clock_at(self, hour: int, minute: int, second: int, now: float | None, days_back: int = 0) -> float:
        """Stream seconds of the most recent hh:mm:ss at or before ``now`` (``days_back`` days earlier)."""
        ref = self.wall(now) if now is not None else datetime.now(self.tz)
        cand = ref.replace(hour=hour % 24, minute=minute, second=second, microsecond=0)
        if cand > ref + timedelta(seconds=1):
            cand -= timedelta(days=1)
        return self.stream(cand - timedelta(days=days_back))

    def _wall_clock(self, m: re.Match, now: float | None, days_back: int = 0) -> float:
        if self.origin is None:
            raise ValueError(f"{m.group(0)!r} is a time of day, but this memory keeps times into the recording only")
        g = [x for x in m.groups()]
        if g[-1] is not None and g[-1].lower() in ("noon", "midday", "midnight"):
            hour, minute = (0 if g[-1].lower() == "midnight" else 12), 0
        else:
            hour, minute = int(g[0]), int(g[1] or 0)
            if hour > 12 or (hour == 0 and g[2]):
                raise ValueError(f"{m.group(0)!r} is not a time of day")
            pm = g[2].lower().startswith("p")
            hour = (hour % 12) + (12 if pm else 0)
        return self._clock_at(hour, minute, 0, now, days_back)

    def spans(self, question: str, now: float | None, end: float | None = None) -> list[Span]:
        """The times the question names in words, resolved against ``now`` (stream seconds); the halves of the
        recording and "the last N seconds" run to ``end`` (the last input the memory holds: a replay asked about
        afterwards ended before the question), else to ``now``."""
        out: list[Span] = []
        if now is None or not math.isfinite(now):
            return out
        for m in _AGO.finditer(question):
            d = _amount(m.group(1)) * _UNIT_S[m.group(2).lower()]
            half = max(30.0, 0.1 * d)
            out.append(Span(m.group(0), start=now - d - half, end=min(now, now - d + half)))
        for m in _LAST.finditer(question):    # "in the last ten seconds": of what was recorded
            d = _amount(m.group(1) or "a") * _UNIT_S[m.group(2).lower()]
            last = min(now, end) if end is not None else now
            out.append(Span(m.group(0), start=last - d, end=last))
        for m in _MARK.finditer(question):
            t = _amount(m.group(2)) * _UNIT_S[m.group(3).lower()]
            before = m.group(1).lower() in ("before", "until", "till", "by")
            out.append(Span(m.group(0), start=None if before else t, end=t if before else None))
        for m in _FIRST.finditer(question):
            out.append(Span(m.group(0), start=0.0, end=_amount(m.group(1) or "a") * _UNIT_S[m.group(2).lower()]))
        for m in _HALF.finditer(question):
            out.append(half_span(m.group(0), m.group(1), min(now, end) if end is not None else now))
        for m in _PART.finditer(question):
            part = part_span(m, min(now, end) if end is not None else now)
            out.extend([part] if part is not None else [])
        for m in _MIDDLE.finditer(question):
            out.append(middle_span(m, min(now, end) if end is not None else now))
        if self.origin is None:
            return out
        day_of = {}
        for m in _DAY_PART.finditer(question):
            which, part, alone = (m.group(1) or "").lower(), (m.group(2) or "").lower(), (m.group(3) or "").lower()
            back = 1 if which == "yesterday" or alone == "yesterday" or (which == "last" and part != "night") else 0
            if alone == "tonight":
                part = "night"
            day = self.wall(now).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=back)
            if which == "last" and part == "night":
                day -= timedelta(days=1)
            h0, h1 = _PARTS.get(part, (0, 24))
            start, end = self.stream(day + timedelta(hours=h0)), self.stream(day + timedelta(hours=h1))
            out.append(Span(m.group(0), start=start, end=min(end, now)))
            day_of[m.start()] = back
        for m in _WALL_CLOCK.finditer(question):
            back = 1 if re.search(r"\byesterday\b", question, re.IGNORECASE) else 0
            try:
                t = self._wall_clock(m, now, back)
            except ValueError:
                continue
            bound = _BOUND.search(question[:m.start()])
            word = bound.group(1).lower() if bound else "at"
            if word in ("since", "after", "from"):
                out.append(Span(m.group(0), start=t))
            elif word in ("before", "until", "till", "by"):
                out.append(Span(m.group(0), end=t))
            else:
                out.append(Span(m.group(0), start=t, end=min(now, t + 60.0)))
        return out


def wall_clock_words(question: str) -> list[str]:
    """The times of day a question names ("3 a.m.", "noon", "this morning", "yesterday"), which only a memory with a
    wall clock can place ("today" is not one: a recording is today's as much as any)."""
    return [m.group(0) for pattern in (_WALL_CLOCK, _DAY_PART) for m in pattern.finditer(question)
            if m.group(0).lower() != "today"]


def _amount(word: str) -> float:
    w = " ".join(word.lower().split())
    try:
        return float(w)
    except ValueError:
        return float(_COUNT.get(w, 1))


def wall_stamp(stamp: float) -> bool:
    return stamp >= WALL_STAMP_MIN


class StampAnchor:
    """Header stamps -> stream seconds for one memory. Stamps below :data:`WALL_STAMP_MIN` are stream time and pass
    through; ROS-time stamps (a live robot, a bag it recorded) lose the memory's wall origin, which the first of
    them sets (``anchor(stamp)``, e.g. :meth:`MemoryStore.anchor_wall_clock`). A memory never mixes the two: a stamp
    of the other kind raises ValueError (the caller counts it as lost input, cause ``clock_mismatch``)."""

    def __init__(self, timeline: Timeline, anchor: Callable[[float], Timeline]) -> None:
        self.timeline, self._anchor = timeline, anchor
        self._seen_stream = False
        self._refused = ""      # why the memory refused a wall origin (asked once, not per message)

    def to_stream(self, stamp: float) -> float:
        if not math.isfinite(stamp):
            raise ValueError(f"header stamp {stamp!r} is not a number")
        if stamp < WALL_STAMP_MIN:
            if self.timeline.origin is not None:
                raise ValueError(f"stamp {stamp:.3f} is stream time, but this memory keeps wall-clock time (origin "
                                 f"{self.timeline.origin:.3f}): the stream's clock does not match the memory")
            self._seen_stream = True
            return stamp
        if self.timeline.origin is None:
            if self._seen_stream:
                raise ValueError(f"stamp {stamp:.3f} is wall-clock (ROS) time, but this stream began in stream time")
            if not self._refused:
                try:
                    self.timeline = self._anchor(stamp)
                except Exception as e:   # the store's refusal (it holds stream-time clips), kept
                    self._refused = str(e)
            if self._refused:
                raise ValueError(f"stamp {stamp:.3f} is wall-clock (ROS) time: {self._refused}")
        assert self.timeline.origin is not None
        return stamp - self.timeline.origin

    def watermark(self, stamp: float) -> float:
        """A producer's watermark (a header stamp) in stream seconds; unchanged before any wall stamp."""
        if self.timeline.origin is not None and stamp >= WALL_STAMP_MIN:
            return stamp - self.timeline.origin
        return stamp


def half_span(text: str, which: str, now: float) -> Span:
    """"the first half" / "the second half" (of the recording): stream time 0 to ``now`` (its end), halved."""
    first = which.lower() in ("first", "earlier", "former")
    return Span(text, start=0.0 if first else now / 2, end=now / 2 if first else now)


# "in the first third of the recording", "during the last quarter": the recording's start to the question's now, in
# three (four) equal parts
_PART = re.compile(r"\b(?:(?:in|during|within|over|throughout)\s+)?the\s+(first|second|middle|third|fourth|last|final)"
                   r"\s+(third|quarter)\b(?:\s+of\s+(?:the|my|this|our)\s+(?:recording|video|conversation|session|"
                   r"stream|meeting|time|memory|visit|day))?", re.IGNORECASE)
_PART_INDEX = {"first": 0, "second": 1, "middle": 1, "third": 2, "fourth": 3}


def part_span(m: re.Match, now: float) -> Span | None:
    """"the first third" / "the last quarter" (of the recording): stream time 0 to ``now`` (its end), in equal
    parts; None for a part there is not ("the fourth third")."""
    n = 3 if m.group(2).lower() == "third" else 4
    which = m.group(1).lower()
    i = n - 1 if which in ("last", "final") else _PART_INDEX[which]
    if i >= n or (n == 4 and which == "middle"):
        return None
    return Span(m.group(0), start=now * i / n, end=now * (i + 1) / n)


# "after the middle of the recording", "before the halfway point", "since halfway through": a window bounded by the
# recording's middle (its start to the question's now, halved)
_MIDDLE = re.compile(r"\b(after|since|from|past|before|until|till|by)\s+(?:the\s+(?:very\s+)?(?:middle|midpoint|"
                     r"mid-point|halfway\s+(?:point|mark))(?:\s+of\s+(?:the|my|this|our)\s+(?:recording|video|"
                     r"conversation|session|stream|meeting|memory))?|halfway\s+through(?:\s+(?:the|my|this|our)\s+"
                     r"(?:recording|video|conversation|session|stream|meeting|memory))?)", re.IGNORECASE)


def middle_span(m: re.Match, now: float) -> Span:
    """"after (before) the middle of the recording": from (until) stream time ``now / 2``."""
    before = m.group(1).lower() in ("before", "until", "till", "by")
    return Span(m.group(0), start=None if before else now / 2, end=now / 2 if before else None)


def recording_halves(question: str) -> list[re.Match]:
    """The halves of the recording a question names ("in the first half", "the second half of the video"), its
    last seconds or minutes ("in the last ten seconds") and its middle as a bound ("after the middle of the
    recording"): spans that end with what was recorded."""
    return list(_HALF.finditer(question)) + list(_LAST.finditer(question)) + list(_PART.finditer(question)) + \
        list(_MIDDLE.finditer(question))
