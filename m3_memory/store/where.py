"""Where things happened: poses written with each clip and turn, named places, and position-filtered retrieval.

Writing (inside a clip transaction, :func:`record_poses`): the clip's pose samples go to the ``poses`` track
(thinned: a sample is kept when the robot moved or turned, or a second passed), the clip gets the pose at its
middle, and each of the clip's turns (voice turns and face appearances) the pose at its middle. Records without a
pose (no pose source, odometry gap) keep working everywhere; they are just never "near" anything.

Reading: :func:`turn_poses` for the entity tools, :func:`memories_near` / :func:`search_near` to restrict
retrieval to a circle (around a point or a named place), :func:`where_text` to say a position in words.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..poses import Place, Pose, parse_places, place_of, pose_at
from .select_in import select_in

if TYPE_CHECKING:
    from .memory_store import ClipWriter, MemoryStore

KEEP_MOVE_M = 0.05       # a track sample is stored when the robot moved this far ...
KEEP_TURN_RAD = 0.05     # ... or turned this much ...
KEEP_EVERY_S = 1.0       # ... or this long after the last stored one
MAX_NEAR_IDS = 200_000   # a position filter matching more memories than this is not selective: refused


def _mine(store: MemoryStore) -> tuple[str, tuple]:
    """The SQL condition (and its argument) for this robot's own pose track: a named robot in a shared memory
    reads and extends only its own (two robots' tracks would interleave); the store's only robot reads all."""
    return (" AND robot = ?", (store.robot,)) if store.robot else ("", ())


def record_poses(w: ClipWriter, samples: Sequence[Pose]) -> int:
    """Store the clip's poses (track, clip pose, turn poses). Returns the number of turns given a pose."""
    if not samples:
        return 0
    samples = sorted(samples, key=lambda p: p.t)
    mine, robot = _mine(w.store)
    last = w.conn.execute(f"SELECT t, x, y, yaw FROM poses WHERE 1 = 1{mine} ORDER BY t DESC LIMIT 1",
                          robot).fetchone()
    rows = []
    for p in samples:
        if not (w.start_time - 1.0 <= p.t <= w.end_time + 1.0):
            continue
        if last is not None:
            if p.t <= last[0]:
                continue
            moved = math.hypot(p.x - last[1], p.y - last[2]) >= KEEP_MOVE_M
            turned = abs(math.atan2(math.sin(p.yaw - (last[3] or 0.0)), math.cos(p.yaw - (last[3] or 0.0)))
                         ) >= KEEP_TURN_RAD
            if not (moved or turned or p.t - last[0] >= KEEP_EVERY_S):
                continue
        rows.append((p.t, p.x, p.y, p.z, p.yaw, p.frame, w.clip_id, w.store.robot or None))
        last = (p.t, p.x, p.y, p.yaw)
    w.conn.executemany("INSERT INTO poses (t, x, y, z, yaw, frame, clip_id, robot) VALUES (?,?,?,?,?,?,?,?)", rows)
    mid = pose_at(samples, (w.start_time + w.end_time) / 2)
    if mid is not None:
        w.extra["pose"] = {"x": round(mid.x, 3), "y": round(mid.y, 3), "yaw": round(mid.yaw, 3), "frame": mid.frame}
    w.clip_pose = mid  # written with the clip row at commit (see MemoryStore.begin_clip)
    posed = 0
    for tid, start, end in w.conn.execute("SELECT id, start_time, end_time FROM turns WHERE clip_id = ?",
                                          (w.clip_id,)).fetchall():
        p = pose_at(samples, (start + end) / 2)
        if p is not None:
            w.conn.execute("UPDATE turns SET x = ?, y = ?, yaw = ? WHERE id = ?", (p.x, p.y, p.yaw, tid))
            posed += 1
    return posed


def save_places_file(store: MemoryStore, path: Path) -> int:
    """The named places of a YAML file (list of {name, x, y, radius}) written to the store; returns how many."""
    import yaml

    places = parse_places(yaml.safe_load(Path(path).read_text()))
    save_places(store, places)
    return len(places)


def save_places(store: MemoryStore, places: Iterable[Place], source: str = "config") -> int:
    """Replace the places of ``source`` with ``places`` (one transaction)."""
    places = list(places)
    with store.transaction():
        store.conn.execute("DELETE FROM places WHERE source = ?", (source,))
        store.conn.executemany(
            "INSERT OR REPLACE INTO places (name, x, y, radius, frame, source, updated_at) VALUES (?,?,?,?,?,?,?)",
            [(p.name, p.x, p.y, p.radius, p.frame, source, time.time()) for p in places])
    return len(places)


def load_places(store: MemoryStore) -> list[Place]:
    return [Place(n, x, y, r, f or "") for n, x, y, r, f in
            store.conn.execute("SELECT name, x, y, radius, frame FROM places ORDER BY name").fetchall()]


def find_place(places: Sequence[Place], name: str) -> Place | None:
    """A place by name, ignoring case and a leading article ("the kitchen" -> kitchen)."""
    key = " ".join(name.lower().replace("’", "'").split())
    for art in ("the ", "a ", "an ", "my ", "our "):
        key = key.removeprefix(art)
    return next((p for p in places if p.name.lower() == key), None)


def frame_of(store: MemoryStore) -> str:
    mine, robot = _mine(store)
    row = store.conn.execute(f"SELECT frame FROM poses WHERE 1 = 1{mine} ORDER BY t DESC LIMIT 1", robot).fetchone()
    return (row[0] or "") if row else ""


def turn_poses(store: MemoryStore, turn_ids: Sequence[int]) -> dict[int, tuple[float, float, float]]:
    rows = select_in(store.conn, "SELECT id, x, y, yaw FROM turns WHERE x IS NOT NULL AND id IN ({})",
                     dict.fromkeys(int(i) for i in turn_ids), chunk=900)
    return {r[0]: (r[1], r[2], r[3] or 0.0) for r in rows}


def where_text(places: Sequence[Place], x: float, y: float) -> str:
    """A position in words: "the kitchen" inside a named place, else "x 2.1, y -0.4" (metres)."""
    p = place_of(list(places), x, y)
    return f"the {p.name}" if p is not None else f"x {x:.1f}, y {y:.1f}"


def memories_near(store: MemoryStore, x: float, y: float, radius: float,
                  before_time: float | None = None) -> set[int]:
    """Memories (text nodes) written from a turn within ``radius`` metres of (x, y), or, for memories not linked to
    a turn, written in a clip whose middle pose is within ``radius``."""
    if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(radius)) or radius <= 0:
        raise ValueError("a position filter needs finite x, y and a radius > 0")
    bound = "" if before_time is None else " AND c.end_time <= :bt"
    box = {"x0": x - radius, "x1": x + radius, "y0": y - radius, "y1": y + radius, "bt": before_time}
    rows = store.conn.execute(
        "SELECT tm.memory_id, t.x, t.y FROM turns t JOIN turn_memories tm ON tm.turn_id = t.id "
        "JOIN clips c ON c.id = t.clip_id WHERE t.x BETWEEN :x0 AND :x1 AND t.y BETWEEN :y0 AND :y1" + bound,
        box).fetchall()
    rows += store.conn.execute(
        "SELECT n.id, c.x, c.y FROM nodes n JOIN clips c ON c.id = n.clip_id "
        "WHERE n.type IN ('episodic', 'semantic') AND c.x BETWEEN :x0 AND :x1 AND c.y BETWEEN :y0 AND :y1"
        " AND NOT EXISTS (SELECT 1 FROM turn_memories tm WHERE tm.memory_id = n.id)" + bound, box).fetchall()
    ids = {int(m) for m, mx, my in rows if math.hypot(mx - x, my - y) <= radius}
    if len(ids) > MAX_NEAR_IDS:
        raise ValueError(f"position filter matches {len(ids)} memories; use a smaller radius")
    return ids


def search_near(store: MemoryStore, query: str, x: float, y: float, radius: float, topk: int = 10,
                before_time: float | None = None) -> list[Any]:
    """``store.search_nodes`` restricted to memories within ``radius`` metres of (x, y), best first."""
    allowed = memories_near(store, x, y, radius, before_time)
    if not allowed or topk <= 0:
        return []
    k = max(4 * topk, 32)
    while True:
        hits = store.search_nodes(query, topk=k, before_time=before_time)
        out = [m for m in hits if int(m.id) in allowed]
        if len(out) >= topk or len(hits) < k:
            return out[:topk]
        k *= 4


def pose_near(store: MemoryStore, t: float, max_gap_s: float = 5.0) -> Pose | None:
    """The robot's pose at time ``t`` from the stored track (interpolated; None without samples within
    ``max_gap_s``)."""
    mine, robot = _mine(store)
    rows = store.conn.execute(f"SELECT t, x, y, yaw, frame FROM poses WHERE t BETWEEN ? AND ?{mine} ORDER BY t",
                              (t - max_gap_s, t + max_gap_s, *robot)).fetchall()
    return pose_at([Pose(r[0], r[1], r[2], r[3] or 0.0, 0.0, r[4] or "") for r in rows], t, max_gap_s=max_gap_s)


def track_between(store: MemoryStore, t0: float | None = None, t1: float | None = None) -> list[Pose]:
    """The stored pose track in [t0, t1] (open ends: all of it), in time order."""
    mine, robot = _mine(store)
    rows = store.conn.execute(
        f"SELECT t, x, y, yaw, frame FROM poses WHERE t >= ? AND t <= ?{mine} ORDER BY t",
        (-math.inf if t0 is None else t0, math.inf if t1 is None else t1, *robot)).fetchall()
    return [Pose(r[0], r[1], r[2], r[3] or 0.0, 0.0, r[4] or "") for r in rows]


def robot_stays(store: MemoryStore, until: float | None = None) -> list[tuple[str, float, float | None]]:
    """The robot's stays in named places up to ``until``, in time order: (place, entered, left; None while it is
    still there at the end of the track). Positions outside every place end a stay."""
    places = load_places(store)
    stays: list[tuple[str, float, float | None]] = []
    current: tuple[str, float] | None = None
    for pose in track_between(store, None, until):
        p = place_of(places, pose.x, pose.y)
        name = p.name if p is not None else None
        if current is not None and name != current[0]:
            stays.append((current[0], current[1], pose.t))
            current = None
        if current is None and name is not None:
            current = (name, pose.t)
    if current is not None:
        stays.append((current[0], current[1], None))
    return stays
