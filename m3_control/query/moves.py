"""The robot's own moves as the moment a question is relative to ("who spoke first after I entered the lab?",
"who was talking when I left the kitchen?", "how many people had spoken before I got to the porch?"), read from the
question's words and the robot's pose track (used by :mod:`.fidelity`).

The moment becomes the frame's time: after / since / once it -> ``from``; before / until / by the time -> ``to``;
when / as / as soon as -> ``at`` (speech from a second before to 1.5 s after the move: an arrival is no sharp
moment), "at the moment" / "just as" -> ``at`` itself; "right after" / "just before" also pick the first / last.
The place named in the move is the moment's, not a filter: a ``place=`` or ``other=`` the model wrote for it goes.
A move the track does not hold (a room the robot never entered, or never left, by the question's moment) leaves
the frame without a time and is reported as missing, so the question is declined rather than answered about another
time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from .frame import Query
from .repair import time_of
from .robot_track import arrivals
from .words import HOW_LONG

Stays = list[tuple[str, float, float | None]]   # (place, entered, left)
MOVE_BEFORE_S, MOVE_AFTER_S = 1.0, 1.5   # "when I arrived": speech from this long before the move to this long after

_ENTER = (r"enter(?:ed|ing)?|got\s+(?:to|into|in\s+to)|get(?:ting)?\s+(?:to|into)|arriv(?:e|ed|ing)\s+(?:in|at)|"
          r"reach(?:ed|ing)?|(?:walked|came|went|moved|drove|rolled|stepped|wandered|walking|coming|going|moving|"
          r"rolling|stepping)\s+(?:in(?:to)?|to)|(?:came|coming)\s+back\s+to|return(?:ed|ing)?\s+to|"
          # "after my arrival in the lab", "upon my entry into the kitchen"
          r"my\s+(?:arrival\s+(?:in|at)|entry\s+(?:in)?to|entrance\s+(?:in)?to|return\s+to)")
_LEAVE = (r"left|leav(?:e|ing)|exit(?:ed|ing)?|(?:walked|went|came|drove|rolled|stepped|moved|walking|going|coming|"
          r"rolling|stepping|moving)\s+out\s+of|(?:walked|went|drove|rolled|moved|walking|going|moving)\s+away\s+"
          r"from|my\s+(?:departure|exit)\s+from")
_REL = (r"(?P<rel>(?:right|just|immediately|directly)\s+(?:before|after)|before|after|since|once|as\s+soon\s+as|"
        # "at the moment I entered", "the instant I arrived in": the moment itself (at=)
        r"(?:(?:at|in)\s+)?the\s+(?:very\s+)?(?:moment|instant|second|time)(?:\s+that|\s+when)?|just\s+as|"
        # "between 0:20 and my arrival in the lab": the window up to the move, from that clock time
        r"between\s+(?P<clock>\d{1,2}:[0-5]\d)\s+and|between|when|as|until|till|by\s+the\s+time|upon|on)")


def _pattern(places: list[str]) -> re.Pattern:
    names = "|".join(re.escape(p) for p in sorted(places, key=len, reverse=True))
    return re.compile(rf"\b{_REL}\s+(?:(?:i|we|you)\s+(?:had\s+|have\s+|was\s+|were\s+)?)?"
                      rf"(?P<which>first\s+|last\s+|finally\s+|just\s+|again\s+)?"
                      rf"(?:(?P<enter>{_ENTER})|(?P<leave>{_LEAVE}))\s+(?:the\s+|my\s+|our\s+)?(?P<place>{names})\b",
                      re.IGNORECASE)


# the same move with any room name after "the" / "my" / "our" ("after I went into the attic")
_ANY_ROOM = re.compile(rf"\b{_REL}\s+(?:(?:i|we|you)\s+(?:had\s+|have\s+|was\s+|were\s+)?)?"
                       rf"(?:first\s+|last\s+|finally\s+|just\s+|again\s+)?"
                       rf"(?:{_ENTER}|{_LEAVE})\s+(?:the|my|our)\s+(?P<place>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)


def without_moves(plain: str, known_places: list[str]) -> str:
    """``plain`` with the robot's moves to known places taken out ("after I entered the garden"): what is left says
    whether the question relates anything to a person's turn."""
    return _pattern(known_places).sub(" ", plain) if known_places else plain


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _stems(text: str) -> set[str]:
    """Words to their first four letters: "arrived" is the question's "arriving"."""
    return {w[:4] for w in _words(text)}


_THERE = re.compile(r"\b(?:when|as|once|after|before|by\s+the\s+time|until)\s+(?:i|we)\s+(?:first\s+)?"
                    r"(?:got|arrived|came)\s+(there)\b", re.IGNORECASE)
_NOT_ROOMS = frozenset(("end", "start", "beginning", "middle", "same", "other", "next", "first", "last", "way"))


# "in the (last) 30 seconds before I left the porch", "during the first minute after I entered the lab"
_SPAN_BEFORE = re.compile(r"\b(?:the\s+)?(?:last\s+|first\s+|final\s+)?(?P<n>\d+(?:\.\d+)?|a|one|two|three|five|ten|"
                          r"fifteen|twenty|thirty|forty|forty-five|fifty|sixty|ninety)\s+(?P<u>seconds?|minutes?)\s*$",
                          re.IGNORECASE)


def move_moments(q: Query, plain: str, known_places: list[str], stays: Callable[[], Stays] | None,
                 added: list[str], missing: list[str]) -> Query:
    """The frame with the time of the robot move the question is relative to (see the module's text)."""
    if stays is None or q.find == "same" or q.until:
        return q
    there = _THERE.search(plain)
    named = [p for p in known_places if re.search(rf"\b{re.escape(p)}\b", plain, re.IGNORECASE)]
    if there is not None and len(named) == 1:
        # "how many people were in the living room when I got there?": there is the room the question names
        into = "in" if there.group(0).lower().split()[-2].startswith("arriv") else "to"
        plain = plain[:there.start(1)] + f"{into} the {named[0]}" + plain[there.end(1):]
    if len(named) == 1:
        # "who spoke last in the garden before I left it?": it is the room the question names
        plain = re.sub(rf"\b(?P<move>{_ENTER}|{_LEAVE})\s+it\b", lambda x: f"{x.group('move')} the {named[0]}", plain,
                       flags=re.IGNORECASE)
    found = list(_pattern(known_places).finditer(plain)) if known_places else []
    if not found:
        # a move into (out of) a room the memory has no place for: the robot never was there
        other = [m for m in _ANY_ROOM.finditer(plain) if m.group("place").lower() not in _NOT_ROOMS]
        if len(other) == 1:
            move = other[0].group(0)[len(other[0].group("rel")):].strip()
            missing.append(f"the moment {move!r} (the robot's track has no such move: no place called "
                           f"{other[0].group('place')!r})")
        return q
    if len(found) != 1:
        return q
    m = found[0]
    place = next(p for p in known_places if p.lower() == m.group("place").lower())
    track = stays()
    mine = [s for s in track if s[0] == place]
    if not m.group("leave"):
        mine = arrivals(track, mine)
    last = (m.group("which") or "").strip().lower() in ("last", "finally")
    stay = (mine[-1] if last else mine[0]) if mine else None
    t = None if stay is None else stay[2] if m.group("leave") else stay[1]
    move = m.group(0)[len(m.group("rel")):].strip()
    rel = " ".join(m.group("rel").lower().split())
    if t is None and stay is not None and re.search(r"before|until|till|by the time", rel):
        # "before I left the garden" while the robot is still there: everything up to now (no bound)
        new = replace(q, at=None, to=None, place=q.place or place)
        if _move_as_person(q, place, plain):
            new = replace(new, other=None, rel=None)
        added.append(f"no end of the window: the robot has not left the {place} (still there)")
        return new
    if t is None:
        missing.append(f"the moment {move!r} (the robot's track has no such move)")
        return q
    side = "to" if re.search(r"before|until|till|by the time", rel) or m.group("clock") else \
        "from" if re.search(r"after|since|once|between", rel) else "at"   # "between my arrival in X and ...": from
    if side == "at" and q.pick == "first":
        side = "from"     # "when I got to the lab, who spoke first?", "upon entering it, who spoke first?"
    if side == "at" and q.find == "how_long":
        side = "to"       # "how long had I been in the porch when I left it?": the time up to the move
    fields: dict = {"from_": None, "to": None, "at": None}
    sharp = bool(re.search(r"\b(?:moment|instant|second|time)\b|^just as$", rel))   # "at the moment I entered"
    if side == "at" and q.find in ("who", "what", "count_people", "yes") and not sharp:
        # "who was speaking when I arrived in the garage?": the robot's arrival is no sharp moment (a drive into a
        # room's circle); speech starting in the seconds after it, or going on as it came, is "when I arrived"; as it
        # left a room, speech going on in the seconds before (the mirror: what was said as it went, not in the next)
        before, after = (MOVE_AFTER_S, MOVE_BEFORE_S) if m.group("leave") else (MOVE_BEFORE_S, MOVE_AFTER_S)
        fields.update(from_=f"{max(0.0, t - before):.1f}", to=f"{t + after:.1f}")
    else:
        fields[{"from": "from_", "to": "to", "at": "at"}[side]] = f"{t:.1f}"
        # "from 0:10 until I entered the porch": a clock time the question says bounds the other side
        clocks = {time_of(c) for c in re.findall(r"\b\d{1,2}:[0-5]\d\b", plain)}
        other = q.from_ if side == "to" else q.to if side == "from" else None
        if other is not None and (o := time_of(other)) in clocks and (o < t if side == "to" else o > t):
            fields["from_" if side == "to" else "to"] = other
        if m.group("clock") and time_of(m.group("clock")) is not None and time_of(m.group("clock")) < t:
            fields["from_"] = m.group("clock")
        span = _SPAN_BEFORE.search(plain[:m.start()])
        n = time_of(f"{span.group('n')} {span.group('u').rstrip('s')}s") if span and side in ("to", "from") else None
        if n is not None:     # "in the last 30 seconds before I left the porch": the window ends (starts) there
            fields.update(from_=f"{max(0.0, t - n):.1f}") if side == "to" else fields.update(to=f"{t + n:.1f}")
    if rel.split()[0] in ("right", "just", "immediately", "directly") and not sharp and q.pick is None and \
            q.find in ("who", "what", "when", "where"):
        fields["pick"] = "first" if side == "from" else "last"
    elsewhere = len(re.findall(rf"\b{re.escape(place)}\b", plain, re.IGNORECASE)) > 1
    if q.place and q.place.lower().removeprefix("the ") == place.lower() and not elsewhere:
        fields["place"] = None
    if _move_as_person(q, place, plain):
        fields.update(other=None, rel=None)
    new = replace(q, **fields)
    if new != q:
        said = f"from={new.from_} to={new.to}" if side == "at" and new.at is None else f"{side}={t:.1f}"
        added.append(f"{said}: the moment {move!r} on the robot's track")
    return new


def _move_as_person(q: Query, place: str, plain: str) -> bool:
    """The move written as the person a count or relation is to (other="I entered the bathroom", with or without
    rel=, or "arrived in the garden" for "arriving"): it is the moment, nobody's words (a quote is not in ``plain``,
    which has the quotes taken out)."""
    return bool(q.other) and (q.rel or "").removesuffix("_last") in ("", "before", "after", "right_before",
                                                                     "right_after") and \
        place.lower() in (q.other or "").lower() and _stems(q.other or "") <= _stems(plain)


def _stay_pattern(places: list[str]) -> tuple[re.Pattern, re.Pattern]:
    names = "|".join(re.escape(p) for p in sorted(places, key=len, reverse=True))
    # "how long was I in the lab before anyone spoke?": from the robot's arrival to the first words there
    # ... or before one person spoke ("before the person who said X first spoke", "before Ann said anything")
    before_speech = re.compile(rf"^\W*{HOW_LONG}\s+(?:was|were|had)\s+(?:i|we)\s+"
                               rf"(?:been\s+)?(?:in|at|inside)\s+(?:the\s+)?(?P<place>{names})\s+before\s+"
                               rf"(?:(?P<anyone>anyone|anybody|someone|somebody|a\s+person|people)|(?P<named>\S.*?))\s+"
                               rf"(?:first\s+)?(?:spoke|talked|said|started|began)", re.IGNORECASE)
    # "which room did I go to after the bathroom?": the robot's next (previous) room
    next_room = re.compile(rf"^\W*(?:(?:in\s+)?(?:which|what)\s+(?:room|place)\s+did\s+(?:i|we)|where\s+did\s+(?:i|we))"
                           rf"\s+(?:go|move|drive|head|come|walk|roll|get)(?:\s+(?:in)?to)?\s+(?P<rel>after|before)\s+"
                           rf"(?:(?:i|we)\s+(?:left|was\s+in|visited)\s+)?(?:the\s+)?(?P<place>{names})\b",
                           re.IGNORECASE)
    return before_speech, next_room


def robot_room_forms(q: Query, plain: str, known_places: list[str], stays: Callable[[], Stays] | None,
                     added: list[str], missing: list[str], person: str | None = None) -> Query:
    """Two questions about the robot's own stays that no frame the model writes says: the time from its arrival in
    a room to the first words there (``person``'s, the one the question names), and the room it went to after
    (before) another."""
    if stays is None or not known_places:
        return q
    before_speech, next_room = _stay_pattern(known_places)
    m = before_speech.match(plain) or next_room.match(plain)
    if m is None or (m.re is before_speech and m.group("named") and not person):
        return q
    place = next(p for p in known_places if p.lower() == m.group("place").lower())
    mine = [s for s in stays() if s[0] == place]
    if not mine:
        missing.append(f"the moment the robot was in the {place} (its track has no stay there)")
        return q
    if m.re is before_speech:
        who = person if m.group("named") else None
        new = Query(find="gap", who=who, from_=f"{mine[0][1]:.1f}", place=place, act="spoke")
        why = f"from={new.from_}: the time from my arrival in the {place} to the first words there" + \
            (f" of {who!r}" if who else "")
    elif m.group("rel").lower() == "after":
        if mine[0][2] is None:
            missing.append(f"the moment the robot left the {place} (it has not)")
            return q
        new = Query(find="where", from_=f"{mine[0][2]:.1f}", pick="first")
        why = f"from={new.from_} pick=first: the room I went to after the {place}"
    else:
        new = Query(find="where", to=f"{max(0.0, mine[0][1] - 0.5):.1f}", pick="last")   # (not the arrival's pose)
        why = f"to={new.to} pick=last: the room I was in before the {place}"
    if new != q:
        added.append(why)
    return new
