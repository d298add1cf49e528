"""A turn named by its place among the turns, where a frame would need a person to be relative to: "who spoke right
before the last turn in the office?" is the turn before that one (``pick=-2 by=turn``), "right after the first
turn" the second (``pick=2 by=turn``), "right before the third turn" the second.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .frame import Query
from .question_forms import _noted
from .wording import ORDINAL_WORDS

_ORD = r"(?:" + "|".join(ORDINAL_WORDS) + r"|\d+(?:st|nd|rd|th))"
# "who spoke right before the last turn?", "who said the turn right after the first one in the lab?"
_NEXT_TO_TURN = re.compile(rf"^\W*who\s+(?:spoke|talked|was\s+speaking)\s+(?P<rel>right|immediately|just|directly)?\s*"
                           rf"(?P<side>before|after)\s+the\s+(?P<n>last|final|{_ORD})\s+(?:turn|sentence|thing\s+said|"
                           rf"words)\b", re.IGNORECASE)


def turn_before_turn(q: Query, plain: str, added: list[str]) -> Query:
    """"Who spoke right before the last turn (in the office)?": the turn next to that one, by its place in time."""
    m = _NEXT_TO_TURN.search(plain)
    if m is None or not m.group("rel") or q.who or q.find != "who":
        return q      # ("who spoke before the last turn?" is everyone before it: the frame's relation)
    n = m.group("n").lower()
    before = m.group("side").lower() == "before"
    if n in ("last", "final"):
        if not before:
            return q     # nothing comes after the last turn: the frame says so
        pick = "-2"
    else:
        k = (ORDINAL_WORDS.get(n) or int(re.sub(r"\D", "", n))) + (-1 if before else 1)
        if k < 1:
            return q
        pick = "first" if k == 1 else str(k)
    new = replace(q, other=None, rel=None, other_turn=None, until=None, pick=pick, by="turn", act="spoke")
    return _noted(q, new, added, f"pick={pick} by=turn: the turn {m.group('side')} the {n} turn")
