"""Whether any turn was longer (shorter) than a length: "was any turn in the porch longer than two seconds?", "did any
turn in the workshop last more than two seconds?" (how many were: the frame's ``by=turn times>N``), and whether the
longest (shortest) turn was: "was the shortest turn shorter than one second?" (any turn shorter), "was the shortest
turn longer than one second?" (every turn longer: the shortest said).

One frame selects the voice turns in the frame's place and window (:func:`.turn_gaps.prepare`: no window the question
does not say); a turn's length is its detected speech, start to end. The answer says yes with the turns that meet it,
or no with the longest (shortest) turn, checked against that result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, check, conditions, phrase
from .repair import time_of
from .result import QueryResult
from .turn_gaps import prepare
from .turn_sequence import people_in
from .words import AMOUNT, seconds_word, tenths

_TURN = r"(?:turns?|utterances?|sentences?|remarks?)"
_THAN = rf"(?:(?P<cmp>longer|shorter|more|less|under|over)\s+(?:than\s+)?(?P<n>{AMOUNT}))"
_ANY = re.compile(rf"^\W*(?:was|were|did|is)\s+(?:there\s+)?(?:any|a|some)\s+(?:single\s+)?{_TURN}\b[^?]*?"
                  rf"\b(?:last(?:ed)?\s+|take\s+|took\s+)?{_THAN}", re.IGNORECASE)

# "was the shortest turn shorter than one second?", "was the longest sentence longer than 3 seconds?"
_EXTREME = re.compile(rf"^\W*(?:was|is)\s+the\s+(?:very\s+)?(?P<w>longest|shortest|briefest)\s+(?:single\s+)?{_TURN}\b"
                      rf"[^?]*?\b(?:last(?:ed)?\s+|take\s+|took\s+)?{_THAN}", re.IGNORECASE)


@dataclass(frozen=True)
class LongTurnsAsk:
    seconds: float
    longer: bool      # longer than N (else shorter)
    extreme: str = ""  # "longest" / "shortest": that one turn against the length (its opposite side: every turn's)


def asks_long_turns(question: str) -> LongTurnsAsk | None:
    if people_in(question):
        return None
    m = _ANY.match(question)     # (how many turns were longer than N: the frame's by=turn times>N)
    if m is None:
        m = _EXTREME.match(question)
        if m is None or (n := time_of(m.group("n"))) is None:
            return None
        longer = m.group("cmp").lower() in ("longer", "more", "over")
        longest = m.group("w").lower() == "longest"
        return LongTurnsAsk(n, longer, "" if longer == longest else "longest" if longest else "shortest")
    if (n := time_of(m.group("n"))) is None:
        return None
    return LongTurnsAsk(n, m.group("cmp").lower() in ("longer", "more", "over"))


def answer(executor: QueryExecutor, q: Query, ask: LongTurnsAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    cond = conditions(res)
    if not turns:
        return f"I heard nobody speak{cond}.", res
    length = {e: e.end - e.start for e in turns}
    hits = [e for e in turns if (length[e] > ask.seconds if ask.longer else length[e] < ask.seconds)]
    word = "longer" if ask.longer else "shorter"
    limit = seconds_word(tenths(ask.seconds))
    res.value = (len(hits), len(turns))
    def shown(e) -> str:  # noqa: ANN001  ("just under 2 seconds" where tenths would read as the limit itself)
        if tenths(length[e]) == tenths(ask.seconds) and length[e] != ask.seconds:
            return f"just {'under' if length[e] < ask.seconds else 'over'} {limit}"
        return seconds_word(tenths(length[e]))

    res.seconds = {**res.seconds, -1: tenths(ask.seconds), **{-2 - i: tenths(length[e]) for i, e in enumerate(turns)}}
    res.steps.append({"step": f"turns {word} than {limit}", "turns": len(hits)})
    if ask.extreme:      # "was the shortest turn longer than 1 second?": that turn, whatever the others were
        e = (max if ask.extreme == "longest" else min)(turns, key=lambda x: length[x])
        res.events = [e] + [x for x in res.events if x is not e]
        yes = e in hits
        text = f"{'Yes' if yes else 'No'}: the {ask.extreme} of the {len(turns)} turns{cond} was {shown(e)} " \
            f"({res.describe[e.character_id]} at {res.say(e.start)}), {'' if yes else 'not '}{word} than {limit}."
        return (REFUSAL if check(text, res) else text), res
    if not hits:
        e = (max if ask.longer else min)(turns, key=lambda x: length[x])
        res.events = [e] + [x for x in res.events if x is not e]
        text = f"No: no turn{cond} was {word} than {limit}; the {'longest' if ask.longer else 'shortest'} of " \
            f"the {len(turns)} was {shown(e)} ({res.describe[e.character_id]} at " \
            f"{res.say(e.start)})."
        return (REFUSAL if check(text, res) else text), res
    res.events = hits + [e for e in res.events if e not in hits]
    each = "; ".join(f"{res.describe[e.character_id]} at {res.say(e.start)} ({shown(e)})"
                     for e in hits)
    were = "was" if len(hits) == 1 else "were"
    text = f"Yes, {len(hits)} of the {len(turns)} turns{cond} {were} {word} than {limit}: {each}."
    return (REFUSAL if check(text, res) else text), res
