"""The robot's own track as a query's answer: how long it stayed in a place and when it got there (or left), and
where it was at a moment or along a window (used by :mod:`.execute`)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from m3_memory.people import PeopleFacts
from m3_memory.poses import Place, place_of
from m3_memory.store.where import find_place, load_places, pose_near, robot_stays, track_between

from .words import cap, the_place

if TYPE_CHECKING:
    from .frame import Query
    from .result import QueryResult


def robot_time_in(store: Any, res: QueryResult | None, place_name: str, t1: float | None, t2: float | None) -> int:
    """Whole seconds the robot's track spent inside the place (between consecutive poses both inside it); its
    stays there as (time, place) runs for the answer and its check (``res``, when given)."""
    places = load_places(store)
    place = find_place(places, place_name)
    total, prev_in, prev_t = 0.0, False, None
    for pose in track_between(store, t1, t2):
        p = place_of(places, pose.x, pose.y)
        inside = p is not None and place is not None and p.name == place.name
        if inside and prev_in and prev_t is not None:
            total += pose.t - prev_t
        if inside and not prev_in and res is not None:
            res.robot_places.append((pose.t, place.name))  # type: ignore[union-attr]
        prev_in, prev_t = inside, pose.t
    return int(round(total))


ON_THE_WAY = "on the way"   # (res.problem) a moment between two rooms
PASSING_S = 2.0   # a stay shorter than this is the robot driving through a place on its way elsewhere
# what a frame about people in a place and window can find there (not the robot's own stays: find=how_long etc.)
_HEARD_THERE = ("yes", "who", "count_people", "count_times", "what", "when")


def visits(store: Any, until: float | None = None) -> list[tuple[str, float, float | None]]:
    """The robot's stays (``robot_stays``) without the moments it only drove through a place on its way elsewhere
    (under :data:`PASSING_S`; kept where passing through is all it did there), a stay either side of such a pass in
    one place joined: "after I entered the garage" is its stay there, not the second its track crossed the garage
    on the way to the bathroom, and that crossing is no room change."""
    stays = robot_stays(store, until)
    real = {p for p, a, b in stays if b is None or b - a >= PASSING_S}
    out: list[tuple[str, float, float | None]] = []
    for p, a, b in stays:
        if p in real and b is not None and b - a < PASSING_S:
            continue
        if out and out[-1][0] == p:
            out[-1] = (p, out[-1][1], b)
        else:
            out.append((p, a, b))
    return out


def arrivals(track: list, stays: list) -> list:
    """Of ``stays`` (some of the robot's ``track``), those that were arrivals: not the stay the recording began in,
    where the robot came back to the place later ("when did I arrive in the lab?" of a robot that began there)."""
    return [s for s in stays if s is not track[0]] or stays


def not_there(store: Any, q: Query, place: str, t1: float | None, t2: float | None) -> bool:
    """Whether nothing the frame asks about could have been heard or seen in ``place`` in the window because the
    robot was not there then (under :data:`PASSING_S` inside it: driving through): "did anyone speak in the office
    after I left it?" is not "no", it is unknown."""
    if q.find not in _HEARD_THERE or (q.act not in ("spoke", "seen") and not q.who):
        return False
    return robot_time_in(store, None, place, t1, t2) < PASSING_S


def not_there_answer(res: QueryResult, cond: str) -> str:
    """"I don't know: I was not in the office after 00:31, so I could not have heard anyone there." (the window
    as the frame's; without one, never there at all)."""
    q = res.query
    sense = "seen" if q.act == "seen" else "heard"
    who = res.describe[res.who["who"].character_id] if "who" in res.who else "anyone"  # type: ignore[index]
    was = "was not" if q.from_ or q.to or q.at else "was never"
    return f"I don't know: I {was}{cond}, so I could not have {sense} {who} there."


def where_answer(res: QueryResult, cond: str) -> str:
    """"At 00:49 I was in the workshop.", "I was in the porch, then the lab.", and at a moment between two rooms "At
    00:50 I was on my way from the workshop (left at 00:50) to the lab (there at 00:51)."."""
    names = [p for _, p in res.robot_places]
    lead = f"{cap(cond.strip())} I was" if cond else "I was"
    if res.query.pick in ("first", "last"):
        lead = f"{lead} {res.query.pick}"
    if res.problem == ON_THE_WAY and len(names) == 2:
        (left, a), (got, b) = res.robot_places
        if res.say(left) == res.say(got):   # a crossing within one second: one clock, said once
            return f"{lead} on my way from {the_place(a)} to {the_place(b)} (I left the one and got to the other " \
                   f"at {res.say(got)})."
        return f"{lead} on my way from {the_place(a)} (left at {res.say(left)}) to {the_place(b)} (there at " \
               f"{res.say(got)})."
    return f"{lead} in " + ", then ".join(the_place(n) for n in names) + "."


def _stays_in(store: Any, res: QueryResult, place: Place | None, t2: float | None) -> list[tuple[float, float | None]]:
    """The robot's stays in the place up to ``t2``, without the moments it only drove through it (a track from the
    hallway to the kitchen that crosses the bathroom for 0.1 s did not "get to the bathroom"), unless passing through
    is all it did there."""
    stays = [(a, b) for p, a, b in robot_stays(store, t2) if place is not None and p == place.name]
    kept = [(a, b) for a, b in stays if b is None or b - a >= PASSING_S] or stays
    if len(kept) < len(stays):
        res.steps.append({"step": f"passed through {place.name}", "at": [round(a, 1) for a, b in stays  # type: ignore[union-attr]
                                                                        if (a, b) not in kept]})
    return kept


def robot_arrivals(store: Any, res: QueryResult, place_name: str, t1: float | None, t2: float | None) -> list[float]:
    """When the robot got to the place within the window (the starts of its stays there)."""
    place = find_place(load_places(store), place_name)
    got = [a for a, _ in _stays_in(store, res, place, t2) if t1 is None or a >= t1]
    res.robot_places = [(a, place.name) for a in got]  # type: ignore[union-attr]
    return got


def robot_departures(store: Any, res: QueryResult, place_name: str, t1: float | None, t2: float | None) -> list[float]:
    """When the robot left the place within the window (the ends of its stays there, ``robot_stays``: the first pose
    outside). ``res.robot_places``: those times, or where it never left, when it got there (the answer says so)."""
    place = find_place(load_places(store), place_name)
    stays = _stays_in(store, res, place, t2)
    left = [b for _, b in stays if b is not None and (t1 is None or b >= t1)]
    res.robot_places = [(b, place.name) for b in left] or \
        [(a, place.name) for a, b in stays if b is None]  # type: ignore[union-attr]
    return left


def robot_moments(store: Any, res: QueryResult, q: Query, t1: float | None, t2: float | None) -> None:
    """find=when about the robot in ``q.place``: when it got there (``move=left``: when it left; never left: when it
    got there, which the answer says), the first / last of them with ``pick``."""
    if q.move == "left":
        moments = robot_departures(store, res, q.place or "", t1, t2)
    else:
        moments = robot_arrivals(store, res, q.place or "", t1, t2)
    res.value = moments[-1:] if q.pick == "last" else moments[:1] if q.pick == "first" else moments
    if moments:
        res.robot_places = [x for x in res.robot_places if x[0] in res.value]


def robot_places(store: Any, res: QueryResult, facts: PeopleFacts, at: float | None, t1: float | None,
                 t2: float | None) -> None:
    """Where the robot was: at a moment, or along its track in a window (all of it when open), as
    (time, place) runs; positions outside every named place are said in metres."""
    places = load_places(store)
    if at is not None:
        pose = pose_near(store, at)
        track = [pose] if pose is not None else []
    else:
        end = t2 if t2 is not None else facts.before_time
        track = track_between(store, t1, end)
    for pose in track:
        p = place_of(places, pose.x, pose.y)
        if p is None and at is None:
            continue          # driving between rooms
        if p is None and at is not None and _on_the_way(store, res, at):
            break
        name = p.name if p is not None else f"x {pose.x:.1f}, y {pose.y:.1f}"
        if not res.robot_places or res.robot_places[-1][1] != name:
            res.robot_places.append((pose.t, name))
    # provenance: what the robot saw or heard around then (the memories written there), nearest first
    mid = at if at is not None else ((t1 or 0.0) + (t2 if t2 is not None else t1 or 0.0)) / 2
    res.events = sorted((e for e in facts.turns if abs((e.start + e.end) / 2 - mid) <= 15.0),
                        key=lambda e: abs((e.start + e.end) / 2 - mid))[:3]


def _on_the_way(store: Any, res: QueryResult, at: float) -> bool:
    """At a moment outside every place between two stays: the room the robot had left and the one it went to."""
    stays = robot_stays(store, None)
    before = [(b, p) for p, _, b in stays if b is not None and b <= at + 1e-6]
    after = [(a, p) for p, a, _ in stays if a >= at - 1e-6]
    if not before or not after:
        return False
    res.robot_places, res.problem = [before[-1], after[0]], ON_THE_WAY
    return True


def robot_seconds_by_place(store: Any, t1: float | None, t2: float | None) -> dict[str, int]:
    """Whole seconds of the robot's stays in each named place within the window (a stay it has not left runs to the
    last input recorded by ``t2``: a replay asked about afterwards ended there), for "which room did I spend the most
    time in?"."""
    out: dict[str, float] = {}
    end = store.perceived_until(t2) if hasattr(store, "perceived_until") else t2
    for place, a, b in robot_stays(store, t2):
        lo, hi = max(a, t1) if t1 is not None else a, b if b is not None else (end if end is not None else t2)
        if hi is not None and hi > lo:
            out[place] = out.get(place, 0.0) + hi - lo
    return {p: int(round(s)) for p, s in out.items()}


MOVE_M = 0.05     # a step of the track longer than this is the robot moving


def motions(store: Any, t1: float | None = None, t2: float | None = None) -> list[tuple[float, float]]:
    """The robot's spells of moving within the window, as (start, end): runs of steps of its track longer than
    :data:`MOVE_M`. A spell's start is the last still pose, or where the track was sampled sparsely while the robot
    stood still, one moving step's time before the first moved pose; its end is the pose it came to rest at."""
    track = track_between(store, t1, t2)
    spells: list[list[float]] = []
    for prev, cur in zip(track, track[1:], strict=False):
        if math.hypot(cur.x - prev.x, cur.y - prev.y) <= MOVE_M:
            continue
        if spells and abs(spells[-1][1] - prev.t) < 1e-6:
            if len(spells[-1]) == 2:
                spells[-1].append(cur.t - prev.t)       # (the first moving step's time)
            spells[-1][1] = cur.t
        else:
            spells.append([prev.t, cur.t])
    out = []
    for spell in spells:
        start, end = spell[0], spell[1]
        if len(spell) == 3:       # the still pose before may be a sparse sample: the move began one step before
            first_moved = next(p.t for p in track if p.t > start)
            start = max(start, first_moved - spell[2])
        out.append((start, end))
    return out


def room_named(rooms: Iterable[str], words: str) -> str | None:
    """The room of ``rooms`` (names the robot's track holds) that ``words`` begin with ("lab did anyone" -> "lab";
    the longest name first: "living room" before "living"), else None."""
    return next((p for p in sorted(set(rooms), key=len, reverse=True)
                 if f"{words.lower()} ".startswith(f"{p.lower()} ")), None)


def began_in(e: Any, place: str, stays: list[tuple[str, float, float | None]], end: float) -> bool:
    """Whether turn ``e`` began while the robot stayed in ``place`` (a stay still going on runs to ``end``)."""
    return any(p == place and a <= e.start < (b if b is not None else end + 1) for p, a, b in stays)
