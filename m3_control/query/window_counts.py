"""Spans of time compared by how much was said in each: "was there more talking in the first minute or in the
second minute?", "were there fewer turns before 0:30 or after 1:00?", "did more people speak before 1:00 than after
it?", "did A speak more in the first minute than in the second?", "... in the first minute than after it (afterwards)?".

No frame compares two windows (``more`` / ``less`` compare two people), so this runs the frame once per window
(``find=count_times`` there, or ``count_people`` for "more people"; a quoted person kept, the place kept) and says
which window had more, with both counts; each clause is checked against its own executed result. "Which minute had the
most talking?" counts every minute of the recording from one frame's turns.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, replace

from m3_memory.people import began
from m3_memory.store.where import find_place, load_places

from .added_counts import counts_each
from .combined import combined
from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query
from .phrase import REFUSAL, _join, check, phrase
from .repair import mss
from .result import QueryResult
from .robot_track import visits
from .wording import CLOCK, QUOTED
from .words import cap, ordinal_word, times_word

_ORD = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "1st": 1, "2nd": 2, "3rd": 3,
        "4th": 4, "5th": 5, "6th": 6}
_ORD_WORD = "|".join(_ORD)
_CLOCK_T = r"\d{1,2}:[0-5]\d"
# one span: "the second minute", "the first 30 seconds", "before 0:30", "after 1:00", "between 0:20 and 0:40"
_SPAN = re.compile(
    # "the second half (of the recording)": 0 to the question's now, halved (resolved when the plan runs)
    r"(?P<half>(?:(?:in|during|within|over|throughout)\s+)?(?:the\s+)?(?P<hord>first|earlier|former|second|last|latter|"
    r"later)\s+half\b(?![\s-]*(?:an?\s+)?(?:minute|hour|second)s?\b)(?:\s+of\s+(?:the|my|this|our)\s+[a-z]+)?)"
    rf"|(?P<nth>(?:(?:in|during|within|over|throughout)\s+)?(?:the\s+)?(?P<ord>{_ORD_WORD})\s+"
    rf"(?P<unit>minute|half[\s-]minute)\b)"
    rf"|(?P<first>(?:(?:in|during|within)\s+)?the\s+first\s+(?P<n>\d+)\s+seconds)"
    rf"|(?P<bare>(?:in\s+)?the\s+(?P<bord>{_ORD_WORD})\b(?!\s*(?:\d|minute|half|person|people|one|speaker|voice|"
    rf"time|turn|room|place|thing|words)))"
    # "before I left the garage", "after I entered the hallway": the robot's first such move (set when the plan runs)
    rf"|(?P<move>(?P<mdir>before|after|since|until)\s+(?:i|we)\s+(?:first\s+)?(?P<mverb>left|exited|entered|arrived\s+"
    rf"(?:in|at)|got\s+(?:to|into)|went\s+(?:in)?to|reached|came\s+(?:in)?to)\s+(?:the\s+)?(?P<mplace>[a-z]+"
    rf"(?:\s+room)?)\b)"
    rf"|(?P<side>(?P<dir>before|after|since|until|by)\s+(?P<t>{_CLOCK_T}))"
    rf"|(?P<it>(?P<itdir>before|after|since|until)(?:\s+(?:it|that|then)\b|\s*(?=[?.!]|$))|"   # ("... or after?")
    rf"(?P<itdir2>afterwards?|thereafter)\b)"     # ("in the first minute than afterwards?")
    rf"|(?P<between>between\s+(?P<t1>{_CLOCK_T})\s+and\s+(?P<t2>{_CLOCK_T}))",
    re.IGNORECASE)
_COMPARE = re.compile(r"\b(?P<word>more|less|fewer|busier|quieter|livelier|most|least)\b", re.IGNORECASE)
_PEOPLE = re.compile(r"\b(?:more|fewer|less|most|least)\s+(?:different\s+)?(?:people|persons|speakers|voices)\b",
                     re.IGNORECASE)
_THAN = re.compile(r"^\W*(?:did|was|were|is|are|has|had|have)\b", re.IGNORECASE)


_EITHER_SIDE = re.compile(rf"\b(before|after)\s+or\s+(after|before)\s+((?:i|we)\s+(?:first\s+)?(?:left|exited|entered|"
                          rf"arrived\s+(?:in|at)|got\s+(?:to|into)|went\s+(?:in)?to|reached|came\s+(?:in)?to)\s+(?:the\s+)?"
                          rf"[a-z]+(?:\s+room)?\b|{_CLOCK_T})", re.IGNORECASE)


@dataclass(frozen=True)
class Window:
    said: str                       # as the answer says it: "in the first minute", "before {}" (the clock filled in)
    from_: str | None = None
    to: str | None = None
    half: int = 0                   # 1 / 2: the first / second half of the recording (its clocks set by ``at_now``)
    move: tuple[str, str] | None = None   # ("left" | "entered", place): the robot's first such move (``at_move``)
    after: bool = False             # move: the time after it (else before it)

    def at_now(self, now: float) -> Window:
        """The window with a half's clocks set (0 to ``now``, the recording's end, halved)."""
        if not self.half:
            return self
        mid = mss(now / 2)
        return replace(self, from_="0:00" if self.half == 1 else mid, to=mid if self.half == 1 else mss(now))

    def at_move(self, t: float | None) -> Window:
        """The window with a move's clock set (the time the robot left or entered the place), else unchanged."""
        if self.move is None or t is None:
            return self
        return replace(self, from_=mss(t), to=None) if self.after else replace(self, from_=None, to=mss(t))

    def say(self, res: QueryResult) -> str:
        """The window in the answer's words, its clock times as the executed result says them."""
        clocks = [res.say(t) for t in (res.read(self.from_), res.read(self.to)) if t is not None]
        return self.said.format(*clocks) if "{" in self.said else self.said


@dataclass(frozen=True)
class WindowCountsAsk:
    more: bool                      # more (busier), or less / fewer (quieter)
    windows: tuple[Window, Window]
    people: bool                    # different people, not turns
    yes_no: bool                    # "did people speak more in W1 than in W2?": yes or no about the first
    each: bool = False              # "who spoke more times after I entered the lab than before?": each person's two


def _window(m: re.Match, unit_before: str | None, clock_before: str | None = None,
            prev: Window | None = None) -> Window | None:
    if m.group("half") or (m.group("bare") and unit_before == "half"):   # ("the first half or the second?")
        word = (m.group("hord") or m.group("bord")).lower()
        first = word in ("first", "earlier", "former")
        return Window(f"in the {'first' if first else 'second'} half ({{}}-{{}})", half=1 if first else 2)
    if m.group("nth") or m.group("bare"):
        word = (m.group("ord") or m.group("bord")).lower()
        unit = (m.group("unit") or unit_before or "").lower().replace("-", " ")
        if not unit:
            return None
        size = 30.0 if unit.startswith("half") else 60.0
        name = "half minute" if size == 30.0 else "minute"
        return Window(f"in the {word} {name}", mss(size * (_ORD[word] - 1)), mss(size * _ORD[word]))
    if m.group("first"):
        return Window(f"in the first {m.group('n')} seconds", "0:00", mss(float(m.group("n"))))
    if m.group("between"):
        return Window("between {} and {}", m.group("t1"), m.group("t2"))
    if m.group("move"):
        after, verb = m.group("mdir").lower() in ("after", "since"), m.group("mverb").lower()
        kind = "left" if verb in ("left", "exited") else "entered"
        place = m.group("mplace").lower()
        return Window(f"{'after' if after else 'before'} I {kind} the {place} ({{}})", move=(kind, place), after=after)
    t, d = m.group("t") or clock_before, (m.group("dir") or m.group("itdir") or "after").lower()
    if t is None and m.group("it") and prev is not None and prev.move is not None:     # "... or after?"
        after = d in ("after", "since")
        return replace(prev, said=f"{'after' if after else 'before'} I {prev.move[0]} the {prev.move[1]} ({{}})",
                       after=after)
    if t is None and m.group("it") and prev is not None and not prev.half:
        # "in the first minute than after it": after the end of the span before (before its start)
        after = d in ("after", "since")
        edge = prev.to if after else prev.from_
        if edge is None or (not after and edge == "0:00"):
            return None
        return Window("after {}", edge, None) if after else Window("before {}", None, edge)
    if t is None:
        return None
    return Window(d + " {}", None, t) if d in ("before", "until", "by") else Window(d + " {}", t, None)


def asks_window_counts(question: str) -> WindowCountsAsk | None:
    """The two spans of time a question compares by how much was said in each, or None."""
    if len(quotes_of(question)) > 1:
        return None
    plain = QUOTED.sub(" quoted ", question)
    # "before or after I left the garage?", "before or after 0:30?": the moment said once, for both sides
    plain = _EITHER_SIDE.sub(lambda m: f"{m.group(1)} {m.group(3)} or {m.group(2)} {m.group(3)}", plain)
    found = list(_SPAN.finditer(plain))
    if len(found) != 2 or not all(m.group(0).strip() for m in found):
        return None
    a, b = found
    between = plain[a.end():b.start()]
    if not re.search(r"\b(?:or|than)\b", between, re.IGNORECASE):
        return None
    compare = _COMPARE.search(plain[:b.start()])
    if compare is None:
        return None
    unit = "half" if a.group("half") else (a.group("unit") or "") if a.group("nth") else None
    # ("the first or the second half?": the unit said once, after both)
    later = "half" if b.group("half") else (b.group("unit") or "") if b.group("nth") else None
    wa = _window(a, later if a.group("bare") else None)
    wb = _window(b, unit, a.group("t"), wa)
    if wa is None or wb is None or (wa.from_, wa.to, wa.half, wa.move, wa.after) == \
            (wb.from_, wb.to, wb.half, wb.move, wb.after):
        return None
    word = compare.group("word").lower()
    yes_no = bool(re.search(r"\bthan\b", between, re.IGNORECASE)) and bool(_THAN.match(plain))
    each = bool(re.match(r"^\W*(?:who|which\s+(?:people|persons|speakers|person|speaker|of\s+them))\b", plain,
                         re.IGNORECASE)) and not quotes_of(question)
    return WindowCountsAsk(word in ("more", "busier", "livelier", "most"), (wa, wb),
                           bool(_PEOPLE.search(plain)) and not each, yes_no, each)


def check_question(question: str) -> str:
    """The question as the frame's checks read it: without its two spans (the plan sets each frame's window)."""
    plain = _SPAN.sub(" ", question)
    return CLOCK.sub(" ", plain)


def prepare(q: Query, people: bool) -> Query:
    """The model's frame as one count over a window (the person and the place kept)."""
    return replace(q, find="count_people" if people else "count_times", act="spoke", at=None, from_=None, to=None,
                   pick=None, times=None, count=None, by=None, rel=None, other=None, top=None, measure=None,
                   who=None if people else q.who)


def answer(executor: QueryExecutor, q: Query, ask: WindowCountsAsk, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    """(the answer, the first window's result, holding both windows' turns for provenance)."""
    if any(w.half for w in ask.windows):
        now = executor.store.timeline().now(before_time)
        now = executor.store.perceived_until(now) if now is not None else None   # (a replay ends before the question)
        if now is None:
            return REFUSAL, executor.run(prepare(q, ask.people), before_time)
        ask = replace(ask, windows=tuple(w.at_now(now) for w in ask.windows))
    moments: dict[tuple[str, str] | None, float | None] = {}
    if any(w.move for w in ask.windows):
        moments = {w.move: _move_time(executor, w.move, before_time) for w in ask.windows if w.move}
        if any(t is None for t in moments.values()):
            kind, place = next(m for m, t in moments.items() if t is None)
            res = executor.run(prepare(q, ask.people), before_time)
            return f"I never {kind} the {place}, as far as my track shows.", res
        ask = replace(ask, windows=tuple(w.at_move(moments.get(w.move)) for w in ask.windows))
    results, stopped = counts_each(executor, prepare(q, ask.people), question, ask.people,
                                   [{"from_": w.from_, "to": w.to} for w in ask.windows], before_time)
    if stopped is not None:
        return stopped
    frame = results[0].query
    counts = [int(r.value or 0) for r in results]
    bound = results[0].read(frame.to)
    if not ask.people and bound is not None and results[1].read(results[1].query.from_) == bound:
        # a turn across the shared boundary (one that goes on inside the next window belongs to it too, in_window)
        # is counted once: where speaking began (the detected start less the onset, as in_window reads it); two
        # sides of one move of the robot's are split at the move itself, not at its whole second
        exact = next((t for t in moments.values() if t is not None), bound) if len(moments) == 1 else bound
        near = {e.id: e for r in results for e in r.events if e.kind == "voice" and abs(e.start - exact) < 3.0}
        if exact == bound:    # (clock windows: only a turn counted in both is settled)
            near = {e.id: e for e in results[0].events if any(x.id == e.id for x in results[1].events)}
        for e in near.values():
            side = 0 if began(e) < exact else 1
            for i in (0, 1):
                has = any(x.id == e.id for x in results[i].events)
                if i != side and has:
                    results[i].events = [x for x in results[i].events if x.id != e.id]
                    counts[i] -= 1
                elif i == side and not has:
                    results[i].events = [*results[i].events, e]
                    counts[i] += 1
                results[i].value = counts[i]
    ra = results[0]
    if ask.each and frame.who is None:
        return _each_person(results, ask, [w.say(r) for w, r in zip(ask.windows, results, strict=True)])
    subject = "people" if frame.who is None else ra.describe[ra.who["who"].character_id]  # type: ignore[index]
    where = f" in the {frame.place}" if frame.place else ""
    spans = [w.say(r) for w, r in zip(ask.windows, results, strict=True)]
    amounts = [f"{n} different {'person' if n == 1 else 'people'}" if ask.people else times_word(n) for n in counts]
    if any(check(f"{amounts[i]} {spans[i]}", results[i]) for i in range(2)):
        return REFUSAL, ra
    if counts[0] == counts[1]:
        verb = "I heard" if ask.people else f"{subject} spoke"
        text = f"{'No: t' if ask.yes_no else 'T'}he same{where}: {verb} {amounts[0]} {spans[0]} and {amounts[1]} " \
            f"{spans[1]}."
    else:
        hi, lo = (0, 1) if counts[0] > counts[1] else (1, 0)
        first, second = (hi, lo) if ask.more else (lo, hi)
        if ask.people:
            body = f"I heard {'more' if ask.more else 'fewer'} different people{where} then ({counts[first]})"
        else:
            body = f"{subject} spoke {'more' if ask.more else 'less'} often{where} then ({amounts[first]})"
        lead = ("Yes, " if first == 0 else "No, ") if ask.yes_no else ""
        other = counts[second] if ask.people else amounts[second]
        text = f"{lead}{spans[first]}: {body} than {spans[second]} ({other})."
        text = text[0].upper() + text[1:]
    merged = combined(results, "counts in two windows")
    merged.value = tuple(counts)
    return text, merged


def _each_person(results: list[QueryResult], ask: WindowCountsAsk, spans: list[str]) -> tuple[str, QueryResult]:
    """"Who spoke more times after I entered the lab than before?": each person's turns in the two windows; those
    with more (fewer) in the first, with both counts, or nobody, with everyone's."""
    counts = [Counter(e.character_id for e in r.events if e.kind == "voice") for r in results]
    people = list(dict.fromkeys(c for r in results for c in (e.character_id for e in r.events if e.kind == "voice")))
    describe = {**results[1].describe, **results[0].describe}
    fits = [c for c in people if (counts[0][c] > counts[1][c] if ask.more else counts[0][c] < counts[1][c])]

    def one(c: int) -> str:
        return f"{describe[c]} ({times_word(counts[0][c])} {spans[0]}, {times_word(counts[1][c])} {spans[1]})"

    merged = combined(results, "each person's counts in two windows")
    merged.value = tuple(sorted({n for k in counts for n in k.values()} | {0}))
    word = "more" if ask.more else "fewer"
    if fits:
        text = f"{_join([one(c) for c in fits])} spoke {word} times {spans[0]} than {spans[1]}."
    else:
        text = f"Nobody spoke {word} times {spans[0]} than {spans[1]}: " + "; ".join(one(c) for c in people) + "."
    return (REFUSAL if check(cap(text), merged) else cap(text)), merged


def _move_time(executor: QueryExecutor, move: tuple[str, str], before_time: float | None) -> float | None:
    """When the robot first left (entered) the place: the end (start) of its first stay there; an entry is no stay the
    recording began in."""
    place = find_place(load_places(executor.store), move[1])
    if place is None:
        return None
    track = visits(executor.store, before_time)
    stays = [s for s in track if s[0] == place.name]
    if move[0] == "left":
        return next((b for _, _, b in stays if b is not None), None)
    # (robot_track.arrivals' rule: the stay the track began with is no entry; no stay left over is none)
    return next((s[1] for s in stays if s is not track[0]), None)


# "which minute had the most talking?", "in what minute did the most people speak?", "what was the quietest minute?":
# each minute of the recording by how much was said in it
_MINUTE = re.compile(r"^\W*(?:in\s+|during\s+)?(?:which|what)\s+minute\b[^?]*?\b(?P<w1>most|least|fewest|busiest|"
                     r"quietest|liveliest|largest|greatest|highest|smallest|lowest)\b|"
                     r"\b(?P<w2>busiest|quietest|liveliest)\s+minute\b", re.IGNORECASE)


def asks_busiest_minute(question: str) -> tuple[bool, bool] | None:
    """(most, people) when the question asks which minute had the most (least) talk, else None."""
    m = _MINUTE.search(question)
    if m is None or quotes_of(question) and _PEOPLE.search(question):
        return None
    word = (m.group("w1") or m.group("w2")).lower()
    people = _PEOPLE.search(question) or re.search(r"\bnumber\s+of\s+(?:different\s+|distinct\s+)?(?:people|persons|"
                                                 r"speakers|voices)\b", question, re.IGNORECASE)
    return word in ("most", "busiest", "liveliest", "largest", "greatest", "highest"), bool(people)


def answer_minute(executor: QueryExecutor, q: Query, most: bool, people: bool,
                  before_time: float | None) -> tuple[str, QueryResult]:
    """(the minute with the most (least) turns or people, each minute's count; the turns of that minute)."""
    res = executor.run(replace(prepare(q, people), find="who", from_=None, to=None), before_time)
    if res.status != "ok":
        return phrase(res), res
    # the recording's end: its last input (a replay asked about afterwards ended before the question)
    now = executor.store.perceived_until(res.now) or max((e.end for e in res.events), default=0.0)
    turns = [e for e in res.events if e.kind == "voice"]
    # every minute begun (a turn in a short last minute is counted, never dropped); a last minute less than half
    # recorded is listed but not ranked as the quietest (a minute barely begun is no quiet minute)
    minutes = max(1, math.ceil(now / 60 - 1e-9))
    short = now - (minutes - 1) * 60 if minutes > 1 and now - (minutes - 1) * 60 < 30 else None
    in_minute: list[list] = [[] for _ in range(minutes)]
    for e in turns:
        in_minute[min(int(e.start // 60), minutes - 1)].append(e)
    counts = [len({e.character_id for e in mine}) if people else len(mine) for mine in in_minute]
    ranked = range(minutes - 1) if short is not None and not most else range(minutes)
    best = max(counts[i] for i in ranked) if most else min(counts[i] for i in ranked)
    top = [i for i in ranked if counts[i] == best]
    chosen = [e for i in top for e in in_minute[i]]
    res.events = chosen + [e for e in turns if e not in chosen]
    res.value = tuple(counts)
    unit = (lambda n: f"{n} different {'person' if n == 1 else 'people'}") if people else times_word

    def minute(i: int) -> str:
        if i == minutes - 1 and short is not None:
            res.seconds = {**res.seconds, -1: int(round(short))}
            return f"the {ordinal_word(i + 1)} minute (only {int(round(short))} seconds of it recorded)"
        return f"the {ordinal_word(i + 1)} minute"

    each = [f"{minute(i)} {unit(n)}" for i, n in enumerate(counts)]
    where = f" in the {q.place}" if q.place else ""
    who = res.who.get("who")
    said = "I heard" if people else f"{res.describe[who.character_id]} spoke" if who is not None else "people spoke"
    if len(counts) == 1:
        text = f"I have recorded only one minute{where} so far: {each[0]}."
    elif len(top) == len(ranked):
        text = f"Every minute{where} had as much: {'; '.join(each)}."
    else:
        which = " and ".join(f"the {ordinal_word(i + 1)} minute" for i in top)
        text = f"{cap(which)}{where}: {said} {unit(best)} there, the {'most' if most else 'least'} of " \
            f"any minute ({'; '.join(each)})."
    return (REFUSAL if check(text, res) else text), res
