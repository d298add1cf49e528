"""Video file (mp4, mpg, ... via PyAV) -> rosbag2 bag (mcap by default, or sqlite3), written with `rosbags`.

Camera frames become ``sensor_msgs/CompressedImage`` (JPEG) on ``/camera/image_raw/compressed`` (or raw
``sensor_msgs/Image`` rgb8 on ``/camera/image_raw``) at ``fps``; audio becomes ``m3_agent/msg/AudioChunk``
(16 kHz mono s16le by default) on ``/audio`` in chunks of ``chunk_s``. Everything is stamped in *stream time*
(seconds since the start of the video; header stamps and bag timestamps agree). Audio stamps are derived from
the sample count, so chunks are contiguous and sample-exact. The video's questions go on
``/m3_agent/questions`` (std_msgs/String, JSON, stamped when they are asked) and into ``questions.json`` next to
the bag files.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .questions import QUESTIONS_TOPIC, Question, write_sidecar
from .types import AUDIO_TYPE, COMPRESSED_TYPE, IMAGE_TYPE, STRING_TYPE, header, typestore

IMAGE_TOPIC_COMPRESSED = "/camera/image_raw/compressed"
IMAGE_TOPIC_RAW = "/camera/image_raw"
AUDIO_TOPIC = "/audio"


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


@dataclass
class ConvertReport:
    bag: Path
    duration_s: float = 0.0
    frames: int = 0
    audio_samples: int = 0
    audio_chunks: int = 0
    questions: int = 0
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
                  overwrite: bool = False, progress: bool = True) -> ConvertReport:
    import av
    import cv2
    from rosbags.rosbag2 import StoragePlugin, Writer
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
    with av.open(str(video)) as container, Writer(tmp, version=9, storage_plugin=plugin) as w:
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
