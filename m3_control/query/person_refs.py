"""A person the question names by their rank among the speakers, inside a question about something else: "was the
first person I heard in the porch also heard in the garage?", "how many times did the last person I heard talk in
the office?", "when did the second person to speak leave the lab?". The rank (in a place, if the question gives one) is
resolved before the model reads the question, by a query of its own (who spoke first / n-th / last there), and the
question is asked of that person as the memory describes them ('the person who said "..."', or their name). The
resolution is in the trace (``person_ref``) and its turn in the answer's provenance; a rank nobody holds (a fourth
person where three spoke) is answered as such, not guessed.

A question that asks for the person ("who was the first person I heard in the porch?") or what they said ("what
did the third person to speak say?": the frame's rank), compares one to them ("was A the first person I heard?", "was
the first person I heard Ann?") or relates to their turn ("who spoke right after the second person to speak?": that
turn, not every turn of theirs) is left as it is: its frame asks for the rank itself. What they said chosen among
their turns ("what did the last person I heard in the garage say first there?", "... after 1:00?") is resolved: the
frame's rank would pick the turn of the rank, not the one asked for. So is a rank in a place a relation is to ("who
spoke right after the last person I heard in the kitchen?"), which no frame can say: it becomes that person's turn
that gave the rank ('right after the person who said "..." spoke for the second time').
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from m3_memory.people import Turn

from .frame import Query
from .heard_earlier import asks_heard_earlier
from .phrase import phrase
from .wording import ORDINAL_WORDS
from .words import ordinal_word

_LAST = ("last", "final", "latest")
# "the second speaker" names a rank among speakers without a verb ("did the second speaker ever speak in the lab?")
_REF = re.compile(r"\bthe\s+(?:very\s+)?(?P<ord>first|second|third|fourth|fifth|sixth|seventh|last|final|latest)\s+"
                  r"(?:different\s+)?(?:(?:person|one|speaker|voice|man|woman)\s+(?:(?:that|who|whom)\s+)?"
                  r"(?:(?:i|we)\s+(?:had\s+)?heard(?:\s+(?:speak|speaking|talk|talking))?|to\s+(?:speak|talk|be\s+heard)|"
                  r"(?:who\s+|that\s+)?(?:spoke|talked|was\s+heard))|speaker\b)"
                  r"(?:\s+(?:in|at|inside)\s+the\s+(?P<place>[a-z]+(?:\s+room)?))?"
                  # "the person who spoke last in the office", "the one who talked first in the garden"
                  r"|\bthe\s+(?:person|one|speaker|voice|man|woman)\s+(?:who|that)\s+(?:spoke|talked)\s+"
                  r"(?P<ord2>first|last)\s+(?:in|at|inside)\s+the\s+(?P<place2>[a-z]+(?:\s+room)?)", re.IGNORECASE)
# what may stand before the reference for it to be a person the question asks about (not the one it asks for)
# ("what did the third person to speak say?" is the frame's own rank: find=what pick=3)
_BEFORE = re.compile(r"^\W*(?:(?:was|were|did|does|is|has|had)|(?:when|where|how\s+(?:many\s+(?:times|turns|seconds)"
                     r"(?:\s+in\s+(?:total|all))?|often|long|much\s+time)|(?:in\s+)?(?:which|what)\s+(?:room|place)|"
                     r"at\s+what\s+time)\s+(?:did|was|were|had|has))\s*$"
                     # "how many seconds of speech did I hear from the second speaker?"
                     r"|^\W*how\s+(?:many|much|long)\b[^?]*?\b(?:hear|heard)\s+from\s*$"
                     # "how long was the longest turn of the last person I heard?": their turns, by rank
                     r"|^\W*(?:how|what|which|was|were|did)\b[^?]*?\b(?:turns?|words|speech|talk(?:ing)?)\s+(?:of|by|from)"
                     r"\s*$", re.IGNORECASE)
# "what did the last person to speak in the garage say first there?", "... say after 1:00?": what the ranked person
# said, chosen among their turns by something more than the rank ("what did the third person to speak say?" is not)
_WHAT_DID = re.compile(r"^\W*what\s+(?:did|had)\s*$", re.IGNORECASE)
_SAID_SOME = re.compile(r"^\s+(?:say|said|tell\s+me|talk\s+about)\b\s*(?P<more>[^?.!]*)", re.IGNORECASE)
# "who spoke right after the last person I heard in the kitchen?": a rank in a place as the anchor of a relation
# (without a place the frame's own rank anchors it: "who spoke right after the second person to speak?")
_RIGHT_NEXT = re.compile(r"\b(?:right|just|immediately|directly)\s+(?:after|before)\s+$", re.IGNORECASE)
# "was the first person I heard the person who said X?", "... Ann?": one person against the rank (the frame's)
_AGAINST = re.compile(r"^\s+(?:the\s+(?:person|one|man|woman|same)|someone|somebody|also\s+the|[\"'\u201c]|"
                      r"[A-Z][a-z]+\b)")
# "was the last person I heard also the first?": a rank against a rank (the frame's), not a person to resolve
_RANK_AGAINST = re.compile(r"\b(?:also|too)\s+the\s+(?:first|second|third|last|final|same)\b"
                           r"|\bthe\s+same\s+(?:person|one)\b", re.IGNORECASE)


@dataclass
class PersonRef:
    said: str                 # the question's words for the person
    person: str | None        # how the memory describes them (None: nobody holds that rank)
    why: str                  # how they were found, or why nobody was
    turn: Turn | None = None  # the turn that gave them their rank (provenance of the answer too)

    def trace(self) -> dict[str, Any]:
        return {"said": self.said, "person": self.person, "why": self.why,
                "turn_id": self.turn.id if self.turn is not None else None}


def ranked_ref(question: str) -> re.Match | None:
    """The one speaker the question names by rank inside a question about them, else None (see the docstring)."""
    refs = list(_REF.finditer(question))
    if len(refs) != 1 or _RANK_AGAINST.search(question) or asks_heard_earlier(question):
        # ("did the first person to speak in the lab speak earlier too?": earlier than that turn, heard_earlier.py)
        return None
    m = refs[0]
    if (m.group("place") or m.group("place2")) and _RIGHT_NEXT.search(question[:m.start()]):
        return m    # "right after the last person I heard in the kitchen": their turn that gave them the rank
    said = _SAID_SOME.match(question[m.end():]) if _WHAT_DID.search(question[:m.start()]) else None
    if said is not None and said.group("more").strip():
        return m
    if not _BEFORE.search(question[:m.start()]) or _AGAINST.match(question[m.end():]):
        return None
    return m


# "how many times did the person who spoke right after A's first turn speak in all?": a person named by their place
# next to another's turn, inside a question about them
_NEXT_REF = re.compile(r"\bthe\s+(?:person|one|speaker|man|woman)\s+(?:who|that)\s+(?:spoke|talked|took\s+the\s+"
                       r"turn)\s+(?:right|just|immediately|directly)\s+(?P<side>after|before)\s+(?:the\s+(?:person|one|man|woman)\s+"
                       r"(?:who|that)\s+said\s+)?(?:\"(?P<q>[^\"]+)\"|(?P<name>[A-Z][a-z]+))(?:['’]s\s+(?P<ord>first|"
                       r"second|third|last|final)\s+(?:turn|words|time))?")
_ABOUT = re.compile(r"^\W*(?:how\s+many|how\s+often|how\s+long|when|where|did|does|was|were|has|had|is)\b",
                    re.IGNORECASE)


def _next_ref(question: str, executor: Any, before_time: float | None) -> tuple[str, PersonRef | None]:
    """The person named by who spoke right after (before) someone's turn, resolved by a query of its own."""
    m = _NEXT_REF.search(question)
    if m is None or m.start() == 0 or not _ABOUT.match(question):
        return question, None
    word = (m.group("ord") or "first").lower()
    rel = f"right_{m.group('side').lower()}" + ("_last" if word in ("last", "final") else "")
    nth = {"second": "2", "third": "3"}.get(word)
    res = executor.run(Query(find="who", other=m.group("q") or m.group("name"), rel=rel, other_turn=nth,
                             act="spoke"), before_time)
    said = m.group(0)
    if res.status != "ok" or not res.value:
        return question, PersonRef(said, None, phrase(res).rstrip(".") if res.status != "ok" else
                                   "nobody spoke there")
    cid = res.value[0]
    turn = next((e for e in res.events if e.character_id == cid), None)
    person = res.describe.get(cid) or f"<character_{cid}>"
    return question[:m.start()] + person + question[m.end():], PersonRef(said, person, f"who spoke {m.group('side')} "
                                                                           "that turn", turn)


# "how many turns did the most talkative person in the lab take in the porch?", "... the person who spoke most in the
# porch speak in the kitchen?": the one who spoke most (least) often in a place, inside a question about them
_MOST_REF = re.compile(r"\bthe\s+(?:(?P<w1>most|least)\s+talkative\s+(?:person|speaker|one)|(?:person|one|speaker)\s+"
                       r"(?:who|that)\s+(?:spoke|talked)\s+(?:the\s+)?(?P<w2>most|least)(?:\s+often)?)\s+(?:in|at)\s+"
                       r"the\s+(?P<place>[a-z]+(?:\s+room)?)", re.IGNORECASE)


def _most_ref(question: str, executor: Any, before_time: float | None) -> tuple[str, PersonRef | None]:
    """The person who spoke most (least) often in a place, resolved by a query of its own (a tie is said, not
    broken)."""
    m = _MOST_REF.search(question)
    if m is None or m.start() == 0 or not _BEFORE.search(question[:m.start()]):
        return question, None
    pick = (m.group("w1") or m.group("w2")).lower()
    res = executor.run(Query(find="who", pick=pick, place=m.group("place"), act="spoke"), before_time)
    said = m.group(0)
    if res.status != "ok" or not res.value:
        return question, PersonRef(said, None, phrase(res).rstrip(".") if res.status != "ok" else
                                   f"I heard nobody in the {m.group('place')}")
    if len(res.value) > 1:
        return question, PersonRef(said, None, " and ".join(res.describe.get(c, f"<character_{c}>") for c in res.value)
                                   + f" spoke equally often in the {m.group('place')}")
    cid = res.value[0]
    person = res.describe.get(cid) or f"<character_{cid}>"
    turn = next((e for e in res.events if e.character_id == cid), None)
    return question[:m.start()] + person + question[m.end():], PersonRef(said, person, f"who spoke {pick} often in "
                                                                             f"the {m.group('place')}", turn)


def resolve(question: str, executor: Any, before_time: float | None) -> tuple[str, PersonRef | None]:
    """(the question asked of the person, the resolution) or (the question unchanged, None) when it names nobody by
    rank (or asks for the rank itself)."""
    m = ranked_ref(question)
    if m is None and _MOST_REF.search(question):
        return _most_ref(question, executor, before_time)
    if m is None:
        return _next_ref(question, executor, before_time)
    word, place = (m.group("ord") or m.group("ord2")).lower(), m.group("place") or m.group("place2")
    pick = "last" if word in _LAST else "first" if word == "first" else str(ORDINAL_WORDS[word])
    where = f" in the {place}" if place else ""
    res = executor.run(Query(find="who", pick=pick, place=place, act="spoke"), before_time)
    said = m.group(0)
    if res.status != "ok":
        return question, PersonRef(said, None, phrase(res).rstrip("."))
    if not res.value:
        heard = executor.run(Query(find="count_people", place=place, act="spoke"), before_time)
        n = heard.value if heard.status == "ok" and isinstance(heard.value, int) else 0
        return question, PersonRef(said, None, f"I heard {n} {'person' if n == 1 else 'people'}{where}")
    cid = res.value[0]
    mine = sorted((e for e in res.events if e.character_id == cid), key=lambda e: e.start)
    turn = (mine[-1] if pick == "last" else mine[0]) if mine else None
    person = res.describe.get(cid) or f"<character_{cid}>"
    rest = question[m.end():]
    if _RIGHT_NEXT.search(question[:m.start()]) and turn is not None:
        # the relation is to the turn that gave the rank: that person's n-th turn (relations to it are a form)
        theirs = executor.run(Query(find="when", who=f"<character_{cid}>", act="spoke"), before_time)
        own = sorted((e for e in theirs.events if e.character_id == cid), key=lambda e: e.start)
        n = next((i for i, e in enumerate(own, 1) if e.id == turn.id), None)
        if n is not None:
            nth = "first" if n == 1 else "last" if n == len(own) else ordinal_word(n)
            person = f"{person} spoke for the {nth} time"
    if place:   # "... in the garage say first there?": the place the rank was in, now that the rank is gone
        rest = re.sub(r"\bthere\b", f"in the {place}", rest, count=1, flags=re.IGNORECASE)
    asked = question[:m.start()] + person + rest
    return asked, PersonRef(said, person, f"the {word} person I heard{where}", turn)
