"""Which of the people a question lists did something first or last: "who spoke first, A or B?", "which of the two
was heard more recently: A or B?", "did A, B or C talk earlier?"; or spoke most (least) often: "which of A, B and C
spoke the least?".

No one frame says this (a frame picks among everyone, or relates one person to another's turn), so it is one frame
per person: their first (last) turn in the question's place, window and act, executed by code and compared. The
answer names the one who was first (last) and states every listed person's time, each from its own executed result
(checked against it); a person nobody heard or several people match is the answer instead (the executor's decline).

"Who spoke right after A: B or C?" lists the people the answer may be, not people to compare: it is the one frame
relative to A (:func:`relation_choice`), whose answer names whoever it was.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query
from .phrase import REFUSAL, _cap, _join, check, conditions, phrase
from .result import QueryResult
from .talk_seconds import best as talk_best
from .talk_seconds import figures, talk_seconds
from .wording import QUOTED as _QUOTE
from .words import seconds_word, times_word

_FIRST = re.compile(r"\b(?:first|earlier|earliest|sooner|before\s+the\s+other)\b", re.IGNORECASE)
_LAST = re.compile(r"\b(?:last|later|latest|more\s+recently|most\s+recently|after\s+the\s+other)\b", re.IGNORECASE)
# a relation to somebody's turn or a count makes it another question ("who spoke right after A, B or C?")
_NOT_CHOICE = re.compile(r"\b(?:right|just|immediately|directly)\s+(?:before|after)\b|\b(?:how\s+many|times)\b",
                         re.IGNORECASE)
_COUNTS = re.compile(r"\b(?:more|less|fewer)\b(?!\s+recently)|\b(?:most|least|fewest)\b(?!\s+recently)|\bmore\s+"
                     r"often\b", re.IGNORECASE)
_WINDOW = re.compile(r"\b(?:the\s+)?(?:first|last|final|opening|closing)\s+(?:\w+\s+)?(?:seconds?|minutes?|half|"
                     r"part|third|quarter)\b", re.IGNORECASE)
_OF_TWO = re.compile(r"^\W*(?:(?:which|who)\s+of|out\s+of|of)\b", re.IGNORECASE)   # "which of A and B ...?"
_BETWEEN_TWO = re.compile(r"^\W*between\b", re.IGNORECASE)
_ASKS = re.compile(r"\b(?:who|which|whose)\b|^\W*(?:did|was|were|of|out\s+of)\b", re.IGNORECASE)


def _listed(question: str, at_least: int, refused: re.Pattern) -> str | None:
    """The question's words (quotes taken out) when it lists at least ``at_least`` quoted people as choices (joined
    by "or", or "which of / out of A and B") and asks about them, else None (also when ``refused`` matches)."""
    if len(quotes_of(question)) < at_least:
        return None
    marked = _QUOTE.sub(" <Q> ", question)
    plain = marked.replace("<Q>", " ")
    if not _ASKS.search(plain) or refused.search(plain):
        return None
    between = marked[marked.index("<Q>"):marked.rindex("<Q>")]
    # "which of A and B ...?", and "between A and B, who spoke last?" of the two people (not "between A's first turn
    # and B's, who ...?")
    two = _OF_TWO.match(plain) or (_BETWEEN_TWO.match(plain) and not re.search(
        r"'s\b|\b(?:turns?|words|time|first|last|second|third)\b", between, re.IGNORECASE))
    joined = re.search(r"\bor\b", between, re.IGNORECASE) or (two and re.search(r"\band\b", between, re.IGNORECASE))
    return plain if joined else None


def merge(results: list[QueryResult], step: str) -> QueryResult:
    """One result holding every per-person result's turns and steps (for provenance and the trace); a copy of the
    first, so each answer clause is still checked against its own person's result."""
    merged = replace(results[0])
    merged.events = [e for res in results for e in res.events]
    merged.steps = [{"step": f"{step} of {len(results)}", "frames": [r.query.compact() for r in results]}] + \
        [s for r in results for s in r.steps]
    return merged


def order_choice(question: str) -> str | None:
    """"first" or "last" when the question asks which of the people it quotes came first or last (joined by "or",
    or "which of / out of A and B"), else None."""
    plain = _listed(question, 2, _NOT_CHOICE)
    if plain is None:
        return None
    if _COUNTS.search(plain):
        return None        # "who spoke more in the first 30 seconds, A or B?": counts compared (find=more)
    plain = _WINDOW.sub(" ", plain)    # "first" / "last" of a stretch of time is no order of the people
    first, last = bool(_FIRST.search(plain)), bool(_LAST.search(plain))
    if first == last:
        return None
    return "first" if first else "last"


_MOST = re.compile(r"\b(?:most|more)\b", re.IGNORECASE)
_LEAST = re.compile(r"\b(?:least|fewest|less|fewer)\b", re.IGNORECASE)
_LONG = re.compile(r"\b(?:(longest|longer|most\s+time|more\s+time)|(shortest|shorter|least\s+time|less\s+time))\b"
                   r"(?!\s+(?:single\s+|one\s+)?(?:turns?|sentences?|silences?|pauses?|gaps?|stays?))", re.IGNORECASE)
_OFTEN = re.compile(r"\b(?:often|times|turns)\b", re.IGNORECASE)
_SUPERLATIVE_TIME = re.compile(r"\b(?:longest|shortest|most\s+time|least\s+time)\b", re.IGNORECASE)
_ADJACENT = re.compile(r"\b(?:right|just|immediately|directly)\s+(?:before|after)\b", re.IGNORECASE)


def count_choice(question: str) -> str | None:
    """"most" or "least" when the question asks which of three or more people it quotes spoke most (least) often
    ("which of A, B and C spoke the least?"; two people are one frame: find=more / less), else None. By seconds
    ("which of A and B talked the longest?"), two people too: "talked longer, A or B?" stays find=more."""
    plain = _listed(question, 2, _ADJACENT)
    if plain is None:
        return None
    if (long := _LONG.search(plain)) is not None and not _OFTEN.search(plain):
        if len(quotes_of(question)) < 3 and not _SUPERLATIVE_TIME.search(plain):
            return None
        # "which of A, B and C spoke the longest (for the most time)?": their seconds of speech
        return "most_time" if long.group(1) else "least_time"
    if len(quotes_of(question)) < 3:
        return None
    most, least = bool(_MOST.search(plain)), bool(_LEAST.search(plain))
    return None if most == least else "most" if most else "least"


def answer_counts(executor: QueryExecutor, q: Query, which: str, question: str,
                  before_time: float | None) -> tuple[str, QueryResult]:
    """The answer to :func:`count_choice`'s question: each listed person's turns counted (the frame's place and
    window kept), the one(s) with the most (least) named, every count stated from its own result."""
    base = replace(q, find="count_times", who=None, other=None, rel=None, until=None, pick=None, by=None,
                   times=None, count=None, act="spoke")
    results = [executor.run(replace(base, who=ref), before_time) for ref in quotes_of(question)]
    for res in results:
        if res.status != "ok":
            return phrase(res), res
    names = [r.describe[r.who["who"].character_id] for r in results]  # type: ignore[index]
    where = f" in the {q.place}" if q.place else ""
    if which.endswith("_time"):
        return _answer_seconds(results, names, which == "most_time", where)
    counts = [int(res.value or 0) for res in results]
    best = max(counts) if which == "most" else min(counts)
    merged = merge(results, which)
    won = [i for i, n in enumerate(counts) if n == best]
    # each clause checked against the result of the person it names
    checks = [(f"{names[i]} spoke {which} often{where} ({times_word(best)})", results[i]) for i in won]
    checks += [(f"{names[i]} {times_word(counts[i])}", results[i]) for i in range(len(results)) if i not in won]
    if any(check(text, res) for text, res in checks):
        return REFUSAL, merged
    lead = f"{_cap(names[won[0]])} spoke {which} often{where} ({times_word(best)})" if len(won) == 1 else \
        f"{_cap(_join([names[i] for i in won]))} spoke {which} often{where}, equally ({times_word(best)} each)"
    rest = [text for text, _ in checks[len(won):]]
    return lead + ("; " + ", ".join(rest) if rest else "") + ".", merged


def _answer_seconds(results: list[QueryResult], names: list[str], most: bool,
                    where: str) -> tuple[str, QueryResult]:
    """Which listed person spoke the longest (shortest) in all: each one's seconds of detected speech in the frame's
    place and window (``res.seconds``, as two people compared by time keep them), every figure said."""
    exact = {i: talk_seconds(res.events) for i, res in enumerate(results)}
    said = figures(exact)     # whole seconds, tenths where two that differ would round alike
    for i, res in enumerate(results):
        res.seconds[res.who["who"].character_id] = said[i]
    seconds = [said[i] for i in range(len(results))]
    won = sorted(talk_best(exact, most))
    best = seconds[won[0]]
    merged = merge(results, "most_time" if most else "least_time")
    word = "the longest" if most else "the shortest time"
    parts = [(f"{names[i]} {seconds_word(seconds[i])}", results[i]) for i in range(len(results)) if i not in won]
    lead = f"{_cap(names[won[0]])} spoke {word} in all{where} ({seconds_word(best)})" if len(won) == 1 else \
        f"{_cap(_join([names[i] for i in won]))} spoke {word} in all{where}, equally ({seconds_word(best)} each)"
    if len({seconds[i] for i in won}) > 1:   # equal within what detection tells apart, said as measured
        lead = f"{_cap(_join([names[i] for i in won]))} spoke {word} in all{where}, about equally " \
               f"({_join([seconds_word(seconds[i]) for i in won])})"
    if exact[won[0]] == 0:   # ("spoke the shortest time (0 seconds)" would say they spoke)
        lead = f"{_cap(_join([names[i] for i in won]))}: I did not hear them " \
            f"speak{where} (0 seconds)"
    if any(check(text, res) for text, res in [(lead, results[won[0]]), *parts]):
        return REFUSAL, merged
    return lead + ("; " + ", ".join(text for text, _ in parts) if parts else "") + ".", merged


_RIGHT = re.compile(r"\b(?:right|just|immediately|directly)\s+(before|after)\b", re.IGNORECASE)


def relation_choice(question: str) -> str | None:
    """``right_after`` / ``right_before`` when the question asks who came right after (before) the first person it
    quotes and lists the others as the choices ("who spoke right after A, B or C?"), else None."""
    quoted = quotes_of(question)
    if len(quoted) < 3:
        return None
    marked = _QUOTE.sub(" <Q> ", question)
    first = marked.index("<Q>")
    m = _RIGHT.search(marked[:first])
    if not m or not _ASKS.search(marked.replace("<Q>", " ")):
        return None
    second = marked.index("<Q>", first + 3)
    if not re.search(r"\bor\b", marked[second:marked.rindex("<Q>")], re.IGNORECASE):
        return None
    return f"right_{m.group(1).lower()}"


def answer_relation(executor: QueryExecutor, q: Query, rel: str, question: str,
                    before_time: float | None) -> tuple[str, QueryResult]:
    """The answer to :func:`relation_choice`'s question: who came right after (before) its first person, whoever
    that was (one of the choices or not), in the frame's place and window."""
    frame = replace(q, find="who", who=None, other=quotes_of(question)[0], rel=rel, pick=None, times=None, count=None,
                    by=None, until=None, act=q.act if q.act in ("spoke", "seen") else "spoke")
    res = executor.run(frame, before_time)
    return phrase(res), res


def answer(executor: QueryExecutor, q: Query, which: str, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    """(the answer, one result holding every listed person's turns for provenance). ``q``: the checked frame,
    whose place, window and act are kept; ``which``: "first" or "last" (:func:`order_choice`)."""
    act = q.act if q.act in ("spoke", "seen") else "spoke"
    base = replace(q, find="when", who=None, other=None, rel=None, until=None, pick=which, by=None, times=None,
                   count=None, act=act)
    results = [executor.run(replace(base, who=ref), before_time) for ref in quotes_of(question)]
    for res in results:
        if res.status != "ok":
            return phrase(res), res
    heard = [(res, res.events[0]) for res in results if res.events]
    merged = merge(results, which)
    where = conditions(results[0])   # the question's place and window, said with what was not heard there
    sense = "hear" if act == "spoke" else "see"
    missing = [r for r in results if not r.events]   # no such turn in the question's place and window
    if not heard:   # none of them: say so of each, never of the first alone
        names = [r.describe[r.who["who"].character_id] for r in missing]  # type: ignore[index]
        text = f"Neither: I did not {sense} {_join(names, 'or')}{where}"
        return (REFUSAL if any(check(f"I did not {sense} {n}{where}", r) for n, r in zip(names, missing, strict=True))
                else text + "."), merged
    heard.sort(key=lambda x: x[1].start, reverse=which == "last")
    verb = "spoke" if act == "spoke" else "was seen"
    (win, turn), rest = heard[0], heard[1:]
    parts = [(f"{_cap(win.describe[turn.character_id])} {verb} {which} ({win.say(turn.start)})", win)]
    for res, e in rest:
        parts.append((f"{res.describe[e.character_id]} {which} {verb} at {res.say(e.start)}", res))
    for other in missing:
        parts.append((f"I did not {sense} {other.describe[other.who['who'].character_id]}{where}", other))
    if any(check(text, res) for text, res in parts):
        return REFUSAL, merged
    return "; ".join(text for text, _ in parts) + ".", merged

