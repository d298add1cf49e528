"""The turns on both sides of one person's turn, asked at once: "who spoke right before and right after A's first
turn?", "whose turns came immediately before and immediately after A first spoke?", "what was said just before and
just after B's last turn?".

One frame selects everyone's voice turns in the question's place and window; code orders them and takes the turn
before and the turn after the anchor (the person's first, n-th or last turn; each of their turns when the question
names none). A side with no turn is said as such (the anchor opened or closed the talk). The answer gives each
neighbour's speaker, time and words, checked against the result like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query, voice_turns
from .named_ids import scope_and_people
from .phrase import REFUSAL, _cap, check, phrase
from .result import QueryResult
from .turn_sequence import people_in
from .wording import ORDINAL_WORDS
from .words import ordinal_word

_NEXT = r"(?:right|just|immediately|directly)"
_BOTH = re.compile(rf"\b{_NEXT}\s+(?P<a>before|after)\s+and\s+(?:{_NEXT}\s+)?(?P<b>before|after)\b", re.IGNORECASE)
_NTH = re.compile(r"['’]s\s+(?P<o1>first|second|third|fourth|fifth|last|final)\s+(?:turn|words|time)\b|"
                  r"\b(?P<o2>first|last)\s+(?:spoke|talked|said\s+something)\b|\bspoke\s+for\s+the\s+"
                  r"(?P<o3>first|second|third|last|final)\s+time\b", re.IGNORECASE)


@dataclass(frozen=True)
class NeighboursAsk:
    person: str
    nth: int | None      # 1, 2, ...; -1 the last; None: each of their turns
    what: bool           # asked for the words ("what was said ...?"), else for the people (with their words)


def asks_neighbours(question: str) -> NeighboursAsk | None:
    m = _BOTH.search(question)
    if m is None or m.group("a").lower() == m.group("b").lower():
        return None
    people = people_in(question[m.end():])
    if len(people) != 1:
        return None
    o = _NTH.search(question[m.end():])
    word = next((g for g in (o.group("o1"), o.group("o2"), o.group("o3")) if g), "").lower() if o else ""
    nth = None if not word else -1 if word in ("last", "final") else ORDINAL_WORDS[word]
    return NeighboursAsk(people[0], nth, bool(re.match(r"^\W*what\b", question, re.IGNORECASE)))


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's place and window."""
    return voice_turns(q)


def answer(executor: QueryExecutor, q: Query, ask: NeighboursAsk,
           before_time: float | None) -> tuple[str, QueryResult]:
    res, ids = scope_and_people(executor, prepare(q), [ask.person], before_time)
    if ids is None:
        return phrase(res), res
    cid = ids[0]
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.end, e.id))
    mine = [i for i, e in enumerate(turns) if e.character_id == cid]
    who = res.describe.get(cid, ask.person)
    where = f" in the {q.place}" if q.place else ""
    if not mine:
        return f"I did not hear {who}{where}.", res
    if ask.nth is not None and ask.nth > len(mine):
        res.value = len(mine)
        return f"{_cap(who)} spoke only {len(mine)} time{'s' if len(mine) != 1 else ''}{where}: there was no " \
               f"{ordinal_word(ask.nth)} turn.", res
    chosen = mine if ask.nth is None else [mine[-1] if ask.nth == -1 else mine[ask.nth - 1]]

    def side(j: int, before: bool) -> str:
        if not 0 <= j < len(turns):
            return f"nobody{where} ({'it was the first turn' if before else 'it was the last turn'})"
        e = turns[j]
        return f"{res.describe[e.character_id]} (at {res.say(e.start)}: \"{e.text.strip().rstrip('.!?')}\")"

    parts, used = [], []
    for i in chosen:
        e = turns[i]
        word = ordinal_word(mine.index(i) + 1) if len(mine) > 1 else "only"
        if ask.nth == -1 or (len(mine) > 1 and i == mine[-1] and ask.nth is not None):
            word = "last"
        parts.append(f"right before {who}'s {word} turn ({res.say(e.start)}): {side(i - 1, True)}; right after it: "
                     f"{side(i + 1, False)}")
        used += [turns[j] for j in (i - 1, i, i + 1) if 0 <= j < len(turns)]
    res.events = list(dict.fromkeys(used)) + [e for e in res.events if e not in used]
    res.steps.append({"step": "the turns either side of the anchor", "anchors": [turns[i].id for i in chosen]})
    text = _cap("; ".join(parts) + ".")
    return (REFUSAL if check(text, res) else text), res
