"""Memorization node: camera + audio topics -> clips -> memories in the SQLite store (a rclpy LifecycleNode).

    python -m m3_agent_ros.memorization_node --ros-args --params-file config/default.yaml [-p db_path:=...]

Subscriptions (sensor-data QoS): sensor_msgs/Image, sensor_msgs/CompressedImage and audio of ``audio_msg_type``:
m3_agent/msg/AudioChunk, or the robot's own microphone messages when the optional ROS package audio_common_msgs is
installed (m3_agent_ros/audio_inputs.py): audio_common 4.x AudioStamped, or ros-drivers audio_common AudioData /
AudioDataStamped with their format from AudioInfo on ``audio_info_topic``. Every sample format, rate and channel
count is converted and resampled (m3_memory.audio_common); what cannot be (an unknown format, data before any
AudioInfo) is counted as lost with its reason. AudioData has no header: it is stamped with the node's clock at
arrival (kept sample-continuous within 0.5 s of jitter, m3_memory.audio_common.ArrivalStamper).
Callbacks only decode and hand data to the clip assembler (m3_memory.clips); finished clips go through a
bounded queue to one worker thread that runs m3_memory.memorize.Memorizer (perception, memory writing, one
store transaction per clip) and publishes an m3_agent/msg/MemoryEvent per committed clip. Bad input (corrupt
JPEG, unknown encoding, wrong sample rate, NaN audio) is logged, counted and dropped; the node keeps running.
``~/flush`` (std_srvs/Trigger) finishes the open clips (end of stream) and waits until they are committed;
``~/sync`` (m3_agent/srv/SyncStream) is a replay's watermark: it accounts for messages lost in transport and
finishes the clips that end by a stream time.

Nothing is lost silently: stamps go through m3_memory.stream_clock (a clock jump re-anchors the topic instead of
silencing it; duplicates are dropped), and every input that does not become memory (late, duplicate, bad,
overflow, gaps, transport, failed clips) is counted per topic and cause in /diagnostics (``lost.<topic>.<cause>``)
and written to the store's ``gaps`` table. The node records its run in the store (``runs``, 1 Hz heartbeat); a
run that died (kill -9) is found at the next start and the span it lost is recorded as a ``crash`` gap.
Diagnostics (queue depth, processing lag, real-time factor, drop counters) go to /diagnostics at 1 Hz.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

from builtin_interfaces.msg import Time as TimeMsg
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import PoseStamped
from m3_agent.msg import AudioChunk, MemoryEvent
from m3_agent.srv import SyncStream
from nav_msgs.msg import Odometry
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.lifecycle import LifecycleState, TransitionCallbackReturn
from rclpy.qos import DurabilityPolicy, QoSProfile, qos_profile_sensor_data
from sensor_msgs.msg import CompressedImage, Image
from std_msgs.msg import Header
from std_srvs.srv import Trigger

from m3_agent_ros.audio_inputs import AudioTypes, load_audio_types
from m3_agent_ros.lifecycle_base import M3LifecycleNode, run_node
from m3_agent_ros.params import MemorizationParams
from m3_memory import MemoryStore, stream_records
from m3_memory.audio_common import TYPED_FIELDS, ArrivalStamper, AudioDataDecoder, AudioRefused, decode_typed
from m3_memory.audio_msg import AudioError, StreamResampler, decode_chunk
from m3_memory.clips import Clip, ClipAssembler
from m3_memory.frames import FrameError, check_compressed, check_raw, decode_compressed, decode_raw
from m3_memory.memorize import ClipResult, Memorizer
from m3_memory.poses import Pose, PoseRefused, PoseTrack, SharedPoseTrack, parse_places, yaw_from_quaternion
from m3_memory.stream_clock import Jump, StreamClocks
from m3_memory.stream_ledger import RETIMED, StreamLedger
from m3_memory.timeline import StampAnchor, local_zone
from m3_memory.where import save_places

NODE_NAME = "m3_agent_memorization"
POSE_QUEUE = 500        # pose subscription depth (10 s of 50 Hz odometry)
SHUTDOWN_WAIT_S = 2.0   # SIGINT/SIGTERM: time for the clip being memorized to commit (+ 2 s grace: < 5 s)
# topic parameters: relative names by default (a namespace or remap moves them), resolved once at configure
TOPIC_PARAMS = ("image_topic", "compressed_topic", "audio_topic", "event_topic", "pose_topic", "audio_info_topic")


def stamp_seconds(msg: object) -> float:
    st = msg.header.stamp  # type: ignore[attr-defined]
    return st.sec + st.nanosec * 1e-9


class Counters:
    def __init__(self) -> None:
        self.frames = self.frames_bad = self.audio_chunks = self.audio_bad = 0
        self.clips_done = self.clips_skipped = self.clips_dropped = self.clip_errors = 0
        self.processing_s = self.clip_s = 0.0
        self.last_lag_s = 0.0


class _ArrivalStamp:
    """A header for audio that has none: its stamp is the node's clock at arrival (ArrivalStamper)."""

    def __init__(self, t: float) -> None:
        ns = int(round(t * 1e9))
        self.header = Header(stamp=TimeMsg(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000))


class MemorizationNode(M3LifecycleNode):
    PARAMS = MemorizationParams

    def __init__(self, node_name: str = NODE_NAME) -> None:
        super().__init__(node_name)
        self.params: MemorizationParams | None = None
        self.store: MemoryStore | None = None
        self.memorizer: Memorizer | None = None
        self.assembler: ClipAssembler | None = None
        self._lock = threading.Lock()   # assembler + resamplers, touched by callbacks
        self._queue: queue.Queue[Clip | None] = queue.Queue()
        self._worker: threading.Thread | None = None
        self._resamplers: dict[int, StreamResampler] = {}
        self._audio_types: AudioTypes | None = None    # audio_msg_type's classes (configure)
        self._audio_decoder = AudioDataDecoder()       # ros-drivers AudioData: the latest AudioInfo's format
        self._arrival = ArrivalStamper()               # stamps of audio without a header
        self._audio_refusals: set[tuple[str, str]] = set()   # (cause, kind) refusals whose reason was recorded
        self._subs: list = []
        self._event_pub = None
        self._diag_pub = None
        self._diag_timer = None
        self._flush_srv = None
        self._idle = threading.Event()
        self._idle.set()
        self.count = Counters()
        self._latest_stream_t = 0.0
        self._memorized_upto = float("-inf")
        self._current_clip: Clip | None = None
        self._last_bad_log: dict[str, float] = {}
        self._cb_group = MutuallyExclusiveCallbackGroup()
        # poses arrive at 10-50 Hz and cost microseconds: their own group, so they are never queued behind a JPEG
        # decode or an audio resample (a full best-effort queue drops them)
        self._pose_group = MutuallyExclusiveCallbackGroup()
        self._srv_group = MutuallyExclusiveCallbackGroup()
        self.ledger = StreamLedger()
        self.clocks: StreamClocks | None = None
        self.stamps: StampAnchor | None = None
        self.received: dict[str, int] = {}            # messages received per topic (good or bad)
        self._transport_lost: dict[str, int] = {}     # per topic, as established by ~/sync
        self._run_id: int | None = None
        self._first_stream_t: float | None = None
        self._sync_srv = None
        self._crash_gaps: list[int] = []
        self._bad_topics: set[str] = set()   # recorded at start; extended to where the stream resumed
        self._poses = SharedPoseTrack()

    # -- lifecycle ---------------------------------------------------------------------------------
    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        try:
            p = self.read_params()
            p.check()
            # fully qualified (namespace, remaps applied): the names subscriptions, the ledger and ~/sync agree on
            p = replace(p, **{k: self.resolve_topic_name(getattr(p, k)) for k in TOPIC_PARAMS if getattr(p, k, "")})
            from m3_memory.perception.stages import make_face_stage, make_voice_stage

            # the audio message type first: a missing audio_common_msgs fails configure before models load
            self._audio_types = load_audio_types(p.audio_msg_type) if p.audio_topic else None
            self.store = MemoryStore(str(Path(p.db_path).expanduser()))
            self.memorizer = Memorizer(self.store, make_face_stage(p.face_backend, p.face_model_dir),
                                       make_voice_stage(p.voice_backend, p.voice_model_dir, p.asr_model,
                                                        p.sample_rate, overlap_aware=p.voice_overlap_aware,
                                                        speakers_from=p.voice_diarizer),
                                       p.writer_config(), source=self.get_name())
            self.ledger = StreamLedger()
            self._bad_topics = set()
            self.clocks = StreamClocks(p.max_clock_jump_s)
            store, zone = self.store, p.time_zone or local_zone()
            self.stamps = StampAnchor(store.timeline(), lambda stamp: store.anchor_wall_clock(stamp, zone))
            self.assembler = ClipAssembler(p.clip_seconds, p.sample_fps, p.sample_rate, origin=p.stream_origin,
                                           audio_grace_s=p.audio_grace_s, expect_audio=bool(p.audio_topic),
                                           expect_video=bool(p.image_topic or p.compressed_topic),
                                           ledger=self.ledger, video_topic=p.video_label(),
                                           audio_topic=p.audio_topic or "audio", video_gap_s=p.video_gap_s)
            self._poses = SharedPoseTrack(PoseTrack(p.pose_frame))
            if p.places_file:
                import yaml

                places = parse_places(yaml.safe_load(Path(p.places_file).expanduser().read_text()))
                save_places(self.store, places)
                self.get_logger().info(f"{len(places)} named places from {p.places_file}")
            # lifecycle publishers: they exist from configure to cleanup and publish only while active.
            # MemoryEvent is transient-local: a subscriber that joins late (a browser, a restarted control node)
            # gets the last 100 events, also across deactivate/activate
            self._event_pub = self.create_lifecycle_publisher(MemoryEvent, p.event_topic, QoSProfile(
                depth=100, durability=DurabilityPolicy.TRANSIENT_LOCAL))
            self._diag_pub = self.create_lifecycle_publisher(DiagnosticArray, "/diagnostics", 10)
            self.params = p
        except Exception as e:
            self.get_logger().error(f"configure failed: {type(e).__name__}: {e}")
            self.release()
            return TransitionCallbackReturn.FAILURE
        last = self.store.last_clip()
        self.get_logger().info(f"configured: store {p.db_path} (last committed clip: {last}), writer "
                               f"{p.memory_writer}, faces {p.face_backend}, voices {p.voice_backend}")
        return super().on_configure(state)

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        p = self.params
        assert p is not None

        def sensor_qos(depth: int) -> QoSProfile:
            return QoSProfile(depth=depth, reliability=qos_profile_sensor_data.reliability,
                              history=qos_profile_sensor_data.history, durability=qos_profile_sensor_data.durability)

        image_qos, audio_qos = sensor_qos(p.image_queue_depth), sensor_qos(p.audio_queue_depth)
        if p.image_topic:
            self._subs.append(self.create_subscription(Image, p.image_topic, self._on_image,
                                                       image_qos, callback_group=self._cb_group))
        if p.compressed_topic:
            self._subs.append(self.create_subscription(CompressedImage, p.compressed_topic, self._on_compressed,
                                                       image_qos, callback_group=self._cb_group))
        if p.audio_topic:
            self._subscribe_audio(p, audio_qos)
        if p.pose_topic:
            msg_type = Odometry if p.pose_type == "odometry" else PoseStamped
            self._subs.append(self.create_subscription(msg_type, p.pose_topic, self._on_pose, sensor_qos(POSE_QUEUE),
                                                       callback_group=self._pose_group))
        self._flush_srv = self.create_service(Trigger, "~/flush", self._on_flush, callback_group=self._srv_group)
        self._sync_srv = self.create_service(SyncStream, "~/sync", self._on_sync, callback_group=self._srv_group)
        assert self.store is not None
        self._run_id, crashed = stream_records.open_run(self.store, self.get_fully_qualified_name())
        self._crash_gaps = [g.id for g in crashed]
        for g in crashed:
            self.get_logger().error(f"a previous run died without closing: stream {g.start_time:.1f}-"
                                    f"{g.end_time:.1f} s was received but never committed (recorded as a crash gap)")
        self._diag_timer = self.create_timer(1.0, self._publish_diagnostics)
        self._worker = threading.Thread(target=self._work, name="memorization", daemon=True)
        self._worker.start()
        self.get_logger().info(f"active: memorizing {[s.topic_name for s in self._subs]}")
        return super().on_activate(state)

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        self._stop_io(drain=True)
        return super().on_deactivate(state)

    def _stop_io(self, drain: bool) -> None:
        for s in self._subs:
            self.destroy_subscription(s)
        self._subs = []
        for attr, destroy in (("_flush_srv", self.destroy_service), ("_sync_srv", self.destroy_service),
                              ("_diag_timer", self.destroy_timer)):
            obj = getattr(self, attr)
            if obj is not None:
                destroy(obj)
                setattr(self, attr, None)
        if drain:
            self._finish_stream()  # commit the open clips (their events go out: the node is still active here)
        if not drain:
            self._abandon_pending()
        if self._worker is not None:
            self._queue.put(None)
            self._worker.join(timeout=600 if drain else SHUTDOWN_WAIT_S)
            current = self._current_clip
            if self._worker.is_alive() and current is not None:
                self._record_shutdown_loss(current)   # its transaction rolls back when the process exits
            self._worker = None
        if self._run_id is not None and self.store is not None:
            self._heartbeat()
            self._save_losses()
            stream_records.close_run(self.store, self._run_id)
            self._run_id = None

    def _abandon_pending(self) -> None:
        """Stopping without draining (SIGINT/SIGTERM must end the node in seconds): the open and queued clips are
        not memorized; each is recorded as a ``shutdown`` gap, so the store says what is missing."""
        with self._lock:
            clips = self.assembler.flush() if self.assembler is not None else []
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
            self.get_logger().warning(f"stopping: {len(clips)} clips not memorized (recorded as shutdown gaps)")

    def _record_shutdown_loss(self, c: Clip) -> None:
        reached = self.assembler.reached if self.assembler is not None else self._latest_stream_t
        end = max(c.start_time, min(c.end_time, reached))
        self.ledger.record("*", "shutdown", c.start_time, end, detail=f"clip {c.clip_id} not memorized: node stopped")

    def release(self) -> None:
        self._stop_io(drain=False)
        for attr in ("_event_pub", "_diag_pub"):
            pub = getattr(self, attr)
            if pub is not None:
                setattr(self, attr, None)
                self.destroy_lifecycle_publisher(pub)
        if self.store is not None:
            store, self.store = self.store, None
            store.close()
        self.memorizer = None
        self.assembler = None

    # -- input -------------------------------------------------------------------------------------
    def _enqueue(self, clips: list[Clip]) -> None:
        assert self.params is not None
        for c in clips:
            if self._queue.qsize() >= self.params.max_queued_clips:
                self.count.clips_dropped += 1
                self.ledger.record("*", "overflow", c.start_time, c.end_time,
                                   detail=f"clip {c.clip_id}: {self._queue.qsize()} clips already queued")
                self.get_logger().error(f"clip {c.clip_id} dropped: {self._queue.qsize()} clips already queued "
                                        "(memorization slower than real time; lower sample_fps or use a GPU)")
                continue
            self._idle.clear()
            self._queue.put(c)

    def _drop_bad(self, topic: str, kind: str, t: float, err: Exception) -> None:
        """An undecodable message: counted in the ledger (the first one per topic keeps its error as the gap's
        detail, later ones merge into spans) and logged (rate-limited)."""
        first = topic not in self._bad_topics
        self._bad_topics.add(topic)
        self.ledger.record(topic, "bad", t, detail=str(err) if first else "")
        self._report_bad(kind, err)

    def _report_bad(self, kind: str, err: object, level: str = "error") -> None:
        """Log dropped input, at most once per 5 s per input kind (a broken camera must not flood the log; the
        counts are complete in /diagnostics and the store's gaps table)."""
        now = time.monotonic()
        if now - self._last_bad_log.get(kind, -1e9) >= 5.0:
            self._last_bad_log[kind] = now
            if level == "warning":
                self.get_logger().warning(f"{kind}: {err}")
            else:
                self.get_logger().error(f"{kind} dropped: {err}")

    def _stream_time(self, topic: str, msg: object) -> float | None:
        """The message's stream time (clock jumps re-anchored, counted and logged); None for a duplicate."""
        assert self.clocks is not None and self.stamps is not None
        try:   # ROS-time stamps (a live robot) less the memory's wall origin; stream-time stamps as they are
            stamp = self.stamps.to_stream(stamp_seconds(msg))
        except ValueError as e:
            self.ledger.record(topic, "clock_mismatch", self._latest_stream_t,
                               detail=str(e) if topic not in self._bad_topics else "")
            self._bad_topics.add(topic)
            self._report_bad(f"{topic} clock", e)
            return None
        mapped = self.clocks.map(topic, stamp, time.monotonic())
        if mapped is None:
            self.ledger.record(topic, "duplicate", self._latest_stream_t)
            return None
        t, jump = mapped
        if jump is not None:
            self._report_jump(jump, t)
        return t

    def _report_jump(self, jump: Jump, t: float) -> None:
        self.ledger.record(jump.topic, jump.cause, t, detail=f"stamp {jump.stamp:.3f} was {jump.delta:+.3f} s off "
                                                             "the stream clock: re-anchored")
        self._report_bad(f"{jump.topic} clock", f"stamp {jump.stamp:.3f} is {jump.delta:+.1f} s off the stream "
                         f"clock (max_clock_jump_s={self.clocks.max_jump_s if self.clocks else 0}): "
                         "re-anchored, the stream goes on", level="warning")

    def _on_frame(self, msg: object, topic: str, decode: object, kind: str, check: object = None) -> None:
        self.count.frames += 1
        self.received[topic] = self.received.get(topic, 0) + 1
        t = self._latest_stream_t
        try:
            with self._lock:
                if self.assembler is None:
                    return
                if check is not None:
                    check()  # type: ignore[operator]
                mapped = self._stream_time(topic, msg)
                if mapped is None:
                    return
                t = mapped
                if not self.assembler.wants_frame(t):  # skip decoding frames the sampling would drop
                    clips = self.assembler.note_video_time(t)
                else:
                    clips = self.assembler.add_frame(t, decode())  # type: ignore[operator]
            self._note_stream_time(t)
        except (FrameError, ValueError) as e:
            self.count.frames_bad += 1
            self._drop_bad(topic, kind, t, e)
            return
        self._enqueue(clips)

    def _note_stream_time(self, t: float) -> None:
        self._latest_stream_t = max(self._latest_stream_t, t)
        if self._first_stream_t is None:
            self._first_stream_t = t

    def _on_image(self, msg: Image) -> None:
        assert self.params is not None
        self._on_frame(msg, self.params.image_topic,
                       lambda: decode_raw(msg.encoding, msg.height, msg.width, msg.step, bytes(msg.data),
                                          bool(msg.is_bigendian)), "raw frame",
                       lambda: check_raw(msg.encoding, msg.height, msg.width, msg.step, len(msg.data)))

    def _on_compressed(self, msg: CompressedImage) -> None:
        assert self.params is not None
        self._on_frame(msg, self.params.compressed_topic, lambda: decode_compressed(msg.format, bytes(msg.data)),
                       "compressed frame", lambda: check_compressed(msg.format, msg.data))

    def _on_pose(self, msg: Odometry | PoseStamped) -> None:
        """A pose sample joins the track (clips, turns and appearances get the pose at their time); one that
        cannot (NaN, out of order, another frame) is counted per cause like any other lost input."""
        assert self.params is not None
        topic = self.params.pose_topic
        self.received[topic] = self.received.get(topic, 0) + 1
        t = self._latest_stream_t
        try:
            with self._lock:  # the stream clocks are shared with the camera and audio callbacks
                mapped = self._stream_time(topic, msg)
            if mapped is None:
                return
            t = mapped
            pose = msg.pose.pose if isinstance(msg, Odometry) else msg.pose
            q = pose.orientation
            self._poses.add(Pose(t, pose.position.x, pose.position.y, yaw_from_quaternion(q.x, q.y, q.z, q.w),
                                 pose.position.z, msg.header.frame_id))
        except PoseRefused as e:
            self.ledger.record(topic, e.cause, t, detail=str(e) if topic not in self._bad_topics else "")
            self._bad_topics.add(topic)
            self._report_bad("pose", e)

    def _subscribe_audio(self, p: MemorizationParams, audio_qos: QoSProfile) -> None:
        types = self._audio_types
        assert types is not None
        self._audio_decoder, self._arrival, self._audio_refusals = AudioDataDecoder(), ArrivalStamper(), set()
        callback = (self._on_audio if types.data is AudioChunk else
                    self._on_audio_stamped if types.typed else self._on_audio_data)
        self._subs.append(self.create_subscription(types.data, p.audio_topic, callback, audio_qos,
                                                   callback_group=self._cb_group))
        if types.info is None:
            return
        # AudioInfo: drivers publish it reliable + volatile, repeated (ros-drivers audio_capture: every 5 s) or once,
        # latched (transient local). A best-effort volatile reader matches every publisher (and counts what it gets,
        # for ~/sync); a reliable transient-local one also gets a latched message published before the node started
        # (it does not match volatile publishers: that QoS mismatch is expected, so not logged).
        try:
            from rclpy.event_handler import SubscriptionEventCallbacks
        except ImportError:  # Humble
            from rclpy.qos_event import SubscriptionEventCallbacks

        self._subs.append(self.create_subscription(
            types.info, p.audio_info_topic, lambda m: self._on_audio_info(m, counted=True),
            QoSProfile(depth=10, reliability=qos_profile_sensor_data.reliability), callback_group=self._cb_group))
        self._subs.append(self.create_subscription(
            types.info, p.audio_info_topic, lambda m: self._on_audio_info(m, counted=False),
            QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL), callback_group=self._cb_group,
            event_callbacks=SubscriptionEventCallbacks(incompatible_qos=lambda _event: None)))

    def _on_audio(self, msg: AudioChunk) -> None:
        self._take_audio(msg, lambda: (msg.sample_rate,
                                       decode_chunk(msg.encoding, msg.channels, msg.sample_rate, bytes(msg.data))))

    def _on_audio_stamped(self, msg: object) -> None:
        """audio_common 4.x AudioStamped: info.format (PortAudio constant) says which typed array holds the samples."""
        a = msg.audio  # type: ignore[attr-defined]
        self._take_audio(msg, lambda: (int(a.info.rate), decode_typed(
            a.info.format, a.info.channels, a.info.rate, {f: getattr(a.audio_data, f) for f in TYPED_FIELDS})))

    def _on_audio_data(self, msg: object) -> None:
        """ros-drivers AudioData (no header: stamped with the node's clock at arrival) or AudioDataStamped, in the
        format of the latest AudioInfo. Decoded MP3 lags its messages by a frame or so: its header stamps are made
        sample-continuous like arrival times (ArrivalStamper) instead of restarting the resampler at each one."""
        assert self._audio_types is not None
        stamped = self._audio_types.stamped
        data = msg.audio.data if stamped else msg.data  # type: ignore[attr-defined]

        def decode() -> tuple[int, object]:
            return self._audio_decoder.decode(bytes(data))

        if not stamped:
            self._take_audio(None, decode, self.get_clock().now().nanoseconds * 1e-9)
        elif self._audio_decoder.compressed:
            self._take_audio(None, decode, stamp_seconds(msg), arrival_is_start=True)
        else:
            self._take_audio(msg, decode)

    def _on_audio_info(self, msg: object, counted: bool) -> None:
        assert self.params is not None
        if counted:
            topic = self.params.audio_info_topic
            self.received[topic] = self.received.get(topic, 0) + 1
        with self._lock:
            changed = self._audio_decoder.set_info(msg.channels, msg.sample_rate,  # type: ignore[attr-defined]
                                                   msg.sample_format, msg.coding_format)  # type: ignore[attr-defined]
            fmt, refusal = self._audio_decoder.format, self._audio_decoder.refusal
        if changed and refusal is not None:
            self.get_logger().error(f"audio format from {self.params.audio_info_topic} is unusable: {refusal} "
                                    f"(the audio on {self.params.audio_topic} is counted as lost until it changes)")
        elif changed and fmt is not None:
            self.get_logger().info(f"audio format from {self.params.audio_info_topic}: {fmt.describe()}")

    def _take_audio(self, msg: object | None, decode: object, arrival: float | None = None,
                    arrival_is_start: bool = False) -> None:
        """One audio message: ``decode()`` gives (sample rate, float32 mono); its stamp is ``msg``'s header, or
        with ``msg`` None the ``arrival`` time made sample-continuous (ArrivalStamper)."""
        self.count.audio_chunks += 1
        assert self.params is not None
        topic = self.params.audio_topic
        self.received[topic] = self.received.get(topic, 0) + 1
        t = self._latest_stream_t
        try:
            with self._lock:
                if self.assembler is None:
                    return
                rate, x = decode()  # type: ignore[operator]
                if msg is None:
                    if not len(x):
                        return   # nothing decoded yet (an mp3 frame split over messages): no time to stamp
                    assert arrival is not None
                    msg = _ArrivalStamp(self._arrival.stamp(arrival, len(x), rate, start=arrival_is_start))
                mapped = self._stream_time(topic, msg)
                if mapped is None:
                    return
                t = mapped
                rs = self._resamplers.get(rate)
                if rs is None:
                    if self._resamplers:
                        self.get_logger().warning(f"audio sample rate changed to {rate} Hz")
                    rs = self._resamplers[rate] = StreamResampler(rate, self.params.sample_rate)
                t_out, y = rs.push(t, x)
                clips = self.assembler.add_audio(t_out, y) if len(y) else []
            self._note_stream_time(t)
        except AudioRefused as e:
            self.count.audio_bad += 1
            self._refuse_audio(topic, t, e)
            return
        except (AudioError, ValueError) as e:
            self.count.audio_bad += 1
            self._drop_bad(topic, "audio chunk", t, e)
            return
        self._enqueue(clips)

    def _refuse_audio(self, topic: str, t: float, err: AudioRefused) -> None:
        """Audio that cannot be converted: counted under its cause; the first refusal of each kind keeps its reason
        as the gap's detail (later ones merge into its span)."""
        first = (err.cause, err.key) not in self._audio_refusals
        self._audio_refusals.add((err.cause, err.key))
        self.ledger.record(topic, err.cause, t, detail=str(err) if first else "")
        self._report_bad(f"audio ({err.cause})", err)

    def _finish_stream(self) -> None:
        with self._lock:
            clips = self.assembler.flush() if self.assembler is not None else []
        for c in clips:
            self._idle.clear()
            self._queue.put(c)  # end of stream: never drop the last clips

    def _on_sync(self, request: SyncStream.Request, response: SyncStream.Response) -> SyncStream.Response:
        """Replay watermark: wait for what was published to arrive (what never does is lost in transport),
        finish the clips ending by ``stream_time`` and wait until they are committed. ``stream_time`` is a header
        stamp: ROS time on a wall-clock memory, mapped to stream seconds here (``watermark`` in the response)."""
        want = dict(zip(request.topics, request.published, strict=False))
        with self._lock:
            mark = self.stamps.watermark(request.stream_time) if self.stamps is not None else request.stream_time
        deadline = time.monotonic() + max(0.0, request.receive_timeout_s or 5.0)
        while any(self.received.get(t, 0) < n for t, n in want.items()) and time.monotonic() < deadline:
            time.sleep(0.01)
        for topic, n in want.items():
            missing = n - self.received.get(topic, 0) - self._transport_lost.get(topic, 0)
            if missing > 0:
                self._transport_lost[topic] = self._transport_lost.get(topic, 0) + missing
                self.ledger.record(topic, "transport", self._latest_stream_t, max(mark, self._latest_stream_t),
                                   count=missing)
                self.get_logger().warning(f"{missing} messages published on {topic} never arrived (best-effort "
                                          "transport): recorded as lost")
        with self._lock:
            clips = self.assembler.advance_to(mark) if self.assembler is not None else []
        for c in clips:
            self._idle.clear()
            self._queue.put(c)  # a watermark never drops clips
        ok = self._idle.wait(timeout=request.timeout_s if request.timeout_s > 0 else 600.0)
        response.success = ok
        response.watermark = float(mark)
        response.memorized_upto = float(max(self._memorized_upto, -1.0))
        response.clips_committed = self.count.clips_done
        response.topics = sorted(set(self.received) | set(want))
        response.received = [self.received.get(t, 0) for t in response.topics]
        response.lost_in_transport = [self._transport_lost.get(t, 0) for t in response.topics]
        response.message = (f"memorized up to {response.memorized_upto:.1f} s" if ok else
                            f"timed out: {self._queue.qsize()} clips still queued")
        return response

    def _save_losses(self) -> None:
        """Write the losses recorded since the last call to the store's gaps table (kept on failure)."""
        losses = self.ledger.take()
        if not losses or self.store is None:
            return
        try:
            stream_records.record_gaps(self.store, losses, source=self.get_fully_qualified_name())
        except Exception as e:
            self.ledger.put_back(losses)
            self._report_bad("gap records", e)

    def _heartbeat(self) -> None:
        if self._run_id is None or self.store is None:
            return
        try:
            if self._crash_gaps and self._first_stream_t is not None:
                stream_records.extend_crash_gaps(self.store, self._crash_gaps, self._first_stream_t)
                self._crash_gaps = []
            stream_records.heartbeat(self.store, self._run_id, self._first_stream_t,
                                     self._latest_stream_t if self._first_stream_t is not None else None)
        except Exception as e:
            self._report_bad("run heartbeat", e)

    def _on_flush(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        self._finish_stream()
        ok = self._idle.wait(timeout=600)
        response.success = ok
        response.message = (f"{self.count.clips_done} clips committed, {self.count.clips_skipped} skipped, "
                            f"{self.count.clips_dropped} dropped" if ok else "timed out waiting for the queue")
        return response

    # -- work --------------------------------------------------------------------------------------
    def _work(self) -> None:
        while True:
            clip = self._queue.get()
            if clip is None:
                return
            self._current_clip = clip
            try:
                t = time.perf_counter()
                assert self.memorizer is not None
                assert self.params is not None
                wait_s = self.params.pose_wait_s if self.params.pose_topic else 0.0
                clip.poses = self._poses.window_when_covered(clip.start_time, clip.end_time, wait_s)
                res = self.memorizer.process(clip)
                elapsed = time.perf_counter() - t
                if res.skipped:
                    self.count.clips_skipped += 1
                    self.get_logger().info(f"clip {clip.clip_id} already in the store: skipped (resume)")
                else:
                    self.count.clips_done += 1
                    self.count.processing_s += elapsed
                    self.count.clip_s += clip.duration
                    self.count.last_lag_s = max(0.0, self._latest_stream_t - clip.end_time)
                    if res.errors:
                        self.count.clip_errors += 1
                    for cause, spans in res.unattributed_by_cause:
                        for a, b in spans:   # heard, but no voice or transcript: counted
                            self.ledger.record(self.params.audio_topic or "audio", cause, a, b)
                    self._publish_event(res)
                    self.get_logger().info(
                        f"clip {clip.clip_id} [{clip.start_time:.0f}-{clip.end_time:.0f} s]: {len(res.node_ids)} "
                        f"nodes in {elapsed:.2f} s (RTF {elapsed / max(clip.duration, 1e-9):.2f})"
                        + (f", errors: {res.errors}" if res.errors else ""))
            except Exception as e:  # a failing clip must not stop the node
                self.count.clip_errors += 1
                self.ledger.record("*", "clip_error", clip.start_time, clip.end_time,
                                   detail=f"clip {clip.clip_id}: {type(e).__name__}: {e}"[:500])
                self.get_logger().error(f"clip {clip.clip_id} failed: {type(e).__name__}: {e}")
            finally:
                self._current_clip = None
                self._memorized_upto = max(self._memorized_upto, clip.end_time)
                self._save_losses()
                if self._queue.empty():
                    self._idle.set()

    def _publish_event(self, res: ClipResult) -> None:
        pub = self._event_pub
        if pub is None or self.params is None:
            return
        m = MemoryEvent()
        m.header.stamp = self.get_clock().now().to_msg()
        m.db_path = self.params.db_path
        m.clip_id = res.clip_id
        m.start_time, m.end_time = res.start_time, res.end_time
        m.node_ids, m.node_types, m.texts = list(res.node_ids), list(res.node_types), list(res.texts)
        pub.publish(m)

    def _publish_diagnostics(self) -> None:
        self._heartbeat()
        self._save_losses()
        if self._diag_pub is None:
            return
        c = self.count
        rtf = c.processing_s / c.clip_s if c.clip_s else 0.0
        st = DiagnosticStatus(name=f"{self.get_name()}: memorization", hardware_id="m3_agent")
        st.level = DiagnosticStatus.OK
        st.message = "ok"
        lost = self.ledger.lost_messages()
        if c.clips_dropped or rtf > 1.0 or lost:
            st.level = DiagnosticStatus.WARN
            st.message = ("slower than real time" if rtf > 1.0 else "clips dropped" if c.clips_dropped
                          else f"{lost} inputs not memorized (lost.* counts; gaps table)")
        values = {"queue_depth": self._queue.qsize(), "processing_lag_s": round(c.last_lag_s, 2),
                  "real_time_factor": round(rtf, 3), "clips_committed": c.clips_done, "clips_skipped": c.clips_skipped,
                  "clips_dropped": c.clips_dropped, "clip_errors": c.clip_errors, "frames": c.frames,
                  "frames_bad": c.frames_bad, "audio_chunks": c.audio_chunks, "audio_bad": c.audio_bad,
                  "memorized_upto": round(self._memorized_upto, 3) if self._memorized_upto > -1 else -1,
                  "latest_stream_time": round(self._latest_stream_t, 3), "inputs_lost": lost,
                  "clip_in_progress": self._current_clip.clip_id if self._current_clip is not None else -1}
        for topic, n in self.received.items():
            values[f"received.{topic}"] = n
        for topic, causes in self.ledger.counts().items():
            for cause, n in causes.items():
                values[f"{'retimed' if cause in RETIMED else 'lost'}.{topic}.{cause}"] = n
        for topic, causes in self.ledger.seconds().items():
            for cause, secs in causes.items():
                values[f"gap_s.{topic}.{cause}"] = secs
        st.values = [KeyValue(key=k, value=str(v)) for k, v in values.items()]
        arr = DiagnosticArray(status=[st])
        arr.header.stamp = self.get_clock().now().to_msg()
        self._diag_pub.publish(arr)


def main(args: list[str] | None = None) -> int:
    return run_node(MemorizationNode, args, threads=4)


if __name__ == "__main__":
    sys.exit(main())
