"""Counts added up before they answer: two places together ("how many people did I hear in the kitchen and the
office combined?", "how many times did A speak in the lab and the hallway?") and one person's turns against two
others' together ("did A speak more often than B and C together?").

No frame adds counts (a frame has one place; ``more`` / ``less`` compare two people), so this runs one frame per
place (per person), adds them up in code (the different people of two places once each) and states every count it
added, each checked against its own executed result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .combined import combined, run_each, union_people
from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query
from .phrase import REFUSAL, _cap, check
from .result import QueryResult
from .wording import QUOTED
from .words import times_word

_PLACE = r"(?:the\s+|my\s+)?(?P<{}>[a-z]+(?:\s+room)?)"
_TWO_PLACES = re.compile(rf"\b(?:in|at)\s+{_PLACE.format('a')}\s+and\s+(?:in\s+|at\s+)?{_PLACE.format('b')}"
                         r"(?:\s+(?:combined|together|altogether|all\s+together|in\s+total|in\s+all|put\s+together|"
                         r"taken\s+together|between\s+them))?(?:\s*[?.!]?\s*$|\s*,)", re.IGNORECASE)
_HOW_MANY = re.compile(r"^\W*how\s+many\s+(?P<people>(?:different\s+)?(?:people|persons|speakers|voices)\b)?",
                       re.IGNORECASE)
_NOT_PLACES = frozenset(("one", "two", "time", "times", "often", "there", "here", "people", "person", "then", "also",
                         "later", "after", "before", "so", "total", "all", "both", "first", "last", "same", "other"))
_THAN_TWO = re.compile(r"\b(?P<word>more|less|fewer)\b[^?]*?\bthan\s+(?P<x>[^?]+?)\s*,?\s+and\s+(?P<y>[^?]+?)"
                       r"(?:\s+(?:combined|together|altogether|put\s+together|added\s+up|taken\s+together))?"
                       r"\s*[?.!]?\s*$", re.IGNORECASE)
_NAME = re.compile(r"^[A-Z][a-z'\-]+$")
_SECONDS = re.compile(r"\bhow\s+(?:many\s+seconds|long|much\s+time)\b", re.IGNORECASE)


def _ref(words: str, quoted: list[str]) -> str | None:
    """A person the words after "than" name: their quote (``<Qn>``), or a name ("Ann"), else None."""
    m = re.search(r"<Q(\d+)>", words)
    if m:
        return quoted[int(m.group(1))]
    words = words.strip()
    return words if _NAME.match(words) else None


@dataclass(frozen=True)
class PlacesAsk:
    places: tuple[str, str]
    people: bool                    # different people (each once), else turns
    seconds: bool = False           # one person's seconds of speech, not their turns


@dataclass(frozen=True)
class ThanTwoAsk:
    more: bool
    others: tuple[str, str]         # the two people added up
    subject: str | None             # the one compared with them (quoted), else the model's ``who``


def asks_places_together(question: str) -> PlacesAsk | None:
    """"How many ... in X and Y (together)?": the two places whose counts are added, or None ("in both X and Y"
    asks who was in each, not a sum)."""
    how = _HOW_MANY.match(question)
    seconds = _SECONDS.search(question)     # "adding up B's turns in X and Y, how many seconds was that?"
    if (how is None and seconds is None) or len(quotes_of(question)) > 1:
        return None
    m = _TWO_PLACES.search(QUOTED.sub(" quoted ", question))
    if m is None or re.search(r"\bboth\s+(?:in\s+|at\s+)?(?:the\s+|my\s+)?" + re.escape(m.group("a")) + r"\b",
                              question, re.IGNORECASE):
        return None
    a, b = m.group("a").lower(), m.group("b").lower()
    if a in _NOT_PLACES or b in _NOT_PLACES or a == b:
        return None
    people = bool(how and how.group("people"))
    return PlacesAsk((a, b), people, seconds=seconds is not None and not people)


def asks_than_two(question: str) -> ThanTwoAsk | None:
    """"Did A speak more often than B and C together?": the two people added up and the one compared (quoted,
    or None: the model's ``who``), or None."""
    quoted = quotes_of(question)
    n = iter(range(len(quoted)))
    marked = QUOTED.sub(lambda _: f" <Q{next(n)}> ", question)
    m = _THAN_TWO.search(marked)
    if m is None or not quoted or not re.match(r"^\W*(?:did|was|were|has|had|is|does)\b", question, re.IGNORECASE):
        return None
    x, y = _ref(m.group("x"), quoted), _ref(m.group("y"), quoted)
    if x is None or y is None or x == y:
        return None
    before = re.findall(r"<Q(\d+)>", marked[:m.start("x")])
    if len(before) > 1:
        return None
    if before:
        subject: str | None = quoted[int(before[0])]
    else:   # a name: "did Ann speak more often than ...?" (the first word asks)
        names = [w for w in marked[:m.start("x")].split()[1:] if _NAME.match(w.strip(",")) and w != "I"]
        subject = names[0].strip(",") if len(names) == 1 else None
    return ThanTwoAsk(m.group("word").lower() == "more", (x, y), subject)


def prepare(q: Query, people: bool = False) -> Query:
    """The model's frame as one count (its window kept; the places and people are the plan's)."""
    return replace(q, find="count_people" if people else "count_times", act="spoke", place=None, pick=None,
                   times=None, count=None, by=None, rel=None, other=None, top=None, measure=None,
                   who=None if people else q.who)


def counts_each(executor: QueryExecutor, frame: Query, question: str, people: bool, variants: list[dict],
                before_time: float | None) -> tuple[list[QueryResult], tuple[str, QueryResult] | None]:
    """One count frame per variant (``{"place": ...}``, ``{"from_": ..., "to": ...}``), of the question's one quoted
    person unless it counts people (:func:`.combined.run_each`)."""
    quoted = quotes_of(question)
    if quoted and not people:
        frame = replace(frame, who=quoted[0])
    return run_each(executor, [replace(frame, **v) for v in variants], before_time)


def answer_places(executor: QueryExecutor, q: Query, ask: PlacesAsk, question: str,
                  before_time: float | None) -> tuple[str, QueryResult]:
    """(the answer, a result holding both places' people and turns)."""
    results, stopped = counts_each(executor, prepare(q, ask.people), question, ask.people,
                                   [{"place": p} for p in ask.places], before_time)
    if stopped is not None:
        return stopped
    frame = results[0].query
    names = [r.query.place or p for r, p in zip(results, ask.places, strict=True)]
    counts = [int(r.value or 0) for r in results]
    merged = combined(results, "counts in two places added")
    if ask.people:
        merged.people = union_people(results)
        each = [f"{n} in the {place}" for n, place in zip(counts, names, strict=True)]
        if any(check(text, r) for text, r in zip(each, results, strict=True)):
            return REFUSAL, merged
        text = f"{len(merged.people)} different {'person' if len(merged.people) == 1 else 'people'}: I heard " \
            f"{each[0]} and {each[1]} (each person counted once)."
        merged.value = len(merged.people)
    elif ask.seconds:
        return _seconds_together(results, merged, names)
    else:
        who = "people" if frame.who is None else results[0].describe[results[0].who["who"].character_id]  # type: ignore
        each = [f"{times_word(n) if n else 'never'} in the {place}" for n, place in zip(counts, names, strict=True)]
        if any(check(text, r) for text, r in zip(each, results, strict=True)):
            return REFUSAL, merged
        total = sum(counts)
        text = f"{_cap(who)} spoke {times_word(total)} in the {names[0]} and the {names[1]} together: {each[0]} " \
            f"and {each[1]}." if total else f"{_cap(who)} never spoke in the {names[0]} or the {names[1]}."
        merged.value = total
    merged.place_counts = dict(zip(names, counts, strict=True))
    return text, merged


def _seconds_together(results: list[QueryResult], merged: QueryResult, names: list[str]) -> tuple[str, QueryResult]:
    """"A spoke for 9.6 seconds in the lab and the porch together: 3.8 seconds (2 turns) in the lab and 5.7 seconds (3
    turns) in the porch." (detected speech, in tenths)."""
    who = "People" if results[0].query.who is None else \
        _cap(results[0].describe[results[0].who["who"].character_id])  # type: ignore[index]
    secs = [sum(e.end - e.start for e in r.events if e.kind == "voice") for r in results]
    turns = [len([e for e in r.events if e.kind == "voice"]) for r in results]
    merged.seconds = {**merged.seconds, -1: round(sum(secs), 1), -2: round(secs[0], 1), -3: round(secs[1], 1)}
    merged.value = tuple(turns)
    each = [f"{s:.1f} seconds ({t} turn{'s' if t != 1 else ''}) in the {p}" for s, t, p in
            zip(secs, turns, names, strict=True)]
    text = f"{who} spoke for {sum(secs):.1f} seconds in the {names[0]} and the {names[1]} together: {each[0]} and " \
        f"{each[1]}."
    problems = [x for x in check(text, merged) if not x.startswith("count not in the result")]
    return (REFUSAL if problems else text), merged


def answer_than_two(executor: QueryExecutor, q: Query, ask: ThanTwoAsk, before_time: float | None
                    ) -> tuple[str, QueryResult]:
    """(the answer, a result holding the three people's turns)."""
    subject = ask.subject or (q.who if q.who not in ask.others else None)
    if subject is None:
        return REFUSAL, executor.run(prepare(q), before_time)
    frame = prepare(q)
    results, stopped = run_each(executor, [replace(frame, who=ref) for ref in (subject, *ask.others)], before_time)
    if stopped is not None:
        return stopped
    counts = [int(r.value or 0) for r in results]
    names = [r.describe[r.who["who"].character_id] for r in results]  # type: ignore[index]
    if len({r.who["who"].character_id for r in results}) < 3:
        return REFUSAL, results[0]
    each = [f"{names[i]} spoke {times_word(counts[i]) if counts[i] else 'never'}" for i in range(3)]
    merged = combined(results, "one count against two added")
    if any(check(text, r) for text, r in zip(each, results, strict=True)):
        return REFUSAL, merged
    together = counts[1] + counts[2]
    holds = counts[0] > together if ask.more else counts[0] < together
    text = f"{'Yes' if holds else 'No'}: {each[0]}; {names[1]} and {names[2]} together {times_word(together)} " \
        f"({times_word(counts[1])} and {times_word(counts[2])})."
    merged.value = holds
    return text, merged
