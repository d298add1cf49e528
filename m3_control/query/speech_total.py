"""Everyone's speech added up in a place or window: "what was the total length of all the turns in the bedroom, in
seconds?", "adding up every turn in the hallway, how many seconds of speech were there?", "how much speech was there
in all?".

The frame is the model's with its place and window kept, asking how long people spoke in all (``find=how_long``
without a person): the executor adds up the detected speech of every turn in scope, overlapping turns once.
"""

from __future__ import annotations

import re

from .execute import QueryExecutor
from .frame import Query
from .phrase import phrase
from .result import QueryResult
from .turn_sequence import people_in

_TOTAL = re.compile(r"\b(?:total|combined|summed|overall)\s+(?:length|duration|time)\s+of\s+(?:all\s+)?"
                    r"(?:the\s+|every\s+)?(?:turns?|speech|talk(?:ing)?|speaking|utterances?|sentences?)\b|"
                    r"\b(?:add(?:ing)?|sum(?:ming)?)\s+up\s+(?:all\s+(?:the\s+)?|every\s+|each\s+)?(?:turns?|utterances?|"
                    r"sentences?)\b|"
                    r"^\W*how\s+(?:many\s+seconds|much\s+time)\s+of\s+(?:speech|talk(?:ing)?|speaking)\s+(?:were|was)\s+"
                    r"there\b|^\W*how\s+much\s+(?:speech|talking)\s+(?:was|were)\s+there\b|"
                    r"\btotal\s+(?:speaking|talking|speech)\s+time\s+(?:of\s+everyone|altogether|in\s+all|overall)\b",
                    re.IGNORECASE)


def asks_speech_total(question: str) -> bool:
    """Everyone's seconds of speech in all asked (no person named), else False."""
    return not people_in(question) and bool(_TOTAL.search(question)) and \
        not re.search(r"\b(?:each|every)\s+(?:person|speaker|one)\b|\bper\s+(?:person|speaker)\b", question, re.I)


def prepare(q: Query) -> Query:
    """How long everyone spoke in all, in the frame's place and window."""
    return Query(find="how_long", act="spoke", place=q.place, from_=q.from_, to=q.to, at=q.at)


def answer(executor: QueryExecutor, q: Query, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    return phrase(res), res
