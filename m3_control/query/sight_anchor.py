"""Sightings in a question:

- a relation to the moment someone was first (last) **seen**, not heard: "how many people did I hear before I first
  saw A?", "who spoke after A came into view?", "did anyone speak after I last saw B?". The executor anchors a
  relation on a person's first (last) voice turn; ``other_act=seen`` (a field of the question checks, not the
  model's) anchors it on their face appearances instead, and the answer names the moment as a sighting;
- a person named by a moment they were seen ("what did the person I saw at 0:35 say?", "did the person seen at
  0:50 ever speak?"): that reference is the person the frame asks about (resolved by
  :func:`m3_control.query.people.by_sighting`), not a moment the frame is bounded by;
- a relation to someone's turn **there**, in the place the question names ("did anyone speak in the office after A's
  last turn there?"): their last (n-th) turn in that place (``other_there``), not their last anywhere.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .frame import Query, noted
from .people import SIGHTING

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


def _act_of_rest(q: Query, plain: str, m: re.Match) -> str | None:
    """The act the question asks of people, from its words outside the sighting ``m`` (else the frame's)."""
    rest = _NAMED_BY_WORDS.sub(" ", plain[:m.start()] + " " + plain[m.end():])
    heard, saw = bool(_HEARD.search(rest)), bool(_SAW.search(rest))
    return "spoke" if heard and not saw else "seen" if saw and not heard else q.act


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
    act = _act_of_rest(q, plain, m)   # what is asked of the people: "who spoke after A came into view?": spoke
    return noted(q, replace(q, other_act="seen", rel=rel, act=act), added,
                  f"other_act=seen rel={rel}: the moment {q.other!r} was {'last' if which == 'last' else 'first'} seen")


def sighting_ref(q: Query, plain: str, added: list[str]) -> Query:
    """``who`` (or, with a relation and a ``who`` already, ``other``) is the person the question names by when they
    were seen; that moment is no ``at`` / ``from`` / ``to`` of the frame."""
    m = SIGHTING.search(plain)
    if m is None:
        return q
    clock = m.group("t")
    ref = f"the person seen at {clock}"
    if any(r and SIGHTING.search(r) for r in (q.who, q.other)):
        return q    # (the frame names them so already)
    if q.rel and q.other is None:    # "who spoke right after the person I saw at 0:10?": the relation's anchor
        new = replace(q, other=ref)
    elif q.who is None:
        new = replace(q, who=ref)
    else:
        return q
    new = replace(new, act=_act_of_rest(new, plain, m),
                  **{f: None for f in ("at", "from_", "to") if getattr(new, f) == clock})
    return noted(q, new, added, f"who={ref!r}: the person seen at {clock}, not a moment of the frame")



# "after A's last turn there", "before A spoke for the last time there", "after A last spoke in that room"
_THAT_PLACE = r"(?:there|in\s+(?:that|this|the\s+same)\s+(?:room|place))\b"
_THERE = re.compile(r"(?:'s|\u2019s)\s+(?:very\s+)?(?:\w+\s+)?(?:turn|words?|sentence|remark|time)\s+" + _THAT_PLACE +
                    r"|\b(?:spoke|talked|said\s+(?:something|anything)|was\s+heard)\s+(?:for\s+the\s+\w+\s+time\s+)?"
                    + _THAT_PLACE, re.IGNORECASE)


def anchor_there(q: Query, plain: str, added: list[str]) -> Query:
    """``other_there``: the relation is to the other person's turns in the frame's place (their last one there, not
    their last anywhere), where the question says so ("after A's last turn there")."""
    if not (q.rel and q.other and q.place and q.rel not in ("with", "same_place")) or q.other_there:
        return q
    if _THERE.search(plain) is None:
        return q
    return noted(q, replace(q, other_there="1"), added,
                  f"other_there=1: {q.other!r}'s turns in the {q.place} only, as the question says ('there')")
