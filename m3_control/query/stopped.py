"""Answers of a query that stopped: a quote nobody said or several people said, a name or a look nobody has, a place
the memory does not know, a time after the question, a turn a person never took, a place the person of a relation
never spoke in. Each says what stopped it; none answers about somebody else."""

from __future__ import annotations

import re

from .people import look_of
from .result import QueryResult
from .words import cap as _cap
from .words import join as _join
from .words import ordinal_word, times_word
from .words import said as _said
from .words import the_place as _the


def stopped(res: QueryResult) -> str:
    s, ref = res.status, res.problem
    if s == "future_time":
        return f"I have no memory of {ref} yet."
    if s == "no_such_turn":     # "right before A spoke for the third time" when A spoke twice
        key, _, n_ = ref.rpartition(":")      # ("until:2": the second turn of the frame's until)
        n = int(n_)
        if key == "turn":       # "the third thing said in the office" when two things were
            where = f" in {_the(res.query.place)}" if res.query.place else ""
            return f"I heard people speak only {times_word(int(res.value or 0))}{where}: there was no " \
                   f"{ordinal_word(n)} turn."
        d = res.describe[res.who[key or "other"].character_id]  # type: ignore[index]
        if n == -1:     # "between A's first and last turns" when A spoke once
            return f"{_cap(d)} spoke {times_word(int(res.value or 0))} in all: nothing lies between their first and " \
                   f"last turns."
        return f"{_cap(d)} spoke {times_word(int(res.value or 0))} in all: there was no {ordinal_word(n)} time."
    if s == "unknown_place":    # ("was I in the attic?": no, as far as memory goes: it knows no such place)
        lead = "No, not that I know of: I" if res.query.find == "yes" else "I"
        return f"{lead} don't know a place called \"{_said(ref)}\"."
    if s == "not_there":        # "... in the kitchen before A did?" when A never spoke there
        return _not_there(res, ref)
    who = next((w for w in res.who.values() if w.ref == ref), None)
    look = look_of(ref) if who is not None and who.how == "look" else None
    if look is not None:
        if s == "ambiguous_person":
            both = "both" if len(res.candidates) == 2 else "all"
            return f"I can't tell who you mean: {_join(res.candidates)} {both} looked {look}."
        return f"{'No, I' if res.query.find == 'yes' else 'I'} don't remember anyone looking {look}."
    if s == "ambiguous_person" and who is not None:
        return f"I can't tell who you mean: {_join(res.candidates)} both said something like \"{_said(ref)}\"."
    if who is not None and who.name_like:
        return f"I don't know anyone called {_said(ref)}."
    if res.query.find == "yes":
        return f"No, I never heard anyone say \"{_said(ref)}\"."
    return f"I don't remember anyone saying \"{_said(ref)}\"."


def _not_there(res: QueryResult, place: str) -> str:
    """The person of the relation never spoke in the place; "was C heard there before A?" says C's turns there too
    (the executor leaves them in ``res.events``)."""
    other = res.who["other"].character_id
    out = f"I did not hear {res.describe[other]} in {_the(place)}."  # type: ignore[index]
    w = res.who.get("who")
    if w is None or w.character_id is None or w.character_id == other:
        return out
    d = res.describe[w.character_id]
    if not res.events:
        return f"{out} I did not hear {d} there either."
    return f"{out} {_cap(d)} spoke there at {_join([res.say(e.start) for e in res.events])}."


def described_nobody(res: QueryResult, question: str, quoted: list[str]) -> str | None:
    """A person the question describes in its own words, not by a quote, a name or a look the faces hold ("did the
    person wearing a red hat speak?"), whom no record matches: the memory cannot tell, which is not "nobody said
    'red hat'". ``quoted``: what the question quotes (fidelity.quotes_of). None for any other result."""
    ref = res.problem
    if res.status != "unknown_person" or not ref or quoted:
        return None
    who = next((w for w in res.who.values() if w.ref == ref), None)
    if who is None or who.name_like or who.how in ("look", "role"):
        return None
    if re.search(rf"\b(?:say|said|says|saying|words?)\s+(?:that\s+)?\W*{re.escape(ref)}", question, re.IGNORECASE):
        return None       # "did anyone say close the gate?": words someone would have said
    return (f"I don't know who you mean by \"{_said(ref)}\": I know people by what they said, their names and how "
            "they looked.")
