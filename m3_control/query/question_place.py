"""The place a question names in words ("in the attic", "at the front door"), when no place the memory knows is in
it: the words after "in the" / "at the" / "on the", one or two, that are no time, order or person ("in the
morning", "the first one", "in the attic after 0:20")."""

from __future__ import annotations

import re

from .wording import QUOTED as _QUOTE

# (not what someone wears: "the woman in the red dress")
_PLACE = re.compile(r"(?<!woman )(?<!man )(?<!person )(?<!lady )(?<!guy )(?<!girl )(?<!boy )(?<!one )"
                    r"\b(?:in|at|on|inside)\s+(?:the|my|our)\s+([a-z]+(?:\s+[a-z]+)?)", re.IGNORECASE)
# ("the first one I heard" is a person, "the first one minute" a time)
_NOT_PLACE_WORDS = ("very beginning start end middle meantime "
                    "morning afternoon evening night day first last second third fourth fifth sixth seventh eighth "
                    "ninth tenth final next previous "
                    "minute minutes hour same time moment past future scene video clip memory recording whole other "
                    "one person people man woman most least clock timer mark dot order weekend weekends week holidays "
                    "conversation conversations discussion dialogue chat exchange session audio")
_NOT_PLACE = frozenset(_NOT_PLACE_WORDS.split())
# a second word that ends the place's name ("in the attic after 0:20", "in the hall when ...")
_AFTER_PLACE = frozenset(("did", "was", "were", "who", "when", "after", "before", "between", "during", "while", "since",
                          "until", "around", "by", "with", "and", "or", "for", "right", "just"))


def place_of_question(question: str, known: list[str]) -> str | None:
    """The place a question names: a known place anywhere in it, else the words after "in the" / "at the" ...
    (one or two words, not a time, not inside quoted speech)."""
    plain = _QUOTE.sub(" ", question)
    low = " ".join(plain.lower().split())
    for name in sorted(known, key=len, reverse=True):
        if re.search(rf"\b{re.escape(name.lower())}\b", low):
            return name
    for m in _PLACE.finditer(plain):
        words = m.group(1).lower().rstrip("?.!,").split()
        if not words or words[0] in _NOT_PLACE:
            continue
        if len(words) == 2 and (words[1] in _NOT_PLACE or words[1] in _AFTER_PLACE):   # "in the attic after 0:20"
            words = words[:1]
        return " ".join(words)
    return None
