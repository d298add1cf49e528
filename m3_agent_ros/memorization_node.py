"""Memorization node: camera + audio topics -> clips -> memories in the SQLite store (a rclpy LifecycleNode).

    python -m m3_agent_ros.memorization_node --ros-args --params-file config/default.yaml [-p db_path:=...]

Subscriptions (sensor-data QoS): sensor_msgs/Image, sensor_msgs/CompressedImage and m3_agent/msg/AudioChunk.
Callbacks only decode and hand data to the clip assembler (m3_memory.clips); finished clips go through a
bounded queue to one worker thread that runs m3_memory.memorize.Memorizer (perception, memory writing, one
store transaction per clip) and publishes an m3_agent/msg/MemoryEvent per committed clip. Bad input (corrupt
JPEG, unknown encoding, wrong sample rate, NaN audio) is logged, counted and dropped; the node keeps running.
``~/flush`` (std_srvs/Trigger) finishes the open clips (end of stream) and waits until they are committed.
Diagnostics (queue depth, processing lag, real-time factor, drop counters) go to /diagnostics at 1 Hz.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from pathlib import Path

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from m3_agent.msg import AudioChunk, MemoryEvent
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.lifecycle import LifecycleState, TransitionCallbackReturn
from rclpy.qos import QoSProfile, qos_profile_sensor_data
from sensor_msgs.msg import CompressedImage, Image
from std_srvs.srv import Trigger

from m3_agent_ros.lifecycle_base import M3LifecycleNode, run_node
from m3_agent_ros.params import MemorizationParams
from m3_memory import MemoryStore
from m3_memory.audio_msg import AudioError, StreamResampler, decode_chunk
from m3_memory.clips import Clip, ClipAssembler
from m3_memory.frames import FrameError, check_compressed, check_raw, decode_compressed, decode_raw
from m3_memory.memorize import ClipResult, Memorizer

NODE_NAME = "m3_agent_memorization"


def stamp_seconds(msg: object) -> float:
    st = msg.header.stamp  # type: ignore[attr-defined]
    return st.sec + st.nanosec * 1e-9


class Counters:
    def __init__(self) -> None:
        self.frames = self.frames_bad = self.audio_chunks = self.audio_bad = 0
        self.clips_done = self.clips_skipped = self.clips_dropped = self.clip_errors = 0
        self.processing_s = self.clip_s = 0.0
        self.last_lag_s = 0.0


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
        self._subs: list = []
        self._event_pub = None
        self._diag_pub = None
        self._diag_timer = None
        self._flush_srv = None
        self._idle = threading.Event()
        self._idle.set()
        self.count = Counters()
        self._latest_stream_t = 0.0
        self._last_bad_log: dict[str, float] = {}
        self._cb_group = MutuallyExclusiveCallbackGroup()

    # -- lifecycle ---------------------------------------------------------------------------------
    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        try:
            p = self.read_params()
            p.check()
            from m3_memory.perception.stages import make_face_stage, make_voice_stage

            self.store = MemoryStore(str(Path(p.db_path).expanduser()))
            self.memorizer = Memorizer(self.store, make_face_stage(p.face_backend, p.face_model_dir),
                                       make_voice_stage(p.voice_backend, p.voice_model_dir, p.asr_model,
                                                        p.sample_rate), p.writer_config(), source=self.get_name())
            self.assembler = ClipAssembler(p.clip_seconds, p.sample_fps, p.sample_rate, origin=p.stream_origin,
                                           audio_grace_s=p.audio_grace_s, expect_audio=bool(p.audio_topic),
                                           expect_video=bool(p.image_topic or p.compressed_topic))
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
        self._event_pub = self.create_publisher(MemoryEvent, p.event_topic, QoSProfile(depth=100))
        self._diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
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
            self._subs.append(self.create_subscription(AudioChunk, p.audio_topic, self._on_audio, audio_qos,
                                                       callback_group=self._cb_group))
        self._flush_srv = self.create_service(Trigger, "~/flush", self._on_flush)
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
        for attr, destroy in (("_flush_srv", self.destroy_service), ("_diag_timer", self.destroy_timer),
                              ("_event_pub", self.destroy_publisher), ("_diag_pub", self.destroy_publisher)):
            obj = getattr(self, attr)
            if obj is not None:
                if attr == "_event_pub" and drain:
                    self._finish_stream()  # commit the open clips while the publisher still exists
                destroy(obj)
                setattr(self, attr, None)
        if self._worker is not None:
            self._queue.put(None)
            self._worker.join(timeout=600)
            self._worker = None

    def release(self) -> None:
        self._stop_io(drain=False)
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
                self.get_logger().error(f"clip {c.clip_id} dropped: {self._queue.qsize()} clips already queued "
                                        "(memorization slower than real time; lower sample_fps or use a GPU)")
                continue
            self._idle.clear()
            self._queue.put(c)

    def _report_bad(self, kind: str, err: Exception) -> None:
        """Log dropped input, at most once per 5 s per input kind (a broken camera must not flood the log)."""
        now = time.monotonic()
        if now - self._last_bad_log.get(kind, -1e9) >= 5.0:
            self._last_bad_log[kind] = now
            self.get_logger().error(f"{kind} dropped: {err}")

    def _on_frame(self, msg: object, decode: object, kind: str, check: object = None) -> None:
        self.count.frames += 1
        try:
            if check is not None:
                check()  # type: ignore[operator]
            t = stamp_seconds(msg)
            with self._lock:
                if self.assembler is None:
                    return
                if not self.assembler.wants_frame(t):  # skip decoding frames the sampling would drop
                    clips = self.assembler.note_video_time(t)
                else:
                    clips = self.assembler.add_frame(t, decode())  # type: ignore[operator]
            self._latest_stream_t = max(self._latest_stream_t, t)
        except (FrameError, ValueError) as e:
            self.count.frames_bad += 1
            self._report_bad(kind, e)
            return
        self._enqueue(clips)

    def _on_image(self, msg: Image) -> None:
        self._on_frame(msg, lambda: decode_raw(msg.encoding, msg.height, msg.width, msg.step, bytes(msg.data),
                                               bool(msg.is_bigendian)), "raw frame",
                       lambda: check_raw(msg.encoding, msg.height, msg.width, msg.step, len(msg.data)))

    def _on_compressed(self, msg: CompressedImage) -> None:
        self._on_frame(msg, lambda: decode_compressed(msg.format, bytes(msg.data)), "compressed frame",
                       lambda: check_compressed(msg.format, msg.data))

    def _on_audio(self, msg: AudioChunk) -> None:
        self.count.audio_chunks += 1
        assert self.params is not None
        try:
            x = decode_chunk(msg.encoding, msg.channels, msg.sample_rate, bytes(msg.data))
            t = stamp_seconds(msg)
            with self._lock:
                if self.assembler is None:
                    return
                rs = self._resamplers.get(msg.sample_rate)
                if rs is None:
                    if self._resamplers:
                        self.get_logger().warning(f"audio sample rate changed to {msg.sample_rate} Hz")
                    rs = self._resamplers[msg.sample_rate] = StreamResampler(msg.sample_rate, self.params.sample_rate)
                t_out, y = rs.push(t, x)
                clips = self.assembler.add_audio(t_out, y) if len(y) else []
            self._latest_stream_t = max(self._latest_stream_t, t)
        except (AudioError, ValueError) as e:
            self.count.audio_bad += 1
            self._report_bad("audio chunk", e)
            return
        self._enqueue(clips)

    def _finish_stream(self) -> None:
        with self._lock:
            clips = self.assembler.flush() if self.assembler is not None else []
        for c in clips:
            self._idle.clear()
            self._queue.put(c)  # end of stream: never drop the last clips

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
            try:
                t = time.perf_counter()
                assert self.memorizer is not None
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
                    self._publish_event(res)
                    self.get_logger().info(
                        f"clip {clip.clip_id} [{clip.start_time:.0f}-{clip.end_time:.0f} s]: {len(res.node_ids)} "
                        f"nodes in {elapsed:.2f} s (RTF {elapsed / max(clip.duration, 1e-9):.2f})"
                        + (f", errors: {res.errors}" if res.errors else ""))
            except Exception as e:  # a failing clip must not stop the node
                self.count.clip_errors += 1
                self.get_logger().error(f"clip {clip.clip_id} failed: {type(e).__name__}: {e}")
            finally:
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
        if self._diag_pub is None:
            return
        c = self.count
        rtf = c.processing_s / c.clip_s if c.clip_s else 0.0
        st = DiagnosticStatus(name=f"{self.get_name()}: memorization", hardware_id="m3_agent")
        st.level = DiagnosticStatus.OK
        st.message = "ok"
        if c.clips_dropped or rtf > 1.0:
            st.level, st.message = DiagnosticStatus.WARN, "slower than real time" if rtf > 1.0 else "clips dropped"
        values = {"queue_depth": self._queue.qsize(), "processing_lag_s": round(c.last_lag_s, 2),
                  "real_time_factor": round(rtf, 3), "clips_committed": c.clips_done, "clips_skipped": c.clips_skipped,
                  "clips_dropped": c.clips_dropped, "clip_errors": c.clip_errors, "frames": c.frames,
                  "frames_bad": c.frames_bad, "audio_chunks": c.audio_chunks, "audio_bad": c.audio_bad}
        st.values = [KeyValue(key=k, value=str(v)) for k, v in values.items()]
        arr = DiagnosticArray(status=[st])
        arr.header.stamp = self.get_clock().now().to_msg()
        self._diag_pub.publish(arr)


def main(args: list[str] | None = None) -> int:
    return run_node(MemorizationNode, args, threads=2)


if __name__ == "__main__":
    sys.exit(main())
