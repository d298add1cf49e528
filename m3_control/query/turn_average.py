"""How long turns were on average: "what was A's average turn length?", "on average, how long were B's turns?", "how
long did Ann speak per turn?", "what was the mean length of the turns in the lab?".

Code takes the voice turns of the person the question names (a quote or a name; nobody named: everyone's) in the
frame's place and window, and divides their detected speech by their number. The answer says the number of turns,
the average in tenths of a second and the total, all from the result. Not one person's total ("how long did A talk
in all?": the frame's ``how_long``), not one turn's length (the frame), not turns ranked by length (sentences.py).
One person's average is also compared with all turns' ("was A's average turn longer than the average turn
overall?") or everyone else's ("... than everyone else's?"), yes or no with both figures.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, replace

from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query
from .named_ids import named_ids
from .phrase import REFUSAL, _cap, check, conditions, phrase
from .polarity import YES_NO_QUESTION
from .repair import time_of
from .result import QueryResult
from .turn_sequence import people_in
from .wording import QUOTED
from .words import AMOUNT, fine_seconds, seconds_word, tenths, times_word

_TURN = r"(?:turns?|utterances?|sentences?|remarks?|speaking\s+turns?)"
# "average turn length", "the mean length of A's turns", "average duration of a turn", "A's average turn"
_AVERAGE = re.compile(rf"\b(?:average|mean|typical|median)\s+(?:{_TURN}\s+)?(?:length|duration)\b|"
                      rf"\b(?:average|mean|typical|median)\s+{_TURN}\b|"
                      rf"\b(?:average|mean|typical|median)\s+(?:length|duration)\s+of\b[^?]*?\b{_TURN}",
                      re.IGNORECASE)
# "on average, how long were B's turns?", "how long did Ann speak per turn?", "how many seconds per turn on average?"
_ON_AVERAGE = re.compile(r"\bon\s+average\b|\bper\s+(?:turn|utterance|sentence)\b|\bon\s+the\s+average\b",
                         re.IGNORECASE)
_LENGTH = re.compile(rf"\bhow\s+long\b|\bhow\s+many\s+seconds\b|\b(?:length|duration)\b|\b{_TURN}\b", re.IGNORECASE)
_NOT_LENGTH = re.compile(r"\bhow\s+(?:many|often)\s+(?:times|turns)\b|\bhow\s+often\b|\bwords\b", re.IGNORECASE)
_NAME = re.compile(r"\b(?!(?:What|How|On|The|In|Was|Were|Did|Per|Of|I)\b)([A-Z][a-z]+)(?:'s|’s)?\b")


# "who had the longest average turn?", "whose turns were the shortest on average?": people ranked by their average
_RANKED = re.compile(r"^\W*(?:who|whose|which\s+(?:person|speaker|one))\b[^?]*\b(?P<w>longest|shortest|highest|lowest|"
                     r"greatest|smallest|biggest)\b", re.IGNORECASE)
_MOST = ("longest", "highest", "greatest", "biggest")
# "whose average turn length was closest to two seconds?": people ranked by how far their average is from a length
_CLOSEST_TO = re.compile(rf"^\W*(?:who|whose|which\s+(?:person|speaker|one))\b[^?]*\b(?:closest|nearest)\s+to\s+"
                         rf"(?P<n>{AMOUNT})", re.IGNORECASE)
# "was A's average turn longer than B's?", "whose average turn was longer, B's or C's?": two averages compared
_COMPARED = re.compile(r"\b(?:longer|shorter|greater|smaller|higher|lower|bigger)\b", re.IGNORECASE)


# "was A's average turn longer than the average turn overall?", "... shorter than everyone's average turn?" (all turns,
# A's among them); "... than the others' average?", "... than everyone else's?" (the other people's turns)
_OVERALL = re.compile(r"\b(?:overall|everyone'?s|everybody'?s|all\s+(?:the\s+)?(?:turns|speakers|people)|"
                      r"(?:the|an)\s+average\s+(?:turn|speaker|length|one|person)\b(?!\s+of\b)|"
                      r"the\s+(?:whole|entire)\s+(?:conversation|recording|group)|the\s+group'?s?|in\s+general|"
                      r"(?P<others>(?:everyone|everybody|anyone|anybody)\s+else'?s?|the\s+others'?|the\s+other\s+"
                      r"(?:people|speakers)'?s?|the\s+rest))", re.IGNORECASE)


# "the average turn in the kitchen ... in the office", "the turns in the office ... those in the lab": two rooms
_IN_ROOM = re.compile(r"\b(?:in|at)\s+the\s+([a-z]+(?:\s+room)?)\b", re.IGNORECASE)
_NOT_ROOM = frozenset(("first", "second", "last", "final", "whole", "entire", "recording", "conversation", "end",
                       "beginning", "start", "middle", "same", "other", "morning", "afternoon", "evening"))


@dataclass(frozen=True)
class AverageAsk:
    who: str | None      # the person (their words, or a name); None: everyone
    rank: str | None = None   # most | least: the person with the longest (shortest) average turn
    pair: tuple[str, ...] = ()    # two people's averages compared ("was A's average turn longer than B's?")
    shorter: bool = False         # pair: asked as "shorter"
    yes_no: bool = False          # pair: "was A's ... longer than B's?" (else "whose ... was longer?")
    median: bool = False          # "what was the median length of A's turns?": the middle turn's, not the mean
    overall: str | None = None    # "all" | "others": one person's average against all turns' (the others')
    places: tuple[str, ...] = ()  # two rooms' averages compared ("was the average turn in the lab longer than ...?")
    target: float | None = None   # rank "closest": the length the averages are measured against


def asks_average(question: str) -> AverageAsk | None:
    """An average turn length asked of one person or of everyone, else None."""
    plain = QUOTED.sub(" ", question)
    if _NOT_LENGTH.search(plain) or re.search(r"\b(?:silences?|gaps?|pauses?)\b", plain, re.IGNORECASE):
        return None     # ("the median length of the silences between turns": turn_gaps.py)
    if not (_AVERAGE.search(plain) or (_ON_AVERAGE.search(plain) and _LENGTH.search(plain))):
        return None
    quoted = quotes_of(question)
    near = _CLOSEST_TO.match(plain)
    if near is not None and not quoted and (n := time_of(near.group("n"))) is not None:
        return AverageAsk(None, "closest", target=n)
    ranked = _RANKED.match(plain)
    if ranked is not None and not quoted:
        return AverageAsk(None, "most" if ranked.group("w").lower() in _MOST else "least")
    people = people_in(question)
    rooms = list(dict.fromkeys(m.group(1).lower() for m in _IN_ROOM.finditer(plain)
                               if m.group(1).lower() not in _NOT_ROOM))
    if len(rooms) == 2 and not people and _COMPARED.search(plain):
        return AverageAsk(None, places=tuple(rooms), shorter=bool(re.search(r"\bshorter\b", plain, re.IGNORECASE)),
                          yes_no=bool(YES_NO_QUESTION.match(question)))
    if len(people) == 2 and _COMPARED.search(plain):
        return AverageAsk(None, pair=tuple(people), shorter=bool(re.search(r"\bshorter\b", plain, re.IGNORECASE)),
                          yes_no=bool(YES_NO_QUESTION.match(question)))
    if len(people) == 1 and _COMPARED.search(plain) and (m := _OVERALL.search(plain[plain.find(" than ") + 1:]
                                                                           if " than " in plain else plain)):
        return AverageAsk(people[0], shorter=bool(re.search(r"\bshorter\b", plain, re.IGNORECASE)),
                          yes_no=bool(YES_NO_QUESTION.match(question)),
                          overall="others" if m.group("others") else "all")
    if len(quoted) > 1:
        return None
    median = bool(re.search(r"\bmedian\b", plain, re.IGNORECASE))
    if quoted:
        return AverageAsk(quoted[0], median=median)
    name = _NAME.search(plain[1:])
    return AverageAsk(name.group(1) if name else None, median=median)


def prepare(q: Query) -> Query:
    """Voice turns in the frame's place and window (the person is the question's)."""
    return Query(find="who", act="spoke", place=q.place, from_=q.from_, to=q.to)


def answer(executor: QueryExecutor, q: Query, ask: AverageAsk, before_time: float | None) -> tuple[str, QueryResult]:
    """"The person who said X spoke 6 times, 1.9 seconds a turn on average (11.6 seconds in all)."."""
    if ask.places:
        return _rooms(executor, q, ask, before_time)
    if ask.pair or ask.overall:
        return _pair(executor, q, ask, before_time)
    res = executor.run(replace(prepare(q), who=ask.who), before_time)
    if res.status != "ok":
        return phrase(res), res
    cid = res.who["who"].character_id if ask.who and "who" in res.who else None
    turns = [e for e in res.events if e.kind == "voice" and (cid is None or e.character_id == cid)]
    cond = conditions(res)
    who = res.describe[cid] if cid is not None else None
    if not turns:
        return (f"{_cap(who)} never spoke{cond}." if who else f"I heard nobody speak{cond}."), res
    if ask.rank:    # (checked against the result like every answer below)
        text = _ranked(res, turns, ask.rank, cond, ask.target)
        return (REFUSAL if check(text, res) else text), res
    if ask.median:
        text = _median(res, turns, who, cond)
        return (REFUSAL if check(text, res) else text), res
    total = sum(e.end - e.start for e in turns)
    mean = round(total / len(turns), 1)
    res.events = turns + [e for e in res.events if e not in turns]
    # (the figures the answer states, for its check: the turns, the average and the total in tenths)
    res.seconds = {**res.seconds, -1: mean, -2: round(total, 1)}
    res.value = (len(turns), *(int(x) for x in (mean, round(total, 1)) if float(x).is_integer()))
    res.steps.append({"step": "average turn length", "turns": len(turns), "seconds": round(total, 2)})
    figure, whole = seconds_word(tenths(mean)), seconds_word(tenths(round(total, 1)))
    if who:
        text = f"{who} spoke {times_word(len(turns))}{cond}, {figure} a turn on average ({whole} in all)." \
            if len(turns) > 1 else f"{who} spoke once{cond}, for {figure}."
    else:
        text = f"I heard {len(turns)} turn{'s' if len(turns) != 1 else ''}{cond}, {figure} long on average " \
               f"({whole} in all)."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res


def _against_all(res: QueryResult, every: list, cid: int, ask: AverageAsk, cond: str) -> str:
    """"Yes: A's turns were 1.9 seconds long on average (8 turns), against 1.8 seconds over all 16 turns."."""
    mine = [e for e in every if e.character_id == cid]
    rest = every if ask.overall == "all" else [e for e in every if e.character_id != cid]
    who = res.describe[cid]
    if not rest:
        return _cap(f"{who} was the only person I heard{cond}: there are no other turns to compare with.")
    own, other = (sum(e.end - e.start for e in ts) / len(ts) for ts in (mine, rest))
    a, b = tenths(own), tenths(other)
    res.events = mine + [e for e in res.events if e not in mine]
    res.seconds = {**res.seconds, -1: a, -2: b}
    res.value = (len(mine), len(rest))
    res.steps.append({"step": "one person's average turn against " + ask.overall, "turns": [len(mine), len(rest)]})  # type: ignore[operator]
    word = "shorter" if ask.shorter else "longer"
    yes = own < other if ask.shorter else own > other
    them = f"on average over all {len(rest)} turns" if ask.overall == "all" else \
        f"on average for everyone else's {len(rest)} turn{'s' if len(rest) != 1 else ''}"
    if not mine:
        return _cap(f"{who} never spoke{cond}, so I have no average turn of theirs.")
    figures = (f"{who}'s {len(mine)} turns were {seconds_word(a)} long on average" if len(mine) > 1 else
               f"{who}'s one turn was {seconds_word(a)} long") + f"{cond}, against {seconds_word(b)} {them}"
    if a == b:
        return _cap(f"{'No' if ask.yes_no else 'Neither'}, about the same: {figures}.")
    return _cap(f"{('Yes' if yes else 'No') + ': ' if ask.yes_no else ''}{figures}"
                f"{'' if ask.yes_no else f': {word}' if yes else f': not {word}'}.")


def _median(res: QueryResult, turns: list, who: str | None, cond: str) -> str:
    """"The median length of A's 4 turns was 1.5 seconds (from 1.4 to 1.6 seconds)."."""
    lengths = sorted(e.end - e.start for e in turns)
    mid = tenths(statistics.median(lengths))
    low, high = tenths(lengths[0]), tenths(lengths[-1])
    res.events = turns + [e for e in res.events if e not in turns]
    res.seconds = {**res.seconds, -1: mid, -2: low, -3: high}
    res.value = (len(turns),)
    res.steps.append({"step": "median turn length", "turns": len(turns)})
    whose = f"{who}'s" if who else "the"
    span = f" (from {seconds_word(low)} to {seconds_word(high)})" if low != high else ""
    return _cap(f"the median length of {whose} {len(turns)} turn{'s' if len(turns) != 1 else ''}{cond} was "
                f"{seconds_word(mid)}{span}.")


def _ranked(res: QueryResult, turns: list, rank: str, cond: str, target: float | None = None) -> str:
    """"The person who said X had the longest turns on average (2 seconds, 4 turns); the others: ..." (rank
    "closest": the average nearest ``target`` seconds)."""
    people: dict[int, list] = {}
    for e in turns:
        people.setdefault(e.character_id, []).append(e)
    exact = {c: round(sum(e.end - e.start for e in ts) / len(ts), 2) for c, ts in people.items()}
    if rank == "closest" and target is not None:
        away = {c: round(abs(m - target), 2) for c, m in exact.items()}
        top = [c for c, d in away.items() if d == min(away.values())]
        best = exact[top[0]]
    else:
        best = (max if rank == "most" else min)(exact.values())
        top = [c for c, m in exact.items() if m == best]
    # in hundredths where tenths would hide the difference (1.89 and 1.95 seconds are both "1.9")
    fine = any(fine_seconds(exact[t], [m for c, m in exact.items() if c not in top]) for t in top)
    means = exact if fine else {c: round(m, 1) for c, m in exact.items()}
    res.seconds = {**res.seconds, **{c: (m if fine else tenths(m)) for c, m in means.items()}}
    res.value = tuple(len(ts) for ts in people.values())
    res.events = [e for c in top for e in people[c]] + [e for e in res.events if e.character_id not in top]

    def said(c: int) -> str:
        length = f"{means[c]:.2f} seconds" if fine else seconds_word(tenths(means[c]))
        return f"{length} over {len(people[c])} turn{'s' if len(people[c]) != 1 else ''}"

    lead = " and ".join(res.describe[c] for c in top)
    others = "; ".join(f"{res.describe[c]} {said(c)}" for c in means if c not in top)
    rest = f"; the others: {others}" if others else ""
    if rank == "closest":
        res.seconds[-1] = target   # type: ignore[assignment]
        return _cap(f"{lead}'s average turn was closest to {seconds_word(tenths(target))}{cond} "  # type: ignore[arg-type]
                    f"({'; '.join(said(c) for c in top)}){rest}.")
    word = "longest" if rank == "most" else "shortest"
    return _cap(f"{lead} had the {word} turns on average{cond} ({'; '.join(said(c) for c in top)}){rest}.")


def _pair(executor: QueryExecutor, q: Query, ask: AverageAsk, before_time: float | None) -> tuple[str, QueryResult]:
    """"Yes: A's turns were 1.9 seconds long on average (8 turns), B's 1.5 seconds (3 turns)."."""
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    # (the people as the question names them)
    ids = named_ids(executor, prepare(q), ask.pair or (ask.who or "",), res, before_time)
    if isinstance(ids, QueryResult):
        return phrase(ids), ids
    cond = conditions(res)
    if ask.overall:
        text = _against_all(res, [e for e in res.events if e.kind == "voice"], ids[0], ask, cond)
        return (REFUSAL if check(text, res) else text), res
    mine = {c: [e for e in res.events if e.kind == "voice" and e.character_id == c] for c in ids}
    for c in ids:
        if not mine[c]:
            return f"{_cap(res.describe[c])} never spoke{cond}, so I have no average turn of theirs.", res
    means = {c: tenths(sum(e.end - e.start for e in ts) / len(ts)) for c, ts in mine.items()}
    res.events = [e for c in ids for e in mine[c]] + [e for e in res.events if e.character_id not in ids]
    res.seconds = {**res.seconds, **means}
    res.value = tuple(len(ts) for ts in mine.values())
    res.steps.append({"step": "average turns compared", "turns": [len(mine[c]) for c in ids]})
    a, b = ids

    def said(c: int) -> str:
        return f"{seconds_word(means[c])} ({len(mine[c])} turn{'s' if len(mine[c]) != 1 else ''})"

    if means[a] == means[b]:
        text = f"{'No' if ask.yes_no else 'Neither'}: their turns were as long on " \
               f"average{cond}, {res.describe[a]}'s {said(a)} and {res.describe[b]}'s {said(b)}."
        return (REFUSAL if check(text, res) else _cap(text)), res
    hi, lo = (a, b) if means[a] > means[b] else (b, a)
    first, second = (lo, hi) if ask.shorter else (hi, lo)
    word = "shorter" if ask.shorter else "longer"
    body = f"{res.describe[first]}'s turns were {word} on average{cond}: {said(first)}, against " \
           f"{res.describe[second]}'s {said(second)}."
    if ask.yes_no:
        body = f"{'Yes' if first == a else 'No'}: {body}"
    text = _cap(body)
    return (REFUSAL if check(text, res) else text), res


def _rooms(executor: QueryExecutor, q: Query, ask: AverageAsk, before_time: float | None) -> tuple[str, QueryResult]:
    """"Yes: in the kitchen 2 turns, 2.0 seconds a turn on average; in the office 5 turns, 1.6 seconds." (each room's
    turns as the executor places them)."""
    results = [executor.run(replace(prepare(q), place=p), before_time) for p in ask.places]
    for r in results:
        if r.status != "ok":
            return phrase(r), r
    res = replace(results[0])
    res.events = [e for r in results for e in r.events]
    means, parts = [], []
    for p, r in zip(ask.places, results, strict=True):
        turns = [e for e in r.events if e.kind == "voice"]
        mean = round(sum(e.end - e.start for e in turns) / len(turns), 2) if turns else None
        means.append(mean)
        parts.append(f"in the {p} {len(turns)} turn{'s' if len(turns) != 1 else ''}" +
                     (f", {mean:.2f} seconds a turn on average" if mean is not None else ""))
    res.seconds = {**res.seconds, **{-1 - i: m for i, m in enumerate(means) if m is not None}}
    res.value = tuple(len([e for e in r.events if e.kind == "voice"]) for r in results)
    if None in means:
        text = f"I can't compare them: {'; '.join(parts)}."
        return _cap(text), res
    a, b = means
    yes = a < b if ask.shorter else a > b
    same = abs(a - b) < 0.05
    lead = "About the same" if same else ("Yes" if yes else "No") if ask.yes_no else \
        f"The {ask.places[0] if (a > b) != ask.shorter else ask.places[1]}'s"
    text = f"{lead}: {'; '.join(parts)}" + (" (a difference under a tenth of a second, within what detection tells "
                                             "apart)" if same else "") + "."
    problems = [x for x in check(_cap(text), res) if not x.startswith("count not in the result")]
    return (REFUSAL if problems else _cap(text)), res
