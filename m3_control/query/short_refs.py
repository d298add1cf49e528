"""A person the frame names in a word or two, or by a tag: checked against the question's own words (a rank is a
pick or a speaker by rank, the robot itself and a place are nobody, a word the question lacks is dropped)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from .frame import Query
from .quotes import quote_score
from .wording import ORDINAL_WORDS


def short_refs(q: Query, question: str, quoted: list[str], place: str | None, same_words: Callable[[str, str], bool],
               hearing: bool, added: list[str]) -> Query:
    """A person the frame names in a word or two, or by a tag, must come from the question: "fourth" is the 4th
    person (a pick); a word the question does not hold is dropped ("which of the speakers did I hear least often?"
    written with who="name"); a place written as a person is the question's place (dropped). Longer references
    may be words the model copied from memory and stay for the executor to resolve or refuse."""
    low = " ".join(re.findall(r"[a-z0-9]+", question.lower()))
    for field in ("who", "other"):
        ref = getattr(q, field)
        if not ref:
            continue
        key = " ".join(re.findall(r"[a-z0-9]+", ref.lower())).removeprefix("the ")
        # "the first person in the kitchen": a rank in the question's place (the place is the frame's)
        ranked = re.sub(rf"\s+(?:in|at)\s+(?:the\s+)?{re.escape(place.lower())}$", "", key) if place else key
        key = key.removesuffix(" person")
        base = ranked.removesuffix(" to speak").removesuffix(" person").removesuffix(" one").removesuffix(" speaker")
        n = ORDINAL_WORDS.get(base)
        if not any(same_words(x, ref) for x in quoted) and _NOBODY_IN.search(key) and not re.search(
                r"\b(?:person|speaker|man|woman|one)\b", key):
            # "the last thing someone said" written as other= (with before): words about a turn, nobody's name
            q = replace(q, **{field: None}, rel=None if field == "other" else q.rel)
            added.append(f"{field}={ref!r} dropped: it names no one")
            continue
        if field == "who" and not q.rel and q.pick is None and _ROLE_PICK.match(key) and _SOMEONE.search(question):
            # "at what time did someone first speak in the bedroom?" written who="spoke first": the first there
            # (a pick in the frame's scope), not the first speaker of all
            pick = "first" if "first" in key else "last"
            q = replace(q, who=None, pick=pick)
            added.append(f"who={ref!r} is pick={pick}: the question asks about someone, in its own scope")
            continue
        if key in _SELF:
            # "after I came into the office, what was the first thing anyone said?" written who="I": the robot
            # asking is nobody it heard or saw
            q = replace(q, **{field: None}, rel=None if field == "other" else q.rel)
            added.append(f"{field}={ref!r} dropped: the robot itself")
        elif (n is not None or base in ("last", "final")) and q.find in ("same", "more", "less") and hearing and \
                not re.search(r"\b(?:speaker|spoke|talked|said|heard)\b", key):
            # "was the first person to speak also the last?" written who="first" other="last": the speakers by
            # rank (people.by_role), compared
            role = f"the {base} speaker"
            q = replace(q, **{field: role})
            added.append(f"{field}={ref!r} is {role!r}")
        elif n is not None and field == "other" and q.rel and q.find not in ("same", "more", "less") and hearing:
            # "who spoke right after the second person to speak?": the anchor is that speaker (people.by_role),
            # the relation stays
            role = f"the {base} speaker"
            q = replace(q, other=role)
            added.append(f"other={ref!r} is {role!r}")
        elif n is not None and q.pick == ("first" if n == 1 else str(n)) and field == "who" and \
                q.find in ("where", "when"):
            # "where was I when the second person spoke?" written who="second person" pick=2: that speaker's first turn
            q = replace(q, who=f"the {base} speaker", pick="first")
            added.append(f"who={ref!r} is 'the {base} speaker' (their first turn)")
        elif n is not None and q.pick is None and q.find not in ("same", "more", "less"):
            q = replace(q, **{field: None}, pick="first" if n == 1 else str(n), rel=None if field == "other" else q.rel)
            added.append(f"{field}={ref!r} is pick={q.pick}")
        elif place and _names_place(key, place) and not any(quote_score(x, ref) >= 0.5 for x in quoted):
            q = replace(q, **{field: None}, rel=None if field == "other" else q.rel)
            added.append(f"{field}={ref!r} is the place")
        elif key and (len(key.split()) <= 2 or re.search(r"[_0-9]", ref)) and not re.search(rf"\b{re.escape(key)}\b",
                                                                                          low) and not any(
                same_words(x, ref) for x in quoted) \
                and not re.search(r"\b(?:spoke|talked|said|heard|seen|speaker)\b", key):
            q = replace(q, **{field: None}, rel=None if field == "other" else q.rel)
            added.append(f"{field}={ref!r} dropped: the question names nobody so")
    return q


_NOBODY_IN = re.compile(r"\b(?:someone|somebody|anyone|anybody|something|anything|thing|things|words)\b")
_ROLE_PICK = re.compile(r"^(?:spoke|talked|spoken|speaking)\s+(first|last)$|"
                        r"^(first|last)\s+(?:to\s+)?(?:speak|speaker)$")
_SOMEONE = re.compile(r"\b(?:someone|somebody|anyone|anybody)\b", re.IGNORECASE)
_SELF = frozenset(["i", "me", "myself", "you", "yourself", "we", "us", "robot", "the robot"])
_PLACE_LEAD = frozenset(["in", "at", "on", "inside", "near", "by", "into", "the", "a", "while", "when", "i", "we",
                         "was", "were", "spoke", "speak", "speaking", "talked", "talking", "heard", "seen", "saw",
                         "someone", "anyone", "people", "there"])


def _names_place(key: str, place: str) -> bool:
    """A reference that is the place, perhaps with the words leading to it ("in the hallway", "while i was in the
    hallway", "spoke in the hallway" for the place "hallway"). A quote the question holds is never the place
    (the caller checks)."""
    pkey = " ".join(re.findall(r"[a-z0-9]+", place.lower())).removeprefix("the ")
    lead = key[: len(key) - len(pkey)].split() if key.endswith(pkey) else None
    return bool(pkey) and lead is not None and (not lead or key[-len(pkey) - 1] == " ") and set(lead) <= _PLACE_LEAD


_RANKED = re.compile(r"^\W*(?:the\s+)?(\w+)\s+speaker\W*$", re.IGNORECASE)


def rank_of_role(ref: str | None) -> str | None:
    """"first" for "the first speaker" (a person by rank, as short_refs writes one), else None."""
    m = _RANKED.match(ref or "")
    return m.group(1).lower() if m else None
