""""Was B quiet in the workshop?", "did A stay silent before 0:30?", "has C kept quiet since I arrived?": whether one
person never spoke in the question's place and window; "was it quiet at 0:33?", "was there silence between 0:20 and
0:30?", "was nobody talking in the office?": whether anyone did (the answer is the other way round from "was anyone
speaking at 0:33?": yes when nobody spoke). The quiet word is no quote and nobody's words (a small model
wrote ``other="quiet"`` and the answer was "I don't remember anyone saying 'quiet'"), and a person seen is no person
heard: code counts the person's voice turns in the frame's scope.
"""

from __future__ import annotations

import re
from dataclasses import replace

from m3_memory.people import Turn

from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query, voice_turns
from .phrase import REFUSAL, _join, check, conditions, phrase
from .result import QueryResult
from .turn_forms import near_hint
from .wording import CLOCK
from .words import times_word

_QUIET = re.compile(r"^\W*(?:was|were|is|did|has|had|does)\s+(?!there\b)(?P<who>[^?]*?)\s+(?:(?:stay|stayed|remain|"
                    r"remained|keep|kept|been|be|go|went|fall|fell)\s+)?(?P<word>quiet|silent|mute|speechless)\b"
                    r"(?!\s+(?:period|stretch|spell|moment|time|minute|second|pause|part|room|place))", re.IGNORECASE)


# nobody named: "was it quiet at 0:33?", "was the office silent?", "was there silence after 1:00?", "did nobody speak
# between 0:20 and 0:30?" (a pause longer than some seconds is the silences plan's)
_HUSH = re.compile(r"^\W*(?:was|is|were|are)\s+(?:it|everything|all|everyone|everybody|"
                   r"(?P<place>the\s+\w+(?:\s+room)?))\s+"
                   r"(?:(?:completely|totally|all|still)\s+)?(?:quiet|silent|hushed)\b|"
                   r"^\W*(?:was|is)\s+there\s+(?:any\s+|a\s+(?:moment\s+of\s+)?)?(?:silence|quiet)\b|"
                   r"^\W*(?:was|were|is)\s+(?:nobody|no\s+one|no-one)\s+(?:speaking|talking|saying)\b|"
                   r"^\W*did\s+(?:nobody|no\s+one|no-one)\s+(?:speak|talk|say)\b", re.IGNORECASE)
_LONGER = re.compile(r"\b(?:longer|more\s+than|over|at\s+least|seconds?\s+long|long)\b", re.IGNORECASE)
# "was there any silence between 0:40 and 0:45?", "was there a pause ...": whether nobody spoke for a while somewhere
# in the window, not all through it
_ANY_PAUSE = re.compile(r"^\W*(?:was|is)\s+there\s+(?:any|a|some)\s+(?:(?:moment|period|stretch|spell)\s+of\s+)?"
                        r"(?:silence|quiet|pause|gap|break|lull)\b", re.IGNORECASE)
PAUSE_MIN_S = 1.0     # a shorter stretch without detected speech is the breath between words, not a silence


def asks_hush(question: str) -> bool:
    """Whether the question asks whether nobody spoke (at a moment, in a window or place), naming nobody."""
    # (a pause, gap or break only over a window of two clocks: "was there a gap between Ann's turns?" is no hush)
    pause = _ANY_PAUSE.search(question) is not None and len(CLOCK.findall(question)) >= 2
    return bool(_HUSH.search(question) or pause) and not quotes_of(question) and not _LONGER.search(question)


def hush_question(question: str) -> str:
    """The question as its checks read it: whether anyone spoke then ("was anyone speaking at 0:33?")."""
    m = _HUSH.search(question) or _ANY_PAUSE.search(question)
    if m is None:
        return question
    place = m.groupdict().get("place") or ""
    if re.fullmatch(r"the\s+(?:room|house|home|place|area|space|building|scene|world|robot)", place, re.IGNORECASE):
        place = ""      # "was the room quiet at 0:33?": wherever the robot was
    rest = re.sub(r"^\s*in\s+(?:the\s+)?(?:talking|conversation|speech|speaking|talk)\b", "", question[m.end():],
                  flags=re.IGNORECASE)    # "was there any break in the talking ...?": no place
    return "Was anyone speaking" + (f" in {place}" if place else "") + rest


def asks_pause(question: str) -> bool:
    """Whether the question asks for some silence in its window ("was there any pause ...?"), not all through it."""
    return bool(_ANY_PAUSE.search(question))


def answer_hush(executor: QueryExecutor, q: Query, before_time: float | None,
                pause: bool = False) -> tuple[str, QueryResult]:
    """Yes when nobody spoke in the frame's scope (the nearest words said), else no with who spoke and when. With
    ``pause`` and a window both ends of which are given (and no place): yes when nobody spoke for ``PAUSE_MIN_S`` or
    more somewhere in it, with those stretches."""
    everyone = replace(prepare(q), who=None)      # everyone's voice turns in the frame's scope
    res = executor.run(everyone, before_time)
    if res.status != "ok":
        return phrase(res), res
    scope = conditions(res) or " at any time"
    turns = [e for e in res.events if e.kind == "voice"]
    t1, t2 = res.read(q.from_), res.read(q.to)
    if q.at is None and (t1 is not None or t2 is not None):
        # "was it quiet between 0:12 and 0:14?": words begun before the window and still going in it break the quiet
        # too (a window selects the turns begun in it)
        whole = executor.run(replace(everyone, from_=None, to=None), before_time)
        lo, hi = t1 if t1 is not None else float("-inf"), t2 if t2 is not None else float("inf")
        turns = [e for e in whole.events if e.kind == "voice" and e.end > lo and e.start < hi]
        res.events = turns + [e for e in res.events if e not in turns]
        res.describe = {**whole.describe, **res.describe}
    res.value = len(turns)
    if pause and t1 is not None and t2 is not None and q.at is None and not q.place and turns:
        return _pauses(res, turns, min(t1, t2), max(t1, t2), scope)
    if not turns:
        return f"Yes, nobody spoke{scope}{near_hint(res)}.", res
    people = list(dict.fromkeys(e.character_id for e in turns))
    who = _join([res.describe[c] for c in people])
    at = res.read(q.at) if q.at else None
    if at is not None:     # "no, A was speaking at 0:36 (from 00:35 to 00:36)"
        spans = _join([f"from {res.say(e.start)} to {res.say(e.end)}" for e in turns])
        near = all(e.end < at or e.start > at for e in turns)   # detected speech just before or after the moment
        text = f"No, {who} {'was' if len(people) == 1 else 'were'} speaking{scope} ({spans}" \
               f"{', within a second of it' if near else ''})."
    else:
        text = f"No, {who} spoke{scope}: at {_join([res.say(e.start) for e in turns[:8]])}" \
               f"{' (and later)' if len(turns) > 8 else ''}."
    return (REFUSAL if check(text, res) else text), res


def _pauses(res: QueryResult, turns: list[Turn], lo: float, hi: float, scope: str) -> tuple[str, QueryResult]:
    """The stretches of the window ``lo``..``hi`` nobody's detected speech covers, ``PAUSE_MIN_S`` or longer."""
    gaps = stretches_without_speech(turns, lo, hi, PAUSE_MIN_S)
    if gaps:
        text = f"Yes, nobody spoke {_join([f'from {res.say(a)} to {res.say(b)}' for a, b in gaps])}."
    else:
        people = _join([res.describe[c] for c in dict.fromkeys(e.character_id for e in turns)])
        text = f"No, there was no silence of a second or more{scope}: {people} spoke " \
               f"{_join([f'from {res.say(e.start)} to {res.say(e.end)}' for e in turns])}."
    return (REFUSAL if check(text, res) else text), res


def stretches_without_speech(turns: list, lo: float, hi: float, min_s: float) -> list[tuple[float, float]]:
    """(start, end) of each stretch of ``lo``..``hi`` that no turn covers, ``min_s`` or longer (> 0): overlapping
    turns leave none between them, and a turn begun before ``lo`` covers the window up to its end."""
    gaps, cursor = [], lo
    for e in sorted(turns, key=lambda e: e.start):
        if e.start - cursor >= min_s and e.start > cursor:
            gaps.append((cursor, e.start))
        cursor = max(cursor, e.end)
    if hi - cursor >= min_s and hi > cursor:
        gaps.append((cursor, hi))
    return gaps


def asks_quiet(question: str) -> str | None:
    """The question's quiet word when it asks whether one named person stayed quiet, else None."""
    m = _QUIET.search(question)
    if m is None:
        return None
    quoted = quotes_of(question)
    # one person: by their words, or by a name ("was Ann quiet ...?"; not "was the kitchen quiet?")
    if len(quoted) == 1 or (not quoted and re.fullmatch(r"[A-Z][a-z]+", m.group("who").strip())):
        return m.group("word")
    return None


def check_question(question: str, word: str) -> str:
    return re.sub(rf"\b{word}\b", " ", question, count=1)


def prepare(q: Query) -> Query:
    """The person's voice turns in the frame's place and window."""
    return voice_turns(q, person=True)


def answer(executor: QueryExecutor, q: Query, question: str, before_time: float | None) -> tuple[str, QueryResult]:
    quoted = quotes_of(question)
    ref = quoted[0] if quoted else q.who
    if not ref:
        return REFUSAL, executor.run(prepare(q), before_time)
    res = executor.run(replace(prepare(q), who=ref), before_time)
    if res.status != "ok":
        return phrase(res), res
    who = res.describe[res.who["who"].character_id]
    scope = f" in the {q.place}" if q.place else ""
    t1, t2 = res.read(q.from_), res.read(q.to)
    if t1 is not None:
        scope += f" after {res.say(t1)}"
    if t2 is not None:
        scope += f" before {res.say(t2)}"
    turns = [e for e in res.events if e.kind == "voice"]
    res.value = len(turns)
    if not turns:
        return f"Yes, {who} never spoke{scope}.", res
    text = f"No, {who} spoke {times_word(len(turns))}{scope}: at {_join([res.say(e.start) for e in turns])}."
    return (REFUSAL if check(text, res) else text), res
