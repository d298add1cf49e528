"""Which side of a moment someone's turns were on: "did A speak before or after I entered the bathroom?", "was A
heard before or after 0:30?", "did A talk before or after B first spoke?"; and whether they did on both ("did A
speak both before and after 1:00?": yes or no, with the times on each side).

The moment is read as for "after" (the question is checked with "before or after" read as "after", so the regular
checks place it: a move on the robot's track, a clock time, another person's turn); the frame then runs on both
sides of it, and the answer says on which side(s) the person's turns were, with their times, each clause checked
against its own executed result.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .execute import QueryExecutor
from .fidelity import act_of_question, quotes_of
from .frame import TIMED_REL, Query
from .phrase import REFUSAL, check, phrase
from .polarity import YES_NO_QUESTION
from .quiet import stretches_without_speech
from .result import QueryResult
from .wording import QUOTED
from .words import cap, join

_EITHER = re.compile(r"\b(?:before\s+or\s+after|after\s+or\s+before|earlier\s+or\s+later\s+than|"
                     r"later\s+or\s+earlier\s+than|prior\s+to\s+or\s+after|"
                     # "did A speak both before and after 1:00?": a yes / no about the two sides
                     r"(?P<both>(?:both\s+)?(?:before\s+and\s+(?:also\s+)?after|after\s+and\s+(?:also\s+)?before)))\b",
                     re.IGNORECASE)


_SPLIT = re.compile(r"\b(?P<a>before|after)\s+(?P<m>[^?]+?),?\s+or\s+(?P<b>after|before)(?:\s+(?:it|that|then))?"
                    r"(?=\s*[?.!]*\s*$)", re.IGNORECASE)


def either_form(question: str) -> str:
    """"Did B speak before 0:15 or after?" as "did B speak before or after 0:15?" (the form the checks read)."""
    m = _SPLIT.search(question)
    if m is None or m.group("a").lower() == m.group("b").lower() or \
            re.search(r"\b(?:more|less|fewer|most|least|how\s+many)\b", question, re.IGNORECASE):
        return question     # ("were more sentences said before 0:30 or after?": two windows' counts compared)
    return question[:m.start()] + f"{m.group('a')} or {m.group('b')} {m.group('m')}" + question[m.end():]


def asks_side(question: str) -> bool:
    """The question asks on which side of one moment someone spoke or was seen ("before or after ..."), naming them
    by their words or asking about speaking / seeing (not "did he wash his hands before or after lunch?": what
    someone did is in the memories' text, not in the turn records)."""
    return bool(_EITHER.search(question)) and bool(quotes_of(question) or act_of_question(question)) and \
        not _ONE_OF.search(question)


# "was A's shortest turn before or after the middle?": where one turn (silence) a measure names lies, not where A
# spoke (measure_groups: the part that holds it)
_ONE_OF = re.compile(r"\b(?:longest|shortest|briefest|biggest)\s+(?:single\s+)?(?:turn|utterance|remark|silence|pause|"
                     r"gap)\b[^?]*?\bbefore\s+or\s+after\s+the\s+(?:middle|halfway\s+point|half(?:way)?\s+mark)\b",
                     re.IGNORECASE)


def check_question(question: str) -> str:
    """The question as the frame's checks read it: the moment as for "after"."""
    return _EITHER.sub("after", question, count=1)


def prepare(q: Query) -> Query:
    """The model's frame as the turns of one person after the moment (whatever it asked: a comparison, a count)."""
    rel = q.rel
    if rel in TIMED_REL:
        rel = "after_last" if rel.endswith("_last") else "after"
    elif q.other and rel is None:
        rel = "after"
    return replace(q, find="when", rel=rel, pick=None, times=None, count=None, by=None, until=None)


def answer(executor: QueryExecutor, q: Query, question: str, before_time: float | None) -> tuple[str, QueryResult]:
    """(the answer, one result holding the person's turns on both sides for provenance)."""
    both = _EITHER.search(question)
    if q.who is None and both is not None and both.group("both"):
        return _anyone_on_both_sides(executor, q, question, before_time)
    quiet = _LONGEST_QUIET.search(question[both.end():] if both else "")
    person = quotes_of(question)[0] if quotes_of(question) else \
        q.who if q.who and re.search(rf"\b{re.escape(q.who)}\b", question) else None
    if quiet is not None and person:     # "did C speak before or after the longest silence?"
        q = _around_longest_silence(executor, replace(q, who=person, other=None, rel=None), before_time)
        if q is None:
            return "I heard no silence between two turns.", executor.run(Query(find="who", act="spoke"), before_time)
    if q.who is None:
        return REFUSAL, executor.run(q, before_time)
    frames = _sides(q)
    if frames is None:         # no moment the checks could place: the frame as it is
        res = executor.run(replace(q, act=q.act if q.act in ("spoke", "seen") else "spoke"), before_time)
        return phrase(res), res
    after, before = frames
    act = after.act
    ra, rb = executor.run(after, before_time), executor.run(before, before_time)
    for res in (ra, rb):
        if res.status != "ok":
            return phrase(res), res
    cid = ra.who["who"].character_id
    d = ra.describe[cid]  # type: ignore[index]
    mine_a = [e for e in ra.events if e.character_id == cid and e is not ra.anchor]
    mine_b = [e for e in rb.events if e.character_id == cid and e is not rb.anchor]
    edge = _subject_edge(question)
    if edge is not None and mine_a + mine_b:
        # "did A first speak before or after ...?": A's first (last) turn only, on whichever side it was
        one = sorted(mine_a + mine_b, key=lambda e: (e.start, e.end))[0 if edge == "first" else -1]
        mine_a, mine_b = [e for e in mine_a if e is one], [e for e in mine_b if e is one]
    moment = "the longest silence" if quiet is not None else _moment(ra, question)
    verb = ("spoke" if act == "spoke" else "was seen") if edge is None else \
        (f"{edge} spoke" if act == "spoke" else f"was {edge} seen")
    heard = "hear" if act == "spoke" else "see"
    parts: list[tuple[str, QueryResult]] = []
    if mine_b and mine_a:
        parts = [(f"Both: {d} {verb} before {moment} (at {_times(rb, mine_b)})", rb),
                 (f"and after it (at {_times(ra, mine_a)})", ra)]
    elif mine_a:   # (one turn asked about: nothing to say of the other side)
        parts = [(f"After: {d} {verb} after {moment}, at {_times(ra, mine_a)}", ra)] + \
            ([(f"I did not {heard} them before it", rb)] if edge is None else [])
    elif mine_b:
        parts = [(f"Before: {d} {verb} before {moment}, at {_times(rb, mine_b)}", rb)] + \
            ([(f"I did not {heard} them after it", ra)] if edge is None else [])
    else:
        parts = [(f"I did not {heard} {d} before or after {moment}", ra)]
    merged = ra
    merged.events = sorted({*ra.events, *rb.events}, key=lambda e: (e.start, e.end, e.id))
    merged.steps = [{"step": "before or after", "frames": [after.compact(), before.compact()]}] + ra.steps + rb.steps
    if any(check(text, res) for text, res in parts):
        return REFUSAL, merged
    joiner = " " if mine_a and mine_b else "; "
    text = joiner.join(text for text, _ in parts) + "."
    both = _EITHER.search(question)
    if both is not None and both.group("both"):   # a yes / no: on both sides, or not
        text = ("Yes" if mine_a and mine_b else "No") + ", " + re.sub(r"^(?:Both|After|Before): ", "", text)
    if quiet is not None:     # (the silence's own times: computed above from the same turns)
        start = float(q.to)  # type: ignore[arg-type]
        text += f" The longest silence between turns was from {ra.say(start)} to " \
                f"{ra.say(float(q.from_) + min(1.0, (float(q.from_) - start) / 2))}."  # type: ignore[arg-type]
    return text, merged


# "before or after the longest silence (pause, gap, quiet stretch)?": the moment is that silence
_LONGEST_QUIET = re.compile(r"^\s*the\s+(?:longest|biggest|largest|longest\s+single)\s+(?:silence|pause|gap|lull|"
                            r"quiet\s+(?:stretch|spell|period))\b", re.IGNORECASE)


def _around_longest_silence(executor: QueryExecutor, q: Query, before_time: float | None) -> Query | None:
    """The frame after the longest silence between two turns (from its end), with ``to`` its start for the side
    before (:func:`_sides` reads ``from_`` and ``to``); None when no two turns have a silence between them."""
    res = executor.run(Query(find="who", act="spoke"), before_time)
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.end))
    gaps = stretches_without_speech(turns, turns[0].start, max(e.end for e in turns), 1e-6) if turns else []
    if not gaps:
        return None
    best = max(gaps, key=lambda g: g[1] - g[0])
    # (the turn that ends it is after it: a window holds the turns begun in it, speech onset included)
    return replace(q, act="spoke", from_=f"{best[1] - min(1.0, (best[1] - best[0]) / 2):.1f}", to=f"{best[0]:.1f}",
                   at=None, place=None)


def _sides(q: Query) -> tuple[Query, Query] | None:
    """The frame after the moment and the frame before it, or None when the checks placed no moment."""
    after = replace(q, act=q.act if q.act in ("spoke", "seen") else "spoke")
    if q.rel in ("after", "after_last") and q.other:
        return after, replace(after, rel=q.rel.replace("after", "before"))
    if q.from_ is not None and q.to is not None and q.rel is None and float(q.to) < float(q.from_):
        # around a span (the longest silence): after its end, before its start
        return replace(after, to=None), replace(after, from_=None, to=q.to)
    if q.from_ is not None and q.rel is None:
        return after, replace(after, from_=None, to=q.from_)
    return None


def _anyone_on_both_sides(executor: QueryExecutor, q: Query, question: str,
                          before_time: float | None) -> tuple[str, QueryResult]:
    """"Did anybody speak both before and after A's first words?", "who spoke both before and after 1:00?": the
    people with turns on each side (the moment's own turn not counted)."""
    frames = _sides(q)
    if frames is None:
        res = executor.run(q, before_time)
        return REFUSAL, res
    ra, rb = (executor.run(f, before_time) for f in frames)
    for res in (ra, rb):
        if res.status != "ok":
            return phrase(res), res
    sides = [{e.character_id for e in r.events if e is not r.anchor and e is not ra.anchor} for r in (ra, rb)]
    both = sorted(sides[0] & sides[1], key=lambda c: ra.describe.get(c, ""))
    moment = _moment(ra, question)
    merged = ra
    merged.events = sorted({*ra.events, *rb.events}, key=lambda e: (e.start, e.end, e.id))
    merged.steps = [{"step": "anyone on both sides", "frames": [f.compact() for f in frames]}] + ra.steps + rb.steps
    verb = "spoke" if frames[0].act == "spoke" else "was seen"
    merged.seconds = {**merged.seconds, -1: len(both)}      # (the number said, for the answer's check)
    if not both:
        text = f"No, nobody {verb} both before and after {moment}."
    else:
        people = join([ra.describe[c] for c in both])
        text = f"{'Yes, ' if YES_NO_QUESTION.match(question) else ''}{people} {verb} both before and after {moment}."
        if _HOW_MANY.match(question):   # "how many people spoke both before and after 0:30?": the number first
            text = f"{len(both)} {'person' if len(both) == 1 else 'people'} {verb} both before and after {moment}: " \
                f"{people}."
        text = cap(text)
    return (REFUSAL if check(text, merged) else text), merged


_HOW_MANY = re.compile(r"^\W*how\s+many\b", re.IGNORECASE)
_EDGE = re.compile(r"\b(first|last|final)\b", re.IGNORECASE)


def _subject_edge(question: str) -> str | None:
    """"first" ("last") when the question asks about the side of the person's first (last) turn only: the word
    before "before or after" ("did A first speak ...", "was A's last turn ..."), its quotes taken out."""
    m = _EITHER.search(question)
    if m is None:
        return None
    head = QUOTED.sub(" ", question[:m.start()])
    found = {w.lower().replace("final", "last") for w in _EDGE.findall(head)}
    return found.pop() if len(found) == 1 else None


def _times(res: QueryResult, events: list) -> str:  # noqa: ANN001
    says = list(dict.fromkeys(res.say(e.start) for e in events))
    return says[0] if len(says) == 1 else ", ".join(says[:-1]) + " and " + says[-1]


def _moment(res: QueryResult, question: str) -> str:
    """The moment in words with its time: another person's turn, or the question's own words for a move or a
    clock time."""
    if res.anchor is not None:
        last = (res.query.rel or "").endswith("_last")
        who = res.describe[res.anchor.character_id]  # type: ignore[index]
        return f"{who} {'spoke for the last time' if last else 'first spoke'} ({res.say(res.anchor.start)})"
    t = res.read(res.query.from_)
    m = _EITHER.search(question)
    words = question[m.end():].strip(" ?.!,") if m else ""
    when = res.say(t) if t is not None else ""
    if not words or words.replace(" ", "") == when.replace(" ", "") or re.fullmatch(r"[\d:.\s]+", words):
        return when
    return f"{words} ({when})"
