"""Rooms compared by how much was said in them: "which room was quieter, the workshop or the office?", "in which room
did I hear more speech?", "was the office noisier than the lab?", "where was there less talking?".

"Quieter" and "more speech" are the seconds of detected speech placed in each room (every voice turn in the frame's
window, placed on the robot's track), not the number of turns nor of people (those are "which room had the most
turns / people?", place_forms.busiest_place). Two rooms the question names are compared; otherwise every room where
the robot was, a room with no speech counted as none. One person's seconds per room answer "where did A talk for the
longest time?" (by turns: "where did A speak most often?" is a frame's). "Which room had the most silence?" is the
robot's seconds in each room less the speech placed there. The answer says each room's seconds, checked against the
result like any frame's.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from m3_memory.store.where import find_place, load_places, robot_stays

from .execute import QueryExecutor
from .frame import Query
from .named_ids import named_into
from .phrase import REFUSAL, _cap, _join, check, conditions, phrase
from .result import QueryResult
from .robot_track import robot_seconds_by_place
from .turn_sequence import people_in
from .wording import QUOTED
from .words import seconds_word, tenths, the_place

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
                   rf"(?P<a2>[a-z]+(?:\s+room)?)\s+than\s+in\s+(?:the\s+)?(?P<b2>[a-z]+(?:\s+room)?)\b"
                   # "was it quieter in the bedroom than in the office?"
                   rf"|^\W*(?:was|were|is)\s+it\s+(?P<w3>{_LOUD})\s+in\s+(?:the\s+)?(?P<a3>[a-z]+(?:\s+room)?)\s+than\s+"
                   rf"in\s+(?:the\s+)?(?P<b3>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)


_TALK = r"(?:spoke|speak|talk|talked|talking|speaking)"
# "in which room did B speak for the most seconds?", "where did A talk for the longest time in total?", "where did C
# talk the longest?", "in which room was A's speaking time the longest?" (one person's seconds per room)
_MOST = r"(?:most|least|longest|shortest)"
_LONGEST_IN = re.compile(rf"^\W*(?:(?:in\s+)?(?:which|what)\s+(?:rooms?|places?)|where)\b[^?]*?\b(?:"
                         rf"{_TALK}\s+(?:for\s+)?(?:the\s+)?(?P<a>{_MOST})\s+(?:(?:amount\s+of\s+)?(?:time|seconds)\b|"
                         r"in\s+(?:total|all)\b|overall\b|altogether\b)|"
                         rf"{_TALK}\s+(?:for\s+)?(?:the\s+)?(?P<b>longest|shortest)\b(?!\s+(?:single|one|sentence|turn|"
                         r"utterance|remark|line|thing|words?)\b)|"
                         rf"(?P<f>{_MOST})\s+of\s+[^?]*?(?:'s|’s)\s+(?:speaking|talking|talk|speech)(?:\s+time)?\b|"
                         rf"(?P<c>{_MOST})\s+(?:total\s+)?(?:speaking|talking|talk|speech)\s+time\b|"
                         rf"(?:speaking|talking|talk|speech)\s+time\s+(?:was|is)\s+(?:the\s+)?(?P<d>{_MOST})\b|"
                         rf"(?:spend|spent)\s+the\s+(?P<e>{_MOST})\s+time\s+{_TALK})", re.IGNORECASE)


# "did A speak more in the garage or in the hallway, in seconds?", "measured in seconds, did B talk more in the bathroom
# or the library?", "did C talk longer in the lab or the office?": one person's seconds in the two rooms named
_PERSON_TWO = re.compile(r"^\W*(?:(?:measured|counted|compared)\s+in\s+seconds\s*,\s*|in\s+seconds\s*,\s*)?"
                         r"(?:did|was|were)\b[^?]*?\b(?P<w>more|longer|less|shorter)\b[^?]*?\b(?:in|at)\s+(?:the\s+)?(?P<a>[a-z]+"
                         r"(?:\s+room)?)\s+(?:or|(?P<than>than))\s+(?:in\s+|at\s+)?(?:the\s+)?(?P<b>[a-z]+(?:\s+room)?)\b",
                         re.IGNORECASE)
_BY_SECONDS = re.compile(r"\bin\s+seconds\b|\bseconds\b|\b(?:longer|shorter)\b|\b(?:speaking|talking)\s+time\b|"
                         r"\b(?:more|less)\s+time\b",
                         re.IGNORECASE)
_SILENT = r"(?:silence|silent\s+time|quiet\s+time|time\s+(?:without|with\s+no)\s+(?:speech|talking|anyone\s+" \
    r"speaking|words)|time\s+when\s+(?:nobody|no\s+one)\s+(?:spoke|was\s+speaking|talked))"
# "was there more silence in the lab than in the office?": two rooms' seconds without speech, yes or no
_SILENCE_THAN = re.compile(rf"^\W*(?:was|were|is)\s+there\s+(?P<m>more|less)\s+(?:total\s+)?{_SILENT}\s+in\s+"
                           rf"(?:the\s+)?(?P<a>[a-z]+(?:\s+room)?)\s+than\s+in\s+(?:the\s+)?(?P<b>[a-z]+(?:\s+room)?)\b",
                           re.IGNORECASE)
# "which room had the most silence?", "in which room was there the most silence?", "where was there less time without
# speech?" (the robot's seconds in each room without speech placed there: not the quieter room, which is less speech)
_SILENCE = re.compile(rf"^\W*(?:(?:in\s+)?(?:which|what)\s+(?:of\s+the\s+(?:two\s+)?)?(?:rooms?|places?)|where)\b[^?]*?"
                      rf"\b(?P<m>more|less|most|least)\s+(?:total\s+)?{_SILENT}"
                      # "where was it silent the longest?", "in which room was it quiet for the most time?"
                      rf"|^\W*(?:(?:in\s+)?(?:which|what)\s+(?:rooms?|places?)|where)\s+was\s+(?:it|there)\s+"
                      rf"(?:silent|quiet|no\s+speech)\s+(?:for\s+)?(?:the\s+)?(?P<m2>longest|shortest|most|least)\b",
                      re.IGNORECASE)


@dataclass(frozen=True)
class SpeechPlacesAsk:
    less: bool                    # the quieter room (else the one with more speech)
    places: tuple[str, ...] = ()  # the rooms the question names (words as asked)
    yes_no: bool = False          # "was A quieter than B?": about the first of the two
    who: str | None = None        # one person's seconds of speech per room ("where did A talk the longest?")
    silence: bool = False         # the robot's seconds in each room without speech ("which room had most silence?")


def asks_speech_places(question: str) -> SpeechPlacesAsk | None:
    people = people_in(question)
    m = _SILENCE.match(question)
    if m is not None and not people:
        word = (m.group("m") or m.group("m2")).lower()
        offered = re.findall(r"\bthe\s+([a-z]+(?:\s+room)?)\b", question[m.end():], re.IGNORECASE)
        return SpeechPlacesAsk(word in ("less", "least", "shortest"), tuple(offered), silence=True)   # (in all)
    m = _PERSON_TWO.match(QUOTED.sub(" quoted ", question))
    if m is not None and len(people) == 1 and _BY_SECONDS.search(QUOTED.sub(" ", question)):
        return SpeechPlacesAsk(m.group("w").lower() in ("less", "shorter"), (m.group("a"), m.group("b")),
                               who=people[0], yes_no=bool(m.group("than")))
    m = _LONGEST_IN.match(QUOTED.sub(" quoted ", question))
    if m is not None and len(people) <= 1:
        word = next(g for g in m.group("a", "b", "c", "d", "e", "f") if g).lower()
        return SpeechPlacesAsk(word in ("least", "shortest"), who=people[0] if people else None)
    m = _SILENCE_THAN.match(question)
    if m is not None and not people:    # "was there more silence in the lab than in the office?"
        return SpeechPlacesAsk(m.group("m").lower() == "less", (m.group("a"), m.group("b")), yes_no=True, silence=True)
    m = _THAN.match(question)
    if m is not None:
        word = (m.group("w") or m.group("m") or m.group("w3")).lower()
        a, b = (m.group("a"), m.group("b")) if m.group("a") else (m.group("a2"), m.group("b2")) if m.group("a2") \
            else (m.group("a3"), m.group("b3"))
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


def _seconds_by_room(executor: QueryExecutor, res: QueryResult, turns: list) -> defaultdict[str, float]:
    """The seconds of ``turns`` placed in each room on the robot's track (a room with none reads 0)."""
    executor.place_turns(res, turns)
    seconds: defaultdict[str, float] = defaultdict(float)
    for e in turns:
        if e.id in res.places:
            seconds[res.places[e.id]] += e.end - e.start
    return seconds


def answer(executor: QueryExecutor, q: Query, ask: SpeechPlacesAsk,
           before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    if ask.who:
        return _person(executor, res, ask, before_time)
    known = load_places(executor.store)
    rooms = [p.name for w in ask.places if (p := find_place(known, w)) is not None]
    if ask.yes_no and len(rooms) < 2:
        unknown = next(w for w in ask.places if find_place(known, w) is None)
        res.status, res.problem = "unknown_place", unknown
        return f"I have no place called {unknown!r} in my memory.", res
    if len(rooms) < 2:   # no two rooms offered: every room the robot was in
        rooms = list(dict.fromkeys(p for p, _, _ in robot_stays(executor.store, before_time)))
    voice = [e for e in res.events if e.kind == "voice"]
    if ask.silence:
        return _silence(executor, res, voice, rooms, ask, before_time)
    seconds = _seconds_by_room(executor, res, voice)
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


def _person(executor: QueryExecutor, res: QueryResult, ask: SpeechPlacesAsk,
            before_time: float | None) -> tuple[str, QueryResult]:
    """"A spoke for the longest time in the garden (3.9 seconds; the lab 1.9 seconds)." (each room where they spoke,
    in tenths; two rooms equal in tenths are told apart in hundredths, or said to be a tie)."""
    named = named_into(executor, Query(find="who", act="spoke"), ask.who or "", res, before_time)
    if named.status != "ok":
        return phrase(named), named
    cid = named.who["who"].character_id
    who, cond = res.describe[cid], conditions(res)
    mine = [e for e in res.events if e.kind == "voice" and e.character_id == cid]
    seconds = _seconds_by_room(executor, res, mine)
    res.events = mine + [e for e in res.events if e not in mine]
    known = load_places(executor.store)
    offered = [p.name for w in ask.places if (p := find_place(known, w)) is not None]
    if ask.places and len(offered) < len(ask.places):
        unknown = next(w for w in ask.places if find_place(known, w) is None)
        return f"I don't know a place called \"{unknown}\".", res
    if offered:      # the two rooms the question names, a room where they never spoke as 0
        seconds = {r: seconds.get(r, 0.0) for r in offered}
    if not seconds:
        return _cap(f"{who} never spoke{cond}" + (" in a place I know." if mine else ".")), res
    ranked = sorted(seconds, key=lambda r: seconds[r], reverse=not ask.less)
    res.place_counts = {r: tenths(seconds[r]) for r in ranked}
    res.seconds = {**res.seconds, **{-1 - i: round(seconds[r], 2) for i, r in enumerate(ranked)},
                   **{-101 - i: tenths(seconds[r]) for i, r in enumerate(ranked)}}
    res.steps.append({"step": "one person's seconds of speech per room", "rooms": dict(res.place_counts)})
    word = f"for the {'shortest' if ask.less else 'longest'} time" if not offered else \
        ("for less time" if ask.less else "longer")
    each = "; ".join(f"{the_place(r)} {seconds_word(res.place_counts[r])}" for r in ranked[1:])
    first = ranked[0]
    res.value = [first]
    if len(ranked) > 1 and res.place_counts[ranked[1]] == res.place_counts[first]:
        if round(seconds[ranked[1]], 2) == round(seconds[first], 2):
            res.value = [r for r in ranked if round(seconds[r], 2) == round(seconds[first], 2)]
            text = f"{who} spoke equally long in {_join([the_place(r) for r in res.value])}{cond} " \
                   f"({seconds_word(res.place_counts[first])} each)."
        else:
            text = f"{who} spoke {word} in {the_place(first)}{cond}, by a hair: {round(seconds[first], 2):.2f} " \
                   f"seconds there, {round(seconds[ranked[1]], 2):.2f} in {the_place(ranked[1])}."
    else:
        text = f"{who} spoke {word} in {the_place(first)}{cond} ({seconds_word(res.place_counts[first])}" \
               f"{'; ' + each if each else ''})."
    if ask.yes_no and offered:     # "did A speak for longer in the lab than in the kitchen?": about the first room
        text = ("Yes: " if res.value == [offered[0]] else "No: ") + text
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res


def _silence(executor: QueryExecutor, res: QueryResult, voice: list, rooms: list[str], ask: SpeechPlacesAsk,
             before_time: float | None) -> tuple[str, QueryResult]:
    """"The office had the most silence: 24 of the 35 seconds I was there had no speech; the hallway 20 of 30." (the
    robot's whole seconds in each room less the seconds of speech placed there)."""
    t1, t2 = (res.read(x) for x in (res.query.from_, res.query.to))
    stay = robot_seconds_by_place(executor.store, t1, t2 if t2 is not None else before_time)
    speech = _seconds_by_room(executor, res, voice)
    rooms = [r for r in rooms if r in stay]
    if not rooms:
        return "I have no record of the rooms I was in.", res
    quiet = {r: max(0, int(round(stay[r] - speech[r]))) for r in rooms}
    res.place_counts = dict(quiet)
    res.seconds = {**res.seconds, **{-1 - i: float(stay[r]) for i, r in enumerate(rooms)}}
    res.value = tuple(stay[r] for r in rooms)
    res.events = [e for e in voice if res.places.get(e.id) in rooms]
    res.steps.append({"step": "seconds without speech per room", "rooms": dict(quiet), "robot": dict(stay)})
    ranked = sorted(rooms, key=lambda r: quiet[r], reverse=not ask.less)
    best = quiet[ranked[0]]
    top = [r for r in ranked if abs(quiet[r] - best) < 1]
    cond = conditions(res)

    def said(r: str) -> str:
        return f"{quiet[r]} of the {stay[r]} seconds I was there had no speech"

    others = "; ".join(f"{the_place(r)} {quiet[r]} of {stay[r]}" for r in ranked if r not in top)
    word = ("less" if ask.less else "more") if len(rooms) == 2 else ("the least" if ask.less else "the most")
    if len(top) > 1:
        text = f"About the same in {_join([the_place(r) for r in top])}{cond}: " + \
            "; ".join(f"{the_place(r)} {said(r)}" for r in top)
    else:
        text = f"{the_place(top[0])} had {word} silence{cond}: {said(top[0])}"
    if ask.yes_no and len(rooms) == 2:     # about the first room the question names
        text = f"{'Yes' if top == rooms[:1] else 'No'}: {text}"
    text = _cap(text + (f"; {others}." if others else "."))
    return (REFUSAL if check(text, res) else text), res
