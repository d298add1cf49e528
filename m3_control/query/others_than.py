"""Everyone but one person, counted or named: "how many times did someone other than A speak?", "how many people
besides A did I hear in the lab?", "who other than A spoke after 0:30?".

A frame selects the people it names (``who=A``) or everyone; none selects everyone but one (``only=else`` is a
yes / no: turn_forms.py). The model wrote ``other=A`` or ``who=A`` for these and was answered about A. Here one
frame selects everyone heard in the question's place and window with their turns, the person excluded is resolved
as the frame would resolve them, and the answer counts or names the others, checked against that result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .execute import QueryExecutor
from .frame import Query, voice_turns
from .named_ids import named_into
from .phrase import REFUSAL, check, conditions, phrase
from .result import QueryResult
from .turn_forms import SEEING
from .wording import QUOTED
from .words import cap, join, times_word

_BUT = r"(?:other\s+than|besides|apart\s+from|aside\s+from|except(?:\s+for)?|excluding|not\s+counting)"
# the excluded person: their words ("the person who said X") or a name ("Ann")
_OTHER_THAN = re.compile(rf"\b{_BUT}\s+(?:the\s+(?:person|one|speaker|voice)\s+(?:who|that)\s+(?:said|says)\s+)?"
                         rf"(?:<Q(?P<q>\d+)>|(?P<name>(?-i:[A-Z][a-z]+))\b)", re.IGNORECASE)
_TIMES = re.compile(r"^\W*how\s+many\s+(?:times|turns)\b|^\W*how\s+often\b", re.IGNORECASE)
_PEOPLE = re.compile(r"^\W*how\s+many\s+(?:different\s+|other\s+)?(?:people|persons|speakers|voices|others)\b",
                     re.IGNORECASE)
# "how many turns did each person take?", "how many times did each speaker talk?": everyone's turns, each counted
_EACH = re.compile(r"^\W*how\s+(?:many\s+(?:times|turns)|often)\s+did\s+(?:each|every)\s+(?:person|speaker|one|voice|"
                   r"individual|of\s+them|participant)\b", re.IGNORECASE)
_WHO = re.compile(r"^\W*(?:who|whom|which\s+(?:people|persons|speakers|voices|others))\b", re.IGNORECASE)


@dataclass(frozen=True)
class OthersAsk:
    kind: str        # times | people | who | each (everyone's turns, each person's counted: no one left out)
    excluded: str    # the person left out: their words or name


def asks_others_than(question: str) -> OthersAsk | None:
    """Everyone but one person asked about (their turns counted, they counted, or named), else None."""
    quotes: list[str] = []

    def mark(m: re.Match) -> str:
        quotes.append(next(g for g in m.groups() if g))
        return f"<Q{len(quotes) - 1}>"

    marked = QUOTED.sub(mark, question)
    if _EACH.search(marked) and not quotes and not SEEING.search(marked):
        return OthersAsk("each", "")
    m = _OTHER_THAN.search(marked)
    if m is None or SEEING.search(marked) or len(quotes) > 1:
        return None
    kind = "times" if _TIMES.search(marked) else "people" if _PEOPLE.search(marked) else \
        "who" if _WHO.search(marked) else None
    if kind is None:
        return None
    return OthersAsk(kind, quotes[int(m.group("q"))] if m.group("q") is not None else m.group("name"))


def prepare(q: Query) -> Query:
    """Everyone heard in the frame's place and window, with their turns."""
    return voice_turns(q, other_turn=None, until_turn=None)


def answer(executor: QueryExecutor, q: Query, ask: OthersAsk, before_time: float | None) -> tuple[str, QueryResult]:
    frame = prepare(q)
    res = executor.run(frame, before_time)
    if res.status != "ok":
        return phrase(res), res
    if ask.kind == "each":
        return _each(res)
    named = named_into(executor, replace(frame, place=None, from_=None, to=None, at=None), ask.excluded, res,
                       before_time)
    if named.status != "ok":
        return phrase(named), named
    me = named.who["who"].character_id  # type: ignore[index]
    them = [p for p in res.people if p.character_id != me and p.spoke > 0]
    res.events = [e for e in res.events if e.kind == "voice" and e.character_id != me]
    res.people = them
    cond, excluded = conditions(res), res.describe[me]
    turns = sum(p.spoke for p in them)
    res.value = turns if ask.kind == "times" else len(them) if ask.kind == "people" else [p.character_id for p in them]
    res.steps.append({"step": f"everyone but {excluded}", "people": len(them), "turns": turns})
    if not them:
        text = f"Nobody other than {excluded} spoke{cond}."
    elif ask.kind == "times":
        text = f"People other than {excluded} spoke {times_word(turns)}{cond}: " + \
            join([f"{p.description} {times_word(p.spoke)}" for p in them]) + "."
    elif ask.kind == "people":
        text = f"{len(them)} {'person' if len(them) == 1 else 'people'} other than {excluded} spoke{cond}: " + \
            join([p.description for p in them]) + "."
    else:
        text = join([f"{p.description} ({times_word(p.spoke)})" for p in them]) + f" spoke{cond}, besides {excluded}."
    text = cap(text)
    return (REFUSAL if check(text, res) else text), res


def _each(res: QueryResult) -> tuple[str, QueryResult]:
    """"How many turns did each person take?": everyone heard, most turns first, with the turns in all."""
    them = sorted((p for p in res.people if p.spoke > 0), key=lambda p: -p.spoke)
    res.people, cond = them, conditions(res)
    turns = sum(p.spoke for p in them)
    res.value = turns
    res.events = [e for e in res.events if e.kind == "voice"]
    res.steps.append({"step": "each person's turns", "people": len(them), "turns": turns})
    if not them:
        return f"I heard nobody speak{cond}.", res
    n = len(them)
    text = cap(f"{n} {'person' if n == 1 else 'people'} spoke{cond}, {times_word(turns)} in all: " +
               join([f"{p.description} {times_word(p.spoke)}" for p in them]) + ".")
    return (REFUSAL if check(text, res) else text), res
