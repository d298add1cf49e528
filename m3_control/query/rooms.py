"""People by the places they were in: "who spoke in both rooms?", "who did I hear in just one room?", "how many
people were seen in more than one place?", "did anyone talk only in the kitchen?".

No frame field counts a person's places (``count_places`` is one person's number), so this runs one frame (everyone
selected in the question's window, by its act), places each turn on the robot's track, and keeps the people whose
set of places fits: all the places anyone was in, exactly one, more than one, or only the named one. The answer
lists each person with their places, and is checked against the result like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from m3_memory.store.where import find_place, load_places, robot_stays

from .execute import QueryExecutor
from .fidelity import act_of_question, quotes_of
from .frame import Query
from .phrase import REFUSAL, _cap, _join, check, phrase
from .polarity import YES_NO_QUESTION
from .result import QueryResult
from .words import times_word

_ROOM = r"(?:rooms?|places?|locations?|areas?|spots?)"
_ALL = re.compile(rf"\b(?:both|all|each|every)\s+(?:of\s+)?(?:the\s+|my\s+|our\s+|these\s+)?"
                  rf"(?:two\s+|three\s+|four\s+)?{_ROOM}\b", re.IGNORECASE)
_ONE = re.compile(rf"\b(?:(?:only|just|exactly)\s+(?:in\s+)?(?:one|1|a\s+single)(?:\s+of\s+(?:the|my|these)"
                  rf"(?:\s+two|\s+three)?)?|a\s+single|one\s+single)\s+{_ROOM}\b|"
                  rf"\b(?:one|1)\s+{_ROOM}\s+only\b|\bone\s+{_ROOM}\s+but\s+not\s+the\s+other\b|"
                  # "which person's turns were all in one room?", "whose talk was all in a single room?"
                  rf"\b(?:turns|talk|words|speech)\s+(?:were|was)\s+all\s+in\s+(?:one|a\s+single|the\s+same)\s+{_ROOM}\b",
                  re.IGNORECASE)
_MANY = re.compile(rf"\b(?:more\s+than\s+one|several|multiple|two\s+or\s+more|at\s+least\s+two|different|"
                   rf"two\s+different|various)\s+{_ROOM}\b", re.IGNORECASE)
# "who spoke in the most rooms?", "which person was seen in the fewest places?": people ranked by their places
_MOST = re.compile(rf"\b(?:the\s+)?(?P<w>most|fewest|least)\s+(?:number\s+of\s+)?(?:different\s+|distinct\s+)?"
                   rf"{_ROOM}\b", re.IGNORECASE)
# "in both the kitchen and the lab": the named places, all of them
_BOTH_NAMED = re.compile(r"\bboth\s+(?:in\s+)?(?:the\s+|my\s+)?(?P<a>[a-z]+(?:\s+room)?)\s+and\s+(?:in\s+)?"
                         r"(?:the\s+|my\s+)?(?P<b>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)
# ... "in the kitchen and the lab both", "in the kitchen and in the lab alike"
_NAMED_BOTH = re.compile(r"\b(?:in|at)\s+(?:the\s+|my\s+)(?P<a>[a-z]+(?:\s+room)?)\s+and\s+(?:also\s+)?"
                         r"(?:(?:in|at)\s+)?(?:the\s+|my\s+)(?P<b>[a-z]+(?:\s+room)?)\s+(?:both|alike)\b",
                         re.IGNORECASE)
# "did A speak in the office and the garage?" (no "both"): a yes / no question about one person in two named places
# asks for each of them, as "both" would ("or" asks for either: not this)
_PAIR_NAMED = re.compile(r"\b(?:spoke|speak|talk|talked|heard|seen|say\s+anything|said\s+anything)\s+(?:in|at)\s+"
                         r"(?:the\s+|my\s+)(?P<a>[a-z]+(?:\s+room)?)\s+and\s+(?:also\s+)?(?:(?:in|at)\s+)?"
                         r"(?:the\s+|my\s+)(?P<b>[a-z]+(?:\s+room)?)\s*[?.!]?\s*$", re.IGNORECASE)
_ONLY_IN = re.compile(r"\b(?:only|just|exclusively|solely)\s+(?:ever\s+)?(?:in|at)\s+(?:the\s+|my\s+|our\s+)?"
                      r"(?P<place>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)
_NAMED = re.compile(r"^\W*(?i:did|has|had|was|is)\s+([A-Z][a-z]+)\b(?!\s+(?:I|we)\b)")
_NOT_PLACES = frozenset(("one", "a", "two", "single", "once", "time", "there"))
_PEOPLE = re.compile(r"\b(?:who|whom|whose|anyone|anybody|someone|somebody|people|persons?|speakers?|voices?|"
                     r"everyone|everybody|faces?|nobody|no\s+one)\b", re.IGNORECASE)


@dataclass(frozen=True)
class RoomsAsk:
    kind: str               # all | one | many | only | named | every | person_many | most | fewest
    place: str | None = None   # only: the words naming the place
    places: tuple[str, ...] = ()   # named: the words naming the places, each of which the person was in
    who: str | None = None     # every: the one person the question names ("did A speak in every room I visited?")


def asks_rooms(question: str) -> RoomsAsk | None:
    """What the question asks of people's places, or None when it asks nothing about how many places."""
    quoted = quotes_of(question)
    named = _NAMED.match(question)
    both = _BOTH_NAMED.search(question) or _NAMED_BOTH.search(question) or _PAIR_NAMED.search(question)
    if both and YES_NO_QUESTION.match(question) and (len(quoted) == 1 or (named and not quoted)) and \
            not {both.group("a").lower(), both.group("b").lower()} & _NOT_PLACES:
        # "did A speak both in the office and in the garage?": one person (by their words or a name) in each of the
        # two places named
        return RoomsAsk("every", places=(both.group("a"), both.group("b")),
                        who=quoted[0] if quoted else named.group(1))  # type: ignore[union-attr]
    if _ALL.search(question) and YES_NO_QUESTION.match(question) and (len(quoted) == 1 or (named and not quoted)):
        # one person (by their words or a name) in each of the robot's rooms
        return RoomsAsk("every", who=quoted[0] if quoted else named.group(1))  # type: ignore[union-attr]
    if (m := _MOST.search(question)) and YES_NO_QUESTION.match(question) and (len(quoted) == 1 or
                                                                              (named and not quoted)):
        # "did A speak in the most rooms?": A among the people with the most places
        return RoomsAsk("most" if m.group("w").lower() == "most" else "fewest",
                        who=quoted[0] if quoted else named.group(1))  # type: ignore[union-attr]
    if _MANY.search(question) and YES_NO_QUESTION.match(question) and (len(quoted) == 1 or (named and not quoted)):
        # "was A ever heard in two different rooms?": one person's places, more than one or not
        return RoomsAsk("person_many", who=quoted[0] if quoted else named.group(1))  # type: ignore[union-attr]
    if quoted or not _PEOPLE.search(question):
        return None         # one named person's places is a frame of its own (find=where / count_places)
    plain = question
    if re.search(rf"\bhow\s+many\s+(?:different\s+|distinct\s+|separate\s+)?{_ROOM}\b", plain, re.IGNORECASE):
        return None         # "how many different rooms did people speak in?": the rooms counted (count_places)
    if (m := _MOST.search(plain)) is not None:
        return RoomsAsk("most" if m.group("w").lower() == "most" else "fewest")
    if _ONE.search(plain):
        return RoomsAsk("one")
    if _ALL.search(plain):
        return RoomsAsk("all")
    m = _BOTH_NAMED.search(plain) or _NAMED_BOTH.search(plain)
    if m and not {m.group("a").lower(), m.group("b").lower()} & _NOT_PLACES:
        return RoomsAsk("named", places=(m.group("a"), m.group("b")))
    if _MANY.search(plain):
        return RoomsAsk("many")
    m = _ONLY_IN.search(plain)
    if m and m.group("place").lower() not in _NOT_PLACES:
        return RoomsAsk("only", m.group("place"))
    return None


def places_named(executor: QueryExecutor, res: QueryResult, said: tuple[str, ...]) -> list[str] | str:
    """The memory's names of the places ``said`` names, in order; or, for one it has no place for, the answer that
    says so (``res`` marked ``unknown_place``)."""
    known, names = load_places(executor.store), []
    for words in said:
        place = find_place(known, words or "")
        if place is None:
            res.status, res.problem = "unknown_place", words or ""
            return f"I have no place called {words!r} in my memory."
        names.append(place.name)
    return names


def prepare(q: Query) -> Query:
    """The window of the model's frame, everyone in it (the question's people are chosen by their places here)."""
    return Query(find="who", act=q.act, from_=q.from_, to=q.to, at=q.at)


def _every_room(executor: QueryExecutor, q: Query, ask: RoomsAsk, act: str,
                before_time: float | None) -> tuple[str, QueryResult]:
    """"Did A speak in every room I visited?": A's places against the robot's rooms in the window (or against the
    two places the question names: "did A speak both in the office and in the garage?")."""
    res = executor.run(replace(prepare(q), act=act, who=ask.who), before_time)
    if res.status != "ok":
        return phrase(res), res
    executor.place_turns(res, res.events)
    mine = res.places_of(res.events)
    t1, t2 = res.read(q.from_), res.read(q.to)
    rooms = list(dict.fromkeys(p for p, a, b in robot_stays(executor.store, before_time)
                               if (t1 is None or b is None or b >= t1) and (t2 is None or a <= t2)))
    if ask.places:   # the places the question names, not every room the robot was in
        rooms = places_named(executor, res, ask.places)
        if isinstance(rooms, str):
            return rooms, res
    missed = [r for r in rooms if r not in mine]
    res.value = not missed and bool(rooms)
    res.steps.append({"step": "places every", "rooms": rooms, "theirs": mine})
    who = res.describe[res.who["who"].character_id]  # type: ignore[index]
    verb = {"spoke": "spoke", "seen": "was seen"}.get(act, "was seen or heard")
    if not rooms:
        return "I have no record of the rooms I went to.", res
    if not missed:
        return f"Yes, {who} {verb} in {'both' if len(rooms) == 2 else 'all of'} {_join([_the(r) for r in rooms])}.", res
    there = f"{verb} in {_join([_the(r) for r in mine])}" if mine else \
        {"spoke": "never spoke", "seen": "was never seen"}.get(act, "was never seen or heard")
    return f"No: {who} {there}, not in {_join([_the(r) for r in missed])}.", res


def _person_places(executor: QueryExecutor, q: Query, ask: RoomsAsk, act: str,
                   before_time: float | None) -> tuple[str, QueryResult]:
    """"Was A ever heard in two different rooms?": A's places in the window, each with when A was first there."""
    res = executor.run(replace(prepare(q), act=act, who=ask.who), before_time)
    if res.status != "ok":
        return phrase(res), res
    events = sorted(res.events, key=lambda e: (e.start, e.id))
    executor.place_turns(res, events)
    first: dict[str, object] = {}
    for e in events:
        if (name := res.places.get(e.id)) is not None:
            first.setdefault(name, e)
    res.value = len(first) >= 2
    res.events = list(first.values()) + [e for e in events if e not in first.values()]  # type: ignore[misc]
    res.steps.append({"step": "places of one person", "places": list(first)})
    who = res.describe[res.who["who"].character_id]  # type: ignore[index]
    verb = {"spoke": "spoke", "seen": "was seen"}.get(act, "was seen or heard")
    said = _join([f"{_the(p)} ({res.say(e.start)})" for p, e in first.items()])  # type: ignore[attr-defined]
    text = f"Yes, {who} {verb} in {len(first)} places: {said}." if len(first) >= 2 else \
        f"No, {who} {verb} only in {said}." if first else \
        f"No, {who} {({'spoke': 'never spoke', 'seen': 'was never seen'}.get(act, 'was never seen or heard'))}."
    return (REFUSAL if check(text, res) else text), res


def answer(executor: QueryExecutor, q: Query, ask: RoomsAsk, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    act = act_of_question(question) or (q.act if q.act in ("spoke", "seen") else "any")
    if ask.kind == "every":
        return _every_room(executor, q, ask, act, before_time)
    if ask.kind == "person_many":
        return _person_places(executor, q, ask, act, before_time)
    res = executor.run(replace(prepare(q), act=act), before_time)
    if res.status != "ok":
        return REFUSAL, res
    executor.place_turns(res, res.events)
    where: dict[int, list[str]] = {}
    for e in res.events:
        name = res.places.get(e.id)
        if name is not None and name not in where.setdefault(e.character_id, []):
            where[e.character_id].append(name)
    rooms = res.places_of(res.events)
    said = (ask.place or "",) if ask.kind == "only" else ask.places
    named = places_named(executor, res, said) if said else []
    if isinstance(named, str):
        return named, res
    # the most / fewest places anyone (placed at all) was in: a tie keeps everyone with that number
    ranked = [len(ps) for ps in where.values() if ps]
    mark = (max(ranked) if ask.kind == "most" else min(ranked)) if ranked else 0
    fits = {"all": lambda ps: len(rooms) >= 2 and set(ps) == set(rooms), "one": lambda ps: len(ps) == 1,
            "many": lambda ps: len(ps) >= 2, "only": lambda ps: ps == named,
            "named": lambda ps: set(named) <= set(ps),
            "most": lambda ps: bool(ps) and len(ps) == mark, "fewest": lambda ps: bool(ps) and len(ps) == mark,
            }[ask.kind]
    both_of_more = ask.kind == "all" and len(rooms) > 2 and re.search(r"\bboth\b", question, re.IGNORECASE)
    if both_of_more:   # "who spoke in both rooms?" when I was in three: who spoke in more than one, with theirs
        fits = lambda ps: len(ps) >= 2   # noqa: E731
    keep = [p for p in res.people if fits(where.get(p.character_id, []))]
    if ask.kind in ("most", "fewest") or both_of_more:   # each person's number of places: what the answer counts
        res.place_counts = {res.describe[cid]: len(ps) for cid, ps in where.items() if ps}  # type: ignore[index]
    res.people = keep
    res.events = sorted({e for p in keep for e in p.events}, key=lambda e: (e.start, e.end, e.id))
    res.value = [p.character_id for p in keep]
    res.steps.append({"step": f"places {ask.kind}" + (f" {', '.join(named)}" if named else ""), "rooms": rooms,
                      "people": len(keep)})
    verb = {"spoke": "spoke", "seen": "was seen"}.get(act, "was seen or heard")
    cond = {"all": f"in {'both' if len(rooms) == 2 else 'all of'} {_join([_the(r) for r in rooms])}",
            "one": "in only one place", "many": "in more than one place",
            "only": f"only in {_the(named[0]) if named else ''}",
            "named": f"in both {_join([_the(n) for n in named])}",
            "most": f"in the most places ({mark})", "fewest": f"in the fewest places ({mark})"}[ask.kind]
    if ask.kind in ("most", "fewest") and len(keep) > 1:   # a tie: "in 2 places each[, more than anyone else]"
        cond = f"in {mark} place{'s' if mark != 1 else ''} each"
        if len(keep) < len(ranked):
            cond += f", {'more' if ask.kind == 'most' else 'fewer'} than anyone else"
    if ask.kind == "all" and len(rooms) < 2:
        text = f"I only heard or saw people in one place{' (' + _the(rooms[0]) + ')' if rooms else ''}."
        return text, res
    listed = [f"{res.describe[p.character_id]} ({_join([_the(n) for n in where[p.character_id]])})"  # type: ignore[index]
              for p in keep]
    rank = _TALK_RANK.search(question)
    if rank and keep and ask.kind in ("all", "one", "many", "only", "named"):
        # "who was the most talkative person among those I heard in both rooms?": those people ranked by their turns
        return _ranked_among(res, keep, listed, rank, cond, rooms if both_of_more else [])
    if both_of_more:
        # and the robot's (the answer check refused "I was in 3 places" as a count the result did not hold)
        res.place_counts["the robot"] = len(rooms)
        every = [p for p in keep if set(where[p.character_id]) == set(rooms)]
        head = f"I was in {len(rooms)} places, not two ({_join([_the(r) for r in rooms])})"
        if not keep:
            text = f"{head}, and nobody {verb} in more than one of them."
        else:
            text = (f"{head}. {_cap(_join(listed))} {verb if len(keep) == 1 else _plural(verb)} in more than one; "
                    + (f"{_join([res.describe[p.character_id] for p in every])} in all {len(rooms)}."  # type: ignore[index]
                       if every else f"nobody in all {len(rooms)}."))
        return (REFUSAL, res) if check(text, res) else (text, res)
    if ask.who is not None:   # "did A speak in the most rooms?"
        return _one_of_most(executor, q, ask, act, before_time, res, where, keep, listed, verb, cond)
    low = question.lower().lstrip(" ¿")
    if re.match(r"\W*how\s+many\b", low):
        n = len(keep)
        text = (f"{n} {'person' if n == 1 else 'people'} {verb if n == 1 else _plural(verb)} {cond}: "
                f"{_join(listed)}.") if keep else f"Nobody {verb} {cond}."
    elif YES_NO_QUESTION.match(question):
        text = f"Yes: {_join(listed)} {verb if len(keep) == 1 else _plural(verb)} {cond}." if keep else \
            f"No, nobody {verb} {cond}."
    else:
        text = f"{_cap(_join(listed))} {verb if len(keep) == 1 else _plural(verb)} {cond}." if keep else \
            f"Nobody {verb} {cond}."
    if check(text, res):
        return REFUSAL, res
    return text, res


def _one_of_most(executor: QueryExecutor, q: Query, ask: RoomsAsk, act: str, before_time: float | None,
                 res: QueryResult, where: dict[int, list[str]], keep: list, listed: list[str], verb: str,
                 cond: str) -> tuple[str, QueryResult]:
    """Whether the one person the question names is among the people with the most (fewest) places."""
    mine = executor.run(replace(prepare(q), act=act, who=ask.who), before_time)
    if mine.status != "ok":
        return phrase(mine), mine
    cid = mine.who["who"].character_id  # type: ignore[index]
    who = res.describe[cid]  # type: ignore[index]
    theirs = where.get(cid, [])
    if any(p.character_id == cid for p in keep):
        others = [x for x, p in zip(listed, keep, strict=True) if p.character_id != cid]
        text = f"Yes, {who} {verb} in {len(theirs)} place{'s' if len(theirs) != 1 else ''} " \
               f"({_join([_the(n) for n in theirs])}), {'the most' if ask.kind == 'most' else 'the fewest'}" + \
               (f", as did {_join(others)}." if others else ".")
    else:
        text = f"No: {who} {verb} in {_join([_the(n) for n in theirs]) if theirs else 'no place I know'}; " \
               f"{_join(listed)} {verb if len(keep) == 1 else _plural(verb)} {cond}."
    return (REFUSAL, res) if check(text, res) else (text, res)


# "who was the most talkative person among those ...", "of the people heard in both rooms, who spoke the most?"
_TALK_RANK = re.compile(r"\b(?P<w>most|least)\s+(?:talkative|often|frequent\w*|turns)\b|\b(?:spoke|talked|speak|talk|"
                        r"said)\s+(?:the\s+)?(?P<v>most|least)\b", re.IGNORECASE)


def _ranked_among(res: QueryResult, keep: list, listed: list[str], rank: re.Match, cond: str,
                  rooms: list[str]) -> tuple[str, QueryResult]:
    """The people kept (by their places), ranked by their turns: "A spoke the most of those who spoke in both the
    porch and the lab: 8 times (the porch, the workshop and the lab); then B 6 times (...)"."""
    most = (rank.group("w") or rank.group("v")).lower() == "most"
    turns = {p.character_id: sum(1 for e in p.events if e.kind == "voice") for p in keep}
    best = (max if most else min)(turns.values())
    order = sorted(range(len(keep)), key=lambda i: -turns[keep[i].character_id] if most else
                   turns[keep[i].character_id])
    top = [i for i in order if turns[keep[i].character_id] == best]
    res.value = tuple(sorted(set(turns.values())))
    res.steps.append({"step": f"{'most' if most else 'least'} turns among them", "turns": turns})
    said = _join([listed[i] for i in top])
    rest = "; then " + ", ".join(f"{listed[i]} {times_word(turns[keep[i].character_id])}" for i in order
                                 if i not in top) if len(top) < len(keep) else ""
    head = f"I was in {len(rooms)} places, not two ({_join([_the(r) for r in rooms])}); of the people who spoke in " \
           f"more than one, " if rooms else "Of the people who spoke " + cond + ", "
    each = " each" if len(top) > 1 else ""
    text = f"{head}{said} spoke the {'most' if most else 'least'}: {times_word(best)}{each}{rest}."
    if rooms:
        res.place_counts["the robot"] = len(rooms)
    return (REFUSAL, res) if check(text, res) else (text, res)


def _plural(verb: str) -> str:
    return verb.replace("was ", "were ")


def _the(place: str) -> str:
    return place if place.lower().startswith("the ") else f"the {place}"


