"""What lies between one turn and the next, over everyone's turns: the average silence between turns ("what was the
average gap between turns?", "on average, how long was the silence between two turns?"), whether two people's
turns overlapped ("did any two turns overlap?", "was there any moment when two people spoke at once?"), the turns
that began within N seconds of the one before ending ("how many turns started within five seconds of the previous
one ending?"), and the quickest reply ("what was the quickest reply, and who gave it?", "who answered fastest after
someone else stopped talking?": a turn of another person than the one before it, the shortest wait).

Code takes the voice turns in the frame's place and window, in order; a gap is from the end of everything said so
far to the next turn's start (overlapping speech leaves none). The answer states the figures with the count they
come from. Not the longest silence (silences.py), not one person's silences (person_gaps.py).
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, replace

from m3_memory.timeline import recording_halves

from .execute import QueryExecutor
from .frame import Query
from .named_ids import scope_and_people
from .phrase import REFUSAL, _cap, check, conditions, phrase
from .repair import time_of
from .result import QueryResult
from .turn_sequence import people_in
from .wording import QUOTED
from .words import AMOUNT, says_window, seconds_word, tenths

_AVERAGE_GAP = re.compile(r"\b(?:average|mean|typical|median|on\s+average)\b[^?]*\b(?:gap|silence|pause|break|"
                          r"wait)s?\b|"
                          r"\b(?:gap|silence|pause|break|wait)s?\b[^?]*\bon\s+average\b", re.IGNORECASE)
_BETWEEN_TURNS = re.compile(r"\bbetween\s+(?:two\s+|the\s+|consecutive\s+|successive\s+|one\s+turn\s+and\s+the\s+next|"
                            r"each\s+)?(?:turns|utterances|speakers|sentences|turn)\b|\bbetween\s+(?:one\s+turn\s+and\s+"
                            r"the\s+next|speakers)\b", re.IGNORECASE)
_OVERLAP = re.compile(r"\boverlap\w*\b|\b(?:two|both|several|multiple)\s+(?:people|persons|speakers|voices|of\s+them)\b"
                      r"[^?]*\b(?:at\s+once|at\s+the\s+same\s+time|simultaneously)\b|\b(?:talk|speak)(?:ed|ing|s)?\s+over\s+"
                      r"(?:someone|somebody|anyone|each\s+other|one\s+another)\b", re.IGNORECASE)

# "how many turns started within five seconds of the previous one ending?", "... less than 5 seconds after the turn
# before it ended?"
_QUICK = re.compile(rf"\b(?P<cmp>within|(?:less|fewer)\s+than|under|no\s+more\s+than|at\s+most)\s+(?P<n>{AMOUNT})\b"
                    r"[^?]*?\b(?:(?:the\s+)?(?:previous|preceding|prior|last|one\s+before)\s+(?:one|turn|speaker|"
                    r"person|sentence|utterance)?|(?:the\s+)?(?:turn|one|sentence)\s+before\s+(?:it|that|them)|someone|"
                    r"somebody|another\s+(?:turn|person|speaker))\b[^?]*?\b(?:end|ended|ending|stopp\w*|finish\w*)\b",
                    re.IGNORECASE)
_TURNS = re.compile(r"\b(?:turns?|replies|responses|answers|times)\b", re.IGNORECASE)
# "what was the quickest reply?", "who answered fastest after someone else stopped talking?", "who was quickest to
# respond?"
_QUICKEST = re.compile(r"\b(?:quickest|fastest|speediest|shortest|prompte?st)\s+(?:reply|response|answer|comeback|"
                       r"turnaround)\b|\b(?:answer|repl|respond|react)\w*\s+(?:the\s+)?(?:fastest|quickest|soonest|"
                       r"most\s+quickly|most\s+promptly)\b|\b(?:fastest|quickest|first)\s+to\s+(?:answer|reply|"
                       r"respond|react)\b", re.IGNORECASE)

# "which two consecutive turns were closest together in time?", "which two back-to-back turns had the smallest gap
# between them?": of every turn and the one before it (anyone's), the shortest wait
_CLOSEST_PAIR = re.compile(r"\b(?:consecutive|successive|back[\s-]to[\s-]back|adjacent|neighbou?ring)\s+turns\b[^?]*?"
                           r"\b(?:closest|nearest|smallest\s+(?:gap|pause|silence|break)|shortest\s+(?:gap|pause|"
                           r"silence|break)|least\s+time)\b|\b(?:closest|nearest)\s+(?:together\s+)?(?:two\s+)?"
                           r"(?:consecutive|successive|back[\s-]to[\s-]back)\s+turns\b", re.IGNORECASE)


@dataclass(frozen=True)
class GapsAsk:
    kind: str              # average | overlap | quick | quickest | closest (quickest, anyone after anyone)
    seconds: float = 0.0   # quick: N
    strict: bool = False   # quick: "less than N" (else "within N": N itself counts)
    question: str = ""     # average / total: the question (a part of the recording it names bounds the turns)
    person: str | None = None  # overlap: only the overlaps of this person's turns with someone else's


# "what was the total silence between turns in the lab?", "how much silence was there between turns in the bathroom in
# total?": every silence between one turn and the next added up
_TOTAL_GAP = re.compile(r"\btotal\s+(?:silence|pauses?|gaps?|quiet)\s+between\s+(?:the\s+)?turns\b|\bhow\s+much\s+"
                        r"(?:silence|quiet)\b[^?]*\bbetween\s+(?:the\s+)?turns\b[^?]*\b(?:in\s+total|altogether|in\s+all)\b|"
                        r"\b(?:silences|pauses|gaps)\s+between\s+(?:the\s+)?turns\b[^?]*\badd(?:ed)?\s+up\b",
                        re.IGNORECASE)


_RANKS_PEOPLE = re.compile(r"^\W*(?:who|whose|which\s+(?:person|speaker|one|voice))\b", re.IGNORECASE)


# "did A ever speak while someone else was speaking?", "was A ever talking at the same time as someone else?"
_WHILE_OTHER = re.compile(r"\b(?:speak|spoke|talk(?:ed)?|speaking|talking)\b[^?]*?\b(?:while|when|as)\s+(?:someone|"
                          r"somebody|anyone|anybody|another\s+person|others?|other\s+people)\s+(?:else\s+)?(?:was|were)\s+"
                          r"(?:also\s+|still\s+)?(?:speaking|talking)\b|\bat\s+the\s+same\s+time\s+as\s+(?:someone|"
                          r"somebody|anyone|anybody|another\s+person|others?|other\s+people)\b", re.IGNORECASE)


def asks_turn_gaps(question: str) -> GapsAsk | None:
    people = people_in(question)
    if people:      # "did A ever talk over someone else?": A's overlaps only
        plain = QUOTED.sub(" quoted ", question)
        overlap = len(people) == 1 and (_OVERLAP.search(plain) or _WHILE_OTHER.search(plain))
        return GapsAsk("overlap", person=people[0]) if overlap else None
    if _AVERAGE_GAP.search(question) and (_BETWEEN_TURNS.search(question) or re.search(
            r"\b(?:silences|pauses|gaps|lulls)\b", question, re.IGNORECASE)) and not _RANKS_PEOPLE.match(question):
        # ("who had the shortest average wait between turns?" ranks people: person_gaps)
        return GapsAsk("median" if re.search(r"\bmedian\b", question, re.IGNORECASE) else "average",
                       question=question)
    if _TOTAL_GAP.search(question) and not _RANKS_PEOPLE.match(question):
        return GapsAsk("total", question=question)
    if _OVERLAP.search(question):
        return GapsAsk("overlap")
    m = _QUICK.search(question)
    if m is not None and _TURNS.search(question[:m.start()]) and (n := time_of(m.group("n"))) is not None:
        return GapsAsk("quick", n, strict=m.group("cmp").lower() not in ("within", "no more than", "at most"))
    if _QUICKEST.search(question):
        return GapsAsk("quickest")
    if _CLOSEST_PAIR.search(question):
        return GapsAsk("closest")
    return None




def check_question(question: str) -> str:
    """The question as the frame's checks read it: turns "in a row" are this plan's to walk, not a form no frame
    says."""
    return re.sub(r"\b(?:consecutive|successive|back[\s-]to[\s-]back|in\s+a\s+row)\b", " ", question, flags=re.I)


def prepare(q: Query, question: str | None = None) -> Query:
    """Everyone's voice turns in the frame's place and window (no window where ``question`` says none)."""
    keep = question is None or says_window(question) or bool(recording_halves(question))
    return Query(find="who", act="spoke", place=q.place, from_=q.from_ if keep else None, to=q.to if keep else None)


def _part_window(executor: QueryExecutor, q: Query, question: str, before_time: float | None) -> Query:
    """The frame with the part of the recording the question names ("in the second half") as its window, where the
    frame has none."""
    if not question or q.from_ is not None or q.to is not None or not recording_halves(question):
        return q
    timeline = executor.store.timeline()
    spans = timeline.spans(question, timeline.now(before_time), executor.store.perceived_until(before_time))
    span = next((x for x in spans if x.start is not None and x.end is not None), None)
    return q if span is None else replace(q, from_=f"{span.start:.2f}", to=f"{span.end:.2f}")


def answer(executor: QueryExecutor, q: Query, ask: GapsAsk, before_time: float | None) -> tuple[str, QueryResult]:
    q = _part_window(executor, q, ask.question, before_time)
    res, ids = scope_and_people(executor, prepare(q, ask.question or None), [ask.person] if ask.person else [],
                                before_time)
    if ids is None:
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.end))
    cond = conditions(res)
    if len(turns) < 2:
        return f"I heard {'one turn' if turns else 'nobody speak'}{cond}, so there is nothing between turns.", res
    text = _total(res, turns, cond) if ask.kind == "total" else \
        _average(res, turns, cond, ask.kind == "median") if ask.kind in ("average", "median") else \
        _overlaps(res, turns, cond, ids[0] if ids else None) if ask.kind == "overlap" else \
        _quick(res, turns, cond, ask) if ask.kind == "quick" else \
        _quickest(res, turns, cond) if ask.kind == "quickest" else _closest_pair(res, _waits(turns), cond)
    return (REFUSAL if check(text, res) else _cap(text)), res


def _total(res: QueryResult, turns: list, cond: str) -> str:
    """"The silences between one turn and the next added up to 22.3 seconds (8 gaps between 9 turns)."."""
    gaps = [max(0.0, b.start - a.end) for a, b in zip(turns, turns[1:], strict=False)]
    total = sum(gaps)
    res.seconds = {**res.seconds, -1: tenths(total)}
    res.value = (len(gaps), len(turns))
    return f"The silences between one turn and the next{cond} added up to {seconds_word(tenths(total))} " \
           f"({len(gaps)} gaps between {len(turns)} turns)."


def _average(res: QueryResult, turns: list, cond: str, median: bool = False) -> str:
    """"The silences between one turn and the next averaged 3.6 seconds (12 gaps, from 2 to 8.7 seconds)." (or their
    median: the middle one, the mean of the middle two)."""
    gaps, reach = [], turns[0].end
    for e in turns[1:]:
        gaps.append(max(0.0, e.start - reach))
        reach = max(reach, e.end)
    mean, low, high = tenths(statistics.median(gaps) if median else sum(gaps) / len(gaps)), tenths(min(gaps)), \
        tenths(max(gaps))
    res.value = (len(gaps), len(turns))
    res.seconds = {**res.seconds, -1: mean, -2: low, -3: high}
    res.steps.append({"step": "silences between turns", "gaps": len(gaps)})
    if median:
        return f"the median silence between one turn and the next{cond} was {seconds_word(mean)} ({len(gaps)} gaps " \
               f"between {len(turns)} turns, from {seconds_word(low)} to {seconds_word(high)})."
    return f"the silences between one turn and the next{cond} averaged {seconds_word(mean)} ({len(gaps)} gaps " \
           f"between {len(turns)} turns, from {seconds_word(low)} to {seconds_word(high)})."


def _overlaps(res: QueryResult, turns: list, cond: str, cid: int | None = None) -> str:
    """"No: no two people's turns overlapped (13 turns)." or "Yes, twice: A and B at 00:12 (0.5 seconds); ..."
    (``cid``: only the overlaps of that person's turns)."""
    found = []
    for i, a in enumerate(turns):     # (by start: only the turns begun before this one ends can overlap it)
        for j in range(i + 1, len(turns)):
            b = turns[j]
            if b.start >= a.end:
                break
            if b.character_id != a.character_id and cid in (None, a.character_id, b.character_id):
                found.append((a, b))
    mine = sum(1 for e in turns if e.character_id == cid)
    res.value = (len(turns), len(found), mine)
    res.steps.append({"step": "overlapping turns", "pairs": len(found)})
    if not found and cid is not None:
        return f"No: {res.describe[cid]}'s turns never overlapped anyone else's{cond} ({mine} turns of theirs, " \
            f"{len(turns)} in all)."
    if not found:
        return f"No: no two people's turns overlapped{cond} ({len(turns)} turns)."
    res.events = list(dict.fromkeys(x for p in found for x in p)) + [e for e in turns if not any(e in p for p in found)]
    res.seconds = {**res.seconds, **{-i - 1: tenths(min(a.end, b.end) - b.start) for i, (a, b) in enumerate(found)}}
    each = "; ".join(f"{res.describe[a.character_id]} and {res.describe[b.character_id]} at {res.say(b.start)} "
                     f"({seconds_word(tenths(min(a.end, b.end) - b.start))})" for a, b in found)
    n = len(found)
    return f"yes, {'once' if n == 1 else 'twice' if n == 2 else f'{n} times'}{cond}: {each}."


def _waits(turns: list) -> list[tuple[object, object, float]]:
    """(the turn before, the turn, the seconds from the end of the one before to its start: below 0 where it began
    while the one before was still going on), each turn after the first."""
    return [(a, b, b.start - a.end) for a, b in zip(turns, turns[1:], strict=False)]


def _quick(res: QueryResult, turns: list, cond: str, ask: GapsAsk) -> str:
    """"4 of the 12 turns after the first began within 5 seconds of the one before ending: ... at 00:14 (1.2 seconds
    after ...)"."""
    n = ask.seconds
    hits = [(a, b, w) for a, b, w in _waits(turns) if (w < n if ask.strict else w <= n + 1e-6)]
    limit = f"{'less than' if ask.strict else 'within'} {seconds_word(tenths(n))}"
    res.value = (len(hits), len(turns) - 1, int(round(n)))
    res.seconds = {**res.seconds, **{-i - 1: tenths(max(0.0, w)) for i, (_, _, w) in enumerate(hits)}}
    res.steps.append({"step": f"turns begun {limit} of the one before ending", "turns": len(hits)})
    if not hits:
        return f"none of the {len(turns) - 1} turns after the first{cond} began {limit} after the one before it ended."
    res.events = [b for _, b, _ in hits] + [e for e in res.events if all(e is not b for _, b, _ in hits)]
    each = "; ".join(f"{res.describe[b.character_id]} at {res.say(b.start)} " +
                     (f"({seconds_word(tenths(w))} after {res.describe[a.character_id]} stopped)" if w > 0 else
                      f"(before {res.describe[a.character_id]} had finished)") for a, b, w in hits)
    return f"{len(hits)} of the {len(turns) - 1} turns after the first{cond} began {limit} after the one before " \
        f"it ended: {each}."


def _quickest(res: QueryResult, turns: list, cond: str) -> str:
    """"The quickest reply was B's at 00:14, 0.4 seconds after A stopped (A at 00:10)": of the turns that follow
    another person's turn, the one that began soonest after it ended."""
    replies = [(a, b, w) for a, b, w in _waits(turns) if a.character_id != b.character_id]
    if not replies:
        return f"nobody replied to anyone{cond}: every turn followed one of the same person's."
    best = min(w for _, _, w in replies)
    top = [(a, b, w) for a, b, w in replies if w <= best + 0.05]
    res.events = [x for a, b, _ in top for x in (b, a)] + [e for e in res.events if all(e is not a and e is not b
                                                                                         for a, b, _ in top)]
    res.seconds = {**res.seconds, -1: tenths(max(0.0, best))}
    res.value = (len(replies), len(top))
    res.steps.append({"step": "replies (a turn after another person's)", "replies": len(replies)})

    def one(a, b, w) -> str:  # noqa: ANN001
        wait = f"{seconds_word(tenths(w))} after" if w > 0.05 else "right as" if w > -0.05 else "before"
        stop = "stopped" if w > -0.05 else "had finished"
        return f"{res.describe[b.character_id]} at {res.say(b.start)}, {wait} {res.describe[a.character_id]} " \
            f"{stop} ({res.describe[a.character_id]} had begun at {res.say(a.start)})"

    if len(top) == 1:
        return f"the quickest reply{cond} (of {len(replies)} replies) was {one(*top[0])}."
    return f"{len(top)} replies tie as the quickest{cond} (of {len(replies)} replies): " \
        f"{'; '.join(one(*t) for t in top)}."


def _closest_pair(res: QueryResult, pairs: list, cond: str) -> str:
    """"The two turns in a row closest together were A's at 00:20 and B's at 00:24, 1.9 seconds apart (end to
    start)": of every two turns in a row (:func:`_waits`, one person's two included), every tie said."""
    best = min(w for _, _, w in pairs)
    top = [(a, b, w) for a, b, w in pairs if w <= best + 0.05]
    res.events = [x for a, b, _ in top for x in (a, b)] + [e for e in res.events if all(e is not a and e is not b
                                                                                         for a, b, _ in top)]
    res.seconds = {**res.seconds, -1: tenths(max(0.0, best))}
    res.value = (len(pairs) + 1, len(top))
    res.steps.append({"step": "two turns in a row, closest together", "pairs": len(pairs)})

    def one(a, b, w) -> str:  # noqa: ANN001
        apart = f"{seconds_word(tenths(w))} apart, end to start" if w > 0.05 else "with no pause between them"
        return f"{res.describe[a.character_id]} at {res.say(a.start)} and {res.describe[b.character_id]} at " \
            f"{res.say(b.start)}, {apart}"

    if len(top) == 1:
        return f"the two turns in a row closest together{cond} (of {len(pairs) + 1} turns) were {one(*top[0])}."
    return f"{len(top)} pairs of turns in a row tie as the closest together{cond} (of {len(pairs) + 1} turns): " \
        f"{'; '.join(one(*t) for t in top)}."
