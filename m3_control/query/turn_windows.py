"""A window the question bounds by one person's turns: "what was the total silence between A's first and last turns?",
"how often did the speaker change from A's first turn to their last?", "who spoke the most in the 20 seconds after C's
first turn?", "... in the 20 seconds after C first spoke?".

It is resolved before the model reads the question, by a query of its own for that person's turns: from the start of
their first turn to the end of their last, or from the end of the turn named to N seconds later, written as two clock
times the frame reads as any other window ("between 0:01 and 1:36"). The resolution is in the trace (``turn_window``)
and the person's turns in it; a person nobody matches is answered as such, not guessed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

from .frame import Query
from .phrase import phrase
from .words import ordinal_word

_WHO = r"(?P<who>the\s+person\s+who\s+said\s+\"[^\"]+\"|\"[^\"]+\"|(?-i:[A-Z][a-z]+))\s*(?:'s|’s)?"
_AMOUNT = {"five": 5, "ten": 10, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60}
_N = r"(?P<n>\d+|" + "|".join(_AMOUNT) + r")\s+(?P<unit>seconds?|minutes?)"
# "between A's first and last turns", "between A's first turn and their last", "from A's first turn to their last"
_SPAN = re.compile(rf"\b(?:between|from)\s+{_WHO}\s+first\s+(?:turn\s+|words\s+)?(?:and|to|until|till)\s+"
                   r"(?:(?:their|his|her|the)\s+)?last(?:\s+(?:turns?|words|one))?\b", re.IGNORECASE)
# what a person-bounded span is asked about as a window: its silence, speech, talking or changes of speaker
_INSIDE = re.compile(r"\b(?:silen\w*|quiet|speech|speaking|talking|talk|changes?|changed|switch\w*)\b", re.IGNORECASE)
# "in the 20 seconds after C's first turn", "during the 10 seconds after C first spoke", "within 30 seconds of ..."
_AFTER = re.compile(rf"\b(?:in|during|within|over)\s+the\s+(?:first\s+|next\s+)?{_N}\s+(?:right\s+|just\s+)?after\s+"
                    rf"{_WHO}\s*(?:(?P<ord>first|last)\s+(?:turn|words)|(?P<ord2>first|last)\s+(?:spoke|talked|said\s+"
                    r"something))\b", re.IGNORECASE)


@dataclass
class TurnWindow:
    said: str                  # the question's words for the window
    span: tuple[float, float] | None   # the window (stream seconds; None: there is none)
    why: str                   # how it was found, or why there is none
    turn_ids: tuple[int, ...] = ()
    written: tuple[float, float] | None = None   # the whole seconds the question says it as (the frame reads those)

    def trace(self) -> dict[str, Any]:
        return {"said": self.said, "span": self.span, "why": self.why, "turn_ids": list(self.turn_ids)}


def pin(q: Query, window: TurnWindow | None, timeline: Any, now: float | None) -> Query:
    """The frame with the window's exact ends where it reads the whole seconds the question was given (the first
    words at 0.97 s are not cut by "0:00"..."0:01"; the silence before them not counted in)."""
    if window is None or window.span is None or window.written is None:
        return q
    fields = {}
    for name, said, exact in (("from_", window.written[0], window.span[0]), ("to", window.written[1], window.span[1])):
        value = getattr(q, name)
        try:
            t = timeline.read(value, now) if value is not None else None
        except ValueError:
            t = None
        if t is not None and abs(t - said) < 0.01:
            fields[name] = f"{exact:.2f}"
    return replace(q, **fields) if fields else q


# "how many turns came after the last turn in the lab?", "who spoke first after the first turn in the porch?": the
# moment that turn ended (began, for "before")
_ROOM_TURN = re.compile(r"\b(?P<rel>after|before|since|until)\s+the\s+(?:very\s+)?(?P<ord>first|last|final)\s+"
                        r"(?:turn|words|thing\s+said)\s+(?:in|at)\s+the\s+(?P<place>[a-z]+(?:\s+room)?)\b",
                        re.IGNORECASE)


def _room_turn(question: str, m: re.Match, executor: Any, before_time: float | None) -> tuple[str, TurnWindow]:
    """"After the last turn in the lab" as "after 0:32" (that turn's end; its start for "before")."""
    last = m.group("ord").lower() in ("last", "final")
    res = executor.run(Query(find="when", pick="last" if last else "first", place=m.group("place"), act="spoke"),
                       before_time)
    said = m.group(0)[len(m.group("rel")):].strip()
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: e.start) if res.status == "ok" else []
    if not turns:
        why = phrase(res).rstrip(".") if res.status != "ok" else f"I heard nobody in the {m.group('place')}"
        return question, TurnWindow(said, None, why)
    turn = turns[-1] if last else turns[0]
    before = m.group("rel").lower() in ("before", "until")
    t = float(math.floor(turn.start)) if before else float(math.ceil(turn.end))
    timeline = executor.store.timeline()
    at = timeline.say(t, timeline.now(before_time))
    why = f"{said} was {res.describe.get(turn.character_id, 'someone')}'s at {res.say(turn.start)}, ended at " \
          f"{res.say(turn.end)}"
    return question[:m.start()] + f"{m.group('rel')} {at}" + question[m.end():], TurnWindow(said, (t, t), why,
                                                                                           (turn.id,))


# "how long was it from B's last turn in the lab to their first turn in the porch?", "how much time passed between B's
# last turn in the porch and their first in the kitchen?": from the end of the one to the start of the other
_ROOMS = re.compile(rf"\b(?:between|from)\s+{_WHO}\s+(?P<o1>first|last)\s+(?:turn\s+|words\s+)?(?:in|at)\s+the\s+"
                    r"(?P<p1>[a-z]+(?:\s+room)?)\s+(?:and|to|until|till)\s+(?:their|his|her)\s+(?P<o2>first|last)"
                    r"(?:\s+(?:turn|words|one))?\s+(?:in|at)\s+the\s+(?P<p2>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)


def bare_ref(who: str) -> str:
    """A person as a question names them ('the person who said "X"', '"X"', a name) as a frame's ``who`` names them:
    their quoted words (bare) or their name."""
    who = who.strip()
    who = who[len("the person who said "):] if who.lower().startswith("the person who said ") else who
    return who.strip('"')


def _ref(m: re.Match) -> str:
    """The person of a :data:`_WHO` match (:func:`bare_ref`)."""
    return bare_ref(m.group("who"))


def _two_rooms(question: str, m: re.Match, executor: Any, before_time: float | None) -> tuple[str, TurnWindow]:
    """"From B's last turn in the lab to their first turn in the porch" as "between 0:07 and 1:39"."""
    ref = _ref(m)
    picked = []
    for o, p in ((m.group("o1"), m.group("p1")), (m.group("o2"), m.group("p2"))):
        res = executor.run(Query(find="when", who=ref, place=p, act="spoke"), before_time)
        if res.status != "ok" or "who" not in res.who:
            return question, TurnWindow(m.group(0), None, phrase(res).rstrip("."))
        cid = res.who["who"].character_id
        mine = sorted((e for e in res.events if e.character_id == cid and e.kind == "voice"), key=lambda e: e.start)
        if not mine:
            return question, TurnWindow(m.group(0), None, f"{res.describe.get(cid, ref)} never spoke in the {p}")
        picked.append(mine[-1] if o.lower() == "last" else mine[0])
    x, y = sorted(picked, key=lambda e: e.start)
    every = executor.run(Query(find="when", who=ref, act="spoke"), before_time)
    cid = x.character_id
    theirs = sorted((e.id for e in every.events if e.character_id == cid and e.kind == "voice"),
                    key=lambda i: next(e.start for e in every.events if e.id == i))
    timeline = executor.store.timeline()
    now = timeline.now(before_time)
    why = f"the turns at {timeline.say(x.start, now)} ({m.group('p1')}) and {timeline.say(y.start, now)} " \
          f"({m.group('p2')})"
    if x.id not in theirs or y.id not in theirs or x.id == y.id:
        return question, TurnWindow(m.group(0), None, f"{why} are no two turns of one person")
    # as the person's n-th and m-th turns, which the turn-order plan measures (end to start, start to start)
    i, j = theirs.index(x.id) + 1, theirs.index(y.id) + 1
    said = f"between {m.group('who').strip()}'s {ordinal_word(i)} and {ordinal_word(j)} turns"
    return question[:m.start()] + said + question[m.end():], TurnWindow(m.group(0), (x.end, y.start), why,
                                                                        (x.id, y.id))


# "did C speak before half of all the turns had been taken?", "was C heard before half of the turns had happened?": the
# moment the (N/2)-th of all N turns ended
_HALF_TURNS = re.compile(r"\b(?P<rel>before|after|by\s+the\s+time)\s+half\s+(?:of\s+)?(?:all\s+)?(?:the\s+)?turns\s+"
                         r"(?:had|have|were|was)\s+(?:been\s+)?(?:taken|happened|heard|spoken|over|done)\b",
                         re.IGNORECASE)


def _half_turns(question: str, m: re.Match, executor: Any, before_time: float | None) -> tuple[str, TurnWindow]:
    res = executor.run(Query(find="who", act="spoke"), before_time)
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id)) \
        if res.status == "ok" else []
    said = m.group(0)
    if len(turns) < 2:
        return question, TurnWindow(said, None, f"I heard {len(turns)} turn{'s' if len(turns) != 1 else ''}")
    k = math.ceil(len(turns) / 2)
    t = turns[k - 1].end
    timeline = executor.store.timeline()
    at = timeline.say(float(math.ceil(t)), timeline.now(before_time))
    why = f"turn {k} of {len(turns)} ended at {res.say(t)}"
    rel = "before" if m.group("rel").lower() != "after" else "after"
    return question[:m.start()] + f"{rel} {at} (when {k} of the {len(turns)} turns had been taken)" + \
        question[m.end():], TurnWindow(said, (t, t), why, (turns[k - 1].id,))


def resolve(question: str, executor: Any, before_time: float | None) -> tuple[str, TurnWindow | None]:
    """(the question with the window as two clock times, the resolution) or (the question unchanged, None)."""
    half = _HALF_TURNS.search(question)
    if half is not None:
        return _half_turns(question, half, executor, before_time)
    rooms = _ROOMS.search(question)
    if rooms is not None:
        return _two_rooms(question, rooms, executor, before_time)
    m = _SPAN.search(question)
    if m is not None and not _INSIDE.search(question[:m.start()] + " " + question[m.end():]):
        m = None    # ("how many turns were there between A's first and last turns?": the turns between, turn_order)
    m = m or _AFTER.search(question)
    room = _ROOM_TURN.search(question) if m is None and re.match(r"^\W*how\s+many\b|^\W*(?:after|before)\b", question,
                                                                 re.IGNORECASE) else None
    if room is not None and not re.search(r"\b(?:right|just|immediately|directly)\s+$", question[:room.start()],
                                          re.IGNORECASE):
        return _room_turn(question, room, executor, before_time)    # ("who spoke right after the last turn ...?": not)
    if m is None:
        return question, None
    ref = _ref(m)
    res = executor.run(Query(find="when", who=ref, act="spoke"), before_time)
    said = m.group(0)
    if res.status != "ok" or "who" not in res.who:
        return question, TurnWindow(said, None, phrase(res).rstrip("."))
    cid = res.who["who"].character_id
    mine = sorted((e for e in res.events if e.character_id == cid and e.kind == "voice"), key=lambda e: e.start)
    who = res.describe.get(cid, ref)
    if not mine:
        return question, TurnWindow(said, None, f"I never heard {who} speak")
    if m.re is _SPAN:
        if len(mine) == 1:
            return question, TurnWindow(said, None, f"{who} spoke only once (at {res.say(mine[0].start)})",
                                        (mine[0].id,))
        a, b, used = mine[0].start, mine[-1].end, (mine[0].id, mine[-1].id)
        why = f"{who}'s first turn began at {res.say(a)}, their last ended at {res.say(b)}"
    else:
        n = float(_AMOUNT.get(m.group("n").lower(), 0) or m.group("n"))
        n *= 60 if m.group("unit").lower().startswith("min") else 1
        turn = mine[-1] if (m.group("ord") or m.group("ord2") or "").lower() == "last" else mine[0]
        a, b, used = turn.end, turn.end + n, (turn.id,)
        why = f"{who}'s turn at {res.say(turn.start)} ended at {res.say(a)}"
    # (whole seconds, outward: the bounding turns stay inside, a first turn begun on the second too)
    wa, wb = float(max(0, math.floor(a - 0.5) if m.re is _SPAN else math.floor(a))), float(math.ceil(b))
    timeline = executor.store.timeline()
    now = timeline.now(before_time)
    window = f"between {timeline.say(wa, now)} and {timeline.say(wb, now)}"
    # (the frame's window is pinned back to the exact ends when it runs: :func:`pin`)
    exact = (max(0.0, a - 0.5), b + 0.05)    # (a turn's start as stored may lie a little before the second said)
    return question[:m.start()] + window + question[m.end():], TurnWindow(said, exact, why, used, (wa, wb))
