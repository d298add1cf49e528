"""A place the question names by description instead of by name, resolved before the model reads it: "the last
room I went to", "the second place I visited" (the robot's stays, in order), "the room where the person who said X
first spoke" (a query of its own: where that person spoke first / last). The question is then asked with the place's
name; the resolution is in the trace (``place_ref``: what was said, the place, the turn it came from). A description
that names nothing (a third room of a robot that went to two, a person nobody heard) is answered as such, not guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from m3_memory.people import Turn

from .frame import Query
from .phrase import phrase
from .robot_track import visits as robot_visits
from .wording import ORDINAL_WORDS, QUOTED

# only a place the question asks about (after a preposition), never the one it asks for ("which was the last room?")
_IN = r"\b(?:in|at|inside|into|from|to|of|near)\s+"
_ROBOT_ROOM = re.compile(_IN + r"the\s+(?:very\s+)?(?P<ord>first|second|third|fourth|fifth|last|final|latest|previous)"
                         r"\s+(?:room|place)\s+(?:that\s+)?(?:i|we)\s+(?:had\s+)?(?:went\s+(?:to|into)|visited|entered|"
                         r"was\s+in|were\s+in|got\s+to|arrived\s+(?:in|at)|came\s+(?:to|into)|reached|drove\s+to|"
                         r"moved\s+to)\b|" + _IN + r"the\s+(?P<ord2>first|last)\s+(?:room|place)\b"
                         r"(?!\s+(?:where|in\s+which))", re.IGNORECASE)
_SPEAKER_ROOM = re.compile(_IN + r"the\s+(?:room|place)\s+(?:where|in\s+which)\s+"
                           r"(?P<ref>(?:the\s+(?:person|one|man|woman)\s+(?:who|that)\s+(?:said|says)\s+)?"
                           r"(?:\"[^\"]+\"|'[^']+'|\u201c[^\u201d]+\u201d))\s+"
                           r"(?:(?P<w1>first|last)\s+)?(?:spoke|talked|was\s+(?:heard|seen)|said\s+(?:it|that|something))"
                           r"(?:\s+for\s+the\s+(?P<w2>first|last)\s+time)?", re.IGNORECASE)

# "in the room where I spent the most time", "in the room where I stayed longest", "the place I was in the least":
# the robot's seconds per place
_STAY_ROOM = re.compile(_IN + r"the\s+(?:room|place)\s+(?:where|in\s+which|that)\s+(?:i|we)\s+(?:spent|stayed|was|were|"
                        r"remained)\s+(?:(?:in\s+)?(?:for\s+)?(?:the\s+)?(?P<w>most|longest|least|shortest|less|more|"
                        r"fewest)(?:\s+(?:time|amount\s+of\s+time|seconds))?)\b", re.IGNORECASE)


# "in both the first and the last room", "the first room and the last one": two of the robot's stays at once
_ORD = r"(?:first|second|third|fourth|fifth|last|final|latest)"
_ROOM_PAIR = re.compile(r"\bthe\s+(?P<a>" + _ORD + r")\s+(?:(?:room|place)\s+)?and\s+(?:(?:in|at)\s+)?(?:the\s+)?"
                        r"(?P<b>" + _ORD + r")\s+(?:rooms?|places?|ones?)\b", re.IGNORECASE)
_BOTH_BEFORE = re.compile(r"\b(?:both|each\s+of)\s+(?:in\s+|at\s+)?$", re.IGNORECASE)
_HOW_MANY = re.compile(r"^\W*how\s+(?:many|much|often|long)\b", re.IGNORECASE)


@dataclass
class PlaceRef:
    said: str                 # the question's words for the place
    place: str | None         # the place it names (None: it names none)
    why: str                  # how it was found, or why there is none
    turn: Turn | None = None  # the turn that placed it (provenance of the answer too)

    def trace(self) -> dict[str, Any]:
        return {"said": self.said, "place": self.place, "why": self.why,
                "turn_id": self.turn.id if self.turn is not None else None}


def resolve(question: str, executor: Any, before_time: float | None) -> tuple[str, PlaceRef | None]:
    """(the question with the place named, the resolution) or (the question unchanged, None) when it describes no
    place."""
    pair = _ROOM_PAIR.search(question)
    if pair is not None:
        stays = [p for p, _, _ in robot_visits(executor.store, before_time)]
        visits = [p for i, p in enumerate(stays) if i == 0 or stays[i - 1] != p]
        ns = [-1 if w.lower() in ("last", "final", "latest") else ORDINAL_WORDS[w.lower()] for w in pair.groups()]
        if not all(0 < n <= len(visits) or 0 < -n <= len(visits) for n in ns):
            return question, PlaceRef(pair.group(0), None, f"I went to {len(visits)} place"
                                                           f"{'s' if len(visits) != 1 else ''} in all")
        a, b = (visits[n - 1 if n > 0 else n] for n in ns)
        # "did A speak in the first room and the last one?" asks for both (each of the two), as "both" says it, but
        # not "how many people spoke in the first and the last room?" (a count of the two together)
        both = "" if _BOTH_BEFORE.search(question[:pair.start()]) or _HOW_MANY.match(question) else "both "
        named = f"{both}the {a} and the {b}" if a != b else \
            f"the {a} (the {pair.group('a')} and the {pair.group('b')})"
        return question[:pair.start()] + named + question[pair.end():], \
            PlaceRef(pair.group(0), f"{a}, {b}", "the robot's stays, in order")
    m = _ROBOT_ROOM.search(question)
    if m is not None:
        word = (m.group("ord") or m.group("ord2")).lower()
        stays = [p for p, _, _ in robot_visits(executor.store, before_time)]
        visits = [p for i, p in enumerate(stays) if i == 0 or stays[i - 1] != p]
        n = -1 if word in ("last", "final", "latest") else -2 if word == "previous" else ORDINAL_WORDS[word]
        ok = 0 < n <= len(visits) or 0 < -n <= len(visits)
        if not ok:
            return question, PlaceRef(_said(m), None, f"I went to {len(visits)} place"
                                                        f"{'s' if len(visits) != 1 else ''} in all")
        place = visits[n - 1 if n > 0 else n]
        return _named(question, m, place), PlaceRef(_said(m), place, "the robot's stays, in order")
    m = _STAY_ROOM.search(question)
    if m is not None:
        seconds: dict[str, float] = {}
        for p, a, b in robot_visits(executor.store, before_time):
            end = b if b is not None else (executor.store.perceived_until(before_time) or a)
            seconds[p] = seconds.get(p, 0.0) + max(0.0, end - a)
        if not seconds:
            return question, PlaceRef(_said(m), None, "I have no record of the places I was in")
        most = m.group("w").lower() in ("most", "longest", "more")
        best = (max if most else min)(seconds.values())
        top = [p for p, x in seconds.items() if abs(x - best) < 1.0]
        if len(top) > 1:
            return question, PlaceRef(_said(m), None, f"I spent about as long in the {top[0]} as in the {top[1]}")
        why = f"where I spent the {'most' if most else 'least'} time ({int(round(best))} s)"
        return _named(question, m, top[0]), PlaceRef(_said(m), top[0], why)
    m = _SPEAKER_ROOM.search(question)
    if m is not None:
        quote = QUOTED.search(m.group("ref"))
        words = next(g for g in quote.groups() if g) if quote else m.group("ref")
        pick = (m.group("w1") or m.group("w2") or "first").lower()
        res = executor.run(Query(find="where", who=words, pick=pick, act="spoke"), before_time)
        if res.status != "ok" or not res.value:
            why = phrase(res).rstrip(".") if res.status != "ok" else "I have no record of where they spoke"
            return question, PlaceRef(_said(m), None, why)
        turn = res.events[0] if res.events else None
        return _named(question, m, res.value[0]), PlaceRef(_said(m), res.value[0],
                                                           f"where they spoke {pick}", turn)
    return question, None


def _said(m: re.Match) -> str:
    """The described place as the question says it (without the preposition before it)."""
    return m.group(0)[m.group(0).lower().index("the"):]


def _named(question: str, m: re.Match, place: str) -> str:
    said = _said(m)
    return question[:m.end() - len(said)] + f"the {place}" + question[m.end():]
