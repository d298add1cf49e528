"""Does a picked memory answer about the person a question names by their words?

"How many times did I hear the person who said 'set white with p two soon'?" answered by picking some memory of
speech names whoever said that memory, though nobody said those words. A search by meaning cannot tell: the
turn records can. For each quote the question attributes to a speaker ("who said '...'", "did anyone say '...'",
"heard '...'"), the records are asked who said it (:func:`m3_control.query.people.resolve`, the query executor's own
matcher):

- nobody: no memory is about that person, so no picked memory answers the question;
- one person: a picked memory must be about them (one of its tags is theirs), unless it names nobody;
- several people (ambiguous): left to the answer; only the records can say which, and a query does.

Quotes of what was written ("the sign reading 'EXIT 12'") are not speech and are left alone.
"""

from __future__ import annotations

from typing import Any

from m3_memory.people import PeopleFacts
from m3_memory.tags import find_tags

from .query.fidelity import spoken_quotes
from .query.people import resolve


def _characters_of(memory: dict[str, Any], chars: Any) -> set[int]:
    """The characters a memory's tags name (face and voice tags through their character)."""
    out: set[int] = set()
    for kind, nid in find_tags(memory.get("raw") or memory.get("text") or ""):
        cid = chars.of_tag(kind, nid)
        if cid is not None:
            out.add(cid)
    return out


def misfit(store: Any, question: str, picked: list[dict[str, Any]], before_time: float | None) -> str:
    """Why the picked memories are not about the person the question names by their words ("" when they may be):
    ``"nobody said '...'"`` or ``"'...' was said by someone else"``."""
    quotes = spoken_quotes(question)
    if not quotes or not picked:
        return ""
    facts = PeopleFacts(store, before_time)
    chars = store.characters(before_time)
    for quote in quotes:
        who = resolve(facts, quote)
        if who.status == "unknown":
            return f"nobody said '{quote}'"
        if who.status == "found" and who.character_id is not None:
            named = [_characters_of(m, chars) for m in picked]
            if all(n and who.character_id not in n for n in named):
                return f"'{quote}' was said by someone else"
    return ""


__all__ = ["misfit", "spoken_quotes"]
