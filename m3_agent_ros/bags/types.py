"""A rosbags type store with the standard Kilted types plus this package's messages, read from msg/*.msg."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rosbags.typesys import Stores, get_types_from_msg, get_typestore

ROS_DISTRO = "kilted"  # the distro of the message definitions below (Stores.ROS2_KILTED): the bags' ros_distro
AUDIO_TYPE = "m3_agent/msg/AudioChunk"
IMAGE_TYPE = "sensor_msgs/msg/Image"
COMPRESSED_TYPE = "sensor_msgs/msg/CompressedImage"
STRING_TYPE = "std_msgs/msg/String"


def _msg_dir() -> Path:
    here = Path(__file__).resolve()
    for cand in (here.parents[2] / "msg", here.parents[1] / "msg"):
        if (cand / "AudioChunk.msg").exists():
            return cand
    try:  # installed: share/m3_agent/msg via ament_index
        from ament_index_python.packages import get_package_share_directory

        return Path(get_package_share_directory("m3_agent")) / "msg"
    except Exception as e:  # pragma: no cover - installation problem
        raise FileNotFoundError("cannot find m3_agent msg definitions") from e


@lru_cache(maxsize=1)
def typestore():  # noqa: ANN201 - rosbags Typestore
    ts = get_typestore(Stores.ROS2_KILTED)
    types = {}
    for name in ("AudioChunk", "MemoryEvent", "ActionGoal"):
        types.update(get_types_from_msg((_msg_dir() / f"{name}.msg").read_text(), f"m3_agent/msg/{name}"))
    ts.register(types)
    return ts


def stamp_msg(t: float):  # noqa: ANN201
    ts = typestore()
    ns = int(round(t * 1e9))
    return ts.types["builtin_interfaces/msg/Time"](sec=ns // 10**9, nanosec=ns % 10**9)


def header(t: float, frame_id: str):  # noqa: ANN201
    return typestore().types["std_msgs/msg/Header"](stamp=stamp_msg(t), frame_id=frame_id)
