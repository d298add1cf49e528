"""Which of two people did something first or last: "who spoke first, A or B?", "which of the two was heard more
recently: A or B?", "did A or B talk earlier?".

No one frame says this (a frame picks among everyone, or relates one person to another's turn), so it is two
frames, one per person: their first (last) turn in the question's place, window and act, executed by code and
compared. The answer names the one who was first (last) and states both times, each from its own executed result
(checked against it); a person nobody heard or several people match is the answer instead (the executor's decline).
"""

from __future__ import annotations

import re
from dataclasses import replace

from .execute import QueryExecutor, QueryResult
from .fidelity import quotes_of
from .frame import Query
from .phrase import REFUSAL, check, phrase
from .wording import QUOTED as _QUOTE

_FIRST = re.compile(r"\b(?:first|earlier|earliest|sooner|before\s+the\s+other)\b", re.IGNORECASE)
_LAST = re.compile(r"\b(?:last|later|latest|more\s+recently|most\s+recently|after\s+the\s+other)\b", re.IGNORECASE)
# a relation to somebody's turn or a count makes it another question ("who spoke right after A, B or C?")
_NOT_CHOICE = re.compile(r"\b(?:right|just|immediately|directly)\s+(?:before|after)\b|\b(?:how\s+many|times)\b",
                         re.IGNORECASE)
_OF_TWO = re.compile(r"^\W*(?:(?:which|who)\s+of|out\s+of|of)\b", re.IGNORECASE)   # "which of A and B ...?"
_ASKS = re.compile(r"\b(?:who|which|whose)\b|^\W*(?:did|was|were|of|out\s+of)\b", re.IGNORECASE)


def order_choice(question: str) -> str | None:
    """"first" or "last" when the question asks which of the two people it quotes came first or last (joined by
    "or", or "which of / out of A and B"), else None."""
    if len(quotes_of(question)) != 2:
        return None
    marked = _QUOTE.sub(" <Q> ", question)
    plain = marked.replace("<Q>", " ")
    if not _ASKS.search(plain) or _NOT_CHOICE.search(plain):
        return None
    a, b = marked.index("<Q>"), marked.rindex("<Q>")
    between = marked[a:b]
    joined = re.search(r"\bor\b", between, re.IGNORECASE) or (
        _OF_TWO.match(plain) and re.search(r"\band\b", between, re.IGNORECASE))
    if not joined:
        return None
    first, last = bool(_FIRST.search(plain)), bool(_LAST.search(plain))
    if first == last:
        return None
    return "first" if first else "last"


def answer(executor: QueryExecutor, q: Query, which: str, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    """(the answer, one result holding both people's turns for provenance). ``q``: the checked frame, whose place,
    window and act are kept; ``which``: "first" or "last" (:func:`order_choice`)."""
    act = q.act if q.act in ("spoke", "seen") else "spoke"
    base = replace(q, find="when", who=None, other=None, rel=None, until=None, pick=which, by=None, times=None,
                   count=None, act=act)
    results = [executor.run(replace(base, who=ref), before_time) for ref in quotes_of(question)]
    for res in results:
        if res.status != "ok":
            return phrase(res), res
    heard = [(res, res.events[0]) for res in results if res.events]
    merged = results[0]
    merged.events = [e for res in results for e in res.events]
    merged.steps = [{"step": f"{which} of two", "frames": [r.query.compact() for r in results]}] + \
        [s for r in results for s in r.steps]
    if not heard:
        return phrase(results[0]), merged
    heard.sort(key=lambda x: x[1].start, reverse=which == "last")
    verb = "spoke" if act == "spoke" else "was seen"
    (win, turn), rest = heard[0], heard[1:]
    parts = [(f"{_cap(win.describe[turn.character_id])} {verb} {which} ({win.say(turn.start)})", win)]
    for res, e in rest:
        parts.append((f"{res.describe[e.character_id]} {which} {verb} at {res.say(e.start)}", res))
    if not rest:       # the other one has no such turn in the question's place and window
        other = next(r for r in results if not r.events)
        where = f" in the {q.place}" if q.place else ""
        parts.append((f"I did not {'hear' if act == 'spoke' else 'see'} "
                      f"{other.describe[other.who['who'].character_id]}{where}", other))
    if any(check(text, res) for text, res in parts):
        return REFUSAL, merged
    return "; ".join(text for text, _ in parts) + ".", merged


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]
