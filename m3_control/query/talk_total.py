"""One person's seconds of talk against a number: "did A speak for more than 10 seconds in total?", "has B talked for
less than half a minute?", "did C talk for at least 5 seconds in the lab?".

Code sums the durations of the person's voice turns (detected speech) in the frame's place and window and compares
them with the number the question names; the answer says the seconds (the result's) and the number (the
question's) back. Not "more than 10 seconds after B" (a gap, :mod:`.anchored`), not "more than twice" (turns), not two
people compared by their seconds (:mod:`.talk_time`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query
from .phrase import REFUSAL, check, conditions, phrase
from .result import QueryResult
from .sentences import one_turn_over
from .words import NUMBER_WORDS, seconds_word, tenths

# "did A speak for more than 10 seconds in total?", "has B talked for less than half a minute?": one person's
# seconds of talk against a number (not "more than 10 seconds after B": a gap; not "more than twice": turns)
_NUMBERS = NUMBER_WORDS
_OPS = {"more than": ">", "longer than": ">", "over": ">", "at least": ">=", "less than": "<", "shorter than": "<",
        "under": "<", "fewer than": "<", "at most": "<=", "no more than": "<=", "no longer than": "<="}
_TOTAL = re.compile(r"^\W*(?:did|has|had|does|do|was|were|is|who|how\s+many\s+(?:people|persons|speakers|of\s+them))\b"
                    r"[^?]*?\b(?:speak|spoke|spoken|speaking|talk|talked|"
                    r"talking)\b(?:\s+(?:for|in\s+total|altogether|overall|in\s+all))*\s+(?:a\s+total\s+of\s+)?"
                    r"(?P<op>no\s+more\s+than|no\s+longer\s+than|more\s+than|longer\s+than|over|at\s+least|less\s+than|"
                    r"shorter\s+than|fewer\s+than|under|at\s+most)\s+(?P<n>\d+(?:\.\d+)?|half\s+a|"
                    + "|".join(_NUMBERS) + r")\s+(?P<unit>seconds?|minutes?)\b"
                    r"(?!\s+(?:after|before|later|earlier|apart|into|from|of|since|past|ago))", re.IGNORECASE)


_ANYONE = re.compile(r"^\W*(?:who|how\s+many)\b|\b(?:anyone|anybody|someone|somebody|any\s+(?:one\s+)?(?:person|"
                     r"speaker|of\s+them))\b", re.IGNORECASE)


@dataclass(frozen=True)
class TotalAsk:
    op: str           # > >= < <=
    seconds: float    # the number asked about, in seconds
    words: str        # the question's words for it ("more than 10 seconds")
    anyone: bool = False   # "did anyone speak for more than 4 seconds in total?": everyone's seconds, each


def asks_total(question: str) -> TotalAsk | None:
    """One person's seconds of talk against a number, when the question asks it of one person (quoted once, or a
    name), else None."""
    m = _TOTAL.search(question)
    if m is None or one_turn_over(question):    # ("... for more than 3 seconds at once": one turn's, sentences.py)
        return None
    quoted = quotes_of(question)
    anyone = not quoted and bool(_ANYONE.search(question[:m.start("op")]))
    if len(quoted) > 1 or (not quoted and not anyone and not re.search(r"\b[A-Z][a-z]+\b", question[1:m.start("op")])):
        return None
    n = m.group("n").lower()
    value = 0.5 if n.startswith("half") else float(_NUMBERS.get(n, n))
    seconds = value * (60 if m.group("unit").lower().startswith("minute") else 1)
    return TotalAsk(_OPS[" ".join(m.group("op").lower().split())], seconds, m.group(0)[m.start("op") - m.start():],
                    anyone)


def check_question(question: str, ask: TotalAsk) -> str:
    """The question as the frame's checks read it: the number of seconds is no time of day and nobody's words."""
    return question.replace(ask.words, " ")


def prepare(q: Query) -> Query:
    """The person's voice turns in the frame's place and window."""
    return replace(q, find="who", other=None, rel=None, until=None, pick=None, by=None, times=None, count=None,
                   act="spoke", top=None, measure=None, only=None)


def answer_total(executor: QueryExecutor, q: Query, ask: TotalAsk, question: str,
                 before_time: float | None) -> tuple[str, QueryResult]:
    """"Yes, A spoke for 11 seconds in all (more than 10 seconds)." (the seconds of their voice turns in the
    frame's place and window; the number asked about is said back, the seconds are the result's)."""
    if ask.anyone:
        return _anyone(executor, q, ask, question, before_time)
    quoted = quotes_of(question)
    ref = quoted[0] if quoted else q.who
    res = executor.run(replace(prepare(q), who=ref), before_time)
    if not ref or res.status != "ok":
        return (phrase(res) if ref else REFUSAL), res
    cid = res.who["who"].character_id
    who, cond = res.describe[cid], conditions(res)  # type: ignore[index]
    total = sum(e.end - e.start for e in res.events if e.kind == "voice" and e.character_id == cid)
    limit = int(ask.seconds) if float(ask.seconds).is_integer() else ask.seconds
    res.seconds[cid] = n = int(round(total))
    res.value = (n, limit)
    yes = {">": total > ask.seconds, ">=": total >= ask.seconds, "<": total < ask.seconds,
           "<=": total <= ask.seconds}[ask.op]
    than = {">": "more than", ">=": "at least", "<": "less than", "<=": "at most"}[ask.op]
    if not total:
        text = f"{'Yes' if yes else 'No'}, {who} never spoke{cond}."
    else:
        text = f"{'Yes' if yes else 'No'}, {who} spoke for {seconds_word(n)} in all{cond} " \
               f"({'' if yes else 'not '}{than} {limit} second{'s' if limit != 1 else ''})."
    return (REFUSAL if check(text, res) else text), res


def _anyone(executor: QueryExecutor, q: Query, ask: TotalAsk, question: str,
            before_time: float | None) -> tuple[str, QueryResult]:
    """"Yes: A spoke for 8 seconds in all in the bathroom and B for 6 (more than 4 seconds); C 4." (each person's
    seconds of voice turns in the frame's place and window against the number)."""
    res = executor.run(replace(prepare(q), who=None), before_time)
    if res.status != "ok":
        return phrase(res), res
    cond = conditions(res)
    total: dict[int, float] = {}
    for e in res.events:
        if e.kind == "voice":
            total[e.character_id] = total.get(e.character_id, 0.0) + e.end - e.start
    if not total:
        return f"No, nobody spoke{cond}.", res
    op = {">": lambda a: a > ask.seconds, ">=": lambda a: a >= ask.seconds, "<": lambda a: a < ask.seconds,
          "<=": lambda a: a <= ask.seconds}[ask.op]
    order = sorted(total, key=lambda c: -total[c])
    limit = int(ask.seconds) if float(ask.seconds).is_integer() else ask.seconds
    # whole seconds, or tenths where whole ones would read as the number asked about ("3.8 seconds", not "4")
    fig = {c: int(round(total[c])) if abs(round(total[c]) - ask.seconds) >= 1 else tenths(total[c]) for c in order}
    res.seconds = {**res.seconds, **fig}
    res.value = (limit,)
    than = {">": "more than", ">=": "at least", "<": "less than", "<=": "at most"}[ask.op]
    fits = [c for c in order if op(total[c])]
    rest = [c for c in order if c not in fits]

    def one(c: int) -> str:
        return f"{res.describe[c]} {seconds_word(fig[c])}"

    yes_no = not re.match(r"^\W*(?:who|how\s+many)\b", question, re.IGNORECASE)
    if re.match(r"^\W*how\s+many\b", question, re.IGNORECASE):   # "how many people spoke for over 5 s in all?"
        res.value = (limit, len(fits))
    if re.match(r"^\W*how\s+many\b", question, re.IGNORECASE) and fits:
        others = f"; the others: {', '.join(one(c) for c in rest)}" if rest else ""
        text = f"{len(fits)}: {', '.join(one(c) for c in fits)} in all{cond} ({than} {limit} second" \
               f"{'s' if limit != 1 else ''}){others}."
    elif fits:
        text = f"{'Yes: ' if yes_no else ''}{', '.join(one(c) for c in fits)} in all{cond} ({than} {limit} " \
               f"second{'s' if limit != 1 else ''})" + (f"; the others: {', '.join(one(c) for c in rest)}" if rest
                                                          else "") + "."
    else:
        text = f"{'No, n' if yes_no else 'N'}obody spoke for {than} {limit} second{'s' if limit != 1 else ''} in " \
               f"all{cond}: {', '.join(one(c) for c in order)}."
    text = text[0].upper() + text[1:]
    return (REFUSAL if check(text, res) else text), res
