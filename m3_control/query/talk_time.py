"""Two people compared by how long they talked, not how often: "did A speak for longer than B in total?", "who talked
longer, A or B?", "did B spend less time talking than A?".

The frame is the comparison of two people (``find=more`` / ``less``) with ``measure=time``: the seconds of each
one's voice turns in the question's window and place (the durations of detected speech, as "who spoke the longest?"
ranks people), not their number of turns. One turn's own length ("whose turn was longer?", "the longer sentence") is
:mod:`.sentences`'; one person's seconds against a number ("longer than ten seconds") is :mod:`.talk_total`'.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from .frame import Query, noted
from .repair import time_of
from .talk_seconds import equal, keep, talk_seconds
from .words import seconds_word

if TYPE_CHECKING:
    from .result import QueryResult

_NOT_TALK = r"(?!\s+(?:single\s+|one\s+|individual\s+)?(?:turns?|sentences?|remarks?|lines?|things?|stretch|run|" \
            r"silences?|pauses?|gaps?|stays?|visits?))"
# "more time", "more in total time", "more speaking time", "more seconds", "less in terms of time"
# ... "more in total, in seconds", "more, by time"
_IN_TIME = r"(?:\s+in\s+(?:total|all))?,?\s+(?:in\s+(?:total\s+|all\s+|overall\s+)?|in\s+terms\s+of\s+|by\s+|" \
    r"total\s+|overall\s+|(?:speaking|talking|talk|speech)\s+)?(?:time|seconds)"
# "whose total speaking time was greater, A's or B's?", "... speaking time in the lab was greater, ...?"
_TIME_WAS = r"(?:speaking|talking|talk|speech)\s+time\s+(?:[^?,]{0,30}?\s)?(?:was|is)\s+(?:the\s+)?"
_LONGER = re.compile(rf"\b(?:(longer|more{_IN_TIME}|a\s+longer\s+time|{_TIME_WAS}(?:greater|longer|larger|bigger))"
                     rf"{_NOT_TALK}|(shorter|less{_IN_TIME}|fewer\s+seconds|a\s+shorter\s+time|{_TIME_WAS}(?:smaller|"
                     rf"shorter|less)){_NOT_TALK})\b", re.IGNORECASE)
_TALK = re.compile(r"\b(?:spoke|speak|speaks|speaking|spoken|talk|talks|talked|talking)\b", re.IGNORECASE)
_OFTEN = re.compile(r"\b(?:more|less)\s+often\b|\b(?:more|fewer|less)\s+times\b|\b(?:more|fewer)\s+turns\b",
                    re.IGNORECASE)


def compared_by_time(q: Query, plain: str, quoted: list[str], added: list[str]) -> Query:
    """``find=more`` / ``less`` with ``measure=time`` for two people the question compares by how long they talked
    (the model writes it as a count: ``times>other``, or ``find=more`` by turns)."""
    m = _LONGER.search(plain)
    if m is None or not _TALK.search(plain) or _OFTEN.search(plain) or q.find not in ("more", "less", "yes", "who"):
        return q
    who, other = (quoted[0], quoted[1]) if len(quoted) == 2 else (q.who, q.other)
    if not who or not other or time_of(other) is not None or len(quoted) > 2:
        return q
    find = "more" if m.group(1) else "less"
    new = replace(q, find=find, who=who, other=other, measure="time", times=None, count=None, pick=None, by=None,
                  rel=None, until=None, act="spoke", top=None, only=None)
    return noted(q, new, added, f"find={find} measure=time: the question's {m.group(0)!r} compares the seconds "
                                f"two people talked")


def phrase_compared(res: QueryResult, a: str, b: str, cond: str) -> str:
    """"Yes, A spoke for longer (18 seconds in all) than B (15 seconds)." (seconds rounded as the result keeps them:
    equal there is "about as long")."""
    who, other = res.who["who"].character_id, res.who["other"].character_id
    na, nb = res.seconds[who], res.seconds[other]  # type: ignore[index]
    ea, eb = res.exact_seconds[who], res.exact_seconds[other]  # type: ignore[index]
    if equal(ea, eb):
        each = f"{seconds_word(na)} each" if na == nb else f"{seconds_word(na)} and {seconds_word(nb)}"
        return f"No, they spoke for about as long ({each}{cond})."
    more = res.query.find == "more"
    yes = (ea > eb) if more else (ea < eb)
    (x, nx), (y, ny) = ((a, na), (b, nb)) if yes else ((b, nb), (a, na))
    word = "longer" if more else "less time"
    return f"{'Yes' if yes else 'No'}, {x} spoke for {word} ({seconds_word(nx)} in all) than {y} " \
           f"({seconds_word(ny)}){cond}."


def seconds_of(res: QueryResult, people: tuple[int, int]) -> tuple[float, float]:
    """Each person's seconds of voice turns in the result's scope: exact in ``res.exact_seconds`` (they decide),
    as said in ``res.seconds`` (the answer and its check; tenths where whole seconds would hide a difference)."""
    exact = {cid: talk_seconds(res.scope_events, character=cid) for cid in people}
    res.exact_seconds.update(exact)
    said = keep(res, exact)
    return said[people[0]], said[people[1]]

