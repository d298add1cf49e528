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
from .named_ids import named_ids
from .phrase import REFUSAL, _cap, _join, check, conditions, phrase
from .result import QueryResult
from .turn_pairs import prepare  # (everyone's voice turns in the frame's place and window)
from .turn_sequence import people_in
from .words import ordinal_word

_MOST = r"(?:most|largest\s+number\s+of|greatest\s+number\s+of|highest\s+number\s+of|biggest\s+number\s+of)"
_LEAST = r"(?:fewest|least|smallest\s+number\s+of|lowest\s+number\s+of)"
_MINUTES = re.compile(rf"^\W*(?:who|whom|which\s+(?:person|speaker|one|voice)(?:\s+of\s+them)?)\b[^?]*?\b"
                      rf"(?P<all>(?:in\s+)?(?:the\s+)?(?P<w>{_MOST}|{_LEAST})\s+(?:different\s+|distinct\s+|separate\s+)?minutes)\b",
                      re.IGNORECASE)


@dataclass(frozen=True)
class MinutesAsk:
    least: bool = False       # the fewest different minutes (of the people who spoke at all)
    kind: str = "rank"        # rank | every (who spoke in every minute) | silent (minutes without speech) |
    #                           together (a minute in which the named people all spoke)
    people: tuple[str, ...] = ()   # together: the people named


# "which person did I hear in every minute of the recording?", "who spoke in every single minute?"
_EVERY = re.compile(r"^\W*(?:who|whom|which\s+(?:person|speaker|people|speakers))\b[^?]*?\b(?:in|during)\s+"
                    r"(?:each|every)\s+(?:single\s+)?minute\b", re.IGNORECASE)
# "how many minutes had no speech at all?", "how many of the minutes were completely silent?"
_SILENT = re.compile(r"^\W*how\s+many\s+(?:of\s+the\s+)?minutes\b[^?]*?\b(?:no\s+(?:speech|talking|one\s+speaking|"
                     r"words)|silent|quiet|without\s+(?:any\s+)?(?:speech|talking|words))", re.IGNORECASE)
# "was there a minute in which A, B and C all spoke?", "was there any minute when both A and B talked?"
_TOGETHER = re.compile(r"\b(?:a|any|one)\s+(?:single\s+)?minute\s+(?:in\s+which|when|where|during\s+which)\b[^?]*?"
                       r"\b(?:all|both|each)\b[^?]*?\b(?:spoke|talked|speak|talk|said\s+something)\b", re.IGNORECASE)


def asks_minutes_spoken(question: str) -> MinutesAsk | None:
    """A question that ranks people by the different minutes they spoke in, else None."""
    quoted = quotes_of(question)
    named = people_in(question)      # (their words or their names)
    if len(named) >= 2 and _TOGETHER.search(question):
        return MinutesAsk(kind="together", people=tuple(named))
    if quoted:
        return None
    if _EVERY.search(question):
        return MinutesAsk(kind="every")
    if _SILENT.search(question):
        return MinutesAsk(kind="silent")
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
    if ask.kind != "rank":
        return _whole_minutes(executor, res, turns, ask, before_time)
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


def _whole_minutes(executor: QueryExecutor, res: QueryResult, turns: list, ask: MinutesAsk,
                   before_time: float | None) -> tuple[str, QueryResult]:
    """The recording's minutes (0:00-1:00, ..., the last one as far as it went): who spoke in every one, how many had
    no speech in them at all, or whether the named people all spoke in one of them."""
    end = executor.store.perceived_until(before_time) or (max(e.end for e in turns) if turns else 0.0)
    n = max(1, int(-(-end // 60)))
    began: dict[int, set[int]] = {m: set() for m in range(n)}
    for e in turns:
        began.setdefault(int(e.start // 60), set()).add(e.character_id)
    res.steps.append({"step": "the recording's minutes", "minutes": n})
    if ask.kind == "silent":
        heard = {m for m in range(n) if any(e.start < (m + 1) * 60 and e.end > m * 60 for e in turns)}
        quiet = [m for m in range(n) if m not in heard]
        res.value = (len(quiet), n)
        text = f"{len(quiet)} of the {n} minutes of the recording had no speech at all" + \
            (f": {_minutes_said(quiet)}." if quiet else ": someone spoke in every one.")
        return (REFUSAL if check(_cap(text), res) else _cap(text)), res
    if ask.kind == "every":
        people = list(dict.fromkeys(e.character_id for e in turns))
        every = [c for c in people if all(c in began[m] for m in range(n))]
        res.value = (n,)
        res.events = [e for e in turns if e.character_id in every] + [e for e in res.events if e.character_id not in
                                                                        every]
        rest = "; ".join(f"{res.describe[c]} in {_minutes_said(sorted(m for m in range(n) if c in began[m]))}"
                         for c in people if c not in every)
        head = f"{_cap(_join([res.describe[c] for c in every]))} spoke in every minute of the recording (all {n})" if \
            every else f"Nobody spoke in every minute of the recording (all {n})"
        text = head + (f"; {rest}." if rest else ".")
        return (REFUSAL if check(text, res) else text), res
    ids = named_ids(executor, Query(find="who", act="spoke"), ask.people, res, before_time)
    if isinstance(ids, QueryResult):     # (nobody said those words, or two people might be meant)
        return phrase(ids), ids
    shared = [m for m in range(n) if all(c in began.get(m, set()) for c in ids)]
    res.value = (len(shared),)
    names = _join([res.describe[c] for c in ids])
    res.events = [e for e in turns if int(e.start // 60) in shared and e.character_id in ids] + \
        [e for e in res.events if not (int(e.start // 60) in shared and e.character_id in ids)]
    if shared:
        text = f"Yes: {names} all spoke in {_minutes_said(shared)}."
    else:
        each = "; ".join(f"{res.describe[c]} in {_minutes_said(sorted(m for m in began if c in began[m]))}"
                         for c in ids)
        text = f"No, there was no minute in which {names} all spoke: {each}."
    return (REFUSAL if check(text, res) else text), res
