"""What a query found (:class:`QueryResult`): the people, the events the answer is derived from (its provenance), the
value, the steps taken (the trace) and whatever stopped it; :mod:`.phrase` words it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from m3_memory.people import Turn
from m3_memory.timeline import Timeline

from .frame import Query, compares_with_other, count_rank
from .people import Who


@dataclass
class PersonRow:
    character_id: int
    description: str
    events: list[Turn]             # selected events of this person, in time order
    spoke: int                     # voice turns in the scope

    @property
    def first(self) -> float:
        return self.events[0].start

    @property
    def last(self) -> float:
        return max(e.end for e in self.events)


@dataclass
class QueryResult:
    query: Query
    status: str = "ok"            # ok | unknown_person | ambiguous_person | unknown_place | future_time
    people: list[PersonRow] = field(default_factory=list)
    events: list[Turn] = field(default_factory=list)      # what the answer was derived from (provenance)
    value: Any = None
    places: dict[int, str] = field(default_factory=dict)   # event id -> place name (where known)
    robot_places: list[tuple[float, str]] = field(default_factory=list)   # (time, place) for "where was I"
    who: dict[str, Who] = field(default_factory=dict)      # "who" / "other" -> resolution
    problem: str = ""             # the reference, place or time that stopped the query
    steps: list[dict[str, Any]] = field(default_factory=list)
    anchor: Turn | None = None
    until_anchor: Turn | None = None    # "between A and B": B's turn (anchor: A's)
    spoke: dict[int, int] = field(default_factory=dict)    # character -> voice turns in the scope
    place_counts: dict[str, int] = field(default_factory=dict)  # "where did people talk the most": place -> events
    candidates: list[str] = field(default_factory=list)    # the people an ambiguous reference may mean
    describe: dict[int, str] = field(default_factory=dict)
    timeline: Timeline = field(default_factory=Timeline)  # how the memory's stream seconds meet the wall clock
    now: float | None = None      # the question's moment (stream seconds)
    into_recording: bool = False  # the question gave times into the recording: answers say them that way too
    gap: tuple[float, Turn] | None = None   # find=gap: the first moment and the turn the time runs to
    seconds: dict[int, float] = field(default_factory=dict)   # measure=time: character -> seconds as said
    exact_seconds: dict[int, float] = field(default_factory=dict)   # ... and as measured (talk_seconds)
    scope_events: list[Turn] = field(default_factory=list)  # every event in the scope (only=1: who else did it)
    others: list[int] = field(default_factory=list)         # only=1: the others who did it in the scope
    absent: str | None = None     # the frame's place, where the robot was not in the frame's window (nothing heard)
    right_next: Turn | None = None   # "what did C say right after A?": the turn that really came right after A's
    near: list[Turn] = field(default_factory=list)   # nobody at the frame's moment: the turns nearest it (said so)
    # the turns the answer names as what was asked, out of a scope of everyone's ("who spoke first after the longest
    # silence?": that one turn): a second ask ("and what did they say?") is asked of these, not of everyone
    picked: list[Turn] = field(default_factory=list)

    def read(self, t: str | None) -> float | None:
        """A time field of the frame in stream seconds (m3_memory.timeline: wall clock or into the recording)."""
        if t is None:
            return None
        value, how = self.timeline.reading(t, self.now)
        self.into_recording |= how == "recording"
        return value

    def say(self, t: float) -> str:
        return self.timeline.say(t, self.now, self.into_recording)

    def places_of(self, events: list[Turn]) -> list[str]:
        """The places of ``events`` (as placed on the robot's track), each once, in the events' order."""
        return list(dict.fromkeys(n for e in events for n in [self.places.get(e.id)] if n))

    def trace(self) -> dict[str, Any]:
        return {"query": self.query.compact(), "status": self.status, "problem": self.problem,
                "steps": self.steps, "value": _plain(self.value),
                "resolved": {k: w.trace() for k, w in self.who.items()},
                "people": [{"character_id": p.character_id, "description": p.description, "spoke": p.spoke,
                            "events": len(p.events)} for p in self.people]}


def both_people(q: Query, finds: tuple[str, ...] = ("yes",)) -> bool:
    """Two people and no relation between them: "did A and B both speak in the workshop?" (``find=yes``), "how many
    times in total did A and B speak?" (``find=count_times``): each one's turns, not a relation of one to the other."""
    return q.find in finds and bool(q.who and q.other) and not q.rel and not q.until and not q.count \
        and not compares_with_other(q.times)


def busiest_place(q: Query) -> bool:
    """``find=where pick=most|least``: the place where people (the person ``who``) spoke (were seen) most."""
    return q.find == "where" and count_rank(q.pick) is not None


def _plain(v: Any) -> Any:
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    return v if isinstance(v, str | int | float | bool | type(None)) else str(v)
