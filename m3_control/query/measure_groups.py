"""Turns measured group by group, and the groups ranked or listed: "in which room was the longest pause between
turns?", "during which third of the recording did B talk most often?", "how many speakers were heard in each of the
three thirds?", "which half had the most silence?", "who had the most turns lasting more than two seconds?".

A question is read as three parts, each from a small vocabulary of its own, so that their combinations need no code
of their own:

- the groups: the rooms the robot was in (turns placed on its track), the halves, thirds, quarters or minutes of the
  recording (its start to the last input the memory holds; a turn belongs to the part it began in), or the people;
- each group's measure: its turns (one person's, or those longer / shorter than a length), its different speakers,
  its seconds of speech, its silence (all of it, the longest, the shortest, the average gap between two turns that
  follow each other in the group), its longest / shortest / average turn;
- what is asked of them: the group with the most (the least), or every group's figure.

Everyone's voice turns are selected by one frame (in the place the question names, unless the rooms are the groups);
the people named are resolved as that frame would. The answer gives every group's figure, checked against the
result like any frame's. Forms the other plans answer alone (the room with the most turns, people or speech) are
left to them.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass

from m3_memory.store.where import load_places, robot_stays

from .execute import QueryExecutor
from .frame import Query
from .named_ids import scope_and_people
from .phrase import REFUSAL, _cap, _join, check, phrase
from .question_place import place_of_question
from .result import QueryResult
from .turn_sequence import people_in
from .wording import QUOTED
from .words import AMOUNT, seconds_word, tenths, the_place

_PART_NAMES = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4}
_ORDINAL = ("first", "second", "third", "fourth")
_GROUP = r"(?P<g>rooms?|places?|locations?|halves|half|thirds?|quarters?|minutes?)"
# "in which room ...", "during which third of the recording ...", "what minute ...": the group with the most (least)
_WHICH = re.compile(rf"\b(?:in|during|for)?\s*(?:which|what)\s+{_GROUP}\b", re.IGNORECASE)
# "where was the longest pause?" (rooms)
_WHERE = re.compile(r"^\W*where\s+(?:was|were|did|had)\b", re.IGNORECASE)
# "in each of the three thirds", "in every room", "per quarter", "room by room", "for each half"
_EACH = re.compile(rf"\b(?:(?:in|for|during)\s+)?(?:each|every)\s+(?:one\s+)?(?:of\s+the\s+(?:\w+\s+)?)?{_GROUP}\b|"
                   r"\b(?=\w+\s+by\s+\w)(?P<g2>room|place|half|third|quarter|minute)\s+by\s+\w+",
                   re.IGNORECASE)
_WHO = re.compile(r"^\W*(?:who|whose|which\s+(?:person|speaker|people|one)|which\s+of\s+(?:them|the\s+people))\b",
                  re.IGNORECASE)

_MOST = r"most|more|longest|longer|biggest|largest|greatest|highest|maximum"
_LEAST = r"least|fewest|fewer|less|shortest|shorter|smallest|lowest|minimum"
_QUIET = r"(?:pauses?|silences?|gaps?|lulls?|breaks?|quiet(?:\s+(?:stretch|spell|period|time)s?)?)"
_TURN = r"(?:turns?|utterances?|remarks?|sentences?)"
_TALK = r"(?:talk|talked|talking|speak|spoke|speaking|speech|heard)"
# each measure: (name, pattern); the first that matches is the measure (so "longest pause" is not "longest turn")
_MEASURES: tuple[tuple[str, re.Pattern], ...] = (
    ("mean_silence", re.compile(rf"\b(?:average|mean|typical)\s+(?:length\s+of\s+(?:the\s+)?)?{_QUIET}|"
                                rf"\b{_QUIET}\b[^?]*\bon\s+average\b|\bon\s+average\b[^?]*\b{_QUIET}", re.IGNORECASE)),
    ("max_silence", re.compile(rf"\b(?:longest|biggest|largest|greatest|longer)\s+{_QUIET}", re.IGNORECASE)),
    ("min_silence", re.compile(rf"\b(?:shortest|smallest|briefest|shorter)\s+{_QUIET}", re.IGNORECASE)),
    ("silence", re.compile(rf"\b(?:(?P<w>{_MOST}|{_LEAST})\s+(?:total\s+)?(?:silence|quiet|time\s+without\s+speech)|"
                           r"(?:silent|quiet)\s+(?:for\s+)?(?:the\s+)?(?:longest|most|least|shortest))\b",
                           re.IGNORECASE)),
    ("mean_turn", re.compile(rf"\b(?:average|mean|typical)\s+(?:{_TURN}\s*)?(?:length|duration)?|"
                             rf"\b{_TURN}\b[^?]*\bon\s+average\b", re.IGNORECASE)),
    ("max_turn", re.compile(rf"\b(?:longest|longer)\s+(?:single\s+)?{_TURN}", re.IGNORECASE)),
    ("min_turn", re.compile(rf"\b(?:shortest|shorter|briefest)\s+(?:single\s+)?{_TURN}", re.IGNORECASE)),
    ("people", re.compile(r"\b(?:how\s+many|number\s+of|(?:the\s+)?(?:most|fewest|more|fewer|least))\s+(?:different\s+|"
                          r"distinct\s+|separate\s+)?(?:speakers|people|persons|voices|talkers)\b", re.IGNORECASE)),
    ("turns", re.compile(rf"\b(?:most|least|more|less)\s+(?:often|frequently)\b|\b(?:most|fewest|more|fewer|number\s+"
                         rf"of|how\s+many|largest\s+number\s+of|smallest\s+number\s+of)\s+(?:{_TURN}|times)\b|"
                         rf"\bhow\s+(?:many\s+times|often)\b|\b{_TALK}\s+(?:the\s+)?(?:most|least)\s+(?:often|times)\b",
                         re.IGNORECASE)),
    ("seconds", re.compile(rf"\b(?:most|least|more|less)\s+(?:time\s+)?(?:speech|talking|speaking|talk)\b|"
                           rf"\b{_TALK}\s+for\s+(?:longer|less\s+time|more\s+time|the\s+longest)\b|\b{_TALK}\s+(?:the\s+)?"
                           r"(?:most|least|longest|shortest)\b(?!\s+(?:often|times))|\bmost\s+(?:seconds|time)\s+"
                           r"(?:of\s+)?(?:speech|talking|speaking)|\bhow\s+(?:long|many\s+seconds)\b", re.IGNORECASE)),
)
_LESS_WORDS = re.compile(rf"\b(?:{_LEAST})\b|\bquiet\s+for\s+the\s+shortest\b", re.IGNORECASE)
# a length the turns must have: "turns lasting more than two seconds", "turns longer than 3 s", "turns under 2 seconds"
_LENGTH = re.compile(rf"\b(?:lasting|that\s+lasted|which\s+lasted|of|with|were)?\s*(?P<w>more\s+than|over|"
                     rf"longer\s+than|"
                     rf"at\s+least|less\s+than|under|shorter\s+than|below)\s+(?P<n>{AMOUNT})(?:s|\s*seconds?|\s*secs?)\b",
                     re.IGNORECASE)
_NOT_PLACE = frozenset(("largest", "smallest", "greatest", "most", "fewest", "least", "number", "highest", "lowest"))
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
            "nine": 9, "ten": 10, "fifteen": 15, "twenty": 20, "thirty": 30}
# left to the plans that answer them alone: the room with the most turns, people or seconds of speech
_OTHERS_ROOM = ("turns", "people", "seconds", "silence")


@dataclass(frozen=True)
class GroupAsk:
    groups: str                  # room | part | person
    parts: int = 0               # part: halves 2, thirds 3, quarters 4; minutes 0
    measure: str = "turns"       # see _MEASURES
    least: bool = False          # the group with the least (else the most)
    each: bool = False           # every group's figure (no ranking)
    person: str | None = None    # only this person's turns
    longer: float | None = None  # only turns longer than this (seconds)
    shorter: float | None = None  # only turns shorter than this
    scopes: tuple[str, ...] = ()  # person: two scopes compared ("more often in the first third than in the last");
    #                               else two groups' figures compared yes or no ("was the longest silence in the
    #                               bedroom longer than in the lab?")
    yes_no: bool = False          # asked yes or no


def _amount(text: str) -> float:
    word = text.split()[0].lower()
    return float(_NUMBERS.get(word, 0) or word)


# "which people spoke more often in the first third than in the final third?", "who spoke more in the kitchen than in
# the office?", "who had fewer turns in the second half than in the first?": each person's figure in two scopes
_SCOPE = r"(?:in|during|within)\s+the\s+(?:(?:first|second|middle|third|fourth|last|final)(?:\s+(?:half|third|" \
    r"quarter))?|[a-z]+(?:\s+room)?)"
_THAN = re.compile(rf"\b(?P<w>more|less|fewer|longer|shorter)\b(?:\s+(?P<how>often|times|turns|frequently|speech|"
                   rf"seconds|time))?[^?]*?\b(?P<a>{_SCOPE})(?:\s+of\s+the\s+\w+)?\s+than\s+(?:they\s+did\s+)?"
                   rf"(?P<b>{_SCOPE}|the\s+(?:first|second|middle|third|fourth|last|final)(?:\s+(?:half|third|quarter))?)\b",
                   re.IGNORECASE)
_PART_WORD = re.compile(r"\bthe\s+(first|second|middle|third|fourth|last|final)(?:\s+(half|third|quarter))?\b",
                        re.IGNORECASE)


def asks_compare(question: str) -> GroupAsk | None:
    """Each person's turns (seconds) in two scopes compared, the people for whom the first is more (less)."""
    plain = QUOTED.sub(" quoted ", question)
    m = _THAN.search(plain)
    if m is None or not _WHO.match(plain) or people_in(question):
        return None
    a, b = (re.sub(r"^(?:in|during|within)\s+", "", m.group(x), flags=re.IGNORECASE).lower() for x in ("a", "b"))
    pa, pb = _PART_WORD.match(a), _PART_WORD.match(b)
    if pa is None or pb is None or not (pa.group(2) or pb.group(2)):
        return None     # (two rooms: place_counts.py)
    noun = pa.group(2) or pb.group(2)
    a, b = f"the {pa.group(1).lower()} {noun}", f"the {pb.group(1).lower()} {noun}"
    how = (m.group("how") or "").lower()
    seconds = how in ("speech", "seconds", "time") or m.group("w").lower() in ("longer", "shorter")
    return GroupAsk("person", measure="seconds" if seconds else "turns",
                    least=m.group("w").lower() in ("less", "fewer", "shorter"), scopes=(a, b))


_ANYONE = r"(?:anyone|anybody|someone|somebody|any\s+(?:one|person|speaker)|a\s+(?:person|speaker))"
_PARTS = r"(?P<g>quarters?|thirds?|halves|half)"
# "did anyone speak in every quarter?", "who was heard in all three thirds?", "was someone heard in each quarter?"
_EVERY_PART = re.compile(rf"^\W*(?:(?P<yes>did|was|were|has|had)\s+{_ANYONE}|who|which\s+(?:people|persons|speakers|"
                         rf"person|speaker))\b[^?]*\b(?:in|during)\s+(?:every|each|all(?:\s+(?:of\s+)?the)?)\s+"
                         rf"(?:(?:two|three|four)\s+)?(?:single\s+)?{_PARTS}\b", re.IGNORECASE)
# "which person spoke in the most quarters?", "who was heard in the largest number of thirds?"
_MOST_PARTS = re.compile(rf"^\W*(?:who|which\s+(?:person|speaker|one))\b[^?]*\b(?:the\s+)?(?P<w>most|largest\s+"
                         rf"number\s+of|greatest\s+number\s+of|fewest|smallest\s+number\s+of|least)\s+(?:different\s+)?"
                         rf"{_PARTS}\b", re.IGNORECASE)
# two groups named: "... in the bedroom longer than (the longest silence) in the lab?", "did the bedroom have a longer
# longest silence than the lab?"
_GROUP_NAME = re.compile(r"\bthe\s+(?!(?:longest|shortest|average|mean|person|first|second|third|fourth|last|final|"
                         r"recording|same|other|one|turns?|silences?|pauses?|gaps?)\b)(?P<r>[a-z]+(?:\s+room)?)\b",
                         re.IGNORECASE)
_COMPARATIVE = re.compile(r"\b(?:longer|shorter|greater|smaller|bigger|more|less|fewer)\b", re.IGNORECASE)


def asks_spread(question: str) -> GroupAsk | None:
    """People by the parts of the recording they spoke in: in every one, or the most (fewest)."""
    plain = QUOTED.sub(" quoted ", question)
    m = _EVERY_PART.search(plain)
    if m is not None:
        return GroupAsk("person", _PART_NAMES[m.group("g").lower()], "spread", each=True, yes_no=bool(m.group("yes")))
    m = _MOST_PARTS.search(plain)
    if m is not None:
        return GroupAsk("person", _PART_NAMES[m.group("g").lower()], "spread",
                        least=m.group("w").lower().startswith(("fewest", "smallest", "least")))
    return None


def asks_pair(question: str) -> GroupAsk | None:
    """Two rooms' (parts') silence or turn figure compared, yes or no."""
    plain = QUOTED.sub(" quoted ", question)
    if not re.match(r"^\W*(?:was|were|did|is|had|has)\b", plain, re.IGNORECASE) or not _COMPARATIVE.search(plain):
        return None
    measure = next((name for name, pattern in _MEASURES if pattern.search(plain)), None)
    if measure not in ("max_silence", "min_silence", "mean_silence", "max_turn", "min_turn") or people_in(question):
        return None     # (two rooms' average turns: turn_average.py)
    parts = [f"the {m.group(1).lower()} {m.group(2).lower()}" for m in _PART_WORD.finditer(plain) if m.group(2)]
    names = parts if len(parts) == 2 else list(dict.fromkeys(m.group("r").lower() for m in _GROUP_NAME.finditer(plain)))
    if len(names) != 2:
        return None
    first = plain.lower().find(names[0].split()[-1])
    than = plain.lower().find(" than ")
    less = bool(re.search(r"\b(?:shorter|smaller|less|fewer)\b", plain[than:] if than > first else plain, re.I)) \
        if than < 0 else bool(re.search(r"\b(?:shorter|smaller|less|fewer)\b", plain[:than], re.IGNORECASE))
    return GroupAsk("pair", measure=measure, least=less, scopes=tuple(names), yes_no=True)


def asks_groups(question: str) -> GroupAsk | None:
    compared = asks_compare(question) or asks_spread(question) or asks_pair(question)
    if compared is not None:
        return compared
    plain = QUOTED.sub(" quoted ", question)
    each = _EACH.search(plain)
    which = _WHICH.search(plain)
    m = each or which
    if m is not None:
        word = (m.group("g") or m.group("g2") or "").lower() if m.re is _EACH else m.group("g").lower()
        groups = "room" if word.startswith(("room", "place", "location")) else "part"
        parts = 0 if groups == "room" or word.startswith("minute") else _PART_NAMES[word]
    elif _WHERE.match(plain):
        groups, parts = "room", 0
    elif _WHO.match(plain):
        groups, parts = "person", 0
    else:
        return None
    measure = next((name for name, pattern in _MEASURES if pattern.search(plain)), None)
    if measure is None:
        return None
    length = _LENGTH.search(plain)
    longer = shorter = None
    if length is not None and measure in ("turns", "people", "seconds"):
        n = _amount(length.group("n"))
        longer, shorter = (None, n) if re.match(r"less|under|shorter|below", length.group("w"), re.I) else (n, None)
    people = people_in(question)
    if len(people) > 1:
        return None
    if groups == "room" and (measure in _OTHERS_ROOM or measure in ("max_turn", "min_turn")) and longer is None \
            and shorter is None:
        return None     # (room_people.py, each_room.py, speech_places.py, length_limits.py, the frame's busiest place)
    if groups == "person" and (longer is None and shorter is None or measure != "turns" or people):
        return None     # (who spoke most, whose turns were longest: the frame's, ranking.py, turn_average.py)
    if groups == "part" and parts == 0 and not each and measure in ("turns", "people", "seconds") \
            and longer is None and shorter is None:
        return None     # ("which minute had the most turns?", "A's busiest minute": window_counts.py)
    least = bool(_LESS_WORDS.search(plain)) and measure not in ("min_silence", "min_turn") or \
        measure in ("min_silence", "min_turn") and not re.search(rf"\b(?:{_MOST})\s+(?:of\s+)?(?:the\s+)?"
                                                               rf"(?:shortest|smallest)", plain, re.IGNORECASE)
    if measure in ("min_silence", "min_turn"):
        least = True
    return GroupAsk(groups, parts, measure, least, each is not None, people[0] if people else None, longer, shorter)


def prepare(q: Query) -> Query:
    """Everyone's voice turns (the plan reads the place from the question)."""
    return Query(find="who", act="spoke")


def _silences(turns: list, member: Callable) -> list[tuple[float, object, object]]:
    """(length, turn before, turn after) of each silence between two turns that follow each other, both in a group."""
    out = []
    for a, b in zip(turns, turns[1:], strict=False):
        if member(a) and member(b) and b.start > a.end:
            out.append((b.start - a.end, a, b))
    return out


def _measure(ask: GroupAsk, turns: list, mine: list, member: Callable, span: float | None) -> tuple[float | None, list]:
    """A group's figure and the turns it comes from (None: nothing to measure, such as a silence with no two turns)."""
    if ask.measure == "turns":
        return float(len(mine)), mine
    if ask.measure == "people":
        return float(len({e.character_id for e in mine})), mine
    if ask.measure == "seconds":
        return sum(e.end - e.start for e in mine), mine
    if ask.measure in ("max_turn", "min_turn", "mean_turn"):
        if not mine:
            return None, []
        if ask.measure == "mean_turn":
            return statistics.mean(e.end - e.start for e in mine), mine
        pick = max if ask.measure == "max_turn" else min
        e = pick(mine, key=lambda x: x.end - x.start)
        return e.end - e.start, [e]
    if ask.measure == "silence" and span is not None:
        return max(0.0, span - sum(e.end - e.start for e in mine)), mine
    gaps = _silences(turns, member)
    if not gaps:
        return None, []
    if ask.measure == "mean_silence":
        return statistics.mean(g for g, _, _ in gaps), [e for _, a, b in gaps for e in (a, b)]
    g, a, b = (max if ask.measure in ("max_silence", "silence") else min)(gaps, key=lambda x: x[0])
    return g, [a, b]


def _groups(executor: QueryExecutor, res: QueryResult, ask: GroupAsk, turns: list,
            before_time: float | None) -> list[tuple[str, Callable, float | None]]:
    """(name, membership test of a turn, seconds the group lasted where known) of every group, in time order."""
    if ask.groups == "room":
        executor.place_turns(res, turns)
        stays = robot_stays(executor.store, before_time)
        rooms = list(dict.fromkeys(p for p, _, _ in stays))
        end = executor.store.perceived_until(before_time) or max((e.end for e in turns), default=0.0)
        held = {r: sum((b if b is not None else end) - a for p, a, b in stays if p == r) for r in rooms}
        return [(the_place(r), (lambda e, r=r: res.places.get(e.id) == r), held[r]) for r in rooms]
    end = executor.store.perceived_until(before_time) or max((e.end for e in turns), default=0.0)
    if ask.parts:
        n, size = ask.parts, end / ask.parts
        name = {2: "half", 3: "third", 4: "quarter"}[n]
        out = []
        for i in range(n):
            a, b = i * size, (i + 1) * size
            which = "last" if i == n - 1 and n > 2 else _ORDINAL[i] if n > 2 else ("first", "second")[i]
            out.append((f"the {which} {name}", (lambda e, a=a, b=b, last=i == n - 1: a <= e.start < b or
                                                 (last and e.start >= b)), b - a))
        return out
    minutes = int(end // 60) + 1
    return [(f"minute {i + 1}", (lambda e, i=i: i * 60 <= e.start < (i + 1) * 60), min(60.0, end - i * 60))
            for i in range(minutes)]


def _figure(ask: GroupAsk, x: float) -> str:
    if ask.measure == "turns":
        return f"{int(x)} turn{'s' if int(x) != 1 else ''}"
    if ask.measure == "people":
        return f"{int(x)} {'person' if int(x) == 1 else 'people'}"
    return seconds_word(tenths(x))


def answer(executor: QueryExecutor, q: Query, ask: GroupAsk, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    known = [p.name for p in load_places(executor.store)]
    place = None if ask.groups in ("room", "pair") or ask.scopes else place_of_question(question, known)
    if place is not None and place not in known and place.split()[0].lower() in _NOT_PLACE:
        place = None      # ("in the largest number of thirds": no place)
    res, ids = scope_and_people(executor, Query(find="who", act="spoke", place=place),
                                [ask.person] if ask.person else [], before_time)
    if ids is None:
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    who = res.describe[ids[0]] if ids else None

    def counted(e: object) -> bool:
        length = e.end - e.start  # type: ignore[attr-defined]
        return (not ids or e.character_id == ids[0]) and (ask.longer is None or length > ask.longer) and \
            (ask.shorter is None or length < ask.shorter)  # type: ignore[attr-defined]

    for i, limit in enumerate(x for x in (ask.longer, ask.shorter) if x is not None):
        res.seconds[-100 - i] = tenths(limit)     # (the length the question gives, said back)
    if ask.measure == "spread":
        return _spread(executor, res, ask, turns, before_time)
    if ask.groups == "pair":
        return _pair(executor, res, ask, turns, before_time)
    if ask.scopes:
        return _compared(executor, res, ask, turns, before_time)
    if ask.groups == "person":
        return _people(res, ask, [e for e in turns if counted(e)])
    figures: list[tuple[str, float | None, list]] = []
    for name, member, span in _groups(executor, res, ask, turns, before_time):
        mine = [e for e in turns if member(e) and counted(e)]
        value, used = _measure(ask, turns, mine, member, span)
        figures.append((name, value, used))
    res.steps.append({"step": "measured per group", "measure": ask.measure,
                      "groups": {n: (round(v, 2) if v is not None else None) for n, v, _ in figures}})
    known = [(n, v, u) for n, v, u in figures if v is not None]
    res.seconds = {**res.seconds, **{-(i + 1): tenths(v) for i, (_, v, _) in enumerate(known)}}
    res.value = tuple(int(v) for _, v, _ in known if float(v).is_integer())
    what = _what(ask, who, place)
    each = "; ".join(f"{n} {_figure(ask, v)}" for n, v, _ in known)
    missing = [n for n, v, _ in figures if v is None]
    none = f" ({_join(missing)}: none, fewer than two turns)" if missing else ""
    if not known:
        res.events = turns
        return _cap(f"I cannot measure {what} in any {_unit(ask)}: there were no turns to measure{none}."), res
    if ask.each:
        res.events = [e for _, _, u in known for e in u] + [e for e in turns if not any(e in u for _, _, u in known)]
        text = f"{_cap(what)}, {_unit(ask)} by {_unit(ask)}: {each}{none}."
        return (REFUSAL if check(text, res) else text), res
    pick = min if ask.least else max
    best = pick(v for _, v, _ in known)
    top = [(n, u) for n, v, u in known if abs(tenths(v) - tenths(best)) < 1e-9]
    res.events = [e for _, u in top for e in u] + [e for e in turns if not any(e in u for _, u in top)]
    two = len(known) == 2
    lead = f"{_join([n for n, _ in top])} ({'a tie' if len(top) > 1 else _figure(ask, best)})"
    if ask.measure in ("turns", "people", "seconds", "silence"):
        word = ("fewer" if ask.measure in ("turns", "people") else "less") if ask.least and two else \
            "more" if two else ("the fewest" if ask.measure in ("turns", "people") else "the least") if ask.least \
            else "the most"
        text = f"{_cap(lead)} had {word} {what}: {each}{none}."
    elif ask.measure.startswith("mean"):
        word = ("shorter" if two else "shortest") if ask.least else ("longer" if two else "longest")
        text = f"{_cap(what)} was {word} in {lead}; {each}{none}."
    else:
        text = f"{_cap(what)} was in {lead}; {each}{none}."
    return (REFUSAL if check(text, res) else text), res


def _unit(ask: GroupAsk) -> str:
    if ask.groups == "room":
        return "room"
    return {2: "half", 3: "third", 4: "quarter"}.get(ask.parts, "minute")


def _what(ask: GroupAsk, who: str | None, place: str | None) -> str:
    """The measure in words ("the longest silence between turns", "turns by A longer than 2 seconds")."""
    noun = {"turns": "turns", "people": "different speakers", "seconds": "seconds of speech",
            "silence": "silence (time without speech)", "max_silence": "the longest silence between turns",
            "min_silence": "the shortest silence between turns", "mean_silence": "the average silence between turns",
            "max_turn": "the longest turn", "min_turn": "the shortest turn",
            "mean_turn": "the average turn"}[ask.measure]
    if who:
        noun += f" {'of' if ask.measure in ('max_turn', 'min_turn', 'mean_turn') else 'by'} {who}"
    if ask.longer is not None:
        noun += f" longer than {seconds_word(tenths(ask.longer))}"
    if ask.shorter is not None:
        noun += f" shorter than {seconds_word(tenths(ask.shorter))}"
    return noun + (f" in {the_place(place)}" if place else "")


def _people(res: QueryResult, ask: GroupAsk, kept: list) -> tuple[str, QueryResult]:
    """People ranked by their turns of a length: "A had the most turns longer than 2 seconds (3); B 1."."""
    counts: dict[int, int] = {}
    for e in kept:
        counts[e.character_id] = counts.get(e.character_id, 0) + 1
    what = _what(ask, None, res.query.place)
    res.events = kept
    res.value = tuple(counts.values()) or (0,)
    if not counts:
        return _cap(f"Nobody: I heard no {what}."), res
    best = (min if ask.least else max)(counts.values())
    top = [c for c, n in counts.items() if n == best]
    each = "; ".join(f"{res.describe[c]} {n}" for c, n in counts.items())
    text = f"{_join([res.describe[c] for c in top])} had the {'fewest' if ask.least else 'most'} {what} " \
           f"({best}{', a tie' if len(top) > 1 else ''}): {each}."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res


def _scope(executor: QueryExecutor, res: QueryResult, name: str, turns: list,
           before_time: float | None) -> Callable | None:
    """Membership of a turn in a scope the question names: a part of the recording ("the last third") or a room."""
    m = _PART_WORD.match(name)
    if m is not None and m.group(2):
        n = _PART_NAMES[m.group(2).lower()]
        i = n - 1 if m.group(1).lower() in ("last", "final") else ("first", "second", "third", "fourth").index(
            m.group(1).lower().replace("middle", "second"))
        end = executor.store.perceived_until(before_time) or max((e.end for e in turns), default=0.0)
        a, b = end * i / n, end * (i + 1) / n
        return lambda e: a <= e.start < b or (i == n - 1 and e.start >= b)
    bare = re.sub(r"^the\s+", "", name, flags=re.IGNORECASE)
    room = next((p.name for p in load_places(executor.store) if p.name.lower() == bare.lower()), None)
    if room is None:
        return None
    executor.place_turns(res, turns)
    return lambda e: res.places.get(e.id) == room


def _compared(executor: QueryExecutor, res: QueryResult, ask: GroupAsk, turns: list,
              before_time: float | None) -> tuple[str, QueryResult]:
    """"A and C spoke more often in the first third than in the last third: A 1 against 0, C 1 against 0 (not: B 2
    against 3)."."""
    tests = [_scope(executor, res, name, turns, before_time) for name in ask.scopes]
    if any(t is None for t in tests):
        unknown = next(n for n, t in zip(ask.scopes, tests, strict=True) if t is None)
        res.status, res.problem = "unknown_place", unknown
        return f"I don't know a place called \"{unknown}\".", res
    first, second = tests
    people = list(dict.fromkeys(e.character_id for e in turns))
    figures: dict[int, tuple[float, float]] = {}
    for c in people:
        mine = [e for e in turns if e.character_id == c]
        if ask.measure == "seconds":
            figures[c] = tuple(tenths(sum(e.end - e.start for e in mine if t(e))) for t in (first, second))  # type: ignore[assignment]
        else:
            figures[c] = tuple(float(sum(1 for e in mine if t(e))) for t in (first, second))  # type: ignore[assignment]
    won = [c for c in people if (figures[c][0] < figures[c][1] if ask.least else figures[c][0] > figures[c][1])]
    res.events = [e for e in turns if e.character_id in won] + [e for e in turns if e.character_id not in won]
    res.value = tuple(int(x) for f in figures.values() for x in f if float(x).is_integer())
    res.seconds = {-(i + 1): x for i, x in enumerate(x for f in figures.values() for x in f)}
    res.steps.append({"step": "each person in two scopes", "scopes": list(ask.scopes),
                      "figures": {res.describe.get(c, str(c)): list(f) for c, f in figures.items()}})

    def said(c: int) -> str:
        x, y = figures[c]
        unit = (lambda v: seconds_word(v)) if ask.measure == "seconds" else (lambda v: str(int(v)))
        return f"{res.describe[c]} {unit(x)} against {unit(y)}"

    word = ("less" if ask.measure == "seconds" else "fewer turns") if ask.least else \
        ("more" if ask.measure == "seconds" else "more often")
    rest = [c for c in people if c not in won]
    others = f" (not: {'; '.join(said(c) for c in rest)})" if rest else ""
    a, b = ask.scopes
    if not won:
        text = f"Nobody spoke {word} in {a} than in {b}{others}."
    else:
        verb = "spoke" if ask.measure == "seconds" or not ask.least else "took"
        text = f"{_join([res.describe[c] for c in won])} {verb} {word} in {a} than in {b}: " \
               f"{'; '.join(said(c) for c in won)}{others}."
    text = _cap(text.replace("in the the ", "in the "))
    return (REFUSAL if check(text, res) else text), res


def _spread(executor: QueryExecutor, res: QueryResult, ask: GroupAsk, turns: list,
            before_time: float | None) -> tuple[str, QueryResult]:
    """"A spoke in all 4 quarters of the recording (B in 3, C in 1)." (the parts each person spoke in)."""
    parts = _groups(executor, res, ask, turns, before_time)
    n = len(parts)
    spread: dict[int, list[str]] = {}
    for e in turns:
        names = spread.setdefault(e.character_id, [])
        for name, member, _ in parts:
            if member(e) and name not in names:
                names.append(name)
    unit = _unit(ask)
    res.value = tuple(len(v) for v in spread.values()) + (n,)
    each = "; ".join(f"{res.describe[c]} {len(v)}" for c, v in spread.items())
    res.events = turns
    if ask.each:
        every = [c for c, v in spread.items() if len(v) == n]
        res.events = [e for e in turns if e.character_id in every] + [e for e in turns if e.character_id not in every]
        who = _join([res.describe[c] for c in every])
        # both readings said: one person in every part, and speech in every part (someone in each)
        speakers = [len({e.character_id for e in turns if member(e)}) for _, member, _ in parts]
        res.value = res.value + tuple(speakers)
        some = all(speakers)
        per = f"{unit} by {unit}, " + ", ".join(str(k) for k in speakers) + " speakers"
        person = f"{who} spoke in every one of them (all {n})" if every else f"no one person spoke in all {n}"
        lead = "Yes: " if ask.yes_no and every and some else "No: " if ask.yes_no and not every and not some else ""
        if not ask.yes_no:     # "who spoke in every third?": the people first
            text = f"{who if every else 'Nobody'} spoke in all {n} {unit}s ({unit}s each person spoke in: {each}); " \
                   f"{per}."
        elif some:
            text = f"{lead}someone was heard in every {unit} ({per}), and {person}; {unit}s each person spoke in: " \
                   f"{each}."
        else:
            text = f"{lead}not every {unit} had speech ({per}), and {person}; {unit}s each person spoke in: {each}."
    else:
        best = (min if ask.least else max)(len(v) for v in spread.values()) if spread else 0
        top = [c for c, v in spread.items() if len(v) == best]
        res.events = [e for e in turns if e.character_id in top] + [e for e in turns if e.character_id not in top]
        text = f"{_join([res.describe[c] for c in top])} spoke in the {'fewest' if ask.least else 'most'} {unit}s " \
               f"({best} of {n}{', a tie' if len(top) > 1 else ''}); {unit}s each person spoke in: {each}." if spread \
            else "I heard nobody speak."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res


def _pair(executor: QueryExecutor, res: QueryResult, ask: GroupAsk, turns: list,
          before_time: float | None) -> tuple[str, QueryResult]:
    """"Yes: the longest silence between turns was 4 seconds in the living room, 3.9 seconds in the porch."."""
    tests = [_scope(executor, res, name, turns, before_time) for name in ask.scopes]
    if any(t is None for t in tests):
        unknown = next(n for n, t in zip(ask.scopes, tests, strict=True) if t is None)
        res.status, res.problem = "unknown_place", unknown
        return f"I don't know a place called \"{unknown}\".", res
    figures = []
    for name, member in zip(ask.scopes, tests, strict=True):
        mine = [e for e in turns if member(e)]
        value, used = _measure(ask, turns, mine, member, None)
        figures.append((name if name.startswith("the ") else f"the {name}", value, used))
    res.events = [e for _, _, u in figures for e in u] + [e for e in turns if not any(e in u for _, _, u in figures)]
    what = _what(ask, None, None)
    if any(v is None for _, v, _ in figures):
        none = _join([n for n, v, _ in figures if v is None])
        return _cap(f"I cannot compare them: there were fewer than two turns in {none}."), res
    (na, va, _), (nb, vb, _) = figures
    close = round(va, 1) == round(vb, 1)
    said = (lambda v: f"{v:.2f} seconds") if close else (lambda v: seconds_word(tenths(v)))
    res.seconds = {**res.seconds, -1: tenths(va), -2: tenths(vb)}
    if close:
        res.seconds.update({-3: round(va, 2), -4: round(vb, 2)})
    yes = va < vb if ask.least else va > vb
    text = f"{'Yes' if yes else 'No'}: {what} was {said(va)} in {na} and {said(vb)} in {nb}" + \
        (" (within what detection tells apart)." if close else ".")
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res
