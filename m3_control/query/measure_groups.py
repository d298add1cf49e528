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

from m3_memory.store.where import load_places

from .execute import QueryExecutor
from .frame import Query
from .group_figures import figure, groups_of, measure, named_part, silences_between, unit_of, what_measured
from .group_questions import _NOT_PLACE, GroupAsk, asks_groups
from .named_ids import scope_and_people
from .phrase import REFUSAL, _cap, _join, check, phrase
from .question_place import place_of_question
from .result import QueryResult
from .scope_compare import both_parts, compared, pair
from .words import COUNT_OPS, fine_seconds, tenths

__all__ = ["GroupAsk", "answer", "asks_groups", "prepare", "silences_between"]


def prepare(q: Query) -> Query:
    """Everyone's voice turns (the plan reads the place from the question)."""
    return Query(find="who", act="spoke")


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
            (part := named_part(executor, question, turns, before_time)):
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
        return both_parts(executor, res, ask, turns, ids[0] if ids else None, before_time)
    if ask.groups == "pair":
        return pair(executor, res, ask, turns, counted, who, before_time)
    if ask.scopes:
        return compared(executor, res, ask, turns, before_time)
    if ask.groups == "person":
        return _people(res, ask, [e for e in turns if counted(e)], part[0] if part else None,
                       list(dict.fromkeys(e.character_id for e in turns)))
    figures: list[tuple[str, float | None, list]] = []
    for name, member, span, bounds in groups_of(executor, res, ask, turns, before_time):
        mine = [e for e in turns if member(e) and counted(e)]
        value, used = measure(ask, turns, mine, member, span, bounds)
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
    what = what_measured(ask, who, place, part[0] if part else None)
    each = "; ".join(f"{n} {figure(ask, v, fine)}" for n, v, _ in known)
    missing = [n for n, v, _ in figures if v is None]
    none = f" ({_join(missing)}: none, fewer than two turns)" if missing else ""
    if not known:
        res.events = turns
        return _cap(f"I cannot measure {what} in any {unit_of(ask)}: there were no turns to measure{none}."), res
    if ask.meets is not None:
        return _meeting(res, ask, known, turns, ids[0] if ids else None, what_measured(ask, None, place), each)
    if ask.measure in ("absent", "every"):
        # "was there a quarter A did not speak in?" (absent: yes if one has none of theirs), "did A speak in every
        # quarter?" (every: the other way round); nobody named: "was there a quarter with no speech?"
        res.events = [e for _, _, u in known for e in u] + [e for e in turns if not any(e in u for _, _, u in known)]
        empty = [n for n, v, _ in known if not v]
        absent, present = (f"{who} did not speak", f"{who} spoke") if who else ("nobody spoke", "someone spoke")
        said = f"{absent} in {_join(empty)}" if empty else f"{present} in every {unit_of(ask)}"
        yes = bool(empty) == (ask.measure == "absent")
        text = _cap(f"{'Yes' if yes else 'No'}: {said}; {what}, {unit_of(ask)} by {unit_of(ask)}: {each}.")
        return (REFUSAL if check(text, res) else text), res
    if ask.each:
        res.events = [e for _, _, u in known for e in u] + [e for e in turns if not any(e in u for _, _, u in known)]
        text = f"{_cap(what)}, {unit_of(ask)} by {unit_of(ask)}: {each}{none}."
        return (REFUSAL if check(text, res) else text), res
    # the best to hundredths (as said where they differ): groups as good as each other to hundredths tie
    top = [(n, u) for n, v, u in known if round(v, 2) == best]
    res.events = [e for _, u in top for e in u] + [e for e in turns if not any(e in u for _, u in top)]
    two = len(known) == 2
    raw = next(v for _, v, _ in known if round(v, 2) == best)   # (said from the figure as measured, as the list is)
    lead = f"{_join([n for n, _ in top])} ({'a tie' if len(top) > 1 else figure(ask, raw, fine)})"
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

    unit, said = unit_of(ask), _join([named(name, u) for name, _, u in hits])
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


def _people(res: QueryResult, ask: GroupAsk, kept: list, within: str | None,
            heard: list[int]) -> tuple[str, QueryResult]:
    """People ranked by their turns of a length: "A had the most turns longer than 2 seconds (3); B 1." (everyone
    ``heard`` in the scope, none of theirs of that length counted as 0)."""
    counts: dict[int, int] = dict.fromkeys(heard, 0)
    for e in kept:
        counts[e.character_id] = counts.get(e.character_id, 0) + 1
    what = what_measured(ask, None, res.query.place, within)
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


def _spread(executor: QueryExecutor, res: QueryResult, ask: GroupAsk, turns: list,
            before_time: float | None) -> tuple[str, QueryResult]:
    """"A spoke in all 4 quarters of the recording (B in 3, C in 1)." (the parts each person spoke in)."""
    parts = groups_of(executor, res, ask, turns, before_time)
    n = len(parts)
    spread: dict[int, list[str]] = {}
    for e in turns:
        names = spread.setdefault(e.character_id, [])
        for name, member, _, _ in parts:
            if member(e) and name not in names:
                names.append(name)
    unit = unit_of(ask)
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
