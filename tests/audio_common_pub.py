"""A robot microphone driver stand-in for the memorization node's tests: publishes audio_common_msgs as
audio_common 4.x (``AudioStamped``) or the ros-drivers audio_common ROS 2 port (``AudioData`` + ``AudioInfo``)
does, from a plan (JSON) of steps, and drives the node's ``~/sync`` and ``~/flush``.

    python -m tests.audio_common_pub PLAN.json      (in the env of tests/audio_common_env.variant_env)

Runs as its own process because both variants are called ``audio_common_msgs`` and their type support libraries
must be on LD_LIBRARY_PATH before python starts. Prints one JSON line per step result; exit 0 when every step
succeeded. Plan: ``{"node": "/m3_agent_memorization", "audio_topic": "/audio", "info_topic": "/audio_info",
"info_latched": false, "stamped": false, "steps": [...]}`` (``stamped``: ros-drivers AudioDataStamped instead of
AudioData) with steps

* ``{"op": "info", "channels", "sample_rate", "sample_format", "coding_format"}``: one AudioInfo (ros-drivers);
* ``{"op": "audio", "file": samples.npy (float32, frames x channels), "rate", "format", "chunk_s", "stamp0",
  "speed", "info_every_s"}``: the samples in messages of ``chunk_s``, stamped from ``stamp0`` (AudioStamped: PortAudio
  ``format`` name such as "paInt16"; AudioData: a GStreamer sample_format such as "F32LE" or "mp3" (LAME-encoded raw
  MP3 frames, as audio_capture sends them, cut into messages of ``chunk_s`` of audio regardless of frame
  boundaries); AudioData has no stamp), paced at ``speed`` x real time, with the AudioInfo of step ``info``
  repeated every ``info_every_s`` (0: never);
* ``{"op": "typed", "format": int, "channels", "rate", "field", "n", "stamp"}``: one AudioStamped with a raw
  format constant and ``n`` zeros in AudioData field ``field`` (a bad-format message);
* ``{"op": "wait_ready"}``: the node's audio subscription and ~/sync service are there;
* ``{"op": "align", "period", "max_phase"}``: wait until the wall clock modulo ``period`` is below ``max_phase`` (so
  audio stamped at arrival does not straddle a clip boundary);
* ``{"op": "sync", "stream_time", "receive_timeout_s"}``: ~/sync with the messages published per topic (the info
  topic when not latched);
* ``{"op": "flush"}``: ~/flush.
"""

from __future__ import annotations

import array
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from m3_agent_ros.own_node import OwnNode

PA = {"paFloat32": (0x1, "float32_data"), "paInt32": (0x2, "int32_data"), "paInt16": (0x8, "int16_data"),
      "paInt8": (0x10, "int8_data"), "paUInt8": (0x20, "uint8_data")}
TYPECODE = {"float32_data": "f", "int32_data": "i", "int16_data": "h", "int8_data": "b", "uint8_data": "B"}


def ros_array(field: str, x: np.ndarray) -> array.array:
    """What rclpy keeps in a numeric sequence field (it takes array.array, not numpy arrays)."""
    return array.array(TYPECODE[field], np.ascontiguousarray(x).tobytes())


def _stamp(header: Any, t: float) -> None:
    ns = int(round(t * 1e9))
    header.stamp.sec, header.stamp.nanosec = ns // 1_000_000_000, ns % 1_000_000_000


def typed_samples(x: np.ndarray, fmt: str) -> np.ndarray:
    """float samples in [-1, 1] as the numpy array for PortAudio format ``fmt``."""
    x = np.clip(x, -1.0, 1.0)
    if fmt == "paFloat32":
        return x.astype(np.float32)
    if fmt == "paInt32":
        return np.round(x * (2**31 - 1)).astype(np.int32)
    if fmt == "paInt16":
        return np.round(x * 32767).astype(np.int16)
    if fmt == "paInt8":
        return np.round(x * 127).astype(np.int8)
    return (np.round(x * 127) + 128).astype(np.uint8)


def mp3_bytes(x: np.ndarray, rate: int, bit_rate: int = 128000) -> bytes:
    """Mono or stereo float samples -> raw MP3 frames (libmp3lame through PyAV; no ID3 tag or Xing header)."""
    import av

    channels = x.shape[1]
    enc = av.CodecContext.create("libmp3lame", "w")
    enc.sample_rate, enc.layout, enc.format, enc.bit_rate = rate, ("mono", "stereo")[channels - 1], "s16p", bit_rate
    enc.open()
    pcm = np.round(np.clip(x, -1.0, 1.0) * 32767).astype(np.int16)
    out = bytearray()
    for i in range(0, len(pcm), enc.frame_size):
        blk = pcm[i: i + enc.frame_size]
        blk = np.pad(blk, ((0, enc.frame_size - len(blk)), (0, 0)))
        frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(blk.T), format="s16p", layout=enc.layout.name)
        frame.sample_rate = rate
        out += b"".join(bytes(p) for p in enc.encode(frame))
    out += b"".join(bytes(p) for p in enc.encode(None))
    return bytes(out)


def raw_bytes(x: np.ndarray, sample_format: str) -> bytes:
    x = np.clip(x, -1.0, 1.0)
    dt = {"S16LE": ("<i2", 32767), "S32LE": ("<i4", 2**31 - 1), "F32LE": ("<f4", None), "U8": ("u1", None)}
    kind, scale = dt[sample_format]
    if sample_format == "U8":
        return (np.round(x * 127) + 128).astype(kind).tobytes()
    return (x if scale is None else np.round(x * scale)).astype(kind).tobytes()


class Driver(OwnNode):
    def __init__(self, plan: dict) -> None:
        self.plan = plan
        super().__init__("audio_common_driver")

    def _start(self, name: str) -> None:
        import audio_common_msgs.msg as acm
        from m3_agent.srv import SyncStream
        from rclpy.qos import DurabilityPolicy, QoSProfile
        from std_srvs.srv import Trigger

        super()._start(name)
        p = self.plan
        self.acm = acm
        self.typed = hasattr(acm, "AudioStamped")
        self.audio_topic, self.info_topic = p.get("audio_topic", "/audio"), p.get("info_topic", "/audio_info")
        self.latched = bool(p.get("info_latched", False))
        self.stamped = bool(p.get("stamped", False))
        # depth 500 (the drivers use sensor-data QoS / depth 10): the publisher side never drops a message here
        data_type = acm.AudioStamped if self.typed else acm.AudioDataStamped if self.stamped else acm.AudioData
        self.pub = self.node.create_publisher(data_type, self.audio_topic, QoSProfile(depth=500))
        self.info_pub = None
        if not self.typed:   # ros-drivers audio_capture: reliable, depth 1; "latched": transient local
            self.info_pub = self.node.create_publisher(acm.AudioInfo, self.info_topic, QoSProfile(
                depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL if self.latched else DurabilityPolicy.VOLATILE))
        node = p.get("node", "/m3_agent_memorization")
        self.sync_client = self.node.create_client(SyncStream, f"{node}/sync")
        self.flush_client = self.node.create_client(Trigger, f"{node}/flush")
        self.srv = (SyncStream, Trigger)
        self.published = {self.audio_topic: 0}
        if self.info_pub is not None and not self.latched:
            self.published[self.info_topic] = 0
        self.info_msg = None

    # -- steps --
    def info(self, step: dict) -> dict:
        m = self.acm.AudioInfo(channels=int(step["channels"]), sample_rate=int(step["sample_rate"]),
                               sample_format=step.get("sample_format", ""), coding_format=step["coding_format"],
                               bitrate=int(step.get("bitrate", 0)))
        self.info_msg = m
        self._publish_info()
        return {"op": "info", "success": True, "published": time.time()}

    def _publish_info(self) -> None:
        assert self.info_pub is not None and self.info_msg is not None
        self.info_pub.publish(self.info_msg)
        if self.info_topic in self.published:
            self.published[self.info_topic] += 1

    def wait_ready(self, step: dict) -> None:
        timeout = float(step.get("timeout", 60.0))
        self.wait(self.sync_client.service_is_ready, timeout, "the node's ~/sync")
        self.wait(lambda: self.pub.get_subscription_count() > 0, timeout, "the node's audio subscription")
        if self.info_pub is not None:   # latched too: a latched AudioInfo reaches the node only once they match
            self.wait(lambda: self.info_pub.get_subscription_count() > 0, timeout, "the node's AudioInfo subscription")

    def align(self, step: dict) -> None:
        period, max_phase = float(step["period"]), float(step["max_phase"])
        self.spin_until(lambda: time.time() % period < max_phase, period)

    def audio(self, step: dict) -> dict:
        x = np.load(step["file"]).astype(np.float32)
        x = x.reshape(len(x), -1)
        channels = x.shape[1]
        rate, fmt = int(step["rate"]), step["format"]
        n = max(1, int(round(float(step.get("chunk_s", 0.1)) * rate)))
        speed = float(step.get("speed", 1.0))
        info_every = float(step.get("info_every_s", 0.0))
        stamp0 = step.get("stamp0")
        t0, wall0 = time.monotonic(), time.time()
        last_info = t0
        if fmt == "mp3":   # cut anywhere in the byte stream, as audio_capture's appsink hands it over
            data = mp3_bytes(x, rate)
            per = max(1, int(round(len(data) * n / len(x))))
            blocks = [(i * len(x) // len(data), data[i: i + per]) for i in range(0, len(data), per)]
        else:
            blocks = [(i, x[i: i + n]) for i in range(0, len(x), n)]
        for k, (i, block) in enumerate(blocks):
            if fmt == "mp3":
                m = self.acm.AudioData(data=block)
            elif self.typed:
                m = self.acm.AudioStamped()
                _stamp(m.header, float(stamp0) + i / rate)
                code, field = PA[fmt]
                m.audio.info.format, m.audio.info.channels = code, channels
                m.audio.info.rate, m.audio.info.chunk = rate, len(block)
                setattr(m.audio.audio_data, field, ros_array(field, typed_samples(block.reshape(-1), fmt)))
            else:
                m = self.acm.AudioData(data=raw_bytes(block.reshape(-1), fmt))
            if self.stamped:
                m = self.acm.AudioDataStamped(audio=m)
                _stamp(m.header, float(stamp0) + i / rate)
            self.pub.publish(m)
            self.published[self.audio_topic] += 1
            due = t0 + (k + 1) * (n / rate) / speed
            if info_every and time.monotonic() - last_info >= info_every:
                self._publish_info()
                last_info = time.monotonic()
            while (left := due - time.monotonic()) > 0:
                self.executor.spin_once(timeout_sec=min(left, 0.005))
        return {"op": "audio", "success": True, "messages": k + 1, "wall_start": wall0, "wall_end": time.time()}

    def typed_raw(self, step: dict) -> None:
        m = self.acm.AudioStamped()
        _stamp(m.header, float(step["stamp"]))
        m.audio.info.format, m.audio.info.channels = int(step["format"]), int(step.get("channels", 1))
        m.audio.info.rate = int(step.get("rate", 16000))
        field = step.get("field", "int16_data")
        dtype = {"float32_data": np.float32, "int32_data": np.int32, "int16_data": np.int16, "int8_data": np.int8,
                 "uint8_data": np.uint8}[field]
        setattr(m.audio.audio_data, field, ros_array(field, np.zeros(int(step.get("n", 160)), dtype)))
        self.pub.publish(m)
        self.published[self.audio_topic] += 1

    def sync(self, step: dict) -> dict:
        srv = self.srv[0]
        topics = sorted(self.published)
        timeout = float(step.get("timeout", 120.0))
        fut = self.sync_client.call_async(srv.Request(stream_time=float(step.get("stream_time", 0.0)), topics=topics,
                                                      published=[self.published[k] for k in topics],
                                                      receive_timeout_s=float(step.get("receive_timeout_s", 3.0)),
                                                      timeout_s=timeout))
        self.wait(fut.done, timeout + 15, "~/sync")
        r = fut.result()
        return {"op": "sync", "success": r.success, "message": r.message, "topics": list(r.topics),
                "received": list(r.received), "lost_in_transport": list(r.lost_in_transport),
                "published": dict(self.published)}

    def flush(self, step: dict) -> dict:
        fut = self.flush_client.call_async(self.srv[1].Request())
        self.wait(fut.done, float(step.get("timeout", 300.0)), "~/flush")
        r = fut.result()
        return {"op": "flush", "success": r.success, "message": r.message}


def main(argv: list[str]) -> int:
    plan = json.loads(Path(argv[0]).read_text())
    d = Driver(plan)
    ok = True
    try:
        for step in plan["steps"]:
            op = step["op"]
            fn = {"info": d.info, "audio": d.audio, "typed": d.typed_raw, "wait_ready": d.wait_ready,
                  "align": d.align, "sync": d.sync, "flush": d.flush}[op]
            out = fn(step)
            if out is not None:
                print(json.dumps(out), flush=True)
                ok = ok and bool(out.get("success", True))
    finally:
        d.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
