"""How long the talk went on, first words to last: "how long did the conversation last?", "how much time passed
between the first and the last words anyone said?", "for how long were people talking in the hallway?" (as a
stretch of time, not the sum of the turns, which ``find=how_long`` gives: "how long did people talk in all?").

One frame selects every voice turn in the question's place and window; the span runs from the start of the first to
the end of the last, and the answer states both times and the seconds between, checked against the result. A place
the robot was in more than once has one stretch per visit (the talk there is not one conversation). One person's
stretch ("how long was it between A's first and last words?") runs from the start of their first turn to the start
of their last, and someone who spoke once is said to have spoken once.
"""

from __future__ import annotations

import re
from dataclasses import replace

from m3_memory.store.where import robot_stays

from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query
from .phrase import REFUSAL, check, conditions, phrase, seconds_word
from .result import QueryResult
from .turn_order import own_turns_gap, turns_in_places
from .wording import QUOTED

_HOW_LONG = re.compile(r"\b(?:how\s+long|how\s+much\s+time|for\s+how\s+long|how\s+many\s+(?:seconds|minutes)|"
                       r"(?:what\s+was\s+)?the\s+(?:duration|length)\s+of)\b", re.IGNORECASE)
_TALK = r"(?:conversation|talk(?:ing)?|discussion|chat(?:ting)?|chatter|exchange|dialog(?:ue)?|speaking)"
# the talk as one stretch that lasted: "did the conversation last", "did the talking go on", "the length of the chat"
_STRETCH = re.compile(rf"\b{_TALK}\b[^?.!]*?\b(?:last|lasted|go\s+on|went\s+on|take|took|run|ran|continue|continued|"
                      rf"span|spanned)\b|\b(?:duration|length)\s+of\s+(?:the\s+)?(?:whole\s+|entire\s+)?{_TALK}\b",
                      re.IGNORECASE)
# "between the first and the last words", "from the first thing said to the last", "between the first and last words"
_FIRST_TO_LAST = re.compile(r"\b(?:between|from)\s+the\s+(?:very\s+)?first\b[^?.!]*?\b(?:and|to|until|till)\s+"
                            r"(?:the\s+(?:very\s+)?last\b(?!\s+(?:turns?|sentences?|utterances?|remarks?)\b)|"
                            r"last\s+words\b)", re.IGNORECASE)   # (turns: turn_order's, the time between two turns)
_IN_ALL = re.compile(r"\b(?:in\s+(?:all|total)|altogether|combined|all\s+together|added\s+up)\b", re.IGNORECASE)


# "between A's first and last words", "from A's first turn to their last one"
_OWN_FIRST_TO_LAST = re.compile(r"\b(?:between|from)\b[^?.!]*?\bfirst\s+(?:words?|turn|time|thing\s+(?:they|he|she)\s+"
                                r"said)?\s*(?:and|to|until|till)\s+(?:the\s+|their\s+|his\s+|her\s+)?(?:very\s+)?"
                                r"last\b", re.IGNORECASE)


def asks_span(question: str) -> bool:
    """The question asks how long the talk went on as one stretch (not a total): everyone's, or one quoted
    person's from their first words to their last."""
    if not _HOW_LONG.search(question) or _IN_ALL.search(question) or turns_in_places(question):
        return False
    quoted = quotes_of(question)
    if quoted and re.search(r"\bthe\s+(?:first|last|final)\s+(?:turn|words|sentence)\s+(?:in|at)\s+the\s+[a-z]+",
                            QUOTED.sub(" ", question), re.IGNORECASE):
        return False     # ("from A's first turn to the last turn in the lab": a room's turn, turn_order's)
    if quoted:
        # ("the gap between A's first and last turns": turn_order's, which also says the silence and turns between)
        return len(quoted) == 1 and bool(_OWN_FIRST_TO_LAST.search(QUOTED.sub(" them ", question))) and \
            not own_turns_gap(question)
    return bool(_STRETCH.search(question) or _FIRST_TO_LAST.search(question))


def prepare(q: Query) -> Query:
    """Everyone's turns in the model's place and window."""
    return Query(find="how_long", act="spoke", place=q.place, from_=q.from_, to=q.to)


def answer(executor: QueryExecutor, q: Query, before_time: float | None,
           question: str = "") -> tuple[str, QueryResult]:
    quoted = quotes_of(question)
    if len(quoted) == 1:
        return _own_span(executor, q, quoted[0], before_time)
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return REFUSAL, res
    voiced = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.end))
    cond = conditions(res)
    if not voiced:
        res.value = 0
        return f"I heard nobody speak{cond}.", res
    visits = _visits(executor, res.query.place, voiced, before_time)
    if len(visits) > 1:       # the robot was in the place more than once: each visit's talk is its own stretch
        return _per_visit(res, visits)
    first, last = voiced[0], max(voiced, key=lambda e: (e.end, e.start))
    secs = int(round(last.end - first.start))
    res.value = secs
    res.events = sorted({first, last}, key=lambda e: (e.start, e.end, e.id))
    res.steps.append({"step": "first to last words", "from": first.start, "to": last.end})
    span = seconds_word(secs)
    if first is last:
        text = f"I heard only one turn{cond}: {span}, from {res.say(first.start)} to {res.say(last.end)}."
    else:
        text = (f"The talk{cond} went on for {span}: from the first words at {res.say(first.start)} to the end of the "
                f"last at {res.say(last.end)}.")
    if check(text, res):
        return REFUSAL, res
    return text, res


def _own_span(executor: QueryExecutor, q: Query, who: str, before_time: float | None) -> tuple[str, QueryResult]:
    """From the start of one person's first turn to the start of their last."""
    res = executor.run(replace(prepare(q), who=who), before_time)
    if res.status != "ok" or "who" not in res.who:
        return phrase(res), res
    cid = res.who["who"].character_id
    d = res.describe[cid]  # type: ignore[index]
    mine = sorted((e for e in res.events if e.kind == "voice" and e.character_id == cid),
                  key=lambda e: (e.start, e.end))
    cond = conditions(res)
    if not mine:
        res.value = 0
        return f"I did not hear {d}{cond}.", res
    first, last = mine[0], mine[-1]
    res.events = sorted({first, last}, key=lambda e: (e.start, e.end, e.id))
    secs = int(round(last.start - first.start))
    res.value = secs
    res.steps.append({"step": "one person's first to last words", "from": first.start, "to": last.start})
    if first is last:
        text = f"{d[:1].upper() + d[1:]} spoke only once{cond}, at {res.say(first.start)}: their first words were " \
            "also their last."
    else:
        text = (f"{seconds_word(secs)} passed between the first words of {d}{cond} (at {res.say(first.start)}) and "
                f"their last (at {res.say(last.start)}).")
        text = text[:1].upper() + text[1:]
    return (REFUSAL if check(text, res) else text), res


_NTH = ("first", "second", "third", "fourth", "fifth", "sixth")


def _visits(executor: QueryExecutor, place: str | None, voiced: list, before_time: float | None) -> list[list]:
    """The place's turns grouped by the robot's stays there (one group when no place or one stay)."""
    if not place:
        return [voiced]
    stays = [(a, b) for p, a, b in robot_stays(executor.store, before_time) if p.lower() == place.lower()]
    groups = [[e for e in voiced if a - 1.0 <= e.start and (b is None or e.start <= b + 1.0)] for a, b in stays]
    groups = [g for g in groups if g]
    return groups if len(groups) > 1 and sum(map(len, groups)) == len(voiced) else [voiced]


def _per_visit(res: QueryResult, visits: list[list]) -> tuple[str, QueryResult]:
    spans, parts, edges = [], [], []
    for i, group in enumerate(visits[:len(_NTH)]):
        first, last = group[0], max(group, key=lambda e: (e.end, e.start))
        secs = int(round(last.end - first.start))
        spans.append(secs)
        edges += [first, last]
        parts.append(f"{secs} second{'s' if secs != 1 else ''} the {_NTH[i]} time I was there (from "
                     f"{res.say(first.start)} to {res.say(last.end)})")
    res.value = tuple(spans)
    res.events = sorted(set(edges), key=lambda e: (e.start, e.end, e.id))
    res.steps.append({"step": "first to last words per visit", "visits": len(spans)})
    text = f"The talk{conditions(res)} went on for " + ", ".join(parts[:-1]) + " and " + parts[-1] + "."
    if check(text, res):
        return REFUSAL, res
    return text, res


# "whose turns spanned the longest stretch of time, from their first to their last?", "which speaker was heard over
# the longest span, first words to last?": everyone's own stretch (start of first turn to start of last), ranked
_RANKED_SPAN = re.compile(r"^\W*(?:whose|who|which\s+(?:speaker|person|one|voice))\b[^?]*?\b(?:spann?\w*|stretch\w*|"
                          r"spread\w*|from\s+(?:their\s+)?first\s+(?:(?:words|turn)\s+)?to\s+(?:their\s+)?last)\b[^?]*?"
                          r"|^\W*(?:whose|who|which\s+(?:speaker|person|one|voice))\b[^?]*?\b(?:longest|widest|shortest|"
                          r"narrowest)\s+(?:span|stretch)\b", re.IGNORECASE)
_WIDEST = re.compile(r"\b(?:longest|widest|most|greatest|biggest|largest)\b", re.IGNORECASE)
_NARROWEST = re.compile(r"\b(?:shortest|narrowest|least|smallest)\b", re.IGNORECASE)


def asks_ranked_span(question: str) -> str | None:
    """"most" / "least" when the question ranks people by the stretch from their first to their last words."""
    if quotes_of(question) or not _RANKED_SPAN.search(question):
        return None
    if _NARROWEST.search(question):
        return "least"
    return "most" if _WIDEST.search(question) else None


def answer_ranked_span(executor: QueryExecutor, q: Query, rank: str,
                       before_time: float | None) -> tuple[str, QueryResult]:
    """"A's turns spanned the longest: 65 seconds, from 00:01 to 01:07; the others: B 27 seconds (00:06 to 00:33)"."""
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    own: dict[int, list] = {}
    for e in sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.end)):
        own.setdefault(e.character_id, []).append(e)
    cond = conditions(res)
    if not own:
        return f"I heard nobody speak{cond}.", res
    span = {c: int(round(ts[-1].start - ts[0].start)) for c, ts in own.items()}
    best = (max if rank == "most" else min)(span.values())
    top = [c for c in own if span[c] == best]
    res.value = tuple(span.values())
    res.events = [e for c in top for e in (own[c][0], own[c][-1])] + \
        [e for c in own if c not in top for e in (own[c][0], own[c][-1])]
    res.steps.append({"step": "each person's first to last words", "people": len(own)})

    def said(c: int) -> str:
        ts = own[c]
        return f"{seconds_word(span[c])} ({res.say(ts[0].start)} to {res.say(ts[-1].start)})" if len(ts) > 1 else \
            f"once ({res.say(ts[0].start)})"

    word = "longest" if rank == "most" else "shortest"
    lead = " and ".join(res.describe[c] for c in top)
    others = "; ".join(f"{res.describe[c]} {said(c)}" for c in own if c not in top)
    text = f"{lead}'s turns spanned the {word} stretch{cond}, first words to last: " \
           f"{'; '.join(said(c) for c in top)}{f'; the others: {others}' if others else ''}."
    return (REFUSAL if check(text, res) else text[:1].upper() + text[1:]), res
