"""The stream pipeline of memorization, ROS-free: stamped camera frames, audio and poses in; committed clips out.

A message goes in with its header stamp and a ``decode`` callable (decoding is skipped for frames the sampling would
drop). Stamps go through :class:`~m3_memory.timeline.StampAnchor` (a robot's ROS-time stamps less the memory's wall
origin) and :class:`~.stream_clock.StreamClocks` (clock jumps re-anchored, duplicates dropped); samples go
through per-rate resamplers into the :class:`~.clips.ClipAssembler`; finished clips wait in a bounded queue
for one worker thread that runs :class:`~m3_memory.memorize.Memorizer` (perception, memory writing, one store
transaction per clip) and hands each result to ``on_clip``.

Nothing is lost silently: every input that does not become memory is recorded in the :class:`StreamLedger` (late,
duplicate, bad, clock_mismatch, overflow, gaps, transport, failed clips, shutdown) and written to the store's
``gaps`` table; the run is recorded in ``runs`` with a heartbeat, and a run that died is found at the next start
(``crash`` gaps). :meth:`StreamPipeline.sync` is a replay's watermark, :meth:`StreamPipeline.flush` the end of a
stream. The memorization node (m3_agent_ros/memorization_node.py) only converts messages, owns the parameters,
timers and publishers, and calls this.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..errors import ClipConflictError
from ..memorize import ClipResult, Memorizer
from ..poses import Pose, PoseRefused, PoseTrack, SharedPoseTrack
from ..store import MemoryStore, stream_records
from ..thread_priority import lower_this_thread
from ..timeline import StampAnchor
from .audio_common import ArrivalStamper, AudioRefused
from .audio_msg import AudioError, StreamResampler
from .clips import AUDIO_TAIL_S, Clip, ClipAssembler
from .frames import FrameError
from .stream_clock import Jump, StreamClocks
from .stream_ledger import RETIMED, StreamLedger

SHUTDOWN_WAIT_S = 2.0   # stop without draining: time for the clip being memorized to commit
CALLBACK_DELAY_WARN_S = 1.0   # a message that waited longer than this for its callback is logged (a new longest)


class Log(Protocol):
    def info(self, msg: str) -> Any: ...
    def warning(self, msg: str) -> Any: ...
    def error(self, msg: str) -> Any: ...


WORKER_NICE = 5   # the memorization worker thread's niceness (Linux threads have their own)

@dataclass(frozen=True)
class IngestSettings:
    clip_seconds: float = 30.0
    sample_fps: float = 1.0
    sample_rate: int = 16000
    audio_grace_s: float = 2.0
    stream_origin: float = 0.0
    max_queued_clips: int = 4
    max_clock_jump_s: float = 10.0
    video_gap_s: float = 2.0
    pose_frame: str = ""
    pose_wait_s: float = 0.0          # 0: no pose stream to wait for
    video_topic: str = ""             # '' = no camera expected
    audio_topic: str = ""             # '' = no microphone expected
    time_zone: str = "UTC"            # of a wall-clock memory (kept in the store with its origin)
    stream_stall_s: float = 5.0       # wall seconds without input after which a lagging stream is not waited for
    motion_fps: float = 5.0           # grey frames kept for lip activity (who of several faces talks); 0: none
    audio_tail_s: float = AUDIO_TAIL_S  # audio after a clip's end kept with it: speech over the end heard whole


@dataclass
class Counters:
    frames: int = 0
    frames_bad: int = 0
    audio_chunks: int = 0
    audio_bad: int = 0
    clips_done: int = 0
    clips_skipped: int = 0
    clips_dropped: int = 0
    clip_errors: int = 0
    processing_s: float = 0.0
    clip_s: float = 0.0
    last_lag_s: float = 0.0
    callback_delay_max_s: float = 0.0   # longest wait between the transport receiving a message and its callback


@dataclass
class SyncResult:
    ok: bool
    watermark: float                  # the watermark in the memory's stream seconds
    memorized_upto: float
    clips_committed: int
    received: dict[str, int] = field(default_factory=dict)
    lost_in_transport: dict[str, int] = field(default_factory=dict)
    message: str = ""


class StreamPipeline:
    def __init__(self, store: MemoryStore, memorizer: Memorizer, settings: IngestSettings, log: Log,
                 source: str, on_clip: Callable[[ClipResult], None] = lambda res: None) -> None:
        self.store, self.memorizer, self.settings, self.log, self.source = store, memorizer, settings, log, source
        self.on_clip = on_clip
        s = settings
        self.ledger = StreamLedger()
        self.clocks = StreamClocks(s.max_clock_jump_s)
        self.stamps = StampAnchor(store.timeline(), lambda stamp: store.anchor_wall_clock(stamp, s.time_zone))
        self.assembler = ClipAssembler(s.clip_seconds, s.sample_fps, s.sample_rate, origin=s.stream_origin,
                                       audio_grace_s=s.audio_grace_s, expect_audio=bool(s.audio_topic),
                                       expect_video=bool(s.video_topic), ledger=self.ledger,
                                       video_topic=s.video_topic or "camera", audio_topic=s.audio_topic or "audio",
                                       video_gap_s=s.video_gap_s, stall_s=s.stream_stall_s, motion_fps=s.motion_fps,
                                       audio_tail_s=s.audio_tail_s)
        self.poses = SharedPoseTrack(PoseTrack(s.pose_frame))
        self.count = Counters()
        self.received: dict[str, int] = {}            # messages received per topic (good or bad)
        self.latest_t = 0.0
        self.first_t: float | None = None
        self.memorized_upto = float("-inf")
        self.current: Clip | None = None              # the clip being memorized
        self._lock = threading.Lock()                 # assembler, clocks and resamplers: touched by callbacks
        self._queue: queue.Queue[Clip | None] = queue.Queue()
        self._idle = threading.Event()
        self._idle.set()
        self._worker: threading.Thread | None = None
        self._resamplers: dict[int, StreamResampler] = {}
        self._arrival = ArrivalStamper()              # stamps of audio without a header
        self._transport_lost: dict[str, int] = {}     # per topic, as established by sync()
        self._bad_topics: set[str] = set()            # topics whose first loss kept its reason
        self._refusals: set[tuple[str, str]] = set()  # (cause, kind) audio refusals whose reason was recorded
        self._last_log: dict[str, float] = {}
        self._run_id: int | None = None
        self._crash_gaps: list[int] = []

    # -- run ---------------------------------------------------------------------------------------
    def start(self) -> None:
        """Record the run (and the span a previous run that died had lost), start the worker."""
        self._run_id, crashed = stream_records.open_run(self.store, self.source)
        self._crash_gaps = [g.id for g in crashed]
        for g in crashed:
            self.log.error(f"a previous run died without closing: stream {g.start_time:.1f}-{g.end_time:.1f} s was "
                           "received but never committed (recorded as a crash gap)")
        self._worker = threading.Thread(target=self._work, name="memorization", daemon=True)
        self._worker.start()

    def stop(self, drain: bool) -> None:
        """End the run: ``drain`` commits the open clips first; otherwise (SIGINT/SIGTERM must end the node in
        seconds) the open and queued clips are recorded as ``shutdown`` gaps."""
        if drain:
            self._finish_stream()
        else:
            self._abandon_pending()
        if self._worker is not None:
            self._queue.put(None)
            self._worker.join(timeout=600 if drain else SHUTDOWN_WAIT_S)
            current = self.current
            if self._worker.is_alive() and current is not None:
                self._record_shutdown_loss(current)   # its transaction rolls back when the process exits
            self._worker = None
        if self._run_id is not None:
            self.heartbeat()
            self.save_losses()
            stream_records.close_run(self.store, self._run_id)
            self._run_id = None

    def _abandon_pending(self) -> None:
        with self._lock:
            clips = self.assembler.flush()
        while True:
            try:
                c = self._queue.get_nowait()
            except queue.Empty:
                break
            if c is not None:
                clips.append(c)
        for c in clips:
            self._record_shutdown_loss(c)
        if clips:
            self.log.warning(f"stopping: {len(clips)} clips not memorized (recorded as shutdown gaps)")

    def _record_shutdown_loss(self, c: Clip) -> None:
        end = max(c.start_time, min(c.end_time, self.assembler.reached))
        self.ledger.record("*", "shutdown", c.start_time, end, detail=f"clip {c.clip_id} not memorized: node stopped")

    # -- input ---------------------------------------------------------------------------------------
    def frame(self, topic: str, stamp: float, decode: Callable[[], np.ndarray], kind: str,
              check: Callable[[], None] | None = None, received: float | None = None) -> None:
        """A camera frame stamped ``stamp``: ``check()`` validates it cheaply (every frame), ``decode()`` only runs
        for the frames the sampling keeps. ``received``: when the transport received it (epoch seconds, e.g. the
        middleware's reception time; default: now), see :meth:`_stream_time`."""
        self.count.frames += 1
        self._received(topic)
        t = self.latest_t
        try:
            with self._lock:
                if check is not None:
                    check()
                mapped = self._stream_time(topic, stamp, received)
                if mapped is None:
                    return
                t = mapped
                if not self.assembler.wants_frame(t):
                    clips = self.assembler.note_video_time(t)
                else:
                    clips = self.assembler.add_frame(t, decode())
            self._note(t)
        except (FrameError, ValueError) as e:
            self.count.frames_bad += 1
            self._drop_bad(topic, kind, t, e)
            return
        self._enqueue(clips)

    def audio(self, topic: str, stamp: float | None, decode: Callable[[], tuple[int, np.ndarray]],
              arrival: float | None = None, arrival_is_start: bool = False, received: float | None = None) -> None:
        """Audio: ``decode()`` gives (sample rate, float32 mono); its time is ``stamp`` (a header stamp), or with
        ``stamp`` None the ``arrival`` time made sample-continuous (audio without a header: ArrivalStamper).
        ``received`` as for :meth:`frame`."""
        self.count.audio_chunks += 1
        self._received(topic)
        t = self.latest_t
        try:
            with self._lock:
                rate, x = decode()
                if stamp is None:
                    if not len(x):
                        return   # nothing decoded yet (an mp3 frame split over messages): no time to stamp
                    assert arrival is not None
                    stamp = self._arrival.stamp(arrival, len(x), rate, start=arrival_is_start)
                mapped = self._stream_time(topic, stamp, received)
                if mapped is None:
                    return
                t = mapped
                rs = self._resamplers.get(rate)
                if rs is None:
                    if self._resamplers:
                        self.log.warning(f"audio sample rate changed to {rate} Hz")
                    rs = self._resamplers[rate] = StreamResampler(rate, self.settings.sample_rate)
                t_out, y = rs.push(t, x)
                clips = self.assembler.add_audio(t_out, y) if len(y) else []
            self._note(t)
        except AudioRefused as e:
            self.count.audio_bad += 1
            first = (e.cause, e.key) not in self._refusals
            self._refusals.add((e.cause, e.key))
            self.ledger.record(topic, e.cause, t, detail=str(e) if first else "")
            self.report(f"audio ({e.cause})", e)
            return
        except (AudioError, ValueError) as e:
            self.count.audio_bad += 1
            self._drop_bad(topic, "audio chunk", t, e)
            return
        self._enqueue(clips)

    def pose(self, topic: str, stamp: float, make: Callable[[float], Pose], received: float | None = None) -> None:
        """A pose sample: ``make(t)`` builds it at stream time ``t``; one the track refuses (NaN, out of order,
        another frame) is counted under its cause. ``received`` as for :meth:`frame`."""
        self._received(topic)
        t = self.latest_t
        try:
            with self._lock:   # the stream clocks are shared with the camera and audio callbacks
                mapped = self._stream_time(topic, stamp, received)
            if mapped is None:
                return
            t = mapped
            self.poses.add(make(t))
        except PoseRefused as e:
            self.ledger.record(topic, e.cause, t, detail=str(e) if topic not in self._bad_topics else "")
            self._bad_topics.add(topic)
            self.report("pose", e)

    def count_received(self, topic: str) -> None:
        """A message on a topic that carries no samples (AudioInfo), counted for sync()."""
        self._received(topic)

    def _received(self, topic: str) -> None:
        self.received[topic] = self.received.get(topic, 0) + 1

    def _note(self, t: float) -> None:
        self.latest_t = max(self.latest_t, t)
        if self.first_t is None:
            self.first_t = t

    def _stream_time(self, topic: str, stamp: float, received: float | None = None) -> float | None:
        """The stamp's stream time (clock jumps re-anchored, counted and logged); None for a duplicate or a stamp
        of the other clock (counted). The clocks judge a stamp against when the message arrived: ``received``, the
        transport's reception time, where the caller has it (a stalled callback thread then does not make the
        backlog look like a clock jump), else now."""
        try:   # ROS-time stamps (a live robot) less the memory's wall origin; stream-time stamps as they are
            stamp = self.stamps.to_stream(stamp)
        except ValueError as e:
            self.ledger.record(topic, "clock_mismatch", self.latest_t,
                               detail=str(e) if topic not in self._bad_topics else "")
            self._bad_topics.add(topic)
            self.report(f"{topic} clock", e)
            return None
        now = time.time()
        delay = now - received if received else 0.0
        if delay > self.count.callback_delay_max_s:
            self.count.callback_delay_max_s = delay
            if delay > CALLBACK_DELAY_WARN_S:
                self.report("callbacks", f"a message on {topic} waited {delay:.1f} s for its callback (the "
                            "process is busy: the queues keep image_queue_depth / audio_queue_depth messages, "
                            "older ones are lost in transport)", level="warning")
        mapped = self.clocks.map(topic, stamp, received if received else now)
        if mapped is None:
            self.ledger.record(topic, "duplicate", self.latest_t)
            return None
        t, jump = mapped
        if jump is not None:
            self._report_jump(jump, t)
        return t

    def _report_jump(self, jump: Jump, t: float) -> None:
        self.ledger.record(jump.topic, jump.cause, t, detail=f"stamp {jump.stamp:.3f} was {jump.delta:+.3f} s off "
                                                             "the stream clock: re-anchored")
        self.report(f"{jump.topic} clock", f"stamp {jump.stamp:.3f} is {jump.delta:+.1f} s off the stream clock "
                    f"(max_clock_jump_s={self.clocks.max_jump_s}): re-anchored, the stream goes on", level="warning")

    def _drop_bad(self, topic: str, kind: str, t: float, err: Exception) -> None:
        """An undecodable message: counted (the first one per topic keeps its error as the gap's detail, later ones
        merge into spans) and logged (rate-limited)."""
        first = topic not in self._bad_topics
        self._bad_topics.add(topic)
        self.ledger.record(topic, "bad", t, detail=str(err) if first else "")
        self.report(kind, err)

    def report(self, kind: str, err: object, level: str = "error") -> None:
        """Log dropped input, at most once per 5 s per kind (a broken camera must not flood the log; the counts
        are complete in the ledger, /diagnostics and the store's gaps table)."""
        now = time.monotonic()
        if now - self._last_log.get(kind, -1e9) >= 5.0:
            self._last_log[kind] = now
            if level == "warning":
                self.log.warning(f"{kind}: {err}")
            else:
                self.log.error(f"{kind} dropped: {err}")

    def _enqueue(self, clips: list[Clip]) -> None:
        for c in clips:
            if self._queue.qsize() >= self.settings.max_queued_clips:
                self.count.clips_dropped += 1
                self.ledger.record("*", "overflow", c.start_time, c.end_time,
                                   detail=f"clip {c.clip_id}: {self._queue.qsize()} clips already queued")
                self.log.error(f"clip {c.clip_id} dropped: {self._queue.qsize()} clips already queued "
                               "(memorization slower than real time; lower sample_fps or use a GPU)")
                continue
            self._idle.clear()
            self._queue.put(c)

    def _commit(self, clips: list[Clip]) -> None:
        for c in clips:   # the end of a stream or a watermark never drops clips
            self._idle.clear()
            self._queue.put(c)

    def _finish_stream(self) -> None:
        with self._lock:
            clips = self.assembler.flush()
        self._commit(clips)

    # -- end of stream, watermark ---------------------------------------------------------------------
    def flush(self, timeout_s: float = 600.0) -> bool:
        """Finish the open clips (end of stream) and wait until they are committed."""
        self._finish_stream()
        return self._idle.wait(timeout=timeout_s)

    def sync(self, stamp: float, published: dict[str, int], receive_timeout_s: float = 5.0,
             timeout_s: float = 600.0) -> SyncResult:
        """A replay's watermark: every message stamped before ``stamp`` (a header stamp) is published,
        ``published[topic]`` of them so far. Waits (at most ``receive_timeout_s``) for them to arrive, records what
        never did as lost in transport, finishes the clips that end by the watermark and waits until they are
        committed."""
        with self._lock:
            mark = self.stamps.watermark(stamp)
        deadline = time.monotonic() + max(0.0, receive_timeout_s)
        while any(self.received.get(t, 0) < n for t, n in published.items()) and time.monotonic() < deadline:
            time.sleep(0.01)
        for topic, n in published.items():   # cumulative counts: a message late for an earlier watermark is taken back
            lost = max(0, n - self.received.get(topic, 0))
            was = self._transport_lost.get(topic, 0)
            if lost > was:
                self.ledger.record(topic, "transport", self.latest_t, max(mark, self.latest_t), count=lost - was)
                self.log.warning(f"{lost - was} messages published on {topic} never arrived (best-effort transport): "
                                 "recorded as lost")
            elif lost < was:
                self.ledger.retract(topic, "transport", was - lost)
                self.log.info(f"{was - lost} messages on {topic} recorded as lost in transport arrived after their "
                              "watermark: taken back (they count as memorized or as late)")
            self._transport_lost[topic] = lost
        with self._lock:
            clips = self.assembler.advance_to(mark)
        self._commit(clips)
        ok = self._idle.wait(timeout=timeout_s if timeout_s > 0 else 600.0)
        topics = sorted(set(self.received) | set(published))
        upto = float(max(self.memorized_upto, -1.0))
        return SyncResult(ok, float(mark), upto, self.count.clips_done,
                          {t: self.received.get(t, 0) for t in topics},
                          {t: self._transport_lost.get(t, 0) for t in topics},
                          f"memorized up to {upto:.1f} s" if ok else f"timed out: {self._queue.qsize()} clips "
                                                                     "still queued")

    # -- records --------------------------------------------------------------------------------------
    def save_losses(self) -> None:
        """Write the losses recorded since the last call to the store's gaps table (kept on failure)."""
        losses = self.ledger.take()
        if not losses:
            return
        try:
            stream_records.record_gaps(self.store, losses, source=self.source)
        except Exception as e:   # e.g. the database server is down: kept, written by a later call
            self.ledger.put_back(losses)
            self.report("gap records", f"{len(losses)} not written yet (kept for the next try): {e}", "warning")

    def finish_stalled(self) -> None:
        """Queue the clips that a stopped stream leaves finished (no input will come to finish them): call it
        periodically."""
        with self._lock:
            clips = self.assembler.poll()
        self._enqueue(clips)

    def heartbeat(self) -> None:
        if self._run_id is None:
            return
        try:
            if self._crash_gaps and self.first_t is not None:
                stream_records.extend_crash_gaps(self.store, self._crash_gaps, self.first_t)
                self._crash_gaps = []
            stream_records.heartbeat(self.store, self._run_id, self.first_t,
                                     self.latest_t if self.first_t is not None else None)
        except Exception as e:
            self.report("run heartbeat", e)

    def status(self) -> tuple[str, str, dict[str, Any]]:
        """(level "ok" | "warn", message, values) for /diagnostics: queue, lag, real-time factor, per topic what was
        received, lost (``lost.<topic>.<cause>``), re-timed and the gap seconds."""
        c = self.count
        rtf = c.processing_s / c.clip_s if c.clip_s else 0.0
        lost = self.ledger.lost_messages()
        level, message = "ok", "ok"
        if c.clips_dropped or rtf > 1.0 or lost:
            level = "warn"
            message = ("slower than real time" if rtf > 1.0 else "clips dropped" if c.clips_dropped
                       else f"{lost} inputs not memorized (lost.* counts; gaps table)")
        values: dict[str, Any] = {
            "queue_depth": self._queue.qsize(), "processing_lag_s": round(c.last_lag_s, 2),
            "callback_delay_max_s": round(c.callback_delay_max_s, 3),
            "real_time_factor": round(rtf, 3), "clips_committed": c.clips_done, "clips_skipped": c.clips_skipped,
            "clips_dropped": c.clips_dropped, "clip_errors": c.clip_errors, "frames": c.frames,
            "frames_bad": c.frames_bad, "audio_chunks": c.audio_chunks, "audio_bad": c.audio_bad,
            "memorized_upto": round(self.memorized_upto, 3) if self.memorized_upto > -1 else -1,
            "latest_stream_time": round(self.latest_t, 3), "inputs_lost": lost,
            "clip_in_progress": self.current.clip_id if self.current is not None else -1}
        for topic, n in self.received.items():
            values[f"received.{topic}"] = n
        for topic, causes in self.ledger.counts().items():
            for cause, n in causes.items():
                values[f"{'retimed' if cause in RETIMED else 'lost'}.{topic}.{cause}"] = n
        for topic, causes in self.ledger.seconds().items():
            for cause, secs in causes.items():
                values[f"gap_s.{topic}.{cause}"] = secs
        return level, message, values

    # -- work -------------------------------------------------------------------------------------------
    def _work(self) -> None:
        # memorization has slack (real-time factor well below 1): the robot answering a question (another process)
        # and the store's searches get the CPU first; a clip that cannot keep up shows as queue lag and overflow
        lower_this_thread(WORKER_NICE)
        while True:
            clip = self._queue.get()
            if clip is None:
                return
            self.current = clip
            try:
                t = time.perf_counter()
                clip.poses = self.poses.window_when_covered(clip.start_time, clip.end_time, self.settings.pose_wait_s)
                try:
                    res = self.memorizer.process(clip)
                except ClipConflictError as e:   # a forget / split elsewhere while it was written: nothing stored
                    self.log.warning(f"clip {clip.clip_id}: {e}; writing it again")
                    res = self.memorizer.process(clip)
                elapsed = time.perf_counter() - t
                if res.skipped:
                    self.count.clips_skipped += 1
                    self.log.info(f"clip {clip.clip_id} already in the store: skipped (resume)")
                else:
                    self.count.clips_done += 1
                    self.count.processing_s += elapsed
                    self.count.clip_s += clip.duration
                    self.count.last_lag_s = max(0.0, self.latest_t - clip.end_time)
                    if res.errors:
                        self.count.clip_errors += 1
                    for cause, spans in res.unattributed_by_cause:
                        for a, b in spans:   # heard, but no voice or transcript: counted
                            self.ledger.record(self.settings.audio_topic or "audio", cause, a, b)
                    self.on_clip(res)
                    self.log.info(f"clip {clip.clip_id} [{clip.start_time:.0f}-{clip.end_time:.0f} s]: "
                                  f"{len(res.node_ids)} nodes in {elapsed:.2f} s (RTF "
                                  f"{elapsed / max(clip.duration, 1e-9):.2f})"
                                  + (f", errors: {res.errors}" if res.errors else ""))
            except Exception as e:  # a failing clip must not stop the node
                self.count.clip_errors += 1
                self.ledger.record("*", "clip_error", clip.start_time, clip.end_time,
                                   detail=f"clip {clip.clip_id}: {type(e).__name__}: {e}"[:500])
                self.log.error(f"clip {clip.clip_id} failed: {type(e).__name__}: {e}")
            finally:
                self.current = None
                self.memorized_upto = max(self.memorized_upto, clip.end_time)
                self.save_losses()
                if self._queue.empty():
                    self._idle.set()
