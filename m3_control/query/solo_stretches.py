"""The longest stretch one person held the floor alone: "what was the longest stretch during which only A spoke?",
"what was the longest period in which A was the only one speaking?", "what was the longest stretch of one person
speaking alone?" (anyone: the person and the stretch).

A stretch is a run of one person's turns with nobody else's words between them, from the first turn's start to the
last one's end (a single turn is a stretch of one). One frame selects everyone's voice turns; code walks them in
order. The answer gives the stretch's length, its times and its number of turns, checked against that result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query
from .named_ids import named_ids
from .phrase import REFUSAL, _cap, check, conditions, phrase
from .result import QueryResult
from .turn_sequence import one_person_runs
from .words import seconds_word, tenths, times_word

_SPAN = r"(?:stretch|period|spell|span|run|streak|stint|interval|time|while|block)"
# "the longest stretch during which only A spoke", "the longest period in which A was the only one speaking",
# "the longest stretch of one person speaking alone"
_SOLO = re.compile(rf"\b(?:longest|biggest|greatest|maximum)\s+(?:continuous\s+|uninterrupted\s+|single\s+)?{_SPAN}\b"
                   r"[^?]*?(?:\bonly\b[^?]*?\b(?:spoke|speaking|talking|talked|speaker|voice|one\s+talking)\b|"
                   r"\b(?:the\s+)?only\s+(?:one|person|speaker|voice)\b|\b(?:spoke|speaking|talking|talked)\s+"
                   r"(?:alone|by\s+(?:himself|herself|themselves)|on\s+(?:his|her|their)\s+own|uninterrupted|"
                   r"without\s+(?:anyone|anybody|someone)\s+else)\b|\balone\b)", re.IGNORECASE)


@dataclass(frozen=True)
class SoloAsk:
    who: str | None      # the person asked about (their words or name), None: anyone


def asks_solo(question: str, who: str | None = None) -> SoloAsk | None:
    if not _SOLO.search(question):
        return None
    quoted = quotes_of(question)
    if len(quoted) > 1:
        return None
    return SoloAsk(quoted[0] if quoted else who)


def prepare(q: Query) -> Query:
    """Voice turns in the frame's place and window (the person the frame names kept: :func:`answer` reads everyone's
    turns and picks theirs)."""
    return Query(find="who", act="spoke", who=q.who, place=q.place, from_=q.from_, to=q.to)


def answer(executor: QueryExecutor, q: Query, ask: SoloAsk, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    base = replace(prepare(q), who=None)
    res = executor.run(base, before_time)
    if res.status != "ok":
        return phrase(res), res
    who = ask.who if ask.who is not None else (q.who if q.who and re.search(rf"\b{re.escape(q.who)}\b", question)
                                               else None)
    subject = None
    if who is not None:
        ids = named_ids(executor, base, [who], res, before_time)
        if isinstance(ids, QueryResult):
            return phrase(ids), ids
        subject = ids[0]
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    runs = [r for r in one_person_runs(turns) if subject is None or r[0].character_id == subject]
    cond = conditions(res)
    if not runs:
        return f"{_cap(res.describe[subject]) if subject is not None else 'Nobody'} never spoke{cond}.", res
    best = max(r[-1].end - r[0].start for r in runs)
    top = [r for r in runs if r[-1].end - r[0].start >= best - 0.05]
    chosen = [e for r in top for e in r]
    res.events = chosen + [e for e in res.events if e not in chosen]
    res.seconds = {**res.seconds, -1: tenths(best)}
    res.value = tuple(len(r) for r in top)
    res.steps.append({"step": "runs of one person's turns", "runs": len(runs)})

    def one(r: list) -> str:
        speech = tenths(sum(e.end - e.start for e in r))
        res.seconds[-2 - len(res.seconds)] = speech
        turns_said = "one turn" if len(r) == 1 else f"{len(r)} turns in a row, {seconds_word(speech)} of speech"
        person = "" if subject is not None else f"{res.describe[r[0].character_id]}, "
        return f"{person}from {res.say(r[0].start)} to {res.say(r[-1].end)} ({turns_said})"

    lead = f"{seconds_word(tenths(best))}"
    text = f"{lead}{cond}: " + "; ".join(one(r) for r in top) + "."
    if subject is not None and all(len(r) == 1 for r in runs):
        text += f" {_cap(res.describe[subject])} never spoke {times_word(2)} in a row, so that was a single turn."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res
