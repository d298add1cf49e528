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
from .words import NUMBER_WORDS, seconds_word

# "did A speak for more than 10 seconds in total?", "has B talked for less than half a minute?": one person's
# seconds of talk against a number (not "more than 10 seconds after B": a gap; not "more than twice": turns)
_NUMBERS = NUMBER_WORDS
_OPS = {"more than": ">", "longer than": ">", "over": ">", "at least": ">=", "less than": "<", "shorter than": "<",
        "under": "<", "fewer than": "<", "at most": "<=", "no more than": "<=", "no longer than": "<="}
_TOTAL = re.compile(r"^\W*(?:did|has|had|does|do|was|were|is)\b[^?]*?\b(?:speak|spoke|spoken|speaking|talk|talked|"
                    r"talking)\b(?:\s+(?:for|in\s+total|altogether|overall|in\s+all))*\s+(?:a\s+total\s+of\s+)?"
                    r"(?P<op>no\s+more\s+than|no\s+longer\s+than|more\s+than|longer\s+than|over|at\s+least|less\s+than|"
                    r"shorter\s+than|fewer\s+than|under|at\s+most)\s+(?P<n>\d+(?:\.\d+)?|half\s+a|"
                    + "|".join(_NUMBERS) + r")\s+(?P<unit>seconds?|minutes?)\b"
                    r"(?!\s+(?:after|before|later|earlier|apart|into|from|of|since|past|ago))", re.IGNORECASE)


@dataclass(frozen=True)
class TotalAsk:
    op: str           # > >= < <=
    seconds: float    # the number asked about, in seconds
    words: str        # the question's words for it ("more than 10 seconds")


def asks_total(question: str) -> TotalAsk | None:
    """One person's seconds of talk against a number, when the question asks it of one person (quoted once, or a
    name), else None."""
    m = _TOTAL.search(question)
    if m is None or one_turn_over(question):    # ("... for more than 3 seconds at once": one turn's, sentences.py)
        return None
    quoted = quotes_of(question)
    if len(quoted) > 1 or (not quoted and not re.search(r"\b[A-Z][a-z]+\b", question[1:m.start("op")])):
        return None
    n = m.group("n").lower()
    value = 0.5 if n.startswith("half") else float(_NUMBERS.get(n, n))
    seconds = value * (60 if m.group("unit").lower().startswith("minute") else 1)
    return TotalAsk(_OPS[" ".join(m.group("op").lower().split())], seconds, m.group(0)[m.start("op") - m.start():])


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
