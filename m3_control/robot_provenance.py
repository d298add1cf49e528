"""Which robot saw or heard what, when several robots share one memory: every provenance entry of an answer
(a memory or a turn, with its clip) gets the robot that wrote that clip, read from the store when the answer is
made (never guessed afterwards). A store of one robot has no robot names and nothing changes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def clip_of(entry: dict[str, Any]) -> int | None:
    clip = entry.get("clip_id", entry.get("clip"))
    return int(clip) if isinstance(clip, int) else None


def robots_of(store: Any, clip_ids: Iterable[int | None]) -> dict[int, str]:
    clips = {c for c in clip_ids if c is not None}
    fn = getattr(store, "clip_robots", None)
    return fn(clips) if clips and fn is not None else {}


def add_robots(store: Any, trace: dict[str, Any]) -> None:
    """Name the robot in each of ``trace["provenance"]``'s entries, and list them as ``trace["robots"]``."""
    entries = [e for e in trace.get("provenance") or [] if isinstance(e, dict)]
    robots = robots_of(store, (clip_of(e) for e in entries))
    if not robots:
        return
    for e in entries:
        robot = robots.get(clip_of(e))  # type: ignore[arg-type]
        if robot:
            e["robot"] = robot
    trace["robots"] = sorted({e["robot"] for e in entries if "robot" in e})
