"""The people who had not spoken yet at a moment: "who hadn't spoken yet when I entered the lab?", "how many people
had not talked yet by 1:00?", "who was yet to speak when A first spoke?", "who talked only after I entered the
porch?".

A frame selects turns in a window; "not yet" is everyone heard (up to the question's now) less those heard before
the moment, so this runs both frames and takes the difference in code. The moment is the frame's, as the checks
set it from the question (a move of the robot, a clock time, someone's turn): its ``at``, else the start of its
window, else its end ("by 1:00"). Each person named is stated with their first words after the moment, from the
executed result.

The people first heard in a place ("who spoke for the first time in the garden?", "which new voices did I hear in
the garden?"): everyone's first turn, kept where it was in that place.
"""

from __future__ import annotations

import re
from dataclasses import replace

from m3_memory.store.where import find_place, load_places

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, _cap, _join, check, phrase
from .result import QueryResult

_SPOKEN = r"(?:spoken|talked|said\s+(?:anything|a\s+word)|been\s+heard)"
_NOT = r"(?:(?:had|has|have)\s*n[o']?t|(?:had|has|have)\s+not)"
_NOT_YET = re.compile(
    # "who hadn't spoken yet", "who had not yet talked", "who was yet to speak", "who hadn't spoken by 1:00" (a moment
    # must follow: "who has not spoken in the kitchen?" asks for a place, not a moment)
    rf"\b{_NOT}\s+(?:yet\s+{_SPOKEN}|{_SPOKEN}\s+yet)\b|\bnot\s+yet\s+{_SPOKEN}\b|"
    rf"\b{_NOT}\s+{_SPOKEN}\s+(?:by|when|before|at\s+the\s+time)\b|"
    r"\byet\s+to\s+(?:speak|talk|say\s+anything|be\s+heard)\b|"
    r"\b(?:did\s*n[o']?t|did\s+not)\s+(?:speak|talk|say\s+anything)\s+(?:at\s+all\s+)?until\b|"
    # "who talked only after I entered the porch?": first heard after the moment ("only once" is one time)
    r"\b(?:spoke|talked|spoken|talk|speak|was\s+heard|hear|heard)\s+only\s+(?:after|since)\b|"
    r"\bonly\s+(?:started|began)\s+(?:to\s+)?(?:speak|talk|speaking|talking)\b|"
    # "who was the first person I heard for the first time after entering the bedroom?": first heard after a move
    r"\bfor\s+the\s+(?:very\s+)?first\s+time\s+(?:after|since|once|upon|when)\s+(?:(?:I|we)\s+(?:had\s+)?(?:first\s+)?"
    r"(?:entered|arrived|got|came|went|walked|reached|moved)|(?:entering|arriving|getting|coming|reaching|walking|"
    r"moving))\b", re.IGNORECASE)
# "the second person I heard for the first time ...": one of them, by when they first spoke
_NTH = re.compile(r"\bthe\s+(?P<n>first|second|third|fourth|fifth|last)\s+(?:new\s+)?(?:person|one|voice|speaker|"
                  r"people)\b", re.IGNORECASE)
_NTH_WORD = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1}


def nth_of(question: str) -> int | None:
    """"Who was the second person I first heard ...?" -> 2 (-1: the last); None when it asks for all of them."""
    m = _NTH.search(question)
    return _NTH_WORD[m.group("n").lower()] if m else None


def _nth_said(merged: QueryResult, everyone: QueryResult, new: list, n: int, lead: str, where: str) -> str:
    """"The second of them was B (at 00:12); all in order: A (at 00:07), B (at 00:12)." or that there were fewer."""
    said = _with_first_times(merged, everyone, new, "at ")
    word = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", -1: "last"}[n]
    if not new:
        return f"Nobody: {lead}"
    i = n - 1 if n > 0 else len(new) - 1
    if i >= len(new):
        return f"There was no {word}: I first heard only {_join(said)} {where}."
    merged.events = [new[i].events[0]] + [e for e in merged.events if e is not new[i].events[0]]
    rest = f"; in order: {_join(said)}" if len(new) > 1 else ""
    return f"The {word} person I first heard {where} was {said[i]}{rest}."
_ASKS = re.compile(r"^\W*(?:who|which|how\s+many|name|list|tell\s+me\s+who)\b", re.IGNORECASE)
_COUNT = re.compile(r"^\W*how\s+many\b", re.IGNORECASE)


def asks_not_yet(question: str) -> str | None:
    """"who" or "count" when the question asks for the people not heard yet at a moment, else None."""
    if not (_NOT_YET.search(question) and _ASKS.match(question)):
        return None
    return "count" if _COUNT.match(question) else "who"


def prepare(q: Query) -> Query:
    """The model's frame as the people heard (its moment kept: :func:`answer` reads it)."""
    return replace(q, find="who", act="spoke", who=None, pick=None, times=None, count=None, by=None, top=None,
                   measure=None)


def answer(executor: QueryExecutor, q: Query, kind: str, before_time: float | None,
           nth: int | None = None) -> tuple[str, QueryResult]:
    """(the answer, everyone's result with the moment as its end: the turns it names are its provenance)."""
    moment = q.at or q.from_ or q.to
    if q.rel and q.other:   # "when A first spoke": the other's turn is the moment (rel kept: before it)
        before = executor.run(replace(q, rel="before", at=None, from_=None, to=None, place=None), before_time)
    elif moment is None:
        return REFUSAL, executor.run(replace(q, at=None, from_=None, to=None), before_time)
    else:
        before = executor.run(replace(q, at=None, from_=None, to=moment, rel=None, other=None, place=None),
                              before_time)
    everyone = executor.run(replace(q, at=None, from_=None, to=None, rel=None, other=None, place=None), before_time)
    for res in (before, everyone):
        if res.status != "ok":
            return phrase(res), res
    heard = {p.character_id for p in before.people}
    if before.anchor is not None:   # the person whose turn is the moment was speaking then
        heard.add(before.anchor.character_id)
    later = sorted((p for p in everyone.people if p.character_id not in heard and p.events),
                   key=lambda p: p.events[0].start)
    at = before.anchor.start if before.anchor is not None else before.read(moment)
    when = everyone.say(at) if at is not None else "then"
    merged = replace(everyone)
    merged.query = replace(everyone.query, to=moment) if moment else everyone.query
    merged.people = later
    merged.events = [p.events[0] for p in later]
    merged.steps = [{"step": "heard, less heard before the moment", "frames": [r.query.compact() for r in
                                                                              (everyone, before)]}] + \
        everyone.steps + before.steps
    if before.anchor is not None:
        merged.anchor = before.anchor
    merged.value = len(later)
    firsts = _with_first_times(merged, everyone, later, "first at ")
    if nth is not None and kind == "who":
        text = _nth_said(merged, everyone, later, nth, f"everyone I heard had spoken by {when}.", f"after {when}")
    elif kind == "count":
        text = f"{len(later)}: by {when} I had not yet heard {_join(firsts)}." if later else \
            f"None: everyone I heard had spoken by {when}."
    else:
        text = f"By {when} I had not yet heard {_join(firsts)}." if later else \
            f"Everyone I heard had spoken by {when}."
    if check(text, merged):
        return REFUSAL, merged
    return _cap(text), merged


# "who spoke for the first time in the garden?", "which new voices did I hear in the garden?", "whose first words
# were in the garden?": the people whose very first words were there
_FIRST_IN_PLACE = re.compile(
    r"^\W*(?:who|whom|whose|which|name|list|how\s+many|tell\s+me\s+who)\b[^?]*?(?:\bfor\s+the\s+(?:very\s+)?first\s+"
    r"time\s+(?:(?:while|when)\s+(?:I\s+was\s+|we\s+were\s+)?)?(?:in|at)\b|\bnew\s+(?:voices?|people|persons?|speakers?)\b[^?]*?\b(?:in|at)\b|\bfirst\s+words\s+"
    r"(?:were|was)\s+(?:in|at)\b)", re.IGNORECASE)


# "whose last turn was in the porch?", "which people spoke for the last time in the garden?": the mirror, the people
# whose very last words were there
_LAST_IN_PLACE = re.compile(
    r"^\W*(?:who|whom|whose|which|name|list|how\s+many|tell\s+me\s+who)\b[^?]*?(?:\bfor\s+the\s+(?:very\s+)?"
    r"(?:last|final)\s+time\s+(?:(?:while|when)\s+(?:I\s+was\s+|we\s+were\s+)?)?(?:in|at)\b|\b(?:very\s+)?"
    r"(?:last|final)\s+(?:turns?|words|time\s+speaking)\s+(?:were|was|came|happened|took\s+place)\s+(?:in|at)\b)",
    re.IGNORECASE)


def asks_last_in_place(question: str) -> str | None:
    """"who" or "count" when the question asks for the people last heard in a place (their last turn there), else
    None."""
    if _LAST_IN_PLACE.match(question) is None or re.search(r"\b(?:i|we)\s+(?:last\s+)?(?:went|entered|arrived|got|"
                                                            r"came|walked|left)\b", question, re.IGNORECASE):
        return None
    return "count" if _COUNT.match(question) else "who"


def asks_first_in_place(question: str) -> str | None:
    """"who" or "count" when the question asks for the people first heard in a place, else None."""
    if _FIRST_IN_PLACE.match(question) is None or re.search(r"\b(?:i|we)\s+(?:first\s+)?(?:went|entered|arrived|"
                                                             r"got|came|walked)\b|\b(?:last|latest|final|most\s+"
                                                             r"recent)\s+new\b", question, re.IGNORECASE):
        return None    # ("who spoke when I entered the garden for the first time?": a move of the robot's; "the last
        # new voice in the kitchen" is one person, turn_sequence.py)
    return "count" if _COUNT.match(question) else "who"


# "how many people did I hear for the first time after 0:20?", "who were the new voices after 1:00?"
_FIRST_AFTER = re.compile(r"^\W*(?:who|whom|which|name|list|how\s+many|tell\s+me\s+who)\b[^?]*?(?:\bfor\s+the\s+"
                          r"(?:very\s+)?first\s+time|\bnew\s+(?:voices?|people|persons?|speakers?))\s+(?:after|since|from)\s+"
                          r"(?P<t>\d{1,2}:[0-5]\d)\b", re.IGNORECASE)


def asks_first_after(question: str) -> tuple[str, str] | None:
    """("who" | "count", the clock) when the question asks for the people first heard after a time, else None."""
    m = _FIRST_AFTER.match(question)
    if m is None:
        return None
    return ("count" if _COUNT.match(question) else "who"), m.group("t")


def answer_first_after(executor: QueryExecutor, q: Query, kind: str, clock: str,
                       before_time: float | None) -> tuple[str, QueryResult]:
    """The people whose first turn (of all) began after the clock."""
    everyone = executor.run(replace(prepare(q), at=None, from_=None, to=None, rel=None, other=None, place=None),
                            before_time)
    if everyone.status != "ok":
        return phrase(everyone), everyone
    t = everyone.read(clock)
    if t is None:
        return REFUSAL, everyone
    new = [p for p in everyone.people if p.events and p.events[0].start >= t]
    merged = replace(everyone)
    merged.people, merged.events, merged.value = new, [p.events[0] for p in new], len(new)
    merged.query = replace(everyone.query, from_=clock)
    said = _with_first_times(merged, everyone, new, "at ")
    when = everyone.say(t)
    if kind == "count":
        text = f"{len(new)}: I first heard {_join(said)} after {when}." if new else \
            f"None: everyone I heard after {when} had spoken before it."
    else:
        text = f"I first heard {_join(said)} after {when}." if new else \
            f"Nobody: everyone I heard after {when} had spoken before it."
    return (REFUSAL if check(text, merged) else _cap(text)), merged


def prepare_place(q: Query) -> Query:
    """The model's frame as the people heard in its place (the place kept: :func:`answer_first_in_place` reads it)."""
    return replace(prepare(q), at=None, from_=None, to=None, rel=None, other=None)


def answer_first_in_place(executor: QueryExecutor, q: Query, kind: str, before_time: float | None,
                          nth: int | None = None, last: bool = False) -> tuple[str, QueryResult]:
    """(the answer, a result naming the people whose first turn (``last``: last turn) was in the place, with those
    turns)."""
    if q.place is None:
        return REFUSAL, executor.run(q, before_time)
    there = executor.run(q, before_time)
    everyone = executor.run(replace(q, place=None), before_time)
    for res in (there, everyone):
        if res.status != "ok":
            return phrase(res), res
    place = find_place(load_places(executor.store), q.place)
    name = place.name if place is not None else q.place
    if last:
        return _last_in_place(executor, everyone, there, name, kind)
    firsts = [p.events[0] for p in everyone.people if p.events]
    executor.place_turns(everyone, firsts)
    new = sorted((p for p in everyone.people if p.events and everyone.places.get(p.events[0].id) == name),
                 key=lambda p: p.events[0].start)
    merged = replace(everyone)
    merged.people, merged.events, merged.value = new, [p.events[0] for p in new], len(new)
    merged.steps = [{"step": "heard, whose first turn was in the place", "frames": [r.query.compact() for r in
                                                                                    (everyone, there)]}] + \
        everyone.steps + there.steps
    said = _with_first_times(merged, everyone, new, "at ")
    opener = min(there.people, key=lambda p: p.first, default=None)
    if nth is not None and kind == "who":
        text = _nth_said(merged, everyone, new, nth, f"everyone I heard in the {name} had spoken before.",
                         f"in the {name}")
    elif kind == "count":
        text = f"{len(new)}: I first heard {_join(said)} in the {name}." if new else \
            f"None: everyone I heard in the {name} had spoken before."
    else:
        text = f"I first heard {_join(said)} in the {name}." if new else \
            f"Nobody: everyone I heard in the {name} had spoken before."
    if opener is not None and all(p.character_id != opener.character_id for p in new):
        # ("who spoke for the first time in the garden?" may mean the first to speak there)
        merged.events = merged.events + [opener.events[0]]
        text += f" The first to speak there was {merged.describe.get(opener.character_id, opener.description)} " \
            f"(at {everyone.say(opener.first)}), whom I had heard before."
    if check(text, merged):
        return REFUSAL, merged
    return _cap(text), merged


def _last_in_place(executor: QueryExecutor, everyone: QueryResult, there: QueryResult, name: str,
                   kind: str) -> tuple[str, QueryResult]:
    """The people whose last turn (of all) was in the place, each with its time; the people heard there who spoke
    again elsewhere said too (with where they last spoke)."""
    lasts = [p.events[-1] for p in everyone.people if p.events]
    executor.place_turns(everyone, lasts)
    gone = sorted((p for p in everyone.people if p.events and everyone.places.get(p.events[-1].id) == name),
                  key=lambda p: p.events[-1].start)
    merged = replace(everyone)
    merged.people, merged.events, merged.value = gone, [p.events[-1] for p in gone], len(gone)
    merged.steps = [{"step": "heard, whose last turn was in the place", "frames": [r.query.compact() for r in
                                                                                   (everyone, there)]}] + \
        everyone.steps + there.steps
    said = [f"{merged.describe.get(p.character_id, p.description)} (last at {everyone.say(p.events[-1].start)})"
            for p in gone]
    again = [p for p in there.people if all(p.character_id != g.character_id for g in gone)]
    later = [next(x for x in everyone.people if x.character_id == p.character_id) for p in again]
    merged.events = merged.events + [x.events[-1] for x in later]
    others = _join([f"{merged.describe.get(x.character_id, x.description)} (last at {everyone.say(x.events[-1].start)}"
                    + (f" in the {everyone.places[x.events[-1].id]}" if everyone.places.get(x.events[-1].id) else "")
                    + ")" for x in later])
    if kind == "count":
        text = f"{len(gone)}: {_join(said)} spoke for the last time in the {name}." if gone else \
            f"None: everyone I heard in the {name} spoke again after it."
    else:
        text = f"{_join(said)} spoke for the last time in the {name}." if gone else \
            f"Nobody: everyone I heard in the {name} spoke again after it."
    if later:
        text += f" Heard there too but speaking again elsewhere: {others}."
    if check(text, merged):
        return REFUSAL, merged
    return _cap(text), merged


def _with_first_times(merged: QueryResult, everyone: QueryResult, people: list, lead: str) -> list[str]:
    """Each person as the answer names them, with the time of their first turn ("Ann (first at 00:02)")."""
    return [f"{merged.describe.get(p.character_id, p.description)} ({lead}{everyone.say(p.events[0].start)})"
            for p in people]
