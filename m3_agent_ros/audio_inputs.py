"""The audio message types the memorization node can subscribe to (parameter ``audio_msg_type``), imported lazily.

``m3_agent/AudioChunk`` is the project's own. The others come from the optional ROS package ``audio_common_msgs``,
which exists in two unrelated versions under the same name (a robot has one of them installed):

* audio_common 4.x (github.com/mgonzs13/audio_common, audio_common_msgs 4.0.x): ``AudioStamped`` (header + Audio
  with typed sample arrays and an AudioInfo of its own) -> ``audio_common_msgs/AudioStamped``;
* the ros-drivers/audio_common ROS 2 port (branch ros2, audio_common_msgs 0.3.x): ``AudioData`` (``uint8[] data``)
  or ``AudioDataStamped`` on the audio topic and ``AudioInfo`` (sample_format, coding_format, ...) on
  ``audio_info_topic`` -> ``audio_common_msgs/AudioData`` or ``audio_common_msgs/AudioDataStamped``.

:func:`load_audio_types` imports the package only when asked for it and checks that the installed version has the
fields the node reads and that its type support loads, so a missing or mismatched package fails the node's
configure with a message saying what to do, instead of an exception at activation.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from m3_agent_ros.params import AUDIO_MSG_TYPES

INSTALL_HINT = ("install it (ROS 2 binary: ros-$ROS_DISTRO-audio-common-msgs, or build the audio_common_msgs package "
                "of the robot's audio driver) and source its setup.bash before starting the node, or set "
                "audio_msg_type m3_agent/AudioChunk")


@dataclass(frozen=True)
class AudioTypes:
    name: str            # the audio_msg_type value
    data: Any            # message class on audio_topic
    info: Any = None     # AudioInfo class on audio_info_topic (ros-drivers types), else None
    stamped: bool = True  # the data message has a header (else: stamped with the node's clock at arrival)

    @property
    def typed(self) -> bool:
        """audio_common 4.x AudioStamped (typed arrays + PortAudio format)."""
        return self.name == "audio_common_msgs/AudioStamped"


def _fields(cls: Any) -> dict[str, str]:
    return dict(cls.get_fields_and_field_types()) if cls is not None else {}


def _type_support(cls: Any, name: str) -> None:
    """Load the C type support now (rclpy would only at create_subscription): a clear error at configure."""
    why = ""
    if cls._TYPE_SUPPORT is None:
        try:
            cls.__import_type_support__()
        except Exception as e:  # rosidl's UnsupportedTypeSupport (not an ImportError), OSError, ...
            why = f" ({type(e).__name__}: {e}; {e.__cause__ or e.__context__ or ''})"
    if cls._TYPE_SUPPORT is None:
        raise ValueError(f"audio_msg_type {name}: the python module of audio_common_msgs imports but its type support "
                         f"library does not load{why}: is its install's lib/ on LD_LIBRARY_PATH? Source its "
                         "setup.bash before starting the node")


def load_audio_types(name: str) -> AudioTypes:
    """The message classes for ``audio_msg_type`` ``name``; ValueError saying what is wrong and what to do."""
    if name not in AUDIO_MSG_TYPES:
        raise ValueError(f"unknown audio_msg_type {name!r}: {', '.join(AUDIO_MSG_TYPES)}")
    if name == "m3_agent/AudioChunk":
        from m3_agent.msg import AudioChunk

        return AudioTypes(name, AudioChunk)
    package, type_name = name.split("/")
    try:
        mod = importlib.import_module(f"{package}.msg")
    except ImportError as e:
        raise ValueError(f"audio_msg_type {name} needs the ROS package {package}, which is not installed here "
                         f"({type(e).__name__}: {e}): {INSTALL_HINT}") from e
    data_fields = _fields(getattr(mod, "AudioData", None))
    info_fields = _fields(getattr(mod, "AudioInfo", None))
    if type_name == "AudioStamped":
        cls = getattr(mod, "AudioStamped", None)
        if cls is None or "float32_data" not in data_fields or "format" not in info_fields:
            raise ValueError(f"audio_msg_type {name}: the installed {package} is not audio_common 4.x's (no "
                             "AudioStamped with typed AudioData arrays); its AudioData has "
                             f"{sorted(data_fields) or 'no fields'}: for the ros-drivers audio_common port use "
                             "audio_msg_type audio_common_msgs/AudioData (or AudioDataStamped) with audio_info_topic")
        _type_support(cls, name)
        return AudioTypes(name, cls)
    if "data" not in data_fields or "sample_format" not in info_fields:
        raise ValueError(f"audio_msg_type {name}: the installed {package}'s AudioData has no `data` bytes (fields "
                         f"{sorted(data_fields) or 'none'}) or its AudioInfo no sample_format: this is audio_common "
                         "4.x, whose microphone publishes AudioStamped: use audio_msg_type "
                         "audio_common_msgs/AudioStamped")
    cls = getattr(mod, type_name, None)
    if cls is None or (type_name == "AudioDataStamped" and "header" not in _fields(cls)):
        raise ValueError(f"audio_msg_type {name}: the installed {package} has no {type_name} with a header")
    _type_support(cls, name)
    _type_support(mod.AudioInfo, name)
    return AudioTypes(name, cls, info=mod.AudioInfo, stamped=type_name == "AudioDataStamped")


def stamp_seconds(msg: Any) -> float:
    """A message's header stamp in seconds."""
    st = msg.header.stamp
    return st.sec + st.nanosec * 1e-9


def received_seconds(info: Any) -> float | None:
    """When the middleware received a message (rclpy's MessageInfo ``received_timestamp``, epoch seconds), None
    where the middleware does not say: the stream clocks judge stamps by it, so a callback thread that stalled does
    not make the delivered backlog look like a clock jump (m3_memory/ingest/stream_clock.py)."""
    try:
        ns = int(info["received_timestamp"])
    except (KeyError, TypeError, ValueError):
        return None
    return ns * 1e-9 if ns > 0 else None


class AudioInput:
    """The memorization node's audio subscriptions: messages of ``types`` -> (stamp, decode) for the stream pipeline
    (m3_memory.ingest.StreamPipeline.audio), with the AudioInfo of ros-drivers AudioData on ``audio_info_topic``."""

    def __init__(self, node: Any, pipeline: Any, params: Any, types: AudioTypes) -> None:
        from m3_memory.ingest.audio_common import AudioDataDecoder, InfoWait

        self.node, self.pipeline, self.params, self.types = node, pipeline, params, types
        self.decoder = AudioDataDecoder()       # ros-drivers AudioData: the latest AudioInfo's format
        self.early = InfoWait()                 # ... and the data that came before the first one
        self._timer: Any = None                 # hands held data on when no AudioInfo came in time

    def subscribe(self, qos: Any, group: Any) -> list[Any]:
        from m3_agent.msg import AudioChunk
        from rclpy.qos import DurabilityPolicy, QoSProfile, qos_profile_sensor_data

        p, types, node = self.params, self.types, self.node
        callback = (self._on_chunk if types.data is AudioChunk else
                    self._on_stamped if types.typed else self._on_data)
        subs = [node.create_subscription(types.data, p.audio_topic, callback, qos, callback_group=group)]
        if types.info is None:
            return subs
        self._timer = node.create_timer(0.5, self._release_expired, callback_group=group)
        # AudioInfo: drivers publish it reliable + volatile, repeated (ros-drivers audio_capture: every 5 s) or once,
        # latched (transient local). A best-effort volatile reader matches every publisher (and counts what it gets,
        # for ~/sync); a reliable transient-local one also gets a latched message published before the node started
        # (it does not match volatile publishers: that QoS mismatch is expected, so not logged).
        try:
            from rclpy.event_handler import SubscriptionEventCallbacks
        except ImportError:  # Humble
            from rclpy.qos_event import SubscriptionEventCallbacks

        subs.append(node.create_subscription(
            types.info, p.audio_info_topic, lambda m: self._on_info(m, counted=True),
            QoSProfile(depth=10, reliability=qos_profile_sensor_data.reliability), callback_group=group))
        subs.append(node.create_subscription(
            types.info, p.audio_info_topic, lambda m: self._on_info(m, counted=False),
            QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL), callback_group=group,
            event_callbacks=SubscriptionEventCallbacks(incompatible_qos=lambda _event: None)))
        return subs

    def _on_chunk(self, msg: Any, info: Any) -> None:
        from m3_memory.ingest.audio_msg import decode_chunk

        self.pipeline.audio(self.params.audio_topic, stamp_seconds(msg), lambda: (
            msg.sample_rate, decode_chunk(msg.encoding, msg.channels, msg.sample_rate, bytes(msg.data))),
            received=received_seconds(info))

    def _on_stamped(self, msg: Any, info: Any) -> None:
        """audio_common 4.x AudioStamped: info.format (PortAudio constant) says which typed array holds the samples."""
        from m3_memory.ingest.audio_common import TYPED_FIELDS, decode_typed

        a = msg.audio
        self.pipeline.audio(self.params.audio_topic, stamp_seconds(msg), lambda: (int(a.info.rate), decode_typed(
            a.info.format, a.info.channels, a.info.rate, {f: getattr(a.audio_data, f) for f in TYPED_FIELDS})),
            received=received_seconds(info))

    def _on_data(self, msg: Any) -> None:
        """ros-drivers AudioData (no header: stamped with the node's clock at arrival) or AudioDataStamped, in the
        format of the latest AudioInfo. Decoded MP3 lags its messages by a frame or so: its header stamps are made
        sample-continuous like arrival times (ArrivalStamper) instead of restarting the resampler at each one."""
        stamped = self.types.stamped
        item = (bytes(msg.audio.data if stamped else msg.data), stamp_seconds(msg) if stamped else None,
                None if stamped else self.node.get_clock().now().nanoseconds * 1e-9)
        for held in self.early.offer(item, self.decoder.info_seen):
            self._deliver(*held)

    def _deliver(self, data: bytes, stamp: float | None, arrival: float | None) -> None:
        topic, decode = self.params.audio_topic, lambda: self.decoder.decode(data)
        if stamp is None:
            self.pipeline.audio(topic, None, decode, arrival)
        elif self.decoder.compressed:
            self.pipeline.audio(topic, None, decode, stamp, arrival_is_start=True)
        else:
            self.pipeline.audio(topic, stamp, decode)

    def _release_expired(self) -> None:
        for held in self.early.expired():
            self._deliver(*held)

    def close(self) -> None:
        """Shutdown: data still held for an AudioInfo that never came goes to the pipeline (counted as no_info)."""
        if self._timer is not None:
            self.node.destroy_timer(self._timer)
            self._timer = None
        for held in self.early.drain(closing=True):
            self._deliver(*held)

    def _on_info(self, msg: Any, counted: bool) -> None:
        p = self.params
        if counted:
            self.pipeline.count_received(p.audio_info_topic)
        changed = self.decoder.set_info(msg.channels, msg.sample_rate, msg.sample_format, msg.coding_format)
        fmt, refusal = self.decoder.format, self.decoder.refusal
        log = self.node.get_logger()
        if changed and refusal is not None:
            log.error(f"audio format from {p.audio_info_topic} is unusable: {refusal} (the audio on {p.audio_topic} "
                      "is counted as lost until it changes)")
        elif changed and fmt is not None:
            log.info(f"audio format from {p.audio_info_topic}: {fmt.describe()}")
        for held in self.early.drain():   # data that came before this AudioInfo, in order
            self._deliver(*held)
