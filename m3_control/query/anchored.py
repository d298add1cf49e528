"""Questions timed from a moment no frame field holds, answered by code over everyone's voice turns:

- "did B speak within ten seconds of A's first words?", "who spoke within 5 s after I entered the lab?"
  (``within``: turns that start within N seconds after the moment, or end within N seconds before it; "after" /
  "before" keep one side);
- "did B speak more than 20 seconds after A's first turn?", "who spoke at least 10 s after I entered the lab?"
  (``beyond``: turns that start more than N seconds after the moment ended, or end more than N seconds before it
  began; "at least" counts N itself);
- "how long after the start did B first speak?", "how long after my arrival in the lab did anyone speak?", "how
  many seconds passed before anyone spoke?" (``delay``: from the start of the recording, or the robot's move, to
  the first words after it);
- "who did I hear between my arrival in the lab and A's first words there?", "how many times did anyone speak
  between the start and B's first words?" (``between``: the turns strictly between two moments, one of them the
  start or a move of the robot's; two people's turns are the frame's own ``until``).

A moment is the start of the recording (stream time 0), a move of the robot's on its pose track ("my arrival in
the lab", "I left the kitchen") or a person's turn ("A's first words", "A's last turn", "A first spoke"; "there"
after it: their first words in the place the question names). The answer names the turns it rests on and their
times, checked against that result like any frame's; a moment the records do not hold is said, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .execute import QueryExecutor
from .frame import Query, voice_turns
from .named_ids import named_into
from .phrase import REFUSAL, _cap, _join, check, phrase
from .repair import time_of
from .result import QueryResult
from .robot_track import arrivals, room_named, visits
from .wording import QUOTED
from .words import AMOUNT, HOW_LONG, seconds_word, times_word

_PERSON = r"(?:person|one|man|woman|someone|somebody|speaker|voice|guy|lady|individual)"
_WHO_SAID = re.compile(rf"\b(?:the\s+)?{_PERSON}\s+(?:who|that)\s+(?:had\s+|has\s+)?(?:said|says)\s+(Q\d)\b",
                       re.IGNORECASE)
_WHICH = r"(?:(?P<{0}>first|last|final|opening|closing|very\s+first|very\s+last)\s+)?"
_TURN_WORDS = r"(?:words?|turn|sentence|remark|line|utterance|time\s+speaking)"
# a room's name (up to three words, none a person's mark), ended by _END
_ROOM = r"(?:the\s+|my\s+|our\s+)?(?P<{0}>[a-z]+\b(?:\s+(?!Q\d\b)[a-z]+\b){{0,2}})"
_START = r"the\s+(?:very\s+)?(?:start|beginning|outset)(?:\s+of\s+(?:the\s+)?(?:recording|video|conversation|session|" \
         r"scene|day))?|the\s+recording\s+(?:started|began)"
_ARRIVE = r"(?:my|our)\s+(?:arrival\s+(?:in|at)|entry\s+(?:in)?to|entrance\s+(?:in)?to|return\s+to)|" \
          r"(?:i|we)\s+(?:first\s+)?(?:arrived\s+(?:in|at)|entered|got\s+(?:to|into)|came\s+(?:in)?to|" \
          r"walked\s+into|went\s+into|reached)|" \
          r"(?:my\s+|our\s+)?(?:entering|arriving\s+(?:in|at)|getting\s+(?:to|into)|reaching)"   # "of entering the lab"
_LEAVE = r"(?:my|our)\s+(?:departure\s+from|exit\s+from)|(?:i|we)\s+(?:left|exited|walked\s+out\s+of|" \
         r"went\s+out\s+of)|(?:my\s+|our\s+)?(?:leaving|exiting)"


def _anchor(n: int) -> str:
    """One moment, its groups suffixed with ``n``."""
    s = str(n)
    return (rf"(?:(?P<start{s}>{_START})|(?P<arrive{s}>{_ARRIVE})\s+{_ROOM.format('aplace' + s)}|"
            rf"(?P<leave{s}>{_LEAVE})\s+{_ROOM.format('lplace' + s)}|"
            rf"(?P<q{s}>Q\d)(?:'s|’s)?\s+{_WHICH.format('w' + s)}{_TURN_WORDS}(?P<there{s}>\s+there)?|"
            rf"(?P<qs{s}>Q\d)\s+{_WHICH.format('ws' + s)}(?:spoke|speaking|talked|said\s+(?:anything|something)|"
            rf"started\s+(?:speaking|talking))(?P<theres{s}>\s+there)?)")


_END = r"(?=\s*[,?.!;]|\s+(?:and|did|does|do|had|has|was|were|is|until|before|for|or|that|when)\b|\s*$)"
_WITHIN = re.compile(rf"\bwithin\s+(?P<n>{AMOUNT})\s+(?P<side>after|before|of|from)\s+{_anchor(1)}{_END}",
                     re.IGNORECASE)
_BEYOND = re.compile(rf"\b(?P<cmp>more\s+than|over|at\s+least|later\s+than|longer\s+than)\s+(?P<n>{AMOUNT})\s+"
                     rf"(?P<side>after|before)\s+{_anchor(1)}{_END}", re.IGNORECASE)
_DELAY = re.compile(rf"^\W*{HOW_LONG}\s+(?:after|from|since)\s+{_anchor(1)}{_END}|"
                    rf"^\W*{HOW_LONG}\s+into\s+(?P<into>the\s+(?:recording|video|"
                    rf"conversation|session))|^\W*how\s+long\s+did\s+it\s+take\s+(?:after\s+{_anchor(2)}\s+)?"
                    rf"(?:for|before)\b|^\W*{HOW_LONG}\s+(?P<before>passed|went\s+by|"
                    rf"elapsed|(?:had\s+)?gone\s+by|was\s+(?:it|there)|did\s+(?:it\s+take|i\s+wait))\s+before\b",
                    re.IGNORECASE)
# "how long did the silence before the first words last?", "how long was it quiet before anyone spoke?": the start
_QUIET_START = re.compile(rf"^\W*(?:for\s+)?{HOW_LONG}\s+(?:did|was|were)\s+"
                          r"(?:the\s+|it\s+|there\s+)?(?:(?:opening|initial|first)\s+)?(?:silence|silent|quiet|pause|nothing\s+said)\b"
                          r"[^?]*?\b(?:before|until)\s+(?:the\s+(?:very\s+)?first\s+(?:words?|turn|sentence|voice)|anyone|"
                          r"anybody|someone|somebody)\b|^\W*how\s+long\s+(?:was|did)\s+the\s+(?:opening|initial)\s+"
                          r"(?:silence|quiet|pause)\b", re.IGNORECASE)
# "how much time passed between my entering the hallway and the first words there?": from the move
_MOVE_TO_WORDS = re.compile(rf"^\W*{HOW_LONG}\b[^?]*?\bbetween\s+(?:my|our)\s+"
                            r"(?:(?P<leave>leaving|departure\s+from|exit\s+from|exiting)|entering|entry\s+(?:in)?to|arrival\s+(?:in|"
                            r"at)|arriving\s+(?:in|at)|getting\s+to|coming\s+(?:in)?to)\s+(?:the\s+)?(?P<place>[a-z]+"
                            r"(?:\s+room)?)\s+and\s+(?:the\s+)?(?:very\s+)?first\s+(?:words?|turn|voice|sentence|thing\s+"
                            r"said)\b", re.IGNORECASE)
# "how long had I been in the garage when B first spoke there?": the delay from the robot's arrival to B's words
_BEEN_IN = re.compile(rf"^\W*(?:for\s+)?{HOW_LONG}\s+had\s+(?:i|we)\s+been\s+"
                      rf"(?:in|at)\s+"
                      rf"{_ROOM.format('place')}\s+(?:when|before|by\s+the\s+time)\s+(?P<who>Q\d|anyone|anybody|"
                      rf"someone|somebody|the\s+first\s+(?:words?|person|voice|speaker))\b", re.IGNORECASE)
# "did anyone speak while I was going from the hallway to the garage?": the robot's way between the two rooms
_ON_THE_WAY = re.compile(rf"\b(?:(?:while|when|as)\s+(?:i|we)\s+(?:was|were)\s+(?:going|moving|walking|driving|"
                         rf"travell?ing|heading|rolling|on\s+(?:my|our)\s+way)|on\s+(?:my|our)\s+way)\s+from\s+"
                         rf"{_ROOM.format('src')}\s+(?:to|into|toward|towards)\s+{_ROOM.format('dst')}{_END}",
                         re.IGNORECASE)
# a time between two moments, not the turns between them
_HOW_LONG = re.compile(rf"^\W*(?:for\s+)?{HOW_LONG}\b|"
                       r"^\W*what\s+was\s+the\s+(?:gap|delay|time|wait)\b", re.IGNORECASE)
_BETWEEN = re.compile(rf"\bbetween\s+{_anchor(1)}\s+and\s+{_anchor(2)}", re.IGNORECASE)
_TWICE_WITHIN = re.compile(rf"\b(?:speak|spoke|talk|talked|say\s+something|said\s+something)\s+(?:twice|two\s+times)\s+"
                           rf"within\s+(?P<n>{AMOUNT})\b|\btwo\s+turns\s+within\s+(?P<n2>{AMOUNT})\b|"
                           rf"\bturns\s+(?:ever\s+)?(?:less|fewer|no\s+more)\s+than\s+(?P<n3>{AMOUNT})\s+apart\b",
                           re.IGNORECASE)
_EACH_OTHER = re.compile(rf"\bwithin\s+(?P<n>{AMOUNT})\s+of\s+(?:each\s+other|one\s+another)\b", re.IGNORECASE)
_CLOSEST = re.compile(r"\b(?:(?:closest|nearest)(?:\s+to)?|(?:in|at|around)(?=\s+the\s+(?:very\s+)?(?:middle|midpoint|"
                      r"halfway)\b[^?]*?\b(?:recording|video|conversation|session)))\s+(?:the\s+)?(?:very\s+)?"
                      r"(?:(?P<mid>middle|midpoint|mid-point|halfway\s+(?:point|mark)?)(?:\s+of\s+(?:the\s+)?(?:recording|video|conversation|session))?|(?P<clock>\d{1,2}:[0-5]\d))",
                      re.IGNORECASE)
# "was somebody talking halfway through the recording?": the middle as a moment
_HALFWAY = re.compile(r"\b(?P<mid>halfway|midway)\s+(?:through|into)\s+(?:the\s+)?(?:recording|video|conversation|"
                      r"session)", re.IGNORECASE)
_ANYONE = re.compile(r"\b(?:anyone|anybody|someone|somebody|people|a\s+person|any\s+(?:one|body)|the\s+first\s+"
                     r"(?:words?|person|speaker|voice))\b", re.IGNORECASE)


@dataclass(frozen=True)
class Moment:
    kind: str                     # start | arrive | leave | turn | middle | clock (place: the clock's words)
    place: str = ""               # a move's room
    quote: str = ""               # a turn's person, by their words
    which: str = "first"          # first | last (a turn's)
    there: bool = False           # "A's first words there": in the place the question names

    def words(self) -> str:
        return "the start" if self.kind == "start" else \
            f"my arrival in the {self.place}" if self.kind == "arrive" else f"I left the {self.place}"


@dataclass(frozen=True)
class AnchoredAsk:
    kind: str                     # within | beyond | delay | between | on_way | twice_within | closest | each_other
    moments: tuple[Moment, ...]
    subject: str | None           # the quote of the person asked about (None: anyone)
    seconds: float = 0.0          # within: N
    side: str = "of"              # within: after | before | of; beyond: after | before
    least: bool = False           # beyond: "at least N" (N itself counts), else "more than N"
    said: str = ""                # the question's words for the moment(s), taken out of what the checks read
    yes_no: bool = False          # closest: "was anyone speaking at the middle of the recording?"


def _marked(question: str) -> tuple[str, list[str]]:
    """The question with each person it names by their words (or by a name: "Ann's first words", "did Ann speak
    ...?") as Q0, Q1, ...; and those references."""
    refs: list[str] = []

    def mark(m: re.Match) -> str:
        refs.append(next(g for g in m.groups() if g))
        return f"Q{len(refs) - 1}"

    marked = _WHO_SAID.sub(r"\1", QUOTED.sub(mark, question))
    marked = re.sub(r"(?<=\S\s)(?!(?:I|My|The)\b)([A-Z][a-z]+)(?=(?:'s|’s)\s)", mark, marked)
    marked = re.sub(r"^(\W*(?i:did|was|has|had|is)\s+)(?!(?:I|My|The)\b)([A-Z][a-z]+)\b",
                    lambda m: m.group(1) + mark(re.match(r"(.+)", m.group(2))), marked)   # type: ignore[arg-type]
    return marked, refs


def _moment(m: re.Match, n: int, quotes: list[str]) -> Moment | None:
    g = {k.removesuffix(str(n)): v for k, v in m.groupdict().items() if k.endswith(str(n)) and v}
    if "start" in g:
        return Moment("start")
    if "arrive" in g or "leave" in g:
        return Moment("arrive" if "arrive" in g else "leave", place=(g.get("aplace") or g.get("lplace") or "").lower())
    ref = g.get("q") or g.get("qs")
    if ref is None:
        return None
    which = (g.get("w") or g.get("ws") or "first").split()[-1].lower()
    return Moment("turn", quote=quotes[int(ref[1:])], which="last" if which in ("last", "final", "closing") else
                  "first", there=bool(g.get("there") or g.get("theres")))


def asks_anchored(question: str) -> AnchoredAsk | None:
    """The moment-timed question asked (see the module's text), else None."""
    marked, quotes = _marked(question)

    def subject_before(pos: int) -> str | None:     # the person named before the moment's words
        return next((quotes[int(x[1:])] for x in re.findall(r"\bQ\d\b", marked[:pos])), None)

    def anyone(text: str) -> bool:     # the question asks about anyone (else a person it names another way: not here)
        return bool(_ANYONE.search(text) or re.match(r"^\W*(?:who|whom|how\s+many)\b", text, re.IGNORECASE))

    m = _WITHIN.search(marked)
    if m is not None:
        moment, n = _moment(m, 1, quotes), time_of(m.group("n"))
        if moment is None or n is None:
            return None
        side = m.group("side").lower()
        subject = subject_before(m.start())
        if subject is None and not anyone(marked[:m.start()]):
            return None
        return AnchoredAsk("within", (moment,), subject, seconds=n,
                           side=side if side in ("after", "before") else "of", said=m.group(0))
    m = _BEYOND.search(marked)
    if m is not None:
        moment, n = _moment(m, 1, quotes), time_of(m.group("n"))
        subject = subject_before(m.start())
        if moment is None or n is None or (subject is None and not anyone(marked[:m.start()])):
            return None
        return AnchoredAsk("beyond", (moment,), subject, seconds=n, side=m.group("side").lower(),
                           least=m.group("cmp").lower().startswith("at"), said=m.group(0))
    m = _MOVE_TO_WORDS.search(marked)
    if m is not None:
        move = Moment("leave" if m.group("leave") else "arrive", place=m.group("place").lower())
        return AnchoredAsk("delay", (move,), None, said=m.group(0))
    m = _BEEN_IN.search(marked)
    if m is not None:
        who = m.group("who")
        subject = quotes[int(who[1:])] if re.fullmatch(r"Q\d", who) else None
        return AnchoredAsk("delay", (Moment("arrive", place=m.group("place").lower()),), subject, said=m.group(0))
    m = _ON_THE_WAY.search(marked)
    if m is not None:
        subject = subject_before(m.start())
        if subject is None and not anyone(marked[:m.start()]):
            return None
        way = (Moment("leave", place=m.group("src").lower()), Moment("arrive", place=m.group("dst").lower()))
        return AnchoredAsk("on_way", way, subject, said=m.group(0))
    m = _QUIET_START.search(marked)
    if m is not None:
        return AnchoredAsk("delay", (Moment("start"),), None, said=m.group(0))   # (before one person: a gap)
    m = _DELAY.search(marked)
    if m is not None:
        rest = marked[m.end():]
        n = 1 if any(m.group(k + "1") for k in ("start", "arrive", "leave", "q", "qs")) else 2
        # "how many seconds passed before anyone spoke?": from the start of the recording
        moment = Moment("start") if m.group("into") or m.group("before") else _moment(m, n, quotes)
        if moment is None:
            # "how long did it take for anyone to speak?": from the start; "... for B to answer A": not this
            if not re.search(r"\bto\s+(?:first\s+)?(?:speak|talk|say\s+(?:anything|something|a\s+word))\b", rest,
                             re.IGNORECASE):
                return None
            moment = Moment("start")
        if moment.kind == "turn":
            return None      # from one person's words to another's: the frame's find=gap
        # the person asked about: named after the moment ("... did B first speak?"), else before it
        subject = next((quotes[int(x[1:])] for x in re.findall(r"\bQ\d\b", rest)), None) or \
            subject_before(m.start())
        name = re.search(r"(?:\b(?:did|does|had|has)\s+|^\s*)(?!(?:I|My|The)\b)([A-Z][a-z]+)\b", rest)
        if subject is None and name is not None:
            subject = name.group(1)
        elif subject is None and not _ANYONE.search(rest) and not re.search(r"\b(?:first\s+words?|talk(?:ing)?|"
                                                                           r"conversation)\b", rest, re.IGNORECASE):
            return None
        return AnchoredAsk("delay", (moment,), subject, said=m.group(0))
    m = _BETWEEN.search(marked)
    if m is not None:
        a, b = _moment(m, 1, quotes), _moment(m, 2, quotes)
        if a is None or b is None:
            return None
        after = next((quotes[int(x[1:])] for x in re.findall(r"\bQ\d\b", marked[m.end():])), None)
        subject = subject_before(m.start()) or after
        if a.kind == "turn" and b.kind == "turn" and (subject is None or subject in (a.quote, b.quote)):
            return None      # between two people's turns, about anyone: the frame's own until=
        if _HOW_LONG.match(marked) and a.kind in ("start", "arrive", "leave") and b.kind == "turn" and \
                b.which == "first":   # "how many seconds passed between my arrival in X and B's first words there?"
            return AnchoredAsk("delay", (a,), b.quote, said=m.group(0))
        if subject is None and not anyone(marked[:m.start()]) and not anyone(marked[m.end():]):
            return None
        return AnchoredAsk("between", (a, b), subject, said=m.group(0))
    m = _EACH_OTHER.search(marked)
    if m is not None and (n := time_of(m.group("n"))) is not None:
        people = [quotes[int(x[1:])] for x in re.findall(r"\bQ\d\b", marked[:m.start()])]
        if len(people) != 2:
            return None
        return AnchoredAsk("each_other", (Moment("turn", quote=people[0]), Moment("turn", quote=people[1])), None,
                           seconds=n, said=m.group(0))
    m = _TWICE_WITHIN.search(marked)
    if m is not None and (n := time_of(m.group("n") or m.group("n2") or m.group("n3"))) is not None:
        subject = subject_before(m.start())
        if subject is None and not anyone(marked[:m.start()]):
            return None
        return AnchoredAsk("twice_within", (), subject, seconds=n, said=m.group(0))
    m = _CLOSEST.search(marked) or _HALFWAY.search(marked)
    if m is not None:
        moment = Moment("middle") if m.group("mid") else Moment("clock", place=m.groupdict()["clock"])
        yes_no = bool(re.match(r"^\W*(?:was|were|is|did)\s+(?:anyone|anybody|someone|somebody|any\s+one|a\s+person|"
                               r"there|people)\b", marked, re.IGNORECASE))
        return AnchoredAsk("closest", (moment,), None, said=m.group(0), yes_no=yes_no)
    return None


def check_question(question: str, ask: AnchoredAsk) -> str:
    """The question as the frame's checks read it: without the moments (this plan finds them)."""
    marked, refs = _marked(question)
    quoted = set(QUOTED.findall(question) and [next(g for g in m.groups() if g) for m in QUOTED.finditer(question)])
    return re.sub(r"\bQ(\d)\b", lambda x: f'"{refs[int(x.group(1))]}"' if refs[int(x.group(1))] in quoted else
                  refs[int(x.group(1))], marked.replace(ask.said, " "))


def prepare(q: Query) -> Query:
    """Everyone's voice turns (the plan reads the window from the moments, the people from the question)."""
    return voice_turns(q, at=None, from_=None, to=None, place=None)


class _Missing(Exception):
    pass


def _time_of(executor: QueryExecutor, m: Moment, turns: list, res: QueryResult, ids: dict[str, int],
             place: str | None) -> tuple[float, float, object]:
    """(start, end, the turn or None) of a moment; _Missing with the reason where the records do not hold it."""
    if m.kind == "start":
        return 0.0, 0.0, None
    if m.kind in ("arrive", "leave"):
        track = visits(executor.store, res.now)
        stays = [s for s in track if s[0].lower() == m.place.lower()]
        if not stays:
            raise _Missing(f"I was never in a place called the {m.place}")
        if m.kind == "arrive":
            stays = arrivals(track, stays)
        t = stays[0][1] if m.kind == "arrive" else stays[0][2]
        if t is None:
            raise _Missing(f"I have not left the {m.place}")
        res.robot_places.append((t, stays[0][0]))
        return t, t, None
    mine = [e for e in turns if e.character_id == ids[m.quote] and
            (not m.there or place is None or res.places.get(e.id, "").lower() == place)]
    if not mine:
        raise _Missing(f"{res.describe[ids[m.quote]]} never spoke" + (f" in the {place}" if m.there and place else ""))
    e = mine[0] if m.which == "first" else mine[-1]
    return e.start, e.end, e


def _described(res: QueryResult, m: Moment, ids: dict[str, int], turn: object, place: str | None) -> str:
    if m.kind != "turn":
        return m.words()
    there = f" in the {place}" if m.there and place else ""
    return f"{res.describe[ids[m.quote]]}'s {m.which} words{there} (at {res.say(turn.start)})"  # type: ignore[attr-defined]


def answer(executor: QueryExecutor, q: Query, ask: AnchoredAsk, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    ids: dict[str, int] = {}
    for ref in dict.fromkeys([*(m.quote for m in ask.moments if m.quote), *([ask.subject] if ask.subject else [])]):
        named = named_into(executor, prepare(q), ref, res, before_time)
        if named.status != "ok":
            return phrase(named), named
        ids[ref] = named.who["who"].character_id  # type: ignore[assignment]
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.end, e.id))
    known = {s[0] for s in visits(executor.store, res.now)}

    def room(words: str) -> str:      # "lab did anyone" -> "lab"; a room the robot never was in: its first word
        return room_named(known, words) or words.split()[0]

    ask = replace(ask, moments=tuple(replace(m, place=room(m.place)) if m.place and m.kind in ("arrive", "leave")
                                     else m for m in ask.moments))
    if ask.kind == "each_other":
        return _each_other(res, turns, ask, ids)
    if ask.kind in ("twice_within", "closest"):
        return _own_pairs_or_closest(executor, res, turns, ask, ids, before_time)
    if ask.kind == "on_way":
        return _on_the_way(executor, res, turns, ask, ids, question)
    place = next((m.place for m in ask.moments if m.kind in ("arrive", "leave")), None)
    if place and any(m.there for m in ask.moments):
        executor.place_turns(res, turns)
    try:
        spans = [_time_of(executor, m, turns, res, ids, place) for m in ask.moments]
    except _Missing as e:
        return f"I can't tell: {e}.", res
    subject = ids.get(ask.subject) if ask.subject else None
    who = res.describe[subject] if subject is not None else None
    anchors = [s[2] for s in spans if s[2] is not None]
    said = [_described(res, m, ids, s[2], place) for m, s in zip(ask.moments, spans, strict=True)]
    res.steps.append({"step": f"moments ({ask.kind})", "moments": [round(s[0], 1) for s in spans]})
    if ask.kind == "within":
        start, end, _ = spans[0]
        n = ask.seconds
        hits = [e for e in turns if e not in anchors and (subject is None or e.character_id == subject) and
                ((ask.side != "before" and start <= e.start <= end + n) or
                 (ask.side != "after" and start - n <= e.end <= start + 1e-6 and e.start < start))]
        return _within(res, hits, who, ask, said[0], anchors, question, (start, end))
    if ask.kind == "beyond":    # the other side of "within": from the moment's end on (its start back)
        start, end, _ = spans[0]
        n = ask.seconds + (0.0 if ask.least else 1e-6)
        hits = [e for e in turns if e not in anchors and (subject is None or e.character_id == subject) and
                (e.start >= end + n if ask.side == "after" else e.end <= start - n)]
        return _within(res, hits, who, ask, said[0], anchors, question)
    if ask.kind == "delay":
        t = spans[0][1]
        after = [e for e in turns if e.start >= t and (subject is None or e.character_id == subject)]
        if not after:
            before = [e for e in turns if e.start < t and (subject is None or e.character_id == subject)]
            if not before:
                return f"I did not hear {who or 'anyone'} at all.", res
            res.events = [before[-1]] + [x for x in res.events if x is not before[-1]]
            return f"I did not hear {who or 'anyone'} after {said[0]}: the last time was before it, at " \
                f"{res.say(before[-1].start)}.", res
        e = after[0]
        res.events = [e] + [x for x in res.events if x is not e]
        res.value = int(round(e.start - t))
        text = f"{_cap(res.describe[e.character_id])} first spoke at {res.say(e.start)}, " \
            f"{seconds_word(res.value)} after {said[0]}" + (f" ({res.say(t)})" if ask.moments[0].kind != "start"
                                                              else "") + "."
        return (REFUSAL if check(text, res) else text), res
    (a, a_end, _), (b, _, _) = spans
    if b < a:
        return f"{_cap(said[1])} came before {said[0]}: nothing lies between them.", res
    inside = [e for e in turns if e not in anchors and a_end <= e.start < b and
              (subject is None or e.character_id == subject)]
    return _between(res, inside, who, said, anchors, question)


def _within(res: QueryResult, hits: list, who: str | None, ask: AnchoredAsk, moment: str, anchors: list,
            question: str, span: tuple[float, float] | None = None) -> tuple[str, QueryResult]:
    """``span``: the moment's start and end, for "within N seconds of it" (either side: each hit said with its
    side, so a turn that ended before the robot arrived is not taken for one heard after)."""
    limit = seconds_word(int(round(ask.seconds)))
    side = {"after": "after", "before": "before"}.get(ask.side, "of")
    if side == "of" and moment.startswith("I left "):   # "within 4 seconds of my leaving the lab", not "of I left"
        moment = "my leaving " + moment.removeprefix("I left ")
    if ask.kind == "beyond":   # "more than 20 seconds after", "at least 10 seconds before"
        limit, side = f"{'at least' if ask.least else 'more than'} {limit}", ask.side
    else:
        limit = f"within {limit}"
    res.events = hits + anchors + [e for e in res.events if e not in hits and e not in anchors]
    people = list(dict.fromkeys(e.character_id for e in hits))
    res.value = (len(hits), len(people), int(round(ask.seconds)))
    if not hits:
        return f"No, {who or 'nobody'} {'did not speak' if who else 'spoke'} {limit} {side} {moment}.", res
    times = _join([res.say(e.start) for e in hits])
    if side == "of" and span is not None:
        gaps = [(e, "ending", int(round(span[0] - e.end)), "before") if e.start < span[0] else
                (e, "", max(0, int(round(e.start - span[1]))), "after") for e in hits]   # (0: on arrival)
        res.value = (*res.value, *(n for _, _, n, _ in gaps))   # (the seconds each side, for the answer's check)
        times = _join([f"{res.say(e.start)} ({f'{lead} ' if lead else ''}{seconds_word(n)} {way} it)"
                       for e, lead, n, way in gaps])
    if re.match(r"^\W*how\s+many\s+(?:people|persons|different)", question, re.IGNORECASE):
        text = f"{len(people)}: {_join([res.describe[c] for c in people])} (at {times}) {limit} {side} {moment}."
    elif re.match(r"^\W*how\s+many\s+times", question, re.IGNORECASE):
        text = f"{_cap(times_word(len(hits)))} {limit} {side} {moment}: at {times}."
    else:
        yes = "Yes, " if re.match(r"^\W*(?:did|was|were|is|has|had)\b", question, re.IGNORECASE) else ""
        text = f"{yes}{_join([res.describe[c] for c in people])} spoke {limit} {side} {moment}: at {times}."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res


def _on_the_way(executor: QueryExecutor, res: QueryResult, turns: list, ask: AnchoredAsk, ids: dict[str, int],
                question: str) -> tuple[str, QueryResult]:
    """The turns heard while the robot went from one room to the next (from the end of its stay in the first to the
    start of its next stay in the second): a turn still going on when it left counts, one begun on arrival not."""
    src, dst = (m.place for m in ask.moments)
    stays = visits(executor.store, res.now)
    # a stay in src and a later one in dst: straight from one to the other first (the earliest such), else the
    # earliest stay in src with the first stay in dst after it
    ways = [(j - i > 1, i, j) for i, a in enumerate(stays) if a[0].lower() == src.lower() and a[2] is not None
            for j in range(i + 1, len(stays)) if stays[j][0].lower() == dst.lower()]
    if not ways:
        return f"I can't tell: I never went from the {src} to the {dst}.", res
    _, i, j = min(ways)
    (src, _, left), (dst, got, _) = stays[i], stays[j]
    res.robot_places += [(left, src), (got, dst)]
    subject = ids.get(ask.subject) if ask.subject else None
    inside = [e for e in turns if e.start < got and e.end > left and (subject is None or e.character_id == subject)]
    span = f"while I was going from the {src} to the {dst} ({res.say(left)} to {res.say(got)})"
    who = res.describe[subject] if subject is not None else None
    return _between(res, inside, who, [], [], question, span=span)


def _between(res: QueryResult, inside: list, who: str | None, said: list[str], anchors: list,
             question: str, span: str = "") -> tuple[str, QueryResult]:
    span = span or f"between {said[0]} and {said[1]}"
    res.events = inside + anchors + [e for e in res.events if e not in inside and e not in anchors]
    how_many_times = re.search(r"\bhow\s+many\s+times\b", question, re.IGNORECASE)    # (also "between ..., how many")
    how_many_people = re.search(r"\bhow\s+many\b", question, re.IGNORECASE) and not how_many_times
    if not inside:
        res.value = 0
        if how_many_times or how_many_people:
            return (f"None: {who} did not speak {span}." if who else f"None: nobody spoke {span}."), res
        if re.match(r"^\W*(?:did|was|were|is|has|had)\b", question, re.IGNORECASE):
            return f"No, {who or 'nobody'} {'did not speak' if who else 'spoke'} {span}.", res
        return (f"{_cap(who)} did not speak {span}." if who else f"Nobody: I heard nobody {span}."), res
    people = list(dict.fromkeys(e.character_id for e in inside))
    counts = {c: sum(e.character_id == c for e in inside) for c in people}
    res.spoke = counts
    each = _join([f"{res.describe[c]} ({times_word(counts[c])}, at "
                  f"{_join([res.say(e.start) for e in inside if e.character_id == c])})" for c in people])
    if how_many_times:
        res.value = len(inside)
        text = f"{_cap(times_word(len(inside)))} {span}: {each}."
    elif how_many_people:
        res.value = len(people)
        text = f"{len(people)} {span}: {each}."
    elif re.match(r"^\W*(?:did|was|were|is|has|had)\b", question, re.IGNORECASE):
        text = f"Yes, {span}: {each}."
    else:
        text = f"{_cap(each)} spoke {span}."
    return (REFUSAL if check(text, res) else text), res


def _own_pairs_or_closest(executor: QueryExecutor, res: QueryResult, turns: list, ask: AnchoredAsk,
                          ids: dict[str, int], before_time: float | None) -> tuple[str, QueryResult]:
    """"Did B ever speak twice within ten seconds?" (two of one person's turns starting within N s of each other),
    "who spoke closest to the middle of the recording?" (the turn nearest that moment)."""
    if ask.kind == "twice_within":
        subject = ids.get(ask.subject) if ask.subject else None
        limit = seconds_word(int(round(ask.seconds)))
        pairs = []
        for c in dict.fromkeys(e.character_id for e in turns):
            if subject is not None and c != subject:
                continue
            mine = [e for e in turns if e.character_id == c]
            pairs += [(a, b) for a, b in zip(mine, mine[1:], strict=False) if b.start - a.start <= ask.seconds]
        res.value = (len(pairs), int(round(ask.seconds)))
        who = res.describe[subject] if subject is not None else None
        if not pairs:
            return f"No, {who or 'nobody'} {'never spoke' if who else 'spoke'} twice within {limit}.", res
        res.events = [e for p in pairs for e in p] + [e for e in res.events if all(e not in p for p in pairs)]
        people = list(dict.fromkeys(a.character_id for a, _ in pairs))
        said = "; ".join(f"{res.describe[c]} at " + ", then at ".join(f"{res.say(a.start)} and {res.say(b.start)}"
                                                                     for a, b in pairs if a.character_id == c)
                         for c in people)
        text = f"Yes, twice within {limit}: {said}."
        return (REFUSAL if check(text, res) else text), res
    m = ask.moments[0]
    if m.kind == "middle":
        end = executor.store.perceived_until(before_time)
        if not end:
            return "I have recorded nothing yet.", res
        t, said = end / 2, f"the middle of the recording ({res.say(end / 2)})"
    else:
        t = float(time_of(m.place) or 0.0)
        said = res.say(t)
    res.query = replace(res.query, at=f"{t:.1f}")     # the moment, for the answer's check
    if not turns:
        return "I heard nobody.", res
    gap = {e: 0.0 if e.start <= t <= e.end else min(abs(e.start - t), abs(e.end - t)) for e in turns}
    e = min(turns, key=lambda x: (gap[x], x.start))
    res.events = [e] + [x for x in res.events if x is not e]
    if ask.yes_no:      # speaking at that very moment, or not: the turns on either side said
        if gap[e] == 0:
            text = f"Yes: {res.describe[e.character_id]} was speaking at {said}, from {res.say(e.start)} to " \
                f"{res.say(e.end)}."
        else:
            before = [x for x in turns if x.end < t]
            after = [x for x in turns if x.start > t]
            sides = ([f"{res.describe[before[-1].character_id]}'s turn ended at {res.say(before[-1].end)}"] if before
                     else []) + ([f"{res.describe[after[0].character_id]}'s began at {res.say(after[0].start)}"]
                                 if after else [])
            res.events = before[-1:] + after[:1] + [x for x in res.events if x not in before[-1:] + after[:1]]
            text = f"No: nobody was speaking at {said}" + (f"; {' and '.join(sides)}." if sides else ".")
        text = _cap(text)
        return (REFUSAL if check(text, res) else text), res
    how = "was speaking at" if gap[e] == 0 else "spoke closest to"
    text = f"{_cap(res.describe[e.character_id])} {how} {said}: \"{e.text.strip().rstrip('.!?')}\" at " \
        f"{res.say(e.start)}."
    return (REFUSAL if check(text, res) else text), res


def _each_other(res: QueryResult, turns: list, ask: AnchoredAsk, ids: dict[str, int]) -> tuple[str, QueryResult]:
    """"Did A and B ever speak within ten seconds of each other?": a turn of each, the time between them (the end of
    the one to the start of the other) at most N seconds."""
    a, b = (ids[m.quote] for m in ask.moments)
    limit = seconds_word(int(round(ask.seconds)))
    da, db = res.describe[a], res.describe[b]
    if a == b:
        return REFUSAL, res
    pairs = []
    for x in (e for e in turns if e.character_id == a):
        for y in (e for e in turns if e.character_id == b):
            first, second = (x, y) if x.start <= y.start else (y, x)
            gap = max(0.0, second.start - first.end)
            if gap <= ask.seconds:
                pairs.append((gap, first, second))
    res.value = (len(pairs), int(round(ask.seconds)))
    if not pairs:
        return f"No, {da} and {db} never spoke within {limit} of each other.", res
    pairs.sort(key=lambda p: p[1].start)
    res.events = [e for p in pairs for e in p[1:]] + [e for e in res.events if all(e not in p for p in pairs)]
    said = _join([f"{res.describe[f.character_id]} at {res.say(f.start)}, then {res.describe[s.character_id]} at "
                  f"{res.say(s.start)}" for _, f, s in pairs])
    text = f"Yes, {da} and {db} spoke within {limit} of each other: {said}."
    return (REFUSAL if check(text, res) else text), res
