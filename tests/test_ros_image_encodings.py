"""Camera frames in the encodings robot camera drivers publish, through DDS into the memorization node.

One real GRID face frame is encoded as each of sensor_msgs/Image's common encodings (rgb8, bgr8, rgba8, bgra8, mono8,
YUV 4:2:2 as yuv422_yuy2 / yuyv / uyvy / yuv422, the four 8-bit Bayer patterns) and as CompressedImage jpeg and png;
each encoding gets its own 1 s clip. The node must decode every one well enough that the real face detector (dlib)
finds the face in that clip. An unknown encoding is counted as ``bad`` with the encoding named."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from .ros_helpers import RosTestNode, start_module, wait_until

pytestmark = [pytest.mark.ros, pytest.mark.slow]

RAW = ["rgb8", "bgr8", "rgba8", "bgra8", "mono8", "yuv422_yuy2", "yuyv", "uyvy", "yuv422",
       "bayer_rggb8", "bayer_bggr8", "bayer_gbrg8", "bayer_grbg8"]
COMPRESSED = ["jpeg", "png"]
UNKNOWN = "32FC1"


def _yuv422(rgb: np.ndarray, order: str) -> bytes:
    """BT.601 limited range (Y 16-235), what V4L2 cameras deliver as YUYV / UYVY."""
    r, g, b = (rgb[..., i].astype(np.float32) for i in range(3))
    y = 16 + 0.257 * r + 0.504 * g + 0.098 * b
    u = 128 - 0.148 * r - 0.291 * g + 0.439 * b
    v = 128 + 0.439 * r - 0.368 * g - 0.071 * b
    u2, v2 = (u[:, 0::2] + u[:, 1::2]) / 2, (v[:, 0::2] + v[:, 1::2]) / 2
    out = np.empty((rgb.shape[0], rgb.shape[1] * 2), np.float32)
    if order == "yuyv":
        out[:, 0::4], out[:, 1::4], out[:, 2::4], out[:, 3::4] = y[:, 0::2], u2, y[:, 1::2], v2
    else:   # uyvy
        out[:, 0::4], out[:, 1::4], out[:, 2::4], out[:, 3::4] = u2, y[:, 0::2], v2, y[:, 1::2]
    return np.clip(np.round(out), 0, 255).astype(np.uint8).tobytes()


def _bayer(rgb: np.ndarray, pattern: str) -> bytes:
    m = np.zeros(rgb.shape[:2], np.uint8)
    for i, c in enumerate(pattern):
        dy, dx = divmod(i, 2)
        m[dy::2, dx::2] = rgb[dy::2, dx::2, "rgb".index(c)]
    return m.tobytes()


def encode(rgb: np.ndarray, enc: str) -> tuple[int, bytes]:
    """(step, data) of ``rgb`` in a sensor_msgs/Image encoding."""
    h, w, _ = rgb.shape
    if enc in ("rgb8", "bgr8"):
        return w * 3, (rgb if enc == "rgb8" else rgb[..., ::-1]).tobytes()
    if enc in ("rgba8", "bgra8"):
        px = rgb if enc == "rgba8" else rgb[..., ::-1]
        return w * 4, np.concatenate([px, np.full((h, w, 1), 255, np.uint8)], axis=2).tobytes()
    if enc == "mono8":
        import cv2

        return w, cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY).tobytes()
    if enc.startswith("bayer_"):
        return w, _bayer(rgb, enc[6:10])
    return w * 2, _yuv422(rgb, "yuyv" if enc in ("yuv422_yuy2", "yuyv") else "uyvy")


def test_every_common_camera_encoding_is_decoded_and_an_unknown_one_is_counted(tmp_path: Path) -> None:
    pytest.importorskip("dlib")
    import cv2
    from rclpy.qos import QoSProfile
    from sensor_msgs.msg import CompressedImage, Image
    from std_srvs.srv import Trigger

    from m3_memory import MemoryStore

    from .media import grid_clip

    rgb = np.ascontiguousarray(grid_clip("bbaf2n")[0][2])   # a frontal face, 360x288
    h, w, _ = rgb.shape
    db = tmp_path / "memory.db"
    proc = start_module("m3_agent_ros.memorization_node", [
        "--ros-args", "-p", f"db_path:={db}", "-p", "clip_seconds:=1.0", "-p", "sample_fps:=2.0",
        "-p", "audio_topic:=''", "-p", "max_queued_clips:=100", "-p", "voice_backend:=none",
        "-p", "face_backend:=dlib"], tmp_path / "node.log")
    ros = RosTestNode("encodings_test_publisher")
    encodings = RAW + COMPRESSED
    try:
        n = ros.node
        raw_pub = n.create_publisher(Image, "/camera/image_raw", QoSProfile(depth=100))
        jpg_pub = n.create_publisher(CompressedImage, "/camera/image_raw/compressed", QoSProfile(depth=100))
        flush = n.create_client(Trigger, "/m3_agent_memorization/flush")
        assert flush.wait_for_service(timeout_sec=30), proc.describe()
        wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05), raw_pub.get_subscription_count() > 0
                            and jpg_pub.get_subscription_count() > 0)[1], timeout=20, what="subscriptions")
        for k, enc in enumerate([*encodings, UNKNOWN]):
            for dt in (0.1, 0.5, 0.9):   # three frames inside clip k
                t = k + dt
                if enc in COMPRESSED:
                    ok, buf = cv2.imencode(".jpg" if enc == "jpeg" else ".png", rgb[..., ::-1])
                    assert ok
                    msg = CompressedImage(format=enc, data=buf.tobytes())
                    pub = jpg_pub
                elif enc == UNKNOWN:
                    msg = Image(encoding=enc, height=h, width=w, step=w * 4, data=bytes(h * w * 4))
                    pub = raw_pub
                else:
                    step, data = encode(rgb, enc)
                    msg = Image(encoding=enc, height=h, width=w, step=step, data=data)
                    pub = raw_pub
                msg.header.stamp.sec, msg.header.stamp.nanosec = int(t), int(round((t - int(t)) * 1e9))
                pub.publish(msg)
                ros.executor.spin_once(timeout_sec=0.0)
                time.sleep(0.05)
        res = ros.call(flush, Trigger.Request(), timeout_sec=120, proc=proc)
        assert res.success, res.message
    finally:
        ros.close()
        rc = proc.stop(timeout=30)
    assert rc == 0, proc.describe()
    store = MemoryStore(db, readonly=True)
    faces = dict(store.conn.execute("SELECT clip_id, count(*) FROM turns WHERE kind = 'face' GROUP BY clip_id"))
    missed = [enc for k, enc in enumerate(encodings) if not faces.get(k)]
    assert not missed, f"no face found in the clips of {missed}; node log:\n{proc.output()[-3000:]}"
    # the unknown encoding: counted as bad, with its name, in the store's gaps table and the log
    bad = store.conn.execute("SELECT topic, count, detail FROM gaps WHERE cause = 'bad'").fetchall()
    assert bad and sum(c for _, c, _ in bad) == 3 and all(t == "/camera/image_raw" for t, _, _ in bad), bad
    assert UNKNOWN in json.dumps(bad), bad
    assert f"unsupported image encoding '{UNKNOWN}'" in proc.output()
