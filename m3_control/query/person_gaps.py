"""The longest time one person went without speaking: "what was the longest time B went without speaking?", "what
was the longest stretch between two of A's turns?", "how long was A's longest break?".

Code takes the person's voice turns in the frame's place and window, and measures the silences between two of
their turns (the end of one to the start of the next: others may speak in between). The answer gives the longest,
with its clock times; where the stretch after their last turn (to the end of what the memory holds) or before their
first is longer, it says that too, since "went without speaking" may mean it. Not the silences of everyone
(silences.py: "what was the longest pause?"), not the time between two people's turns (the frame's ``gap``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, _cap, check, conditions, phrase
from .result import QueryResult
from .turn_sequence import people_in
from .wording import QUOTED
from .words import seconds_word

_OWN = r"(?:[^?]*?(?:'s|’s)\s+|their\s+|his\s+|her\s+)"
_GAP_FORMS = (
    # "the longest time B went without speaking", "the longest A went without talking", "longest A stayed quiet"
    re.compile(r"\b(?:longest|most)\b[^?]*?\b(?:went|gone|go|stayed|stay|was|were|remained)\s+(?:without\s+(?:speaking|"
               r"talking|saying\s+anything)|quiet|silent)\b", re.IGNORECASE),
    # "the longest stretch (gap, pause, silence, break) between two of A's turns", "A's longest break"
    re.compile(rf"\b(?:longest|biggest|largest)\s+(?:stretch|gap|pause|silence|break|wait|interval)\s+between\s+"
               rf"(?:two\s+of\s+|any\s+two\s+of\s+){_OWN}(?:turns|words|utterances)\b", re.IGNORECASE),
    re.compile(rf"{_OWN}(?:longest|biggest|largest)\s+(?:stretch\s+of\s+silence|gap|pause|silence|break)\b",
               re.IGNORECASE),
)


@dataclass(frozen=True)
class GapAsk:
    who: str      # the person (their words, or a name)


def asks_person_gap(question: str) -> GapAsk | None:
    """The longest time one named person went without speaking, else None."""
    people = people_in(question)
    if len(people) != 1:
        return None
    plain = QUOTED.sub(" x's ", question) if re.search(r"['’]s\b", question) else QUOTED.sub(" x ", question)
    if not any(f.search(plain) for f in _GAP_FORMS):
        return None
    return GapAsk(people[0])


def prepare(q: Query) -> Query:
    """The person's voice turns in the frame's place and window (the person is the question's)."""
    return Query(find="who", act="spoke", place=q.place, from_=q.from_, to=q.to)


def answer(executor: QueryExecutor, q: Query, ask: GapAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(replace(prepare(q), who=ask.who), before_time)
    if res.status != "ok":
        return phrase(res), res
    cid = res.who["who"].character_id
    who, cond = res.describe[cid], conditions(res)
    mine = sorted((e for e in res.events if e.kind == "voice" and e.character_id == cid), key=lambda e: e.start)
    if not mine:
        return f"{_cap(who)} never spoke{cond}.", res
    gaps = [(a, b) for a, b in zip(mine, mine[1:], strict=False) if b.start > a.end]
    end = executor.store.perceived_until(before_time) or mine[-1].end
    t2 = res.read(q.to)
    end = min(end, t2) if t2 is not None else end
    after = max(0.0, end - mine[-1].end)
    res.events = mine + [e for e in res.events if e not in mine]
    res.steps.append({"step": "one person's longest silence", "turns": len(mine)})
    res.value = (len(mine),)
    parts: list[str] = []
    longest = 0.0
    if gaps:
        a, b = max(gaps, key=lambda p: p[1].start - p[0].end)
        longest = b.start - a.end
        s = int(round(longest))
        res.seconds = {**res.seconds, -1: s}
        parts.append(f"The longest stretch between two of {who}'s turns{cond} was {seconds_word(s)}: from the end of "
                     f"their turn at {res.say(a.start)} to their next, at {res.say(b.start)}")
    else:
        parts.append(f"{_cap(who)} spoke only once{cond}, at {res.say(mine[0].start)}")
    if after > longest + 1:
        k = int(round(after))
        res.seconds = {**res.seconds, -2: k}
        parts.append(f"after their last turn (at {res.say(mine[-1].start)}) they did not speak again for the "
                     f"{seconds_word(k)} left of what I recorded")
    text = "; ".join(parts) + "."
    return (REFUSAL if check(text, res) else _cap(text)), res
