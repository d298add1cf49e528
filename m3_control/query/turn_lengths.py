"""Two turns compared by their own length: "whose first turn was longer, A's or B's?", "was A's last turn shorter than
B's first?", "who spoke longer the first time, A or B?", "was A's first turn longer than their last?"; or one
person's turn against a length: "was A's first turn longer than 5 seconds?".

Not two people's talk in total ("who talked longer in total?": :mod:`.talk_time`), not one turn's length ("how long
was A's first turn?": the frame), not turns of everyone ranked by length (:mod:`.sentences`). Each turn is its person's
n-th (first, last, second, ...) voice turn in the frame's place and window; its length is the detected speech, start
to end, compared to hundredths of a second as every length is (equal ones "as long as each other"), said in tenths, or
in hundredths where tenths would read as equal; two within a few tenths are said to be within what detection tells
apart (a turn's edges are the voice detector's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .execute import QueryExecutor
from .frame import Query
from .named_ids import named_into
from .phrase import REFUSAL, check, phrase
from .repair import time_of
from .result import QueryResult
from .wording import QUOTED, _rank
from .words import AMOUNT, cap, fine_seconds, ordinal_word, seconds_said, seconds_word, tenths, times_word

_WHICH = r"(first|last|final|second|third|fourth|fifth|\d+(?:st|nd|rd|th)|longest|shortest)"
_TURN = r"(?:turns?|times?|words?|sentences?|remarks?|lines?|utterances?)"
_ONE_TURN = re.compile(rf"\b{_WHICH}\s+{_TURN}\b|\b{_WHICH}\s+(?:one)\b|\b(?:the|their|his|her)\s+{_WHICH}\b|"
                       rf"(?:'s|’s)\s+{_WHICH}\b", re.IGNORECASE)
_COMPARED = re.compile(r"\b(longer|shorter|exceed)", re.IGNORECASE)
# "how much longer was A's longest turn than B's?", "by how many seconds did A's longest turn exceed B's?": the
# difference, not which
_BY_HOW_MUCH = re.compile(r"\bhow\s+much\s+(?:longer|shorter)\b|\bby\s+how\s+(?:much|many\s+seconds)\b|"
                          r"\bhow\s+many\s+seconds\s+(?:longer|shorter)\b", re.IGNORECASE)
_NOT_ONE_TURN = re.compile(r"\b(?:in\s+(?:all|total)|altogether|overall|combined|added\s+up|all\s+together|"
                           r"more\s+(?:often|times)|how\s+(?:long|many|much))\b", re.IGNORECASE)
_NOT_NAMES = r"I|The|Was|Were|Is|Did|Does|Who|Whose|Which|What|A|An|Or|And|Compare|Of|Between|Tell|How|By"
_PERSON = re.compile(rf"\x00|\b(?!(?:{_NOT_NAMES})\b)[A-Z][a-z]+\b"
                     r"(?=(?:'s|’s)?(?:\s|\W*$|[,?]))")
_THAN_AMOUNT = re.compile(rf"\b(?:longer|shorter)\s+than\s+(?P<n>{AMOUNT})\b", re.IGNORECASE)
_YES_NO = re.compile(r"^\W*(?:was|were|is|did|does)\b", re.IGNORECASE)
_PRONOUN = re.compile(r"\b(?:their|his|her)\s+(?:own\s+)?" + _WHICH + r"\b", re.IGNORECASE)


@dataclass(frozen=True)
class LengthsAsk:
    people: tuple[str, str]       # whose turns, by their words (or names); the same person twice for one's own two
    nths: tuple[int, int]         # which of their turns (1-based; -1 the last)
    shorter: bool                 # the question asks which is shorter
    seconds: float | None = None  # one person's turn against this length (people and nths: that turn twice)
    by_how_much: bool = False     # the difference asked ("how much longer ...?")


_LONGEST, _SHORTEST = 1000, -1000     # (a person's longest / shortest turn, not a place in order)


def _nth(word: str) -> int:
    word = word.lower()
    return _LONGEST if word == "longest" else _SHORTEST if word == "shortest" else \
        -1 if word in ("last", "final") else _rank(word)


def asks_lengths(question: str) -> LengthsAsk | None:
    """The two turns a question compares by length, else None."""
    plain = QUOTED.sub(" ", question)
    cmp = _COMPARED.search(plain)
    by_how_much = bool(_BY_HOW_MUCH.search(plain))
    if cmp is None or (_NOT_ONE_TURN.search(_BY_HOW_MUCH.sub(" ", plain))) or not _ONE_TURN.search(plain):
        return None
    shorter = cmp.group(1).lower() == "shorter"
    quoted = iter(next(g for g in m.groups() if g) for m in QUOTED.finditer(question))
    marked = QUOTED.sub(" \x00 ", question)
    found = [(m.start(), m.end(), next(quoted, "") if m.group(0) == "\x00" else m.group(0))
             for m in _PERSON.finditer(marked)]
    whiches = [(m.start(), next(g for g in m.groups() if g)) for m in _ONE_TURN.finditer(marked)]
    amount = _THAN_AMOUNT.search(marked)
    if amount is not None:     # "was A's first turn longer than 5 seconds?"
        n = time_of(amount.group("n"))
        if len(found) != 1 or n is None:
            return None
        nth = _nth(whiches[0][1])
        return LengthsAsk((found[0][2], found[0][2]), (nth, nth), shorter, seconds=n)
    if len(found) == 1 and len(whiches) >= 2 and _PRONOUN.search(marked):   # "A's first turn ... than their last"
        return LengthsAsk((found[0][2], found[0][2]), (_nth(whiches[0][1]), _nth(whiches[-1][1])), shorter)
    if len(found) != 2 or found[0][2] == found[1][2]:
        return None
    nths = []
    for i, (_, end, _) in enumerate(found):   # each person's own word ("A's first turn", "B's last"), else the first
        stop = found[i + 1][0] if i + 1 < len(found) else len(marked)
        own = next((w for pos, w in whiches if end <= pos < stop and pos - end < 12), None)
        nths.append(_nth(own or whiches[0][1]))
    return LengthsAsk((found[0][2], found[1][2]), (nths[0], nths[1]), shorter, by_how_much=by_how_much)


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's place and window (the people and turns are read from the question)."""
    return replace(q, find="who", who=None, other=None, rel=None, until=None, pick=None, by=None, times=None,
                   count=None, act="spoke", top=None, measure=None, only=None)


def answer(executor: QueryExecutor, q: Query, ask: LengthsAsk, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    picked, ids = [], {}
    for ref, n in zip(ask.people, ask.nths, strict=True):
        if ref not in ids:     # (one person's two turns, or one turn against a length: resolved once)
            named = named_into(executor, prepare(q), ref, res, before_time)
            if named.status != "ok":
                return phrase(named), named
            ids[ref] = named.who["who"].character_id
        cid = ids[ref]
        mine = sorted((e for e in res.events if e.kind == "voice" and e.character_id == cid),
                      key=lambda e: (e.start, e.id))
        if n in (_LONGEST, _SHORTEST) and mine:     # "A's longest turn"
            pick = max if n == _LONGEST else min
            picked.append((pick(mine, key=lambda e: e.end - e.start), "longest" if n == _LONGEST else "shortest"))
            continue
        which = "last" if n == -1 else ordinal_word(n)
        if not mine or n > len(mine):
            heard = f"spoke only {times_word(len(mine))}" if mine else "never spoke"
            return f"I can't compare them: {res.describe[cid]} {heard}, so there is no {which} turn.", res
        picked.append((mine[n - 1] if n > 0 else mine[-1], which))
    (a, wa), (b, wb) = picked
    if ask.seconds is not None:
        return _against(res, a, wa, ask, question)
    la, lb = round(a.end - a.start, 2), round(b.end - b.start, 2)
    fine = fine_seconds(la, [lb])
    res.events = [a, b] + [e for e in res.events if e is not a and e is not b]
    res.value = ()
    res.seconds = {**res.seconds, -1: la, -2: lb, -3: tenths(la), -4: tenths(lb)}
    name_a = f"{res.describe[a.character_id]}'s {wa} turn"
    name_b = f"{res.describe[b.character_id]}'s {wb} turn" if a.character_id != b.character_id else f"their {wb} turn"
    # (the difference asked: the lengths in hundredths, as the difference is)
    said = (lambda x: f"{x:.2f} seconds") if ask.by_how_much else (lambda x: seconds_said(x, fine))
    both = f"{name_a} (at {res.say(a.start)}) lasted {said(la)}, {name_b} (at {res.say(b.start)}) {said(lb)}"
    yes_no = _YES_NO.match(question)
    if ask.by_how_much:       # "how much longer was A's longest turn than B's?": the difference, to hundredths
        d = round(abs(la - lb), 2)
        res.seconds[-5] = d
        first_wins = (la < lb) if ask.shorter else (la > lb)
        word = "shorter" if ask.shorter else "longer"
        lead = "They were as long as each other" if la == lb else f"{d:.2f} seconds {word}" if first_wins else \
            f"The other way round: {name_b} was {d:.2f} seconds {word}"
        text = f"{lead}: {both}."
    elif la == lb:
        text = f"{'No, they' if yes_no else 'They'} were as long as each other, {seconds_said(la, False)} each: " \
               f"{name_a} (at {res.say(a.start)}) and {name_b} (at {res.say(b.start)})."
    else:
        first_wins = (la < lb) if ask.shorter else (la > lb)
        winner = name_a if first_wins else name_b
        word = "shorter" if ask.shorter else "longer"
        close = " (within what detection tells apart)" if abs(la - lb) < 0.3 else ""
        text = (f"{'Yes' if first_wins else 'No'}: {both}{close}." if yes_no else
                f"{cap(winner)} was {word}: {both}{close}.")
    text = cap(text)
    return (REFUSAL if check(text, res) else text), res


def _against(res: QueryResult, e, which: str, ask: LengthsAsk, question: str) -> tuple[str, QueryResult]:
    """One turn's length against the question's: "Yes, A's first turn (at 00:05) lasted 6 seconds (more than 5)."."""
    length, limit = e.end - e.start, float(ask.seconds or 0.0)
    secs, n = int(round(length)), int(round(limit))
    res.events = [e] + [x for x in res.events if x is not e]
    res.value = (secs, n)
    holds = length < limit if ask.shorter else length > limit
    lasted = seconds_word(secs) if secs else "under a second"
    than = f"{'shorter' if ask.shorter else 'longer'} than {seconds_word(n)}"
    yes_no = _YES_NO.match(question)
    turn = f"{res.describe[e.character_id]}'s {which} turn (at {res.say(e.start)}) lasted {lasted}"
    text = f"{'Yes' if holds else 'No'}, {turn}: {'' if holds else 'not '}{than}." if yes_no else f"{turn}."
    text = cap(text)
    return (REFUSAL if check(text, res) else text), res
