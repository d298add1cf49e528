"""The "where" entity tools: places computed from the poses stored with each turn (m3_memory.store.where).

===============================  =================================================================
``last_place("who")``             where the robot last saw or heard a person (place, time)
``first_place("who")``            where the robot first saw or heard a person
``places_discussed("topic")``     where the robot heard a topic come up, in time order
``place_at(t)``                   where the robot was at a time
===============================  =================================================================

A position is said as a named place ("the kitchen") when it lies inside one, else in metres of the pose frame.
The result's ``value`` is the pose ``{"x", "y", "yaw", "frame", "place", "t"}`` (or a list of them) so a
navigation goal can be built from exactly what the answer said.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from m3_memory.people import Turn
from m3_memory.poses import place_of
from m3_memory.store.where import frame_of, load_places, pose_near, turn_poses, where_text

from .tool_result import ToolError, ToolResult

NO_POSE = "I have no record of where that was."
MIN_TOPIC_SCORE = 0.3     # memories less similar than this to the topic are not about it (all-MiniLM-L6-v2)
TOPIC_HITS = 12
NEAR_TIME_S = 15.0        # place_at cites the turns (and their memories) this close to the asked time


class WhereOps:
    """Mixed into :class:`m3_control.tools.EntityTools` (uses its ``store``, ``_facts``, ``_who``, ``_d``, ``_at``
    and ``_time``)."""

    _at: Callable[[float], str]                          # how answers say a time
    _time: Callable[[float | str | None], float | None]  # and read one

    store: Any
    _facts: Any

    def _pose_value(self, x: float, y: float, yaw: float, t: float) -> dict[str, Any]:
        places = load_places(self.store)
        p = place_of(places, x, y)
        return {"x": x, "y": y, "yaw": yaw, "frame": frame_of(self.store), "place": p.name if p else None, "t": t}

    def _posed(self, turns: list[Turn]) -> list[tuple[Turn, tuple[float, float, float]]]:
        poses = turn_poses(self.store, [t.id for t in turns])
        return [(t, poses[t.id]) for t in turns if t.id in poses]

    def _person_place(self, who: str, last: bool) -> ToolResult:
        p, info = self._who(who)  # type: ignore[attr-defined]
        if p is None:
            return self._no_one("", who, info)  # type: ignore[attr-defined]
        posed = self._posed(sorted(p.turns + p.appearances, key=lambda t: (t.start, t.end)))
        if not posed:
            return ToolResult("", NO_POSE, [f"no pose stored for {self._d(p)}"], [], None, {who: info})  # type: ignore[attr-defined]
        turn, (x, y, yaw) = posed[-1] if last else posed[0]
        what = "heard" if turn.kind == "voice" else "saw"
        where = where_text(load_places(self.store), x, y)
        answer = (f"I {'last' if last else 'first'} {what} {self._d(p)} in {where} "  # type: ignore[attr-defined]
                  f"({self._at(turn.start)}).")
        return ToolResult("", answer, [f"{self._at(turn.start)} at x {x:.2f}, y {y:.2f}"], [turn],
                          self._pose_value(x, y, yaw, turn.start), {who: info})

    def last_place(self, who: str) -> ToolResult:
        return self._person_place(who, True)

    def first_place(self, who: str) -> ToolResult:
        return self._person_place(who, False)

    def places_discussed(self, topic: str) -> ToolResult:
        if not isinstance(topic, str) or not topic.strip():
            raise ToolError("places_discussed needs a topic as quoted text")
        bt = self._facts.before_time
        hits = [m for m in self.store.search_nodes(topic, topk=TOPIC_HITS, before_time=bt)
                if m.score is not None and m.score >= MIN_TOPIC_SCORE]
        if not hits:
            return ToolResult("", "I have no memory of that.", [f"no memory about {topic!r}"], [], [])
        mids = [int(m.id) for m in hits]
        quoted = self.store.turns_of_memories(mids)
        turns = [t for t in self._facts.turns if not quoted.isdisjoint(t.row_ids)]
        posed = self._posed(sorted(turns, key=lambda t: t.start))
        if not posed:
            return ToolResult("", NO_POSE, [f"{len(hits)} memories, none with a pose"], turns[:1], [])
        places = load_places(self.store)
        order: dict[str, list[float]] = {}
        values = []
        for t, (x, y, yaw) in posed:
            order.setdefault(where_text(places, x, y), []).append(t.start)
            values.append(self._pose_value(x, y, yaw, t.start))
        parts = [f"{w} ({', '.join(self._at(s) for s in ts[:3])}{', ...' if len(ts) > 3 else ''})"
                 for w, ts in order.items()]
        listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        return ToolResult("", f"I heard about that in {listed}.", [f"{len(hits)} memories about {topic!r}"],
                          [t for t, _ in posed], values)

    def place_at(self, when: float | str) -> ToolResult:
        t = self._time(when)
        if t is None:
            raise ToolError("place_at needs a time")
        bt = self._facts.before_time
        if bt is not None and t > bt:
            return ToolResult("", "I have no memory of that time yet.", [], [], None)
        p = pose_near(self.store, t, max_gap_s=5.0)
        if p is None:
            return ToolResult("", NO_POSE, [f"no pose near {self._at(t)}"], [], None)
        where = where_text(load_places(self.store), p.x, p.y)
        # provenance: what the robot saw or heard around then (the memories written there), nearest first
        near = sorted((tr for tr in self._facts.turns if abs((tr.start + tr.end) / 2 - t) <= NEAR_TIME_S),
                      key=lambda tr: abs((tr.start + tr.end) / 2 - t))[:3]
        return ToolResult("", f"At {self._at(t)} I was in {where}.", [f"x {p.x:.2f}, y {p.y:.2f}"], near,
                          self._pose_value(p.x, p.y, p.yaw, t))
