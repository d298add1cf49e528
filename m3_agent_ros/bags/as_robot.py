"""Rewrite a converted bag the way a robot's ``ros2 bag record`` would have stored the same stream.

A robot stamps its messages in ROS time (seconds since 1970) and records them with its receive times; its bags
have no ``m3_agent.stream_origin_ns`` metadata. ``as_robot(src, dst, start)`` keeps every message and its timing
and moves both clocks to ``start`` (epoch seconds): header stamps become ``start + stamp`` (``stamps="ros"``) or
stay in stream time (``stamps="stream"``: a simulator's or a driver's own clock, recorded in ROS time). The
questions sidecar is copied unchanged: its times stay times into the recording, as M3-Bench asks them.

Tests and benchmarks use it to check that a robot's own recordings replay and memorize like a live robot.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from .questions import QUESTIONS_TOPIC, SIDECAR
from .read import iter_messages
from .types import typestore


def as_robot(src: str | Path, dst: str | Path, start: float, stamps: str = "ros", storage: str = "mcap") -> Path:
    """Write ``dst`` from ``src`` as a robot records it, starting at ``start`` (epoch seconds)."""
    from rosbags.rosbag2 import StoragePlugin, Writer

    from .convert import BAG_VERSION
    from .faults import restamp

    if stamps not in ("ros", "stream"):
        raise ValueError(f"stamps must be 'ros' or 'stream', got {stamps!r}")
    src, dst = Path(src), Path(dst)
    if dst.exists():
        raise FileExistsError(f"{dst} exists")
    start_ns = int(round(start * 1e9))
    ts = typestore()
    plugin = StoragePlugin.MCAP if storage == "mcap" else StoragePlugin.SQLITE3
    writer = Writer(dst, version=BAG_VERSION, storage_plugin=plugin)
    writer.open()
    conns: dict[str, object] = {}
    n = 0
    try:
        for m in iter_messages(src):
            if m.topic == QUESTIONS_TOPIC:
                continue     # the questions travel in the sidecar (a robot's bag has no such topic)
            if m.stamped and stamps == "ros":
                m = restamp(m, start + m.stamp)
            conn = conns.get(m.topic)
            if conn is None:
                conn = conns[m.topic] = writer.add_connection(m.topic, m.msgtype, typestore=ts)
            writer.write(conn, start_ns + int(round(m.t * 1e9)), m.raw)
            n += 1
    finally:
        writer.close()
    if not n:
        raise ValueError(f"{src} holds no messages")
    if (src / SIDECAR).exists():
        shutil.copy(src / SIDECAR, dst / SIDECAR)
    places = src.parent / "places.yaml"    # the named places beside a bag (m3_agent_ros.demo.pose_params)
    if places.is_file() and not (dst.parent / "places.yaml").exists():
        shutil.copy(places, dst.parent / "places.yaml")
    return dst
