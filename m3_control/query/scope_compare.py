"""Two rooms or parts of the recording a question names, compared: each person's figure in both ("who spoke more
often in the first third than in the last?"), the people heard in both ("did everyone who spoke in the first half also
speak in the second?"), the two figures against each other ("was the longest silence longer in the kitchen than in
the porch?") and which of the two holds one turn or silence a measure names ("was A's longest turn before or after
the middle?": in neither where another part holds it)."""

from __future__ import annotations

import re
from collections.abc import Callable

from m3_memory.store.where import load_places

from .execute import QueryExecutor
from .group_figures import figure, measure, part_of, recording_end, stays_held, what_measured
from .group_questions import _PART_WORD, GroupAsk
from .phrase import REFUSAL, _cap, _join, check
from .result import QueryResult
from .words import fine_seconds, seconds_said, tenths

__all__ = ["both_parts", "compared", "pair", "scope_of"]


def scope_of(executor: QueryExecutor, res: QueryResult, name: str, turns: list,
           before_time: float | None) -> tuple[Callable, float | None, tuple[float, float] | None] | None:
    """(membership of a turn, seconds it lasted, start and end where a part) of a scope the question names: a part of
    the recording ("the last third") or a room (the seconds the robot stayed there)."""
    end = recording_end(executor, turns, before_time)
    m = _PART_WORD.match(name)
    if m is not None and m.group(2):
        return part_of(name, end)
    bare = re.sub(r"^the\s+", "", name, flags=re.IGNORECASE)
    room = next((p.name for p in load_places(executor.store) if p.name.lower() == bare.lower()), None)
    if room is None:
        return None
    executor.place_turns(res, turns)
    return (lambda e: res.places.get(e.id) == room), stays_held(executor, end, before_time).get(room, 0.0), None


def unknown_scope(res: QueryResult, ask: GroupAsk, tests: list) -> str | None:
    if all(t is not None for t in tests):
        return None
    unknown = next(n for n, t in zip(ask.scopes, tests, strict=True) if t is None)
    res.status, res.problem = "unknown_place", unknown
    return f"I don't know a place called \"{unknown}\"."


def compared(executor: QueryExecutor, res: QueryResult, ask: GroupAsk, turns: list,
              before_time: float | None) -> tuple[str, QueryResult]:
    """"A and C spoke more often in the first third than in the last third: A 1 against 0, C 1 against 0 (not: B 2
    against 3)." (seconds compared to hundredths, said so where tenths would read as equal)."""
    tests = [scope_of(executor, res, name, turns, before_time) for name in ask.scopes]
    if (stop := unknown_scope(res, ask, tests)) is not None:
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


def both_parts(executor: QueryExecutor, res: QueryResult, ask: GroupAsk, turns: list, cid: int | None,
          before_time: float | None) -> tuple[str, QueryResult]:
    """"Yes: A and B spoke both in the first quarter and in the last quarter (A at 00:02 and 01:03, ...); C only in
    the first quarter." (the people heard in each of two parts; one person's yes or no where one is named)."""
    tests = [scope_of(executor, res, name, turns, before_time) for name in ask.scopes]
    if (stop := unknown_scope(res, ask, tests)) is not None:
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


def pair(executor: QueryExecutor, res: QueryResult, ask: GroupAsk, turns: list, counted: Callable,
          who: str | None, before_time: float | None) -> tuple[str, QueryResult]:
    """Two named rooms' or parts' figures compared, yes or no ("Yes: the longest silence between turns was 4 seconds
    in the living room and 3.9 seconds in the porch.") or which ("More in the second half: 6 turns in the second
    half, 4 turns in the first half."); compared to hundredths, said in hundredths where tenths would read as
    equal."""
    tests = [scope_of(executor, res, name, turns, before_time) for name in ask.scopes]
    if (stop := unknown_scope(res, ask, tests)) is not None:
        return stop, res
    figures = []
    for name, (member, span, bounds) in zip(ask.scopes, tests, strict=True):   # type: ignore[misc]
        mine = [e for e in turns if member(e) and counted(e)]
        value, used = measure(ask, turns, mine, member, span, bounds)
        figures.append((name if name.startswith("the ") else f"the {name}", value, used))
    res.events = [e for _, _, u in figures for e in u] + [e for e in turns if not any(e in u for _, _, u in figures)]
    what = what_measured(ask, who, None)
    known = [(n, v) for n, v, _ in figures if v is not None]
    # "was A's longest turn in the first half or in the second?": the one turn (silence) over the whole recording
    whole = measure(ask, turns, [e for e in turns if counted(e)], lambda e: True, None)[0] if ask.holds else None
    if ask.holds and len(known) == 1 and whole is not None and round(whole, 2) == round(known[0][1], 2):
        # (of someone heard in only one of the two parts)
        (where, v), other = known[0], next(n for n, v, _ in figures if v is None)
        res.seconds = {**res.seconds, -1: tenths(v), -3: round(v, 2)}
        text = _cap(f"In {where}{_SIDE_OF_MIDDLE.get(where, '')}: {what} was {figure(ask, v)} in {where}; there "
                    f"was none in {other}.")
        return (REFUSAL if check(text, res) else text), res
    if ask.holds and len(known) < 2 and whole is not None:
        # the one turn (silence) lies in a part the question did not name, one or both of its parts having none
        res.seconds = {**res.seconds, -5: tenths(whole), -6: round(whole, 2),
                       **{k: f(v) for _, v in known for k, f in ((-1, tenths), (-3, lambda x: round(x, 2)))}}
        had = "; ".join(f"{what} was {figure(ask, v)} in {n}" for n, v in known)
        none = _join([n for n, v, _ in figures if v is None])
        text = _cap(f"In neither: {what} was {figure(ask, whole)}, in another part; "
                    f"{had + '; ' if had else ''}there was none in {none}.")
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
        each = f"{figure(ask, va, fine)}{tail} in {na}{turns_of[0]} and {figure(ask, vb, fine)} in {nb}{turns_of[1]}"
    else:
        each = f"{what} was {figure(ask, va, fine)} in {na} and {figure(ask, vb, fine)} in {nb}"
    if ask.holds:           # "was A's longest turn in the first half or in the second half?"
        where = (na if (va < vb if ask.least else va > vb) else nb) if va != vb else None
        half = _SIDE_OF_MIDDLE.get(where or "", "")
        if whole is not None and round(whole, 2) not in (va, vb):     # (in a part the question did not name)
            res.seconds = {**res.seconds, -5: tenths(whole), -6: round(whole, 2)}
            text = f"In neither: {what} was {figure(ask, whole, fine)}, in another part; {each}."
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
