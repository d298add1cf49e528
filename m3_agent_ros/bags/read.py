"""Read a converted bag back: decoded frames, audio and questions, in time order."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .questions import QUESTIONS_TOPIC, Question
from .types import AUDIO_TYPE, COMPRESSED_TYPE, IMAGE_TYPE, typestore


@dataclass
class BagMessage:
    topic: str
    msgtype: str
    t: float              # stream time, seconds: the bag timestamp less the bag's stream origin (bag_metadata)
    stamp: float          # header stamp, seconds (= t for converted bags)
    msg: object
    raw: bytes            # the CDR bytes, for republishing unchanged
    stamped: bool = True  # the message has a header (else ``stamp`` is ``t``)


def bag_metadata(bag: str | Path) -> dict:
    """The bag's rosbag2 metadata (metadata.yaml's rosbag2_bagfile_information)."""
    import yaml

    return yaml.safe_load((Path(bag) / "metadata.yaml").read_text())["rosbag2_bagfile_information"]


def stream_origin_ns(bag: str | Path) -> int:
    """Bag timestamp of stream time 0: the custom_data of bags converted by m3-bag; for a bag recorded in ROS time
    (a robot's ``ros2 bag record``: no such key, timestamps since 1970) its first message, so a question's time is
    its time into the recording; 0 for older converted bags (timestamped in stream time)."""
    from m3_memory.timeline import WALL_STAMP_MIN

    from .convert import STREAM_ORIGIN_KEY

    meta = bag_metadata(bag)
    custom = meta.get("custom_data") or {}
    if STREAM_ORIGIN_KEY in custom:
        return int(custom[STREAM_ORIGIN_KEY])
    start = int((meta.get("starting_time") or {}).get("nanoseconds_since_epoch", 0))
    return start if start >= WALL_STAMP_MIN * 1e9 else 0


def iter_messages(bag: str | Path, topics: list[str] | None = None) -> Iterator[BagMessage]:
    from rosbags.rosbag2 import Reader

    ts = typestore()
    origin = stream_origin_ns(bag)
    with Reader(Path(bag)) as reader:
        conns = [c for c in reader.connections if topics is None or c.topic in topics]
        if not conns:  # rosbags reads every connection when given an empty list
            return
        for conn, t_ns, data in reader.messages(connections=conns):
            msg = ts.deserialize_cdr(data, conn.msgtype)
            hdr = getattr(msg, "header", None)
            t = (t_ns - origin) / 1e9
            stamp = hdr.stamp.sec + hdr.stamp.nanosec * 1e-9 if hdr is not None else t
            yield BagMessage(conn.topic, conn.msgtype, t, stamp, msg, bytes(data), hdr is not None)


def decode_frame(m: BagMessage) -> np.ndarray:
    from m3_memory.ingest.frames import decode_compressed, decode_raw

    if m.msgtype == COMPRESSED_TYPE:
        return decode_compressed(m.msg.format, np.asarray(m.msg.data))  # type: ignore[attr-defined]
    if m.msgtype == IMAGE_TYPE:
        x = m.msg
        return decode_raw(x.encoding, x.height, x.width, x.step, np.asarray(x.data), bool(x.is_bigendian))  # type: ignore[attr-defined]
    raise ValueError(f"{m.topic} is not an image topic")


def decode_audio(m: BagMessage) -> np.ndarray:
    if m.msgtype != AUDIO_TYPE:
        raise ValueError(f"{m.topic} is not an audio topic")
    return np.frombuffer(np.asarray(m.msg.data).tobytes(), dtype="<i2")  # type: ignore[attr-defined]


def bag_questions(bag: str | Path) -> list[Question]:
    import json

    from .questions import read_sidecar

    side = read_sidecar(bag)
    if side:
        return side
    return [Question(**json.loads(m.msg.data)) for m in iter_messages(bag, [QUESTIONS_TOPIC])]  # type: ignore[attr-defined]


def bag_topics(bag: str | Path) -> dict[str, str]:
    """{topic: message type} of a bag."""
    from rosbags.rosbag2 import Reader

    with Reader(Path(bag)) as reader:
        return {c.topic: c.msgtype for c in reader.connections}
