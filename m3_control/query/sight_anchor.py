"""A relation to the moment someone was first (last) **seen**, not heard: "how many people did I hear before I first
saw A?", "who spoke after A came into view?", "did anyone speak after I last saw B?". The executor anchors a
relation on a person's first (last) voice turn; ``other_act=seen`` (a field of the question checks, not the
model's) anchors it on their face appearances instead, and the answer names the moment as a sighting.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .frame import Query
from .question_forms import _noted

_REL_WORD = r"(?:before|after|until|till|since|once|by\s+the\s+time|prior\s+to)"
# "before I first saw A", "after I last spotted A", "until I saw them"
_I_SAW = re.compile(rf"\b{_REL_WORD}\s+I\s+(?:had\s+)?(?:(?P<a>first|last|ever|finally)\s+)?"
                    r"(?:saw|see|seen|spotted|noticed|laid\s+eyes\s+on|caught\s+sight\s+of)\b", re.IGNORECASE)
# "before A was first seen", "after A came into view", "until A appeared on camera" (the quote taken out)
_WAS_SEEN = re.compile(rf"\b{_REL_WORD}\s+(?:\w+\s+){{0,8}}?(?:was|were|got|had\s+been)\s+(?:(?P<a>first|last)\s+)?"
                       r"(?:seen|spotted|noticed|visible|on\s+(?:camera|screen)|in\s+view)\b"
                       rf"|\b{_REL_WORD}\s+(?:\w+\s+){{0,8}}?(?:(?P<b>first|last)\s+)?(?:appeared|showed\s+up|"
                       r"came\s+(?:into|in)\s+view)\b", re.IGNORECASE)
_HEARD = re.compile(r"\b(?:hear|heard|speak|spoke|spoken|speaking|talk|talked|talking|say|said|says)\b", re.IGNORECASE)
_SAW = re.compile(r"\b(?:see|saw|seen|view|visible|camera|appear\w*)\b", re.IGNORECASE)
_NAMED_BY_WORDS = re.compile(r"\b(?:person|one|man|woman|someone|speaker)\s+(?:who|that)\s+(?:said|says|say)\b",
                             re.IGNORECASE)   # a person named by their words


def sight_anchor(q: Query, plain: str, added: list[str]) -> Query:
    """``other_act=seen`` (and ``rel`` on the last sighting for "last saw") where the question relates to the moment
    the other person was seen; ``plain`` is the question with its quotes taken out."""
    if not q.rel or not q.other or q.rel in ("with", "same_place") or q.until or q.other_turn:
        return q
    m = _I_SAW.search(plain) or _WAS_SEEN.search(plain)
    if m is None:
        return q
    which = (m.group("a") or m.groupdict().get("b") or "").lower()
    base = q.rel.removesuffix("_last")
    rel = f"{base}_last" if which == "last" else base
    # what is asked of the people is in the rest of the question ("who spoke after A came into view?": spoke)
    rest = _NAMED_BY_WORDS.sub(" ", plain[:m.start()] + " " + plain[m.end():])
    heard, saw = bool(_HEARD.search(rest)), bool(_SAW.search(rest))
    act = "spoke" if heard and not saw else "seen" if saw and not heard else q.act
    return _noted(q, replace(q, other_act="seen", rel=rel, act=act), added,
                  f"other_act=seen rel={rel}: the moment {q.other!r} was {'last' if which == 'last' else 'first'} seen")
