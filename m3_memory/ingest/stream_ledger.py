"""Accounting of stream input that did not become memory (ROS-free).

Every message or span of stream time that is dropped, re-timed or never arrived is recorded here as a
:class:`Loss` (topic, stream-time span, cause, count). Adjacent losses of the same topic and cause merge into one
span, so a dead microphone is one row, not thousands. The node publishes :meth:`StreamLedger.counts` in
/diagnostics and writes :meth:`StreamLedger.take` into the store's ``gaps`` table (m3_memory.store.stream_records).

Causes
  late          arrived for a clip that was already finished (memorized without it)
  future        stamp jumped ahead of the stream clock beyond ``max_clock_jump_s``: re-anchored, not lost
  past          stamp jumped back beyond ``max_clock_jump_s``: re-anchored, not lost
  duplicate     same stamp as the previous message on the topic: dropped
  bad           undecodable (encoding, size, NaN, corrupt JPEG, an audio format or coding the node cannot convert):
                dropped
  no_info       audio_common_msgs AudioData before any AudioInfo (its sample format unknown): dropped
  clock_mismatch  stamped in stream time for a memory that keeps wall-clock (ROS) time, or the other way round:
                dropped (m3_memory.timeline.StampAnchor)
  overflow      a finished clip dropped because memorization fell too far behind
  no_audio / no_video   stream time with no input on an expected topic (a gap), recorded as silence / no frames
  transport     published (by the replay) but not received by its watermark: best-effort transport dropped it
                (taken back by :meth:`StreamLedger.retract` when such a message turns up at a later watermark)
  clip_error    a clip whose memorization failed
  short_speech  a speech turn shorter than the voice stage's ``min_turn_s``: heard, but neither attributed to a
                voice nor transcribed (too short for a voice print)
  unattributed_speech  speech the diarizer heard (VAD / segmentation model) but gave no speaker turn
  crash         the span a previous run had received but not committed when it died (kill -9, power loss)
  shutdown      clips open or queued when the node was stopped without draining (SIGINT/SIGTERM)
"""

from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass

RETIMED = frozenset({"future", "past"})   # causes that re-time input instead of losing it
MERGE_WITHIN_S = 1.0


@dataclass
class Loss:
    topic: str
    cause: str
    start_time: float
    end_time: float
    count: int = 1
    detail: str = ""


class StreamLedger:
    """Thread-safe: sensor callbacks and the memorization worker both record here."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[Loss] = []
        self._counts: dict[tuple[str, str], int] = defaultdict(int)
        self._seconds: dict[tuple[str, str], float] = defaultdict(float)

    def record(self, topic: str, cause: str, start_time: float, end_time: float | None = None, count: int = 1,
               detail: str = "") -> None:
        end = start_time if end_time is None else max(end_time, start_time)
        with self._lock:
            self._counts[(topic, cause)] += count
            self._seconds[(topic, cause)] += end - start_time
            last = next((x for x in reversed(self._pending) if x.topic == topic and x.cause == cause and x.count > 0),
                        None)
            if (last is not None and not detail and not last.detail
                    and last.start_time - MERGE_WITHIN_S <= start_time <= last.end_time + MERGE_WITHIN_S):
                last.start_time, last.end_time = min(last.start_time, start_time), max(last.end_time, end)
                last.count += count
                return
            self._pending.append(Loss(topic, cause, float(start_time), float(end), count, detail))

    def retract(self, topic: str, cause: str, count: int) -> int:
        """``count`` messages recorded lost under ``cause`` turned up after all (a message the transport delivered
        after its watermark): taken back from the counts and from the losses not yet written; what was already
        taken for the store stays pending as a negative :class:`Loss` (the store takes it off its rows). Returns
        the number taken back."""
        with self._lock:
            n = min(count, self._counts[(topic, cause)])
            if n <= 0:
                return 0
            self._counts[(topic, cause)] -= n
            if not self._counts[(topic, cause)]:
                del self._counts[(topic, cause)]
            left = n
            for x in reversed(self._pending):
                if left and x.topic == topic and x.cause == cause and x.count > 0:
                    k = min(left, x.count)
                    x.count, left = x.count - k, left - k
                    if x.count == 0:
                        self._seconds[(topic, cause)] = max(0.0, self._seconds[(topic, cause)]
                                                            - (x.end_time - x.start_time))
            self._pending = [x for x in self._pending if x.count != 0]
            if left:
                self._pending.append(Loss(topic, cause, 0.0, 0.0, -left, detail="arrived after its watermark"))
            return n

    def take(self) -> list[Loss]:
        """The losses recorded since the last call (to be written to the store)."""
        with self._lock:
            out, self._pending = self._pending, []
        return out

    def put_back(self, losses: list[Loss]) -> None:
        """Losses whose write failed: kept for the next attempt (never dropped)."""
        with self._lock:
            self._pending[:0] = losses

    def counts(self) -> dict[str, dict[str, int]]:
        """{topic: {cause: count}} since the node started."""
        out: dict[str, dict[str, int]] = defaultdict(dict)
        with self._lock:
            for (topic, cause), n in sorted(self._counts.items()):
                out[topic][cause] = n
        return dict(out)

    def seconds(self) -> dict[str, dict[str, float]]:
        """{topic: {cause: stream seconds}} for span causes (gaps)."""
        out: dict[str, dict[str, float]] = defaultdict(dict)
        with self._lock:
            for (topic, cause), s in sorted(self._seconds.items()):
                if s > 0:
                    out[topic][cause] = round(s, 3)
        return dict(out)

    def lost_messages(self) -> int:
        """Messages dropped (re-timed ones are not lost)."""
        with self._lock:
            return sum(n for (_, cause), n in self._counts.items() if cause not in RETIMED)
