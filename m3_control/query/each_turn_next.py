"""Who spoke right after (before) each of one person's turns: "who spoke right after each of C's turns?", "after
each turn of C's, who spoke next?", "who spoke just before every one of A's turns?"; and who did so most often ("who
replied to A most often?", "which person answered A most often?", "who spoke right after A most often?").

One frame selects everyone's voice turns (the question's window and place bound the person's turns, not their
neighbours); for each of the person's turns the next (previous) turn of anyone else's is found. The answer lists each
of their turns with its neighbour and sums up who it was how often.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, _cap, _join, check, phrase
from .result import QueryResult
from .turn_sequence import people_in
from .wording import QUOTED
from .words import times_word

_EACH = re.compile(r"\b(?:right\s+|immediately\s+|just\s+|directly\s+)?(?P<side>after|before|following|preceding)\s+"
                   r"(?:each|every|all)\s+(?:one\s+|single\s+)?(?:of\s+)?(?:x(?:'s|’s)\s+|the\s+)?(?:turns?|times?)\b|"
                   r"\b(?P<side2>after|before)\s+(?:each|every)\s+(?:single\s+)?(?:turn|time)\s+(?:of\s+x(?:'s|’s)?|x\s+"
                   r"(?:spoke|talked|took))\b", re.IGNORECASE)


# "who replied to A most often?", "who spoke right after A most often?": the most frequent neighbour
_REPLY = re.compile(r"\b(?:replied|responded|answered|reacted)\s+(?:to\s+)?x\b|\b(?:right|immediately|just|directly)\s+"
                    r"(?P<side>after|before)\s+x\b(?!['’]s)", re.IGNORECASE)
_RANK = re.compile(r"\b(?P<w>most|least)\s+(?:often|times|frequently)\b|\bthe\s+(?P<v>most|least)\b", re.IGNORECASE)


@dataclass(frozen=True)
class EachNextAsk:
    who: str
    after: bool
    rank: str = ""      # most | least: the person who was that neighbour most (least) often


def asks_each_next(question: str) -> EachNextAsk | None:
    people = people_in(question)
    if len(people) != 1:
        return None
    plain = QUOTED.sub(" x ", question)
    if not QUOTED.search(question):       # a name ("each of Ann's turns")
        plain = re.sub(rf"\b{re.escape(people[0])}\b", "x", plain)
    plain = re.sub(r"\bthe\s+(?:person|man|woman|one|speaker)\s+who\s+(?:said|says)\s+x\b", "x", plain,
                   flags=re.IGNORECASE)
    plain = re.sub(r"\bx\s+(['’]s)", r"x\1", plain)
    if not re.search(r"\b(?:who|whom|whose|which|what)\b", plain, re.IGNORECASE):
        return None
    r, k = _REPLY.search(plain), _RANK.search(plain)
    if r is not None and k is not None and re.match(r"^\W*(?:who|which)\b", plain, re.IGNORECASE):
        return EachNextAsk(people[0], (r.group("side") or "after").lower() == "after",
                           (k.group("w") or k.group("v")).lower())
    m = _EACH.search(plain)
    if m is None:
        return None
    side = (m.group("side") or m.group("side2")).lower()
    return EachNextAsk(people[0], side in ("after", "following"))


def prepare(q: Query) -> Query:
    """Everyone's voice turns (the person is the question's)."""
    return Query(find="who", act="spoke")


def answer(executor: QueryExecutor, q: Query, ask: EachNextAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(Query(find="who", act="spoke"), before_time)
    own = executor.run(Query(find="who", act="spoke", who=ask.who, place=q.place, from_=q.from_, to=q.to),
                       before_time)
    for r in (res, own):
        if r.status != "ok":
            return phrase(r), r
    cid = own.who["who"].character_id
    res.describe.update(own.describe)
    who = res.describe[cid]
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    mine = [e for e in turns if e.character_id == cid and any(e.id == o.id for o in own.events)]
    if not mine:
        return f"{_cap(who)} never spoke.", res
    word = "after" if ask.after else "before"
    pairs: list[tuple] = []
    for e in mine:
        i = turns.index(e)
        j = i + 1 if ask.after else i - 1
        n = turns[j] if 0 <= j < len(turns) else None
        pairs.append((e, n))
    found = [n for _, n in pairs if n is not None]
    res.events = mine + found + [e for e in res.events if e not in mine and e not in found]
    # (a reply is someone else's: their own next turn is listed, not counted as one)
    tally = Counter(n.character_id for n in found if not ask.rank or n.character_id != cid)
    res.value = (len(mine), *tally.values())
    res.steps.append({"step": f"the turn right {word} each of one person's turns", "turns": len(mine)})

    def one(e, n) -> str:  # noqa: ANN001
        if n is None:
            return f"at {res.say(e.start)}: nobody ({'the last turn' if ask.after else 'the first turn'})"
        return f"at {res.say(e.start)}: {res.describe[n.character_id]} (at {res.say(n.start)})"

    if ask.rank:
        return _ranked(res, tally, len(mine), who, word, ask.rank == "most")
    total = _join([f"{res.describe[c]} {times_word(k)}" for c, k in tally.most_common()])
    text = f"Right {word} each of {who}'s {len(mine)} turn{'s' if len(mine) != 1 else ''}: " + \
        "; ".join(one(e, n) for e, n in pairs) + (f". In all: {total}." if len(mine) > 1 and total else ".")
    return (REFUSAL if check(text, res) else text), res


def _ranked(res: QueryResult, tally: Counter, n: int, who: str, word: str, most: bool) -> tuple[str, QueryResult]:
    """"B spoke right after A most often: after 6 of A's 9 turns; then C 2 times."."""
    if not tally:
        return f"Nobody spoke right {word} {who}.", res
    best = (max if most else min)(tally.values())
    top = [c for c in tally if tally[c] == best]
    rest = sorted((c for c in tally if c not in top), key=lambda c: -tally[c] if most else tally[c])
    then = "; then " + ", ".join(f"{res.describe[c]} {times_word(tally[c])}" for c in rest) if rest else ""
    text = f"{_cap(_join([res.describe[c] for c in top]))} spoke right {word} {who} {'most' if most else 'least'} " \
           f"often: {word} {best} of their {n} turn{'s' if n != 1 else ''}{' each' if len(top) > 1 else ''}{then}."
    return (REFUSAL if check(text, res) else text), res
