"""Pairs of people by how often their turns came one right after the other: "which two people most often spoke one
right after the other?", "which pair of people most often took turns right after each other?", "which two speakers
least often followed each other?", "which two people never spoke one right after the other?" (every pair of the
people heard there with no such exchange, in either order).

One frame selects everyone's voice turns in the question's place and window (the model's frame keeps those); code
counts each two adjacent turns of two different people as one exchange of that pair, in either order. The answer
names the pair, how many times and in which order, the next pair after it, and is checked against the result like
any frame's.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query, voice_turns
from .named_ids import named_ids
from .phrase import REFUSAL, _cap, check, phrase
from .result import QueryResult
from .turn_sequence import people_in
from .words import times_word

_TWO = r"(?:two\s+(?:people|persons|speakers|voices)|pair(?:\s+of\s+(?:people|persons|speakers|voices))?|two)"
_OFTEN = r"(?:most|least|fewest)\b"
# "right after each other", "one after the other", "took turns", "back and forth", "in succession"
_ADJACENT = (r"(?:\b(?:one|each)\s+(?:(?:right|just|immediately|directly)\s+)?after\s+(?:the\s+)?other\b|"
             r"\b(?:right|just|immediately|directly)?\s*after\s+(?:each\s+other|one\s+another)\b|"
             r"\b(?:took|take|taking)\s+turns\b|\bback[\s-]+and[\s-]+forth\b|\bback[\s-]+to[\s-]+back\b|"
             r"\bin\s+succession\b|\bconsecutively\b|\b(?:followed|follow)\s+(?:each\s+other|one\s+another)\b|"
             r"\balternated\b)")
_PAIR = re.compile(rf"^\W*(?:which|what)\s+{_TWO}\b[^?]*?\b{_OFTEN}[^?]*?{_ADJACENT}|"
                   rf"^\W*(?:which|what)\s+{_TWO}\b[^?]*?{_ADJACENT}[^?]*?\b{_OFTEN}|"
                   rf"^\W*who\s+(?:most|least)\s+often\s+(?:spoke|talked)\s+{_ADJACENT}", re.IGNORECASE)
_NEVER = re.compile(rf"^\W*(?:which|what)\s+{_TWO}\b[^?]*?\bnever\b[^?]*?(?:{_ADJACENT}|\b(?:right|just|"
                    r"immediately|directly)\s+after\s+(?:the\s+)?other\b)", re.IGNORECASE)


@dataclass(frozen=True)
class PairsAsk:
    least: bool = False     # the pair that least often followed each other (of the pairs that ever did)
    never: bool = False     # every pair that never did
    people: tuple[str, ...] = ()   # "how many times did A and B go back and forth?": that pair's exchanges


def asks_pairs(question: str) -> PairsAsk | None:
    """A question for the pair of people whose turns most (least) often came one right after the other, else None."""
    quoted, named = quotes_of(question), people_in(question)
    if len(named) == 2 and re.match(r"^\W*how\s+(?:many\s+times|often)\b", question, re.IGNORECASE) and \
            re.search(_ADJACENT, question, re.IGNORECASE):
        return PairsAsk(people=tuple(named))
    if quoted:
        return None
    if _NEVER.search(question):
        return PairsAsk(never=True)
    m = _PAIR.search(question)
    if m is None:
        return None
    return PairsAsk(least=bool(re.search(r"\b(?:least|fewest)\b", question, re.IGNORECASE)))


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's place and window."""
    return voice_turns(q)


def answer(executor: QueryExecutor, q: Query, ask: PairsAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.end, e.id))
    where = f" in the {q.place}" if q.place else ""
    near = [(a, b) for a, b in zip(turns, turns[1:], strict=False) if a.character_id != b.character_id]
    if not near:
        text = f"Nobody spoke right after someone else{where}." if turns else f"I heard nobody{where}."
        return text, res
    pairs = Counter(frozenset((a.character_id, b.character_id)) for a, b in near)
    ordered = Counter((a.character_id, b.character_id) for a, b in near)
    if ask.never:
        return _never(res, turns, pairs, near, where)
    if ask.people:
        return _one_pair(executor, res, near, ordered, ask, where, before_time)
    pick = min if ask.least else max
    best = pick(pairs.values())
    top = [p for p, n in pairs.items() if n == best]
    rest = sorted((p for p in pairs if p not in top), key=lambda p: pairs[p], reverse=not ask.least)
    res.value = tuple(sorted({*pairs.values(), *ordered.values(), len(near)}))     # (the figures the answer says)
    res.events = [e for a, b in near if frozenset((a.character_id, b.character_id)) in top for e in (a, b)]

    def names(p: frozenset) -> tuple[int, int]:
        a, b = sorted(p, key=lambda c: min(e.start for e in turns if e.character_id == c))
        return a, b

    def said(p: frozenset) -> str:
        a, b = names(p)
        d_a, d_b = res.describe[a], res.describe[b]
        ways = [f"{y} right after {x} {times_word(ordered[(i, j)])}" for (i, x), (j, y) in
                (((a, d_a), (b, d_b)), ((b, d_b), (a, d_a))) if ordered[(i, j)]]
        return f"{d_a} and {d_b} ({times_word(pairs[p])}: {', '.join(ways)})"

    word = "least" if ask.least else "most"
    lead = "; ".join(said(p) for p in top)
    many = " (a tie)" if len(top) > 1 else ""
    nxt = f"; next, {'; '.join(said(p) for p in rest if pairs[p] == pairs[rest[0]])}" if rest else ""
    text = _cap(f"{lead} spoke one right after the other {word} often{where}{many}, of {len(near)} changes of "
                f"speaker{nxt}.")
    return (REFUSAL if check(text, res) else text), res


def _never(res: QueryResult, turns: list, pairs: Counter, near: list, where: str) -> tuple[str, QueryResult]:
    """"A and C never spoke one right after the other (of 3 people heard, 5 changes of speaker); the other pairs
    did: A and B 3 times, B and C twice."."""
    people = list(dict.fromkeys(e.character_id for e in turns))
    every = [frozenset((a, b)) for i, a in enumerate(people) for b in people[i + 1:]]
    never = [p for p in every if not pairs[p]]
    res.value = tuple(sorted({len(never), len(people), len(near), *pairs.values()}))

    def both(p: frozenset) -> str:
        a, b = sorted(p, key=people.index)
        return f"{res.describe[a]} and {res.describe[b]}"

    did = "; ".join(f"{both(p)} {times_word(pairs[p])}" for p in sorted(pairs, key=lambda p: -pairs[p]))
    heard = f"of {len(people)} people heard{where}, {len(near)} changes of speaker"
    if not never:
        text = f"No two people: every pair of the {len(people)} people I heard{where} spoke one right after the " \
               f"other at least once ({did})."
    else:
        res.events = [e for e in turns if any(e.character_id in p for p in never)]
        text = f"{'; '.join(both(p) for p in never)} never spoke one right after the other ({heard})" + \
            (f"; the other pairs did: {did}." if did else ".")
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res


def _one_pair(executor: QueryExecutor, res: QueryResult, near: list, ordered: Counter, ask: PairsAsk, where: str,
              before_time: float | None) -> tuple[str, QueryResult]:
    """"A and B spoke one right after the other 11 times, of 13 changes of speaker: B right after A 6 times, A right
    after B 5 times."."""
    ids = named_ids(executor, Query(find="who", act="spoke"), ask.people, res, before_time)
    if isinstance(ids, QueryResult):     # (nobody said those words, or two people might be meant)
        return phrase(ids), ids
    a, b = ids
    if a == b:
        return f"{_cap(res.describe[a])} is one person: both quotes are theirs.", res
    ab, ba = ordered[(a, b)], ordered[(b, a)]
    res.value = (ab + ba, ab, ba, len(near))
    res.events = [e for x, y in near if {x.character_id, y.character_id} == {a, b} for e in (x, y)]
    da, db = res.describe[a], res.describe[b]
    text = f"{_cap(da)} and {db} spoke one right after the other {times_word(ab + ba)}{where}, of {len(near)} " \
           f"changes of speaker: {db} right after {da} {times_word(ab)}, {da} right after {db} {times_word(ba)}."
    return (REFUSAL if check(text, res) else text), res
