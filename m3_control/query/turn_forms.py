"""Question forms found by stop 61's blind probes, with what the executor and the answer do for them:

* "who was the first person to speak twice?": people ranked by the moment of their k-th turn (``measure=reach``
  ``times>=k``), not by their first turn;
* "who spoke between A's first and second turns?": the window between two of one person's turns (``other=A
  until=A``, ``other_turn`` / ``until_turn`` which of their turns; "first and last" included);
* "was A the only one who spoke in the kitchen?": A spoke there and nobody else did (``only=1``);
* "who spoke closest to 1:00?": the turn nearest that moment (``measure=nearest``), under way or not;
* "how long did A speak the first time?": A's own first turn (``who=A pick=first``), not all of A's talk;
* "who did I hear third in the bedroom?" where two people spoke: said so, naming the two (the answer was "I don't
  remember anyone speaking in the bedroom").

The forms run at the end of the question check (:func:`m3_control.query.fidelity.check`) and replace the frame the
model wrote when the question has one of these shapes (a small model cannot write fields it has no grammar for).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from m3_memory.people import Turn

from .frame import Query, before_side, compares_with_other, noted, nth, pick_ordinal
from .people import Who, by_role, is_role
from .ranking import _ORD_RE, _ORDINAL_OR_END, _pick_of
from .sight_anchor import anchor_there, sight_anchor, sighting_ref
from .wording import ORDINAL_WORDS, QUOTED
from .words import COUNT_WORDS, cap, how_often, join, ordinal_word, same_quote, seconds_word, times_word

if TYPE_CHECKING:
    from .result import PersonRow, QueryResult

_VERB = r"(?:speak|spoke|talk|talked|say\s+(?:something|anything)|said\s+(?:something|anything))"
# "the first person to speak twice", "who was first to talk three times?", "the second one who spoke twice"
_REACH = re.compile(rf"\b(?:the\s+)?(first|second|third|last)\s+(?:(?:person|one|speaker|voice)\s+)?(?:to|who|that)\s+"
                    rf"{_VERB}\s+(?:(twice|thrice)|(\d|two|three|four|five|six)\s+times)\b", re.IGNORECASE)
# "between A's first and second turns", "between the first and the last time A spoke" (the quote taken out)
_TURN_NOUNS = r"(?:turns?|words|times?|sentences?|remarks?|utterances?)"
_OWN_SPAN = re.compile(rf"\bbetween\s+(?:[^?]*?'s\s+|(?:their|his|her)\s+)?(?P<a>{_ORD_RE})\s+and\s+"
                       rf"(?:(?:their|his|her|the)\s+)?(?P<b>{_ORD_RE}|last|final)\s+{_TURN_NOUNS}\b|"
                       rf"\bbetween\s+the\s+(?P<a2>{_ORD_RE})\s+and\s+(?:the\s+)?(?P<b2>{_ORD_RE}|last|final)\s+"
                       rf"{_TURN_NOUNS}\b|"
                       # "after A's first turn but before A's second", "after their first words and before the last"
                       rf"\bafter\s+(?:[^?]*?'s\s+|(?:their|his|her|the)\s+)?(?P<a3>{_ORD_RE})\s+(?:{_TURN_NOUNS}\s+)?"
                       rf"(?:[^?]*?\s)?(?:but|and)\s+before\s+(?:[^?]*?'s\s+|(?:their|his|her|the)\s+)?"
                       rf"(?P<b3>{_ORD_RE}|last|final)\b|"
                       # "between A's first turn and A's second turn" (one person named twice: its owner)
                       rf"\bbetween\s+[^?]*?'s\s+(?P<a4>{_ORD_RE})\s+{_TURN_NOUNS}\s+and\s+[^?]*?'s\s+"
                       rf"(?P<b4>{_ORD_RE}|last|final)\s+{_TURN_NOUNS}\b", re.IGNORECASE)
# "did anyone other than A speak in the lab?", "was anybody besides A heard?": someone but A (``only="else"``)
_OTHER_THAN = re.compile(r"\b(?:anyone|anybody|someone|somebody|any\s+(?:one|person|people)|other\s+people)\s+"
                         r"(?:else\s+)?(?:other\s+than|besides|apart\s+from|aside\s+from|except(?:\s+for)?|but)\s+",
                         re.IGNORECASE)
# "was A the only one who spoke in the kitchen?", "did only A speak in the lab?", "is A the only person I heard?"
_ONLY = re.compile(r"^\W*(?:was|is|were)\b[^?]*?\bthe\s+only\s+(?:one|person|speaker|voice)\b|"
                   r"^\W*(?:did|was|were)\s+(?:it\s+)?only\b", re.IGNORECASE)
SEEING = re.compile(r"\b(?:saw|seen|see|in\s+view|on\s+camera)\b", re.IGNORECASE)   # a question about sight
# "who spoke closest to 1:00?", "what was said nearest to 0:45?"
_NEAREST = re.compile(r"\b(?:closest|nearest|close)\s+to\s+(?:the\s+)?(?:time\s+|moment\s+)?\d", re.IGNORECASE)
# "what was being said at about 1:00?": a moment given loosely asks for the words nearest it (nobody may have been
# speaking at that very second); a yes / no ("was anyone speaking around 0:45?") keeps the moment itself
_ABOUT = re.compile(r"\b(?:at\s+)?(?:about|around|approximately|roughly|circa)\s+\d{1,2}:[0-5]\d", re.IGNORECASE)
# "did A speak before anyone else?": A against the first speaker (after everyone else: the last)
_BEFORE_ALL = re.compile(r"\b(?:speak|spoke|talk|talked|say\s+(?:something|anything))\s+(before|after)\s+(?:anyone|"
                         r"anybody|everyone|everybody|all\s+the\s+others?|the\s+others?)(?:\s+else)?\b", re.IGNORECASE)
# "did everyone who spoke in the garage also speak in the library?": nobody in the first and never in the second
_ALSO_THERE = re.compile(r"^\W*(?:did|were)\s+(?:everyone|everybody|all\s+(?:the\s+)?(?:people|speakers|of\s+them))\s+"
                         r"(?:who|that|i\s+heard)\b[^?]*?\bin\s+(?:the\s+)?(?P<p1>[a-z]+(?:\s+room)?)\b[^?]*?\balso\b"
                         r"[^?]*?\bin\s+(?:the\s+)?(?P<p2>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)
# "how long was A's last turn?": the length of one of A's turns
_TURN_LENGTH = re.compile(rf"^\W*(?:for\s+)?how\s+(?:long|many\s+seconds)\b[^?]*?(?<!\w)'s\s+{_ORDINAL_OR_END}\s+"
                          r"(?:turn|sentence|remark|utterance|words)\b", re.IGNORECASE)
# "when did the talking in the garden start?": the first (last) words there
_TALK_EDGE = re.compile(r"^\W*(?:at\s+)?(?:when|what\s+time)\s+did\s+(?:the\s+)?(?:talking|talk|conversation|speaking|"
                        r"chatter|discussion)\b[^?]*?\b(start|begin|end|stop|finish)\b", re.IGNORECASE)
# (the time around a turn, not its length: "for how long did nobody speak after A's first words?")
_NOT_ONE_TURN = re.compile(r"\b(?:nobody|no\s*one|anyone|anybody|silen\w*|quiet|after|before|until|till|since|"
                           r"between)\b", re.IGNORECASE)
_HOW_LONG = re.compile(r"^\W*(?:for\s+)?how\s+(?:long|many\s+(?:seconds|minutes)|much\s+time)\b", re.IGNORECASE)
# "how long did A speak the first time?", "what did A say the second time?"
_THE_NTH_TIME = re.compile(rf"\bthe\s+{_ORDINAL_OR_END}\s+time\s*[?.!]?\s*$", re.IGNORECASE)


def _span_owner(question: str, quoted: list[str]) -> str | None:
    """Of two quoted people, the one whose turns a "between X's first and last words" window is made of: the one
    quoted right before "'s" (the other is who the question asks about), else None."""
    if len(quoted) != 2 or not question:
        return None
    said = [next(g for g in m.groups() if g) for m in QUOTED.finditer(question)]
    n = iter(range(len(said)))
    marked = QUOTED.sub(lambda _: f" <Q{next(n)}> ", question)
    m = re.search(r"\bbetween\s+[^<?]{0,40}<Q(\d+)>\s*'s\s", marked)
    return said[int(m.group(1))] if m and said[int(m.group(1))] in quoted else None


def late_forms(q: Query, plain: str, quoted: list[str], yes_no: bool, added: list[str], missing: list[str],
               known: list[str] | None = None, question: str = "") -> Query:
    """The forms above, on the frame the other checks left (``plain``: the question with its quotes taken out); a
    complaint about a relation the form took out goes with it."""
    new = _late_form(q, plain, quoted, yes_no, added, known, question)
    new = anchor_there(sighting_ref(sight_anchor(new, plain, added), plain, added), plain, added)
    if new.rel is None and q.rel is not None:
        missing[:] = [m for m in missing if not m.startswith("nothing about order in time")]
    return new


# "what was the first thing A said after 0:30?": A is the one who spoke, the clock a window (the model related the
# question to A's turn: other=A rel=after)
_SAID_BY_CLOCK = re.compile(r"\bQUOTED\W*\s+(?:said|says|say|spoke|talked|mentioned)\s+(?:anything\s+|something\s+)?"
                            r"(after|since|past|before|until|till|by)\s+(\d{1,2}:[0-5]\d)\b", re.IGNORECASE)


def _said_by_clock(q: Query, quoted: list[str], question: str, added: list[str]) -> Query:
    if len(quoted) != 1 or q.who or not q.other or q.rel not in ("after", "before", "right_after", "right_before") or \
            " ".join(q.other.lower().split()) != " ".join(quoted[0].lower().split()):
        return q
    m = _SAID_BY_CLOCK.search(QUOTED.sub(" QUOTED ", question))
    if m is None:
        return q
    side = "to" if m.group(1).lower() in ("before", "until", "till", "by") else "from_"
    new = replace(q, who=quoted[0], other=None, rel=None, until=None, at=None, **{side: m.group(2)})
    return noted(q, new, added, f"who={quoted[0]!r} {side.rstrip('_')}={m.group(2)}: they spoke, the clock bounds it")


def _late_form(q: Query, plain: str, quoted: list[str], yes_no: bool, added: list[str],
               known: list[str] | None = None, question: str = "") -> Query:
    q = _said_by_clock(q, quoted, question, added)
    if (m := _REACH.search(plain)) is not None and q.find in ("who", "what", "when", "where"):
        k = COUNT_WORDS.get((m.group(2) or m.group(3)).lower()) or int(m.group(3))
        pick = {"first": "first", "second": "2", "third": "3", "last": "last"}[m.group(1).lower()]
        new = replace(q, who=None, other=None, rel=None, until=None, pick=pick, by=None, times=f">={k}",
                      measure="reach", act="spoke", top=None)
        return noted(q, new, added, f"measure=reach times>={k}: the {m.group(1)} person to speak {k} times")
    # the one person the question names: by their words, or by the name the frame gives (``named``: as who or other)
    ref = quoted[0] if len(quoted) == 1 else q.who if not quoted and q.who and not q.other else None
    named = ref or (q.other if not quoted and q.other and not q.who else None)
    if ref and q.find == "gap" and (m := _OWN_SPAN.search(plain)) is not None and \
            (m.group("a") or m.group("a2") or m.group("a3") or m.group("a4")).lower() == "first":
        # "how much time passed between A's first and last words?": from A's first turn to their last (next)
        b = (m.group("b") or m.group("b2") or m.group("b4") or "").lower()
        if b in ("last", "final", "second"):
            new = replace(q, who=ref, other=ref, rel="after", pick="last" if b != "second" else None,
                          until=None, times=None, by=None, from_=None, to=None, at=None, act="spoke")
            return noted(q, new, added, f"rel=after pick={new.pick}: from their first turn to their {b}")
    # one quote (or one quoted twice), or a person named by name ("Ann's first ...")
    owner = quoted[0] if len(quoted) == 2 and same_quote(*quoted) else named if len(quoted) < 2 else \
        _span_owner(question, quoted)
    if owner and q.find not in ("gap", "how_long") and (m := _OWN_SPAN.search(plain)) is not None and \
            not (m.group("a4") and len(quoted) == 2 and not same_quote(*quoted)):   # (two people's turns: a window)
        a = (m.group("a") or m.group("a2") or m.group("a3") or m.group("a4")).lower()
        b = (m.group("b") or m.group("b2") or m.group("b3") or m.group("b4")).lower()
        first = ORDINAL_WORDS.get(a) or int(re.sub(r"\D", "", a) or 1)
        until = "last" if b in ("last", "final") else str(ORDINAL_WORDS.get(b) or int(re.sub(r"\D", "", b) or 2))
        # "did B speak between A's first and last words?": B in the window of A's turns
        who = next((x for x in quoted if x != owner), None) if len(quoted) == 2 else \
            None if q.who == owner else q.who
        new = replace(q, other=owner, until=owner, rel=None, other_turn=None if first == 1 else str(first),
                      until_turn=until, who=who, pick=None, by=None, times=None, act=q.act or "spoke")
        if not re.search(r"\d:\d\d", plain):   # the turns are the window: no clock time the question does not say
            new = replace(new, from_=None, to=None, at=None)
        return noted(q, new, added, f"until_turn={until}: between two of one person's turns ({m.group(0)!r})")
    if yes_no and named and _OTHER_THAN.search(plain):   # ("other than Ann": a name too)
        act = "seen" if SEEING.search(plain) else "spoke"
        # "... speak more than twice?": the others who did it that often (the count the check read from the question)
        times = q.times if q.times and not compares_with_other(q.times) else None
        new = Query(find="yes", who=named, only="else", act=act, place=q.place, from_=q.from_, to=q.to, at=q.at,
                    times=times)
        return noted(q, new, added, "only=else: whether anyone but them did" + (f" (times{times})" if times else ""))
    if yes_no and ref and _ONLY.search(plain):
        act = "seen" if SEEING.search(plain) else "spoke"
        new = Query(find="yes", who=ref, only="1", act=act, place=q.place, from_=q.from_, to=q.to, at=q.at)
        return noted(q, new, added, "only=1: whether they were the only one")
    if yes_no and ref and (m := _BEFORE_ALL.search(plain)) is not None:
        edge = "first" if m.group(1).lower() == "before" else "last"
        new = Query(find="same", who=ref, other=f"the {edge} speaker", place=q.place, from_=q.from_, to=q.to)
        return noted(q, new, added, f"find=same other='the {edge} speaker': {m.group(0)!r}")
    if yes_no and (m := _ALSO_THERE.search(plain)) is not None and known:
        places = {p.lower(): p for p in known}
        p1, p2 = places.get(m.group("p1").lower()), places.get(m.group("p2").lower())
        if p1 and p2:
            new = Query(find="yes", place=p1, not_place=p2, act="spoke", count="=0", from_=q.from_, to=q.to)
            return noted(q, new, added, f"not_place={p2!r} count=0: whether everyone in the {p1} was also there")
    if q.find == "same" and q.place is None and q.other and known and is_role(q.other):
        # "was B the first person to speak in the library?": the rank there (the check adds no place to find=same)
        there = [p for p in known if re.search(rf"\b(?:in|at)\s+(?:the\s+)?{re.escape(p)}\b", plain, re.IGNORECASE)]
        if len(there) == 1:
            return noted(q, replace(q, place=there[0]), added, f"place={there[0]!r}: the rank is the one there")
    if (m := _TALK_EDGE.search(plain)) is not None and not quoted:
        pick = "first" if m.group(1).lower() in ("start", "begin") else "last"
        new = Query(find="when", pick=pick, act="spoke", place=q.place, from_=q.from_, to=q.to)
        return noted(q, new, added, f"find=when pick={pick}: when the talk {m.group(1).lower()}s")
    if ref and (m := _TURN_LENGTH.search(plain)) is not None and not _NOT_ONE_TURN.search(plain):
        new = Query(find="how_long", who=ref, pick=_pick_of(m), act="spoke")
        return noted(q, new, added, f"find=how_long pick={new.pick}: the length of one of their turns")
    if (_NEAREST.search(plain) and (q.at or q.from_ or q.to) and not (q.from_ and q.to)) or \
            (_ABOUT.search(plain) and q.at and q.find in ("what", "who") and not (q.from_ or q.to or q.measure)):
        moment = q.at or q.from_ or q.to
        new = replace(q, at=moment, from_=None, to=None, measure="nearest", pick=None if q.pick in ("first", "last")
                      else q.pick, rel=None if q.rel in ("after", "before") else q.rel)
        return noted(q, new, added, f"measure=nearest at={moment}: the turn closest to that moment")
    if ref and q.find in ("how_long", "what", "when", "where") and not q.rel and not q.until and \
            (m := _THE_NTH_TIME.search(plain)) is not None:
        # ("for how many seconds did A speak the first time?" written find=when: the length of that turn)
        find = "how_long" if _HOW_LONG.match(plain) and not _NOT_ONE_TURN.search(plain) else q.find
        new = replace(q, find=find, who=ref, other=None, pick=_pick_of(m), by=None, times=None)
        return noted(q, new, added, f"who={ref!r} pick={new.pick}: their own {m.group(0).strip(' ?.!')!r}")
    return q


# -- execution -------------------------------------------------------------------------------------------------

def span_turns(a_turns: list[Turn], b_turns: list[Turn], q: Query) -> list[Turn | None]:
    """The two turns "between A and B" runs between: A's first (``other_turn``: A's n-th) and B's first
    (``until_turn``: B's n-th or last); None where that turn does not exist."""
    lo = nth(a_turns, int(q.other_turn)) if q.other_turn else a_turns[:1]
    hi = b_turns[-1:] if q.until_turn == "last" else nth(b_turns, int(q.until_turn)) if q.until_turn else b_turns[:1]
    return [lo[0] if lo else None, hi[0] if hi else None]


def reach_pick(people: list[PersonRow], q: Query) -> list[PersonRow]:
    """``measure=reach times>=k``: the people ranked by the moment of their k-th turn; each keeps those k turns (the
    evidence)."""
    k = int((q.times or ">=1").lstrip("<>="))
    reached = []
    for p in people:
        voice = sorted((e for e in p.events if e.kind == "voice"), key=lambda e: (e.start, e.end))
        if len(voice) >= k:
            p.events = voice[:k]
            reached.append(p)
    reached.sort(key=lambda p: p.events[-1].start)
    if q.pick == "last":
        return reached[-1:]
    return nth(reached, pick_ordinal(q) or 1)


def nearest(scope: list[Turn], at: float, act: str | None) -> list[Turn]:
    """``measure=nearest``: the turns (appearances with ``act=seen``) nearest the moment ``at``: 0 s away when under
    way then, else the distance to their nearer end; ties kept."""
    kind = "face" if act == "seen" else "voice"
    mine = [e for e in scope if e.kind == kind]
    away = {e.id: 0.0 if e.start <= at <= e.end else min(abs(e.start - at), abs(e.end - at)) for e in mine}
    best = min(away.values(), default=None)
    return [e for e in mine if best is not None and away[e.id] <= best + 0.05]


def near_hint(res) -> str:  # noqa: ANN001  (a QueryResult)
    """"; the nearest: B, from 00:22 to 00:24": nobody at the frame's moment, the turns closest to it (``res.near``);
    "; their nearest turn was from ...": the person asked about, silent then (with the words when asked what)."""
    words = res.query.find == "what"     # "what was said at 0:23?": the nearest words too
    w = res.who.get("who")
    own = w is not None and all(e.character_id == w.character_id for e in res.near)   # the person asked about
    said = [("" if own else f"{res.describe[e.character_id]}, ") + f"from {res.say(e.start)} to {res.say(e.end)}"
            + (f' ("{e.text.strip()}")' if words and e.text.strip() else "") for e in res.near]
    return f"; {'their nearest turn was' if own else 'the nearest:'} {' and '.join(said)}" if said else ""


class _Scope:
    def __init__(self, turns: list[Turn]) -> None:
        self.turns = turns


def scoped_role(w: Who, scope: list[Turn], q: Query) -> Who:
    """A person named by a role ("the first speaker") in a comparison limited to a place or a time ("was B the
    first person to speak in the library?"), or whose words are asked for there ("what did the person who spoke last
    in the kitchen say?"): the role among the turns there and then, not among all of them."""
    if w.how != "role" or q.find not in ("same", "what") or not (q.place or q.from_ or q.to):
        return w
    return by_role(_Scope(scope), w.ref) or w  # type: ignore[arg-type]


def silence(res: QueryResult, turns: list[Turn], anchor: Turn, before: bool, slack: float) -> str:
    """``measure=silence``: from the end of ``anchor`` to anyone's next words ("for how long did nobody speak after
    A's first words?"), or with ``before`` from the end of the words before it to its start ("how long was the
    silence before A's first words?"); sets ``res.gap`` (the silence's start, the turn at its other end), ``res.value``
    (seconds) and ``res.events``. Returns the trace step."""
    voice = [e for e in turns if e.kind == "voice" and e is not anchor]
    if before:    # the words that ended last before A's began
        near = [e for e in voice if e.end <= anchor.start + slack]
        other = max(near, key=lambda e: e.end) if near else None
    else:         # the words that began first after A's ended
        near = [e for e in voice if e.start >= anchor.end - slack]
        other = min(near, key=lambda e: e.start) if near else None
    if other is None:   # (before the first words: the time from the start of the recording)
        res.events, res.value = [anchor], int(round(anchor.start)) if before else None
        return f"silence: nobody spoke {'before' if before else 'after'}"
    quiet_from, quiet_to = (other.end, anchor.start) if before else (anchor.end, other.start)
    res.gap, res.value = (quiet_from, other), int(round(max(0.0, quiet_to - quiet_from)))
    res.events = [other, anchor] if before else [anchor, other]
    return f"silence {res.say(quiet_from)} to {res.say(quiet_to)}: {res.value} s"


def sole(res: QueryResult, who: int | None, found: bool) -> bool:
    """``only=1``: ``who`` did it and nobody else did in the scope (``res.others``: the others who did, their turns
    among the answer's evidence)."""
    kind = "face" if res.query.act == "seen" else "voice"
    others = [e for e in res.scope_events if e.kind == kind and e.character_id != who]
    res.others = list(dict.fromkeys(e.character_id for e in others))
    res.events = sorted({*res.events, *others}, key=lambda e: (e.start, e.end, e.id))
    return found and not res.others


# -- the answer ------------------------------------------------------------------------------------------------

def turn_form_answer(res: QueryResult, cond: str) -> str | None:
    """The answer for a frame of the forms above (None for any other frame)."""
    q, d = res.query, res.describe
    verb = "was seen" if q.act == "seen" else "spoke"
    if q.only == "else":     # "did anyone other than A speak in the lab?": the others, whatever A did
        me = d[res.who["who"].character_id]  # type: ignore[index]
        if q.times and not compares_with_other(q.times):     # "... more than twice?": how often each one did
            how = how_often(q.times)
            if not res.others:
                return f"No: of everyone but {me}, nobody spoke {how}{cond}."
            exact = q.times.startswith("=")       # (exactly k: each one's count is k)
            them = [d[c] if exact else f"{d[c]} ({times_word(res.spoke[c])})" for c in res.others]  # type: ignore[index]
            return f"Yes: {join(them)} spoke {how}{cond} (besides {me})."
        if res.others:
            others = join([d[c] for c in res.others])  # type: ignore[index]
            return f"Yes: {others} {'did' if verb == 'spoke' else verb}{cond} (besides {me})."
        return f"No: nobody but {me} {verb}{cond}."
    if q.only:
        me = d[res.who["who"].character_id]  # type: ignore[index]
        others = join([d[c] for c in res.others])  # type: ignore[index]
        if res.value:
            return f"Yes, {me} was the only one who {verb}{cond}."
        if res.others:
            did = [e for e in res.events if e.character_id == res.who["who"].character_id]
            if did:
                return f"No: {others} also {verb}{cond}."
            did_not = "was not seen" if q.act == "seen" else "did not speak"
            return f"No: {me} {did_not}{cond}; {others} {'did' if verb == 'spoke' else verb}."
        return f"No: nobody {verb}{cond}."
    if q.measure == "silence" and res.anchor is not None and res.gap is None:   # nobody on that side of the turn
        a, at = d[res.anchor.character_id], res.say(res.anchor.start)  # type: ignore[index]
        if before_side(q.rel):
            return (f"Nobody spoke before {a}: theirs were the first words I heard, at {at} "
                    f"({seconds_word(int(res.value or 0))} after the start).")   # (silence() set it)
        return f"Nobody spoke after {a} ({at}): theirs were the last words I heard."
    if q.measure == "reach":
        k = int((q.times or ">=1").lstrip("<>="))
        rank = "last" if q.pick == "last" else ordinal_word(pick_ordinal(q) or 1)
        if not res.people:
            return f"Nobody spoke {times_word(k)}{cond}." if q.find == "who" else None
        p = res.people[0]
        when = f"({'their ' + ordinal_word(k) + ' turn at ' if k > 1 else ''}{res.say(p.events[-1].start)})"
        if q.find == "who":
            return f"{cap(d[p.character_id])} was the {rank} to speak {times_word(k)}{cond} {when}."  # type: ignore[index]
        return None
    if q.measure == "nearest" and q.find in ("who", "what") and res.events:
        at = res.read(q.at)
        rest = cond.replace(f" at {res.say(at)}", "") if at is not None else cond
        e = res.events[0]
        who = d[e.character_id]  # type: ignore[index]
        if q.find == "what" and e.text.strip():
            return f"I heard \"{' '.join(e.text.split()).rstrip('.!?')}\" closest to {res.say(at)}{rest} " \
                   f"({who}, {res.say(e.start)})."  # type: ignore[arg-type]
        if q.find == "who":
            names = join([d[p.character_id] for p in res.people])  # type: ignore[index]
            return f"{cap(names)} {verb} closest to {res.say(at)}{rest} " \
                   f"({res.say(e.start)})."  # type: ignore[arg-type]
    if q.find == "how_long" and q.who and q.pick and res.events:
        e = res.events[0]
        which = "last" if q.pick == "last" else ordinal_word(pick_ordinal(q) or 1)
        me = d[res.who["who"].character_id]  # type: ignore[index]
        return f"{cap(me)} spoke for {seconds_word(int(round(e.end - e.start)))} the {which} time{cond} " \
               f"({res.say(e.start)})."
    if q.not_place and q.count == "=0" and q.place:
        if res.value:
            return f"Yes: everyone who spoke in the {q.place} also spoke in the {q.not_place}."
        names = join([p.description for p in res.people])
        return f"No: {names} spoke in the {q.place} but never in the {q.not_place}."
    n = pick_ordinal(q)
    if q.who and n is not None and n > 1 and not res.events and not q.rel and not q.until and "who" in res.who:
        cid = res.who["who"].character_id
        had = res.spoke.get(cid, 0)  # type: ignore[arg-type]
        if 0 < had < n:
            me = d[cid]  # type: ignore[index]
            return f"{cap(me)} spoke only {times_word(had)}{cond}: there was no {ordinal_word(n)} time."
    # "who spoke fourth?", "what did the fourth speaker say?", "when did the fourth person speak?" with three
    if q.find in ("who", "what", "when", "where") and not res.people and n is not None and n > 1 and not q.who and \
            q.by != "turn" and \
            not q.rel and res.spoke:
        there = join([d[c] for c in res.spoke])  # type: ignore[index]
        turns = sorted((e for e in res.scope_events if e.kind == "voice"), key=lambda e: (e.start, e.end))
        if q.find == "who" and len(turns) >= n:
            # "who spoke third?" may mean the third turn: said, and that turn cited
            e = turns[n - 1]
            res.events = [e]
            return f"Only {there} spoke{cond}: there was no {ordinal_word(n)} person. By turns, the " \
                   f"{ordinal_word(n)} turn{cond} was taken by {d[e.character_id]} ({res.say(e.start)})."  # type: ignore[index]
        return f"Only {there} spoke{cond}: there was no {ordinal_word(n)} person."
    return None
