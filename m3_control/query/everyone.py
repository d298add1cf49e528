"""A yes / no about everyone: "did everyone I heard speak more than once?", "did all of them talk at least twice in
the office?", "did each person speak exactly once?", "did each person I heard speak in the workshop?".

A frame with a count per person (``times>1``) says whether *anyone* did; "everyone" needs every person heard in the
question's place and window to meet it. One frame selects them all with their counts; code compares each count,
and the answer names who did not ("No: the person who said X spoke once") or, when all did, everyone with their
counts, checked against the executed result.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, replace

from .execute import QueryExecutor
from .frame import Query, voice_turns
from .phrase import REFUSAL, check, conditions, phrase
from .question_forms import _COMPARED_TIMES, _EXACT_TIMES
from .result import QueryResult
from .wording import QUOTED
from .words import COUNT_WORDS, cap, join, times_word

_EVERYONE = re.compile(r"^\W*(?:did|have|had|has|was|were|is|are)\s+(?:every(?:one|body)|all\s+(?:of\s+)?(?:the\s+)?"
                       r"(?:people|speakers|persons|voices|of\s+them|them)|each\s+(?:person|one|speaker|of\s+them)|"
                       r"every\s+(?:person|speaker|single\s+person|one))\b", re.IGNORECASE)
_OPS = {"<=": operator.le, ">": operator.gt, ">=": operator.ge, "<": operator.lt, "=": operator.eq}


# "did each person I heard speak in the workshop?" (not "did everyone who spoke in X also speak in Y?": the people of
# one place against another, a frame's not_place)
_SPOKE_IN = re.compile(_EVERYONE.pattern + r"(?:\s+(?:that\s+|who\s+)?(?:i|we)\s+(?:heard|saw|met))?"
                       r"(?:\s+(?:after|before|since|until|by|between)\s+\S+(?:\s+and\s+\S+)?)?(?:\s+(?:ever|"
                       r"really))?\s+(?:speak|talk|say\s+(?:something|anything))\s+(?:in|at)\s+(?:the\s+|my\s+)?"
                       r"(?P<place>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)


_IN_PLACE = re.compile(r"^\s+(?:in|at)\s+(?:the\s+|my\s+)?(?P<place>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)


@dataclass(frozen=True)
class EveryoneAsk:
    op: str        # "<=", ">", ">=", "<", "="
    k: int
    words: str     # the condition as the question says it ("more than once")
    place: str | None = None   # the count is of turns in this place ("did everyone I heard speak in the workshop?")


def asks_everyone(question: str) -> EveryoneAsk | None:
    """The count every person must meet, for a yes / no about everyone; None for any other question."""
    plain = QUOTED.sub(" quoted ", question)
    if not _EVERYONE.match(plain):
        return None
    m = _COMPARED_TIMES.search(plain)
    if m is not None and len(_COMPARED_TIMES.findall(plain)) == 1:
        word = (m.group(5) or m.group(6)).lower()
        op = "<=" if m.group(1) else ">" if m.group(2) else ">=" if m.group(3) else "<"
        k = COUNT_WORDS.get(word) or int(word)
        there = _IN_PLACE.search(plain[m.end():])
        if (op, k) in ((">=", 1), (">", 0)) and there is not None:
            # "did everyone speak at least once in the garage?": everyone heard must have spoken there (among the
            # people heard there it holds of everyone, and says nothing)
            return EveryoneAsk(">=", 1, f"in the {there.group('place')}", there.group("place"))
        return EveryoneAsk(op, k, m.group(0))
    m = _EXACT_TIMES.search(plain)
    if m is not None:
        word = (m.group(1) or m.group(2)).lower()
        return EveryoneAsk("=", COUNT_WORDS.get(word) or int(word), m.group(0))
    m = _SPOKE_IN.match(plain)
    if m is not None:   # every person heard (anywhere) spoke in that place at least once
        return EveryoneAsk(">=", 1, f"in the {m.group('place')}", m.group("place"))
    return None


def prepare(q: Query) -> Query:
    """Everyone heard in the frame's place and window, with their counts."""
    return voice_turns(q)


def answer(executor: QueryExecutor, q: Query, ask: EveryoneAsk, before_time: float | None) -> tuple[str, QueryResult]:
    frame = prepare(q) if ask.place is None else replace(prepare(q), place=None)
    res = executor.run(frame, before_time)
    if res.status != "ok":
        return phrase(res), res
    counts = {p.character_id: p.spoke for p in res.people}
    there = ""
    if ask.place is not None:    # each person's turns in the place (everyone heard is who must have spoken there)
        res_in = executor.run(replace(frame, place=ask.place), before_time)
        if res_in.status != "ok":
            return phrase(res_in), res_in
        counts = {p.character_id: 0 for p in res.people} | {p.character_id: p.spoke for p in res_in.people}
        there = f" in the {res_in.query.place or ask.place}"
        res.spoke.update({c: n for c, n in counts.items()})
    cond = conditions(res)
    people = [p for p in res.people if p.spoke > 0]
    res.steps.append({"step": f"everyone times{ask.op}{ask.k}{there}", "people": len(people)})
    if not people:
        return f"I heard nobody{cond}.", res
    short = [p for p in people if not _OPS[ask.op](counts[p.character_id], ask.k)]
    if short and there:
        res.value = False
        text = "No: " + join([p.description for p in short]) + f" never spoke{there}{cond}."
    elif short:
        res.value = False
        text = "No: " + join([f"{p.description} spoke {times_word(p.spoke)}" for p in short]) + f"{cond}."
    else:
        res.value = True
        text = f"Yes, everyone I heard{cond} spoke {ask.words}: " + \
            join([f"{p.description} ({times_word(counts[p.character_id])}{there})" for p in people]) + "."
    text = cap(text)
    return (REFUSAL if check(text, res) else text), res
