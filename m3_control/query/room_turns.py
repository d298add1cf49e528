"""Two turns named by their room, compared by length: "was the last turn in the bedroom longer than the first turn in
the garage?", "which was shorter, the first turn in the lab or the last one in the office?".

A room's turns are those begun while the robot was there (:func:`.robot_track.visits`; a room visited twice is one
room). Each turn is that room's n-th (first, last, ...) voice turn; its length is the detected speech, start to end.
Lengths are compared to hundredths of a second as every length is (equal ones "as long as each other"), said in
tenths, or in hundredths where tenths would read as equal (a turn's edges are the voice detector's: two within a few
tenths are said to be within what it tells apart).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, check, phrase
from .result import QueryResult
from .robot_track import began_in, room_named, visits
from .wording import _rank
from .words import cap, fine_seconds, ordinal_word, seconds_said, tenths, the_place

_WHICH = r"(?P<w{0}>first|last|final|second|third|fourth|fifth)"
_ONE = r"(?:the\s+)?{w}\s+(?:turn|one|sentence|thing\s+said|words)\s+(?:in|of)\s+(?:the\s+)?" \
       r"(?P<room{n}>[a-z]+(?:\s+room)?)"
_TWO = re.compile(_ONE.format(w=_WHICH.format(1), n=1) + r"\b[^?]*?\b(?P<cmp>longer|shorter)\b[^?]*?\b" +
                  _ONE.format(w=_WHICH.format(2), n=2) + r"\b|" +
                  r"\b(?P<cmp2>longer|shorter)\b[^?]*?\b" + _ONE.format(w=_WHICH.format(3), n=3) + r"\s+or\s+" +
                  _ONE.format(w=_WHICH.format(4), n=4) + r"\b", re.IGNORECASE)


# everyone's turns by their place in time: "was the third turn of the recording longer than the fourth?", "which was
# shorter, the first turn or the last one?" (the second turn's noun may be left out)
_ORD_ANY = r"(?P<a{0}>first|last|final|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)"
_OF_ALL = r"(?:\s+(?:of|in)\s+(?:the\s+)?(?:recording|conversation|video|session|whole\s+recording))?"
_NOUN = r"(?:turn|one|sentence|thing\s+said|utterance)"
_TWO_ANY = re.compile(rf"\bthe\s+{_ORD_ANY.format(1)}\s+{_NOUN}{_OF_ALL}\s+(?P<cmp>longer|shorter)\s+than\s+the\s+"
                      rf"{_ORD_ANY.format(2)}(?:\s+{_NOUN})?{_OF_ALL}\s*[?.!]?\s*$|"
                      rf"\b(?P<cmp2>longer|shorter)\b[^?]*?\bthe\s+{_ORD_ANY.format(3)}\s+{_NOUN}{_OF_ALL}\s+or\s+"
                      rf"the\s+{_ORD_ANY.format(4)}(?:\s+{_NOUN})?{_OF_ALL}\s*[?.!]?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class RoomTurnsAsk:
    turns: tuple[tuple[int, str | None], tuple[int, str | None]]   # (n-th, -1 the last; the room as written, None:
    #                                                                   everyone's turns)
    shorter: bool
    yes_no: bool        # "was the first ... longer than the second?" (else "which was longer?")


def asks_room_turns(question: str) -> RoomTurnsAsk | None:
    m = _TWO.search(question)
    if m is not None:
        k = (1, 2) if m.group("cmp") else (3, 4)
        turns = tuple((_nth(m.group(f"w{i}")), m.group(f"room{i}")) for i in k)
    else:
        m = _TWO_ANY.search(question)
        if m is None:
            return None
        k = (1, 2) if m.group("cmp") else (3, 4)
        turns = tuple((_nth(m.group(f"a{i}")), None) for i in k)
    cmp = (m.group("cmp") or m.group("cmp2")).lower()
    return RoomTurnsAsk(turns, cmp == "shorter", bool(re.match(r"^\W*(?:was|were|is|did)\b", question, re.I)))  # type: ignore[arg-type]


def _nth(word: str) -> int:
    return -1 if word.lower() in ("last", "final") else _rank(word.lower())


def prepare(q: Query) -> Query:
    """Everyone's voice turns (the rooms are the robot's track)."""
    return Query(find="who", act="spoke")


def answer(executor: QueryExecutor, q: Query, ask: RoomTurnsAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    stays = visits(executor.store, before_time)
    end = executor.store.perceived_until(before_time) or (turns[-1].end if turns else 0.0)
    picked = []
    for n, words in ask.turns:
        room = room_named((s[0] for s in stays), words) if words is not None else None
        if room is None and words is not None:
            return f"I can't tell: I was never in a place called the {words.split()[0].lower()}.", res
        mine = [e for e in turns if room is None or began_in(e, room, stays, end)]
        which = "last" if n == -1 else ordinal_word(n)
        if not mine or n > len(mine):
            return f"I can't compare them: I heard {len(mine) or 'no'} turn{'s' if len(mine) != 1 else ''}" \
                   f"{' in ' + the_place(room) if room else ''}, so there is no {which} one.", res
        picked.append((mine[n - 1] if n > 0 else mine[-1], which, room))
    (a, wa, ra), (b, wb, rb) = picked
    la, lb = round(a.end - a.start, 2), round(b.end - b.start, 2)
    fine = fine_seconds(la, [lb])
    res.events = [a, b] + [e for e in res.events if e is not a and e is not b]
    res.seconds = {**res.seconds, -1: tenths(la), -2: tenths(lb), -3: la, -4: lb}
    res.robot_places += [(e.start, r) for e, r in ((a, ra), (b, rb)) if r is not None]

    def one(e, w: str, room: str | None, n: float) -> str:  # noqa: ANN001
        return f"the {w} turn{' in ' + the_place(room) if room else ''} ({res.describe[e.character_id]} at " \
               f"{res.say(e.start)}, {seconds_said(n, fine)})"

    if la == lb:
        lead = "No, as long as each other: " if ask.yes_no else "Neither, they were as long as each other: "
        text = f"{lead}{one(a, wa, ra, la)} and {one(b, wb, rb, lb)}."
    else:
        first_wins = (la < lb) if ask.shorter else (la > lb)
        word = "shorter" if ask.shorter else "longer"
        close = " (within what detection tells apart)" if abs(la - lb) < 0.3 else ""
        if ask.yes_no:
            text = f"{'Yes' if first_wins else 'No'}: {one(a, wa, ra, la)} against {one(b, wb, rb, lb)}{close}."
        else:
            win, lose = ((a, wa, ra, la), (b, wb, rb, lb)) if first_wins else ((b, wb, rb, lb), (a, wa, ra, la))
            text = cap(f"{one(*win)} was {word} than {one(*lose)}{close}.")
    return (REFUSAL if check(text, res) else text), res
