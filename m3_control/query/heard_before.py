"""Turns (people) of one room by people already heard in another: "how many turns in the garage came from people I had
already heard in the bedroom?", "in the office, how many turns were by people I had already heard in the hallway?",
"which people in the lab had I already heard in the kitchen?".

A room's turns are those begun while the robot was there (:func:`.robot_track.visits`). A turn counts where its
speaker had a turn in the other room that began before it. The answer gives the count, each person's share and the
turns by people not heard there before, checked against the executed result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, _join, check, phrase
from .result import QueryResult
from .robot_track import began_in, room_named, visits
from .words import cap, the_place, times_word

_ROOM = r"(?:the\s+|my\s+)?(?P<{}>[a-z]+(?:\s+room)?)"
_KNOWN = r"(?:people|persons|speakers|voices|those|someone|somebody|anyone|ones?)\s+(?:(?:that|who|whom)\s+)?" \
         r"(?:(?:I|we)\s+(?:had\s+|have\s+|did\s+)?(?P<neg>not\s+|never\s+)?(?:already\s+|previously\s+|earlier\s+|" \
         r"before\s+|yet\s+)?(?:heard|met|hear)|" \
         r"(?:had|have)\s+(?:already\s+|previously\s+|earlier\s+)?(?:spoken|talked|been\s+heard))\s+" \
         r"(?:before\s+)?(?:in|at)\s+" + _ROOM.format("src")
_TURNS = re.compile(rf"^\W*how\s+many\s+(?P<what>turns|times|utterances|sentences|people|persons|speakers)\b[^?]*?"
                    rf"\b(?:from|by|of|came\s+from|were\s+by|belonged\s+to)\s+{_KNOWN}\b", re.IGNORECASE)
# "was every turn in the porch by someone I had already heard in the lab?", "were all the turns in the kitchen by people
# I had already heard in the porch?": the count asked yes or no
_EVERY = re.compile(rf"^\W*(?:was|were)\s+(?:every|each|all(?:\s+(?:of\s+)?the)?)\s+(?:turns?|utterances?|sentences?)\b"
                    rf"[^?]*?\b(?:by|from)\s+{_KNOWN}\b", re.IGNORECASE)
_WHICH = re.compile(rf"^\W*(?:who|which\s+(?:people|persons|speakers|of\s+the\s+people)|how\s+many\s+(?:people|"
                    rf"persons|speakers))\b[^?]*?\b(?:had\s+(?:I|we)\s+"
                    rf"(?:already\s+|previously\s+)?(?:heard|met)|(?:I|we)\s+had\s+(?:already\s+)?(?:heard|met))\s+"
                    rf"(?:before\s+)?(?:in|at)\s+{_ROOM.format('src')}\b", re.IGNORECASE)


@dataclass(frozen=True)
class HeardBeforeAsk:
    target: str       # the room whose turns are counted (as written)
    source: str       # the room they had been heard in before
    people: bool      # count (name) the people, not their turns
    every: bool = False   # "was every turn ...?": yes or no
    new: bool = False     # "... from people I had not heard in the X": the turns of people not heard there (before)
    ever: bool = False    # "... people I never heard in the X": not heard there at any time, before or after


def asks_heard_before(question: str) -> HeardBeforeAsk | None:
    m = _TURNS.search(question) or _WHICH.search(question) or _EVERY.search(question)
    if m is None:
        return None
    source = m.group("src")
    cut = max(question.rfind(" in ", 0, m.start("src")), question.rfind(" at ", 0, m.start("src")))
    rest = question[:cut] + " " + question[m.end("src"):]      # (the source room's "in the X" taken out)
    target = re.findall(r"\b(?:in|at)\s+(?:the\s+|my\s+)([a-z]+(?:\s+room)?)\b", rest, re.IGNORECASE)
    target = [t for t in target if t.lower() != source.lower()]
    if len(target) != 1:
        return None
    what = (m.groupdict().get("what") or "people").lower()
    neg = (m.groupdict().get("neg") or "").strip().lower()
    return HeardBeforeAsk(target[0], source, what in ("people", "persons", "speakers") and m.re is not _EVERY,
                          every=m.re is _EVERY, new=bool(neg), ever=neg == "never")


def prepare(q: Query) -> Query:
    """Everyone's voice turns (the rooms are the robot's track)."""
    return Query(find="who", act="spoke")


def answer(executor: QueryExecutor, q: Query, ask: HeardBeforeAsk,
           before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    stays = visits(executor.store, before_time)
    end = executor.store.perceived_until(before_time) or (turns[-1].end if turns else 0.0)
    target, source = (room_named((s[0] for s in stays), w) for w in (ask.target, ask.source))
    for got, words in ((target, ask.target), (source, ask.source)):
        if got is None:
            return f"I can't tell: I was never in a place called the {words.split()[0].lower()}.", res

    there = [e for e in turns if began_in(e, target, stays, end)]
    before = [e for e in turns if began_in(e, source, stays, end)]
    known_by = [e for e in there if any(x.character_id == e.character_id and (ask.ever or x.start < e.start)
                                        for x in before)]
    new = [e for e in there if e not in known_by]
    res.events = known_by + new + [e for e in res.events if e not in there]
    res.robot_places += [(a, p) for p, a, _ in stays if p in (target, source)]
    people = list(dict.fromkeys(e.character_id for e in known_by))
    others = list(dict.fromkeys(e.character_id for e in new))
    res.spoke = {c: sum(e.character_id == c for e in there) for c in people + others}
    res.value = (len(known_by), len(there), len(people), len(new))
    res.steps.append({"step": f"turns in the {target} by people heard in the {source} before",
                      "turns": len(known_by), "of": len(there)})
    src, dst = the_place(source), the_place(target)
    if not there:
        return f"I heard nobody in {dst}.", res
    each = _join([f"{res.describe[c]} ({times_word(res.spoke[c])})" for c in people])
    rest = _join([f"{res.describe[c]} ({times_word(res.spoke[c])})" for c in others])
    tail = f"; the other {len(new)} by people I had not heard in {src}: {rest}" if new else \
        f"; nobody new spoke in {dst}"
    if ask.new:
        which = f"I never heard in {src}" if ask.ever else f"I had not heard in {src} before"
        text = f"{len(new)} of the {len(there)} turns in {dst} came from people {which}" + \
            (f": {rest}" if new else "") + (f"; the other {len(known_by)} from people I had: {each}" if known_by
                                            else "") + "."
    elif ask.people:
        text = f"{len(people)} of the {len(set(people + others))} people I heard in {dst} I had already heard in " \
            f"{src}" + (f": {each}" if people else "") + (f"; not {rest}" if others else "") + "."
    elif not known_by:
        text = f"None of the {len(there)} turns in {dst} came from someone I had heard in {src}: {rest}."
    else:
        text = f"{len(known_by)} of the {len(there)} turns in {dst} came from people I had already heard in {src}: " \
            f"{each}{tail}."
    if ask.every:
        text = f"{'Yes' if not new else 'No'}: {text[0].lower()}{text[1:]}"
    text = cap(text)
    return (REFUSAL if check(text, res) else text), res
