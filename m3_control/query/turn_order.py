"""The turns themselves, in order, where no frame field says it:

- ``speaking_order``: "list everyone who spoke, in order of their first words", "in what order did people speak?"
  (every speaker in the frame's place and window, by their first turn, or their last: "in order of their last
  words"), each with the time of that turn;
- ``turns_gap``: "how long was the gap between the first two turns?", "how much time passed between the second and
  third turns?" (two turns of anyone's, by their place in time, in the frame's place and window; or of two people:
  "between A's last turn and C's last turn", or one person's: "between A's first and last turns"): the silence from
  the end of the one to the start of the other, and the time from start to start, both said;
- ``next_turn``: "who spoke right before the last turn in the office?", "who spoke right after the last turn in the
  library?" (the n-th or last turn of the frame's place and window, then the turn next to it among everyone's,
  wherever it was).
- ``person_start``: "how many seconds after the first turn did the second person start speaking?", "how long did it
  take for a third speaker to talk?" (the n-th person's first words against the first words of all, start to start
  and from the end of the first turn, the turns between said);
- ``turn_position``: "which turn of the conversation was A's first?", "in which turn did A first speak?" (where one
  person's n-th turn stands among everyone's turns of the frame's place and window: "the 2nd of 17");
- ``turn_length`` / ``turn_end``: "how long did the very first turn last?", "how long was the last turn in the
  office?", "when did the last turn in the hallway end?" (one turn of anyone's, by its place in time: its own length,
  from its first to its last word, or when it ended).

Answers are built from the executed result and checked against it like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, check, conditions, phrase
from .result import QueryResult
from .turn_sequence import people_in
from .wording import CLOCK, ORDINAL_WORDS, QUOTED, _rank
from .words import cap, ordinal_word, seconds_word, spoke_times

_PEOPLE = r"(?:everyone|everybody|every\s+(?:person|speaker)|each\s+(?:person|speaker)|all\s+(?:the\s+)?(?:people|" \
          r"speakers)|the\s+(?:people|speakers|voices)|people|(?:the\s+)?persons?|who)"
# "in what order did people speak?", "list everyone who spoke, in order of their first words", "who spoke, in order?"
_ORDER = re.compile(rf"^\W*in\s+(?:what|which)\s+order\s+did\s+{_PEOPLE}\s+(?:first\s+)?(?:speak|talk)\b"
                    # "list the people in the order I first heard them", "in what order did I hear people?"
                    rf"|^\W*(?:list|name|tell\s+me|give\s+me)\s+{_PEOPLE}\b[^?]*?\bin\s+(?:the\s+)?order\s+(?:that\s+|"
                    rf"in\s+which\s+)?(?:I|we)\s+(?:first\s+)?heard\b"
                    rf"|^\W*in\s+(?:what|which)\s+order\s+did\s+(?:I|we)\s+(?:first\s+)?hear\b"
                    rf"|^\W*(?:list|name|tell\s+me)\s+{_PEOPLE}\b[^?]*?\b(?:spoke|talked|speak|talk|heard)\b[^?]*?"
                    rf"\bin\s+(?:the\s+)?order\b"
                    rf"|^\W*who\s+(?:spoke|talked|did\s+I\s+hear)\b[^?]*?,?\s+in\s+(?:the\s+)?order\s*(?:[?.!]\s*$|of\s+their\s+|they\s+)"
                    rf"|\bthe\s+order\s+in\s+which\s+{_PEOPLE}\s+(?:first\s+)?(?:spoke|talked)\b", re.IGNORECASE)
_BY_LAST = re.compile(r"\border\s+of\s+their\s+(?:last|final)\b", re.IGNORECASE)

_ORD = r"(?:" + "|".join(ORDINAL_WORDS) + r"|\d+(?:st|nd|rd|th))"
_TURNS = r"(?:turns|sentences|things\s+(?:said|I\s+heard)|remarks|utterances)"
# a question for the time between two things: "how long ...", "what was the gap ..."
_HOW_LONG = r"\b(?:how\s+long|how\s+much\s+time|how\s+many\s+seconds|what\s+was\s+the\s+(?:gap|pause|time))\b"
# "between the first two turns", "between the second and third turns", "between the 2nd and the 3rd sentences"
# (a singular noun too: "... and the second turn")
_GAP = re.compile(rf"{_HOW_LONG}[^?]*?\b(?:between|separated|(?:lay|came|passed)\s+between)\s+the\s+"
                  rf"(?:(?P<two>first\s+two)|(?P<a>{_ORD})\s+and\s+(?:the\s+)?"
                  rf"(?P<b>{_ORD}|last|final))\s+(?:{_TURNS}|turn|sentence|thing\s+said)\b", re.IGNORECASE)

# "between the last turn in the kitchen and the first turn in the bathroom", "between the first turn and the last
# one": two turns, each by its place in time, of everyone's or of one place's
_ONE_TURN = r"the\s+(?P<{n}>first|last|final|{o})\s+(?:turn|sentence|thing\s+said|words|one)" \
    r"(?:\s+(?:in|at)\s+(?:the\s+)?(?P<{p}>[a-z]+(?:\s+room)?))?"
_GAP_AT = re.compile(rf"{_HOW_LONG}[^?]*?\bbetween\s+{_ONE_TURN.format(n='a', p='pa', o=_ORD)}\s+and\s+"
                     rf"{_ONE_TURN.format(n='b', p='pb', o=_ORD)}", re.IGNORECASE)

# "between A's last turn and C's last turn", "between the first turn of A and Ann's last words": two people's turns
_SIDE = r"(?:(?:the\s+person\s+who\s+said\s+)?(?:QUOTED|[A-Z][a-z]+)\s*'s\s+(?P<{n}>first|last|final|{o})|the\s+" \
    r"(?P<{n}2>first|last|final|{o})\s+(?:turn|words|sentence|remark|time)s?\s+(?:of|by|from)\s+(?:the\s+person\s+" \
    r"who\s+said\s+)?(?:QUOTED|[A-Z][a-z]+))"
# "between the first turn in the library and A's first turn", "from A's last turn to the last turn in the lab": a
# room's turn and a person's
_GAP_MIXED = (re.compile(rf"{_HOW_LONG}[^?]*?\bbetween\s+{_ONE_TURN.format(n='a', p='pa', o=_ORD)}\s+and\s+"
                         rf"{_SIDE.format(n='b', o=_ORD)}", re.IGNORECASE),
              re.compile(rf"{_HOW_LONG}[^?]*?\bbetween\s+{_SIDE.format(n='a', o=_ORD)}\b[^?]*?\band\s+"
                         rf"{_ONE_TURN.format(n='b', p='pb', o=_ORD)}", re.IGNORECASE))
_GAP_PEOPLE = re.compile(rf"{_HOW_LONG}[^?]*?\bbetween\s+{_SIDE.format(n='a', o=_ORD)}\b[^?]*?\band\s+"
                         rf"{_SIDE.format(n='b', o=_ORD)}", re.IGNORECASE)

# "how long was the gap between A's first and last turns?", "how long was A silent between their first and second
# turns?", "... between A's first turn and their next one?", "... between their last two turns?": one person's two
# turns (start to start, end to start and the turns of others between them, as for two people's)
_OWNER = r"(?:(?:the\s+person\s+who\s+said\s+)?(?:QUOTED|[A-Z][a-z]+)\s*'s|their|his|her)"
_GAP_OWN = re.compile(rf"{_HOW_LONG}[^?]*?\bbetween\s+{_OWNER}\s+(?:very\s+)?(?:(?P<two>first|last|final)\s+two\s+"
                      rf"{_TURNS}|(?P<a>first|{_ORD})\s+and\s+(?:their\s+|the\s+)?(?P<b>last|final|{_ORD})\s+"
                      rf"(?:turns|words|sentences|remarks|times|utterances)\b|"
                      # (each turn with its own noun, the second one's owner said: "the next one" is anyone's)
                      rf"(?P<a2>first|{_ORD})\s+(?:turn|sentence|time|one)\s+and\s+{_OWNER}\s+(?:very\s+)?"
                      rf"(?P<b2>last|final|next|{_ORD})\b)", re.IGNORECASE)
# the person's own silence between the two (from the end of one to the start of the other), not the time between
# their starts: "how long was A silent (quiet) between ...", "... go without speaking ...", "the pause between ...",
# "between the end of A's first turn and the start of their second"
_QUIET = re.compile(r"\b(?:silent|silence|quiet|pause[sd]?|wait(?:ed)?|without\s+(?:speaking|talking|saying|a\s+word)|"
                    r"(?:not|never)\s+(?:speak|talk|say)|the\s+end\s+of)\b", re.IGNORECASE)
_END_START = re.compile(r"\bthe\s+end\s+of\s+([^?]*?)\s+and\s+the\s+(?:start|beginning)\s+of\s+", re.IGNORECASE)

# "which came first: A's second turn or C's first turn?": two people's turns, by which was earlier (later)
_FIRST_OF_TWO = re.compile(rf"^\W*(?:which|what)\s+(?:one\s+)?(?:came|happened|was|occurred)\s+(?P<w>first|earlier|"
                           rf"sooner|last|later)\b[^?]*?{_SIDE.format(n='a', o=_ORD)}\b[^?]*?\bor\s+"
                           rf"{_SIDE.format(n='b', o=_ORD)}", re.IGNORECASE)

# "who spoke right before the last turn?", "who talked immediately after the first turn in the lab?"
_NEXT_TO_TURN = re.compile(rf"^\W*who\s+(?:spoke|talked|was\s+speaking)\s+(?:right|immediately|just|directly)\s+"
                           rf"(?P<side>before|after)\s+the\s+(?P<n>last|final|{_ORD})\s+(?:turn|sentence|thing\s+said|"
                           rf"words)\b", re.IGNORECASE)

# "which turn of the conversation was A's first?", "what number turn was A's second?", "in which turn did A speak?"
_POSITION = re.compile(rf"^\W*(?:in\s+)?(?:which|what)\s+(?:number(?:ed)?\s+)?turn\s+(?:(?:of|in)\s+the\s+(?:"
                       r"conversation|talk|talking|recording|discussion)\s+|overall\s+|in\s+the\s+[a-z]+(?:\s+room)?\s+)?"
                       rf"(?:(?:was|is)\s+(?:the\s+person\s+who\s+said\s+)?(?:QUOTED|[A-Z][a-z]+)\s*(?:'s|\u2019s)\s+"
                       rf"(?:very\s+)?(?P<n>first|last|final|{_ORD})\b|did\s+(?:the\s+person\s+who\s+said\s+)?"
                       rf"(?:QUOTED|[A-Z][a-z]+)\s+(?:(?P<n2>first|last)\s+)?(?:speak|talk)(?:\s+for\s+the\s+"
                       rf"(?P<n3>first|last|final|{_ORD})\s+time)?\b)", re.IGNORECASE)
# "how long did the very first turn last?", "how long was the last turn in the office?", "how many seconds did the
# third thing I heard take?" (anyone's turn: "A's first turn" is one person's, sentences.py)
_LENGTH = re.compile(rf"^\W*(?:for\s+)?how\s+(?:long|many\s+seconds)\s+(?:did|was|does|is)\s+the\s+(?:very\s+)?"
                     rf"(?P<n>first|last|final|{_ORD})\s+(?:turn|sentence|utterance|remark|thing\s+(?:said|I\s+heard))"
                     r"(?:\s+(?:in|at)\s+the\s+[a-z]+(?:\s+room)?)?(?:\s+(?:last|take|run|go\s+on))?\s*[?.!]?\s*$",
                     re.IGNORECASE)

# "when did the last turn in the hallway end?", "at what time did the first turn finish?"
_END = re.compile(rf"^\W*(?:at\s+)?(?:when|what\s+time)\s+did\s+the\s+(?:very\s+)?(?P<n>first|last|final|{_ORD})\s+"
                  r"(?:turn|sentence|utterance|remark|thing\s+(?:said|I\s+heard))(?:\s+(?:in|at)\s+the\s+[a-z]+"
                  r"(?:\s+room)?)?\s+(?:end|finish|stop|come\s+to\s+an\s+end)\b", re.IGNORECASE)


# "how many seconds after the first turn did the second person start speaking?", "how long after the first words did
# a second person begin to speak?", "how long did it take for a third speaker to talk?": the n-th person's first words
# against the first words of all
_NTH = r"(?P<n>second|third|fourth|fifth|2nd|3rd|4th|5th|next|new|different|other)"
_WHO = r"(?:(?:different|new|other)\s+)?(?:person|speaker|voice|one|individual)\b"
_NTH_START = re.compile(rf"^\W*(?:how\s+(?:long|much\s+time|many\s+seconds)|what\s+was\s+the\s+(?:time|delay|gap|"
                        rf"wait))\s+(?:after|from)\s+the\s+(?:very\s+)?first\s+(?:turn|words?|sentence|speaker|person|"
                        rf"thing\s+(?:said|I\s+heard)|utterance|remark|one)\b[^?]*?\b(?:did|was|until|before|to|till)\s+"
                        rf"(?:a|the|another)\s+{_NTH}?\s*{_WHO}"
                        rf"|^\W*how\s+(?:long|much\s+time|many\s+seconds)\s+(?:did\s+it\s+take\s+|passed\s+|went\s+by\s+)?"
                        rf"(?:for|before|until|till)\s+(?:a|the|another)\s+{_NTH.replace('?P<n>', '?P<n2>')}?\s*{_WHO}"
                        rf"[^?]*?\b(?:to\s+)?(?:spoke|speak|talk|talked|started|began|start|begin|said|say|joined|join)",
                        re.IGNORECASE)
_NTH_RANK = {"next": 2, "new": 2, "different": 2, "other": 2}


@dataclass(frozen=True)
class TurnsAsk:
    kind: str              # speaking_order | turns_gap | turns_first | next_turn | turn_position | turn_length |
    #                        turn_end
    by_last: bool = False  # speaking_order: by each person's last turn
    turns: tuple[int, int] = (1, 2)   # turns_gap: which two turns (1-based, in time order; -1 the last)
    places: tuple[str | None, str | None] = (None, None)   # turns_gap: the place each of them is counted in
    people: tuple[str | None, str | None] = (None, None)   # turns_gap: whose turn each is; turn_position: whose
    nth: int = -1          # next_turn: the turn it is next to (1-based; -1 the last); turn_position / turn_length
    before: bool = False   # next_turn: the turn right before it (else right after); turns_first: asks the earlier
    clock: bool = False    # the question states a time: the frame's window is the question's (else one it made up)
    quiet: bool = False    # turns_gap of one person: their silence between the two is asked (end to start) first


def turn_rank(word: str) -> int:
    """A turn's place in time as the question words it: "second" -> 2, "3rd" -> 3, "last" / "final" -> -1."""
    return -1 if word.lower() in ("last", "final") else _rank(word)


def _two_ranks(m: re.Match) -> tuple[int, int]:
    """The two people's turns a match of _SIDE twice names: 1-based, -1 for the last (0: no rank)."""
    return tuple(turn_rank(w)  # type: ignore[return-value]
                 for w in (m.group("a") or m.group("a2"), m.group("b") or m.group("b2")))


def _own_ranks(m: re.Match) -> tuple[int, int]:
    """The two turns of one person a match of _GAP_OWN names: "first two" (1, 2), "last two" (-2, -1), "first and
    next" (1, 2), "second and last" (2, -1)."""
    if m.group("two"):
        return (1, 2) if m.group("two").lower() == "first" else (-2, -1)
    a, b = turn_rank(m.group("a") or m.group("a2")), (m.group("b") or m.group("b2")).lower()
    return a, (a + 1 if a > 0 else 0) if b == "next" else turn_rank(b)


# "how long was it from A's first turn to A's last turn?": the time between them
_FROM_TO = re.compile(r"\bfrom\s+([^?]*?\b(?:turns?|words|sentences?|remarks?|one|time)(?:\s+(?:in|at)\s+the\s+[a-z]+"
                      r"(?:\s+room)?)?)\s+(?:to|until|till)\s+", re.IGNORECASE)


def asks_turns(question: str) -> TurnsAsk | None:
    if re.search(_HOW_LONG, question, re.IGNORECASE):
        question = _FROM_TO.sub(r"between \1 and ", question, count=1)
    plain = QUOTED.sub(" ", question)
    if re.search(r"\b(?:rooms|places)\b|\b(?:which|what)\s+(?:room|place)\b", plain, re.IGNORECASE):
        return None     # the robot's rooms in order (place_refs / the frame); "in the living room" is a place
    if _ORDER.search(plain):
        return TurnsAsk("speaking_order", by_last=bool(_BY_LAST.search(plain)), clock=bool(CLOCK.search(plain)))
    m = _POSITION.search(QUOTED.sub(" QUOTED ", question))
    if m is not None and len(people := people_in(question)) == 1:
        n = m.group("n") or m.group("n2") or m.group("n3") or "first"
        return TurnsAsk("turn_position", nth=turn_rank(n), people=(people[0], None),
                        clock=bool(CLOCK.search(plain)))
    start = asks_person_start(question)
    if start is not None:
        return start
    m = _LENGTH.search(plain) or _END.search(plain)
    if m is not None:
        return TurnsAsk("turn_length" if m.re is _LENGTH else "turn_end",
                        nth=turn_rank(m.group("n")), clock=bool(CLOCK.search(plain)))
    m = _NEXT_TO_TURN.search(plain)
    if m is not None:
        return TurnsAsk("next_turn", nth=turn_rank(m.group("n")),
                        before=m.group("side").lower() == "before", clock=bool(CLOCK.search(plain)))
    m = _FIRST_OF_TWO.search(QUOTED.sub(" QUOTED ", question))
    if m is not None and len(people := people_in(question)) == 2:
        a, b = _two_ranks(m)
        if a and b:
            return TurnsAsk("turns_first", turns=(a, b), people=(people[0], people[1]),
                            before=m.group("w").lower() in ("first", "earlier", "sooner"),
                            clock=bool(CLOCK.search(plain)))
    m = _GAP_PEOPLE.search(QUOTED.sub(" QUOTED ", question))
    if m is not None and len(people := people_in(question)) == 2:
        a, b = _two_ranks(m)
        if a and b:
            return TurnsAsk("turns_gap", turns=(a, b), people=(people[0], people[1]), clock=bool(CLOCK.search(plain)))
    for k, pattern in enumerate(_GAP_MIXED):     # one side a room's turn, the other a person's
        m = pattern.search(QUOTED.sub(" QUOTED ", question))
        if m is not None and len(people := people_in(question)) == 1 and (place := m.group("pb" if k else "pa")):
            a = turn_rank(m.group("a") or m.groupdict().get("a2"))
            b = turn_rank(m.group("b") or m.groupdict().get("b2"))
            if a and b:
                return TurnsAsk("turns_gap", turns=(a, b), clock=bool(CLOCK.search(plain)),
                                places=(None, place) if k else (place, None),
                                people=(people[0], None) if k else (None, people[0]))
    m = _GAP_OWN.search(QUOTED.sub(" QUOTED ", _END_START.sub(r"\1 and ", question)))
    if m is not None and len(people := people_in(question)) == 1:
        a, b = _own_ranks(m)
        if a and b and a != b:
            return TurnsAsk("turns_gap", turns=(a, b), people=(people[0], people[0]),
                            clock=bool(CLOCK.search(plain)), quiet=bool(_QUIET.search(plain)))
    m = _GAP_AT.search(plain)
    if m is not None:
        a, b = turn_rank(m.group("a")), turn_rank(m.group("b"))
        if a and b and (m.group("pa") or m.group("pb") or -1 in (a, b)):
            return TurnsAsk("turns_gap", turns=(a, b), places=(m.group("pa"), m.group("pb")),
                            clock=bool(CLOCK.search(plain)))
    m = _GAP.search(plain)
    if m is not None:    # ("between the first and last turns in the kitchen": the last of the frame's place)
        a, b = (1, 2) if m.group("two") else (_rank(m.group("a")), turn_rank(m.group("b")))
        if b == -1 and a > 0:
            return TurnsAsk("turns_gap", turns=(a, -1), clock=bool(CLOCK.search(plain)))
        if a != b and a > 0 and b > 0:
            return TurnsAsk("turns_gap", turns=(min(a, b), max(a, b)), clock=bool(CLOCK.search(plain)))
    return None


def asks_person_start(question: str) -> TurnsAsk | None:
    """"How long after the first words did a second person speak?" (the n-th person's first words against the first
    words of all), else None."""
    plain = QUOTED.sub(" ", question)
    m = _NTH_START.search(plain)
    if m is None or people_in(question):
        return None
    word = (m.group("n") or m.group("n2") or "second").lower()
    return TurnsAsk("person_start", nth=_NTH_RANK.get(word) or _rank(word), clock=bool(CLOCK.search(plain)))


def own_turns_gap(question: str) -> bool:
    """"How long was the gap between A's first and last turns?": one person's two turns, by their place in time (what
    :func:`asks_turns` reads, so a question it reads otherwise stays with the caller)."""
    ask = asks_turns(question)
    return ask is not None and ask.kind == "turns_gap" and ask.people[0] is not None and \
        ask.people[0] == ask.people[1]


def turns_in_places(question: str) -> bool:
    """The question asks the time between two turns at least one of which it gives by a place ("the first turn in
    the attic and the last turn in the lab"): no stretch of talk from first to last words (talk_span)."""
    m = _GAP_AT.search(QUOTED.sub(" ", question))
    return m is not None and bool(m.group("pa") or m.group("pb"))


def prepare(q: Query) -> Query:
    """Every voice turn in the frame's place and window."""
    return Query(find="who", act="spoke", place=q.place, from_=q.from_, to=q.to, at=q.at)


def answer(executor: QueryExecutor, q: Query, ask: TurnsAsk, before_time: float | None) -> tuple[str, QueryResult]:
    if not ask.clock:    # ("the first two turns in the hallway" with from=0:00 to=0:01 the model wrote)
        q = replace(q, from_=None, to=None, at=None)
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    cond = conditions(res)
    if not turns:
        return f"I heard nobody speak{cond}.", res
    if ask.kind == "speaking_order":
        first: dict[int, object] = {}
        for e in reversed(turns) if ask.by_last else turns:
            first.setdefault(e.character_id, e)
        order = sorted(first.values(), key=lambda e: e.start)  # type: ignore[attr-defined]
        res.events = order + [e for e in res.events if e not in order]
        res.value = len(order)
        which = "last" if ask.by_last else "first"
        said = "; ".join(f"{i}. {res.describe[e.character_id]} ({res.say(e.start)})"  # type: ignore[attr-defined]
                         for i, e in enumerate(order, 1))
        text = f"{len(order)} {'person' if len(order) == 1 else 'people'} spoke{cond}, in the order of their " \
               f"{which} words: {said}."
        problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
        return (REFUSAL if problems else text), res
    if ask.kind == "next_turn":
        return _next_turn(executor, res, turns, ask, cond, before_time)
    if ask.kind == "turn_position":
        return _position(executor, res, turns, ask, cond, before_time)
    if ask.kind in ("turn_length", "turn_end"):
        return _length(res, turns, ask, cond)
    if ask.kind == "person_start":
        return _person_start(res, turns, ask, cond)
    if ask.kind == "turns_first":
        return _first_of_two(executor, q, res, ask, before_time)
    return _gap_of_two(executor, q, res, ask, before_time)


def _next_turn(executor: QueryExecutor, res: QueryResult, turns: list, ask: TurnsAsk, cond: str,
               before_time: float | None) -> tuple[str, QueryResult]:
    """The turn right before (after) the n-th (last) turn of the place and window, among everyone's turns."""
    n, before = ask.nth, ask.before
    which = "last" if n == -1 else ordinal_word(n)
    if n > len(turns):
        return f"I heard only {len(turns)} turn{'s' if len(turns) != 1 else ''}{cond}: there was no {which} one.", res
    target = turns[n - 1] if n > 0 else turns[-1]
    everyone = executor.run(Query(find="who", act="spoke"), before_time)
    every = sorted((e for e in everyone.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    i = next((k for k, e in enumerate(every) if e.id == target.id), None)
    j = None if i is None else i - 1 if before else i + 1
    side = "before" if before else "after"
    them = f"({res.describe[target.character_id]}, {res.say(target.start)})"
    res.events = [target] + [e for e in res.events if e is not target]
    if j is None or not 0 <= j < len(every):
        first_last = "the first thing I heard" if before else "the last thing I heard"
        return f"Nobody spoke right {side} the {which} turn{cond} {them}: it was {first_last}.", res
    near = every[j]
    res.events, res.picked = [target, near] + [e for e in res.events if e not in (target, near)], [near]
    text = f"{cap(res.describe[near.character_id])} spoke right {side} the {which} turn{cond} {them}: at " \
           f"{res.say(near.start)}."
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else text), res


def _position(executor: QueryExecutor, res: QueryResult, turns: list, ask: TurnsAsk, cond: str,
              before_time: float | None) -> tuple[str, QueryResult]:
    """Where one person's n-th (last) turn of the place and window stands among everyone's turns there."""
    theirs = executor.run(Query(find="when", who=ask.people[0], act="spoke"), before_time)
    if theirs.status != "ok":
        return phrase(theirs), theirs
    cid = theirs.who["who"].character_id
    res.who["who"], res.describe = theirs.who["who"], {**res.describe, **theirs.describe}
    d = res.describe[cid]
    own = [e for e in turns if e.character_id == cid]
    which = "last" if ask.nth == -1 else ordinal_word(ask.nth)
    if not own or ask.nth > len(own):
        said = f"{spoke_times(len(own))}{cond}" + (f": there was no {which} turn" if own else "")
        return f"{cap(d)} {said}.", res
    target = own[ask.nth - 1] if ask.nth > 0 else own[-1]
    k = turns.index(target) + 1
    res.events = [target] + [e for e in turns if e is not target]
    res.value = k
    text = f"{cap(d)}'s {which} turn ({res.say(target.start)}) was the {ordinal_word(k)} turn I heard{cond}, of " \
           f"{len(turns)}."
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else text), res


def _length(res: QueryResult, turns: list, ask: TurnsAsk, cond: str) -> tuple[str, QueryResult]:
    """One turn's own length, the turn given by its place in time among everyone's of the place and window."""
    which = "last" if ask.nth == -1 else ordinal_word(ask.nth)
    if ask.nth > len(turns):
        return f"I heard only {len(turns)} turn{'s' if len(turns) != 1 else ''}{cond}: there was no {which} one.", res
    e = turns[ask.nth - 1] if ask.nth > 0 else turns[-1]
    secs = int(round(e.end - e.start))
    res.events = [e] + [t for t in turns if t is not e]
    res.value = secs
    text = f"The {which} turn{cond} ({res.describe[e.character_id]}, {res.say(e.start)}) lasted " \
           f"{seconds_word(secs) if secs else 'under a second'}: from {res.say(e.start)} to {res.say(e.end)}."
    if ask.kind == "turn_end":
        text = f"The {which} turn{cond} ({res.describe[e.character_id]}, from {res.say(e.start)}) ended at " \
               f"{res.say(e.end)}."
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else text), res


def _two_turns(executor: QueryExecutor, q: Query, res: QueryResult, ask: TurnsAsk,
               before_time: float | None) -> list[tuple] | tuple[str, QueryResult]:
    """The two turns ``ask`` gives, each by its place in time among everyone's, one place's or one person's, with
    how the answer names each (a NUL where its time goes), in time order; or the answer saying one is not there."""
    picked, named = [], []
    for n, place, person in zip(ask.turns, ask.places, ask.people, strict=True):
        # (a person's turn beside a room's: the room is the other turn's, not where the person's is counted)
        part = executor.run(prepare(replace(q, place=place or q.place)), before_time) if place else \
            executor.run(replace(prepare(q), who=person, **({"place": None} if any(ask.places) else {})),
                         before_time) if person else res
        if part.status != "ok":
            return phrase(part), part
        own = part.who["who"].character_id if person else None
        turns = sorted((e for e in part.events if e.kind == "voice" and own in (None, e.character_id)),
                       key=lambda e: (e.start, e.id))
        which = "last" if n == -1 else "second to last" if n == -2 else ordinal_word(n)
        where = conditions(part)
        if not turns or abs(n) > len(turns):
            res.status = "empty"
            if own is not None:      # "A's fifth turn" of someone who spoke four times
                return f"{cap(part.describe[own])} {spoke_times(len(turns))}{where}: there was no {which} " \
                       f"turn.", res  # type: ignore[index]
            return f"I heard only {len(turns)} turn{'s' if len(turns) != 1 else ''}{where}: there was no {which} " \
                   f"one.", res
        picked.append(turns[n - 1] if n > 0 else turns[n])
        # (two turns of one scope: "between the first turn in the lab (...) and the second (...)")
        if own is not None:    # "A's last turn": theirs, said by whose (the person as the question named them)
            res.who["other" if "who" in res.who else "who"] = part.who["who"]
            res.describe.update(part.describe)
            named.append(f"{part.describe[own]}'s {which} turn (\x00")  # type: ignore[index]
        else:
            named.append((f"the {which}" if named and ask.places == (None, None) else f"the {which} turn{where}") +
                         f" ({res.describe[picked[-1].character_id]}, \x00")  # type: ignore[index]
    return sorted(zip(picked, named, strict=True), key=lambda x: (x[0].start, x[0].id))


def _gap_of_two(executor: QueryExecutor, q: Query, res: QueryResult, ask: TurnsAsk,
                before_time: float | None) -> tuple[str, QueryResult]:
    """The time between two turns ("the last turn in the kitchen and the first turn in the bathroom", "A's last turn
    and C's last turn"): the silence from the end of the earlier to the start of the later, and start to start."""
    two = _two_turns(executor, q, res, ask, before_time)
    if isinstance(two, tuple):
        return two
    (t1, w1), (t2, w2) = two
    if t1.id == t2.id:    # "between A's first and last turns" of someone who spoke once
        res.events = [t1] + [e for e in res.events if e is not t1]
        res.status, res.value = "empty", 0
        return f"{cap(res.describe[t1.character_id])} spoke only once ({res.say(t1.start)}): their first turn was " \
               f"also their last, so there is no time between two of their turns.", res  # type: ignore[index]
    quiet, apart = int(round(max(0.0, t2.start - t1.end))), int(round(t2.start - t1.start))
    res.events = [t1, t2] + [e for e in res.events if e not in (t1, t2)]
    res.value = quiet
    first = w1.replace(chr(0), f"{res.say(t1.start)}, ended at {res.say(t1.end)}") + ")"
    second = w2.replace(chr(0), res.say(t2.start)) + ")"
    pool = [*res.scope_events, *res.events]
    if any(ask.places):   # (a room's turn: the turns between them are everyone's, wherever they were said)
        every = executor.run(replace(prepare(q), place=None, who=None), before_time)
        pool = every.events if every.status == "ok" else pool
    between = {e.id for e in pool if e.kind == "voice" and e.id not in (t1.id, t2.id)
               and t1.end <= e.start < t2.start}
    if ask.quiet and t1.character_id == t2.character_id:   # one person's own silence: end to start, first
        own = f"{res.describe[t1.character_id]}'s "  # type: ignore[index]
        first, second = first.replace(own, "their ", 1), second.replace(own, "their ", 1)
        others = f" ({len(between)} turn{'s' if len(between) != 1 else ''} by others between them)" if between else ""
        text = (f"{cap(own[:-3])} was silent for {seconds_word(quiet)} between "
                f"{first} and {second}, from the end of one to the start of the other{others}; "
                f"{seconds_word(apart)} from the start of one to the start of the other.")
    elif between:   # other people spoke in between: no silence (held-out 736 had called 37 s of talk "silence")
        text = (f"{seconds_word(apart).capitalize()} passed between {first} and {second}, from the start of one to "
                f"the start of the other; {seconds_word(quiet)} from the end of the one to the start of the other, "
                f"with {len(between)} turn{'s' if len(between) != 1 else ''} between them.")
    else:
        text = (f"{seconds_word(quiet).capitalize() if quiet != 1 else 'One second'} of silence between {first} and "
                f"{second}; {seconds_word(apart)} from the start of one to the start of the other.")
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else cap(text)), res


def _first_of_two(executor: QueryExecutor, q: Query, res: QueryResult, ask: TurnsAsk,
                  before_time: float | None) -> tuple[str, QueryResult]:
    """Which of two people's turns came first (last): "which came first, A's second turn or C's first turn?"."""
    two = _two_turns(executor, q, res, ask, before_time)
    if isinstance(two, tuple):
        return two
    (t1, w1), (t2, w2) = two
    res.events = [t1, t2] + [e for e in res.events if e not in (t1, t2)]
    a, b = w1.replace("\x00", res.say(t1.start)) + ")", w2.replace("\x00", res.say(t2.start)) + ")"
    text = f"{cap(a)} came first; {b} came after it." if ask.before else f"{cap(b)} came later; {a} came before it."
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else text), res


def _person_start(res: QueryResult, turns: list, ask: TurnsAsk, cond: str) -> tuple[str, QueryResult]:
    """"How long after the first words did a second person speak?": the n-th person's first turn against the first
    turn of all, start to start, and from the end of the first turn (the turns between said)."""
    firsts: dict[int, object] = {}
    for e in turns:
        firsts.setdefault(e.character_id, e)
    order = list(firsts.values())
    which = ordinal_word(ask.nth)
    if ask.nth > len(order):
        n = len(order)
        return f"Only {n} {'person' if n == 1 else 'people'} spoke{cond}: there was no {which} person.", res
    t1, t2 = turns[0], order[ask.nth - 1]
    apart, quiet = int(round(t2.start - t1.start)), int(round(max(0.0, t2.start - t1.end)))  # type: ignore[attr-defined]
    between = [e for e in turns if t1.start < e.start < t2.start]  # type: ignore[attr-defined]
    res.events = [t1, t2] + [e for e in res.events if e not in (t1, t2)]
    res.value = (apart, quiet, len(between))
    d1, d2 = res.describe[t1.character_id], res.describe[t2.character_id]  # type: ignore[attr-defined]
    also = f", with {len(between)} turn{'s' if len(between) != 1 else ''} between them" if between else ""
    text = f"The {which} person to speak{cond}, {d2}, first spoke at {res.say(t2.start)}: " \
           f"{seconds_word(apart)} after the first words ({d1}, {res.say(t1.start)}), " \
           f"{seconds_word(quiet)} after those ended at {res.say(t1.end)}{also}."  # type: ignore[attr-defined]
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else text), res
