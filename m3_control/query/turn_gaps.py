"""What lies between one turn and the next, over everyone's turns: the average silence between turns ("what was the
average gap between turns?", "on average, how long was the silence between two turns?"), and whether two people's
turns overlapped ("did any two turns overlap?", "was there any moment when two people spoke at once?").

Code takes the voice turns in the frame's place and window, in order; a gap is from the end of everything said so
far to the next turn's start (overlapping speech leaves none). The answer states the figures with the count they
come from. Not the longest silence (silences.py), not one person's silences (person_gaps.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, _cap, check, conditions, phrase
from .result import QueryResult
from .turn_sequence import people_in
from .words import seconds_word, tenths

_AVERAGE_GAP = re.compile(r"\b(?:average|mean|typical|on\s+average)\b[^?]*\b(?:gap|silence|pause|break|wait)s?\b|"
                          r"\b(?:gap|silence|pause|break|wait)s?\b[^?]*\bon\s+average\b", re.IGNORECASE)
_BETWEEN_TURNS = re.compile(r"\bbetween\s+(?:two\s+|the\s+|consecutive\s+|successive\s+|one\s+turn\s+and\s+the\s+next|"
                            r"each\s+)?(?:turns|utterances|speakers|sentences|turn)\b|\bbetween\s+(?:one\s+turn\s+and\s+"
                            r"the\s+next|speakers)\b", re.IGNORECASE)
_OVERLAP = re.compile(r"\boverlap\w*\b|\b(?:two|both|several|multiple)\s+(?:people|persons|speakers|voices|of\s+them)\b"
                      r"[^?]*\b(?:at\s+once|at\s+the\s+same\s+time|simultaneously)\b|\b(?:talk|speak)(?:ed|ing|s)?\s+over\s+"
                      r"(?:someone|somebody|anyone|each\s+other|one\s+another)\b", re.IGNORECASE)


@dataclass(frozen=True)
class GapsAsk:
    kind: str      # average | overlap


_RANKS_PEOPLE = re.compile(r"^\W*(?:who|whose|which\s+(?:person|speaker|one|voice))\b", re.IGNORECASE)


def asks_turn_gaps(question: str) -> GapsAsk | None:
    if people_in(question):
        return None
    if _AVERAGE_GAP.search(question) and _BETWEEN_TURNS.search(question) and not _RANKS_PEOPLE.match(question):
        return GapsAsk("average")     # ("who had the shortest average wait between turns?" ranks people: person_gaps)
    if _OVERLAP.search(question):
        return GapsAsk("overlap")
    return None


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's place and window."""
    return Query(find="who", act="spoke", place=q.place, from_=q.from_, to=q.to)


def answer(executor: QueryExecutor, q: Query, ask: GapsAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.end))
    cond = conditions(res)
    if len(turns) < 2:
        return f"I heard {'one turn' if turns else 'nobody speak'}{cond}, so there is nothing between turns.", res
    text = _average(res, turns, cond) if ask.kind == "average" else _overlaps(res, turns, cond)
    return (REFUSAL if check(text, res) else _cap(text)), res


def _average(res: QueryResult, turns: list, cond: str) -> str:
    """"The silences between one turn and the next averaged 3.6 seconds (12 gaps, from 2 to 8.7 seconds)."."""
    gaps, reach = [], turns[0].end
    for e in turns[1:]:
        gaps.append(max(0.0, e.start - reach))
        reach = max(reach, e.end)
    mean, low, high = tenths(sum(gaps) / len(gaps)), tenths(min(gaps)), tenths(max(gaps))
    res.value = (len(gaps), len(turns))
    res.seconds = {**res.seconds, -1: mean, -2: low, -3: high}
    res.steps.append({"step": "silences between turns", "gaps": len(gaps)})
    return f"the silences between one turn and the next{cond} averaged {seconds_word(mean)} ({len(gaps)} gaps " \
           f"between {len(turns)} turns, from {seconds_word(low)} to {seconds_word(high)})."


def _overlaps(res: QueryResult, turns: list, cond: str) -> str:
    """"No: no two people's turns overlapped (13 turns)." or "Yes, twice: A and B at 00:12 (0.5 seconds); ..."."""
    found = []
    for i, a in enumerate(turns):     # (by start: only the turns begun before this one ends can overlap it)
        for j in range(i + 1, len(turns)):
            b = turns[j]
            if b.start >= a.end:
                break
            if b.character_id != a.character_id:
                found.append((a, b))
    res.value = (len(turns), len(found))
    res.steps.append({"step": "overlapping turns", "pairs": len(found)})
    if not found:
        return f"No: no two people's turns overlapped{cond} ({len(turns)} turns)."
    res.events = list(dict.fromkeys(x for p in found for x in p)) + [e for e in turns if not any(e in p for p in found)]
    res.seconds = {**res.seconds, **{-i - 1: tenths(min(a.end, b.end) - b.start) for i, (a, b) in enumerate(found)}}
    each = "; ".join(f"{res.describe[a.character_id]} and {res.describe[b.character_id]} at {res.say(b.start)} "
                     f"({seconds_word(tenths(min(a.end, b.end) - b.start))})" for a, b in found)
    n = len(found)
    return f"yes, {'once' if n == 1 else 'twice' if n == 2 else f'{n} times'}{cond}: {each}."
