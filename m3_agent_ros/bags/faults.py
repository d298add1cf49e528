"""Inject ordinary robot faults into a bag's message list before a replay (benchmarks and tests).

Each fault takes the time-ordered messages and returns the faulty list; bag times (the publishing schedule) are
kept, only what is published changes: ``future_stamp`` re-stamps one camera frame ahead (a clock jump or a corrupt
stamp), ``drop_span`` removes a topic's messages in a stream-time span (a microphone gap).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace

from .read import BagMessage
from .types import typestore

Fault = Callable[[list[BagMessage]], list[BagMessage]]


def restamp(m: BagMessage, stamp: float) -> BagMessage:
    msg = copy.deepcopy(m.msg)
    msg.header.stamp.sec = int(stamp // 1)  # type: ignore[attr-defined]
    msg.header.stamp.nanosec = int(round((stamp - int(stamp // 1)) * 1e9)) % 1_000_000_000  # type: ignore[attr-defined]
    raw = bytes(typestore().serialize_cdr(msg, m.msgtype))
    return replace(m, stamp=stamp, msg=msg, raw=raw)


def future_stamp(topic_part: str, at_s: float, ahead_s: float) -> Fault:
    """The first message on a topic containing ``topic_part`` at or after ``at_s`` is stamped ``ahead_s`` later."""
    def apply(msgs: list[BagMessage]) -> list[BagMessage]:
        out, done = [], False
        for m in msgs:
            if not done and topic_part in m.topic and m.stamp >= at_s:
                m, done = restamp(m, m.stamp + ahead_s), True
            out.append(m)
        if not done:
            raise ValueError(f"no message on *{topic_part}* at or after {at_s} s")
        return out
    return apply


def drop_span(topic_part: str, start_s: float, end_s: float) -> Fault:
    """Remove the messages on topics containing ``topic_part`` stamped in [start_s, end_s)."""
    def apply(msgs: list[BagMessage]) -> list[BagMessage]:
        return [m for m in msgs if not (topic_part in m.topic and start_s <= m.stamp < end_s)]
    return apply
