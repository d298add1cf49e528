"""How a grouped question is read (:mod:`.measure_groups` answers it): the groups (rooms, parts of the recording,
people), the measure of each group and what is asked of them, each part from a small vocabulary of its own; also two
parts of the recording compared person by person, people by the parts they spoke in, two named rooms (parts) compared
yes or no, the busiest part, every part named and the parts one person was not heard in."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .repair import time_of
from .turn_sequence import people_in
from .wording import QUOTED
from .words import AMOUNT, COUNT_CMP, COUNT_N, count_condition

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
    ("changes", re.compile(r"\b(?:changes?|switch(?:es)?|shifts?)\s+of\s+speakers?\b|\bspeaker\s+(?:changes?|changed|"
                           r"switch(?:es|ed)?)\b|\b(?:the\s+)?(?:speaker|voice)\s+(?:change|switch)\b", re.IGNORECASE)),
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
_NOT_PLACE = frozenset(("largest", "smallest", "greatest", "most", "fewest", "least", "number", "highest", "lowest",
                        "busiest", "quietest"))
# left to the plans that answer them alone: the room with the most turns, people or seconds of speech
_OTHERS_ROOM = ("turns", "people", "seconds", "silence")


@dataclass(frozen=True)
class GroupAsk:
    groups: str                  # room | part | person
    parts: int = 0               # part: halves 2, thirds 3, quarters 4; minutes 0
    measure: str = "turns"       # see _MEASURES
    least: bool = False          # the group with the least (else the most)
    each: bool = False           # every group's figure (no ranking); both: how many people
    person: str | None = None    # only this person's turns
    longer: float | None = None  # only turns longer than this (seconds)
    shorter: float | None = None  # only turns shorter than this
    scopes: tuple[str, ...] = ()  # person: two scopes compared ("more often in the first third than in the last");
    #                               else two groups' figures compared yes or no ("was the longest silence in the
    #                               bedroom longer than in the lab?")
    yes_no: bool = False          # asked yes or no
    # the parts whose figure meets a condition ("a quarter in which only one person spoke": ("only", 1); "thirds with
    # more than three turns": ("more than", 3); "a third in which only A spoke": ("alone", 0), A the person)
    meets: tuple[str, int] | None = None
    many: bool = False            # meets: how many groups meet it ("how many quarters had only one speaker?")
    every: bool = False           # meets: whether every group meets it ("did more than one person speak in each half?")
    holds: bool = False           # pair: which of the two parts holds the longest (shortest) turn or silence


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
                         r"recording|same|other|one|turns?|silences?|pauses?|gaps?|speakers?|voices?|changes?)\b)"
                         r"(?P<r>[a-z]+(?:\s+room)?)\b",
                         re.IGNORECASE)
_COMPARATIVE = re.compile(r"\b(?:longer|shorter|greater|smaller|bigger|more|less|fewer)\b", re.IGNORECASE)


# "did A speak in every quarter?", "was C heard in all four quarters of the recording?": one person in every part
_ONE_IN_EVERY = re.compile(rf"^\W*(?:did|was|were|has|had|is)\b[^?]*\b(?:in|during)\s+(?:every|each|all(?:\s+(?:of\s+)?"
                           rf"the)?)\s+(?:(?:two|three|four)\s+)?(?:single\s+)?{_PARTS}\b", re.IGNORECASE)


def asks_spread(question: str) -> GroupAsk | None:
    """People by the parts of the recording they spoke in: in every one, or the most (fewest); one named person in
    every part, yes or no."""
    plain = QUOTED.sub(" quoted ", question)
    people = people_in(question)
    m = _ONE_IN_EVERY.search(plain)
    if m is not None and len(people) == 1:
        return GroupAsk("part", _PART_NAMES[m.group("g").lower()], "every", each=True, person=people[0], yes_no=True)
    m = _EVERY_PART.search(plain)
    if m is not None:
        return GroupAsk("person", _PART_NAMES[m.group("g").lower()], "spread", each=True, yes_no=bool(m.group("yes")))
    m = _MOST_PARTS.search(plain)
    if m is not None:
        return GroupAsk("person", _PART_NAMES[m.group("g").lower()], "spread",
                        least=m.group("w").lower().startswith(("fewest", "smallest", "least")))
    return None


def asks_pair(question: str) -> GroupAsk | None:
    """Two parts' of the recording figures compared (any measure; one person's turns where one is named), or two
    rooms' silence or turn figure, yes or no ("... than ...") or which of the two ("... or ...")."""
    plain = QUOTED.sub(" quoted ", question)
    if not re.match(r"^\W*(?:was|were|did|is|had|has)\b", plain, re.IGNORECASE):
        return None
    measure = next((name for name, pattern in _MEASURES if pattern.search(plain)), None)
    people = people_in(question)
    held = _HOLDS.search(plain)
    if held is not None and measure in _ONE_OF and len(people) <= 1:
        # "was A's longest turn in the first half or in the second half?", "was the longest silence before or after
        # the middle of the recording?": the part that holds it (the larger longest, the smaller shortest)
        parts = _two_parts(held.group(0)) if not held.group("mid") else ["the first half", "the second half"]
        if parts is not None:
            return GroupAsk("pair", measure=measure, least=measure.startswith("min"), scopes=tuple(parts),
                            person=people[0] if people else None, holds=True)
    if not _COMPARATIVE.search(plain):
        return None
    parts = _two_parts(plain)
    if parts is not None:
        if measure is None or len(people) > 1:
            return None
    elif measure not in ("max_silence", "min_silence", "mean_silence", "max_turn", "min_turn", "changes") or people:
        return None     # (two rooms' average turns: turn_average.py; turns, speech: place_counts.py)
    names = parts or list(dict.fromkeys(m.group("r").lower() for m in _GROUP_NAME.finditer(plain)))
    if len(names) != 2:
        return None
    first = plain.lower().find(names[0].split()[-1])
    than = plain.lower().find(" than ")
    less = bool(re.search(r"\b(?:shorter|smaller|less|fewer)\b", plain[than:] if than > first else plain, re.I)) \
        if than < 0 else bool(re.search(r"\b(?:shorter|smaller|less|fewer)\b", plain[:than], re.IGNORECASE))
    return GroupAsk("pair", measure=measure, least=less, scopes=tuple(names), yes_no=than >= 0,
                    person=people[0] if people else None)


# "... in the first half or in the second half?", "... before or after the middle of the recording?": which of two
# parts holds the one turn (silence) a measure names
_HOLDS = re.compile(r"\b(?:in|during)\s+the\s+(?:first|second|middle|third|fourth|last|final)(?:\s+(?:half|third|"
                    r"quarter))?\s+or\s+(?:in\s+|during\s+)?the\s+(?:first|second|middle|third|fourth|last|final)"
                    r"(?:\s+(?:half|third|quarter))?\b|(?P<mid>\bbefore\s+or\s+after\s+the\s+(?:middle|halfway\s+point|"
                    r"half(?:way)?\s+mark)\b)", re.IGNORECASE)
_ONE_OF = ("max_turn", "min_turn", "max_silence", "min_silence")


# a part named without its noun, after one named with it: "in the first half than in the second (one)?"
_BARE_PART = re.compile(r"\s*(?:one|part)?\s*(?:[?,.]|$|\b(?:of\s+the\s+(?:recording|video))|and\b)", re.IGNORECASE)


def _two_parts(plain: str) -> list[str] | None:
    """The two parts of the recording a question names ("the first half", "the last third"), else None."""
    found = [m for m in _PART_WORD.finditer(plain) if m.group(2) or _BARE_PART.match(plain, m.end())]
    nouns = {m.group(2).lower() for m in found if m.group(2)}
    if len(found) != 2 or len(nouns) != 1:
        return None
    noun = nouns.pop()
    names = [f"the {m.group(1).lower()} {noun}" for m in found]
    return names if names[0] != names[1] else None


# "the busiest quarter", "the quietest third": the part with the most (fewest) turns
_BUSIEST = re.compile(r"\bthe\s+(?P<w>busiest|quietest|least\s+busy)\s+(?P<g>half|third|quarter)\b", re.IGNORECASE)
# "in the first half and in the second half": every part of that kind
_BOTH_PARTS = re.compile(r"\bthe\s+first\s+(?P<g>half|third|quarter)\s+and\s+(?:in\s+|during\s+)?the\s+"
                         r"(?:second|last|final|"
                         r"other)\b", re.IGNORECASE)
# "was there any quarter in which A did not speak?", "did A stay silent for a whole quarter?": the parts without them
_WITHOUT = re.compile(r"\b(?:any|a\s+whole|an\s+entire|a\s+single|one|a)\s+(?P<g>half|third|quarter)\b[^?]*?"
                      r"\b(?:did\s+not|"
                      r"didn't|never|not)\b|\b(?:silent|quiet)\s+(?:for|during|throughout)\s+(?:a\s+whole|an\s+entire|"
                      r"any|a)\s+(?P<g2>half|third|quarter)\b", re.IGNORECASE)


# "was there a quarter of the recording with no speech at all?", "was there any third in which nobody spoke?": the
# parts nobody spoke in
_EMPTY = re.compile(r"\b(?:a|any|one|some|an\s+entire|a\s+whole)\s+(?P<g>half|third|quarter)\b[^?]*?\b(?:no\s+"
                    r"(?:speech|talk(?:ing)?|turns?|speaking|voices?|one\s+(?:spoke|talked|speaking))|nobody|no\s+one|"
                    r"without\s+(?:any\s+)?(?:speech|talk(?:ing)?|turns?))\b", re.IGNORECASE)


def asks_parts(question: str) -> GroupAsk | None:
    """The busiest part, every part named ("in the first half and in the second"), or the parts a person was not
    heard in."""
    plain = QUOTED.sub(" quoted ", question)
    people = people_in(question)
    m = _WITHOUT.search(plain)
    if m is not None and len(people) == 1:
        g = (m.group("g") or m.group("g2")).lower()
        return GroupAsk("part", _PART_NAMES[g], "absent", each=True, person=people[0], yes_no=True)
    m = _EMPTY.search(plain)
    if m is not None and not people:
        return GroupAsk("part", _PART_NAMES[m.group("g").lower()], "absent", each=True, yes_no=True)
    m = _BUSIEST.search(plain)
    if m is not None and len(people) <= 1:
        return GroupAsk("part", _PART_NAMES[m.group("g").lower()], "turns", least=m.group("w").lower() != "busiest",
                        person=people[0] if people else None)
    m = _BOTH_PARTS.search(plain)
    if m is not None and len(people) <= 1:
        measure = next((name for name, pattern in _MEASURES if pattern.search(plain)), None)
        if measure in ("turns", "people", "seconds", "changes"):
            return GroupAsk("part", _PART_NAMES[m.group("g").lower()], measure, each=True,
                            person=people[0] if people else None)
    return None


_PART_NAME = r"the\s+(?:first|second|middle|third|fourth|last|final)(?:\s+(?:half|third|quarter))?"
# "did anyone speak both in the first quarter and in the last quarter?", "who was heard in both the first and the last
# third?", "how many people spoke in both halves?": the people heard in each of two parts
_BOTH = re.compile(rf"\bboth\s+(?:in|during)\s+(?P<a>{_PART_NAME})\s+and\s+(?:in\s+|during\s+)?(?P<b>{_PART_NAME})|"
                   rf"\b(?:in|during)\s+both\s+(?P<a2>{_PART_NAME})\s+and\s+(?P<b2>{_PART_NAME})", re.IGNORECASE)


_EVERYONE = r"(?:everyone|everybody|every\s+(?:person|speaker|one)|each\s+(?:person|speaker|one)|all\s+(?:of\s+)?" \
    r"(?:the\s+)?(?:people|speakers|persons))"
_SCOPE_IN = r"(?:in|during|within)\s+(?P<{}>the\s+(?:first|second|middle|third|fourth|last|final)(?:\s+(?:half|third|" \
    r"quarter))?|the\s+[a-z]+(?:\s+room)?)"
# "did everyone who spoke in the first half also speak in the second half?", "was everybody heard in the first third
# also heard in the last third?": whether the people of one part were all heard in the other
_ALSO = re.compile(rf"\b{_EVERYONE}(?:\s+(?:who|that|whom)(?:\s+I)?)?\s+(?:spoke|talked|was\s+heard|heard)\s+"
                   rf"{_SCOPE_IN.format('a')}\b[^?]*?\b(?:also|too)?\s*(?:speak|talk|spoke|talked|heard|be\s+heard)\s+"
                   rf"(?:also\s+)?{_SCOPE_IN.format('b')}", re.IGNORECASE)


def asks_also(question: str) -> GroupAsk | None:
    """Whether everyone heard in one part of the recording was heard in another too (two rooms: turn_forms.py)."""
    m = _ALSO.search(QUOTED.sub(" quoted ", question))
    if m is None or people_in(question):
        return None
    a, b = m.group("a").lower(), m.group("b").lower()
    names = _two_parts(f"{a} and {b}")
    if names is None:
        return None     # (two rooms: turn_forms.py)
    return GroupAsk("person", measure="both", scopes=tuple(names), yes_no=True, every=True)


def asks_both(question: str) -> GroupAsk | None:
    """The people heard in each of two thirds or quarters of the recording (one person's yes or no where one is
    named); two halves are both_conditions.py's."""
    plain = QUOTED.sub(" quoted ", question)
    m = _BOTH.search(plain)
    people = people_in(question)
    if m is None or len(people) > 1:
        return None
    names = _two_parts(" and ".join(x for x in m.group("a", "b") if x) or
                       " and ".join(x for x in m.group("a2", "b2") if x))
    if names is None or names[0].endswith(" half"):
        return None
    yes_no = bool(re.match(r"^\W*(?:did|was|were|is|has|had)\b", plain, re.IGNORECASE))
    count = bool(re.match(r"^\W*how\s+many\b", plain, re.IGNORECASE))
    return GroupAsk("person", measure="both", scopes=tuple(names), yes_no=yes_no, each=count,
                    person=people[0] if people else None)


_COUNTED = r"(?:different\s+|distinct\s+|separate\s+)?(?P<what>people|persons?|speakers?|voices?|turns?|times)"
# a condition on a group's count: "only one person", "just two speakers", "more than three turns", "a single speaker"
_CONDITION = re.compile(rf"\b(?:{COUNT_CMP}\s+{COUNT_N}|(?P<single>a\s+single|one\s+single|one\s+and\s+only\s+"
                        rf"one))\s+{_COUNTED}\b", re.IGNORECASE)
# "... in which only A spoke", "... where nobody but A spoke": one named person the group's only speaker
_SOMEONE = r"(?:the\s+person\s+who\s+said\s+)?(?:quoted|(?-i:[A-Z][a-z]+))"
_ONLY_ONE = re.compile(rf"\b(?:only|just|solely)\s+{_SOMEONE}\s+(?:spoke|talked|was\s+(?:heard|speaking|talking)|had\s+"
                       rf"turns)\b|\b(?:nobody|no\s*one|no\s+one)\s+(?:but|except|other\s+than)\s+{_SOMEONE}",
                       re.IGNORECASE)
# the groups the condition is asked of: "was there a (any) quarter ...", "which third ...", "how many rooms ..."
_SOME_GROUP = re.compile(r"\b(?P<k>any|a|an|one|some|which|what|how\s+many|each|every)\s+(?:of\s+the\s+)?"
                         r"(?:(?:two|three|four)\s+)?(?P<g>halves|half|thirds?|quarters?|rooms?|places?|locations?)\b",
                         re.IGNORECASE)


def asks_meets(question: str) -> GroupAsk | None:
    """The parts of the recording whose figure meets a condition: "was there any quarter in which only one person
    spoke?", "which third had more than five turns?", "how many quarters had exactly two speakers?"; the parts (rooms)
    in which one named person was the only speaker: "was there a half (room) in which only A spoke?". (Rooms by their
    number of people: room_people.py.)"""
    plain = QUOTED.sub(" quoted ", question)
    g = _SOME_GROUP.search(plain)
    if g is None or _WHO.match(plain):
        return None     # ("who spoke more than twice in each half?": people, not parts)
    people = people_in(question)
    word = g.group("g").lower()
    groups = "room" if word.startswith(("room", "place", "location")) else "part"
    parts = 0 if groups == "room" else _PART_NAMES[word]
    kind = g.group("k").lower()
    yes_no = bool(re.match(r"^\W*(?:was|were|did|is|are|has|had|does|do)\b", plain, re.IGNORECASE))
    many = kind == "how many" or bool(re.match(r"^\W*how\s+many\b", plain, re.IGNORECASE))
    every = kind in ("each", "every") and yes_no
    only = _ONLY_ONE.search(plain)
    if only is not None and len(people) == 1:
        return GroupAsk(groups, parts, "people", each=True, person=people[0], yes_no=yes_no, meets=("alone", 0),
                        many=many, every=every)
    m = _CONDITION.search(plain)
    if m is None or people or groups == "room":
        return None
    cond = count_condition(None if m.group("single") else m.group("cmp"), m.group("n"))
    if cond is None:
        return None
    what = m.group("what").lower()
    measure = "people" if what.startswith(("people", "person", "speaker", "voice")) else "turns"
    return GroupAsk(groups, parts, measure, each=True, yes_no=yes_no, meets=cond, many=many, every=every)


def asks_groups(question: str) -> GroupAsk | None:
    compared = asks_meets(question) or asks_also(question) or asks_both(question) or asks_compare(question) or \
        asks_spread(question) or asks_pair(question) or asks_parts(question)
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
    if length is not None and measure in ("turns", "people", "seconds") and \
            (n := time_of(length.group("n"))) is not None:
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
    ranked = plain if length is None else plain[:length.start()] + " " + plain[length.end():]
    least = bool(_LESS_WORDS.search(ranked)) and measure not in ("min_silence", "min_turn") or \
        measure in ("min_silence", "min_turn") and not re.search(rf"\b(?:{_MOST})\s+(?:of\s+)?(?:the\s+)?"
                                                               rf"(?:shortest|smallest)", plain, re.IGNORECASE)
    if measure in ("min_silence", "min_turn"):
        least = True
    return GroupAsk(groups, parts, measure, least, each is not None, people[0] if people else None, longer, shorter)
