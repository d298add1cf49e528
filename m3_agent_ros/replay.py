"""Replay a bag through DDS and ask its questions at their timestamps through the real Query service.

    python -m m3_agent_ros.replay BAG [--rate 1.0 | --rate 0] [--clip-seconds 30] [--out answers.jsonl]

Messages are published as the stored CDR bytes (no re-serialization) on their recorded topics. ``--rate R``
keeps the recorded timing sped up R times; ``--rate 0`` publishes as fast as the memorization keeps up.
Before a question recorded at stream time T is asked, playback pauses and the memorization node is told, through
its ``~/sync`` service (m3_agent/srv/SyncStream), that every message before T has been published and how many per
topic: the node accounts for what never arrived (lost in transport), finishes the clips that end by T and answers
once they are committed, so the answer sees exactly the memory an on-line robot would have at T; the question
carries ``before_time = T``. A replay never waits silently: while it waits, the node's /diagnostics are watched;
progress is printed every few seconds and a node that stops reporting is an error within seconds.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from m3_agent_ros.bags.questions import QUESTIONS_TOPIC, Question
from m3_agent_ros.bags.read import bag_questions, iter_messages
from m3_agent_ros.own_node import OwnNode


def ros_type(name: str) -> Any:
    pkg, kind, typ = name.split("/")
    return getattr(importlib.import_module(f"{pkg}.{kind}"), typ)


@dataclass
class AnswerRecord:
    question_id: str
    question: str
    reference: str
    types: list[str]
    time: float
    answer: str = ""
    success: bool = False
    error: str = ""
    latency_s: float = 0.0
    rounds: int = 0
    searches: list[str] = field(default_factory=list)
    cited_memory_ids: list[int] = field(default_factory=list)
    clips_committed: int = 0
    attempts: int = 1              # 2: no answer came within the answer timeout and the question was sent again
    answer_source: str = ""        # model | fallback | error (from the answer's trace)
    trace: dict = field(default_factory=dict)


@dataclass
class ReplayStats:
    messages: int = 0
    stream_s: float = 0.0
    wall_s: float = 0.0
    waited_for_memorization_s: float = 0.0
    clips_committed: int = 0
    audio_published: int = 0
    audio_received: int = -1        # as the memorization node counted them (-1: never heard)
    audio_lost_in_transport: int = 0
    published: dict[str, int] = field(default_factory=dict)
    received: dict[str, int] = field(default_factory=dict)            # per topic, as the node counted them
    lost_in_transport: dict[str, int] = field(default_factory=dict)   # per topic, as the node accounted them
    memorized_upto: float = -1.0
    watermark: float = -1.0         # the last watermark in the memory's stream seconds (the node's reply)
    stamp_offset: float = 0.0       # header stamps less recording time (ROS time of a robot's recording; 0 converted)


def answer_wait_s(query_timeout_s: float, margin_s: float = 60.0) -> float:
    """How long to wait for an answer from a control node whose ``query_timeout_s`` is given: it answers or refuses
    within that limit, so silence past it plus ``margin_s`` means a lost response or a wedged node. A node without
    a limit (0) gets none either (its process is still watched)."""
    return math.inf if query_timeout_s <= 0 else query_timeout_s + margin_s


class Replayer(OwnNode):
    """Publishes a bag and asks questions; owns its own rclpy context (usable inside tests and tools)."""

    def __init__(self, node_name: str = "m3_agent_replay", service: str = "/m3_agent/query",
                 event_topic: str = "/m3_agent/memory_events",
                 flush_service: str = "/m3_agent_memorization/flush",
                 sync_service: str = "/m3_agent_memorization/sync", stall_s: float = 15.0,
                 answer_timeout_s: float = answer_wait_s(120.0)) -> None:
        from m3_agent.msg import MemoryEvent
        from m3_agent.srv import Query, SyncStream
        from rclpy.qos import QoSProfile
        from std_srvs.srv import Trigger

        super().__init__(node_name)
        self.query = self.node.create_client(Query, service)
        self.flush = self.node.create_client(Trigger, flush_service)
        self.sync = self.node.create_client(SyncStream, sync_service)
        self.stall_s = stall_s
        # the control node answers or refuses within its query_timeout_s (120 s by default): past this a response
        # was lost or the node is wedged, and the question is sent once more before the replay fails (answer_wait_s)
        self.answer_timeout_s = answer_timeout_s
        self._processes: list[tuple[str, Callable[[], bool], str]] = []
        self.published: dict[str, int] = {}
        self._diag_at = -1.0            # monotonic time of the memorization node's last /diagnostics
        self.committed: dict[int, tuple[float, float]] = {}
        self.node.create_subscription(MemoryEvent, event_topic, self._on_event, QoSProfile(depth=1000))
        self._pubs: dict[str, Any] = {}
        self.received: dict[str, int] = {}   # the memorization node's input counters (from /diagnostics)
        from diagnostic_msgs.msg import DiagnosticArray

        self.node.create_subscription(DiagnosticArray, "/diagnostics", self._on_diagnostics, QoSProfile(depth=50))

    def _on_diagnostics(self, msg: Any) -> None:
        for st in msg.status:
            if st.name.endswith(": memorization"):
                self._diag_at = time.monotonic()
                for kv in st.values:
                    if kv.value.lstrip("-").isdigit():
                        self.received[kv.key] = int(kv.value)

    def _on_event(self, msg: Any) -> None:
        self.committed[int(msg.clip_id)] = (float(msg.start_time), float(msg.end_time))

    def watch_process(self, name: str, alive: Callable[[], bool], log: str | Path = "") -> None:
        """Fail any wait within a second when the process ``name`` (a node this replay depends on) has exited."""
        self._processes.append((name, alive, str(log)))

    def _check_processes(self, what: str) -> None:
        for name, alive, log in self._processes:
            if not alive():
                tail = ""
                if log and Path(log).is_file():
                    lines = Path(log).read_text(errors="replace").splitlines()
                    tail = "; the end of its log:\n" + "\n".join(lines[-15:])
                raise RuntimeError(f"{name} exited while the replay waited for {what}{tail}")

    def wait(self, pred: Any, timeout: float, what: str, watch_memorization: bool = False) -> None:
        """Spin until ``pred()``; with ``watch_memorization``, print the node's progress every 5 s and fail when
        its /diagnostics stop for ``stall_s`` (a dead or hung node is reported within seconds, not at timeout).
        A watched process (``watch_process``) that exits fails the wait within a second."""
        t0 = time.monotonic()
        deadline, next_report, next_check = t0 + timeout, t0 + 5.0, t0
        while not pred():
            now = time.monotonic()
            if now >= next_check:
                next_check = now + 1.0
                self._check_processes(what)
            if now > deadline:
                raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
            if watch_memorization and now >= next_report:
                next_report = now + 5.0
                silent = now - max(self._diag_at, t0)
                r = self.received
                busy = r.get("clip_in_progress", -1)
                print(f"replay: still waiting {now - t0:.0f} s for {what}; memorization node: "
                      + (f"memorizing clip {busy}, " if busy >= 0 else "")
                      + f"{r.get('queue_depth', '?')} clips queued, {r.get('clips_committed', '?')} committed, last "
                      f"report {silent:.0f} s ago", file=sys.stderr)
                if silent > self.stall_s:
                    raise TimeoutError(f"the memorization node stopped reporting (no /diagnostics for {silent:.0f} s) "
                                       f"while waiting for {what}")
            self.executor.spin_once(timeout_sec=0.05)

    def _publisher(self, topic: str, msgtype: str) -> Any:
        from rclpy.qos import QoSProfile

        pub = self._pubs.get(topic)
        if pub is None:
            depth = 500 if "audio" in topic else 50
            pub = self._pubs[topic] = self.node.create_publisher(ros_type(msgtype), topic, QoSProfile(depth=depth))
        return pub

    def wait_ready(self, topics: list[tuple[str, str]], timeout: float = 180.0) -> None:
        """Wait for the query service (the control node loads its model on activate: seconds to a minute) and for a
        subscriber on each replayed topic (DDS discovery)."""
        for topic, msgtype in topics:
            self._publisher(topic, msgtype)
        self.wait(lambda: self.query.service_is_ready(), timeout, f"service {self.query.srv_name}")
        self.wait(lambda: self.sync.service_is_ready(), timeout, f"service {self.sync.srv_name}")
        for topic, _ in topics:
            pub = self._pubs[topic]
            self.wait(lambda p=pub: p.get_subscription_count() > 0, timeout, f"a subscriber on {topic}")

    def sync_to(self, t: float, stats: ReplayStats, timeout: float) -> float:
        """Watermark: every message before recording time ``t`` is published; returns once the node has committed
        the clips that end by ``t`` (messages that never arrived are accounted by the node as lost in transport).
        Returns ``t`` in the memory's stream seconds (the node maps header stamps: ROS time on a wall-clock memory)."""
        from m3_agent.srv import SyncStream

        topics = sorted(self.published)
        req = SyncStream.Request(stream_time=float(t + stats.stamp_offset), topics=topics,
                                 published=[self.published[k] for k in topics],
                                 receive_timeout_s=5.0, timeout_s=float(timeout))
        fut = self.sync.call_async(req)
        self.wait(fut.done, timeout + 30.0, f"memorization of the clips before {t:.0f} s", watch_memorization=True)
        res = fut.result()
        if not res.success:
            raise TimeoutError(f"memorization node: {res.message}")
        stats.memorized_upto = max(stats.memorized_upto, res.memorized_upto)
        stats.watermark = float(res.watermark)
        for topic, got, lost in zip(res.topics, res.received, res.lost_in_transport, strict=False):
            stats.lost_in_transport[topic], stats.received[topic] = int(lost), int(got)
            if "audio" in topic:
                stats.audio_received, stats.audio_lost_in_transport = int(got), int(lost)
        return stats.watermark

    def ask(self, q: Question, timeout: float | None = None, before_time: float | None = None,
            attempts: int = 2) -> AnswerRecord:
        """Ask ``q``; ``before_time`` is its time in the memory's stream seconds (default: ``q.time``). A question
        without an answer after ``timeout`` (default ``answer_timeout_s``) is sent again, up to ``attempts`` times
        in all (a query only reads memory); the record keeps the count and the latency from the first send."""
        from m3_agent.srv import Query

        rec = AnswerRecord(q.question_id, q.question, q.answer, list(q.types), q.time,
                           clips_committed=len(self.committed))
        bound = q.time if before_time is None else before_time
        req = Query.Request(question=q.question, has_time_bound=True, before_time=float(bound))
        limit = self.answer_timeout_s if timeout is None else timeout
        t = time.perf_counter()
        for attempt in range(1, max(1, attempts) + 1):
            rec.attempts = attempt
            fut = self.query.call_async(req)
            try:
                self.wait(fut.done, limit, f"the answer to {q.question_id}")
                break
            except TimeoutError:
                self.query.remove_pending_request(fut)
                if attempt >= attempts:
                    raise
                print(f"replay: no answer to {q.question_id} within {limit:.0f} s (attempt {attempt} of "
                      f"{attempts}); asking again", file=sys.stderr)
        rec.latency_s = time.perf_counter() - t
        res = fut.result()
        rec.answer, rec.success, rec.error = res.answer, res.success, res.error
        rec.rounds, rec.searches, rec.cited_memory_ids = res.rounds_used, list(res.searches), list(res.cited_memory_ids)
        try:
            rec.trace = json.loads(res.trace_json) if res.trace_json else {}
        except ValueError:
            rec.trace = {"trace_error": "unreadable trace_json"}
        rec.answer_source = str(rec.trace.get("answer_source") or "unknown")
        if not res.success:
            rec.answer_source = "error"
        return rec

    def replay(self, bag: str | Path, rate: float = 1.0, clip_seconds: float = 30.0,
               questions: list[Question] | None = None, progress: bool = True,
               memorization_timeout: float = 1800.0, fault: Any = None) -> tuple[list[AnswerRecord], ReplayStats]:
        """``fault``: a m3_agent_ros.bags.faults function applied to the messages before publishing them."""
        from tqdm import tqdm

        questions = sorted(questions if questions is not None else bag_questions(bag), key=lambda q: q.time)
        msgs = [m for m in iter_messages(bag) if m.topic != QUESTIONS_TOPIC]
        if fault is not None:
            msgs = fault(msgs)
        topics = sorted({(m.topic, m.msgtype) for m in msgs})
        self.wait_ready(topics)
        stats = ReplayStats(messages=len(msgs), stamp_offset=stamp_offset(msgs))
        records: list[AnswerRecord] = []
        qi = 0
        t_start = time.monotonic()
        stream0 = msgs[0].t if msgs else 0.0
        paused = 0.0
        bar = tqdm(total=len(msgs), unit="msg", desc=f"replay {Path(bag).name}", disable=not progress)

        def ask_due(now_t: float) -> None:
            nonlocal qi, paused
            while qi < len(questions) and questions[qi].time <= now_t:
                q = questions[qi]
                w0 = time.monotonic()
                bound = q.time
                if math.isfinite(q.time):
                    bound = self.sync_to(q.time, stats, memorization_timeout)
                stats.waited_for_memorization_s += time.monotonic() - w0
                records.append(self.ask(q, before_time=bound))
                paused += time.monotonic() - w0
                qi += 1

        for m in msgs:
            ask_due(m.t)
            if rate > 0:
                due = t_start + paused + (m.t - stream0) / rate
                while (left := due - time.monotonic()) > 0:
                    self.executor.spin_once(timeout_sec=min(left, 0.02))
            self._pubs[m.topic].publish(m.raw)
            self.published[m.topic] = self.published.get(m.topic, 0) + 1
            bar.update(1)
            self.executor.spin_once(timeout_sec=0.0)
        bar.close()
        # Flushing commits the last, partial clip: first let the node take in (or account for) everything that
        # was published (the sensor topics are best effort; what never arrives is recorded, not cut off).
        stats.audio_published = sum(1 for m in msgs if m.topic == "/audio")
        stats.published = dict(self.published)
        if msgs:
            self.sync_to(msgs[-1].t, stats, memorization_timeout)
        lost = {k: v for k, v in stats.lost_in_transport.items() if v}
        if lost:
            print(f"replay: messages that never reached the memorization node (best-effort transport, recorded in "
                  f"its store's gaps table): {lost} of {stats.published}", file=sys.stderr)
        if self.flush.wait_for_service(timeout_sec=10.0):
            from std_srvs.srv import Trigger

            fut = self.flush.call_async(Trigger.Request())
            self.wait(fut.done, memorization_timeout, "the memorization node to flush", watch_memorization=True)
        ask_due(math.inf)
        stats.wall_s = time.monotonic() - t_start
        stats.stream_s = (msgs[-1].t - stream0) if msgs else 0.0
        stats.clips_committed = len(self.committed)
        return records, stats


def stamp_offset(msgs: list[Any]) -> float:
    """Header stamps less recording time (the median over the first stamped messages): 0 for a converted bag,
    the recording's start in ROS time for a bag a robot recorded."""
    import statistics

    diffs = [m.stamp - m.t for m in msgs[:200] if m.stamped]
    return float(statistics.median(diffs)) if diffs else 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="m3-replay", description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("bag", help="rosbag2 folder made by m3-bag convert")
    ap.add_argument("--rate", type=float, default=1.0, help="speed-up of recorded timing; 0 = as fast as possible")
    ap.add_argument("--clip-seconds", type=float, default=30.0, help="clip length of the memorization node (s)")
    ap.add_argument("--service", default="/m3_agent/query", help="the Query service to ask")
    ap.add_argument("--out", help="write one JSON record per answer here")
    ap.add_argument("--query-timeout", type=float, default=120.0,
                    help="the control node's query_timeout_s (0 = none): a question unanswered 60 s past it is sent "
                         "again once, then the replay fails")
    a = ap.parse_args(argv)
    rp = Replayer(service=a.service, answer_timeout_s=answer_wait_s(a.query_timeout))
    try:
        records, stats = rp.replay(a.bag, a.rate, a.clip_seconds)
    finally:
        rp.close()
    for r in records:
        print(f"[{r.time:7.1f} s] {r.question}\n    -> {r.answer or r.error}  ({r.latency_s * 1000:.0f} ms)")
    print(json.dumps(asdict(stats)))
    if stats.messages and stats.clips_committed == 0:
        print(f"m3-replay: error: {stats.messages} messages published, no clip memorized (see the memorization "
              f"node's losses: m3-memory gaps DB)", file=sys.stderr)
        return 2
    if a.out:
        Path(a.out).write_text("".join(json.dumps(asdict(r), ensure_ascii=False) + "\n" for r in records))
    return 0 if all(r.success or not r.error for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
