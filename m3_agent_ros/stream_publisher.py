"""A synthetic camera + microphone stream for fault benchmarks: 10 fps JPEG frames and 0.1 s audio chunks
(16 kHz mono s16) stamped in stream time, published 4x faster than real time, with the replay's watermark
(``~/sync`` of the memorization node) so that every published message is received or accounted for.

Owns its rclpy context (usable next to other ROS code in one process). ``reconnect`` starts a fresh participant:
after a node was killed, a client may still see the dead node's service until its lease expires.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from m3_agent_ros.own_node import OwnNode
from m3_memory.ingest.frames import encode_jpeg

SR = 16000


def _stamp(msg: Any, t: float) -> None:
    msg.header.stamp.sec = int(t)
    msg.header.stamp.nanosec = int(round((t - int(t)) * 1e9)) % 1_000_000_000


class SyntheticStream(OwnNode):
    def __init__(self, name: str, camera_topic: str, audio_topic: str, node: str = "/m3_agent_memorization",
                 speedup: float = 4.0) -> None:
        self.camera_topic, self.audio_topic, self.node_name, self.speedup = camera_topic, audio_topic, node, speedup
        self.frame = encode_jpeg(np.full((48, 64, 3), 110, np.uint8))
        super().__init__(name)

    def _start(self, name: str) -> None:
        from m3_agent.msg import AudioChunk
        from m3_agent.srv import SyncStream
        from rclpy.qos import QoSProfile
        from sensor_msgs.msg import CompressedImage

        super()._start(name)
        self.cam = self.node.create_publisher(CompressedImage, self.camera_topic, QoSProfile(depth=100))
        self.mic = self.node.create_publisher(AudioChunk, self.audio_topic, QoSProfile(depth=500))
        self.sync_client = self.node.create_client(SyncStream, f"{self.node_name}/sync")
        self.published = {self.camera_topic: 0, self.audio_topic: 0}
        self._types = (CompressedImage, AudioChunk, SyncStream)

    def reconnect(self, name: str) -> None:
        self.close()
        self._start(name)

    def wait_ready(self, timeout: float = 30.0) -> None:
        self.wait(self.sync_client.service_is_ready, timeout, f"{self.node_name}/sync")
        self.wait(lambda: self.cam.get_subscription_count() > 0 and self.mic.get_subscription_count() > 0,
                  timeout, "the memorization node's subscriptions")

    def publish(self, t: float, audio: np.ndarray | None = None) -> None:
        """One camera frame and one 0.1 s audio chunk (silence unless given) stamped ``t``."""
        self.publish_frame(t)
        self.publish_audio(t, np.zeros(1600, np.float32) if audio is None else audio)

    def publish_frame(self, stamp: float) -> None:
        m = self._types[0](format="jpeg", data=self.frame)
        _stamp(m, stamp)
        self.cam.publish(m)
        self.published[self.camera_topic] += 1

    def publish_audio(self, stamp: float, samples: np.ndarray) -> None:
        """float samples in [-1, 1] at 16 kHz, sent as s16le."""
        pcm = (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()
        a = self._types[1](sample_rate=SR, channels=1, encoding="s16le", data=pcm)
        _stamp(a, stamp)
        self.mic.publish(a)
        self.published[self.audio_topic] += 1

    def play(self, start: float, end: float, sync_every_s: float = 1.0) -> None:
        """Publish [start, end) in 0.1 s steps at ``speedup`` x real time, with a watermark every ``sync_every_s``."""
        n = int(round((end - start) * 10))
        t0 = time.monotonic()
        for i in range(n):
            t = round(start + i * 0.1, 3)
            self.publish(t)
            due = t0 + (i + 1) * 0.1 / self.speedup
            while (left := due - time.monotonic()) > 0:
                self.executor.spin_once(timeout_sec=min(left, 0.01))
            if sync_every_s and (i + 1) % max(1, int(round(sync_every_s * 10))) == 0:
                self.sync(round(t - 0.5, 3))

    def sync(self, t: float, timeout: float = 120.0) -> Any:
        _, _, srv = self._types
        topics = sorted(self.published)
        fut = self.sync_client.call_async(srv.Request(stream_time=float(t), topics=topics,
                                                      published=[self.published[k] for k in topics],
                                                      receive_timeout_s=5.0, timeout_s=float(timeout)))
        self.wait(fut.done, timeout + 10, f"the memorization node to sync to {t:.1f} s")
        res = fut.result()
        if not res.success:
            raise TimeoutError(res.message)
        return res
