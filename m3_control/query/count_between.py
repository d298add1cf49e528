"""People whose number of turns (or seconds of speech) lies between two other people's: "who spoke more often than A
but less often than C?", "who took fewer turns than B but more than C?", and of one person named first, yes or no:
"did C speak more often than B but less often than A?"; and the people whose counts tie ("which people took as many
turns as each other?").

One frame selects everyone's voice turns in the question's place and window (the model's frame keeps those); code
counts each person's turns (seconds of detected speech where the question measures time) and keeps those strictly
between the two bounds. The answer gives every figure it rests on, checked against the result like any frame's; two
bounds no figure can lie between (the "more than" person spoke as often as the "less than" one, or more) are said.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query, voice_turns
from .named_ids import scope_and_people
from .phrase import REFUSAL, _cap, _join, check, phrase
from .result import QueryResult
from .turn_sequence import people_in
from .wording import NAME_IN_QUESTION, QUOTED
from .words import times_word

# "more often than", "fewer times than", "more turns than", "less than", "longer than"
_CMP = re.compile(r"\b(?P<c>more|fewer|less|longer|shorter)\b(?P<what>(?:\s+(?:often|frequently|times|turns|seconds|"
                  r"time))?)\s+than\b", re.IGNORECASE)
_YES_NO = re.compile(r"^\W*(?:did|was|were|has|had|does|is)\b", re.IGNORECASE)
_SECONDS = re.compile(r"\b(?:longer|shorter|seconds|time|talk(?:ed|ing)?\s+(?:more|less)\s+than)\b", re.IGNORECASE)


@dataclass(frozen=True)
class BetweenAsk:
    lower: str                 # the person the others must exceed ("more often than A")
    upper: str                 # the person the others must fall short of ("less often than C")
    subject: str | None = None     # yes or no of one person named before both ("did B speak ...?")
    seconds: bool = False      # measured in seconds of speech, not turns


def asks_between(question: str) -> BetweenAsk | None:
    people = people_in(question)
    if len(people) not in (2, 3):
        return None
    marked = QUOTED.sub(" \x00 ", question)
    where = [m.start() for m in re.finditer(rf"\x00|{NAME_IN_QUESTION.pattern}", marked)]
    cmps = list(_CMP.finditer(marked))
    if len(cmps) != 2 or len(where) != len(people):
        return None
    more = [m.group("c").lower() in ("more", "longer") for m in cmps]
    if more[0] == more[1]:
        return None     # ("more often than A and more often than B": not a range)
    # each comparison's person: the first named after its "than" (before the next comparison)
    bound = []
    for i, m in enumerate(cmps):
        stop = cmps[i + 1].start() if i + 1 < len(cmps) else len(marked)
        k = next((j for j, at in enumerate(where) if m.end() <= at < stop), None)
        if k is None or marked[m.end():where[k]].count(" ") > 6:
            return None
        bound.append(k)
    before = [j for j, at in enumerate(where) if at < cmps[0].start()]
    if len(people) == 3 and (len(before) != 1 or not _YES_NO.match(question)):
        return None
    if len(people) == 2 and before:
        return None
    lower, upper = (bound[0], bound[1]) if more[0] else (bound[1], bound[0])
    seconds = bool(_SECONDS.search(marked)) and not re.search(r"\b(?:often|times|turns|frequently)\b", marked,
                                                                 re.IGNORECASE)
    return BetweenAsk(people[lower], people[upper], people[before[0]] if before else None, seconds)


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's place and window."""
    return voice_turns(q)


def answer(executor: QueryExecutor, q: Query, ask: BetweenAsk, before_time: float | None) -> tuple[str, QueryResult]:
    refs = [ask.lower, ask.upper] + ([ask.subject] if ask.subject else [])
    res, ids = scope_and_people(executor, prepare(q), refs, before_time)
    if ids is None:
        return phrase(res), res
    lo, hi = ids[0], ids[1]
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    figure: Counter = Counter()
    for e in turns:
        figure[e.character_id] += round(e.end - e.start, 2) if ask.seconds else 1
    order = list(dict.fromkeys(e.character_id for e in turns))
    where = f" in the {q.place}" if q.place else ""
    res.value = tuple(sorted({int(v) for v in figure.values()} | {0}))
    if ask.seconds:
        res.seconds = {**res.seconds, **{-(i + 1): round(figure[c], 1) for i, c in enumerate(order)}}

    def said(c: int) -> str:
        return f"{figure[c]:.1f} seconds" if ask.seconds else times_word(int(figure[c]))

    more, less = ("longer", "shorter") if ask.seconds else ("more often", "less often")
    bounds = f"{res.describe[lo]} spoke {said(lo)}{where} and {res.describe[hi]} {said(hi)}"
    inside = [c for c in order if c not in (lo, hi) and figure[lo] < figure[c] < figure[hi]]
    res.events = [e for e in turns if e.character_id in (*inside, lo, hi)] + \
        [e for e in turns if e.character_id not in (*inside, lo, hi)]
    res.steps.append({"step": "between two people's figures", "figures": {res.describe.get(c, str(c)): figure[c]
                                                                          for c in order}})
    if ask.subject:
        s = ids[2]
        yes = s in inside
        parts = [f"{'' if figure[s] > figure[lo] else 'not '}{more} than {res.describe[lo]} ({said(lo)})",
                 f"{'' if figure[s] < figure[hi] else 'not '}{less} than {res.describe[hi]} ({said(hi)})"]
        text = f"{'Yes' if yes else 'No'}: {res.describe[s]} spoke {said(s)}{where}, {' and '.join(parts)}."
    elif figure[lo] >= figure[hi]:
        text = f"Nobody: {bounds}, so nobody could speak {more} than the one and {less} than the other."
    elif inside:
        each = "; ".join(f"{res.describe[c]} {said(c)}" for c in inside)
        text = f"{_join([res.describe[c] for c in inside])}: {more} than {res.describe[lo]} and {less} than " \
            f"{res.describe[hi]} ({bounds}; {each})."
    else:
        rest = "; ".join(f"{res.describe[c]} {said(c)}" for c in order if c not in (lo, hi))
        text = f"Nobody: {bounds}, and nobody else spoke {more} than the one and {less} than the other" + \
            (f" ({rest})." if rest else ".")
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res


# "which people took as many turns as each other?", "which two people took the same number of turns?", "did any two
# people speak equally often?": the people whose counts tie (not "as many turns as A": one person's count)
_EQUAL = re.compile(r"^\W*(?:(?:which|who|what)\b[^?]*?|(?:did|were|was|had)\s+(?:any\s+)?(?:two|some|several)\s+"
                    r"(?:people|persons|speakers)\b[^?]*?)\b(?:as\s+many\s+(?:turns|times)\s+as\s+each\s+other|the\s+same\s+number\s+"
                    r"of\s+(?:turns|times)(?!\s+as\b)|equally\s+(?:often|many\s+times))\b", re.IGNORECASE)


def asks_equal(question: str) -> bool:
    return not people_in(question) and _EQUAL.search(question) is not None


def answer_equal(executor: QueryExecutor, q: Query, question: str,
                 before_time: float | None) -> tuple[str, QueryResult]:
    """"A and B spoke 3 times each (C once)." or "Nobody: everyone took a different number of turns (A 6 times, B 5
    times, C once)"."""
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    figure: Counter = Counter(e.character_id for e in turns)
    order = list(dict.fromkeys(e.character_id for e in turns))
    groups: dict[int, list[int]] = {}
    for c in order:
        groups.setdefault(figure[c], []).append(c)
    tied = [(n, cs) for n, cs in groups.items() if len(cs) > 1]
    res.value = tuple(sorted(set(figure.values()) | {len(order)}))
    res.events = [e for e in turns if any(e.character_id in cs for _, cs in tied)] + \
        [e for e in turns if not any(e.character_id in cs for _, cs in tied)]
    res.steps.append({"step": "people by their number of turns", "turns": {res.describe.get(c, str(c)): figure[c]
                                                                          for c in order}})
    where = f" in the {q.place}" if q.place else ""
    yes_no = bool(re.match(r"^\W*(?:did|were|was|had)\b", question, re.IGNORECASE))
    each = "; ".join(f"{res.describe[c]} {times_word(figure[c])}" for c in order)
    if not tied:
        text = f"{'No' if yes_no else 'Nobody'}: everyone took a different number of turns{where} ({each})."
    else:
        said = "; ".join(f"{_join([res.describe[c] for c in cs])} spoke {times_word(n)} each" for n, cs in tied)
        rest = [c for c in order if not any(c in cs for _, cs in tied)]
        others = f" ({'; '.join(f'{res.describe[c]} {times_word(figure[c])}' for c in rest)})" if rest else ""
        text = f"{'Yes: ' if yes_no else ''}{said}{where}{others}."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res
