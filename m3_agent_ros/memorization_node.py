"""Memorization node: camera + audio topics -> clips -> memories in the SQLite store (a rclpy LifecycleNode).

    python -m m3_agent_ros.memorization_node --ros-args --params-file config/default.yaml [-p db_path:=...]

Subscriptions (sensor-data QoS): sensor_msgs/Image, sensor_msgs/CompressedImage, the robot's pose, and audio of
``audio_msg_type`` (m3_agent/msg/AudioChunk, or audio_common_msgs when installed: m3_agent_ros/audio_inputs.py).
The node only converts messages (header stamps, decode callables) and owns the parameters, subscriptions, services,
timers and publishers; the stream pipeline is ROS-free (m3_memory.ingest.StreamPipeline: stamps and clock jumps,
clip assembly, one worker thread running m3_memory.memorize.Memorizer, the loss ledger, run / crash records, the
replay watermark). It publishes an m3_agent/msg/MemoryEvent per committed clip and /diagnostics at 1 Hz (queue,
lag, real-time factor, ``lost.<topic>.<cause>``). ``~/flush`` (std_srvs/Trigger) finishes the open clips and waits
until they are committed; ``~/sync`` (m3_agent/srv/SyncStream) is a replay's watermark. Bad input is logged,
counted (the store's ``gaps`` table) and dropped; the node keeps running.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import PoseStamped
from m3_agent.msg import MemoryEvent
from m3_agent.srv import SyncStream
from nav_msgs.msg import Odometry
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.lifecycle import LifecycleState, TransitionCallbackReturn
from rclpy.qos import DurabilityPolicy, QoSProfile, qos_profile_sensor_data
from sensor_msgs.msg import CompressedImage, Image
from std_msgs.msg import Header
from std_srvs.srv import Trigger

from m3_agent_ros.audio_inputs import AudioInput, AudioTypes, load_audio_types, received_seconds, stamp_seconds
from m3_agent_ros.lifecycle_base import M3LifecycleNode, run_node
from m3_agent_ros.params import MemorizationParams
from m3_memory.config import StoreConfig
from m3_memory.ingest.frames import check_compressed, check_raw, decode_compressed, decode_raw
from m3_memory.ingest.pipeline import IngestSettings, StreamPipeline
from m3_memory.memorize import ClipResult, Memorizer
from m3_memory.poses import Pose, yaw_from_quaternion
from m3_memory.store import MemoryStore, store_location
from m3_memory.store.where import save_places_file
from m3_memory.timeline import local_zone

NODE_NAME = "m3_agent_memorization"
POSE_QUEUE = 500        # pose subscription depth (10 s of 50 Hz odometry)
# topic parameters: relative names by default (a namespace or remap moves them), resolved once at configure
TOPIC_PARAMS = ("image_topic", "compressed_topic", "audio_topic", "event_topic", "pose_topic", "audio_info_topic")


def sensor_qos(depth: int) -> QoSProfile:
    return QoSProfile(depth=depth, reliability=qos_profile_sensor_data.reliability,
                      history=qos_profile_sensor_data.history, durability=qos_profile_sensor_data.durability)


class MemorizationNode(M3LifecycleNode):
    PARAMS = MemorizationParams

    def __init__(self, node_name: str = NODE_NAME) -> None:
        super().__init__(node_name)
        self.params: MemorizationParams | None = None
        self.store: MemoryStore | None = None
        self.pipeline: StreamPipeline | None = None
        self._audio_types: AudioTypes | None = None    # audio_msg_type's classes (configure)
        self._audio_in: AudioInput | None = None
        self._subs: list = []
        self._event_pub = self._diag_pub = self._diag_timer = self._flush_srv = self._sync_srv = None
        # One group per sensor stream: each stream in order, none behind another's (sharing one, the camera was
        # offered first on every executor pass and under load the audio callbacks starved: docs/perception.md).
        self._camera_group = MutuallyExclusiveCallbackGroup()
        self._audio_group = MutuallyExclusiveCallbackGroup()
        # poses arrive at 10-50 Hz and cost microseconds: their own group, so they are never queued behind a JPEG
        # decode or an audio resample (a full best-effort queue drops them)
        self._pose_group = MutuallyExclusiveCallbackGroup()
        self._srv_group = MutuallyExclusiveCallbackGroup()

    # -- lifecycle ---------------------------------------------------------------------------------
    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        try:
            p = self.read_params()
            p.check()
            # fully qualified (namespace, remaps applied): the names subscriptions, the ledger and ~/sync agree on
            p = replace(p, **{k: self.resolve_topic_name(getattr(p, k)) for k in TOPIC_PARAMS if getattr(p, k, "")})
            from m3_memory.perception.stages import make_stages

            # the audio message type first: a missing audio_common_msgs fails configure before models load
            self._audio_types = load_audio_types(p.audio_msg_type) if p.audio_topic else None
            self.store = MemoryStore(store_location(p.db_path), config=StoreConfig(vector_search=p.vector_search),
                                     robot=p.robot_name)
            memorizer = Memorizer(self.store, writer=p.writer_config(), source=self.get_name(), **make_stages(p))
            settings = IngestSettings(
                p.clip_seconds, p.sample_fps, p.sample_rate, p.audio_grace_s, p.stream_origin, p.max_queued_clips,
                p.max_clock_jump_s, p.video_gap_s, p.pose_frame, p.pose_wait_s if p.pose_topic else 0.0,
                p.video_label() if p.image_topic or p.compressed_topic else "", p.audio_topic,
                p.time_zone or local_zone(), p.stream_stall_s, p.motion_fps, p.audio_tail_s)
            self.pipeline = StreamPipeline(self.store, memorizer, settings, self.get_logger(),
                                           self.get_fully_qualified_name(), self._publish_event)
            if p.places_file:
                n = save_places_file(self.store, Path(p.places_file).expanduser())
                self.get_logger().info(f"{n} named places from {p.places_file}")
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
        self.get_logger().info(f"configured: store {p.db_path} (last committed clip: {self.store.last_clip()}), "
                               f"writer {p.memory_writer}, faces {p.face_backend}, voices {p.voice_backend}")
        return super().on_configure(state)

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        p, pipe = self.params, self.pipeline
        assert p is not None and pipe is not None
        image_qos = sensor_qos(p.image_queue_depth)
        if p.image_topic:
            self._subs.append(self.create_subscription(Image, p.image_topic, self._on_image,
                                                       image_qos, callback_group=self._camera_group))
        if p.compressed_topic:
            self._subs.append(self.create_subscription(CompressedImage, p.compressed_topic, self._on_compressed,
                                                       image_qos, callback_group=self._camera_group))
        if p.audio_topic:
            assert self._audio_types is not None
            self._audio_in = AudioInput(self, pipe, p, self._audio_types)
            self._subs += self._audio_in.subscribe(sensor_qos(p.audio_queue_depth), self._audio_group)
        if p.pose_topic:
            msg_type = Odometry if p.pose_type == "odometry" else PoseStamped
            self._subs.append(self.create_subscription(msg_type, p.pose_topic, self._on_pose, sensor_qos(POSE_QUEUE),
                                                       callback_group=self._pose_group))
        self._flush_srv = self.create_service(Trigger, "~/flush", self._on_flush, callback_group=self._srv_group)
        self._sync_srv = self.create_service(SyncStream, "~/sync", self._on_sync, callback_group=self._srv_group)
        pipe.start()
        self._diag_timer = self.create_timer(1.0, self._publish_diagnostics)
        self.get_logger().info(f"active: memorizing {[s.topic_name for s in self._subs]}")
        return super().on_activate(state)

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        self._stop_io(drain=True)
        return super().on_deactivate(state)

    def _stop_io(self, drain: bool) -> None:
        for s in self._subs:
            self.destroy_subscription(s)
        self._subs = []
        if self._audio_in is not None:   # audio held for an AudioInfo that never came: counted, not forgotten
            self._audio_in.close()
        for attr, destroy in (("_flush_srv", self.destroy_service), ("_sync_srv", self.destroy_service),
                              ("_diag_timer", self.destroy_timer)):
            obj = getattr(self, attr)
            if obj is not None:
                destroy(obj)
                setattr(self, attr, None)
        if self.pipeline is not None:   # drain: the open clips' events go out (the node is still active here)
            self.pipeline.stop(drain)

    def release(self) -> None:
        self._stop_io(drain=False)
        for attr in ("_event_pub", "_diag_pub"):
            pub = getattr(self, attr)
            if pub is not None:
                setattr(self, attr, None)
                self.destroy_lifecycle_publisher(pub)
        self.pipeline = None
        if self.store is not None:
            store, self.store = self.store, None
            store.close()

    # -- input: messages (with rclpy's MessageInfo: reception times for the stream clocks) -> stamps, decoders ----
    def _on_image(self, msg: Image, info: Any) -> None:
        if self.params is None or self.pipeline is None:   # released: a late callback
            return
        self.pipeline.frame(self.params.image_topic, stamp_seconds(msg), lambda: decode_raw(
            msg.encoding, msg.height, msg.width, msg.step, bytes(msg.data), bool(msg.is_bigendian)), "raw frame",
            lambda: check_raw(msg.encoding, msg.height, msg.width, msg.step, len(msg.data)), received_seconds(info))

    def _on_compressed(self, msg: CompressedImage, info: Any) -> None:
        if self.params is None or self.pipeline is None:   # released: a late callback
            return
        self.pipeline.frame(self.params.compressed_topic, stamp_seconds(msg),
                            lambda: decode_compressed(msg.format, bytes(msg.data)), "compressed frame",
                            lambda: check_compressed(msg.format, msg.data), received_seconds(info))

    def _on_pose(self, msg: Odometry | PoseStamped, info: Any) -> None:
        if self.params is None or self.pipeline is None:   # released: a late callback
            return
        pose = msg.pose.pose if isinstance(msg, Odometry) else msg.pose
        q, frame = pose.orientation, msg.header.frame_id
        self.pipeline.pose(self.params.pose_topic, stamp_seconds(msg), lambda t: Pose(
            t, pose.position.x, pose.position.y, yaw_from_quaternion(q.x, q.y, q.z, q.w), pose.position.z, frame),
            received=received_seconds(info))

    # -- services ------------------------------------------------------------------------------------
    def _on_sync(self, request: SyncStream.Request, response: SyncStream.Response) -> SyncStream.Response:
        """Replay watermark (m3_memory.ingest.StreamPipeline.sync); ``stream_time`` is a header stamp: ROS time on
        a wall-clock memory, mapped to stream seconds (``watermark`` in the response)."""
        assert self.pipeline is not None
        r = self.pipeline.sync(request.stream_time, dict(zip(request.topics, request.published, strict=False)),
                               request.receive_timeout_s or 5.0, request.timeout_s)
        response.success, response.message, response.watermark = r.ok, r.message, r.watermark
        response.memorized_upto, response.clips_committed = r.memorized_upto, r.clips_committed
        response.topics = sorted(r.received)
        response.received = [r.received[t] for t in response.topics]
        response.lost_in_transport = [r.lost_in_transport[t] for t in response.topics]
        return response

    def _on_flush(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        assert self.pipeline is not None
        response.success = self.pipeline.flush(timeout_s=600)
        c = self.pipeline.count
        response.message = (f"{c.clips_done} clips committed, {c.clips_skipped} skipped, {c.clips_dropped} "
                            "dropped" if response.success else "timed out waiting for the queue")
        return response

    # -- output --------------------------------------------------------------------------------------
    def _publish_event(self, res: ClipResult) -> None:
        pub = self._event_pub
        if pub is None or self.params is None:
            return
        pub.publish(MemoryEvent(header=Header(stamp=self.get_clock().now().to_msg()), db_path=self.params.db_path,
                                clip_id=res.clip_id, start_time=res.start_time, end_time=res.end_time,
                                node_ids=list(res.node_ids), node_types=list(res.node_types), texts=list(res.texts)))

    def _publish_diagnostics(self) -> None:
        pipe = self.pipeline
        if pipe is None:
            return
        pipe.finish_stalled()     # a stream that stopped leaves its last clip to the clock
        pipe.heartbeat()
        pipe.save_losses()
        if self._diag_pub is None:
            return
        level, message, values = pipe.status()
        st = DiagnosticStatus(name=f"{self.get_name()}: memorization", hardware_id="m3_agent", message=message,
                              level=DiagnosticStatus.WARN if level == "warn" else DiagnosticStatus.OK)
        st.values = [KeyValue(key=k, value=str(v)) for k, v in values.items()]
        self._diag_pub.publish(DiagnosticArray(header=Header(stamp=self.get_clock().now().to_msg()), status=[st]))


def main(args: list[str] | None = None) -> int:
    return run_node(MemorizationNode, args, threads=5)   # camera, audio, pose, services, lifecycle + timers


if __name__ == "__main__":
    sys.exit(main())
