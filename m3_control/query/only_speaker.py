"""Whether one person was the only one heard in a place or window: "was A the only person who spoke in the lab after
0:10?", "after 0:40, was C the only one to speak in the office?", "was B the only speaker in the porch?".

One frame selects everyone's voice turns in the question's place and window; the named person is resolved as the frame
would; the answer is yes when every turn there is theirs, else no with the others who spoke (each with their first
time there), checked against the result like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query, voice_turns
from .named_ids import scope_and_people
from .phrase import REFUSAL, _cap, _join, check, conditions, phrase
from .result import QueryResult
from .turn_sequence import people_in

_ONLY = re.compile(r"\b(?:was|is)\b[^?]*?\bthe\s+only\s+(?:one|person|speaker|voice|people)\b(?:\s+(?:who|that)\s+"
                   r"(?:spoke|talked|was\s+heard|said\s+anything)|\s+to\s+(?:speak|talk|be\s+heard)|\s+(?:I|we)\s+heard)?",
                   re.IGNORECASE)


@dataclass(frozen=True)
class OnlyAsk:
    person: str


def asks_only(question: str) -> OnlyAsk | None:
    if _ONLY.search(question) is None or not re.search(r"\b(?:spoke|speak|talk|talked|heard|speaker|voice)\b",
                                                       question, re.IGNORECASE):
        return None
    people = people_in(question)
    return OnlyAsk(people[0]) if len(people) == 1 else None


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's place and window."""
    return voice_turns(q)


def answer(executor: QueryExecutor, q: Query, ask: OnlyAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res, ids = scope_and_people(executor, prepare(q), [ask.person], before_time)
    if ids is None:
        return phrase(res), res
    cid = ids[0]
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    cond, who = conditions(res), res.describe[cid]
    mine = [e for e in turns if e.character_id == cid]
    firsts: dict[int, object] = {}
    for e in turns:
        if e.character_id != cid:
            firsts.setdefault(e.character_id, e)
    res.events = mine + list(firsts.values()) + [e for e in res.events if e not in mine and e not in firsts.values()]
    res.value = (len(mine), len(firsts))
    others = _join([f"{res.describe[c]} (at {res.say(e.start)})" for c, e in firsts.items()])  # type: ignore[attr-defined]
    if not mine:
        text = f"No: {who} did not speak{cond}" + (f"; {others} did." if firsts else "; nobody did.")
    elif not firsts:
        text = f"Yes: {who} was the only one who spoke{cond} (from {res.say(mine[0].start)})."
    else:
        text = f"No: {others} also spoke{cond}, besides {who} (from {res.say(mine[0].start)})."
    return (REFUSAL if check(_cap(text), res) else _cap(text)), res
