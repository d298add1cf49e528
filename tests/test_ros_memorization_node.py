"""Two processes: this test publishes camera frames and audio; memorization_node writes clips to SQLite.

Perception is switched off here (faces/voices none) so the test covers the node's input handling, clip
assembly, commit, events, flush and bad input; test_ros_memorization_real.py runs the real perception."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from m3_memory import MemoryStore
from m3_memory.ingest.frames import encode_jpeg

from .ros_helpers import RosTestNode, start_module, wait_until

pytestmark = pytest.mark.ros


def _stamp(msg, t: float) -> None:
    msg.header.stamp.sec = int(t)
    msg.header.stamp.nanosec = int(round((t - int(t)) * 1e9))


def test_stream_becomes_committed_clips_and_bad_input_is_survived(tmp_path: Path) -> None:
    from m3_agent.msg import AudioChunk, MemoryEvent
    from rclpy.qos import QoSProfile
    from sensor_msgs.msg import CompressedImage, Image
    from std_srvs.srv import Trigger

    db = tmp_path / "memory.db"
    proc = start_module("m3_agent_ros.memorization_node", [
        "--ros-args", "-p", f"db_path:={db}", "-p", "clip_seconds:=2.0", "-p", "sample_fps:=2.0",
        "-p", "audio_grace_s:=5.0", "-p", "face_backend:=none", "-p", "voice_backend:=none"], tmp_path / "node.log")
    ros = RosTestNode("memorization_test_publisher")
    events: list = []
    try:
        n = ros.node
        qos = QoSProfile(depth=100)
        jpg_pub = n.create_publisher(CompressedImage, "/camera/image_raw/compressed", qos)
        raw_pub = n.create_publisher(Image, "/camera/image_raw", qos)
        aud_pub = n.create_publisher(AudioChunk, "/audio", QoSProfile(depth=500))
        n.create_subscription(MemoryEvent, "/m3_agent/memory_events", events.append, qos)
        flush = n.create_client(Trigger, "/m3_agent_memorization/flush")
        assert flush.wait_for_service(timeout_sec=20), proc.describe()
        wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05), jpg_pub.get_subscription_count() > 0
                            and raw_pub.get_subscription_count() > 0
                            and aud_pub.get_subscription_count() > 0)[1], timeout=20, what="subscriptions")
        frame = encode_jpeg(np.full((48, 64, 3), 120, np.uint8))
        for i in range(70):  # 7 s of stream at 10 fps, audio in 0.1 s chunks at 48 kHz stereo s16
            t = i * 0.1
            m = CompressedImage(format="jpeg", data=frame if i not in (5, 30, 55) else b"\xff\xd8garbage")
            _stamp(m, t)
            jpg_pub.publish(m)
            a = AudioChunk(sample_rate=48000, channels=2, encoding="s16le",
                           data=np.zeros(4800 * 2, "<i2").tobytes())
            _stamp(a, t)
            aud_pub.publish(a)
            if i == 20:
                bad = AudioChunk(sample_rate=48000, channels=2, encoding="mp3", data=b"\x00" * 8)
                _stamp(bad, t)
                aud_pub.publish(bad)
                img = Image(encoding="weird16", height=2, width=2, step=4, data=b"\x00" * 8)
                _stamp(img, t)
                raw_pub.publish(img)
            ros.executor.spin_once(timeout_sec=0.0)
            time.sleep(0.02)  # 5x faster than real time
        wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05), len(events) >= 3)[1], timeout=30,
                   what="memory events for the first 3 clips")
        res = ros.call(flush, Trigger.Request(), timeout_sec=60, proc=proc)
        assert res.success, res.message
        wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05), len(events) >= 4)[1], timeout=10,
                   what="event for the flushed last clip")
        # a subscriber that joins late still gets the recent events (transient-local durability)
        from rclpy.qos import DurabilityPolicy

        late: list = []
        n.create_subscription(MemoryEvent, "/m3_agent/memory_events", late.append,
                              QoSProfile(depth=100, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05), len(late) >= 4)[1], timeout=10,
                   what="the earlier events for a late subscriber")
    finally:
        ros.close()
        rc = proc.stop(timeout=20)
    assert rc == 0, proc.describe()
    assert [e.clip_id for e in events] == [0, 1, 2, 3]
    assert [(e.start_time, e.end_time) for e in events[:2]] == [(0.0, 2.0), (2.0, 4.0)]
    store = MemoryStore(db, readonly=True)
    assert [r[0] for r in store.conn.execute("SELECT id FROM clips ORDER BY id")] == [0, 1, 2, 3]
    log = proc.output()
    assert "compressed frame dropped: could not decode" in log
    assert "audio chunk dropped: unsupported audio encoding" in log
    assert "raw frame dropped: unsupported image encoding" in log
