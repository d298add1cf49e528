"""People who meet two conditions of place and time: "who spoke both in the bedroom and after 1:00?", "did anyone
talk both before 0:30 and in the office?", "did A speak both in the garden and after 1:00?".

One frame says one place and one window; two conditions joined by "both ... and" are two frames (each a place or a
clock bound), run separately, their people intersected (two places: :mod:`.rooms`). The answer names the people in
both, or says nobody was (about one named person: whether they were, with where and when they spoke), checked
against the executed results.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .combined import combined, run_each
from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query, voice_turns
from .phrase import REFUSAL, check
from .polarity import YES_NO_QUESTION
from .repair import mss, time_of
from .result import QueryResult
from .wording import QUOTED
from .words import cap, join

_COND = r"(?:in\s+(?:the\s+|my\s+)?[a-z]+(?:\s+room)?|(?:before|after|since|until|by)\s+\d{1,2}:[0-5]\d)"
_BOTH = re.compile(rf"\bboth\s+(?P<a>{_COND})\s+and\s+(?:also\s+)?(?P<b>{_COND})\s*[?.!]?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Condition:
    words: str                 # as the question says it ("after 1:00")
    place: str | None = None
    from_: str | None = None
    to: str | None = None


@dataclass(frozen=True)
class BothAsk:
    a: Condition
    b: Condition
    halves: bool = False       # "in both halves of the recording": the windows are read from the memory
    negated: bool = False      # "in the lab but never in the first minute": in a, not in b
    later: bool = False        # halves: "only in the second half" (a the second half, b the first)
    minutes: bool = False      # "both the first and the last minute": the recording's first and last 60 seconds


# "who spoke in the lab but never (not) in (during) the first minute?", "... but not in the first 30 seconds?"
_BUT_NOT = re.compile(r"\b(?P<a>in\s+(?:the\s+|my\s+)?[a-z]+(?:\s+room)?)\s*,?\s+but\s+(?:never|not)\s+"
                      r"(?:in|during|within)\s+the\s+first\s+(?:(?P<n>\d+|two|three|four|five|ten|fifteen|twenty|thirty|forty|fifty)\s+)?"
                      r"(?P<unit>minutes?|seconds?)\b", re.IGNORECASE)


# "in both halves", "in each half", "in both the first and the second half", "in the first half and the second half"
_HALVES = re.compile(r"\b(?:in\s+)?(?:both\s+halves|each\s+half|(?:both\s+)?(?:in\s+)?(?:the\s+)?first\s+(?:half\s+)?"
                     r"and\s+(?:in\s+)?(?:the\s+)?second\s+(?:half|halves))\b(?:\s+of\s+(?:the\s+)?(?:recording|video|"
                     r"conversation|session|scene|time))?", re.IGNORECASE)


# "who spoke both in the first minute and in the last minute?", "how many people spoke in both the first and the last
# minute?": the recording's first 60 seconds and its last 60 (to the last input the memory holds)
_EDGE_MINUTES = re.compile(r"\b(?:both\s+)?(?:in\s+|during\s+)?(?:both\s+)?the\s+first\s+(?:minute\s+)?and\s+"
                           r"(?:in\s+|during\s+)?the\s+(?:last|final)\s+minutes?\b(?:\s+of\s+(?:the\s+)?(?:recording|video|conversation))?",
                           re.IGNORECASE)


# "who spoke only in the first half?", "who was only heard during the first half of the recording?", "who spoke in
# the second half only?": in one half, not in the other
_ONLY_HALF = re.compile(r"\bonly\b[^?]*?\b(?:in|during)\s+(?:the\s+)?(?P<h>first|earlier|second|last|later|latter)\s+"
                        r"half\b|\b(?:in|during)\s+(?:the\s+)?(?P<h2>first|earlier|second|last|later|latter)\s+half"
                        r"(?:\s+of\s+(?:the\s+)?(?:recording|video|conversation|session|scene|time))?\s+only\b",
                        re.IGNORECASE)


# "did anyone speak in the first half but not in the second half?", "who spoke during the second half and never in
# the first?": in one half, not in the other
_HALF_NOT = re.compile(r"\b(?:in|during)\s+(?:the\s+)?(?P<h>first|earlier|second|last|later|latter)\s+half\b(?:\s+of\s+"
                       r"(?:the\s+)?(?:recording|video|conversation|session|scene|time))?\s*,?\s+(?:but|and|yet)\s+"
                       r"(?:never|not|did\s+not|didn't)\s+(?:speak\s+|talk\s+)?(?:in|during)\s+(?:the\s+)?(?:first|earlier|"
                       r"second|last|later|latter|other)(?:\s+(?:half|one))?\b", re.IGNORECASE)


def _condition(words: str) -> Condition | None:
    w = " ".join(words.split())
    m = re.match(r"(?i)in\s+(?:the\s+|my\s+)?(?P<place>.+)$", w)
    if m:
        return Condition(w, place=m.group("place").lower())
    side, clock = w.split(" ", 1)
    t = time_of(clock)
    if t is None:
        return None
    return Condition(w, from_=mss(t)) if side.lower() in ("after", "since") else Condition(w, to=mss(t))


def asks_both(question: str) -> BothAsk | None:
    """Two conditions joined by "both ... and", at least one of them a time (two places: rooms.py)."""
    if len(quotes_of(question)) > 1:
        return None
    if _EDGE_MINUTES.search(question):
        return BothAsk(Condition("in the first minute"), Condition("in the last minute"), minutes=True)
    if _HALVES.search(question):
        return BothAsk(Condition("in the first half"), Condition("in the second half"), halves=True)
    m = _ONLY_HALF.search(QUOTED.sub(" quoted ", question)) or _HALF_NOT.search(QUOTED.sub(" quoted ", question))
    if m is not None:
        later = (m.group("h") or m.groupdict().get("h2")).lower() not in ("first", "earlier")
        return BothAsk(Condition("in the first half"), Condition("in the second half"), halves=True, negated=True,
                       later=later)
    m = _BUT_NOT.search(QUOTED.sub(" quoted ", question))
    if m is not None and (a := _condition(m.group("a"))) is not None and \
            (t := time_of(f"{m.group('n') or 'one'} {m.group('unit').rstrip('s')}s")) is not None:
        return BothAsk(a, Condition(f"in the first {m.group('n') + ' ' if m.group('n') else ''}"
                                    f"{m.group('unit').lower()} (before {mss(t)})", to=mss(t)), negated=True)
    m = _BOTH.search(QUOTED.sub(" quoted ", question))
    if m is None:
        return None
    a, b = _condition(m.group("a")), _condition(m.group("b"))
    if a is None or b is None or (a.place and b.place):
        return None
    return BothAsk(a, b)


def prepare(q: Query) -> Query:
    """Everyone's voice turns (or the named person's); the conditions give place and window."""
    return voice_turns(q, person=True, place=None, from_=None, to=None, at=None, not_place=None)


def answer(executor: QueryExecutor, q: Query, ask: BothAsk, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    quoted = quotes_of(question)
    # the person asked about: by their words, or a name the model wrote that the question says ("did Ann ...?")
    named = q.who if q.who and re.search(rf"\b{re.escape(q.who)}\b", question, re.IGNORECASE) else None
    who = quoted[0] if quoted else named
    frame = replace(prepare(q), who=who)
    if ask.halves:     # the halves of what was recorded (a replay asked about afterwards ended before the question)
        end = executor.store.perceived_until(before_time)
        if end is None or end <= 0:
            return "I have recorded nothing yet.", executor.run(frame, before_time)
        mid = mss(end / 2)
        first, second = Condition(f"in the first half (before {mid})", to=mid), \
            Condition(f"in the second half (after {mid})", from_=mid)
        ask = replace(ask, a=second if ask.later else first, b=first if ask.later else second)
    if ask.minutes:    # the first 60 seconds and the last 60 of what was recorded (the same where it is shorter)
        end = executor.store.perceived_until(before_time)
        if end is None or end <= 0:
            return "I have recorded nothing yet.", executor.run(frame, before_time)
        a, b = mss(min(60.0, end)), mss(max(0.0, end - 60))
        ask = replace(ask, a=Condition(f"in the first minute (before {a})", to=a),
                      b=Condition(f"in the last minute (after {b})", from_=b))
    results, stopped = run_each(executor, [replace(frame, place=c.place, from_=c.from_, to=c.to)
                                           for c in (ask.a, ask.b)], before_time)
    if stopped is not None:
        return stopped
    ra, rb = results
    ids = [{p.character_id for p in r.people if p.spoke > 0} for r in results]
    both = sorted((ids[0] - ids[1]) if ask.negated else (ids[0] & ids[1]),
                  key=lambda c: min(e.start for p in ra.people if p.character_id == c for e in p.events))
    merged = combined(results, "both conditions")
    merged.value = both
    # (the two frames' places and times together, so the answer's check reads both conditions' times)
    merged.query = replace(ra.query, place=ask.a.place or ask.b.place, from_=ask.a.from_ or ask.b.from_,
                           to=ask.a.to or ask.b.to)
    cond = f"{ask.a.words} but not {ask.b.words}" if ask.negated else f"both {ask.a.words} and {ask.b.words}"
    yes_no = bool(YES_NO_QUESTION.match(question))
    if who is not None:
        d = ra.describe[ra.who["who"].character_id]  # type: ignore[index]
        text = f"{'Yes' if both else 'No'}, {d} {'spoke' if both else 'did not speak'} {cond}." if yes_no else \
            f"{cap(d)} {'spoke' if both else 'did not speak'} {cond}."
    elif not both:
        text = f"{'No, n' if yes_no else 'N'}obody spoke {cond}."
    elif re.match(r"^\W*how\s+many\b", question, re.IGNORECASE):
        merged.value = len(both)
        text = cap(f"{len(both)}: {join([ra.describe[c] for c in both])} spoke {cond}.")
    else:
        text = f"{'Yes, ' if yes_no else ''}{join([ra.describe[c] for c in both])} spoke {cond}."
        text = cap(text)
    problems = check(text, merged)
    if ask.negated:     # ("the first 20 seconds": the window's length, no count the result holds)
        problems = [p for p in problems if not p.startswith("count not in the result")]
    return (REFUSAL if problems else text), merged
