"""A person the question names by the name the memory knows them by ("what was the second thing Ann said?"), left out
of the frame. Quoted words a person said are checked the same way (fidelity.py); a name was not: a frame
``find=what pick=2 by=turn`` for that question runs as "the second thing anyone said" and answers about somebody else.

The one name of a question whose frame names nobody is its ``who=`` (the person it asks about), unless the question
relates to someone's turn ("who spoke after Ann?": that is ``other=``, the model's to write) or names them as what
was spoken of ("did anyone mention Ann?"). A name beside other people the frame names is left to the forms and plans
that place two people (a frame's people are rearranged after this check: between, gaps, comparisons).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace

from .frame import Query

# the name as what someone spoke of or to, not who did something: "mention Ann", "about Ann", "called Ann"
_SPOKEN_OF = re.compile(r"\b(?:mention(?:s|ed)?|about|call(?:s|ed)?|named?|to|ask(?:s|ed)?|tell|told|for|with|"
                        r"than|and|or)\s+$", re.IGNORECASE)
# what a count of one person's turns (places, time) is: a pick the model wrote for the person means nothing in it
_COUNTS = ("count_times", "count_places", "how_long")


def _at(plain: str, name: str) -> re.Match | None:
    return re.search(rf"(?<![\w'])({re.escape(name)})(?![\w])", plain)


def names_in(plain: str, names: Iterable[str]) -> list[str]:
    """The known names the question's own words (quotes removed) hold, as whole words, capitalised as names are."""
    return [n for n in dict.fromkeys(names) if n and _at(plain, n)]


def _left_out(q: Query, plain: str, names: Iterable[str], same: Callable[[str, str], bool]) -> list[str]:
    refs = [r for r in (q.who, q.other, q.until) if r]
    return [n for n in names_in(plain, names) if not any(r.lower() == n.lower() or same(n, r) for r in refs)]


def name_as_who(q: Query, plain: str, names: Iterable[str], quoted: list[str], relates: bool,
                same: Callable[[str, str], bool], added: list[str]) -> Query:
    """``q`` with the one name the question asks about as ``who=`` when the frame names nobody (module docstring)."""
    if q.who or q.other or q.until or quoted or relates or q.find in ("same", "more", "less"):
        return q
    named = _left_out(q, plain, names, same)
    if len(named) != 1:
        return q
    m = _at(plain, named[0])
    if m is not None and _SPOKEN_OF.search(plain[:m.start()]):
        return q    # what was spoken of: said_about's, not a person the frame selects
    added.append(f"who={named[0]!r}: the person the question names")
    if q.find in _COUNTS and q.pick:     # ("how many times did Ann talk?" written pick=first: Ann was the pick)
        added.append(f"pick={q.pick} dropped: it picked the person the question names")
        return replace(q, who=named[0], pick=None, by=None)
    return replace(q, who=named[0])
