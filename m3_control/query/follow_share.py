"""How many of one person's turns came right after (before) another's: "what share of B's turns followed directly after
a turn of A's?", "how many of B's turns came right after A spoke?", "what fraction of A's turns were followed directly
by B?", "what percentage of C's turns came just before one of A's?".

One frame selects everyone's voice turns (in the question's place and window: the first person's turns are counted
there, their neighbours wherever they were); for each of the first person's turns the turn heard right before it (after
it), anyone's, is looked at. The answer gives the count, the share and the turns, checked against the result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query, voice_turns
from .named_ids import scope_and_people
from .phrase import REFUSAL, _cap, check, conditions, phrase
from .result import QueryResult
from .turn_sequence import people_in
from .wording import QUOTED

_HOW = r"(?:how\s+many|what\s+(?:share|fraction|proportion|percentage|part|portion|percent)|which\s+(?:share|fraction))"
_NEXT = r"(?:right|directly|immediately|just|straight)"
# "what share of X's turns followed directly after a turn of Y's" (after), "... were directly followed by Y" (before)
_SHARE = re.compile(rf"^\W*{_HOW}\s+of\s+(?:all\s+)?(?:the\s+)?(?:person\s+who\s+said\s+)?x(?:'s|’s)\s+(?:own\s+)?"
                    rf"(?:turns|utterances|remarks)\b(?P<rest>[^?]*)", re.IGNORECASE)
_BY = re.compile(rf"\b(?:were|was|got)\s+(?:{_NEXT}\s+)?(?:followed|answered|replied\s+to)\s+(?:{_NEXT}\s+)?by\b|"
                 rf"\b(?:came|were|was|happened)\s+(?:{_NEXT}\s+)?before\b|\bpreceded\s+(?:{_NEXT}\s+)?(?:a|one|the|y)\b",
                 re.IGNORECASE)
_AFTER = re.compile(rf"\b{_NEXT}\s+(?:after|following)\b|\bfollowed\s+(?:{_NEXT}\s+)?(?:a|one|the|y)\b|"
                    rf"\b(?:were|was)\s+(?:{_NEXT}\s+)?preceded\s+by\b|\b(?:replied|responded|answered)\s+to\b",
                    re.IGNORECASE)


@dataclass(frozen=True)
class ShareAsk:
    counted: str     # whose turns are counted
    neighbour: str   # whose turn must come right before (after) them
    after: bool      # the counted turns come right after the neighbour's


def asks_share(question: str) -> ShareAsk | None:
    people = people_in(question)
    if len(people) != 2:
        return None
    plain = QUOTED.sub(" x ", question) if QUOTED.search(question) else \
        re.sub(rf"\b{re.escape(people[0])}\b", "x", question, count=1)
    plain = re.sub(r"\bthe\s+person\s+who\s+said\s+x", "x", plain, flags=re.IGNORECASE)
    plain = re.sub(r"\bx\s+(['’]s)", r"x\1", plain)
    m = _SHARE.search(plain)
    if m is None:
        return None
    rest = m.group("rest")
    if re.search(r"\b(?:first|last|final|second|third)\s+(?:turn|one|words)\b", rest, re.IGNORECASE):
        return None     # ("how many of B's turns came after A's last turn?": turns after a moment, not neighbours)
    if _BY.search(rest):
        return ShareAsk(people[0], people[1], after=False)
    if _AFTER.search(rest):
        return ShareAsk(people[0], people[1], after=True)
    return None


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's place and window."""
    return voice_turns(q)


def answer(executor: QueryExecutor, q: Query, ask: ShareAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res, ids = scope_and_people(executor, prepare(q), [ask.counted, ask.neighbour], before_time)
    if ids is None:
        return phrase(res), res
    mine_id, their_id = ids
    scoped = {e.id for e in res.events}
    every = executor.run(Query(find="who", act="spoke"), before_time)
    turns = sorted((e for e in every.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    mine = [e for e in turns if e.character_id == mine_id and e.id in scoped]
    hits = []
    for e in mine:
        i = turns.index(e)
        j = i - 1 if ask.after else i + 1
        if 0 <= j < len(turns) and turns[j].character_id == their_id:
            hits.append((e, turns[j]))
    me, them, cond = res.describe[mine_id], res.describe[their_id], conditions(res)
    res.events = [x for pair in hits for x in pair] + [e for e in mine if not any(e is p[0] for p in hits)]
    if not mine:
        return _cap(f"I did not hear {me} speak{cond}."), res
    pct = round(100 * len(hits) / len(mine))
    res.value = (len(hits), len(mine), pct)
    side = "right after" if ask.after else "right before"
    each = "; ".join(f"{res.say(e.start)} ({'after' if ask.after else 'before'} {them}'s at {res.say(o.start)})"
                     for e, o in hits)
    text = f"{len(hits)} of {me}'s {len(mine)} turns{cond} ({pct} %) came {side} a turn of {them}'s" + \
        (f": {each}." if hits else ".")
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res
