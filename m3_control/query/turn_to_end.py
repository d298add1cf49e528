"""The time from one person's turn to the end of what was heard: "how many seconds were there between A's last turn
and the end of what I heard?", "how long from B's first words until the end of the conversation?", "how long after A's
last turn did the recording end?", "how long before the end did A last speak?".

The end is the end of the last words heard (in the frame's place, if it names one): the answer says so, with whose
words they were, so "the end of the recording" is answered by what memory holds of it and says which end it used. The
time is said from the end of the person's turn and from its start, with the turns that came after it; a turn that
was itself the last words is said to be.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, check, conditions, phrase
from .result import QueryResult
from .turn_order import _ORD, turn_rank
from .turn_order import _SIDE as _TURN_SIDE
from .turn_sequence import people_in
from .wording import QUOTED
from .words import cap, ordinal_word, seconds_word, spoke_times, tenths

_WHO = r"(?:the\s+person\s+who\s+said\s+)?(?:QUOTED|[A-Z][a-z]+)"
# "A's last turn", "the first words of A" (turn_order's two people's sides, one of them here)
_SIDE = _TURN_SIDE.format(n="n", o=_ORD) + r"(?:\s+(?:turn|words|sentence|remark|time)s?)?"
# "the end of what I heard", "the end of the conversation", "the very end", "the end of the recording"
_END = r"the\s+(?:very\s+)?end\b(?:\s+of\s+(?:what\s+I\s+heard|(?:the|all\s+the)\s+[a-z]+|everything|it\s+all))?"
_TO_END = re.compile(rf"\b(?:how\s+long|how\s+much\s+time|how\s+many\s+seconds|what\s+was\s+the\s+(?:gap|time))\b"
                     rf"[^?]*?\b(?:between|from)\s+{_SIDE}\s+(?:and|to|until|till)\s+{_END}", re.IGNORECASE)

# "how long after A's last turn did the recording end?"
_AFTER_TURN = re.compile(rf"\bhow\s+(?:long|much\s+time|many\s+seconds)\s+after\s+{_SIDE}\s+did\s+(?:the\s+)?"
                         r"(?:recording|conversation|talk(?:ing)?|what\s+I\s+heard|everything|it\s+all)\s+(?:end|stop|"
                         r"finish|come\s+to\s+an\s+end)\b", re.IGNORECASE)
# "how long before the end did A last speak?", "how many seconds before the end of what I heard did A speak for the
# last time?"
_BEFORE_END = re.compile(rf"\bhow\s+(?:long|much\s+time|many\s+seconds)\s+before\s+{_END}\s+did\s+{_WHO}\s+"
                         rf"(?:(?P<l>last|first)\s+)?(?:speak|talk|say\s+(?:something|anything))(?:\s+for\s+the\s+"
                         rf"(?P<l2>last|final|first|{_ORD})\s+time)?\b", re.IGNORECASE)


# "how many seconds passed between the last turn and the end of the recording?", "how long after the last words did
# the recording end?", "how long was the silence at the end of the recording?": the last words to the recording's end
# (the last input the memory holds), everyone's
_LAST = r"the\s+(?:very\s+)?(?:last|final)\s+(?:turn|words|thing\s+(?:said|I\s+heard)|sentence|utterance|remark|" \
    r"speech)(?:\s+(?:anyone\s+said|I\s+heard))?"
_RECORDING = r"(?:recording|video|session|input)"
_TAIL = re.compile(rf"\b(?:how\s+long|how\s+much\s+time|how\s+many\s+seconds|what\s+was\s+the\s+(?:gap|time))\b"
                   rf"[^?]*?\b(?:(?:between|from)\s+{_LAST}\s+(?:and|to|until|till)\s+the\s+(?:very\s+)?end\s+of\s+"
                   rf"the\s+{_RECORDING}|after\s+{_LAST}\s+(?:did\s+the\s+{_RECORDING}\s+(?:end|stop|finish)|until\s+"
                   rf"the\s+{_RECORDING}\s+(?:ended|stopped|finished))|(?:silence|quiet|pause)\s+at\s+the\s+(?:very\s+)?"
                   rf"end\s+of\s+the\s+{_RECORDING})|"
                   # "how much silence was there at the end of the recording?", "how many seconds of quiet ended it?"
                   rf"\bhow\s+(?:much|many\s+seconds\s+of)\s+(?:silence|quiet)\b[^?]*?\b(?:at|before)\s+the\s+(?:very\s+)?"
                   rf"end\s+of\s+the\s+{_RECORDING}", re.IGNORECASE)


@dataclass(frozen=True)
class ToEndAsk:
    person: str | None     # None: everyone's last words to the end of the recording
    nth: int      # 1-based; -1 the last


def asks_to_end(question: str) -> ToEndAsk | None:
    marked = QUOTED.sub(" QUOTED ", question)
    if _TAIL.search(marked) and not people_in(question):
        return ToEndAsk(None, -1)
    m = _TO_END.search(marked) or _AFTER_TURN.search(marked) or _BEFORE_END.search(marked)
    if m is None or len(people := people_in(question)) != 1:
        return None
    n = (m.group("l") or m.group("l2") or "last" if m.re is _BEFORE_END else m.group("n") or m.group("n2")).lower()
    nth = turn_rank(n)
    return ToEndAsk(people[0], nth) if nth else None


def prepare(q: Query) -> Query:
    """Every voice turn in the frame's place (the window the model wrote is not the question's: none is asked)."""
    return Query(find="who", act="spoke", place=q.place)


def answer(executor: QueryExecutor, q: Query, ask: ToEndAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    if ask.person is None:
        return _tail(executor, res, before_time)
    own = executor.run(replace(prepare(q), who=ask.person), before_time)
    if own.status != "ok" or "who" not in own.who:
        return phrase(own), own
    cid = own.who["who"].character_id
    res.who["who"] = own.who["who"]
    res.describe.update(own.describe)
    d = res.describe[cid]  # type: ignore[index]
    cond = conditions(res)
    heard = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    mine = [e for e in heard if e.character_id == cid]
    which = "last" if ask.nth == -1 else ordinal_word(ask.nth)
    if not mine or ask.nth > len(mine):
        res.status = "empty"
        return f"{cap(d)} {spoke_times(len(mine))}{cond}: there was no {which} turn.", res
    turn = mine[ask.nth - 1] if ask.nth > 0 else mine[-1]
    last = max(heard, key=lambda e: (e.end, e.start))
    res.events = sorted({turn, last}, key=lambda e: (e.start, e.id))
    res.steps.append({"step": "to the end of the last words", "turn": turn.id, "last": last.id, "end": last.end})
    if last.id == turn.id or last.end <= turn.end:
        res.value = 0
        text = (f"{cap(d)}'s {which} turn ({res.say(turn.start)} to {res.say(turn.end)}) was the last thing I heard"
                f"{cond}: nothing was said after it.")
        return (REFUSAL if check(text, res) else text), res
    after = [e for e in heard if e.start >= turn.end and e.id != turn.id]
    quiet, whole = int(round(last.end - turn.end)), int(round(last.end - turn.start))
    res.value = quiet
    text = (f"{seconds_word(quiet).capitalize()} from the end of {d}'s {which} turn ({res.say(turn.start)} to "
            f"{res.say(turn.end)}) to the end of the last words I heard{cond} ({res.describe[last.character_id]}, "
            f"{res.say(last.start)} to {res.say(last.end)}); {seconds_word(whole)} from the start of that turn, with "
            f"{len(after)} turn{'s' if len(after) != 1 else ''} after it.")
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else cap(text)), res


def _tail(executor: QueryExecutor, res: QueryResult, before_time: float | None) -> tuple[str, QueryResult]:
    """The time from the end of the last words heard to the end of the recording: "2.1 seconds: the last words I heard
    (A, 01:12 to 01:14) ended 2.1 seconds before the end of the recording (01:16, the last input I hold)."."""
    heard = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.end, e.start))
    end = executor.store.perceived_until(before_time)
    cond = conditions(res)
    if not heard or end is None:
        return f"I heard nobody speak{cond}.", res
    last = heard[-1]
    gap = max(0.0, end - last.end)
    res.events = [last] + [e for e in res.events if e is not last]
    res.value = int(round(gap))
    res.seconds = {**res.seconds, -1: tenths(gap)}
    res.near = []
    said = seconds_word(tenths(gap)) if gap < 10 else seconds_word(int(round(gap)))
    text = (f"{cap(said)}: the last words I heard{cond} ({res.describe[last.character_id]}, {res.say(last.start)} to "
            f"{res.say(last.end)}) ended {said} before the end of the recording ({res.say(end)}, the last input I "
            f"hold).")
    problems = [p for p in check(text, res) if not p.startswith(("count not in the result", "time not in the result"))]
    return (REFUSAL if problems else text), res
