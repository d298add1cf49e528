"""Two spans of time compared by how much was said in each: "was there more talking in the first minute or in the
second minute?", "were there fewer turns before 0:30 or after 1:00?", "did more people speak before 1:00 than after
it?", "did A speak more in the first minute than in the second?".

No frame compares two windows (``more`` / ``less`` compare two people), so this runs the frame once per window
(``find=count_times`` there, or ``count_people`` for "more people"; a quoted person kept, the place kept) and says
which window had more, with both counts; each clause is checked against its own executed result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .added_counts import counts_each
from .combined import combined
from .execute import QueryExecutor, QueryResult
from .fidelity import quotes_of
from .frame import Query
from .phrase import REFUSAL, check
from .repair import mss
from .wording import CLOCK, QUOTED
from .words import times_word

_ORD = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "1st": 1, "2nd": 2, "3rd": 3,
        "4th": 4, "5th": 5, "6th": 6}
_ORD_WORD = "|".join(_ORD)
_CLOCK_T = r"\d{1,2}:[0-5]\d"
# one span: "the second minute", "the first 30 seconds", "before 0:30", "after 1:00", "between 0:20 and 0:40"
_SPAN = re.compile(
    rf"(?P<nth>(?:(?:in|during|within|over|throughout)\s+)?(?:the\s+)?(?P<ord>{_ORD_WORD})\s+"
    rf"(?P<unit>minute|half[\s-]minute)\b)"
    rf"|(?P<first>(?:(?:in|during|within)\s+)?the\s+first\s+(?P<n>\d+)\s+seconds)"
    rf"|(?P<bare>(?:in\s+)?the\s+(?P<bord>{_ORD_WORD})\b(?!\s*(?:\d|minute|half|person|people|one|speaker|voice|"
    rf"time|turn|room|place|thing|words)))"
    rf"|(?P<side>(?P<dir>before|after|since|until|by)\s+(?P<t>{_CLOCK_T}))"
    rf"|(?P<it>(?P<itdir>before|after|since|until)\s+(?:it|that|then)\b)"
    rf"|(?P<between>between\s+(?P<t1>{_CLOCK_T})\s+and\s+(?P<t2>{_CLOCK_T}))",
    re.IGNORECASE)
_COMPARE = re.compile(r"\b(?P<word>more|less|fewer|busier|quieter|livelier|most|least)\b", re.IGNORECASE)
_PEOPLE = re.compile(r"\b(?:more|fewer|less|most|least)\s+(?:different\s+)?(?:people|persons|speakers|voices)\b",
                     re.IGNORECASE)
_THAN = re.compile(r"^\W*(?:did|was|were|is|are|has|had|have)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Window:
    said: str                       # as the answer says it: "in the first minute", "before {}" (the clock filled in)
    from_: str | None = None
    to: str | None = None

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


def _window(m: re.Match, unit_before: str | None, clock_before: str | None = None) -> Window | None:
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
    t, d = m.group("t") or clock_before, (m.group("dir") or m.group("itdir")).lower()
    if t is None:
        return None
    return Window(d + " {}", None, t) if d in ("before", "until", "by") else Window(d + " {}", t, None)


def asks_window_counts(question: str) -> WindowCountsAsk | None:
    """The two spans of time a question compares by how much was said in each, or None."""
    if len(quotes_of(question)) > 1:
        return None
    plain = QUOTED.sub(" quoted ", question)
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
    unit = (a.group("unit") or "") if a.group("nth") else None
    wa = _window(a, None)
    wb = _window(b, unit, a.group("t"))
    if wa is None or wb is None or (wa.from_, wa.to) == (wb.from_, wb.to):
        return None
    word = compare.group("word").lower()
    yes_no = bool(re.search(r"\bthan\b", between, re.IGNORECASE)) and bool(_THAN.match(plain))
    return WindowCountsAsk(word in ("more", "busier", "livelier", "most"), (wa, wb), bool(_PEOPLE.search(plain)),
                           yes_no)


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
    results, stopped = counts_each(executor, prepare(q, ask.people), question, ask.people,
                                   [{"from_": w.from_, "to": w.to} for w in ask.windows], before_time)
    if stopped is not None:
        return stopped
    frame = results[0].query
    counts = [int(r.value or 0) for r in results]
    ra = results[0]
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
