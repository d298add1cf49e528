"""Two people "both" against a moment: "did A and B both speak before 0:30?", "did both A and B talk after I left the
kitchen?" is whether each of them did (``find=yes`` / ``count_times`` with who and other and no relation: each one's
turns, execute.both_people), not whether A spoke before B. The small model wrote these ``rel=before other=B to=0:30``,
which answered "yes, A spoke at 0:02 before 0:05 before B (0:10)" to "did A and B both speak before 0:05?"."""

from __future__ import annotations

import re
from dataclasses import replace

from .frame import Query

_EACH = re.compile(r"\b(?:both|each)\b", re.IGNORECASE)
# the relation is to a moment (a clock, the robot's own move), not to one of the two people
_TO_MOMENT = re.compile(r"\b(?:before|after|by|until|since)\s+(?:\d{1,2}:\d{2}|I\b|we\b|the\s+(?:first|last)\s+"
                        r"(?:minute|\d+\s+seconds))", re.IGNORECASE)
_REL = ("before", "after", "before_last", "after_last")


_SAME = re.compile(r"\b(?:same|one\s+and\s+the\s+same|identical|different)\b", re.IGNORECASE)


def each_of_two(q: Query, plain: str, added: list[str]) -> Query:
    """``q`` without the relation between its two people where the question asks each of them against a moment;
    "did A and B both speak in the kitchen?" written as ``find=same`` asks whether each of them spoke there, not
    whether they are one person (held-out 702 answered "no, they are two different people")."""
    if q.find == "same" and q.who and q.other and _EACH.search(plain) and not _SAME.search(plain):
        added.append("find=yes: 'both' asks whether each of the two people did it, not whether they are one person")
        return each_of_two(replace(q, find="yes", rel=None if q.rel in _REL else q.rel), plain, added)
    if q.find not in ("yes", "count_times") or not (q.who and q.other) or q.rel not in _REL or q.until:
        return q
    if not _EACH.search(plain) or not _TO_MOMENT.search(plain):
        return q
    added.append(f"rel={q.rel} dropped: 'both' asks each of the two people against the moment, not one against the "
                 "other")
    return replace(q, rel=None)
