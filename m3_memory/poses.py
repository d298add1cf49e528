"""Where the robot was: a pose track (stream time -> x, y, yaw in one frame) and named places.

The memorization node feeds odometry or pose messages into a :class:`PoseTrack`; when a clip is memorized, the
clip, each voice turn and each face appearance get the pose interpolated at their time (:func:`pose_at`), so
memory knows *where* things happened. Positions are planar (x, y, yaw), as a mobile robot's navigation stack
uses them; z is kept in the track but not interpolated into records.

A pose is only interpolated between samples at most ``max_gap_s`` apart (a robot whose odometry stopped did not
necessarily stand still); outside the track, or across a larger gap, a record simply has no pose. Samples that
cannot be used (NaN/inf, out of time order, another frame than the track's) are refused with a reason, so the
caller can count them instead of losing them silently.
"""

from __future__ import annotations

import bisect
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MAX_GAP_S = 2.0          # widest gap between two samples that is interpolated across
TRACK_SECONDS = 600.0    # how much of the track the node keeps in RAM (clips are memorized within seconds)


@dataclass(frozen=True)
class Pose:
    t: float
    x: float
    y: float
    yaw: float = 0.0
    z: float = 0.0
    frame: str = ""


class PoseRefused(ValueError):
    """A sample that cannot join the track; ``cause`` is a short word for diagnostics (bad, late, frame)."""

    def __init__(self, cause: str, detail: str) -> None:
        super().__init__(detail)
        self.cause = cause


def yaw_from_quaternion(x: float, y: float, z: float, w: float) -> float:
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def quaternion_from_yaw(yaw: float) -> tuple[float, float, float, float]:
    return 0.0, 0.0, math.sin(yaw / 2.0), math.cos(yaw / 2.0)


def _interp_angle(a: float, b: float, f: float) -> float:
    d = math.atan2(math.sin(b - a), math.cos(b - a))
    return math.atan2(math.sin(a + f * d), math.cos(a + f * d))


class PoseTrack:
    """Time-ordered pose samples of one frame, bounded to the last ``keep_s`` seconds."""

    def __init__(self, frame: str = "", max_gap_s: float = MAX_GAP_S, keep_s: float = TRACK_SECONDS) -> None:
        self.frame = frame          # "" = take the first sample's frame
        self.max_gap_s = max_gap_s
        self.keep_s = keep_s
        self._t: deque[float] = deque()
        self._p: deque[Pose] = deque()

    def __len__(self) -> int:
        return len(self._p)

    @property
    def latest_t(self) -> float | None:
        """Stream time of the newest sample (None while empty)."""
        return self._t[-1] if self._t else None

    def add(self, pose: Pose) -> None:
        """Append a sample; raises :class:`PoseRefused` for one that cannot be used."""
        vals = (pose.t, pose.x, pose.y, pose.yaw, pose.z)
        if not all(math.isfinite(v) for v in vals):
            raise PoseRefused("bad", f"pose at t={pose.t} has a non-finite value")
        if self.frame and pose.frame and pose.frame != self.frame:
            raise PoseRefused("frame", f"pose in frame {pose.frame!r}, expected {self.frame!r} (no transform)")
        if not self.frame:
            self.frame = pose.frame
        if self._t and pose.t <= self._t[-1]:
            raise PoseRefused("late", f"pose at t={pose.t:.3f} is not after the last one ({self._t[-1]:.3f})")
        self._t.append(pose.t)
        self._p.append(pose)
        while self._t and self._t[0] < pose.t - self.keep_s:
            self._t.popleft()
            self._p.popleft()

    def window(self, t0: float, t1: float) -> list[Pose]:
        """The samples in [t0, t1], plus one on each side (so the window's ends can be interpolated)."""
        ts = list(self._t)
        i = max(0, bisect.bisect_left(ts, t0) - 1)
        j = min(len(ts), bisect.bisect_right(ts, t1) + 1)
        return list(self._p)[i:j]


class SharedPoseTrack:
    """A :class:`PoseTrack` shared between the thread that receives poses and the one that memorizes clips.

    Poses arrive on their own callback and can lag the camera under load, so a finished clip asks for its samples
    with :meth:`window_when_covered`: it waits until the track reaches the clip's end, or until no pose has joined
    the track for ``wait_s`` seconds (the odometry stopped, or everything it sends is refused): then it goes on with
    what there is. A clip finished before the first pose waits for nothing."""

    def __init__(self, track: PoseTrack | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.track = track or PoseTrack()
        self._clock = clock
        self._cond = threading.Condition()
        self._arrival = -math.inf        # clock time of the last pose that joined the track

    def add(self, pose: Pose) -> None:
        """:meth:`PoseTrack.add` (raising :class:`PoseRefused` the same way); an accepted pose wakes waiters."""
        with self._cond:
            self.track.add(pose)
            self._arrival = self._clock()
            self._cond.notify_all()

    def window_when_covered(self, start: float, end: float, wait_s: float, margin_s: float = 1.0) -> list[Pose]:
        """The samples around [start - margin_s, end + margin_s], once the track reaches ``end`` (see the class)."""
        with self._cond:
            while wait_s > 0:
                latest = self.track.latest_t
                quiet = self._arrival + wait_s - self._clock()
                if latest is None or latest >= end or quiet <= 0:
                    break
                self._cond.wait(timeout=quiet)
            return self.track.window(start - margin_s, end + margin_s)


def pose_at(samples: list[Pose], t: float, max_gap_s: float = MAX_GAP_S) -> Pose | None:
    """The pose at time ``t``, linearly interpolated between the two samples around it (yaw along the shorter
    arc); None outside the samples or where they are more than ``max_gap_s`` apart."""
    if not samples:
        return None
    ts = [p.t for p in samples]
    i = bisect.bisect_left(ts, t)
    if i < len(ts) and abs(ts[i] - t) < 1e-9:
        return samples[i]
    if i == 0 or i == len(ts):
        edge = samples[0] if i == 0 else samples[-1]
        return edge if abs(edge.t - t) <= max_gap_s / 2 else None
    a, b = samples[i - 1], samples[i]
    if b.t - a.t > max_gap_s:
        return None
    f = (t - a.t) / (b.t - a.t)
    return Pose(t, a.x + f * (b.x - a.x), a.y + f * (b.y - a.y), _interp_angle(a.yaw, b.yaw, f),
                a.z + f * (b.z - a.z), a.frame)


@dataclass(frozen=True)
class Place:
    """A named area: a circle of ``radius`` metres around (x, y) in ``frame``."""

    name: str
    x: float
    y: float
    radius: float = 1.5
    frame: str = ""

    def distance(self, x: float, y: float) -> float:
        return math.hypot(x - self.x, y - self.y)


def parse_places(data: Any) -> list[Place]:
    """Places from config: a list of ``{name, x, y, radius?, frame?}`` (YAML), validated."""
    out: list[Place] = []
    for i, d in enumerate(data or []):
        if not isinstance(d, dict) or not str(d.get("name", "")).strip():
            raise ValueError(f"places[{i}]: needs a name, x and y")
        try:
            p = Place(" ".join(str(d["name"]).split()), float(d["x"]), float(d["y"]), float(d.get("radius", 1.5)),
                      str(d.get("frame", "")))
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"places[{i}] ({d.get('name')!r}): {e}") from None
        if not all(math.isfinite(v) for v in (p.x, p.y, p.radius)) or p.radius <= 0:
            raise ValueError(f"places[{i}] ({p.name!r}): x, y must be finite and radius > 0")
        out.append(p)
    names = [p.name.lower() for p in out]
    if len(set(names)) != len(names):
        raise ValueError("places: names must be unique")
    return out


def place_of(places: list[Place], x: float, y: float) -> Place | None:
    """The named place a position lies in (the nearest centre when areas overlap); None outside every place."""
    inside = [p for p in places if p.distance(x, y) <= p.radius]
    return min(inside, key=lambda p: p.distance(x, y)) if inside else None
