"""Silences between turns: "how long was the longest pause?", "when was the longest silence?", "did nobody speak for
more than ten seconds?", "was there a silence of over 5 seconds?".

No frame field measures the time between one turn and the next, so one frame selects everyone's voice turns in the
question's window and place (the model's frame keeps those) and code walks them in order: each silence runs from the
end of one person's detected speech to the start of the next. The silence before the first words and after the last
ones are not between turns and are not counted. The answer names the two turns each silence lies between (their
times), checked against that result like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .execute import QueryExecutor
from .frame import Query, voice_turns
from .phrase import REFUSAL, _cap, check, phrase
from .polarity import YES_NO_QUESTION
from .quiet import stretches_without_speech
from .repair import time_of
from .result import QueryResult
from .wording import CLOCK
from .words import AMOUNT, ordinal_word, seconds_word, tenths

_NO_ONE = r"(?:nobody|no\s*-?\s*one|no\s+body)"
_NOBODY = rf"(?:with\s+{_NO_ONE}\s+(?:speaking|talking)|without\s+(?:any\s+)?(?:speech|talking|speaking|anyone\s+" \
          rf"(?:speaking|talking)|a\s+word)|of\s+(?:silence|quiet)|when\s+{_NO_ONE}\s+(?:spoke|talked|was\s+" \
          r"(?:speaking|talking)))"
# "the longest silence", "the longest stretch with nobody speaking", "the longest period without speech"
_QUIET = r"(?:silences?|pauses?|gaps?|breaks?|quiet\s+(?:periods?|stretch(?:es)?|spells?|moments?|times?)|lulls?|" \
         rf"(?:stretch(?:es)?|periods?|spells?|spans?|intervals?|times?|moments?)\s+(?:of\s+time\s+)?{_NOBODY})"
_LONGEST = re.compile(r"\b(?:(?P<nth>second|third|fourth|2nd|3rd|4th)[\s-]+)?(?P<which>longest|biggest|largest|"
                      rf"greatest|longer|shortest|smallest|briefest)\s+{_QUIET}\b",
                      re.IGNORECASE)
_LONGER = r"(?:more\s+than|longer\s+than|over|at\s+least)"
_OVER = re.compile(rf"\b(?:nobody|no\s*one|no\s+body|(?:n[o']t|never)\s+(?:anyone|anybody))\s+(?:spoke|speak|talked|"
                   rf"talk|said\s+anything|say\s+anything|was\s+(?:speaking|talking))\s+for\s+{_LONGER}\s+(?P<a>{AMOUNT})|"
                   rf"\b{_QUIET}\s+(?:of\s+|that\s+lasted\s+|lasting\s+)?{_LONGER}\s+(?P<b>{AMOUNT})|"
                   # "did the silence ever last more than 10 seconds?"
                   rf"\b{_QUIET}\s+(?:ever\s+)?(?:last|lasted|go\s+on|went\s+on|run|ran|stretch|stretched)\s+(?:for\s+)?"
                   rf"{_LONGER}\s+(?P<c>{AMOUNT})", re.IGNORECASE)
# "was every silence shorter than ten seconds?", "were all the pauses under 5 seconds?": no silence longer than that
_EVERY_UNDER = re.compile(rf"\b(?:every|each|all(?:\s+(?:of\s+)?the)?)\s+{_QUIET}\s+(?:between\s+turns\s+)?"
                          rf"(?:were\s+|was\s+)?(?:shorter|less|under|briefer|below)\s+(?:than\s+)?(?P<a>{AMOUNT})",
                          re.IGNORECASE)
# "whose turn came just before the first silence longer than three seconds?", "who spoke last before the first pause
# of more than 3 s?": the first silence over that length, and the turns either side of it
_FIRST_OVER = re.compile(rf"\b(?:the\s+)?(?:very\s+)?first\s+{_QUIET}\s+(?:of\s+|that\s+lasted\s+|lasting\s+)?"
                         rf"{_LONGER}\s+(?P<a>{AMOUNT})", re.IGNORECASE)


# "was there a whole minute without any speech?", "was there any full minute with no one speaking?", "did nobody
# speak for a full minute?", "was it silent for an entire minute?"
_SPAN = r"(?:whole|full|entire|complete|single|straight)\s+minute"
_WHOLE_MINUTE = re.compile(rf"\b(?:an?|any|one)\s+{_SPAN}\s+(?:long\s+)?(?:{_NOBODY}|(?:in\s+which|where|when|during\s+"
                           rf"which)\s+{_NO_ONE}\s+(?:spoke|talked|said\s+anything|was\s+(?:speaking|talking))|"
                           rf"(?:that\s+was\s+|which\s+was\s+)?(?:silent|quiet))|"
                           rf"\b(?:silent|quiet|{_NO_ONE}\s+(?:spoke|speak|talked|talk|speaking|talking|said\s+anything)|(?:n[o']t|never)\s+"
                           rf"(?:anyone|anybody)\s+(?:spoke|speak|talked|talk))\s+for\s+(?:an?|one)\s+{_SPAN}\b|"
                           r"\b(?:a|any)\s+minute[\s-]+long\s+(?:silence|pause|gap|quiet)\b", re.IGNORECASE)


@dataclass(frozen=True)
class SilenceAsk:
    said: str                        # the question's words for it (taken out of what the frame's checks read)
    over_s: float | None = None      # "longer than N seconds": whether any silence was (None: the longest one)
    when: bool = False               # "when was the longest silence?": its time, not its length
    shortest: bool = False           # "the shortest pause": the least time between two turns
    whole_minute: bool = False       # a minute with no speech anywhere in the recording, its two ends included
    nth: int = 1                     # "the second-longest silence": the n-th in that order
    first: bool = False              # "the first silence longer than 3 s": the earliest over ``over_s``
    every_under: bool = False        # "was every silence shorter than N?": yes where none was longer (over_s: N)


def asks_silence(question: str) -> SilenceAsk | None:
    """The silence a question asks about, or None."""
    m = _WHOLE_MINUTE.search(question)
    if m is not None:
        return SilenceAsk(m.group(0), over_s=60.0, whole_minute=True)
    m = _FIRST_OVER.search(question)
    if m is not None:
        seconds = time_of(m.group("a"))
        return SilenceAsk(m.group(0), over_s=seconds, first=True) if seconds is not None else None
    m = _EVERY_UNDER.search(question)
    if m is not None:
        seconds = time_of(m.group("a"))
        return SilenceAsk(m.group(0), over_s=seconds, every_under=True) if seconds is not None else None
    m = _OVER.search(question)
    if m is not None:
        seconds = time_of(m.group("a") or m.group("b") or m.group("c"))
        return SilenceAsk(m.group(0), over_s=seconds) if seconds is not None else None
    m = _LONGEST.search(question)
    if m is None:
        return None
    when = bool(re.match(r"^\W*(?:when|(?:at\s+)?what\s+time)\b", question, re.IGNORECASE))
    shortest = m.group("which").lower() in ("shortest", "smallest", "briefest")
    nth = {"second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}.get((m.group("nth") or "").lower(), 1)
    return SilenceAsk(m.group(0), when=when, shortest=shortest, nth=nth)


def _over_said(d: float, limit: float) -> str:
    """A silence over ``limit`` in whole seconds, or in tenths where whole seconds would read as the limit ("3.3
    seconds", not "3 seconds", of one longer than 3)."""
    return seconds_word(tenths(d) if int(round(d)) <= limit else int(round(d)))


def check_question(question: str, ask: SilenceAsk) -> str:
    """The question as the frame's checks read it: without the silence (this plan measures it)."""
    return question.replace(ask.said, " ")


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's window and place."""
    return voice_turns(q, at=None)


def answer(executor: QueryExecutor, q: Query, ask: SilenceAsk, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    """(the answer, everyone's turns in the scope, the turns around the silences it names first: provenance)."""
    if ask.whole_minute and not CLOCK.search(question):   # "a full minute" is a length, not 0:00-1:00
        q = replace(q, from_=None, to=None)
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    where = f" in the {q.place}" if q.place else ""
    if ask.whole_minute:
        return _whole_minute(executor, res, where, before_time)
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.end, e.id))
    gaps = []
    reach = None      # the latest end so far: overlapping turns leave no silence between them
    for a, b in zip(turns, turns[1:], strict=False):
        reach = a.end if reach is None else max(reach, a.end)
        if b.start > reach:
            gaps.append((b.start - reach, reach, a, b))
    res.steps.append({"step": "silences between turns", "turns": len(turns), "silences": len(gaps)})
    if len(turns) < 2:
        return f"I heard {'nobody' if not turns else 'only one turn'}{where}: no silence between turns.", res
    yes_no = bool(YES_NO_QUESTION.match(question))
    if ask.over_s is not None:
        over = [g for g in gaps if g[0] > ask.over_s]
        limit = seconds_word(int(round(ask.over_s)))
        if ask.first:
            return _first_over(res, over, limit, where, question, ask)
        if not over:
            longest = max(gaps, default=None, key=lambda g: g[0])
            most = f" (the longest was {seconds_word(int(round(longest[0])))})" if longest else ""
            if ask.every_under:
                return f"Yes, every silence between turns{where} was shorter than {limit}{most}.", res
            return f"No, no silence between turns{where} lasted more than {limit}{most}.", res
        if ask.every_under:      # ("was every silence shorter than N?": no, these were not)
            res.value = (len(over), int(round(ask.over_s)), *(int(round(g[0])) for g in over))
            said = "; ".join(f"{_over_said(d, ask.over_s)} from {res.say(t)} to {res.say(b.start)}"
                             for d, t, _, b in over)
            res.events = [e for g in over for e in g[2:]] + [e for e in res.events if all(e not in g[2:] for g in over)]
            text = f"No: {len(over)} silence{'s' if len(over) > 1 else ''} between turns{where} lasted more than " \
                f"{limit}: {said}."
            return (REFUSAL if check(text, res) else text), res
        said = "; ".join(f"{_over_said(d, ask.over_s)} from {res.say(t)} to {res.say(b.start)}"
                         for d, t, _, b in over)
        res.events = [e for g in over for e in g[2:]] + [e for e in res.events if all(e not in g[2:] for g in over)]
        res.value = (len(over), int(round(ask.over_s)), *(int(round(g[0])) for g in over))
        text = f"{'Yes, ' if yes_no else ''}{len(over)} silence{'s' if len(over) > 1 else ''} between turns{where} " \
            f"lasted more than {limit}: {said}."
        return (REFUSAL if check(_cap(text), res) else _cap(text)), res
    if not gaps:
        return f"No silence between turns{where}: every turn began before the one before it ended.", res
    ranked = sorted(gaps, key=lambda g: g[0], reverse=not ask.shortest)
    which = "shortest" if ask.shortest else "longest"
    if ask.nth > len(ranked):
        res.value = len(ranked)
        return f"I heard only {len(ranked)} silence{'s' if len(ranked) != 1 else ''} between turns{where}: there " \
               f"is no {ordinal_word(ask.nth)}-{which}.", res
    d, t, a, b = ranked[ask.nth - 1]
    res.value = int(round(d))
    res.events = [a, b] + [e for e in res.events if e not in (a, b)]
    res.picked = _side(question, ask, a, b)
    span = f"from {res.say(t)}, after {res.describe[a.character_id]} spoke, to {res.say(b.start)}, when " \
        f"{res.describe[b.character_id]} spoke"
    if ask.nth > 1:      # (the longest said beside it, so the order can be checked)
        top = ranked[0]
        res.seconds = {**res.seconds, -1: int(round(top[0]))}
        which = f"{ordinal_word(ask.nth)}-{which}"
        span += f" (the longest was {seconds_word(int(round(top[0])))}, from {res.say(top[1])} to " \
            f"{res.say(top[3].start)})"
        res.events += [top[2], top[3]]
    length = f"{d:.1f} seconds" if d < 1.5 else seconds_word(int(round(d)))
    text = f"The {which} silence between turns{where} was {length}: {span}." if not ask.when \
        else f"The {which} silence between turns{where} was {span} ({length})."
    if re.search(r"\bsame\s+(?:person|speaker|one|voice)\b", question, re.IGNORECASE):
        # "did the same person speak right before and right after the longest silence?": yes or no, then the silence
        same = a.character_id == b.character_id
        text = f"{'Yes' if same else 'No'}: " + text[0].lower() + text[1:]
    if re.match(r"^\W*what\b", question, re.IGNORECASE):   # "what was said right before the longest silence?"
        text += f' Before it: "{a.text.strip().rstrip(".!?")}"; after it: "{b.text.strip().rstrip(".!?")}".'
    problems = [p for p in check(text, res) if not (d < 1.5 and p.startswith("count not in the result"))]
    return (REFUSAL if problems else text), res


def _side(question: str, ask: SilenceAsk, a: object, b: object) -> list:
    """The turn of the two around a silence the question asks about: "who spoke first after the longest silence?"
    the one that ended it, "... last before it?" the one it followed; both where it names neither side."""
    m = re.search(r"\b(?P<w>before|after|following|preceding|ended|broke|began|started)\s+(?:the\s+)?(?:very\s+)?$",
                  question[:question.find(ask.said)], re.IGNORECASE)
    if m is None:
        return [a, b]
    return [a] if m.group("w").lower() in ("before", "preceding", "began", "started") else [b]


def _first_over(res: QueryResult, over: list, limit: str, where: str, question: str,
                ask: SilenceAsk) -> tuple[str, QueryResult]:
    """"The first silence longer than 3 seconds was 3.3 seconds, from 00:03, after A spoke ("..."), to 00:07, when B
    spoke ("...")."."""
    if not over:
        return f"No silence between turns{where} lasted more than {limit}.", res
    d, t, a, b = over[0]
    res.value = (int(round(d)), len(over))
    res.events = [a, b] + [e for e in res.events if e not in (a, b)]
    res.picked = _side(question, ask, a, b)
    length = f"{d:.1f} seconds" if d < 10 else seconds_word(int(round(d)))
    text = f"The first silence between turns{where} longer than {limit} was {length}: from {res.say(t)}, after " \
        f"{res.describe[a.character_id]} spoke (\"{a.text.strip().rstrip('.!?')}\", from {res.say(a.start)}), to " \
        f"{res.say(b.start)}, when {res.describe[b.character_id]} spoke (\"{b.text.strip().rstrip('.!?')}\")."
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else _cap(text)), res


def _whole_minute(executor: QueryExecutor, res: QueryResult, where: str,
                  before_time: float | None) -> tuple[str, QueryResult]:
    """Whether a minute or more passed with no detected speech in the scope: between two turns, before the first
    words (from the start of the recording or the window) or after the last ones (to the last input the memory
    holds, or the window's end); words begun before a window and still going in it count in it."""
    lo, hi = res.read(res.query.from_), res.read(res.query.to)
    everyone = executor.run(replace(prepare(res.query), from_=None, to=None), before_time)
    end = executor.store.perceived_until(before_time) or max((e.end for e in everyone.events), default=0.0)
    end = min(end, hi) if hi is not None else end
    start = lo or 0.0
    res.query = replace(res.query, to=f"{end:.1f}")   # (the scope the answer covers ends there: its clock is known)
    turns = sorted((e for e in everyone.events if e.kind == "voice" and e.end > start and e.start < end),
                   key=lambda e: (e.start, e.end))
    res.events = turns + [e for e in res.events if e not in turns]
    res.describe = {**everyone.describe, **res.describe}
    spans = [(b - a, a, b) for a, b in stretches_without_speech(turns, start, end, 0.0)]
    window = f" between {res.say(start)} and {res.say(end)}" if lo is not None or hi is not None else ""
    if not spans:
        return f"No, someone was speaking all the time{where}{window}.", res
    long = [x for x in spans if x[0] >= 59.5]
    if long:
        said = "; ".join(f"from {res.say(a)} to {res.say(b)} ({seconds_word(int(round(d)))})" for d, a, b in long)
        res.value = tuple(int(round(d)) for d, _, _ in long)
        text = f"Yes, nobody spoke{where} for a minute or more: {said}."
    else:
        d, a, b = max(spans)
        res.value = (int(round(d)), int(round(end - start)))
        scope = window or (f" (I recorded {seconds_word(int(round(end)))} in all)" if end < 60 else "")
        text = f"No, there was no whole minute without speech{where}{scope}: the longest stretch with nobody " \
            f"speaking was {seconds_word(int(round(d)))}, from {res.say(a)} to {res.say(b)}."
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else text), res
