"""The moment someone first spoke again, as the end of a window: "did C speak before anyone had spoken twice?", "did C
speak before anybody had taken a second turn?", "who spoke before anyone had spoken a second time?", "how many people
spoke before anyone spoke twice?".

The moment is the earliest second turn of anyone's (its person and time said). One frame selects everyone's voice
turns; the answer names who spoke (first) before that moment, or whether the named person did, with the times it
rests on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query
from .named_ids import named_ids
from .phrase import REFUSAL, _cap, _join, check, phrase
from .polarity import YES_NO_QUESTION
from .result import QueryResult

_REPEAT = re.compile(r"\bbefore\s+(?:anyone|anybody|someone|somebody|any\s+(?:one|person|speaker)|a\s+single\s+person)"
                     r"\s+(?:else\s+)?(?:had\s+|has\s+)?(?:spoke|spoken|talked|speaks|said\s+something)\s+(?:twice|two\s+"
                     r"times|a\s+second\s+time|again)\b|\bbefore\s+(?:anyone|anybody|someone|somebody|any\s+(?:one|"
                     r"person|speaker))\s+(?:else\s+)?(?:had\s+|has\s+)?(?:taken|took|takes|had)\s+(?:a|their|his|her)\s+"
                     r"second\s+turn\b|\bbefore\s+(?:the\s+)?(?:first|very\s+first)\s+(?:repeat|repeated\s+speaker|"
                     r"second\s+turn)\b", re.IGNORECASE)


@dataclass(frozen=True)
class FirstRepeatAsk:
    who: str | None       # the person asked about (None: everyone before the moment)
    said: str             # the question's words for the moment


def asks_first_repeat(question: str) -> FirstRepeatAsk | None:
    m = _REPEAT.search(question)
    if m is None:
        return None
    quoted = quotes_of(question)
    if len(quoted) > 1:
        return None
    name = re.match(r"^\W*(?:did|was|had|has)\s+(?!(?:I|The|Anyone|Anybody|Someone|Somebody)\b)([A-Z][a-z]+)\b",
                    question)
    return FirstRepeatAsk(quoted[0] if quoted else name.group(1) if name else None, m.group(0))


def prepare(q: Query) -> Query:
    """Everyone's voice turns (the window ends at the moment this plan finds)."""
    return Query(find="who", act="spoke")


def answer(executor: QueryExecutor, q: Query, ask: FirstRepeatAsk, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    base = prepare(q)
    res = executor.run(base, before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    second = []
    for c in dict.fromkeys(e.character_id for e in turns):
        mine = [e for e in turns if e.character_id == c]
        if len(mine) > 1:
            second.append(mine[1])
    subject = None
    if ask.who is not None:
        ids = named_ids(executor, base, [ask.who], res, before_time)
        if isinstance(ids, QueryResult):
            return phrase(ids), ids
        subject = ids[0]
    if not second:
        res.value = (len(turns),)
        return "Nobody spoke twice, so everyone I heard spoke before anyone had spoken twice" + \
            (f" ({res.describe[subject]} among them)." if subject is not None else "."), res
    moment = min(second, key=lambda e: (e.start, e.id))
    firsts = {}
    for e in turns:
        firsts.setdefault(e.character_id, e)
    before = [c for c, e in firsts.items() if e.start < moment.start]
    said = f"{res.describe[moment.character_id]} was the first to speak twice, at {res.say(moment.start)}"
    res.value = (len(before),)
    res.steps.append({"step": "the first second turn", "at": round(moment.start, 1), "before": len(before)})
    if subject is not None:
        first = firsts.get(subject)
        res.events = [moment] + ([first] if first is not None else []) + \
            [e for e in res.events if e is not moment and e is not first]
        who = res.describe[subject]
        if first is None:
            text = f"No, {who} never spoke; {said}."
        elif subject == moment.character_id:
            text = f"Yes: {who} first spoke at {res.say(first.start)} and was the first to speak twice, at " \
                f"{res.say(moment.start)}."
        elif first.start < moment.start:
            text = f"Yes: {who} first spoke at {res.say(first.start)}; {said}."
        else:
            text = f"No: {who} first spoke at {res.say(first.start)}, after {res.describe[moment.character_id]} " \
                f"had already spoken twice (the second time at {res.say(moment.start)})."
        if not YES_NO_QUESTION.match(question):
            text = text.split(": ", 1)[-1] if ": " in text else text
        text = _cap(text)
        return (REFUSAL if check(text, res) else text), res
    chosen = [firsts[c] for c in before]
    res.events = [moment] + chosen + [e for e in res.events if e is not moment and e not in chosen]
    each = _join([f"{res.describe[c]} (first at {res.say(firsts[c].start)})" for c in before])
    if re.match(r"^\W*how\s+many\b", question, re.IGNORECASE):
        text = f"{len(before)}: {each}; {said}."
    else:
        text = f"{each} spoke before anyone had spoken twice; {said}."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res
