"""Navigation targets -> a remembered pose, for goals a navigation stack can execute (geometry_msgs/PoseStamped).

A target resolves, in this order, to
1. a named place of the store (``places`` table, from the memorization node's ``places_file``): its centre;
2. a person (a name, a tag or "the person who said ..."): where the robot last saw or heard them;
3. a topic ("where we talked about the folder", or anything not resolving to a person): where the robot last
   heard memories about it;
and, when the instruction's own words name none of these, to the pose the answer itself was derived from (a
``last_place`` / ``places_discussed`` tool result). Nothing else: a target without a remembered pose is refused.

The pose is where the *robot* was (its odometry/map pose at that moment), the one place memory can vouch for.
Provenance: the memories written at that pose (the turn's memories, or those written inside the named place).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from m3_memory.people import PeopleFacts
from m3_memory.store.where import find_place, frame_of, load_places, memories_near, turn_poses

MIN_TOPIC_SCORE = 0.3
# "where we talked about the folder", "the place where someone mentioned lunch": a topic, not a person
_TOPIC = re.compile(r"^(?:to\s+)?(?:the\s+(?:place|room|spot)\s+)?where\b.*?\b(?:about|of|mentioned|discussed|said)\s+",
                    re.IGNORECASE)
MAX_PROVENANCE = 20


@dataclass
class GoalPose:
    x: float
    y: float
    yaw: float
    frame: str
    how: str                              # place | person | topic | answer
    place: str | None = None
    t: float | None = None                # stream time the robot was there (None for a named place)
    memory_ids: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"x": round(self.x, 3), "y": round(self.y, 3), "yaw": round(self.yaw, 4), "frame": self.frame,
                "how": self.how, "place": self.place, "t": self.t, "memory_ids": self.memory_ids}


def pose_from_trace(trace: dict[str, Any] | None, memory_ids: list[int], frame: str = "") -> GoalPose | None:
    """The pose an answer was derived from: the last tool round's value, when it was a where tool's pose."""
    rounds = (trace or {}).get("rounds") or []
    value = ((rounds[-1].get("result") or {}).get("value")) if rounds and isinstance(rounds[-1], dict) else None
    if isinstance(value, list):
        value = value[-1] if value else None
    if not isinstance(value, dict) or not {"x", "y"} <= set(value):
        return None
    return GoalPose(float(value["x"]), float(value["y"]), float(value.get("yaw") or 0.0),
                    str(value.get("frame") or frame), "answer", value.get("place"), value.get("t"),
                    [int(i) for i in memory_ids][:MAX_PROVENANCE])


class PoseResolver:
    def __init__(self, store: Any) -> None:
        self.store = store

    def __call__(self, target: str, before_time: float | None = None) -> GoalPose | None:
        target = " ".join(str(target).split())
        if not target:
            return None
        frame = frame_of(self.store)
        place = find_place(load_places(self.store), target)
        if place is not None:
            near = sorted(memories_near(self.store, place.x, place.y, place.radius, before_time))
            return GoalPose(place.x, place.y, 0.0, place.frame or frame, "place", place.name, None,
                            near[-MAX_PROVENANCE:])
        facts = PeopleFacts(self.store, before_time)
        topic = _TOPIC.match(target)
        if topic:
            target = target[topic.end():]
        person = facts.resolve(target) if not topic else None
        if person is not None and person.character_id is not None:
            p = facts.person(person.character_id)
            turns = sorted(p.turns + p.appearances, key=lambda t: (t.start, t.end)) if p else []
            pose = self._last_posed(facts, turns, "person", frame)
            if pose is not None:
                return pose
        hits = [m for m in self.store.search_nodes(target, topk=12, before_time=before_time)
                if m.score is not None and m.score >= MIN_TOPIC_SCORE]
        if hits:
            ids = [int(m.id) for m in hits]
            wanted = self.store.turns_of_memories(ids)
            turns = sorted((t for t in facts.turns if not wanted.isdisjoint(t.row_ids)), key=lambda t: (t.start, t.end))
            return self._last_posed(facts, turns, "topic", frame)
        return None

    def _last_posed(self, facts: PeopleFacts, turns: list[Any], how: str, frame: str) -> GoalPose | None:
        poses = turn_poses(self.store, [t.id for t in turns])
        posed = [t for t in turns if t.id in poses]
        if not posed:
            return None
        turn = facts.with_memories(posed[-1:])[0]
        x, y, yaw = poses[turn.id]
        from m3_memory.poses import place_of

        p = place_of(load_places(self.store), x, y)
        return GoalPose(x, y, yaw, frame, how, p.name if p else None, turn.start, list(turn.memory_ids))
