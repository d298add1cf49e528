"""People by the number of different minutes they spoke in: "which person spoke in the most different minutes?", "who
talked in the largest number of different minutes?", "who was heard in the fewest minutes?".

One frame selects everyone's voice turns in the question's place and window (the model's frame keeps those); code
counts, for each person, the minutes of the recording (0:00-1:00, 1:00-2:00, ...) in which one of their turns began
(a turn belongs to the minute it began in, as it belongs to the window it began in). The answer names the person (ties
said), their minutes and everyone else's, and is checked against the result like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query
from .phrase import REFUSAL, _cap, _join, check, conditions, phrase
from .result import QueryResult
from .turn_pairs import prepare  # (everyone's voice turns in the frame's place and window)
from .words import ordinal_word

_MOST = r"(?:most|largest\s+number\s+of|greatest\s+number\s+of|highest\s+number\s+of|biggest\s+number\s+of)"
_LEAST = r"(?:fewest|least|smallest\s+number\s+of|lowest\s+number\s+of)"
_MINUTES = re.compile(rf"^\W*(?:who|whom|which\s+(?:person|speaker|one|voice)(?:\s+of\s+them)?)\b[^?]*?\b"
                      rf"(?P<all>(?:in\s+)?(?:the\s+)?(?P<w>{_MOST}|{_LEAST})\s+(?:different\s+|distinct\s+|separate\s+)?minutes)\b",
                      re.IGNORECASE)


@dataclass(frozen=True)
class MinutesAsk:
    least: bool = False       # the fewest different minutes (of the people who spoke at all)


def asks_minutes_spoken(question: str) -> MinutesAsk | None:
    """A question that ranks people by the different minutes they spoke in, else None."""
    if quotes_of(question):
        return None
    m = _MINUTES.search(question)
    if m is None:
        return None
    return MinutesAsk(least=re.fullmatch(_LEAST, m.group("w"), re.IGNORECASE) is not None)


def check_question(question: str) -> str:
    """The question as the frame's checks read it: without its minutes ("in the fewest minutes" is no place)."""
    m = _MINUTES.search(question)
    return question if m is None else question[:m.start("all")] + " " + question[m.end("all"):]


def _minutes_said(minutes: list[int]) -> str:
    return _join([f"the {ordinal_word(m + 1)}" for m in minutes]) + (" minute" if len(minutes) == 1 else " minutes")


def answer(executor: QueryExecutor, q: Query, ask: MinutesAsk, before_time: float | None) -> tuple[str, QueryResult]:
    """"A spoke in the most different minutes: 2 (the first and the second minutes); B 1 (the first minute)."."""
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    cond = conditions(res)
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    if not turns:
        return f"I heard nobody speak{cond}.", res
    minutes: dict[int, list[int]] = {}
    for e in turns:
        own = minutes.setdefault(e.character_id, [])
        if int(e.start // 60) not in own:
            own.append(int(e.start // 60))
    counts = {c: len(m) for c, m in minutes.items()}
    best = min(counts.values()) if ask.least else max(counts.values())
    top = [c for c, n in counts.items() if n == best]
    res.events = [e for e in turns if e.character_id in top] + [e for e in res.events if e.character_id not in top]
    res.value = tuple(counts.values())
    res.steps.append({"step": "different minutes with a turn", "people": len(counts)})
    word = "fewest" if ask.least else "most"
    lead = _join([res.describe[c] for c in top])
    rest = "; ".join(f"{res.describe[c]} {counts[c]} ({_minutes_said(minutes[c])})" for c in counts if c not in top)
    tie = " each" if len(top) > 1 else ""
    same = all(minutes[c] == minutes[top[0]] for c in top)     # (the minutes said once where they are the same)
    mine = f"{best}{tie}" + (f" ({_minutes_said(minutes[top[0]])})" if same else "")
    if len(counts) == len(top) and len(top) > 1:
        text = f"Everyone who spoke{cond} spoke in as many different minutes: {mine}."
    else:
        text = f"{lead} spoke in the {word} different minutes{cond}: {mine}" + (f"; {rest}." if rest else ".")
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res
