"""A second ask joined to a question ("How many times did A speak, and in which rooms?", "Who spoke between 0:40
and 1:00, and how many times?", "Who spoke right after A, and what did they say?").

The frame answers the question without its second ask (read by the model and the checks as a question of its own:
"how many times" in a tail made the frame count people who spoke that many times); the second ask is then answered
for the people the executed result holds, from the same result (their turns in its scope, their places on the
robot's track), and checked like any answer. Nothing is said for it when the result holds nobody.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .execute import QueryExecutor
from .phrase import _cap, _join, check, times_word
from .result import QueryResult
from .words import the_place as _the

_ALSO = re.compile(
    r",?\s+and\s+(?P<ask>(?:when|at\s+what\s+time)(?:\s+(?:was\s+that|did\s+(?:they|he|she)(?:\s+\w+)?))?"
    r"|where\s+(?:was\s+I|were\s+we|did\s+I\s+hear\s+(?:it|that|them|him|her))(?:\s+(?:then|at\s+the\s+time))?"
    r"|where(?:\s+(?:was\s+that|were\s+they|was\s+(?:he|she)|did\s+(?:they|he|she)(?:\s+\w+)?))?"
    r"|(?:in\s+)?(?:which|what)\s+(?:rooms?|places?)(?:\s+(?:was\s+that|were\s+they|did\s+(?:they|he|she)"
    r"(?:\s+\w+)?|(?:was\s+I|were\s+we)(?:\s+(?:in|at))?(?:\s+(?:then|at\s+the\s+time|at\s+that\s+(?:time|"
    r"moment)))?))?"
    r"|how\s+many\s+times(?:\s+(?:each|did\s+(?:they|he|she|each)(?:\s+\w+)?))?|how\s+often"
    r"|what\s+did\s+(?:they|he|she)\s+say|what\s+(?:was|were)\s+(?:said|their\s+words)"
    r"|who\s+(?:said|says|spoke|uttered)\s+(?:it|that|them|those(?:\s+words)?|this)|whose\s+(?:was\s+it|was\s+that|"
    r"were\s+they)"
    r"|(?:and\s+)?by\s+whom)\s*[?.!]*\s*$",
    re.IGNORECASE)


def split(question: str) -> tuple[str | None, str]:
    """(the second ask: "when" / "where" / "where_me" (where the robot was) / "times" / "what" / "who" (who said
    it), or None; the question without it)."""
    m = _ALSO.search(question)
    if m is None or m.start() == 0:
        return None, question
    ask = m.group("ask").lower()
    if ask.startswith(("who", "by whom")):   # "what was said last, and who said it (whose was it)?"
        return "who", question[:m.start()].rstrip(" ,") + "?"
    if re.match(r"where\s+(?:was\s+i|were\s+we|did\s+i)\b|(?:in\s+)?(?:which|what)\s+(?:room|place)s?\s+(?:was\s+i|"
                r"were\s+we)\b", ask):   # the robot's place at those moments
        return "where_me", question[:m.start()].rstrip(" ,") + "?"
    kind = "what" if ask.startswith("what did") or ask.startswith("what w") else \
        "where" if re.match(r"(?:in\s+)?(?:which|what)\s+(?:room|place)", ask) or ask.startswith("where") else \
        "times" if ask.startswith("how") else "when"
    return kind, question[:m.start()].rstrip(" ,") + "?"


# "How many people did I hear in total, and who spoke the most?": two whole questions, each asked on its own
_SECOND_QUESTION = re.compile(r"\s*[,;]\s*and\s+(?=(?:who|whom|whose|what|when|where|which|how|did|does|do|was|were|is|"
                              r"are|has|had)\b)", re.IGNORECASE)
_PRONOUN = re.compile(r"\b(?:he|she|they|them|him|her|his|their|theirs|it|that|this|those|there|then)\b", re.IGNORECASE)
# the one place a first question names ("when did I get to the porch"): what "there" means in the second
_PLACE_OF_FIRST = re.compile(r"\b(?:in|at|to|into|from|reach|reached|enter|entered|leave|left)\s+the\s+"
                             r"(?P<place>[a-z]+(?:\s+room)?)\s*[?]?\s*$", re.IGNORECASE)
# "which room did I visit first", "what was the last place I went to": a room the robot's track gives by its order
_WHICH_ROOM = re.compile(r"^\W*(?:which|what)\s+(?:(?:room|place)\s+did\s+(?:I|we)\s+(?:visit|go\s+(?:in)?to|enter|"
                         r"reach|get\s+to)\s+(?P<ord>first|last|second|third)|(?:was|is)\s+the\s+(?P<ord2>first|last|"
                         r"second|third)\s+(?:room|place)\s+(?:I|we)\s+(?:visited|went\s+(?:in)?to|entered))\b",
                         re.IGNORECASE)
_ASKS = re.compile(r"^\W*(?:who|whom|whose|what|when|where|which|how|did|does|do|was|were|is|are|has|had|in\s+which|"
                   r"at\s+what)\b", re.IGNORECASE)


def two_questions(question: str) -> tuple[str, str] | None:
    """The two whole questions a question joins with ", and" (the second needs nothing from the first: no
    pronoun), else None."""
    if split(question)[0] is not None:      # "..., and when?": a second ask of the same result
        return None
    parts = _SECOND_QUESTION.split(question.strip(), maxsplit=1)
    if len(parts) != 2 or not _ASKS.match(parts[0]):
        return None
    second = parts[1].strip()
    place = _PLACE_OF_FIRST.search(parts[0])
    room = _WHICH_ROOM.match(parts[0])
    if room is not None and re.search(r"\bthere\b", second, re.IGNORECASE):
        # "which room did I visit first, and who spoke there first?": "there" is that room, as place_refs.py reads
        # "the first room I visited"
        nth = (room.group("ord") or room.group("ord2")).lower()
        second = re.sub(r"\b(?:in\s+|at\s+)?there\b", f"in the {nth} room I visited", second, count=1,
                        flags=re.IGNORECASE)
    elif place is not None and re.search(r"\bthere\b", second, re.IGNORECASE):
        # "when did I get to the porch, and who spoke first there?": "there" is the place the first names
        second = re.sub(r"\b(?:in\s+|at\s+)?there\b", f"in the {place.group('place')}", second, count=1,
                        flags=re.IGNORECASE)
    if _PRONOUN.search(second) or len(second.split()) < 3:
        return None
    first = parts[0].rstrip(" ?") + "?"
    return first, second[0].upper() + second[1:].rstrip(" ?.") + "?"


def _one_turn(res: QueryResult) -> bool:
    """Whether the frame picked one person by their first or last turn ("who spoke first (last) in the lab?"): the
    second ask is about that turn, not all of theirs."""
    q = res.query
    return q.find == "who" and q.pick in ("first", "last") and not q.top and len(res.people) == 1


def answer(kind: str, res: QueryResult, ex: QueryExecutor, said: str = "") -> str:
    """The second ask answered for the result's people ("" when it holds nobody, or the answer would state what
    the result does not hold). "Who said it?" is not asked again of the people the first answer (``said``) names
    already ("which was the shortest turn, and who spoke it?": the turn was said with its speaker)."""
    people = [p for p in res.people if p.events]
    if res.picked:     # the turns the answer named out of everyone's: the second ask is of them (and their words)
        people = [replace(p, events=[e for e in res.picked if e.character_id == p.character_id])
                  for p in res.people if any(e.character_id == p.character_id for e in res.picked)]
    if kind == "who" and any(res.describe.get(p.character_id, p.description).lower() in said.lower() for p in people):
        return ""
    if res.status != "ok" or not people:
        return ""
    parts: list[str] = []
    for p in people:
        d = res.describe.get(p.character_id, p.description)
        voice = [e for e in p.events if e.kind == "voice"]
        if kind in ("what", "when", "where", "where_me") and _one_turn(res) and voice:
            # "who spoke first in the lab, and what did they say?": the words (time, place, the robot's place) of
            # that first turn only
            voice = [voice[0] if res.query.pick == "first" else voice[-1]]
            p = replace(p, events=voice)
        if kind == "times":
            parts.append(f"{d} spoke {times_word(res.spoke.get(p.character_id, len(voice)))}")
        elif kind == "when":
            parts.append(f"{d} at {_join([res.say(e.start) for e in p.events])}")
        elif kind == "who":   # who said the words the result holds
            parts.append(f"{d} said it at {_join(list(dict.fromkeys(res.say(e.start) for e in voice)))}"
                         if voice else f"{d} was seen")
        elif kind == "where_me":   # the robot's place at each of the moments the result holds
            ex.place_turns(res, p.events)
            at = [f"in {_the(res.places[e.id])} at {res.say(e.start)}" for e in p.events if e.id in res.places]
            if at:
                parts.append(f"I was {_join(list(dict.fromkeys(at)))}" + (f" ({d})" if len(people) > 1 else ""))
        elif kind == "what":
            said = list(dict.fromkeys(e.text.strip().rstrip(".!?") for e in voice if e.text.strip()))
            if said:
                words = _join(['"' + s + '"' for s in said])
                parts.append(f"{d} said {words}")
        else:
            ex.place_turns(res, p.events)
            where = list(dict.fromkeys(res.places[e.id] for e in p.events if e.id in res.places))
            if where:
                parts.append(f"{d} {'spoke' if voice else 'was seen'} in {_join([_the(w) for w in where])}")
    text = f"{_cap('; '.join(parts))}." if parts else ""
    return "" if not text or check(text, res) else text
