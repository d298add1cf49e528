"""A yes / no about everyone: "did everyone I heard speak more than once?", "did all of them talk at least twice in
the office?", "did each person speak exactly once?".

A frame with a count per person (``times>1``) says whether *anyone* did; "everyone" needs every person heard in the
question's place and window to meet it. One frame selects them all with their counts; code compares each count,
and the answer names who did not ("No: the person who said X spoke once") or, when all did, everyone with their
counts, checked against the executed result.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, replace

from .execute import QueryExecutor, QueryResult
from .frame import Query
from .phrase import REFUSAL, check, conditions, phrase
from .question_forms import _COMPARED_TIMES, _EXACT_TIMES
from .wording import QUOTED
from .words import COUNT_WORDS, cap, join, times_word

_EVERYONE = re.compile(r"^\W*(?:did|have|had|has|was|were|is|are)\s+(?:every(?:one|body)|all\s+(?:of\s+)?(?:the\s+)?"
                       r"(?:people|speakers|persons|voices|of\s+them|them)|each\s+(?:person|one|speaker|of\s+them)|"
                       r"every\s+(?:person|speaker|single\s+person|one))\b", re.IGNORECASE)
_OPS = {"<=": operator.le, ">": operator.gt, ">=": operator.ge, "<": operator.lt, "=": operator.eq}


@dataclass(frozen=True)
class EveryoneAsk:
    op: str        # "<=", ">", ">=", "<", "="
    k: int
    words: str     # the condition as the question says it ("more than once")


def asks_everyone(question: str) -> EveryoneAsk | None:
    """The count every person must meet, for a yes / no about everyone; None for any other question."""
    plain = QUOTED.sub(" quoted ", question)
    if not _EVERYONE.match(plain):
        return None
    m = _COMPARED_TIMES.search(plain)
    if m is not None and len(_COMPARED_TIMES.findall(plain)) == 1:
        word = (m.group(5) or m.group(6)).lower()
        op = "<=" if m.group(1) else ">" if m.group(2) else ">=" if m.group(3) else "<"
        return EveryoneAsk(op, COUNT_WORDS.get(word) or int(word), m.group(0))
    m = _EXACT_TIMES.search(plain)
    if m is not None:
        word = (m.group(1) or m.group(2)).lower()
        return EveryoneAsk("=", COUNT_WORDS.get(word) or int(word), m.group(0))
    return None


def prepare(q: Query) -> Query:
    """Everyone heard in the frame's place and window, with their counts."""
    return replace(q, find="who", who=None, other=None, rel=None, until=None, pick=None, by=None, times=None,
                   count=None, act="spoke", top=None, measure=None, only=None)


def answer(executor: QueryExecutor, q: Query, ask: EveryoneAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    cond = conditions(res)
    people = [p for p in res.people if p.spoke > 0]
    res.steps.append({"step": f"everyone times{ask.op}{ask.k}", "people": len(people)})
    if not people:
        return f"I heard nobody{cond}.", res
    short = [p for p in people if not _OPS[ask.op](p.spoke, ask.k)]
    if short:
        res.value = False
        text = "No: " + join([f"{p.description} spoke {times_word(p.spoke)}" for p in short]) + f"{cond}."
    else:
        res.value = True
        text = f"Yes, everyone I heard{cond} spoke {ask.words}: " + \
            join([f"{p.description} ({times_word(p.spoke)})" for p in people]) + "."
    text = cap(text)
    return (REFUSAL if check(text, res) else text), res
