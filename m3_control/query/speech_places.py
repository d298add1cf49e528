"""Rooms compared by how much was said in them: "which room was quieter, the workshop or the office?", "in which room
did I hear more speech?", "was the office noisier than the lab?", "where was there less talking?".

"Quieter" and "more speech" are the seconds of detected speech placed in each room (every voice turn in the frame's
window, placed on the robot's track), not the number of turns nor of people (those are "which room had the most
turns / people?", place_forms.busiest_place). Two rooms the question names are compared; otherwise every room where
the robot was, a room with no speech counted as none. The answer says each room's seconds, checked against the
result like any frame's.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from m3_memory.store.where import find_place, load_places, robot_stays

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, _cap, _join, check, conditions, phrase
from .result import QueryResult
from .words import seconds_word, the_place

_LESS = ("quieter", "quietest", "less", "least")
_LOUD = r"quieter|quietest|noisier|noisiest|louder|loudest|chattier|chattiest"
_SPEECH = r"(?:speech|talk|talking|speaking|conversation|chatter|chatting|chat)"
# "which room was quieter?", "in which room did I hear more speech?", "which place had the least talking?"
_WHICH = re.compile(rf"^\W*(?:in\s+)?(?:which|what)\s+(?:of\s+the\s+(?:two\s+)?)?(?:rooms?|places?)\b[^?]*?"
                    rf"\b(?:(?P<w>{_LOUD})\b|(?P<m>more|less|most|least)\s+{_SPEECH}\b)"
                    # "where was there more talking?", "where did I hear less speech?"
                    rf"|^\W*where\s+(?:was|were|did)\b[^?]*?\b(?P<m2>more|less|most|least)\s+{_SPEECH}\b",
                    re.IGNORECASE)
_NOT_PERSON = r"(?!(?:person|one|man|woman|speaker|voice|guy|lady|first|second|third|last)\b)"
# "was the office quieter than the lab?", "was there more speech in the kitchen than in the hallway?"
_THAN = re.compile(rf"^\W*(?:was|were|is)\s+the\s+{_NOT_PERSON}(?P<a>[a-z]+(?:\s+room)?)\s+(?:\w+\s+)?"
                   rf"(?P<w>{_LOUD})\s+than\s+(?:in\s+)?the\s+{_NOT_PERSON}(?P<b>[a-z]+(?:\s+room)?)\b"
                   rf"|^\W*(?:was|were|is)\s+there\s+(?P<m>more|less)\s+{_SPEECH}\s+in\s+(?:the\s+)?"
                   rf"(?P<a2>[a-z]+(?:\s+room)?)\s+than\s+in\s+(?:the\s+)?(?P<b2>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)


@dataclass(frozen=True)
class SpeechPlacesAsk:
    less: bool                    # the quieter room (else the one with more speech)
    places: tuple[str, ...] = ()  # the rooms the question names (words as asked)
    yes_no: bool = False          # "was A quieter than B?": about the first of the two


def asks_speech_places(question: str) -> SpeechPlacesAsk | None:
    m = _THAN.match(question)
    if m is not None:
        word = (m.group("w") or m.group("m")).lower()
        a, b = (m.group("a"), m.group("b")) if m.group("a") else (m.group("a2"), m.group("b2"))
        return SpeechPlacesAsk(word in _LESS, (a, b), yes_no=True)
    m = _WHICH.match(question)
    if m is None:
        return None
    word = (m.group("w") or m.group("m") or m.group("m2")).lower()
    tail = question[m.end():]
    offered = re.findall(r"\bthe\s+([a-z]+(?:\s+room)?)\b", tail + " " + question[:m.start()], re.IGNORECASE)
    return SpeechPlacesAsk(word in _LESS, tuple(offered))


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's window (the rooms are the question's)."""
    return Query(find="who", act="spoke", from_=q.from_, to=q.to, at=q.at)


def answer(executor: QueryExecutor, q: Query, ask: SpeechPlacesAsk,
           before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    known = load_places(executor.store)
    rooms = [p.name for w in ask.places if (p := find_place(known, w)) is not None]
    if ask.yes_no and len(rooms) < 2:
        unknown = next(w for w in ask.places if find_place(known, w) is None)
        res.status, res.problem = "unknown_place", unknown
        return f"I have no place called {unknown!r} in my memory.", res
    if len(rooms) < 2:   # no two rooms offered: every room the robot was in
        rooms = list(dict.fromkeys(p for p, _, _ in robot_stays(executor.store, before_time)))
    voice = [e for e in res.events if e.kind == "voice"]
    executor.place_turns(res, voice)
    seconds: dict[str, float] = defaultdict(float)
    for e in voice:
        if res.places.get(e.id) in rooms:
            seconds[res.places[e.id]] += e.end - e.start
    res.place_counts = {r: int(round(seconds[r])) for r in rooms}
    res.events = [e for e in voice if res.places.get(e.id) in rooms]
    res.steps.append({"step": "seconds of speech per room", "rooms": dict(res.place_counts)})
    if not rooms:
        return "I have no record of the rooms I was in.", res
    pick = min if ask.less else max
    best = pick(seconds[r] for r in rooms)
    top = [r for r in rooms if abs(seconds[r] - best) < 0.5]
    res.value = top
    each = "; ".join(f"{the_place(r)} {seconds_word(res.place_counts[r])}" for r in rooms)
    cond = conditions(res)
    word = ("less" if ask.less else "more") if len(rooms) == 2 else ("the least" if ask.less else "the most")
    if ask.yes_no:
        a, b = rooms[0], rooms[1]
        yes = a in top and b not in top
        same = a in top and b in top
        lead = "About the same" if same else ("Yes" if yes else "No")
        text = f"{lead}: I heard {seconds_word(res.place_counts[a])} of speech in {the_place(a)} and " \
               f"{seconds_word(res.place_counts[b])} in {the_place(b)}{cond}."
    elif len(top) == len(rooms) > 1:
        text = f"About the same in each{cond}: {each} of speech."
    else:
        text = f"I heard {word} speech in {_join([the_place(r) for r in top])}{cond} (seconds of speech: {each})."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res
