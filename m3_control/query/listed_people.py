"""How many (which) of the people a question lists did something: "how many of A, B and C spoke in the workshop?",
"which of A and B were heard after 1:00?", "did any of A, B or C speak in the kitchen?".

No one frame says this (a frame counts everyone, or one person), so it is one frame per listed person: their turns
in the frame's place and window, executed by code; the answer gives the number (or the ones who did), each person's
count, and who did not, every clause checked against that person's own result. A person nobody heard or several
people match is the answer instead (the executor's decline).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .choice import merge
from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, _cap, _join, check, conditions, phrase
from .result import QueryResult
from .turn_sequence import people_in
from .wording import QUOTED
from .words import times_word

_OF = re.compile(r"^\W*(?:(?P<how>how\s+many)|(?P<which>which|who)|(?P<any>did|were|was)\s+(?:any|either|both|all))"
                 r"\s+(?:(?:people|persons|ones)\s+)?(?:of|among|out\s+of)\s+", re.IGNORECASE)
_ACT = re.compile(r"\b(?:spoke|speak|talked|talk|said\s+(?:something|anything)|were\s+heard|was\s+heard|heard)\b",
                  re.IGNORECASE)
# an order, a rank or a comparison among them is another question (choice.py)
_NOT_THIS = re.compile(r"\b(?:first|last|earlier|later|more|most|less|fewer|least|longer|longest|shorter|shortest|"
                       r"before\s+the\s+other|"
                       r"right\s+(?:before|after)|how\s+many\s+times|times)\b|"
                       r"(?:'s|’s)\s+(?:turns|words|sentences|remarks)\b", re.IGNORECASE)   # ("how many of A's turns")


@dataclass(frozen=True)
class ListedAsk:
    kind: str                # count | which | any
    people: tuple[str, ...]  # their quoted words or names, as listed


def asks_listed(question: str) -> ListedAsk | None:
    plain = QUOTED.sub(" ", question)
    m = _OF.match(plain)
    people = people_in(question)
    if m is None or len(people) < 2 or not _ACT.search(plain) or _NOT_THIS.search(plain):
        return None
    kind = "count" if m.group("how") else "which" if m.group("which") else "any"
    return ListedAsk(kind, tuple(people))


def prepare(q: Query) -> Query:
    """Each listed person's turns in the frame's place and window."""
    return Query(find="count_times", act="spoke", place=q.place, from_=q.from_, to=q.to, at=q.at)


def answer(executor: QueryExecutor, q: Query, ask: ListedAsk, before_time: float | None) -> tuple[str, QueryResult]:
    results = [executor.run(replace(prepare(q), who=ref), before_time) for ref in ask.people]
    for res in results:
        if res.status != "ok":
            return phrase(res), res
    merged = merge(results, ask.kind)   # (each clause is checked against its own result below)
    where = conditions(results[0])
    names = [r.describe[r.who["who"].character_id] for r in results]  # type: ignore[index]
    counts = [int(r.value or 0) for r in results]
    did = [i for i, n in enumerate(counts) if n]
    merged.value = len(did)
    clauses = [(f"{names[i]} spoke {times_word(counts[i])}{where}", results[i]) for i in did]
    clauses += [(f"I did not hear {names[i]}{where}", results[i]) for i in range(len(results)) if i not in did]
    if any(check(text, res) for text, res in clauses):
        return REFUSAL, merged
    every = "; ".join(text for text, _ in clauses) + "."
    of = len(results)
    if ask.kind == "count":
        lead = f"{len(did) if did else 'None'} of the {of}"
    elif ask.kind == "any":
        lead = f"Yes, {len(did)} of the {of}" if did else "No"
    else:
        lead = _cap(_join([names[i] for i in did])) if did else "None of them"
    return f"{lead}: {every}", merged
