"""The longest time one person went without speaking: "what was the longest time B went without speaking?", "what
was the longest stretch between two of A's turns?", "how long was A's longest break?"; whether it was ever longer than a
time ("was A ever silent for more than 20 seconds?", ``over``); the average wait between their turns ("on average, how
long did B wait between turns?", ``average``); and who of everyone waited longest between two of their own turns
("which speaker had the longest wait between two of their own turns?", ``ranked``), between their n-th and m-th
turns ("who waited the longest between their first and second turns?") or on average ("whose turns were closest
together on average?", the shortest mean wait first).

Code takes the person's voice turns in the frame's place and window, and measures the silences between two of
their turns (the end of one to the start of the next: others may speak in between). The answer gives the longest,
with its clock times; where the stretch after their last turn (to the end of what the memory holds) or before their
first is longer, it says that too, since "went without speaking" may mean it. Not the silences of everyone
(silences.py: "what was the longest pause?"), not the time between two people's turns (the frame's ``gap``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, _cap, _join, check, conditions, phrase
from .repair import time_of
from .result import QueryResult
from .turn_sequence import people_in
from .wording import QUOTED
from .words import AMOUNT, seconds_word, tenths

_OWN = r"(?:[^?]*?(?:'s|’s)\s+|their\s+|his\s+|her\s+)"
_GAP_FORMS = (
    # "the longest time B went without speaking", "the longest A went without talking", "longest A stayed quiet"
    re.compile(r"\b(?:longest|most)\b[^?]*?\b(?:went|gone|go|stayed|stay|was|were|remained)\s+(?:without\s+(?:speaking|"
               r"talking|saying\s+anything)|quiet|silent)\b", re.IGNORECASE),
    # "the longest stretch (gap, pause, silence, break) between two of A's turns", "A's longest break"
    re.compile(rf"\b(?:longest|biggest|largest)\s+(?:stretch|gap|pause|silence|break|wait|interval)\s+between\s+"
               rf"(?:two\s+of\s+|any\s+two\s+of\s+){_OWN}(?:turns|words|utterances)\b", re.IGNORECASE),
    re.compile(rf"{_OWN}(?:longest|biggest|largest)\s+(?:stretch\s+of\s+silence|gap|pause|silence|break)\b",
               re.IGNORECASE),
    # "the longest stretch of time during which A did not speak", "the longest period in which B was not talking"
    re.compile(r"\b(?:longest|biggest|largest)\s+(?:stretch|period|span|spell|time|interval|gap|while)(?:\s+of\s+time)?\s+"
               r"(?:during\s+which|in\s+which|when|where|that|for\s+which)\b[^?]*?\b(?:did\s+not|didn't|never|was\s+not|"
               r"wasn't|stayed|remained|was)\s+(?:speak|talk|say|speaking|talking|saying|silent|quiet)\b",
               re.IGNORECASE),
)


# "what was the shortest time between two of B's turns?", "the smallest gap between A's turns"
_SHORTEST = re.compile(rf"\b(?:shortest|smallest|briefest|least|quickest)\s+(?:amount\s+of\s+)?(?:time|stretch|gap|"
                       rf"pause|silence|break|wait|interval)\s+between\s+(?:two\s+of\s+|any\s+two\s+of\s+){_OWN}(?:own\s+)?"
                       rf"(?:turns|words|utterances)\b|{_OWN}(?:shortest|smallest|briefest)\s+(?:gap|pause|break|wait)\b",
                       re.IGNORECASE)


_SILENT = r"(?:silent|quiet|without\s+(?:speaking|talking|saying\s+anything|a\s+word)|between\s+(?:two\s+of\s+|" \
    r"any\s+two\s+of\s+)?(?:their|his|her)\s+(?:own\s+)?turns)"
# "was A ever silent for more than 20 seconds?", "did B ever go more than 15 seconds without speaking?"
_OVER = re.compile(rf"^\W*(?:was|were|did|has|had)\b[^?]*?\b(?:{_SILENT}\s+(?:for\s+)?(?:more\s+than|over|longer\s+"
                   rf"than|at\s+least)\s+(?P<a>{AMOUNT})|(?:go|gone|went|stay|stayed)\s+(?:for\s+)?(?:more\s+than|over|"
                   rf"longer\s+than|at\s+least)\s+(?P<b>{AMOUNT})\s+{_SILENT})", re.IGNORECASE)
# "what was the average time between A's turns?", "on average, how long did B wait between turns?"
_AVERAGE = re.compile(r"\b(?:average|mean|on\s+average|typical)\b[^?]*?\b(?:between|separat\w+)\s+(?:two\s+of\s+)?"
                      rf"(?:{_OWN})?(?:own\s+)?(?:turns|words|utterances)\b", re.IGNORECASE)
# "which speaker had the longest wait between two of their own turns?", "who went the longest between turns?"
_RANKED = re.compile(r"^\W*(?:who|which\s+(?:speaker|person|one|voice)|whose)\b[^?]*?\b(?:longest|biggest|largest)\b"
                     r"[^?]*?\bbetween\s+(?:two\s+of\s+)?(?:their|his\s+or\s+her|his|her)?\s*(?:own\s+)?turns\b|"
                     r"^\W*who\s+(?:went|stayed|was)\s+(?:the\s+)?longest\s+(?:without\s+(?:speaking|talking)|silent|quiet)",
                     re.IGNORECASE)


# "what was the smallest gap between two consecutive turns of one person?", "the shortest wait between two turns of the
# same speaker?", "whose two turns came closest together?": everyone's shortest wait between their own turns
_CLOSEST = re.compile(r"\b(?:smallest|shortest|briefest|least)\s+(?:gap|wait|pause|silence|break|time|interval)\s+"
                      r"between\s+(?:two\s+|any\s+two\s+)?(?:consecutive\s+|successive\s+|back-to-back\s+)?turns\s+"
                      r"(?:of|by|from)\s+(?:one|the\s+same|a\s+single|any\s+one)\s+(?:person|speaker|voice)\b|"
                      r"^\W*whose\s+(?:two\s+)?(?:consecutive\s+|successive\s+)?turns\s+(?:came|were)\s+(?:the\s+)?"
                      r"closest\s+together\b(?![^?]*\baverage\b)", re.IGNORECASE)
_ORD = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "next": 0,
        "last": -1, "final": -1}
_WHO = r"^\W*(?:who|which\s+(?:speaker|person|one|voice)|whose)\b"
# "who waited the longest between their first and second turns?", "which person had the biggest gap between their
# first turn and their second?": everyone's wait between the same two of their own turns
_RANKED_NTH = re.compile(_WHO + r"[^?]*?\b(?P<w>longest|biggest|largest|most|shortest|smallest|least)\b[^?]*?"
                         r"\bbetween\s+(?:their|his\s+or\s+her|his|her)\s+(?P<a>first|second|third|1st|2nd|3rd)\s+"
                         r"(?:turns?\s+|ones?\s+)?and\s+(?:their\s+|his\s+|her\s+)?(?:own\s+)?(?P<b>second|third|"
                         r"fourth|2nd|3rd|4th|next|last|final)\b", re.IGNORECASE)
# "whose first and last turns were furthest apart?", "whose first and second turns came closest together?"
_RANKED_PAIR = re.compile(_WHO + r"[^?]*?\b(?P<a>first|second|third|1st|2nd|3rd)\s+and\s+(?:their\s+|his\s+|her\s+|"
                          r"the\s+)?(?P<b>second|third|fourth|2nd|3rd|4th|last|final)\s+(?:turns?|words|times|"
                          r"sentences)\b[^?]*?\b(?P<w>furthest|farthest|most\s+spread|closest|nearest|longest|"
                          r"shortest)\b", re.IGNORECASE)
# "whose turns were closest together on average?", "which person's turns came furthest apart?", "who had the shortest
# average wait between turns?": everyone's mean wait between one of their turns and their next
_RANKED_MEAN = re.compile(_WHO + r"[^?]*?\bturns\b[^?]*?\b(?P<w>closest|nearest|farthest|furthest|most\s+spread)\s*"
                          r"(?:together|apart|out)?\b|" + _WHO + r"[^?]*?\b(?P<v>shortest|longest|smallest|biggest|"
                          r"largest)\s+(?:average|mean|typical)\s+(?:wait|gap|time|pause|silence|break)s?\s+between\b",
                          re.IGNORECASE)


@dataclass(frozen=True)
class GapAsk:
    who: str | None      # the person (their words, or a name); ranked: everyone
    kind: str = "longest"     # longest | over | average | ranked
    seconds: float = 0.0      # over: the time asked about
    turns: tuple[int, int] | None = None    # ranked: the wait between these two of each person's turns (1-based,
    #                                         -1 their last), not their longest wait
    mean: bool = False        # ranked: each person's mean wait between their turns
    least: bool = False       # ranked: the shortest first


def asks_person_gap(question: str) -> GapAsk | None:
    """The longest time one named person went without speaking (or the others above), else None."""
    people = people_in(question)
    plain = QUOTED.sub(" x's ", question) if re.search(r"['’]s\b", question) else QUOTED.sub(" x ", question)
    if not people:
        m = _RANKED_NTH.search(plain)
        if m is not None:
            a, b = _ORD[m.group("a").lower()], _ORD[m.group("b").lower()]
            return GapAsk(None, "ranked", turns=(a, b or a + 1),
                          least=m.group("w").lower() in ("shortest", "smallest", "least"))
        m = _RANKED_PAIR.search(plain)
        if m is not None:
            a, b = _ORD[m.group("a").lower()], _ORD[m.group("b").lower()]
            return GapAsk(None, "ranked", turns=(a, b), least=m.group("w").lower() in ("closest", "nearest",
                                                                                       "shortest"))
        m = _RANKED_MEAN.search(plain)
        if m is not None:
            w = (m.group("w") or m.group("v")).lower()
            return GapAsk(None, "ranked", mean=True, least=w in ("closest", "nearest", "shortest", "smallest"))
    if not people and _RANKED.search(plain):
        return GapAsk(None, "ranked")
    if not people and _CLOSEST.search(plain):
        return GapAsk(None, "ranked", least=True)
    if len(people) != 1:
        return None
    m = _OVER.search(plain)
    if m is not None and (t := time_of(m.group("a") or m.group("b"))) is not None:
        return GapAsk(people[0], "over", t)
    if _AVERAGE.search(plain):
        return GapAsk(people[0], "average")
    if _SHORTEST.search(plain):
        return GapAsk(people[0], least=True)
    if not any(f.search(plain) for f in _GAP_FORMS):
        return None
    return GapAsk(people[0])


def prepare(q: Query) -> Query:
    """The person's voice turns in the frame's place and window (the person is the question's)."""
    return Query(find="who", act="spoke", place=q.place, from_=q.from_, to=q.to)


def _gaps(turns: list) -> list[tuple]:
    """(one turn, the next) of one person's turns in time order, with silence between them."""
    return [(a, b) for a, b in zip(turns, turns[1:], strict=False) if b.start > a.end]


def _wait(gap: tuple) -> float:
    """The silence of one of :func:`_gaps`: from the end of one turn to the start of the next."""
    return gap[1].start - gap[0].end


def answer(executor: QueryExecutor, q: Query, ask: GapAsk, before_time: float | None) -> tuple[str, QueryResult]:
    if ask.kind == "ranked" and (ask.turns or ask.mean):
        return _ranked_by(executor, q, ask, before_time)
    if ask.kind == "ranked":
        return _ranked(executor, q, before_time, ask.least)
    res = executor.run(replace(prepare(q), who=ask.who), before_time)
    if res.status != "ok":
        return phrase(res), res
    cid = res.who["who"].character_id
    who, cond = res.describe[cid], conditions(res)
    mine = sorted((e for e in res.events if e.kind == "voice" and e.character_id == cid), key=lambda e: e.start)
    if not mine:
        return f"{_cap(who)} never spoke{cond}.", res
    gaps = _gaps(mine)
    if ask.kind == "average":
        text = _average(res, mine, who, cond)
        return (REFUSAL if check(text, res) else _cap(text)), res
    if ask.least:
        return _shortest(res, mine, gaps, who, cond)
    end = executor.store.perceived_until(before_time) or mine[-1].end
    t2 = res.read(q.to)
    end = min(end, t2) if t2 is not None else end
    after = max(0.0, end - mine[-1].end)
    res.events = mine + [e for e in res.events if e not in mine]
    res.steps.append({"step": "one person's longest silence", "turns": len(mine)})
    res.value = (len(mine),)
    parts: list[str] = []
    longest = 0.0
    if gaps:
        a, b = max(gaps, key=_wait)
        longest = b.start - a.end
        s = int(round(longest))
        res.seconds = {**res.seconds, -1: s}
        parts.append(f"The longest stretch between two of {who}'s turns{cond} was {seconds_word(s)}: from the end of "
                     f"their turn at {res.say(a.start)} to their next, at {res.say(b.start)}")
    else:
        parts.append(f"{_cap(who)} spoke only once{cond}, at {res.say(mine[0].start)}")
    if after > longest + 1:
        k = int(round(after))
        res.seconds = {**res.seconds, -2: k}
        parts.append(f"after their last turn (at {res.say(mine[-1].start)}) they did not speak again for the "
                     f"{seconds_word(k)} left of what I recorded")
    if ask.kind == "over":
        parts = _over(res, gaps, after, mine, who, cond, ask.seconds)
    text = "; ".join(parts) + "."
    return (REFUSAL if check(text, res) else _cap(text)), res


def _shortest(res: QueryResult, mine: list, gaps: list[tuple], who: str, cond: str) -> tuple[str, QueryResult]:
    """"The shortest stretch between two of B's turns was 6.1 seconds: from the end of their turn at 00:40 to their
    next, at 00:49."."""
    res.events = mine + [e for e in res.events if e not in mine]
    res.value = (len(mine),)
    if not gaps:
        text = f"{_cap(who)} spoke only once{cond}, at {res.say(mine[0].start)}: no time between two of their turns."
        return (REFUSAL if check(text, res) else text), res
    a, b = min(gaps, key=_wait)
    s = tenths(_wait((a, b)))
    res.seconds = {**res.seconds, -1: s}
    res.steps.append({"step": "one person's shortest wait between two of their turns", "turns": len(mine)})
    text = f"The shortest stretch between two of {who}'s turns{cond} was {seconds_word(s)}: from the end of their " \
           f"turn at {res.say(a.start)} to their next, at {res.say(b.start)}."
    return (REFUSAL if check(text, res) else _cap(text)), res


def _over(res: QueryResult, gaps: list[tuple], after: float, mine: list, who: str, cond: str,
          limit: float) -> list[str]:
    """"Yes: 49 seconds between their turns at 00:02 and 00:52; ..." (each stretch longer than ``limit``)."""
    over = [g for g in gaps if _wait(g) > limit]
    said = [f"{seconds_word(int(round(_wait(g))))} between their turns at {res.say(g[0].start)} and "
            f"{res.say(g[1].start)}" for g in over]
    res.seconds = {**res.seconds, **{-10 - i: int(round(_wait(g))) for i, g in enumerate(over)},
                   -3: int(round(limit))}
    if limit.is_integer():
        res.value = (*res.value, int(limit))
    tail = f"after their last turn (at {res.say(mine[-1].start)}) they did not speak again for the " \
           f"{seconds_word(int(round(after)))} left of what I recorded" if after > limit else ""
    if tail:
        res.seconds = {**res.seconds, -5: int(round(after))}
    if over:
        return [f"Yes: {who} went without speaking for {'; '.join(said)}{cond}"] + ([tail] if tail else [])
    longest = max(map(_wait, gaps), default=0.0)
    res.seconds = {**res.seconds, -4: int(round(longest))}
    between = f"the longest stretch between two of their turns{cond} was {seconds_word(int(round(longest)))}" \
        if gaps else f"they spoke only once{cond}"
    lead = "Not between their turns" if tail else "No"
    return [f"{lead}: {between}"] + ([tail] if tail else [])


def _average(res: QueryResult, mine: list, who: str, cond: str) -> str:
    """"On average 35.4 seconds passed between the end of one of A's turns and the start of their next (2 waits:
    48.8 and 21.9 seconds); start to start, 36.9 seconds."."""
    if len(mine) < 2:
        return f"{_cap(who)} spoke only once{cond}, at {res.say(mine[0].start)}: no time between turns to average."
    waits = [max(0.0, b.start - a.end) for a, b in zip(mine, mine[1:], strict=False)]
    starts = [b.start - a.start for a, b in zip(mine, mine[1:], strict=False)]
    mean, mean_starts = tenths(sum(waits) / len(waits)), tenths(sum(starts) / len(starts))
    each = [tenths(w) for w in waits]
    res.value = (len(mine), len(waits))
    res.seconds = {**res.seconds, -1: mean, -2: mean_starts, **{-10 - i: w for i, w in enumerate(each)}}
    listed = f": {', '.join(str(w) for w in each[:-1])} and {each[-1]} seconds" if 1 < len(each) <= 6 else ""
    return f"On average {seconds_word(mean)} passed between the end of one of {who}'s turns and the start of their " \
           f"next{cond} ({len(waits)} wait{'s' if len(waits) != 1 else ''}{listed}); start to start, " \
           f"{seconds_word(mean_starts)}."


def _everyones_turns(executor: QueryExecutor, q: Query, before_time: float | None) -> tuple[QueryResult, str, list]:
    """Everyone's voice turns in the frame's place and window, in time order, with the answer's words for those."""
    res = executor.run(prepare(q), before_time)
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    return res, conditions(res) if res.status == "ok" else "", turns


def _ranked(executor: QueryExecutor, q: Query, before_time: float | None,
            least: bool = False) -> tuple[str, QueryResult]:
    """"A: 49 seconds between their turns at 00:02 and 00:52; then B, 40 seconds (00:19 to 01:01)." (each person's
    longest wait between two of their own turns, or with ``least`` their shortest, the shortest first; those who
    spoke once have none)."""
    res, cond, turns = _everyones_turns(executor, q, before_time)
    if res.status != "ok":
        return phrase(res), res
    best: dict[int, tuple] = {}
    for cid in dict.fromkeys(e.character_id for e in turns):
        gaps = _gaps([e for e in turns if e.character_id == cid])
        if gaps:
            best[cid] = (min if least else max)(gaps, key=_wait)
    if not best:
        return f"Nobody spoke twice{cond}, so nobody waited between two of their own turns.", res
    ranked = sorted(best, key=lambda c: _wait(best[c]), reverse=not least)
    wait = {c: tenths(_wait(best[c])) if least else int(round(_wait(best[c]))) for c in ranked}
    res.seconds = {**res.seconds, **wait}
    res.events = [e for c in ranked[:2] for e in best[c]] + [e for e in res.events if not any(
        e in best[c] for c in ranked[:2])]
    res.steps.append({"step": "each person's longest wait between their own turns", "people": len(best)})
    top = [c for c in ranked if wait[c] == wait[ranked[0]]]

    def one(c: int, named: bool = True) -> str:
        a, b = best[c]
        return f"{res.describe[c] + ', ' if named else ''}{seconds_word(wait[c])} (from their turn at " \
               f"{res.say(a.start)} to their next at {res.say(b.start)})"

    rest = [c for c in ranked if c not in top]
    if least:
        text = f"The closest two turns of one person{cond} were {_join([res.describe[c] for c in top])}'s: " \
               f"{'; '.join(one(c, named=len(top) > 1) for c in top)}"
    elif len(top) == 1:
        text = f"{_cap(res.describe[top[0]])} waited longest between two of their own turns{cond}: " \
               f"{one(top[0], named=False)}"
    else:
        text = f"{_cap(' and '.join(res.describe[c] for c in top))} waited equally long between two of their own " \
               f"turns{cond}: {'; '.join(one(c) for c in top)}"
    text += (f"; next, {one(rest[0])}" if rest else "") + "."
    return (REFUSAL if check(text, res) else text), res


def _ranked_by(executor: QueryExecutor, q: Query, ask: GapAsk, before_time: float | None) -> tuple[str, QueryResult]:
    """Everyone's wait between the same two of their own turns (``ask.turns``), or their mean wait between one turn
    and their next (``ask.mean``), ranked: "A waited longest between their first and second turns: 75 seconds (from
    00:01 to 01:16); then B, 9 seconds (...)". People with too few turns are said, not ranked."""
    res, cond, turns = _everyones_turns(executor, q, before_time)
    if res.status != "ok":
        return phrase(res), res
    wait: dict[int, float] = {}
    pair: dict[int, tuple] = {}
    short: list[int] = []
    for cid in dict.fromkeys(e.character_id for e in turns):
        mine = [e for e in turns if e.character_id == cid]
        if ask.mean:
            if len(mine) < 2:
                short.append(cid)
                continue
            wait[cid] = tenths(sum(max(0.0, b.start - a.end) for a, b in zip(mine, mine[1:], strict=False)) /
                               (len(mine) - 1))
            pair[cid] = (mine[0], mine[-1])
            continue
        i, j = (k - 1 if k > 0 else len(mine) + k for k in ask.turns)  # type: ignore[union-attr]
        if not (0 <= i < j < len(mine)):
            short.append(cid)
            continue
        pair[cid] = (mine[i], mine[j])
        wait[cid] = tenths(max(0.0, mine[j].start - mine[i].end))
    what = "mean wait between one of their turns and their next" if ask.mean else \
        f"wait between their {_nth_word(ask.turns[0])} and {_nth_word(ask.turns[1])} turns"  # type: ignore[index]
    res.steps.append({"step": f"each person's {what}", "people": len(wait)})
    if not wait:
        return f"Nobody spoke often enough{cond} to have a {what}.", res
    ranked = sorted(wait, key=lambda c: wait[c], reverse=not ask.least)
    res.seconds = {**res.seconds, **{-1 - i: wait[c] for i, c in enumerate(ranked)}}
    res.value = tuple(sorted({sum(1 for e in turns if e.character_id == c) for c in wait}))
    res.events = [e for c in ranked for e in pair[c]] + [e for e in res.events if not any(
        e in pair[c] for c in ranked)]
    top = [c for c in ranked if wait[c] == wait[ranked[0]]]

    def one(c: int, named: bool = True) -> str:
        a, b = pair[c]
        n = sum(1 for e in turns if e.character_id == c)
        span = f"over {n} turns, {res.say(a.start)} to {res.say(b.start)}" if ask.mean else \
            f"from their turn at {res.say(a.start)} to the one at {res.say(b.start)}"
        return f"{res.describe[c] + ', ' if named else ''}{seconds_word(wait[c])} ({span})"

    word = ("shortest" if ask.least else "longest") if not ask.mean else \
        ("closest together" if ask.least else "furthest apart")
    lead = " and ".join(res.describe[c] for c in top)
    if ask.mean:
        text = f"{_cap(lead)}'s turns came {word} on average{cond}: " if len(top) == 1 else \
            f"{_cap(lead)}'s turns came equally {word} on average{cond}: "
    else:
        text = f"{_cap(lead)} waited the {word} between their {_nth_word(ask.turns[0])} and " \
               f"{_nth_word(ask.turns[1])} turns{cond}: "  # type: ignore[index]
    text += "; ".join(one(c, named=len(top) > 1) for c in top)
    rest = [c for c in ranked if c not in top]
    if rest:
        text += "; then " + "; ".join(one(c) for c in rest)
    if short:
        need = 2 if ask.mean else max(k if k > 0 else 2 for k in ask.turns)  # type: ignore[union-attr]
        text += f"; {' and '.join(res.describe[c] for c in short)} spoke " + \
            ("only once" if need == 2 else f"fewer than {need} times")
    text += "."
    return (REFUSAL if check(text, res) else text), res


def _nth_word(n: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", -1: "last"}.get(n, f"{n}th")
