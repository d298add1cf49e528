"""Turns placed against a move of the robot's: "which turn came closest to the moment I entered the garage?",
"which turn began nearest to the moment I got to the hallway?" (``nearest``), and "how much time passed between my
arrival in the hallway and the last turn I heard?", "how long after I arrived in the library was the last turn?"
(``to_last``: from the arrival to the last words heard after it; "there" or "in the <room>": the last in that stay),
and "was anyone talking when I entered the library?", "who was speaking when I left the office?", "was A talking when I
arrived in the porch?" (``during``: the turns going on at that moment, from the speaking's start, 0.4 s before it was
detected, to its end; none: the turns just before and after it, and how far, "not at that moment" where one of them
came within the window :mod:`.moves` gives such a move).

The move is the robot's pose track (:func:`.robot_track.visits`): an arrival is the start of a stay, a departure
its end. One frame selects everyone's voice turns. The answer names the turn, who said it, when, and how far it
was from the move (before or after), checked against that result; a move the track does not hold is said, never
guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from m3_memory.people import began as speech_began

from .execute import QueryExecutor
from .frame import Query
from .moves import MOVE_AFTER_S, MOVE_BEFORE_S
from .named_ids import scope_and_people
from .phrase import REFUSAL, _cap, check, phrase
from .result import QueryResult
from .robot_track import arrivals, room_named, visits
from .turn_sequence import people_in
from .words import HOW_LONG, seconds_word, tenths, the_place

_ROOM = r"(?:the\s+|my\s+|our\s+)?(?P<room>[a-z]+(?:\s+room)?)"
_ARRIVE = r"(?:(?:I|we)\s+(?:first\s+)?(?:entered|arrived\s+(?:in|at)|got\s+(?:to|into|back\s+to)|came\s+(?:in)?to|" \
          r"reached|walked\s+into|went\s+into|moved\s+(?:in)?to)|(?:my|our)\s+(?:arrival\s+(?:in|at)|" \
          r"entry\s+(?:in)?to|entrance\s+(?:in)?to|entering|arriving\s+(?:in|at)|getting\s+to)|entering|arriving\s+(?:in|at))"
_LEAVE = r"(?:(?:I|we)\s+(?:left|exited|walked\s+out\s+of|went\s+out\s+of)|(?:my|our)\s+(?:departure\s+from|" \
         r"exit\s+from|leaving|exiting)|leaving|exiting)"
_MOVE = rf"(?:(?P<arrive>{_ARRIVE})|(?P<leave>{_LEAVE}))\s+{_ROOM}"
# "which turn was the closest to the middle of my time in the bedroom?", "... nearest the middle of my stay there"
_MIDDLE = re.compile(r"\b(?:closest|nearest)\s+(?:in\s+time\s+)?(?:to\s+)?the\s+(?:very\s+)?"
                     rf"(?:middle|midpoint|mid-point|halfway\s+(?:point|mark))\s+of\s+(?:my|our)\s+(?:time|stay|visit)\s+(?:in|at)\s+{_ROOM}\b",
                     re.IGNORECASE)
_NEAREST = re.compile(rf"\b(?:closest|nearest)\s+(?:in\s+time\s+)?(?:to\s+)?(?:the\s+(?:moment|time|point|instant)\s+"
                      rf"(?:when\s+|that\s+|at\s+which\s+)?)?{_MOVE}\b", re.IGNORECASE)
_TURN = re.compile(r"^\W*(?:which|what|whose|who)\b[^?]*?\b(?:turn|words?|sentence|remark|utterance|line|speaker|"
                   r"person|voice|said|spoke|talked|came|began|started)\b", re.IGNORECASE)
_TO_LAST = re.compile(rf"^\W*(?:for\s+)?{HOW_LONG}\b[^?]*?\b(?:between|after|since|from)\s+{_MOVE}\b(?P<rest>[^?]*)",
                      re.IGNORECASE)
# "was anyone talking when I entered the library?", "who was speaking as I left the office?", "was A still talking
# at the moment I arrived in the porch?"
_DURING = re.compile(r"^\W*(?:(?:was|were|is)\s+(?P<who>anyone|anybody|someone|somebody|any\s+one|people|[^?]*?)\s+"
                     r"(?:still\s+|already\s+)?|who\s+was\s+(?:still\s+|already\s+)?)(?:talking|speaking|saying\s+"
                     r"(?:something|anything)|in\s+the\s+middle\s+of\s+(?:a\s+)?(?:turn|sentence))\s+(?:right\s+|just\s+)?"
                     rf"(?:when|as|while|at\s+the\s+(?:moment|time|instant)(?:\s+(?:when|that))?|the\s+moment)\s+{_MOVE}\b",
                     re.IGNORECASE)
_LAST = re.compile(r"\b(?:the\s+)?(?:very\s+)?(?:last|final)\s+(?:turn|words?|sentence|thing\s+(?:said|I\s+heard)|"
                   r"voice|remark|utterance|time\s+(?:someone|anyone|somebody)\s+(?:spoke|talked))\b", re.IGNORECASE)
_THERE = re.compile(r"\b(?:there|in\s+(?:that|this)\s+room|in\s+the\s+(?P<room>[a-z]+))\b", re.IGNORECASE)


@dataclass(frozen=True)
class NearMoveAsk:
    kind: str          # nearest | to_last | during
    leave: bool        # the move is a departure (else an arrival)
    room: str          # as the question writes it ("hallway did")
    by_start: bool = False     # nearest: by the turn's start ("began nearest"), else its nearer end
    in_stay: bool = False      # to_last: the last turn of that stay ("there"), else the last heard
    middle: bool = False       # nearest: the middle of the robot's (first) stay in the room, not a move
    person: str | None = None  # during: the one person asked about (else anyone)
    yes_no: bool = False       # during: "was anyone talking ...?" (else "who was talking ...?")


def asks_near_move(question: str) -> NearMoveAsk | None:
    m = _DURING.search(question)
    if m is not None:
        people = people_in(question)
        who = (m.group("who") or "").strip().lower()
        if len(people) > 1 or who and not people and who not in ("anyone", "anybody", "someone", "somebody",
                                                                   "any one", "people"):
            return None     # ("was the person I met talking when ...": not a person the question names by words)
        return NearMoveAsk("during", bool(m.group("leave")), m.group("room"), person=people[0] if people else None,
                           yes_no=m.group("who") is not None)
    m = _MIDDLE.search(question)
    if m is not None and _TURN.match(question):
        return NearMoveAsk("nearest", False, m.group("room"), middle=True,
                           by_start=bool(re.search(r"\b(?:began|begun|started|start|begin)\b", question[:m.start()],
                                                   re.IGNORECASE)))
    m = _NEAREST.search(question)
    if m is not None and _TURN.match(question):
        return NearMoveAsk("nearest", bool(m.group("leave")), m.group("room"),
                           by_start=bool(re.search(r"\b(?:began|begun|started|start|begin)\b", question[:m.start()],
                                                   re.IGNORECASE)))
    m = _TO_LAST.search(question)
    if m is not None and _LAST.search(m.group("rest") or "") and not re.search(r"\bfirst\b", m.group("rest"),
                                                                                re.IGNORECASE):
        there = _THERE.search(m.group("rest"))
        return NearMoveAsk("to_last", bool(m.group("leave")), m.group("room"), in_stay=there is not None)
    return None


def prepare(q: Query) -> Query:
    """Everyone's voice turns (the move is the robot's track)."""
    return Query(find="who", act="spoke")


def answer(executor: QueryExecutor, q: Query, ask: NearMoveAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res, ids = scope_and_people(executor, prepare(q), [ask.person] if ask.person else [], before_time)
    if ids is None:
        return phrase(res), res
    track = visits(executor.store, res.now)
    room = room_named((s[0] for s in track), ask.room) or ask.room.lower().split()[0]
    stays = [s for s in track if s[0].lower() == room.lower()]
    if not stays:
        return f"I can't tell: I was never in a place called the {room}.", res
    if ask.middle:
        stay = stays[0]
        end = stay[2] if stay[2] is not None else executor.store.perceived_until(before_time)
        if end is None:
            return "I have recorded nothing yet.", res
        t = (stay[1] + end) / 2
        moved = f"the middle of my {res.say(stay[1])}-{res.say(end)} stay in {the_place(stay[0])}"
        res.robot_places += [(stay[1], stay[0]), (end, stay[0])]
        res.query = replace(res.query, at=f"{t:.1f}")     # the moment, for the answer's check
        turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
        return _nearest(res, turns, t, moved, ask.by_start) if turns else ("I heard nobody.", res)
    stay = stays[0] if ask.leave else arrivals(track, stays)[0]
    t = stay[2] if ask.leave else stay[1]
    if t is None:
        return f"I can't tell: I have not left {the_place(room)}.", res
    if not ask.leave and stay is track[0]:
        return f"I can't tell: I was in {the_place(room)} from the start of the recording; I never arrived there.", \
            res
    moved = f"I {'left' if ask.leave else 'arrived in'} {the_place(stay[0])}"
    res.robot_places.append((t, stay[0]))
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    if not turns:
        return "I heard nobody.", res
    if ask.kind == "nearest":
        return _nearest(res, turns, t, moved, ask.by_start)
    if ask.kind == "during":
        return _during(res, [e for e in turns if not ids or e.character_id == ids[0]], t, moved, ask)
    end = stay[2] if ask.in_stay and stay[2] is not None else float("inf")
    after = [e for e in turns if t <= e.start < end]
    if not after:
        return f"I heard nobody after {moved} ({res.say(t)}){' while I was there' if ask.in_stay else ''}.", res
    e = after[-1]
    res.events = [e] + [x for x in res.events if x is not e]
    began, ended = tenths(e.start - t), tenths(e.end - t)
    res.seconds = {**res.seconds, -1: began, -2: ended}
    res.steps.append({"step": f"the last turn after {moved}", "turns after": len(after)})
    last = "the last turn there" if ask.in_stay else "the last turn I heard"
    text = f"{seconds_word(began)}: {moved} at {res.say(t)}, and {last} began at {res.say(e.start)} " \
        f"({_who_said(res, e)}, ending {seconds_word(ended)} after I {'left' if ask.leave else 'arrived'})."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res


def _nearest(res: QueryResult, turns: list, t: float, moved: str, by_start: bool) -> tuple[str, QueryResult]:
    """The turn nearest the move: by its start, or (unless "began") 0 for a turn going on at that moment, else the
    nearer of its start and end; a tie names both."""
    def gap(e) -> float:  # noqa: ANN001
        if by_start:
            return abs(e.start - t)
        return 0.0 if e.start <= t <= e.end else min(abs(e.start - t), abs(e.end - t))

    best = min(gap(e) for e in turns)
    top = [e for e in turns if gap(e) <= best + 0.05]
    res.events = top + [x for x in res.events if x not in top]
    res.seconds = {**res.seconds, **{-i - 1: tenths(abs(e.start - t)) for i, e in enumerate(top)}}
    res.steps.append({"step": f"the turn nearest the moment {moved}", "gap": round(best, 1)})

    def one(e) -> str:  # noqa: ANN001
        said = f"{_who_said(res, e)} at {res.say(e.start)}"
        if e.start <= t <= e.end and not by_start:
            return f"{said}, which was going on {'at' if moved.startswith('the middle') else 'when'} {moved} " \
                f"({res.say(t)})"
        way = "before" if e.start < t else "after"
        return f"{said}, {seconds_word(tenths(abs(e.start - t)))} {way} {moved} ({res.say(t)})"

    text = _cap("; ".join(one(e) for e in top)) + "."
    if len(top) > 1:
        text = f"Two turns were as near: {text}"
    return (REFUSAL if check(text, res) else text), res


def _during(res: QueryResult, turns: list, t: float, moved: str, ask: NearMoveAsk) -> tuple[str, QueryResult]:
    """The turns going on at the move (their speaking began at or before it and had not ended), else the turns just
    before and just after it and how far they were."""
    on = [e for e in turns if speech_began(e) <= t <= e.end]
    who = res.describe[turns[0].character_id] if ask.person and turns else "anyone" if ask.yes_no else "nobody"
    if ask.person and not turns:
        return _cap(f"No: I never heard {ask.person} speak."), res
    at = f"{moved} ({res.say(t)})"
    res.steps.append({"step": f"the turns going on when {moved}", "turns": len(on)})
    if on:
        res.events = on + [x for x in res.events if x not in on]
        each = "; ".join(f"{_who_said(res, e)}, from {res.say(e.start)} to {res.say(e.end)}" for e in on)
        text = f"{'Yes: ' if ask.yes_no else ''}{each}: speaking when {at}."
        return (REFUSAL if check(_cap(text), res) else _cap(text)), res
    before = [e for e in turns if e.end < t]
    after = [e for e in turns if speech_began(e) > t]
    near = ([before[-1]] if before else []) + ([after[0]] if after else [])
    res.events = near + [x for x in res.events if x not in near]
    res.seconds = {**res.seconds, -1: tenths(t - before[-1].end) if before else 0.0,
                   -2: tenths(after[0].start - t) if after else 0.0}
    def said(e) -> str:  # noqa: ANN001
        return "" if ask.person else f"{_who_said(res, e)}, "      # (their own turns: who said them is known)

    last, then = ("their last turn", "their next") if ask.person else ("the last turn", "the next")
    sides = ([f"{last} before it ended {seconds_word(tenths(t - before[-1].end))} earlier "
              f"({said(before[-1])}{res.say(before[-1].start)}-{res.say(before[-1].end)})"] if before else []) + \
        ([f"{then} began {seconds_word(tenths(after[0].start - t))} after ({said(after[0])}at "
          f"{res.say(after[0].start)})"] if after else [])
    nobody = f"{who} was not speaking" if ask.person else "nobody was speaking"
    # speech within moves.py's window around the move ("when I arrived": an arrival is no sharp moment): not a plain
    # no, the turn that came that close is the answer's first words
    close = bool(after and after[0].start - t <= (MOVE_BEFORE_S if ask.leave else MOVE_AFTER_S) or
                 before and t - before[-1].end <= (MOVE_AFTER_S if ask.leave else MOVE_BEFORE_S))
    lead = ("Not at that moment: " if close else "No: ") if ask.yes_no else ""
    text = f"{lead}{nobody} when {at}" + (f"; {', and '.join(sides)}" if sides else "") + "."
    return (REFUSAL if check(_cap(text), res) else _cap(text)), res


def _who_said(res: QueryResult, e) -> str:  # noqa: ANN001
    """"Ann: "Thanks for the help"", or the person alone where their description is those words."""
    words, who = e.text.strip().rstrip(".!?"), res.describe[e.character_id]
    return who if words.lower() in who.lower() else f"{who}: \"{words}\""
