"""Video file (mp4, mpg, ... via PyAV) -> rosbag2 bag (mcap by default, or sqlite3), written with `rosbags`.

Camera frames become ``sensor_msgs/CompressedImage`` (JPEG) on ``/camera/image_raw/compressed`` (or raw
``sensor_msgs/Image`` rgb8 on ``/camera/image_raw``) at ``fps``; audio becomes ``m3_agent/msg/AudioChunk``
(16 kHz mono s16le by default) on ``/audio`` in chunks of ``chunk_s``. Everything is stamped in *stream time*
(seconds since the start of the video; header stamps and bag timestamps agree). Audio stamps are derived from
the sample count, so chunks are contiguous and sample-exact. The video's questions go on
``/m3_agent/questions`` (std_msgs/String, JSON, stamped when they are asked) and into ``questions.json`` next to
the bag files.

Bag timestamps (rosbag2's receive time: ``starting_time``, what ``ros2 bag play`` paces by) are real time: stream
time + the recording's start (``start_time``: default the video's creation_time, else now), recorded in the
metadata's custom_data as ``m3_agent.stream_origin_ns`` (m3_agent_ros.bags.read subtracts it again). Header stamps
stay in stream time, the clock the memory keeps. The metadata is rosbag2 version 8 (the oldest rosbags writes; its
string-encoded QoS profiles and fields are what Humble's and Jazzy's decoders read; version 9's QoS list breaks
Humble) with ``ros_distro`` the distro of the message definitions (kilted), in metadata.yaml and in the copy
inside the storage file.
"""

from __future__ import annotations

import re
import shutil
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from .questions import QUESTIONS_TOPIC, Question, write_sidecar
from .types import AUDIO_TYPE, COMPRESSED_TYPE, IMAGE_TYPE, ROS_DISTRO, STRING_TYPE, header, typestore

IMAGE_TOPIC_COMPRESSED = "/camera/image_raw/compressed"
IMAGE_TOPIC_RAW = "/camera/image_raw"
AUDIO_TOPIC = "/audio"
BAG_VERSION = 8                                   # rosbag2 metadata version (see the module doc)
STREAM_ORIGIN_KEY = "m3_agent.stream_origin_ns"   # custom_data: bag timestamp (ns) of stream time 0
ODOM_TOPIC = "/odom"
ODOM_TYPE = "nav_msgs/msg/Odometry"


@dataclass
class ConvertOptions:
    fps: float = 5.0
    max_side: int | None = 640          # longest image side after resizing (None: native resolution)
    jpeg_quality: int = 80
    raw: bool = False                   # sensor_msgs/Image rgb8 instead of JPEG CompressedImage
    storage: str = "mcap"               # mcap | sqlite3
    sample_rate: int = 16000
    chunk_s: float = 0.1
    camera_frame: str = "camera"
    mic_frame: str = "microphone"
    start_time: float | None = None     # epoch seconds of stream time 0 (None: the video's creation_time, else now)
    ros_distro: str = ROS_DISTRO


def parse_start_time(text: str) -> float:
    """Epoch seconds from ``1718000000.5`` or ISO 8601 (``2024-06-10T08:00:00Z``; no zone: UTC)."""
    try:
        return float(text)
    except ValueError:
        pass
    try:
        dt = datetime.fromisoformat(re.sub(r"[Zz]$", "+00:00", text.strip()))  # Python 3.10 reads no "Z"
    except ValueError:
        raise ValueError(f"start time {text!r}: expected epoch seconds or ISO 8601 (2024-06-10T08:00:00Z)") from None
    return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).timestamp()


def stream_origin_ns(opts: ConvertOptions, container_metadata: dict[str, str] | None) -> int:
    """Bag timestamp of stream time 0: ``opts.start_time``, else the video's creation_time, else now."""
    if opts.start_time is not None:
        return int(round(opts.start_time * 1e9))
    created = (container_metadata or {}).get("creation_time", "")
    if created:
        try:
            return int(round(parse_start_time(created) * 1e9))
        except ValueError:
            pass
    return time.time_ns()


def _with_distro(metadata: str, distro: str) -> str:
    text, n = re.subn(r"^(\s*)ros_distro: rosbags$", rf"\g<1>ros_distro: {distro}", metadata, flags=re.M)
    if n != 1:
        raise ValueError("rosbags' metadata has no 'ros_distro: rosbags' line to replace (rosbags changed?)")
    return text


def _bag_writer(path: Path, plugin: Any, origin_ns: int, ros_distro: str) -> Any:
    """A rosbags Writer whose ``write`` takes stream-time timestamps (ns) and stores them shifted by ``origin_ns``,
    and whose metadata names ``ros_distro`` instead of 'rosbags'."""
    from rosbags.rosbag2 import Writer

    class BagWriter(Writer):
        def open(self) -> None:
            super().open()
            self.set_custom_data(STREAM_ORIGIN_KEY, str(origin_ns))

        def write(self, connection: Any, timestamp: int, data: bytes | memoryview) -> None:
            super().write(connection, origin_ns + timestamp, data)

        def close(self) -> None:
            storage = self.storage
            assert storage is not None
            close_storage = storage.close   # the copy of the metadata inside the storage file (mcap, sqlite3)
            storage.close = lambda version, metadata: close_storage(version, _with_distro(metadata, ros_distro))
            super().close()
            self.metapath.write_text(_with_distro(self.metapath.read_text(), ros_distro))

    return BagWriter(path, version=BAG_VERSION, storage_plugin=plugin)


@dataclass
class ConvertReport:
    bag: Path
    duration_s: float = 0.0
    frames: int = 0
    audio_samples: int = 0
    audio_chunks: int = 0
    questions: int = 0
    poses: int = 0
    bytes: int = 0
    notes: list[str] = field(default_factory=list)


def _resize(img: np.ndarray, max_side: int | None) -> np.ndarray:
    if not max_side or max(img.shape[:2]) <= max_side:
        return img
    import cv2

    s = max_side / max(img.shape[:2])
    return cv2.resize(img, (round(img.shape[1] * s), round(img.shape[0] * s)), interpolation=cv2.INTER_AREA)


def convert_video(video: str | Path, bag: str | Path, opts: ConvertOptions | None = None,
                  questions: list[Question] | None = None, video_id: str | None = None,
                  overwrite: bool = False, progress: bool = True,
                  odometry: list[tuple[float, float, float, float]] | None = None,
                  odom_frame: str = "map") -> ConvertReport:
    """``odometry``: the robot's path as (t, x, y, yaw) samples, written as nav_msgs/Odometry on /odom (frame
    ``odom_frame``, child base_link), so the memory can record where things happened."""
    import av
    import cv2
    from rosbags.rosbag2 import StoragePlugin
    from tqdm import tqdm

    opts = opts or ConvertOptions()
    video, bag = Path(video), Path(bag)
    if not video.is_file():
        raise FileNotFoundError(f"video not found: {video}")
    if bag.exists():
        if not overwrite:
            raise FileExistsError(f"{bag} exists (use --overwrite)")
        shutil.rmtree(bag)
    bag.parent.mkdir(parents=True, exist_ok=True)
    plugin = {"mcap": StoragePlugin.MCAP, "sqlite3": StoragePlugin.SQLITE3}[opts.storage]
    ts = typestore()
    Image, Compressed = ts.types[IMAGE_TYPE], ts.types[COMPRESSED_TYPE]
    Audio, String = ts.types[AUDIO_TYPE], ts.types[STRING_TYPE]
    report = ConvertReport(bag=bag)
    staging = bag.with_name(f".{bag.name}.partial")  # a crash never leaves a half-written bag at `bag`
    shutil.rmtree(staging, ignore_errors=True)
    tmp = staging / bag.name
    with av.open(str(video)) as container, \
            _bag_writer(tmp, plugin, stream_origin_ns(opts, dict(container.metadata)), opts.ros_distro) as w:
        vstreams = [s for s in container.streams.video][:1]
        astreams = [s for s in container.streams.audio][:1]
        if not vstreams and not astreams:
            raise ValueError(f"{video}: no video or audio stream")
        t_origin = (container.start_time or 0) / 1e6
        duration = (container.duration or 0) / 1e6
        img_conn = w.add_connection(IMAGE_TOPIC_RAW if opts.raw else IMAGE_TOPIC_COMPRESSED,
                                    IMAGE_TYPE if opts.raw else COMPRESSED_TYPE, typestore=ts) if vstreams else None
        aud_conn = w.add_connection(AUDIO_TOPIC, AUDIO_TYPE, typestore=ts) if astreams else None
        q_conn = w.add_connection(QUESTIONS_TOPIC, STRING_TYPE, typestore=ts) if questions else None
        resampler = av.AudioResampler(format="s16", layout="mono", rate=opts.sample_rate) if astreams else None
        chunk = max(1, int(round(opts.chunk_s * opts.sample_rate)))
        pending = np.zeros(0, np.int16)
        audio_start: float | None = None
        next_frame_t = 0.0
        last_t = 0.0

        def flush_audio(final: bool = False) -> None:
            nonlocal pending
            while len(pending) >= chunk or (final and len(pending)):
                part, pending = pending[:chunk], pending[chunk:]
                assert audio_start is not None and aud_conn is not None
                t = audio_start + report.audio_samples / opts.sample_rate
                msg = Audio(header=header(t, opts.mic_frame), sample_rate=opts.sample_rate, channels=1,
                            encoding="s16le", data=np.frombuffer(part.astype("<i2").tobytes(), np.uint8))
                w.write(aud_conn, int(round(t * 1e9)), ts.serialize_cdr(msg, AUDIO_TYPE))
                report.audio_samples += len(part)
                report.audio_chunks += 1

        bar = tqdm(total=round(duration, 1) or None, unit="s", desc=f"convert {video.name}", disable=not progress,
                   leave=False)
        for frame in container.decode(*(vstreams + astreams)):
            if frame.time is None:
                continue
            t = max(0.0, float(frame.time) - t_origin)
            if isinstance(frame, av.VideoFrame):
                if t + 1e-6 < next_frame_t:
                    continue
                next_frame_t = max(next_frame_t + 1.0 / opts.fps, t)
                rgb = _resize(frame.to_ndarray(format="rgb24"), opts.max_side)
                stamp = int(round(t * 1e9))
                if opts.raw:
                    h, wd = rgb.shape[:2]
                    msg = Image(header=header(t, opts.camera_frame), height=h, width=wd, encoding="rgb8",
                                is_bigendian=0, step=wd * 3, data=rgb.reshape(-1))
                    w.write(img_conn, stamp, ts.serialize_cdr(msg, IMAGE_TYPE))
                else:
                    ok, jpg = cv2.imencode(".jpg", np.ascontiguousarray(rgb[..., ::-1]),
                                           [cv2.IMWRITE_JPEG_QUALITY, opts.jpeg_quality])
                    msg = Compressed(header=header(t, opts.camera_frame), format="jpeg", data=jpg.reshape(-1))
                    w.write(img_conn, stamp, ts.serialize_cdr(msg, COMPRESSED_TYPE))
                report.frames += 1
            else:
                assert resampler is not None
                if audio_start is None:
                    audio_start = t
                for rf in resampler.resample(frame):
                    pending = np.concatenate([pending, rf.to_ndarray().reshape(-1).astype(np.int16)])
                flush_audio()
            if t > last_t:
                bar.update(round(t - last_t, 3))
                last_t = t
        if resampler is not None and audio_start is not None:
            for rf in resampler.resample(None):
                pending = np.concatenate([pending, rf.to_ndarray().reshape(-1).astype(np.int16)])
            flush_audio(final=True)
        bar.close()
        if odometry:
            _write_odometry(w, ts, odometry, odom_frame)
            report.poses = len(odometry)
        for q in questions or []:
            msg = String(data=q.to_json())
            w.write(q_conn, int(round(q.time * 1e9)), ts.serialize_cdr(msg, STRING_TYPE))
            report.questions += 1
        report.duration_s = max(last_t, duration)
    tmp.rename(bag)
    staging.rmdir()
    if questions is not None:
        write_sidecar(bag, questions, video_id or video.stem)
    report.bytes = sum(f.stat().st_size for f in bag.iterdir())
    return report


def _write_odometry(w, ts, samples: list[tuple[float, float, float, float]], frame: str) -> None:  # noqa: ANN001
    from m3_memory.poses import quaternion_from_yaw

    conn = w.add_connection(ODOM_TOPIC, ODOM_TYPE, typestore=ts)
    T = ts.types
    cov = np.zeros(36, np.float64)
    for t, x, y, yaw in samples:
        qx, qy, qz, qw = quaternion_from_yaw(yaw)
        pose = T["geometry_msgs/msg/PoseWithCovariance"](
            pose=T["geometry_msgs/msg/Pose"](position=T["geometry_msgs/msg/Point"](x=x, y=y, z=0.0),
                                             orientation=T["geometry_msgs/msg/Quaternion"](x=qx, y=qy, z=qz, w=qw)),
            covariance=cov)
        zero = T["geometry_msgs/msg/Vector3"](x=0.0, y=0.0, z=0.0)
        still = T["geometry_msgs/msg/Twist"](linear=zero, angular=zero)
        twist = T["geometry_msgs/msg/TwistWithCovariance"](twist=still, covariance=cov)
        msg = T[ODOM_TYPE](header=header(t, frame), child_frame_id="base_link", pose=pose, twist=twist)
        w.write(conn, int(round(t * 1e9)), ts.serialize_cdr(msg, ODOM_TYPE))
