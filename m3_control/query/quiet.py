""""Was B quiet in the workshop?", "did A stay silent before 0:30?", "has C kept quiet since I arrived?": whether one
person never spoke in the question's place and window. The quiet word is no quote and nobody's words (a small model
wrote ``other="quiet"`` and the answer was "I don't remember anyone saying 'quiet'"), and a person seen is no person
heard: code counts the person's voice turns in the frame's scope.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query
from .phrase import REFUSAL, _join, check, phrase
from .result import QueryResult
from .words import times_word

_QUIET = re.compile(r"^\W*(?:was|were|is|did|has|had|does)\s+(?!there\b)(?P<who>[^?]*?)\s+(?:(?:stay|stayed|remain|"
                    r"remained|keep|kept|been|be|go|went|fall|fell)\s+)?(?P<word>quiet|silent|mute|speechless)\b"
                    r"(?!\s+(?:period|stretch|spell|moment|time|minute|second|pause|part|room|place))", re.IGNORECASE)


def asks_quiet(question: str) -> str | None:
    """The question's quiet word when it asks whether one named person stayed quiet, else None."""
    m = _QUIET.search(question)
    if m is None:
        return None
    quoted = quotes_of(question)
    # one person: by their words, or by a name ("was Ann quiet ...?"; not "was the kitchen quiet?")
    if len(quoted) == 1 or (not quoted and re.fullmatch(r"[A-Z][a-z]+", m.group("who").strip())):
        return m.group("word")
    return None


def check_question(question: str, word: str) -> str:
    return re.sub(rf"\b{word}\b", " ", question, count=1)


def prepare(q: Query) -> Query:
    """The person's voice turns in the frame's place and window."""
    return replace(q, find="who", other=None, rel=None, until=None, pick=None, by=None, times=None, count=None,
                   act="spoke", top=None, measure=None, only=None)


def answer(executor: QueryExecutor, q: Query, question: str, before_time: float | None) -> tuple[str, QueryResult]:
    quoted = quotes_of(question)
    ref = quoted[0] if quoted else q.who
    if not ref:
        return REFUSAL, executor.run(prepare(q), before_time)
    res = executor.run(replace(prepare(q), who=ref), before_time)
    if res.status != "ok":
        return phrase(res), res
    who = res.describe[res.who["who"].character_id]
    scope = f" in the {q.place}" if q.place else ""
    t1, t2 = res.read(q.from_), res.read(q.to)
    if t1 is not None:
        scope += f" after {res.say(t1)}"
    if t2 is not None:
        scope += f" before {res.say(t2)}"
    turns = [e for e in res.events if e.kind == "voice"]
    res.value = len(turns)
    if not turns:
        return f"Yes, {who} never spoke{scope}.", res
    text = f"No, {who} spoke {times_word(len(turns))}{scope}: at {_join([res.say(e.start) for e in turns])}."
    return (REFUSAL if check(text, res) else text), res
