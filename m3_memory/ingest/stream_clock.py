"""Map header stamps to stream time, surviving clock jumps (ROS-free).

Topics of one robot share a clock: camera and microphone stamps advance together, and together with the time the
messages take to arrive (times the playback rate, estimated from recent messages). A stamp that jumps by more
than ``max_jump_s`` against both references (a corrupt stamp, a clock jump on one sender) is a discontinuity: the
topic's clock is **re-anchored** so its stream time continues where it was, by the elapsed arrival time. One wrong
stamp therefore re-times one message (the next message, back on the true clock, re-anchors back); it never
silences the stream. A gap in a stream (microphone off for 16 s while the camera goes on) is not a jump: the
other topics agree with the new stamp, and the audio lands at its true time.

When no other topic is alive, the arrival clock alone decides (a publisher that stops entirely and resumes
faster than real time could then be re-anchored; it is counted and logged like every re-anchoring). A re-anchored
topic whose own stamps agree with the live topics again while its re-anchored times do not is put back on its
stamps: a receiver that stalled for seconds (every topic late, the camera's backlog cut to its queue depth, then
delivered in a burst) can re-anchor a topic it should not have, and that must cost one message's time, not every
later one (measured in CI: a 4x replay's camera shifted 34 s against the microphone for the rest of the stream).

The playback rate is estimated over recent messages of every topic, not across a pause in arrivals (a replay
waiting for an answer, a stalled receiver); while it cannot be estimated, the last estimate holds.

A message with exactly the previous stamp of its topic is a duplicate: :meth:`StreamClocks.map` returns ``None``.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

ALIVE_S = 2.0       # a topic heard from within this arrival time is a reference for the others


@dataclass
class Jump:
    topic: str
    cause: str          # "future" | "past"
    stamp: float        # the raw stamp
    delta: float        # how far the stamp was off the expected stream time (s)


@dataclass
class _Topic:
    offset: float = 0.0
    last_stamp: float | None = None
    last_arrival: float = 0.0
    last_t: float = -math.inf


class StreamClocks:
    def __init__(self, max_jump_s: float = 10.0) -> None:
        if not max_jump_s > 0:
            raise ValueError("max_jump_s must be positive")
        self.max_jump_s = float(max_jump_s)
        self._topics: dict[str, _Topic] = {}
        self._recent: deque[tuple[float, float]] = deque(maxlen=64)   # (stream time, arrival) of recent messages
        self._rate = 1.0                                                # the last estimate
        self.jumps: list[Jump] = []

    def rate(self) -> float:
        """Stream seconds per arrival second over the recent messages (1 live, 4 for a 4x replay); the last
        estimate while too few messages or too short a time span tell."""
        if len(self._recent) >= 8:
            (t0, a0), (t1, a1) = self._recent[0], self._recent[-1]
            if a1 - a0 >= 0.05:
                self._rate = min(max((t1 - t0) / (a1 - a0), 0.1), 1000.0)
        return self._rate

    def _references(self, name: str, arrival: float) -> list[float]:
        """Where the other live topics' stream times are now (extrapolated by the playback rate)."""
        return [o.last_t + self.rate() * max(0.0, arrival - o.last_arrival)
                for n, o in self._topics.items() if n != name and o.last_stamp is not None
                and arrival - o.last_arrival <= ALIVE_S]

    def map(self, topic: str, stamp: float, arrival: float) -> tuple[float, Jump | None] | None:
        """(stream time, jump or None) of a message on ``topic`` stamped ``stamp`` that arrived at ``arrival``
        (a monotonic clock, s); ``None`` for a duplicate. Raises ValueError for a non-finite stamp."""
        if not math.isfinite(stamp):
            raise ValueError(f"message stamp is not finite ({stamp})")
        tp = self._topics.setdefault(topic, _Topic())
        if tp.last_stamp is not None and stamp == tp.last_stamp:
            return None
        if self._recent and arrival - self._recent[-1][1] > ALIVE_S:
            self._recent.clear()   # a pause in arrivals: the rate before it says nothing about the rate after
        t = stamp + tp.offset
        refs = self._references(topic, arrival)
        agree = any(abs(t - r) <= self.max_jump_s for r in refs)
        # re-anchored, but its own stamps agree with the live topics again while the re-anchored time does not
        back = bool(tp.offset) and not agree and any(abs(stamp - r) <= self.max_jump_s for r in refs)
        if tp.last_stamp is not None:
            expected = tp.last_t + self.rate() * max(0.0, arrival - tp.last_arrival)
            off = t - expected > self.max_jump_s or t < tp.last_t - self.max_jump_s
        else:
            expected = max(refs) if refs else t
            off = bool(refs)   # a topic's first message far off the live topics
        jump = None
        if back or (off and not agree):
            # back on the true clock (the live topics', or the message after one bad stamp): drop the offset; else
            # continue the stream
            anchor = expected
            if back or (tp.last_stamp is not None and tp.offset and abs(stamp - expected) <= self.max_jump_s):
                anchor = stamp
            jump = Jump(topic, "future" if t > anchor else "past", stamp, t - anchor)
            self.jumps.append(jump)
            tp.offset, t = anchor - stamp, anchor
        tp.last_stamp, tp.last_arrival, tp.last_t = stamp, arrival, t
        if jump is None:
            self._recent.append((t, arrival))
        return t, jump
