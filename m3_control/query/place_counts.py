"""One person's turns in two places, compared: "did A speak more in the office or in the kitchen?", "did A talk
more often in the lab than in the office?", "where did A speak less, the garage or the library?"; and everyone's,
where the question names nobody ("were there more turns in the garden or in the office?"), or each person's ("who
spoke more in the kitchen than in the lab?": those with more turns in the first place).

No frame compares one person's counts in two places (``find=where`` says where they spoke; ``more`` / ``less``
compare two people), so this runs the frame once per place (``find=count_times`` there, the model's window kept)
and says which place had more of their turns, with both counts; each clause is checked against its own executed
result. A place the robot does not know, or a person nobody matches, is answered as that frame's result says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .combined import combined, run_each, union_people
from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query
from .phrase import REFUSAL, _join, check
from .polarity import YES_NO_QUESTION
from .result import QueryResult
from .turn_sequence import people_in
from .wording import QUOTED
from .words import seconds_word, tenths, times_word

_PLACE = r"(?:the\s+|my\s+)?(?P<{}>[a-z]+(?:\s+room)?)"
_COMPARE = r"(?P<word>more|less|fewer|most|least)\b(?:\s+(?:often|times|frequently|turns|talk|talking|speaking|" \
    r"speech|(?P<people>(?:different\s+)?(?:people|persons|speakers|voices)(?:\s+(?:speak|talk|spoke|talked|heard|" \
    r"were\s+heard))?)))?"
_FORMS = (
    # "did A speak more in the office or in the kitchen?", "... more often in the lab or the hallway?"
    re.compile(rf"\b{_COMPARE}\s*,?\s+(?:in|at)\s+{_PLACE.format('a')}\s+or\s+(?:in\s+|at\s+)?{_PLACE.format('b')}"
               r"(?:\s+(?:before|after|since|until|between|by|during|in\s+the\s+first)\b[^?]*)?\s*\??\s*$",
               re.IGNORECASE),
    # "did A speak more in the office than in the kitchen?"
    re.compile(rf"\b{_COMPARE}\s+(?:in|at)\s+{_PLACE.format('a')}\s+than\s+(?:in\s+|at\s+)?{_PLACE.format('b')}\b",
               re.IGNORECASE),
    # "who spoke in the library more often than in the lab?", "did A speak in the office less than in the kitchen?"
    re.compile(rf"\b(?:spoke|speak|talk(?:ed)?|heard)\s+(?:in|at)\s+{_PLACE.format('a')}\s+{_COMPARE}\s+than\s+"
               rf"(?:in\s+|at\s+)?{_PLACE.format('b')}\b", re.IGNORECASE),
    # "how many more times did A speak in the office than in the lab?", "how many fewer turns did A take in the lab
    # than the office?"
    re.compile(rf"^\W*how\s+many\s+{_COMPARE}\s+(?:did|had)\b[^?]*?\b(?:in|at)\s+{_PLACE.format('a')}\s+than\s+"
               rf"(?:in\s+|at\s+)?{_PLACE.format('b')}\b", re.IGNORECASE),
    # "did the bathroom have more turns than the lab?", "did the office get fewer speakers than the kitchen?"
    re.compile(rf"^\W*(?:did|does|has|had|was|were|is)\s+{_PLACE.format('a')}\s+(?:have|get|hold|had|see|hear|got)\s+"
               rf"{_COMPARE}\s+than\s+(?:in\s+|at\s+)?{_PLACE.format('b')}\b", re.IGNORECASE),
    # "where (in which room) did A speak more, the office or the kitchen?"
    re.compile(rf"^\W*(?:where|(?:in\s+)?(?:which|what)\s+(?:room|place))\b[^?]*?\b{_COMPARE}\s*[,:]?\s+"
               rf"(?:in\s+|at\s+)?{_PLACE.format('a')}\s+or\s+(?:in\s+|at\s+)?{_PLACE.format('b')}\s*\??\s*$",
               re.IGNORECASE),
)
_EACH = re.compile(r"^\W*(?:who|whom|which\s+(?:people|persons|speakers|voices|ones?|of\s+them)|how\s+many\s+(?:people|"
                   r"persons|speakers)|did\s+(?:anyone|anybody|someone|somebody|everyone|everybody|any\s+(?:one\s+)?(?:person|"
                   r"speaker|of\s+them)|a\s+(?:person|speaker)))\b", re.IGNORECASE)
_NOT_PLACES = frozenset(("one", "two", "time", "times", "often", "there", "here", "people", "person"))


@dataclass(frozen=True)
class PlaceCountsAsk:
    more: bool          # more (or less / fewer)
    places: tuple[str, str]
    people: bool = False   # different people ("were there more people in the garden or in the office?"), not turns
    each: bool = False     # "who spoke more in the kitchen than in the lab?": every person's two counts
    talk: bool = False     # "speak more" (not "more often"): the seconds of speech said beside the turns


def asks_place_counts(question: str) -> PlaceCountsAsk | None:
    """The two places whose counts of one person's turns the question compares, or None."""
    if len(quotes_of(question)) > 1:
        return None
    plain = QUOTED.sub(" quoted ", question)
    for form in _FORMS:
        m = form.search(plain)
        if m is None:
            continue
        a, b = m.group("a").lower(), m.group("b").lower()
        if a in _NOT_PLACES or b in _NOT_PLACES or a == b:
            return None
        people = bool(m.group("people"))
        if people and quotes_of(question):
            return None
        each = not quotes_of(question) and not people and bool(_EACH.match(question))
        talk = not people and not re.match(r"\S+\s+(?:often|times|frequently|turns)\b", m.group(0)[m.start("word") -
                                                                                              m.start():], re.I)
        return PlaceCountsAsk(m.group("word").lower() in ("more", "most"), (a, b), people, each, talk)
    return None


def prepare(q: Query, people: bool = False, question: str = "") -> Query:
    """The model's frame as one person's turns (its window kept; the place is each of the two in turn), or as
    everyone heard (``people``). A second person stays only as the ``question`` names them: "other='spoke in the
    porch'" is the place, misread."""
    rel = None if people or q.rel in ("with", "same_place") else q.rel
    q = replace(q, who=None, other=None) if people else q
    if q.other is not None and question and (q.other == q.who or q.other not in people_in(question)):
        q, rel = replace(q, other=None), None
    return replace(q, find="count_people" if people else "count_times", act="spoke", place=None, pick=None,
                   times=None, count=None, by=None, rel=rel, top=None, measure=None)


def answer(executor: QueryExecutor, q: Query, ask: PlaceCountsAsk, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    """(the answer, the first place's result, holding both places' turns for provenance)."""
    if ask.each:     # (the model's who= is no one the question names: "who=office" for "more in the office")
        return _each_in_two(executor, q, ask, question, before_time)
    quoted = quotes_of(question)
    who = None if ask.people else quoted[0] if len(quoted) == 1 else q.who
    frame = replace(prepare(q, ask.people, question), who=who, other=None if who is None or q.other == who else q.other)
    results, stopped = run_each(executor, [replace(frame, place=p) for p in ask.places], before_time)
    if stopped is not None:
        return stopped
    ra, rb = results
    if ask.people:
        return _people_in_two(ask, ra, rb, question)
    d = "people" if who is None else ra.describe[ra.who["who"].character_id]  # type: ignore[index]
    na, nb = int(ra.value or 0), int(rb.value or 0)
    pa, pb = (r.query.place or p for r, p in zip(results, ask.places, strict=True))
    if na == nb:
        text = (f"I did not hear {'anyone' if who is None else d} in the {pa} or in the {pb}." if na == 0 else
                f"Equally often: {d} spoke {times_word(na)} in the {pa} and {times_word(nb)} in the {pb}.")
    else:
        hi, lo = ((pa, na), (pb, nb)) if na > nb else ((pb, nb), (pa, na))
        first, second = (hi, lo) if ask.more else (lo, hi)
        if lo[1] == 0:   # (never in one of them)
            text = (f"In the {hi[0]}: {d} spoke there {times_word(hi[1])} and never in the {lo[0]}." if ask.more
                    else f"In the {lo[0]}: {d} never spoke there, and {times_word(hi[1])} in the {hi[0]}.")
        else:
            word, k = ("more" if ask.more else "fewer"), abs(na - nb)     # (the difference said: "how many more?")
            text = (f"In the {first[0]}: {d} spoke {k} {word} time{'s' if k != 1 else ''} there "
                    f"({times_word(first[1])}) than in the {second[0]} ({times_word(second[1])}).")
    if _yes_no_first(question):   # "did A speak more in the porch than in the workshop?": yes or no first
        text = f"{'Yes' if (na > nb if ask.more else na < nb) else 'No'}. {text}"
    merged = combined(results, "counts in two places")
    if ask.talk and who is not None and (na or nb):   # ("speak more" may mean for longer: both said)
        sa, sb = (tenths(sum(e.end - e.start for e in r.events if e.kind == "voice")) for r in results)
        merged.seconds = {**merged.seconds, -1: sa, -2: sb}
        text = text[:-1] + f"; by seconds of speech, {seconds_word(sa)} in the {pa} and {seconds_word(sb)} in the {pb}."
    merged.value = (na, nb, abs(na - nb))
    merged.place_counts = {pa: na, pb: nb}
    if check(text, merged):
        return REFUSAL, merged
    return text, merged


def _yes_no_first(question: str) -> bool:
    """"Did A speak more in the porch than in the workshop?", "did the lab have fewer speakers than the bathroom?": a
    yes or no leads the answer; "did A speak more in the lab or in the kitchen?" is a choice, answered by the place."""
    return bool(YES_NO_QUESTION.match(question)) and bool(re.search(r"\bthan\b", question, re.IGNORECASE))


def _people_in_two(ask: PlaceCountsAsk, ra: QueryResult, rb: QueryResult, question: str) -> tuple[str, QueryResult]:
    """"Were there more people in the garden or in the office?": the different people heard in each."""
    na, nb = int(ra.value or 0), int(rb.value or 0)
    pa, pb = (r.query.place or p for r, p in zip((ra, rb), ask.places, strict=True))
    if na == nb:
        text = f"The same number: I heard {na} different people in the {pa} and {nb} in the {pb}."
    else:
        hi, lo = ((pa, na), (pb, nb)) if na > nb else ((pb, nb), (pa, na))
        first, second = (hi, lo) if ask.more else (lo, hi)
        word, k = ("more" if ask.more else "fewer"), abs(na - nb)     # (the difference said: "how many more?")
        text = f"In the {first[0]}: I heard {k} {word} different {'person' if k == 1 else 'people'} there " \
            f"({first[1]}) than in the {second[0]} ({second[1]})."
    if _yes_no_first(question):   # "did the lab have fewer speakers than the bathroom?"
        text = f"{'Yes' if (na > nb if ask.more else na < nb) else 'No'}. {text}"
    merged = combined([ra, rb], "people in two places")
    merged.people = union_people([ra, rb])
    merged.value = (na, nb, abs(na - nb))
    if check(text, merged):
        return REFUSAL, merged
    return text, merged


def _each_in_two(executor: QueryExecutor, q: Query, ask: PlaceCountsAsk, question: str,
                 before_time: float | None) -> tuple[str, QueryResult]:
    """"Who spoke more in the kitchen than in the lab?": each person's turns in the two places, those with more
    (fewer) in the first named."""
    frame = replace(prepare(q, people=True), find="who")
    results, stopped = run_each(executor, [replace(frame, place=p) for p in ask.places], before_time)
    if stopped is not None:
        return stopped
    ra, rb = results
    pa, pb = (r.query.place or p for r, p in zip(results, ask.places, strict=True))
    na = {p.character_id: p.spoke for p in ra.people if p.spoke}
    nb = {p.character_id: p.spoke for p in rb.people if p.spoke}
    keep = [c for c in dict.fromkeys([*na, *nb]) if (na.get(c, 0) > nb.get(c, 0) if ask.more else
                                                      na.get(c, 0) < nb.get(c, 0))]
    merged = combined(results, "each person's counts in two places")
    merged.people = [p for p in union_people(results) if p.character_id in keep]
    merged.describe = {**rb.describe, **ra.describe}
    merged.value = (len(keep), *(n for c in keep for n in (na.get(c, 0), nb.get(c, 0))))   # the counts it states

    def told(c: int) -> str:
        a, b = na.get(c, 0), nb.get(c, 0)
        return (f"{merged.describe[c]} ({times_word(a) if a else 'never'} in the {pa}, "
                f"{times_word(b) if b else 'never'} in the {pb})")

    word = "more" if ask.more else "less"
    yes_no = bool(YES_NO_QUESTION.match(question))
    if not keep:
        text = f"{'No, n' if yes_no else 'N'}obody spoke {word} often in the {pa} than in the {pb}."
    elif yes_no:
        text = f"Yes: {_join([told(c) for c in keep])}."
    elif re.match(r"^\W*how\s+many\b", question, re.IGNORECASE):
        text = f"{len(keep)}: {_join([told(c) for c in keep])}."
    else:
        text = f"{_join([told(c) for c in keep])} spoke {word} often in the {pa} than in the {pb}."
        text = text[0].upper() + text[1:]
    if check(text, merged):
        return REFUSAL, merged
    return text, merged
