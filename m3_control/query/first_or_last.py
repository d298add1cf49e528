""""Did A speak first or last in the office?", "was B the first or the last to speak?": whether one person opened or
closed the talk (of the frame's place and window), both asked at once. One frame's role ("spoke first") says only
one of them ("No: the person who spoke first was C", of a question that also asked about the last). This runs the
first and the last turn of the place and window and says who each was, with their times, and whether either was A;
the answer is checked against the result like any frame's."""

from __future__ import annotations

import re
from dataclasses import replace

from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query
from .phrase import REFUSAL, check, conditions, phrase
from .result import QueryResult

_EITHER = re.compile(r"^\W*(?:did|was|is|were)\b[^?]*?\b(?:first|the\s+first(?:\s+one|\s+person|\s+speaker)?)\s+or\s+"
                     r"(?:the\s+)?last\b", re.IGNORECASE)
_NAME = re.compile(r"^\W*(?:did|was|is|were)\s+((?-i:[A-Z][a-z]+))\b", re.IGNORECASE)


def asks_first_or_last(question: str) -> str | None:
    """The one person the question asks about (their quoted words or name), or None when it asks no "first or last"."""
    if not _EITHER.search(question):
        return None
    quoted = quotes_of(question)
    if len(quoted) == 1:
        return quoted[0]
    m = _NAME.match(question)
    return m.group(1) if not quoted and m is not None else None


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's place and window."""
    return Query(find="who", act="spoke", place=q.place, from_=q.from_, to=q.to, at=q.at)


def answer(executor: QueryExecutor, q: Query, who: str, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    named = executor.run(replace(prepare(q), place=None, from_=None, to=None, at=None, who=who), before_time)
    if named.status != "ok":
        return phrase(named), named
    if res.status != "ok":
        return phrase(res), res
    cid = named.who["who"].character_id
    d = named.describe[cid]  # type: ignore[index]
    res.describe[cid] = d  # type: ignore[index]
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    cond = conditions(res)
    if not turns:
        return f"I heard nobody speak{cond}.", res
    first, last = turns[0], turns[-1]
    res.events = [first, last] + [e for e in res.events if e not in (first, last)]
    is_first, is_last = first.character_id == cid, last.character_id == cid
    res.value = is_first or is_last

    def who_at(e) -> str:  # noqa: ANN001
        return f"{res.describe[e.character_id]} ({res.say(e.start)})"  # type: ignore[index]

    if is_first and is_last:
        text = f"Yes, both: {d} spoke first ({res.say(first.start)}) and last ({res.say(last.start)}){cond}."
    elif is_first:
        text = f"Yes, first: {d} spoke first{cond} ({res.say(first.start)}); the last was {who_at(last)}."
    elif is_last:
        text = f"Yes, last: {d} spoke last{cond} ({res.say(last.start)}); the first was {who_at(first)}."
    else:
        text = f"No, neither: the first to speak{cond} was {who_at(first)} and the last {who_at(last)}."
    return (REFUSAL if check(text, res) else text), res
