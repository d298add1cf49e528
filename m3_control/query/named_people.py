"""A person the question names by the name the memory knows them by ("what was the second thing Ann said?"), left out
of the frame. Quoted words a person said are checked the same way (fidelity.py); a name was not: a frame
``find=what pick=2 by=turn`` for that question runs as "the second thing anyone said" and answers about somebody else.

The one name of a question whose frame names nobody is its ``who=`` (the person it asks about), unless the question
relates to someone's turn ("who spoke after Ann?": that is ``other=``, the model's to write) or names them as what
was spoken of ("did anyone mention Ann?"). A name the frame leaves out beside other people it does name goes back to
the model, as left-out quoted words do.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace

from .frame import Query

# the name as what someone spoke of or to, not who did something: "mention Ann", "about Ann", "called Ann"
_SPOKEN_OF = re.compile(r"\b(?:mention(?:s|ed)?|about|call(?:s|ed)?|named?|to|ask(?:s|ed)?|tell|told|for|with|"
                        r"than|and|or)\s+$", re.IGNORECASE)


def names_in(plain: str, names: Iterable[str]) -> list[str]:
    """The known names the question's own words (quotes removed) hold, as whole words, capitalised as names are."""
    return [n for n in dict.fromkeys(names) if n and re.search(rf"(?<![\w'])({re.escape(n)})(?![\w])", plain)]


def names_back(q: Query, plain: str, names: Iterable[str], quoted: list[str], relates: bool,
               same: Callable[[str, str], bool], added: list[str], missing: list[str]) -> Query:
    """``q`` with the one name the question asks about as ``who=`` (see the module docstring); ``missing`` gets the
    names the frame leaves out that the model has to place."""
    refs = [r for r in (q.who, q.other, q.until) if r]
    named = [n for n in names_in(plain, names) if not any(r.lower() == n.lower() or same(n, r) for r in refs)]
    for name in named:
        m = re.search(rf"(?<![\w'])({re.escape(name)})(?![\w])", plain)
        if m is not None and _SPOKEN_OF.search(plain[:m.start()]) and not refs:
            continue    # what was spoken of: said_about's, not a person the frame selects
        if not refs and not quoted and len(named) == 1 and not relates and q.find not in ("same", "more", "less"):
            added.append(f"who={name!r}: the person the question names")
            return replace(q, who=name)
        missing.append(f"the words '{name}' (who= or other=)")
    return q
