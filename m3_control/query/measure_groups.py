"""Turns measured group by group, and the groups ranked or listed: "in which room was the longest pause between
turns?", "during which third of the recording did B talk most often?", "how many speakers were heard in each of the
three thirds?", "which half had the most silence?", "who had the most turns lasting more than two seconds?".

A question is read as three parts, each from a small vocabulary of its own, so that their combinations need no code
of their own:

- the groups: the rooms the robot was in (turns placed on its track), the halves, thirds, quarters or minutes of the
  recording (its start to the last input the memory holds; a turn belongs to the part its speaking began in, a
  silence between two turns to the part that holds most of it), or the people;
- each group's measure: its turns (one person's, or those longer / shorter than a length), its different speakers,
  its seconds of speech, its silence (all of it, the longest, the shortest, the average gap between two turns that
  follow each other in the group), its longest / shortest / average turn;
- what is asked of them: the group with the most (the least), or every group's figure.

Everyone's voice turns are selected by one frame (in the place the question names, unless the rooms are the groups);
the people named are resolved as that frame would. The answer gives every group's figure, checked against the
result like any frame's. Forms the other plans answer alone (the room with the most turns, people or speech) are
left to them.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable

from m3_memory.people import began
from m3_memory.store.where import load_places, robot_stays
from m3_memory.timeline import Timeline

from .execute import QueryExecutor
from .frame import Query
from .group_questions import _NOT_PLACE, _ORDINAL, _PART_WORD, GroupAsk, asks_groups
from .named_ids import scope_and_people
from .phrase import REFUSAL, _cap, _join, check, phrase
from .question_place import place_of_question
from .result import QueryResult
from .wording import QUOTED
from .words import COUNT_OPS, fine_seconds, seconds_said, tenths, the_place

__all__ = ["GroupAsk", "answer", "asks_groups", "prepare", "silences_between"]


def prepare(q: Query) -> Query:
    """Everyone's voice turns (the plan reads the place from the question)."""
    return Query(find="who", act="spoke")


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


def _covered(turns: list, a: float, b: float) -> float:
    """Seconds of ``a``-``b`` during which someone spoke (overlapping turns counted once)."""
    total, reach = 0.0, a
    for e in sorted(turns, key=lambda x: x.start):
        lo, hi = max(e.start, reach), min(e.end, b)
        if hi > lo:
            total, reach = total + hi - lo, hi
    return total


def _measure(ask: GroupAsk, turns: list, mine: list, member: Callable, span: float | None,
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
        return max(0.0, (b - a) - _covered(turns, a, b)), mine
    if ask.measure == "silence" and span is not None:
        return max(0.0, span - sum(e.end - e.start for e in mine)), mine
    gaps = silences_between(turns, member) if bounds is None else silences_within(turns, *bounds)
    if not gaps:
        return None, []
    if ask.measure == "mean_silence":
        return statistics.mean(g for g, _, _ in gaps), [e for _, a, b in gaps for e in (a, b)]
    g, a, b = (max if ask.measure in ("max_silence", "silence") else min)(gaps, key=lambda x: x[0])
    return g, [a, b]


def _groups(executor: QueryExecutor, res: QueryResult, ask: GroupAsk, turns: list,
            before_time: float | None) -> list[tuple[str, Callable, float | None, tuple[float, float] | None]]:
    """(name, membership test of a turn, seconds the group lasted where known, its start and end where it is a part
    of the recording) of every group, in time order."""
    end = _end(executor, turns, before_time)
    if ask.groups == "room":
        executor.place_turns(res, turns)
        held = _held(executor, end, before_time)
        return [(the_place(r), (lambda e, r=r: res.places.get(e.id) == r), held[r], None) for r in held]
    if ask.parts:
        n = ask.parts
        name = {2: "half", 3: "third", 4: "quarter"}[n]
        out = []
        for i in range(n):
            which = "last" if i == n - 1 and n > 2 else _ORDINAL[i] if n > 2 else ("first", "second")[i]
            member, length, bounds = _part(f"the {which} {name}", end)   # type: ignore[misc]
            out.append((f"the {which} {name}", member, length, bounds))
        return out
    minutes = int(end // 60) + 1
    return [(f"minute {i + 1}", (lambda e, i=i: i * 60 <= began(e) < (i + 1) * 60 or i == 0 and began(e) < 0),
             min(60.0, end - i * 60), (i * 60.0, min((i + 1) * 60.0, end))) for i in range(minutes)]


def _end(executor: QueryExecutor, turns: list, before_time: float | None) -> float:
    """The recording's end: the last input the memory holds (else the last turn's end)."""
    return executor.store.perceived_until(before_time) or max((e.end for e in turns), default=0.0)


def _held(executor: QueryExecutor, end: float, before_time: float | None) -> dict[str, float]:
    """Seconds the robot stayed in each room, in the order it first went there (a stay not left runs to ``end``)."""
    held: dict[str, float] = {}
    for p, a, b in robot_stays(executor.store, before_time):
        held[p] = held.get(p, 0.0) + (b if b is not None else end) - a
    return held


def _part(name: str, end: float) -> tuple[Callable, float, tuple[float, float]] | None:
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


def _named_part(executor: QueryExecutor, question: str, turns: list,
                before_time: float | None) -> tuple[str, Callable] | None:
    """(its words, membership of a turn) of the one part of the recording the question names, else None."""
    found = [m for m in _PART_WORD.finditer(QUOTED.sub(" ", question)) if m.group(2)]
    if len(found) != 1:
        return None
    name = f"the {found[0].group(1).lower()} {found[0].group(2).lower()}"
    part = _part(name, _end(executor, turns, before_time))
    return (name, part[0]) if part is not None else None


def _figure(ask: GroupAsk, x: float, fine: bool = False) -> str:
    if ask.measure == "changes":
        return f"{int(x)} change{'s' if int(x) != 1 else ''} of speaker"
    if ask.measure in ("turns", "absent", "every"):
        return f"{int(x)} turn{'s' if int(x) != 1 else ''}"
    if ask.measure == "people":
        return f"{int(x)} {'person' if int(x) == 1 else 'people'}"
    return seconds_said(x, fine)


def answer(executor: QueryExecutor, q: Query, ask: GroupAsk, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    known = [p.name for p in load_places(executor.store)]
    place = None if ask.groups in ("room", "pair") or ask.scopes else place_of_question(question, known)
    if place is not None and place not in known and place.split()[0].lower() in _NOT_PLACE:
        place = None      # ("in the largest number of thirds": no place)
    res, ids = scope_and_people(executor, Query(find="who", act="spoke", place=place),
                                [ask.person] if ask.person else [], before_time)
    if ids is None:
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    who = res.describe[ids[0]] if ids else None
    part = None
    if ask.groups in ("person", "room") and not ask.scopes and \
            (part := _named_part(executor, question, turns, before_time)):
        # "who had the most turns shorter than two seconds in the second half?": that part's turns only
        turns = [e for e in turns if part[1](e)]
        res.steps.append({"step": "a part of the recording", "part": part[0], "turns": len(turns)})

    def counted(e: object) -> bool:
        length = e.end - e.start  # type: ignore[attr-defined]
        mine = not ids or e.character_id == ids[0] or ask.meets is not None   # ("only A": everyone's turns)
        return mine and (ask.longer is None or length > ask.longer) and \
            (ask.shorter is None or length < ask.shorter)  # type: ignore[attr-defined]

    for i, limit in enumerate(x for x in (ask.longer, ask.shorter) if x is not None):
        res.seconds[-100 - i] = tenths(limit)     # (the length the question gives, said back)
        res.seconds[-110 - i] = round(limit, 2)
    if ask.measure == "spread":
        return _spread(executor, res, ask, turns, before_time)
    if ask.measure == "both":
        return _both(executor, res, ask, turns, ids[0] if ids else None, before_time)
    if ask.groups == "pair":
        return _pair(executor, res, ask, turns, counted, who, before_time)
    if ask.scopes:
        return _compared(executor, res, ask, turns, before_time)
    if ask.groups == "person":
        return _people(res, ask, [e for e in turns if counted(e)], part[0] if part else None,
                       list(dict.fromkeys(e.character_id for e in turns)))
    figures: list[tuple[str, float | None, list]] = []
    for name, member, span, bounds in _groups(executor, res, ask, turns, before_time):
        mine = [e for e in turns if member(e) and counted(e)]
        value, used = _measure(ask, turns, mine, member, span, bounds)
        figures.append((name, value, used))
    res.steps.append({"step": "measured per group", "measure": ask.measure,
                      "groups": {n: (round(v, 2) if v is not None else None) for n, v, _ in figures}})
    known = [(n, v, u) for n, v, u in figures if v is not None]
    pick = min if ask.least else max
    best = pick(round(v, 2) for _, v, _ in known) if known else 0.0
    counts = ask.measure in ("turns", "absent", "every", "changes", "people")
    # figures in hundredths where tenths would make another group read as the best one
    fine = not counts and not ask.each and known and \
        fine_seconds(pick(v for _, v, _ in known), [v for _, v, _ in known])   # (the best as measured, not rounded)
    res.seconds = {**res.seconds, **{-(i + 1): tenths(v) for i, (_, v, _) in enumerate(known)},
                   **{-(i + 51): round(v, 2) for i, (_, v, _) in enumerate(known)}}
    res.value = tuple(int(v) for _, v, _ in known if float(v).is_integer())
    what = _what(ask, who, place, part[0] if part else None)
    each = "; ".join(f"{n} {_figure(ask, v, fine)}" for n, v, _ in known)
    missing = [n for n, v, _ in figures if v is None]
    none = f" ({_join(missing)}: none, fewer than two turns)" if missing else ""
    if not known:
        res.events = turns
        return _cap(f"I cannot measure {what} in any {_unit(ask)}: there were no turns to measure{none}."), res
    if ask.meets is not None:
        return _meeting(res, ask, known, turns, ids[0] if ids else None, _what(ask, None, place), each)
    if ask.measure in ("absent", "every"):
        # "was there a quarter A did not speak in?" (absent: yes if one has none of theirs), "did A speak in every
        # quarter?" (every: the other way round); nobody named: "was there a quarter with no speech?"
        res.events = [e for _, _, u in known for e in u] + [e for e in turns if not any(e in u for _, _, u in known)]
        empty = [n for n, v, _ in known if not v]
        absent, present = (f"{who} did not speak", f"{who} spoke") if who else ("nobody spoke", "someone spoke")
        said = f"{absent} in {_join(empty)}" if empty else f"{present} in every {_unit(ask)}"
        yes = bool(empty) == (ask.measure == "absent")
        text = _cap(f"{'Yes' if yes else 'No'}: {said}; {what}, {_unit(ask)} by {_unit(ask)}: {each}.")
        return (REFUSAL if check(text, res) else text), res
    if ask.each:
        res.events = [e for _, _, u in known for e in u] + [e for e in turns if not any(e in u for _, _, u in known)]
        text = f"{_cap(what)}, {_unit(ask)} by {_unit(ask)}: {each}{none}."
        return (REFUSAL if check(text, res) else text), res
    # the best to hundredths (as said where they differ): groups as good as each other to hundredths tie
    top = [(n, u) for n, v, u in known if round(v, 2) == best]
    res.events = [e for _, u in top for e in u] + [e for e in turns if not any(e in u for _, u in top)]
    two = len(known) == 2
    raw = next(v for _, v, _ in known if round(v, 2) == best)   # (said from the figure as measured, as the list is)
    lead = f"{_join([n for n, _ in top])} ({'a tie' if len(top) > 1 else _figure(ask, raw, fine)})"
    if ask.measure in ("turns", "people", "seconds", "silence", "changes"):
        word = ("fewer" if ask.measure in ("turns", "people") else "less") if ask.least and two else \
            "more" if two else ("the fewest" if ask.measure in ("turns", "people") else "the least") if ask.least \
            else "the most"
        text = f"{_cap(lead)} had {word} {what}: {each}{none}."
    elif ask.measure.startswith("mean"):
        word = ("shorter" if two else "shortest") if ask.least else ("longer" if two else "longest")
        text = f"{_cap(what)} was {word} in {lead}; {each}{none}."
    else:
        text = f"{_cap(what)} was in {lead}; {each}{none}."
    return (REFUSAL if check(text, res) else text), res


def _meeting(res: QueryResult, ask: GroupAsk, known: list, turns: list, cid: int | None, what: str,
             each: str) -> tuple[str, QueryResult]:
    """The groups whose figure meets the question's condition, yes or no, which, or how many: "Yes: only 1 speaker in
    the second quarter (A); different speakers, quarter by quarter: ..."; every group's figure beside them."""
    op, n = ask.meets  # type: ignore[misc]

    def meets(v: float, used: list) -> bool:
        if op == "alone":       # one named person the group's only speaker
            return {e.character_id for e in used} == {cid}
        return COUNT_OPS[op](v, n)

    hits = [(name, v, u) for name, v, u in known if meets(v, u)]
    res.events = [e for _, _, u in hits for e in u] + [e for e in turns if not any(e in u for _, _, u in hits)]
    res.value = (*(res.value or ()), int(n), len(hits), len(known))
    if op == "alone":
        cond = f"only {res.describe[cid]} speaking"  # type: ignore[index]
    else:
        noun = ("speaker" if n == 1 else "speakers") if ask.measure == "people" else ("turn" if n == 1 else "turns")
        cond = f"{op} {int(n)} {noun}"

    def named(name: str, used: list) -> str:   # (the few people of a group of speakers, by name)
        who = list(dict.fromkeys(res.describe[e.character_id] for e in used))
        return f"{name} ({_join(who)})" if ask.measure == "people" and op != "alone" and 0 < len(who) <= 3 else name

    unit, said = _unit(ask), _join([named(name, u) for name, _, u in hits])
    tail = f"{what}, {unit} by {unit}: {each}"
    if ask.many:
        text = f"{len(hits)} of the {len(known)} {unit}s had {cond}" + (f": {said}" if hits else "") + f"; {tail}."
    elif ask.every:      # "did more than one person speak in each half?"
        short = [name for name, _, _ in known if all(name != h for h, _, _ in hits)]
        text = f"Yes: every {unit} had {cond}; {tail}." if not short else \
            f"No: {_join(short)} did not have {cond}; {tail}."
    elif ask.yes_no:
        text = f"Yes: {said} had {cond}; {tail}." if hits else f"No: no {unit} had {cond}; {tail}."
    else:
        text = f"{said} had {cond}; {tail}." if hits else f"None: no {unit} had {cond}; {tail}."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res


def _unit(ask: GroupAsk) -> str:
    if ask.groups == "room":
        return "room"
    return {2: "half", 3: "third", 4: "quarter"}.get(ask.parts, "minute")


def _what(ask: GroupAsk, who: str | None, place: str | None, within: str | None = None) -> str:
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


def _people(res: QueryResult, ask: GroupAsk, kept: list, within: str | None,
            heard: list[int]) -> tuple[str, QueryResult]:
    """People ranked by their turns of a length: "A had the most turns longer than 2 seconds (3); B 1." (everyone
    ``heard`` in the scope, none of theirs of that length counted as 0)."""
    counts: dict[int, int] = dict.fromkeys(heard, 0)
    for e in kept:
        counts[e.character_id] = counts.get(e.character_id, 0) + 1
    what = _what(ask, None, res.query.place, within)
    res.events = kept
    res.value = tuple(counts.values()) or (0,)
    if not any(counts.values()) and not ask.least:
        return _cap(f"Nobody: I heard no {what}."), res
    best = (min if ask.least else max)(counts.values())
    top = [c for c, n in counts.items() if n == best]
    each = "; ".join(f"{res.describe[c]} {n}" for c, n in counts.items())
    text = f"{_join([res.describe[c] for c in top])} had the {'fewest' if ask.least else 'most'} {what} " \
           f"({best}{', a tie' if len(top) > 1 else ''}): {each}."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res


def _scope(executor: QueryExecutor, res: QueryResult, name: str, turns: list,
           before_time: float | None) -> tuple[Callable, float | None, tuple[float, float] | None] | None:
    """(membership of a turn, seconds it lasted, start and end where a part) of a scope the question names: a part of
    the recording ("the last third") or a room (the seconds the robot stayed there)."""
    end = _end(executor, turns, before_time)
    m = _PART_WORD.match(name)
    if m is not None and m.group(2):
        return _part(name, end)
    bare = re.sub(r"^the\s+", "", name, flags=re.IGNORECASE)
    room = next((p.name for p in load_places(executor.store) if p.name.lower() == bare.lower()), None)
    if room is None:
        return None
    executor.place_turns(res, turns)
    return (lambda e: res.places.get(e.id) == room), _held(executor, end, before_time).get(room, 0.0), None


def _unknown(res: QueryResult, ask: GroupAsk, tests: list) -> str | None:
    if all(t is not None for t in tests):
        return None
    unknown = next(n for n, t in zip(ask.scopes, tests, strict=True) if t is None)
    res.status, res.problem = "unknown_place", unknown
    return f"I don't know a place called \"{unknown}\"."


def _compared(executor: QueryExecutor, res: QueryResult, ask: GroupAsk, turns: list,
              before_time: float | None) -> tuple[str, QueryResult]:
    """"A and C spoke more often in the first third than in the last third: A 1 against 0, C 1 against 0 (not: B 2
    against 3)." (seconds compared to hundredths, said so where tenths would read as equal)."""
    tests = [_scope(executor, res, name, turns, before_time) for name in ask.scopes]
    if (stop := _unknown(res, ask, tests)) is not None:
        return stop, res
    first, second = (t[0] for t in tests)   # type: ignore[index]
    people = list(dict.fromkeys(e.character_id for e in turns))
    figures: dict[int, tuple[float, float]] = {}
    for c in people:
        mine = [e for e in turns if e.character_id == c]
        if ask.measure == "seconds":
            figures[c] = tuple(round(sum(e.end - e.start for e in mine if t(e)), 2) for t in (first, second))  # type: ignore[assignment]
        else:
            figures[c] = tuple(float(sum(1 for e in mine if t(e))) for t in (first, second))  # type: ignore[assignment]
    won = [c for c in people if (figures[c][0] < figures[c][1] if ask.least else figures[c][0] > figures[c][1])]
    fine = ask.measure == "seconds" and any(fine_seconds(x, [y]) for x, y in figures.values())
    res.events = [e for e in turns if e.character_id in won] + [e for e in turns if e.character_id not in won]
    res.value = tuple(int(x) for f in figures.values() for x in f if float(x).is_integer())
    res.seconds = {-(i + 1): x for i, x in enumerate(x for f in figures.values() for x in f)}
    res.seconds.update({-(i + 51): tenths(x) for i, x in enumerate(x for f in figures.values() for x in f)})
    res.steps.append({"step": "each person in two scopes", "scopes": list(ask.scopes),
                      "figures": {res.describe.get(c, str(c)): list(f) for c, f in figures.items()}})

    def said(c: int) -> str:
        x, y = figures[c]
        unit = (lambda v: seconds_said(v, fine)) if ask.measure == "seconds" else (lambda v: str(int(v)))
        return f"{res.describe[c]} {unit(x)} against {unit(y)}"

    word = ("less" if ask.measure == "seconds" else "fewer turns") if ask.least else \
        ("more" if ask.measure == "seconds" else "more often")
    rest = [c for c in people if c not in won]
    others = f" (not: {'; '.join(said(c) for c in rest)})" if rest else ""
    a, b = ask.scopes
    if not won:
        text = f"Nobody spoke {word} in {a} than in {b}{others}."
    else:
        verb = "spoke" if ask.measure == "seconds" or not ask.least else "took"
        text = f"{_join([res.describe[c] for c in won])} {verb} {word} in {a} than in {b}: " \
               f"{'; '.join(said(c) for c in won)}{others}."
    text = _cap(text.replace("in the the ", "in the "))
    return (REFUSAL if check(text, res) else text), res


def _both(executor: QueryExecutor, res: QueryResult, ask: GroupAsk, turns: list, cid: int | None,
          before_time: float | None) -> tuple[str, QueryResult]:
    """"Yes: A and B spoke both in the first quarter and in the last quarter (A at 00:02 and 01:03, ...); C only in
    the first quarter." (the people heard in each of two parts; one person's yes or no where one is named)."""
    tests = [_scope(executor, res, name, turns, before_time) for name in ask.scopes]
    if (stop := _unknown(res, ask, tests)) is not None:
        return stop, res
    (ta, _, _), (tb, _, _) = tests    # type: ignore[misc]
    a, b = ask.scopes
    people = list(dict.fromkeys(e.character_id for e in turns))
    first = {c: next((e for e in turns if e.character_id == c and ta(e)), None) for c in people}
    second = {c: next((e for e in turns if e.character_id == c and tb(e)), None) for c in people}
    both = [c for c in people if first[c] and second[c]]
    res.events = [e for c in both for e in (first[c], second[c])] + \
        [e for e in turns if not any(e is x for c in both for x in (first[c], second[c]))]
    res.value = (len(both),)

    def where(c: int) -> str:
        x, y = first[c], second[c]
        return f"{res.describe[c]} " + (f"at {res.say(x.start)} and {res.say(y.start)}" if x and y else
                                         f"only in {a} (at {res.say(x.start)})" if x else
                                         f"only in {b} (at {res.say(y.start)})" if y else "in neither")
    others = [c for c in people if c not in both]
    rest = f"; {'; '.join(where(c) for c in others)}" if others else ""
    if ask.every:       # "did everyone who spoke in the first half also speak in the second?"
        missing = [c for c in people if first[c] and not second[c]]
        said = f"{_join([res.describe[c] for c in both])} spoke in both ({'; '.join(where(c) for c in both)})" \
            if both else "nobody spoke in both"
        gone = "; ".join(f"{res.describe[c]} spoke in {a} (at {res.say(first[c].start)}) but not in {b}"  # type: ignore
                         for c in missing)
        text = f"No: {gone}; {said}." if missing else \
            f"Yes: everyone who spoke in {a} also spoke in {b}: {said}." if both else \
            f"Nobody spoke in {a}."
        text = _cap(text)
        return (REFUSAL if check(text, res) else text), res
    if cid is not None:
        x, y = first[cid], second[cid]
        said = _join([f"in {n} (at {res.say(e.start)})" for n, e in ((a, x), (b, y)) if e]) or "in neither"
        text = f"{'Yes' if cid in both else 'No'}: {res.describe[cid]} spoke {said}" + \
            ("" if cid in both else f", not in {b if x else a}" if x or y else "") + "."
    elif not both:
        text = f"{'No: n' if ask.yes_no else 'N'}obody spoke both in {a} and in {b}{rest}."
    else:
        lead = "Yes: " if ask.yes_no else f"{len(both)} {'person' if len(both) == 1 else 'people'}: " if ask.each \
            else ""
        text = f"{lead}{_join([res.describe[c] for c in both])} spoke both in {a} and in {b} " \
               f"({'; '.join(where(c) for c in both)}){rest}."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res


def _spread(executor: QueryExecutor, res: QueryResult, ask: GroupAsk, turns: list,
            before_time: float | None) -> tuple[str, QueryResult]:
    """"A spoke in all 4 quarters of the recording (B in 3, C in 1)." (the parts each person spoke in)."""
    parts = _groups(executor, res, ask, turns, before_time)
    n = len(parts)
    spread: dict[int, list[str]] = {}
    for e in turns:
        names = spread.setdefault(e.character_id, [])
        for name, member, _, _ in parts:
            if member(e) and name not in names:
                names.append(name)
    unit = _unit(ask)
    res.value = tuple(len(v) for v in spread.values()) + (n,)
    each = "; ".join(f"{res.describe[c]} {len(v)}" for c, v in spread.items())
    res.events = turns
    if ask.each:
        every = [c for c, v in spread.items() if len(v) == n]
        res.events = [e for e in turns if e.character_id in every] + [e for e in turns if e.character_id not in every]
        who = _join([res.describe[c] for c in every])
        # both readings said: one person in every part, and speech in every part (someone in each)
        speakers = [len({e.character_id for e in turns if member(e)}) for _, member, _, _ in parts]
        res.value = res.value + tuple(speakers)
        some = all(speakers)
        per = f"{unit} by {unit}, " + ", ".join(str(k) for k in speakers) + " speakers"
        person = f"{who} spoke in every one of them (all {n})" if every else f"no one person spoke in all {n}"
        lead = "Yes: " if ask.yes_no and every and some else "No: " if ask.yes_no and not every and not some else ""
        if not ask.yes_no:     # "who spoke in every third?": the people first
            text = f"{who if every else 'Nobody'} spoke in all {n} {unit}s ({unit}s each person spoke in: {each}); " \
                   f"{per}."
        elif some:
            text = f"{lead}someone was heard in every {unit} ({per}), and {person}; {unit}s each person spoke in: " \
                   f"{each}."
        else:
            text = f"{lead}not every {unit} had speech ({per}), and {person}; {unit}s each person spoke in: {each}."
    else:
        best = (min if ask.least else max)(len(v) for v in spread.values()) if spread else 0
        top = [c for c, v in spread.items() if len(v) == best]
        res.events = [e for e in turns if e.character_id in top] + [e for e in turns if e.character_id not in top]
        text = f"{_join([res.describe[c] for c in top])} spoke in the {'fewest' if ask.least else 'most'} {unit}s " \
               f"({best} of {n}{', a tie' if len(top) > 1 else ''}); {unit}s each person spoke in: {each}." if spread \
            else "I heard nobody speak."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res


def _pair(executor: QueryExecutor, res: QueryResult, ask: GroupAsk, turns: list, counted: Callable,
          who: str | None, before_time: float | None) -> tuple[str, QueryResult]:
    """Two named rooms' or parts' figures compared, yes or no ("Yes: the longest silence between turns was 4 seconds
    in the living room and 3.9 seconds in the porch.") or which ("More in the second half: 6 turns in the second
    half, 4 turns in the first half."); compared to hundredths, said in hundredths where tenths would read as
    equal."""
    tests = [_scope(executor, res, name, turns, before_time) for name in ask.scopes]
    if (stop := _unknown(res, ask, tests)) is not None:
        return stop, res
    figures = []
    for name, (member, span, bounds) in zip(ask.scopes, tests, strict=True):   # type: ignore[misc]
        mine = [e for e in turns if member(e) and counted(e)]
        value, used = _measure(ask, turns, mine, member, span, bounds)
        figures.append((name if name.startswith("the ") else f"the {name}", value, used))
    res.events = [e for _, _, u in figures for e in u] + [e for e in turns if not any(e in u for _, _, u in figures)]
    what = _what(ask, who, None)
    known = [(n, v) for n, v, _ in figures if v is not None]
    # "was A's longest turn in the first half or in the second?": the one turn (silence) over the whole recording
    whole = _measure(ask, turns, [e for e in turns if counted(e)], lambda e: True, None)[0] if ask.holds else None
    if ask.holds and len(known) == 1 and whole is not None and round(whole, 2) == round(known[0][1], 2):
        # (of someone heard in only one of the two parts)
        (where, v), other = known[0], next(n for n, v, _ in figures if v is None)
        res.seconds = {**res.seconds, -1: tenths(v), -3: round(v, 2)}
        text = _cap(f"In {where}{_SIDE_OF_MIDDLE.get(where, '')}: {what} was {_figure(ask, v)} in {where}; there "
                    f"was none in {other}.")
        return (REFUSAL if check(text, res) else text), res
    if any(v is None for _, v, _ in figures):
        none = _join([n for n, v, _ in figures if v is None])
        return _cap(f"I cannot compare them: there were fewer than two turns in {none}."), res
    (na, va, _), (nb, vb, _) = figures
    va, vb = round(va, 2), round(vb, 2)     # type: ignore[arg-type]
    counts = ask.measure in ("turns", "changes", "people")
    fine = not counts and fine_seconds(va, [vb])
    res.seconds = {**res.seconds, -1: tenths(va), -2: tenths(vb), -3: va, -4: vb}
    res.value = (int(va), int(vb)) if counts else ()
    n = [len(u) for _, _, u in figures]
    if ask.measure == "seconds":   # (the turns behind them said too: "more talking" may count turns)
        res.value = tuple(n)
    if counts or ask.measure in ("seconds", "silence"):    # "6 turns by A in the second half and 4 in the first"
        tail = {"seconds": " of speech", "silence": " without speech"}.get(ask.measure, "") + \
            (f" by {who}" if who else "")
        turns_of = [f" ({k} turn{'s' if k != 1 else ''})" if ask.measure == "seconds" else "" for k in n]
        each = f"{_figure(ask, va, fine)}{tail} in {na}{turns_of[0]} and {_figure(ask, vb, fine)} in {nb}{turns_of[1]}"
    else:
        each = f"{what} was {_figure(ask, va, fine)} in {na} and {_figure(ask, vb, fine)} in {nb}"
    if ask.holds:           # "was A's longest turn in the first half or in the second half?"
        where = (na if (va < vb if ask.least else va > vb) else nb) if va != vb else None
        half = _SIDE_OF_MIDDLE.get(where or "", "")
        if whole is not None and round(whole, 2) not in (va, vb):     # (in a part the question did not name)
            res.seconds = {**res.seconds, -5: tenths(whole), -6: round(whole, 2)}
            text = f"In neither: {what} was {_figure(ask, whole, fine)}, in another part; {each}."
        else:
            text = f"{f'In {where}{half}' if where else 'In both, as long as each other'}: {each}."
    elif not ask.yes_no:      # "did the speaker change more often in the R1 or in the R2?"
        more = (na if (va < vb if ask.least else va > vb) else nb) if va != vb else None
        word = _WORDS.get(ask.measure, ("longer", "shorter"))[ask.least]
        text = f"{'The same in both' if more is None else f'{_cap(word)} in {more}'}; {each}."
    else:
        yes = va < vb if ask.least else va > vb
        text = f"{'Yes' if yes else 'No, the same' if va == vb else 'No'}: {each}."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res


# the halves as the middle of the recording divides them (said beside a half that holds a turn or silence)
_SIDE_OF_MIDDLE = {"the first half": " (before the middle of the recording)",
                   "the second half": " (after the middle of the recording)"}
# which of two: "more (fewer) in the second half"; the rest "longer (shorter)"
_WORDS = {"turns": ("more", "fewer"), "people": ("more", "fewer"), "changes": ("more often", "less often"),
          "seconds": ("more", "less"), "silence": ("more", "less")}
