"""What a group of turns measures, and the groups themselves (:mod:`.measure_groups` ranks or lists them,
:mod:`.scope_compare` compares two a question names): the rooms the robot was in, the parts of the recording (its
start to the last input the memory holds, in equal parts; a turn belongs to the part its speaking began in, a silence
to the part that holds most of it) and each group's figure (turns, speakers, changes of speaker, seconds of speech,
silence, the longest / shortest / average turn or silence), with the turns it comes from."""

from __future__ import annotations

import statistics
from collections.abc import Callable

from m3_memory.people import began
from m3_memory.store.where import robot_stays
from m3_memory.timeline import Timeline

from .execute import QueryExecutor
from .group_questions import _ORDINAL, _PART_WORD, GroupAsk
from .result import QueryResult
from .wording import QUOTED
from .words import seconds_said, the_place

__all__ = ["covered", "figure", "groups_of", "measure", "named_part", "part_of", "recording_end", "silences_between",
           "silences_within", "stays_held", "unit_of", "what_measured"]


def silences_between(turns: list, member: Callable) -> list[tuple[float, object, object]]:
    """(length, turn before, turn after) of each silence between two turns that follow each other, both in a group."""
    out = []
    for a, b in zip(turns, turns[1:], strict=False):
        if member(a) and member(b) and b.start > a.end:
            out.append((b.start - a.end, a, b))
    return out


def silences_within(turns: list, a: float, b: float) -> list[tuple[float, object, object]]:
    """(length, turn before, turn after) of each silence between two turns that follow each other whose middle lies
    in ``a``-``b`` (a part of the recording holds the silences that lie mostly in it, whoever spoke around them)."""
    return [(g, x, y) for g, x, y in silences_between(turns, lambda e: True) if a <= (x.end + y.start) / 2 < b]


def covered(turns: list, a: float, b: float) -> float:
    """Seconds of ``a``-``b`` during which someone spoke (overlapping turns counted once)."""
    total, reach = 0.0, a
    for e in sorted(turns, key=lambda x: x.start):
        lo, hi = max(e.start, reach), min(e.end, b)
        if hi > lo:
            total, reach = total + hi - lo, hi
    return total


def measure(ask: GroupAsk, turns: list, mine: list, member: Callable, span: float | None,
             bounds: tuple[float, float] | None = None) -> tuple[float | None, list]:
    """A group's figure and the turns it comes from (None: nothing to measure, such as a silence with no two turns);
    ``bounds``: a part of the recording's start and end (its silences are where they lie)."""
    if ask.measure in ("turns", "absent", "every"):
        return float(len(mine)), mine
    if ask.measure == "changes":    # (a part holds the change into it: it happens where the new turn begins)
        pairs = [(a, b) for a, b in zip(turns, turns[1:], strict=False) if (member(a) or bounds is not None)
                 and member(b) and a.character_id != b.character_id]
        return float(len(pairs)), [e for pair in pairs for e in pair]
    if ask.measure == "people":
        return float(len({e.character_id for e in mine})), mine
    if ask.measure == "seconds":
        return sum(e.end - e.start for e in mine), mine
    if ask.measure in ("max_turn", "min_turn", "mean_turn"):
        if not mine:
            return None, []
        if ask.measure == "mean_turn":
            return statistics.mean(e.end - e.start for e in mine), mine
        pick = max if ask.measure == "max_turn" else min
        e = pick(mine, key=lambda x: x.end - x.start)
        return e.end - e.start, [e]
    if ask.measure == "silence" and bounds is not None:     # a part: its time no turn covers
        a, b = bounds
        return max(0.0, (b - a) - covered(turns, a, b)), mine
    if ask.measure == "silence" and span is not None:
        return max(0.0, span - sum(e.end - e.start for e in mine)), mine
    gaps = silences_between(turns, member) if bounds is None else silences_within(turns, *bounds)
    if not gaps:
        return None, []
    if ask.measure == "mean_silence":
        return statistics.mean(g for g, _, _ in gaps), [e for _, a, b in gaps for e in (a, b)]
    g, a, b = (max if ask.measure in ("max_silence", "silence") else min)(gaps, key=lambda x: x[0])
    return g, [a, b]


def groups_of(executor: QueryExecutor, res: QueryResult, ask: GroupAsk, turns: list,
            before_time: float | None) -> list[tuple[str, Callable, float | None, tuple[float, float] | None]]:
    """(name, membership test of a turn, seconds the group lasted where known, its start and end where it is a part
    of the recording) of every group, in time order."""
    end = recording_end(executor, turns, before_time)
    if ask.groups == "room":
        executor.place_turns(res, turns)
        held = stays_held(executor, end, before_time)
        return [(the_place(r), (lambda e, r=r: res.places.get(e.id) == r), held[r], None) for r in held]
    if ask.parts:
        n = ask.parts
        name = {2: "half", 3: "third", 4: "quarter"}[n]
        out = []
        for i in range(n):
            which = "last" if i == n - 1 and n > 2 else _ORDINAL[i] if n > 2 else ("first", "second")[i]
            member, length, bounds = part_of(f"the {which} {name}", end)   # type: ignore[misc]
            out.append((f"the {which} {name}", member, length, bounds))
        return out
    minutes = int(end // 60) + 1
    return [(f"minute {i + 1}", (lambda e, i=i: i * 60 <= began(e) < (i + 1) * 60 or i == 0 and began(e) < 0),
             min(60.0, end - i * 60), (i * 60.0, min((i + 1) * 60.0, end))) for i in range(minutes)]


def recording_end(executor: QueryExecutor, turns: list, before_time: float | None) -> float:
    """The recording's end: the last input the memory holds (else the last turn's end)."""
    return executor.store.perceived_until(before_time) or max((e.end for e in turns), default=0.0)


def stays_held(executor: QueryExecutor, end: float, before_time: float | None) -> dict[str, float]:
    """Seconds the robot stayed in each room, in the order it first went there (a stay not left runs to ``end``)."""
    held: dict[str, float] = {}
    for p, a, b in robot_stays(executor.store, before_time):
        held[p] = held.get(p, 0.0) + (b if b is not None else end) - a
    return held


def part_of(name: str, end: float) -> tuple[Callable, float, tuple[float, float]] | None:
    """(membership test of a turn, seconds, start and end) of a part of the recording ("the last third") as the
    timeline reads it (its start to ``end``, in equal parts); a turn belongs to the part its speaking began in
    (m3_memory.people.began: the first part keeps what began before the recording's start, the last part what began
    at its end). None for a part there is not ("the fourth third")."""
    span = next((x for x in Timeline().spans(name, end, end) if x.start is not None and x.end is not None), None)
    if span is None:
        return None
    a, b = span.start, span.end

    def member(e: object) -> bool:
        t = began(e)   # type: ignore[arg-type]
        return (a <= t or a <= 0) and (t < b or b >= end)   # type: ignore[operator]
    return member, b - a, (a, b)   # type: ignore[operator,return-value]


def named_part(executor: QueryExecutor, question: str, turns: list,
                before_time: float | None) -> tuple[str, Callable] | None:
    """(its words, membership of a turn) of the one part of the recording the question names, else None."""
    found = [m for m in _PART_WORD.finditer(QUOTED.sub(" ", question)) if m.group(2)]
    if len(found) != 1:
        return None
    name = f"the {found[0].group(1).lower()} {found[0].group(2).lower()}"
    part = part_of(name, recording_end(executor, turns, before_time))
    return (name, part[0]) if part is not None else None


def figure(ask: GroupAsk, x: float, fine: bool = False) -> str:
    if ask.measure == "changes":
        return f"{int(x)} change{'s' if int(x) != 1 else ''} of speaker"
    if ask.measure in ("turns", "absent", "every"):
        return f"{int(x)} turn{'s' if int(x) != 1 else ''}"
    if ask.measure == "people":
        return f"{int(x)} {'person' if int(x) == 1 else 'people'}"
    return seconds_said(x, fine)


def unit_of(ask: GroupAsk) -> str:
    if ask.groups == "room":
        return "room"
    return {2: "half", 3: "third", 4: "quarter"}.get(ask.parts, "minute")


def what_measured(ask: GroupAsk, who: str | None, place: str | None, within: str | None = None) -> str:
    """The measure in words ("the longest silence between turns", "turns by A longer than 2 seconds")."""
    noun = {"turns": "turns", "absent": "turns", "every": "turns", "changes": "changes of speaker",
            "people": "different speakers",
            "seconds": "seconds of speech",
            "silence": "silence (time without speech)", "max_silence": "the longest silence between turns",
            "min_silence": "the shortest silence between turns", "mean_silence": "the average silence between turns",
            "max_turn": "the longest turn", "min_turn": "the shortest turn",
            "mean_turn": "the average turn"}[ask.measure]
    if who:
        noun += f" {'of' if ask.measure in ('max_turn', 'min_turn', 'mean_turn') else 'by'} {who}"
    for word, limit in (("longer", ask.longer), ("shorter", ask.shorter)):   # (the length as the question gave it)
        if limit is not None:
            noun += f" {word} than {seconds_said(limit, round(limit, 1) != round(limit, 2))}"
    return noun + (f" in {the_place(place)}" if place else "") + (f" in {within}" if within else "")
