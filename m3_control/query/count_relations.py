"""One person's number of turns (or seconds) against a multiple of another's, or against everyone else's together:
"which person took twice as many turns as C?", "who spoke half as often as A?", "did A take more turns than everyone
else put together?", "were A's turns more than all the other people's turns combined?".

One frame selects everyone's voice turns in the question's place and window (the model's frame keeps those); code
counts each person's turns (seconds of detected speech where the question measures time) and compares. The answer
gives every figure it rests on, checked against the result like any frame's.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query, voice_turns
from .named_ids import scope_and_people
from .phrase import REFUSAL, _cap, _join, check, phrase
from .result import QueryResult
from .turn_sequence import people_in
from .words import times_word

_FACTORS = {"twice": 2.0, "two times": 2.0, "three times": 3.0, "thrice": 3.0, "four times": 4.0, "half": 0.5}
_MULTIPLE = re.compile(r"^\W*(?:who|which\s+(?:person|speaker|one|people|speakers)|did\s+anyone|did\s+anybody|"
                       r"was\s+there\s+(?:anyone|anybody|someone))\b[^?]*?\b(?P<k>twice|two\s+times|three\s+times|thrice|"
                       r"four\s+times|half)\s+as\s+(?P<what>many\s+turns|many\s+times|often|much|long)\s+as\b",
                       re.IGNORECASE)
_OTHERS = (r"(?:everyone|everybody|anyone|anybody|all\s+(?:of\s+)?the\s+others?|all\s+the\s+other\s+(?:people|persons|"
           r"speakers)|the\s+others?|the\s+rest|the\s+other\s+(?:people|persons|speakers))(?:\s+else)?(?:'s|’s)?")
_TOGETHER = r"(?:put\s+together|combined|together|in\s+total|added\s+up|all\s+together)"
_ALL_OTHERS = re.compile(rf"^\W*(?:did|was|were|has|had|is)\b[^?]*?\b(?P<cmp>more|fewer|less)\b[^?]*?\bthan\s+"
                         rf"{_OTHERS}(?:\s+(?:turns|times|speech|talking))?\s+{_TOGETHER}\b", re.IGNORECASE)


@dataclass(frozen=True)
class CountRelationAsk:
    person: str            # the one the others are measured against (multiple) or the one asked about (all others)
    factor: float = 0.0    # multiple: the others' figure over the person's (2: twice as many)
    more: bool = True      # all others: asked "more" (else fewer / less)
    seconds: bool = False  # measured in seconds of speech, not turns


def asks_count_relation(question: str) -> CountRelationAsk | None:
    people = people_in(question)
    if len(people) != 1:
        return None
    m = _MULTIPLE.search(question)
    if m is not None:
        k = " ".join(m.group("k").lower().split())
        seconds = m.group("what").lower() in ("much", "long")
        return CountRelationAsk(people[0], factor=_FACTORS[k], seconds=seconds)
    m = _ALL_OTHERS.search(question)
    if m is not None:
        seconds = bool(re.search(r"\b(?:seconds|longer|speech|talking\s+time|time)\b", question, re.IGNORECASE)) and \
            not re.search(r"\bturns?\b", question, re.IGNORECASE)
        return CountRelationAsk(people[0], more=m.group("cmp").lower() == "more", seconds=seconds)
    return None


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's place and window."""
    return voice_turns(q)


def answer(executor: QueryExecutor, q: Query, ask: CountRelationAsk,
           before_time: float | None) -> tuple[str, QueryResult]:
    res, ids = scope_and_people(executor, prepare(q), [ask.person], before_time)
    if ids is None:
        return phrase(res), res
    cid = ids[0]
    turns = [e for e in res.events if e.kind == "voice"]
    figure: Counter = Counter()
    for e in turns:
        figure[e.character_id] += (e.end - e.start) if ask.seconds else 1
    order = list(dict.fromkeys(e.character_id for e in sorted(turns, key=lambda e: e.start)))
    where = f" in the {q.place}" if q.place else ""

    def said(c: int) -> str:
        return f"{figure[c]:.1f} seconds" if ask.seconds else times_word(int(figure[c]))

    mine = figure[cid]
    who = res.describe.get(cid, ask.person)
    if ask.factor:
        target = mine * ask.factor
        fits = [c for c in order if c != cid and (abs(figure[c] - target) <= 0.1 * max(target, 1.0) if ask.seconds
                                                   else figure[c] == target)]
        res.value = tuple(sorted({int(round(v)) for v in (*figure.values(), target)}))
        res.seconds = {c: round(v, 1) for c, v in figure.items()} if ask.seconds else res.seconds
        k = {2.0: "twice", 3.0: "three times", 4.0: "four times", 0.5: "half"}[ask.factor]
        others = "; ".join(f"{res.describe[c]} {said(c)}" for c in order if c != cid)
        base = f"{who} spoke {said(cid)}{where}"
        if fits:
            much = "much" if ask.seconds else "many"
            text = f"{_join([res.describe[c] for c in fits])} ({said(fits[0])}): {k} as {much} as {who}, who spoke " \
                f"{said(cid)}{where}."
            res.events = [e for e in turns if e.character_id in (cid, *fits)] + \
                [e for e in res.events if e.character_id not in (cid, *fits)]
        else:
            text = f"Nobody: {base}, and nobody else {k} as {'much' if ask.seconds else 'often'}" + \
                (f" ({others})." if others else ".")
        return (REFUSAL if check(_cap(text), res) else _cap(text)), res
    rest = sum(v for c, v in figure.items() if c != cid)
    yes = mine > rest if ask.more else mine < rest
    res.value = tuple(sorted({int(round(mine)), int(round(rest)), *(int(round(v)) for v in figure.values())}))
    if ask.seconds:
        res.seconds = {**{c: round(v, 1) for c, v in figure.items()}, -1: round(rest, 1)}
    total = f"{rest:.1f} seconds" if ask.seconds else f"{int(rest)} turn{'s' if rest != 1 else ''}"
    others = "; ".join(f"{res.describe[c]} {said(c)}" for c in order if c != cid)
    text = f"{'Yes' if yes else 'No'}: {who} spoke {said(cid)}{where}, everyone else together {total}" + \
        (f" ({others})." if others else ".")
    return (REFUSAL if check(_cap(text), res) else _cap(text)), res
