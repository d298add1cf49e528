"""Forms of a question about places a frame must follow, whatever the model wrote: the busiest or quietest room
(or the one with the most people), a choice of two places ("in the hallway or in the bedroom?"), people in one place
but never in another, the room where someone was heard first, and a person given by rank in a place. Each found by
a blind probe of question kinds written before the scene was built (docs/benchmarks.md, stops 59-73)."""

from __future__ import annotations

import re
from dataclasses import replace

from .frame import Query, noted
from .polarity import EITHER_PLACE
from .wording import ORDINAL_WORDS

# "which was the busiest room?": the place with the most talk (a blind probe's search found no memory of it)
_BUSY = r"(?:busiest|liveliest|noisiest|quietest|most\s+(?:active|crowded|lively))"
BUSY_PLACE = re.compile(rf"\b{_BUSY}\s+(?:room|place|area|spot|part)\b|"
                         rf"\b(?:room|place|area|spot|part)\s+(?:was|is|had\s+been)\s+(?:the\s+)?{_BUSY}\b",
                         re.IGNORECASE)
# ... and "which room had the most people?", "which of the rooms had the fewest speakers?": people, not turns
_PEOPLE_WORDS = r"(most|fewest|least|more|fewer|(?:largest|greatest|highest|biggest|smallest|lowest)\s+number\s+of)" \
    r"\s+(?:different\s+|distinct\s+|separate\s+)?(people|persons|speakers|voices|faces)\b"
# ("did more people speak in the library or in the bedroom?": the two places' counts)
PLACE_PEOPLE = re.compile(r"^\W*(?:in\s+)?(?:which|what)\s+(?:of\s+the\s+)?(?:rooms?|places?)\b[^?]*\b" + _PEOPLE_WORDS
                          + r"|^\W*(?:did|were)\s+" + _PEOPLE_WORDS + r"[^?]*\bor\b", re.IGNORECASE)


def busiest_place(q: Query, plain: str, added: list[str]) -> Query:
    """"Which was the busiest room?" written as a count of people: the place with the most (quietest: the least)
    talk; "which room had the most people?": the most different people (``measure=people``)."""
    m = PLACE_PEOPLE.match(plain)
    if m is not None and not q.who and not q.other:
        word, who = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        pick = "most" if word.split()[0].lower() in ("most", "more", "largest", "greatest", "highest", "biggest") \
            else "least"
        act = {"speakers": "spoke", "voices": "spoke", "faces": "seen"}.get(who.lower()) or \
            ("spoke" if re.search(r"\b(?:speak|spoke|talk|talked)\b", plain, re.IGNORECASE) else None)
        new = Query(find="where", pick=pick, measure="people", act=act, from_=q.from_, to=q.to)
        return noted(q, new, added, f"find=where pick={pick} measure=people: the place with the {pick} people")
    m = BUSY_PLACE.search(plain)
    if m is None or q.who or q.other:
        return q
    pick = "least" if "quiet" in m.group(0).lower() else "most"
    new = replace(q, find="where", pick=pick, place=None, times=None, count=None, by=None)
    return noted(q, new, added, f"find=where pick={pick}: the question asks for the {m.group(0)!r}")


# "where did A speak first, the office or the lab?": the order word right before the offered places
_ORDER_BEFORE_CHOICE = re.compile(r"\b(first|earlier|last|later)\s*$", re.IGNORECASE)


def place_choice(q: Query, plain: str, known: list[str], added: list[str]) -> Query:
    """"Did A speak in the hallway or in the bedroom?": where A spoke (one, the other, both or neither), not a yes
    or no about one of the places; only when both are places the robot knows. "... or in the bedroom first?" and
    "where did A speak first, the office or the lab?": where A spoke first (last)."""
    m = EITHER_PLACE.search(plain)
    names = {k.lower(): k for k in known}
    if m is None or not all(g.lower() in names for g in (m.group("a"), m.group("b"))):
        return q
    said_before = _ORDER_BEFORE_CHOICE.search(plain[:m.start()]) if m.group("comma") else None
    order = (m.group("order") or (said_before.group(1) if said_before else "")).lower()
    pick = "first" if order in ("first", "earlier") else "last" if order else None
    new = replace(q, find="where", place=None, pick=pick, times=None, count=None, by=None,
                  other=None if not q.rel or q.rel == "same_place" else q.other,
                  rel=None if q.rel == "same_place" else q.rel, act=q.act or "spoke")
    return noted(q, new, added, "find=where: the question offers a choice of two places (where, each of them)")


# "who spoke in the garage but not in the workshop?", "... in the kitchen and never in the hallway?"
_BUT_NOT = re.compile(r"\bin\s+(?:the\s+)?(?P<p1>[a-z]+(?:\s+room)?)\s*,?\s+(?:but|and|yet)\s+(?:was\s+|were\s+)?"
                      r"(?:not|never)\s+(?:(?:heard|seen|spoke|speak|talked|talk|once|at\s+all|ever)\s+)*"
                      r"(?:in\s+)?(?:the\s+)?(?P<p2>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)


# "how many people did I hear in the kitchen that I had not heard in the porch?", "... in the lab who were never seen
# in the garage?"
_NOT_THERE = re.compile(r"\bin\s+(?:the\s+)?(?P<p1>[a-z]+(?:\s+room)?)\s*,?\s+(?:that|who|whom|which)\s+(?:I\s+|we\s+)?"
                        r"(?:(?:had|have|has|did|was|were|do|does)(?:n['’]t\b|\s+not\b|\s+never\b)|not\b|never\b)\s+"
                        r"(?:(?:heard|seen|spoken|spoke|speak|talked|talk|been|already|before|yet|ever|once)\s+)*"
                        r"in\s+(?:the\s+)?(?P<p2>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)


def place_difference(q: Query, plain: str, known: list[str], added: list[str]) -> Query:
    """People in one place who were never in another ("who spoke in the garage but not in the workshop?", "... in
    the kitchen that I had not heard in the porch?"): ``place`` the first, ``not_place`` the second (a place the robot
    does not know is declined by the query)."""
    m = _BUT_NOT.search(plain) or _NOT_THERE.search(plain)
    names = {k.lower(): k for k in known}
    if m is None or m.group("p1").lower() not in names:
        return q
    p1, p2 = names[m.group("p1").lower()], names.get(m.group("p2").lower(), m.group("p2"))
    if p1.lower() == p2.lower():
        return q
    # (the "not" is the other place's: a times=0 the model wrote for it goes)
    new = replace(q, place=p1, not_place=p2, times=None if q.times in ("=0", "<1", "<=0") else q.times)
    return noted(q, new, added, f"place={p1!r} not_place={p2!r}: in the one and never in the other")


# "who spoke in neither the garage nor the office?", "... was heard neither in the kitchen nor in the lab?"
_NEITHER = re.compile(r"\b(?:in\s+neither|neither\s+in)\s+(?:the\s+)?(?P<p1>[a-z]+(?:\s+room)?)\s*,?\s+nor\s+"
                      r"(?:in\s+)?(?:the\s+)?(?P<p2>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)


def place_neither(q: Query, plain: str, known: list[str], added: list[str]) -> Query:
    """People never in either of two places ("who spoke in neither the garage nor the office?"): ``not_place`` both
    (joined by "|"), no ``place`` (the model wrote one of them as the place, or a count of none)."""
    m = _NEITHER.search(plain)
    if m is None:
        return q
    names = {k.lower(): k for k in known}
    if not any(m.group(g).lower() in names for g in ("p1", "p2")):
        return q
    p1, p2 = (names.get(m.group(g).lower(), m.group(g)) for g in ("p1", "p2"))
    if p1.lower() == p2.lower():
        return q
    new = replace(q, place=None, not_place=f"{p1}|{p2}", act="spoke" if q.act in (None, "seen") else q.act,
                  times=None if q.times in ("=0", "<1", "<=0") else q.times)
    return noted(q, new, added, f"not_place={p1!r}|{p2!r}: never in either place")


# "what's the name of the room where I heard A first?", "which place did I first see A in?": where, not what A said
_ROOM_OF = re.compile(r"^\W*(?:what(?:'s|\s+is|\s+was)\s+the\s+name\s+of\s+)?(?:which|what|the)\s+(?:room|place)\b"
                      r"[^?]*?"
                      r"\b(?:(?:where|in\s+which)\s+)?(?:i|we)\s+(?:(first|last)\s+)?(heard|saw|met|noticed|spotted)\b"
                      r"(?:[^?]*?\b(first|last)\b)?", re.IGNORECASE)


def room_of_person(q: Query, plain: str, quoted: list[str], added: list[str]) -> Query:
    """"What's the name of the room where I heard A first?": the place of A's first (last) turn or appearance."""
    m = _ROOM_OF.match(plain)
    if m is None or len(quoted) != 1:
        return q
    pick = (m.group(1) or m.group(3) or "").lower() or None
    act = {"heard": "spoke", "saw": "seen", "spotted": "seen", "noticed": "seen"}.get(m.group(2).lower())
    new = Query(find="where", who=quoted[0], pick=pick, act=act, from_=q.from_, to=q.to)
    return noted(q, new, added, f"find=where who={quoted[0]!r}: the question asks for the room")


# "what did the first person in the office say?": a person given by rank in a place, which the model wrote as a
# person's description (who="first person in the office": nobody is known by those words)
_RANKED_IN_PLACE = re.compile(r"^\W*(?:the\s+)?(?:very\s+)?(first|last|final|second|third|fourth|fifth)\s+"
                              r"(?:person|one|speaker|voice)(?:\s+(?:to\s+(?:speak|talk)|(?:who|that)\s+(?:spoke|talked)|"
                              r"(?:that\s+)?i\s+heard))?\s+(?:in|at)\s+(?:the\s+|my\s+)?(?P<place>[a-z][a-z ]*?)\s*$",
                              re.IGNORECASE)


def ranked_in_place(q: Query, added: list[str]) -> Query:
    """who= "the first person in the office": nobody's words but a rank among the people there (pick=1, place=)."""
    m = _RANKED_IN_PLACE.match(q.who or "")
    if m is None or q.other:
        return q
    word = m.group(1).lower()
    pick = {"first": "first", "last": "last", "final": "last"}.get(word) or str(ORDINAL_WORDS[word])
    new = replace(q, who=None, pick=pick, by=None, place=m.group("place").strip(), act=q.act or "spoke")
    return noted(q, new, added, f"pick={pick} place={new.place!r}: {q.who!r} is a rank among the people there")
