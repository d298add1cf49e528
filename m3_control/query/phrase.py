"""The answer sentence of an executed query, built only from its result, and the check that refuses any answer that
names a person, quote, time, place or count the result does not contain.

When the query could not be answered (a quote nobody said, two people who said it, a place the memory does not
know, a time after the question, nobody matching), the sentence says so; it never falls back to somebody else.
"""

from __future__ import annotations

import re

from .frame import compares_with_other, count_rank, pick_ordinal, rel_base
from .gap_phrase import gap_answer as _gap
from .ranking import tie_across_top
from .result import PersonRow, QueryResult, both_people, busiest_place
from .robot_track import not_there_answer, where_answer
from .stopped import stopped as _stopped
from .talk_seconds import said_decimals
from .talk_time import phrase_compared
from .turn_forms import near_hint, turn_form_answer
from .words import ORD, how_often, ordinal_word, seconds_word, spoke_times, then_at, times_word
from .words import cap as _cap
from .words import join as _join
from .words import said as _said
from .words import the_place as _the

_QUOTE = re.compile(r'"([^"]*)"')
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b")
_NUMBER = re.compile(r"\b\d+\b")
_ORD = ORD
REFUSAL = "I can't answer that reliably from my memory."


def _turn_rank(q, n: int | None) -> str:  # noqa: ANN001
    """"third", "second to last", "last" for a by=turn pick."""
    if q.pick == "last" or n is None:
        return "last"
    return ordinal_word(n)


def _last_turn(p: PersonRow) -> float:
    """When a person's last event began: the time "A spoke last (01:25)" says, as "when did A last speak?" does
    (``PersonRow.last``, when it ended, orders people)."""
    return max(p.events, key=lambda e: (e.end, e.start)).start


def conditions(res: QueryResult) -> str:
    """The query's filters in words (" in the kitchen between 00:40 and 00:55")."""
    q = res.query
    out = []
    if q.place:
        out.append(f" in the {q.place.lower().removeprefix('the ')}")
    if q.not_place:
        away = [n.lower().removeprefix("the ") for n in q.not_places()]
        out.append(f" in neither the {away[0]} nor the {' nor the '.join(away[1:])}" if len(away) > 1 and not q.place
                   else f"{' but' if q.place else ''} never in the {' or the '.join(away)}")
    t1, t2, at = res.read(q.from_), res.read(q.to), res.read(q.at)
    if t1 is not None and t2 is not None:
        out.append(f" between {res.say(min(t1, t2))} and {res.say(max(t1, t2))}")
    elif t1 is not None:
        out.append(f" after {res.say(t1)}")
    elif t2 is not None:
        out.append(f" before {res.say(t2)}")
    if at is not None:
        out.append(f" at {res.say(at)}")
    if q.until and res.anchor is not None and res.until_anchor is not None:
        a, b = sorted((res.anchor, res.until_anchor), key=lambda e: (e.start, e.end))
        if a.character_id == b.character_id:    # "between A's first and second turns"
            nth = "last" if q.until_turn == "last" else ordinal_word(int(q.until_turn or 1))
            out.append(f" between {res.describe[a.character_id]}'s {ordinal_word(int(q.other_turn or 1))} and "  # type: ignore[index]
                       f"{nth} turns ({res.say(a.start)} and {res.say(b.start)})")
            return "".join(out)
        out.append(f" between {res.describe[a.character_id]} ({res.say(a.start)}) and "  # type: ignore[index]
                   f"{res.describe[b.character_id]} ({res.say(b.start)})")  # type: ignore[index]
    elif q.rel == "same_place" and "other" in res.who:
        verb = {"spoke": "heard", "seen": "saw"}.get(q.act or "", "saw or heard")
        out.append(f" in a place where I also {verb} {res.describe[res.who['other'].character_id]}")  # type: ignore[index]
    elif q.rel == "with" and res.anchor is not None:
        out.append(f" in view together with {res.describe[res.anchor.character_id]}")  # type: ignore[index]
    elif q.rel and res.anchor is not None:
        who = res.describe[res.anchor.character_id]  # type: ignore[index]
        if q.other_act == "seen":   # the moment the person was seen (sight_anchor.py)
            nth = "last" if q.rel.endswith("_last") else "first"
            out.append(f" {rel_base(q.rel).replace('_', ' ')} I {nth} saw {who} ({res.say(res.anchor.start)})")
        elif q.rel.endswith("_last") or q.other_turn:
            rel = (rel_base(q.rel) or "").replace("_", " ")
            nth = ordinal_word(int(q.other_turn)) if q.other_turn else "last"
            there = " there" if q.other_there and q.place else ""   # (their last turn in the place: sight_anchor.py)
            out.append(f" {rel} {who} spoke for the {nth} time{there} ({res.say(res.anchor.start)})")
        else:
            out.append(f" {q.rel.replace('_', ' ')} {who} ({res.say(res.anchor.start)})")
    return "".join(out)


def phrase(res: QueryResult) -> str:
    q = res.query
    if res.status != "ok":
        return _stopped(res)
    cond = conditions(res)
    if res.absent is not None:   # the robot was elsewhere then: nothing there could be heard, not "nobody"
        return not_there_answer(res, cond)
    if (special := turn_form_answer(res, cond)) is not None:
        return special
    people = res.people
    f = q.find
    if f == "count_people":
        n = int(res.value)
        verb = {"spoke": "heard", "seen": "saw"}.get(q.act or "", "saw or heard")
        people_word = "person" if n == 1 else "people"
        if q.times in ("=0", "<1", "<=0") and q.place and q.act == "spoke":
            # "how many people never spoke in the lab?": people heard elsewhere, with no turn there (not "silent the
            # whole time in the lab": they need not have been there)
            return f"{n} {people_word} I heard never spoke{cond}." if n else f"Everyone I heard spoke{cond}."
        if q.times in ("=0", "<1", "<=0"):
            # the count is the only number the sentence states ("never" would read as a second one, zero)
            if not n:
                return f"Nobody I {verb} stayed silent the whole time{cond}."
            return f"I {verb} {n} {people_word} who stayed silent the whole time{cond}."
        if compares_with_other(q.times):
            return f"{n} {people_word} spoke {_times_phrase(q.times, res)}{cond}." if n else \
                f"Nobody spoke {_times_phrase(q.times, res)}{cond}."
        if q.times:   # the asked count is not said again: the answer states one number, the one counted
            named = f": {_join([p.description for p in people])}" if n and len(people) == n else ""
            return f"{n} {people_word} did{cond}{named}." if n else f"Nobody did{cond}."
        if n == 0:
            return f"I {verb} nobody{cond}."
        return f"I {verb} {n} different {people_word}{cond}."
    if f == "count_places":
        n = int(res.value)
        word = "place" if n == 1 else "places"
        # the places named too: "which rooms did I go through?" is often written as a count
        named = list(dict.fromkeys([p for _, p in res.robot_places] if res.robot_places else
                                   [res.places[e.id] for e in res.events if e.id in res.places]))
        which = f": {_join([_the(x) for x in named])}" if n and len(named) == n else ""
        if not res.robot_places and q.act in ("spoke", "seen", "any") and not q.who:
            # rooms where people were heard (seen), not the robot's own
            lead = {"spoke": "People spoke", "seen": "I saw people"}.get(q.act, "I saw or heard people")
            return f"{lead} in {n} different {word}{cond}{which}." if n else f"{lead} nowhere I know{cond}."
        if not res.robot_places and q.who and "who" in res.who:
            # "how many rooms did A speak in?": that person's places, not the robot's
            name = res.describe[res.who["who"].character_id]  # type: ignore[index]
            lead = {"spoke": f"{name} spoke", "seen": f"I saw {name}"}.get(q.act or "", f"I saw or heard {name}")
            return f"{_cap(lead)} in {n} {word}{cond}{which}." if n else f"{_cap(lead)} nowhere I know{cond}."
        return f"I was in {n} different {word}{cond}{which}." if n else f"I have no record of where I was{cond}."
    if f == "count_times":
        n = int(res.value)
        verb = "saw" if q.act == "seen" else "heard"
        if both_people(q, ("count_times",)) and q.act != "seen" and "other" in res.who:
            # two people's turns together: each one's count, then the sum
            each = [(res.describe[res.who[k].character_id], res.spoke.get(res.who[k].character_id, 0))  # type: ignore
                    for k in ("who", "other")]
            said = " and ".join(f"{d} {'spoke ' + times_word(k) if k else 'never spoke'}" for d, k in each)
            return f"{_cap(said)}{cond}: {times_word(n)} in all."
        if q.who and people:
            return (f"I saw {people[0].description} {times_word(n)}{cond}." if q.act == "seen" else
                    f"{_cap(people[0].description)} spoke {times_word(n)}{cond}.")
        if q.who:
            return f"{_cap(res.describe[res.who['who'].character_id])} never spoke{cond}."  # type: ignore[index]
        if q.pick and len(people) == 1 and q.act != "seen":   # "how many times did the last speaker speak?"
            return f"{_cap(people[0].description)} ({_picked(q.pick)}) spoke {times_word(n)}{cond}."
        if n == 0:
            return f"I {'saw nobody' if q.act == 'seen' else 'heard nobody speak'}{cond}."
        return f"I {verb} people speak {times_word(n)}{cond}." if q.act != "seen" else \
            f"I saw people {times_word(n)}{cond}."
    if f == "how_long":
        return _how_long(res, cond)
    if f == "gap":
        return _gap(res)
    if f == "yes":
        return _yes(res, cond)
    if f == "same":
        other = res.who.get("other")
        if other is not None and other.how == "role" and other.character_id is not None:
            # "was A the last person I heard?": who that was ("spoke first" -> "the person who spoke first")
            role = other.ref.strip()
            if not role.lower().startswith("the "):
                role = f"the person who {role}" if re.match(r"(?:spoke|talked|said)\b", role, re.I) else f"the {role}"
            lead = "Yes, that is the same person:" if res.value else "No:"
            tied = [c for s in res.steps if s["step"].startswith("tie for") for c in s.get("tied", ())
                    if c != other.character_id]
            also = f" (tied with {_join([res.describe[c] for c in tied])})" if tied else ""  # type: ignore[index]
            return f"{lead} {role} was {res.describe[other.character_id]}{also}."  # type: ignore[index]
        return "Yes, that is the same person." if res.value else "No, they are two different people."
    if f in ("more", "less"):
        na, nb = res.value
        a = res.describe[res.who["who"].character_id]  # type: ignore[index]
        b = res.describe[res.who["other"].character_id]  # type: ignore[index]
        if res.who["who"].character_id == res.who["other"].character_id:
            # "did X also speak the most?": X is the person the role names; two names of one person otherwise
            lead = "Yes, that is the same person" if res.who["other"].how == "role" else "They are the same person"
            return f"{lead}: {a} spoke {times_word(na)}{cond}."
        if q.measure == "time":
            return phrase_compared(res, a, b, cond)
        if na == nb:
            return f"No, they spoke equally often ({times_word(na)} each{cond})."
        yes = (na > nb) if f == "more" else (na < nb)
        (x, nx), (y, ny) = ((a, na), (b, nb)) if yes else ((b, nb), (a, na))
        word = "more" if f == "more" else "less"
        return f"{'Yes' if yes else 'No'}, {x} spoke {word} often ({times_word(nx)}) than {y} ({times_word(ny)}){cond}."
    if not people and f == "who" and q.times:
        how = _times_phrase(q.times, res)
        # "who never spoke in the bedroom?" with nobody: everyone heard did ("nobody spoke never" says nothing)
        return f"Everyone I heard spoke{cond}." if how == "never" else f"Nobody spoke {how}{cond}."
    if not people and f != "where":
        return _nobody(res, cond)
    if f == "who":
        return _who(res, people, cond)
    if f == "what":
        said = list(res.value)
        if not said:
            return f"{_cap(_join([p.description for p in people]))} did not say anything I heard{cond}."
        named = [p for p in people if not p.description.startswith("the person who said")]
        lead = f"{_cap(_join([p.description for p in named]))} said" if named and len(people) == 1 else "I heard"
        if q.by == "turn" and q.who is None and len(said) == 1 and len(res.events) == 1:
            lead = f"The {_turn_rank(q, pick_ordinal(q))} thing I heard ({res.say(res.events[0].start)}) was"
        if len(said) == 1:
            return f'{lead} "{said[0]}"{cond}{_right_next(res)}.'
        return f"{lead}, in order{cond}: " + "; ".join(f'"{s}"' for s in said[:8]) + \
            (f" (and {len(said) - 8} more)" if len(said) > 8 else "") + f"{_right_next(res)}."
    if f == "when":
        times = sorted(res.value)
        if res.robot_places or (not times and q.who is None and q.act is None and q.place and not q.rel):
            where = cond.replace(f" in the {q.place.lower().removeprefix('the ')}", "")
            if not times and q.move == "left" and res.robot_places:
                return f"I have not left the {q.place}{where}: I got there at {res.say(res.robot_places[0][0])}."
            if not times:
                return f"I was never in the {q.place}{where}."
            shown = [res.say(t) for t in times[:6]]
            verb = "left" if q.move == "left" else "got to"
            later = ' (and later)' if len(times) > 6 else ''
            if verb == "got to" and times[0] < 1.0:     # (the recording began there: no arrival)
                back = f", and got back to it at {_join(shown[1:])}{later}" if len(shown) > 1 else ""
                return f"I was in the {q.place} from the start ({shown[0]}){where}{back}."
            return f"I {verb} the {q.place}{where} at {_join(shown)}{later}."
        if not times:
            return _nobody(res, cond)
        d = _join([p.description for p in people])
        lead = "first " if q.pick == "first" else "last " if q.pick == "last" else ""
        verb = "spoke" if q.act == "spoke" or all(e.kind == "voice" for e in res.events) else "was there"
        if len(times) == 1:
            if verb != "spoke":
                seen = {"seen": "saw"}.get(q.act or "", "saw or heard")
                return f"I {lead}{seen} {d} at {res.say(times[0])}."
            verb = "stopped speaking" if q.measure == "end" else verb    # ("when did A stop talking?": the end)
            return f"{_cap(d)} {lead}{verb} at {res.say(times[0])}{_right_next(res, False)}."
        shown = [res.say(t) for t in times[:6]]
        return f"{_cap(d)} {verb} at {_join(shown)}{' (and later)' if len(times) > 6 else ''}."
    # where
    if busiest_place(q):
        return _busiest(res, cond)
    if res.robot_places:
        return where_answer(res, cond)
    places = list(res.value or [])
    if not places and res.problem.startswith("visited "):
        seen = res.problem.split(": ", 1)[1].split(", ")
        return f"I went to only {len(seen)} place{'s' if len(seen) != 1 else ''}: {_join([_the(p) for p in seen])}."
    if not places:
        return "I have no record of where that was."
    d = _join([p.description for p in people]) if people else "that"
    verb = "heard" if all(e.kind == "voice" for e in res.events if e.id in res.places) else "saw"
    if q.pick in ("first", "last"):
        placed = [e for e in res.events if e.id in res.places]
        edge = (placed[0] if q.pick == "first" else max(placed, key=lambda e: (e.end, e.start))) if placed else None
        where = _the(res.places[edge.id]) if edge is not None else _the(places[0] if q.pick == "first" else
                                                                          places[-1])
        if not q.who and not q.other:
            # "where was I when the first person spoke?": the place is the answer, whoever it was (cited)
            return f"I {q.pick} {verb} someone{' speak' if verb == 'heard' else ''} in {where}."
        return f"I {q.pick} {verb} {d} in {where}."
    return f"I {verb} {d} in {_join([_the(p) for p in places])}{cond}."


def _busiest(res: QueryResult, cond: str) -> str:
    """"In which room did people talk the most?": the place(s) with the most (fewest) turns, with the count."""
    q = res.query
    places = list(res.value or [])
    if q.measure == "time" and not q.who and q.act is None:     # the robot's own stays
        if not places:
            return f"I have no record of where I was{cond}."
        rest = "; ".join(f"{_the(p)} {seconds_word(n)}" for p, n in res.place_counts.items() if p not in places)
        return f"I spent the {'most' if q.pick != 'least' else 'least'} time in {_join([_the(p) for p in places])} " \
            f"({seconds_word(res.place_counts[places[0]])}{' each' if len(places) > 1 else ''}" \
            f"{'; ' + rest if rest else ''}){cond}."
    if not places:
        return f"I have no record of where {'I saw people' if q.act == 'seen' else 'people spoke'}{cond}."
    if q.measure == "people":     # "which room had the most people?": different people per place
        who = {"spoke": "speakers", "seen": "people seen"}.get(q.act or "", "people")
        rest = "; ".join(f"{_the(p)} {n}" for p, n in res.place_counts.items() if p not in places)
        return f"{_cap(_join([_the(p) for p in places]))} had the {'most' if q.pick != 'least' else 'fewest'} " \
            f"{who} ({res.place_counts[places[0]]}{' each' if len(places) > 1 else ''}{'; ' + rest if rest else ''})" \
            f"{cond}."
    n = res.place_counts[places[0]]
    word = "most" if q.pick == "most" else "least"
    lead = "I saw people" if q.act == "seen" else "People spoke"
    if q.who and "who" in res.who:
        d = res.describe[res.who["who"].character_id]  # type: ignore[index]
        lead = f"I saw {d}" if q.act == "seen" else _cap(f"{d} spoke")
    if len(places) == 1:
        return f"{lead} {word} often in {_the(places[0])} ({times_word(n)}){cond}."
    return f"{lead} equally often in {_join([_the(p) for p in places])} ({times_word(n)} each){cond}, " \
        f"{'more' if q.pick == 'most' else 'less'} than anywhere else."


def _times_phrase(spec: str, res: QueryResult | None = None) -> str:
    if compares_with_other(spec):
        d = res.describe[res.who["other"].character_id] if res is not None and "other" in res.who else \
            "the other person"  # type: ignore[index]
        return {"=": "as often as ", ">": "more often than ", "<": "less often than ", ">=": "at least as often as ",
                "<=": "at most as often as "}[spec.removesuffix("other")] + d
    if int(spec.lstrip("<>=")) == 0 and spec[0] in "=<":
        return "never"
    return how_often(spec)


def _right_next(res: QueryResult, when: bool = True) -> str:
    """"What did C say right after A?" where someone else spoke right after A: C's words are their next ones (said
    when), and who really spoke right after A is said too, never left for the asker to assume."""
    t = res.right_next
    if t is None:
        return ""
    side = "before" if "before" in (res.query.rel or "") else "after"
    mine = [e for p in res.people for e in p.events]
    at = f" at {res.say(mine[0].start)}" if when and len(mine) == 1 else ""
    a = res.anchor
    anchor = f"{res.describe[a.character_id]} ({res.say(a.start)})" if a is not None else \
        res.say(res.read(res.query.from_)) if res.query.from_ else "them"  # type: ignore[index,arg-type]
    return f"{at}; {res.describe[t.character_id]} spoke right {side} {anchor}, at {res.say(t.start)}"  # type: ignore[index]


def _nobody(res: QueryResult, cond: str) -> str:
    q = res.query
    if (q.rel or q.until) and res.anchor is None:
        return "I don't remember anyone like that."
    w = res.who.get("who")
    act = "seen" if q.rel == "with" else q.act     # in view together: faces, whatever the frame's act
    if q.who and w is not None and w.character_id is not None:
        # the person the question names did not do it there or then ("what did C say right after A?")
        did = {"spoke": "did not speak", "seen": "was not seen"}.get(act or "", "was not seen or heard")
        return f"{_cap(res.describe[w.character_id])} {did}{cond}{near_hint(res)}."  # type: ignore[index]
    if act == "seen":
        return f"I don't remember seeing anyone{cond}."
    rank = count_rank(q.pick)
    if rank is not None and res.spoke:
        # "who spoke the second most?" where everyone tied: nobody holds that place, but people did speak
        ranked = sorted(res.spoke.items(), key=lambda kv: -kv[1] if rank[0] else kv[1])
        said = _join([f"{res.describe[c]} {times_word(n)}" for c, n in ranked])  # type: ignore[index]
        word = q.pick.replace("_", " ")  # type: ignore[union-attr]
        return f"Nobody spoke the {word}{cond}: {said}."
    return f"I don't remember anyone{' speaking' if q.act == 'spoke' else ''}{cond}{near_hint(res)}."


def _how_long(res: QueryResult, cond: str) -> str:
    q, secs = res.query, int(res.value or 0)
    span = seconds_word(secs)
    if res.robot_places or (q.who is None and q.place is not None and q.act is None and not q.rel):
        if not secs:
            return f"I was never in the {q.place}{cond.replace(f' in the {q.place}', '')}."
        return f"I was in the {q.place} for {span}{cond.replace(f' in the {q.place}', '')} in all."
    verb = "was in view" if q.act == "seen" else "spoke"
    if q.who:
        d = _cap(res.describe[res.who["who"].character_id])  # type: ignore[index]
        never = "was never in view" if q.act == "seen" else "never spoke"
        return f"{d} {verb} for {span}{cond} in all." if secs else f"{d} {never}{cond}."
    return f"People {verb} for {span}{cond} in all." if secs else f"Nobody {verb}{cond}."


def _yes(res: QueryResult, cond: str) -> str:
    q = res.query
    if q.count:
        n = len(res.people)
        verb = {"spoke": "heard", "seen": "saw"}.get(q.act or "", "saw or heard")
        what = f"{n} different {'person' if n == 1 else 'people'}" if n else "nobody"
        return f"{'Yes' if res.value else 'No'}: I {verb} {what}{cond}."
    if both_people(q) and "other" in res.who and res.who["who"].character_id != res.who["other"].character_id:
        # each of the two people: what they did in the scope, or that they did not
        parts = []
        for key in ("who", "other"):
            cid = res.who[key].character_id
            own = [p for p in res.people if p.character_id == cid]
            did = f"{'spoke' if own[0].events[0].kind == 'voice' else 'was seen'} at " \
                  f"{res.say(own[0].events[0].start)}" if own and own[0].events else \
                  "was not seen" if q.act == "seen" else "did not speak"
            parts.append(f"{res.describe[cid]} {did}")  # type: ignore[index]
        lead = "Yes, both" if res.value else "No"
        return f"{lead}: {' and '.join(parts)}{cond}."
    if q.who:
        cid = res.who["who"].character_id
        d = res.describe[cid]  # type: ignore[index]
        n = res.spoke.get(cid, 0)  # type: ignore[arg-type]
        if q.times and compares_with_other(q.times) and "other" in res.who:
            # "did A speak exactly as often as B?": both counts
            o = res.who["other"].character_id
            return (f"{'Yes' if res.value else 'No'}, {d} spoke {times_word(n)} and "  # type: ignore[index]
                    f"{res.describe[o]} {times_word(res.spoke.get(o, 0))}{cond}.")  # type: ignore[index,arg-type]
        if q.times:
            return f"{'Yes' if res.value else 'No'}, {d} {spoke_times(n)}{cond}."
        if res.value:
            first = next((e for e in res.events if e.character_id == cid), res.events[0] if res.events else None)
            when = "" if first is None or q.at else f" at {res.say(first.start)}"
            span = f" (from {res.say(first.start)} to {res.say(first.end)})" if first is not None and q.at else ""
            verb = "spoke" if first is not None and first.kind == "voice" else "was seen" if first else "was there"
            return f"Yes, {d} {verb}{when}{cond}{span}."
        return f"No, I did not {'see' if q.act == 'seen' or q.rel == 'with' else 'hear'} {d}{cond}{near_hint(res)}."
    # "did anyone speak more than twice in the kitchen?": what nobody did, said in full
    # ... "did anyone speak more often than A in the lab?": than A there
    against = q.times is not None and compares_with_other(q.times) and "other" in res.who
    how = _times_phrase(q.times, res) if q.times and (against or not compares_with_other(q.times)) else ""
    did = " never spoke" if how == "never" else f" spoke {how}" if how else ""
    if not did and res.people:     # "did anyone speak between 0:10 and 0:20?": "Yes, A and B spoke ..."
        heard = all(e.kind == "voice" for p in res.people for e in p.events)
        did = " spoke" if heard else " were seen" if len(res.people) > 1 else " was seen"
    elif not did:
        did = " was seen" if q.act == "seen" else " spoke" if q.act == "spoke" else " was seen or heard"
    if against:   # both sides' counts
        o = res.who["other"].character_id
        n = res.spoke.get(o, 0)  # type: ignore[arg-type]
        theirs = f" ({res.describe[o]} {f'spoke {times_word(n)}' if n else 'did not speak'})"  # type: ignore[index]
        each = _join([f"{p.description} ({times_word(p.spoke)})" for p in res.people])
        return f"Yes, {each}{did}{cond}{theirs}." if res.value else f"No, nobody{did}{cond}{theirs}."
    if res.value:
        return f"Yes, {_join([p.description for p in res.people])}{did}{cond}."
    return f"No: everyone I saw{cond} also spoke." if how == "never" else f"No, nobody{did}{cond}."


def _who(res: QueryResult, people: list[PersonRow], cond: str) -> str:
    q = res.query
    d = _cap(_join([p.description for p in people]))
    verb = {"seen": "was seen", "any": "was there"}.get(q.act or "", "spoke")
    if q.act is None and any(p.events and all(e.kind == "face" for e in p.events) for p in people):
        verb = "was there"     # someone only seen ("who was in the office with me?") did not speak
    if len(people) > 1:
        verb = verb.replace("was ", "were ")
    rank = count_rank(q.pick)
    if rank is not None and (q.measure == "time" or q.top):
        # "who talked the longest?" (seconds), "which two people spoke the most?" (each one's count)
        secs = q.measure == "time"
        score = (lambda p: res.seconds.get(p.character_id, 0)) if secs else (lambda p: p.spoke)
        people = sorted(people, key=score, reverse=rank[0])       # ranked, the top first
        each = [f"{p.description} ({seconds_word(res.seconds.get(p.character_id, 0)) if secs else times_word(p.spoke)})"
                for p in people]
        word = ("the longest" if rank[0] else "the shortest time") if secs else ("the most" if rank[0] else "the least")
        verb = ("was seen" if q.act == "seen" else "talked") if secs else "spoke"
        tie = tie_across_top(people, each, score, int(q.top) if str(q.top).isdigit() else 0, f"{verb} {word}")
        if tie:     # "which two people spoke the most?" with a tie across the cut
            return _cap(tie.replace(" ~", cond))
        return f"{_cap(_join(each))} {verb} {word}{cond}."
    if rank is not None:
        tie = " equally" if len(people) > 1 else ""
        word = ("most" if rank[0] else "least") if rank[1] == 1 else \
            f"the {_ORD[rank[1]]} {'most' if rank[0] else 'least'}"
        return f"{d} spoke {word} often{tie} ({times_word(people[0].spoke)}{cond}){_tied_ahead(res, people, rank[0])}."
    n = pick_ordinal(q)
    if q.top and q.pick in ("first", "last"):      # "who were the first two people to speak?"
        what = {"spoke": "to speak", "was seen": "I saw"}.get(verb, "I saw or heard")
        times = [res.say(p.first if q.pick == "first" else _last_turn(p)) for p in people]
        return f"{d} ({_join(times)}) were the {q.pick} {len(people)} people {what}{cond}." if len(people) > 1 else \
            f"{d} was the only person {what}{cond}."
    if q.by == "turn" and q.who is None and len(people) == 1 and len(people[0].events) == 1:
        e = people[0].events[0]
        return f"{d} said the {_turn_rank(q, n)} thing I heard{then_at(cond, res.say(e.start))}."
    if q.pick == "last":
        return f"{d} {verb} last{then_at(cond, res.say(_last_turn(people[0])))}."
    if n is not None and n < 0 and len(people) == 1:
        what = {"spoke": "to speak", "was seen": "I saw"}.get(verb, "I saw or heard")
        return f"{d} was the {_ORD.get(-n, f'{-n}th')} to last person {what}" \
               f"{then_at(cond, res.say(_last_turn(people[0])))}."
    if n == 1 and len(people) == 1:
        return f"{d} {verb} first{then_at(cond, res.say(people[0].first))}."
    if n is not None and len(people) == 1:
        what = {"spoke": "to speak", "was seen": "I saw"}.get(verb, "I saw or heard")
        return f"{d} was the {_ORD.get(n, f'{n}th')} person {what}{then_at(cond, res.say(people[0].first))}."
    if q.times:
        return f"{d} never spoke{cond}." if q.times in ("=0", "<1", "<=0") else \
            f"{d} spoke {_times_phrase(q.times, res)}{cond}."
    if q.at:
        return f"{d} {'was speaking' if verb == 'spoke' else verb}{cond}."
    side = (rel_base(q.rel) or "") if q.rel else ""
    if side in ("before", "after") and res.anchor is not None and len(people) > 1 and q.pick is None:
        # "who spoke after A's second turn?": everyone after it, and which of them came right after (the answer to
        # the question as most people mean it)
        a = res.anchor
        near = max(people, key=lambda p: max((e.start for e in p.events if e.start < a.start), default=-1e9)) \
            if side == "before" else \
            min(people, key=lambda p: min((e.start for e in p.events if e.start > a.start), default=1e9))
        return f"{d} {verb}{cond}; right {side} it: {near.description}."
    return f"{d} {verb}{cond}."


def _tied_ahead(res: QueryResult, people: list[PersonRow], most: bool) -> str:
    """"The second most" ranks counts without gaps: where people tied ahead of the picked ones (two spoke 5 times,
    the picked 3), say so, so nobody who reads "second" as a place in a race is misled."""
    picked = people[0].spoke if people else 0
    ahead: dict[int, list[int]] = {}
    for c, n in res.spoke.items():
        if n > 0 and (n > picked if most else n < picked):
            ahead.setdefault(n, []).append(c)
    if not any(len(cs) > 1 for cs in ahead.values()):
        return ""
    parts = [f"{_join([res.describe[c] for c in sorted(cs)])} ({times_word(n)}{' each' if len(cs) > 1 else ''})"  # type: ignore[index]
             for n, cs in sorted(ahead.items(), reverse=most)]
    return f"; {_join(parts)} spoke {'more' if most else 'less'} often"


def _picked(pick: str) -> str:
    """What a pick made of the person it picked: "the last to speak", "the one who spoke most"."""
    if pick.lstrip("-").isdigit():
        return f"the {ordinal_word(int(pick))} to speak"
    return {"first": "the first to speak", "last": "the last to speak", "most": "the one who spoke most",
            "least": "the one who spoke least"}.get(pick, f"the {pick.replace('_', ' ')}")


def check(answer: str, res: QueryResult) -> list[str]:
    """What the answer states that the result does not contain: quotes, clock times, counts and places. Empty
    when every stated fact comes from the executed result."""
    problems: list[str] = []
    allowed_quotes = {_norm(e.text) for e in res.events + res.near} | {_norm(w.ref) for w in res.who.values()}
    allowed_quotes |= {_norm(m) for c in res.candidates for m in _QUOTE.findall(c)}
    allowed_quotes |= {_norm(_said(res.problem))} if res.problem else set()
    for text in list(res.describe.values()) + [str(v) for v in (res.value if isinstance(res.value, list) else [])]:
        allowed_quotes |= {_norm(m) for m in _QUOTE.findall(text)} | {_norm(text)}
    for w in res.who.values():
        for _, _, t in w.candidates:
            allowed_quotes.add(_norm(t.text))
    for qt in _QUOTE.findall(answer):
        if _norm(qt) not in allowed_quotes:
            problems.append(f"quote not in the result: {qt!r}")
    plain = said_decimals(_QUOTE.sub(" ", answer), res)   # tenths of seconds the result holds
    said = [t for e in res.events + res.near for t in (e.start, e.end)] + [t for t, _ in res.robot_places]
    said += [e.start for p in res.people for e in p.events]
    said += [e.start for e in (res.anchor, res.until_anchor) if e is not None]
    said += [e.start for w in res.who.values() for e in w.evidence]   # ("the person seen at 0:50")
    said += [t for t in (res.read(x) for x in (res.query.at, res.query.from_, res.query.to)) if t is not None]
    said += list((res.value or []) if res.query.find == "when" else [])
    times = {res.say(t).split()[0] for t in said}
    for c in _CLOCK.findall(plain):
        if c not in times and c.zfill(5) not in times:
            problems.append(f"time not in the result: {c}")
    nums = {len(res.people), *res.spoke.values(), *res.place_counts.values(), *res.seconds.values()}
    nums |= {int(x) for x in re.findall(r"\b\d+\b", res.problem)}     # "visited 2: ..." (a count the result says)
    if isinstance(res.value, int) and not isinstance(res.value, bool):
        nums.add(res.value)
    if isinstance(res.value, tuple):
        nums |= set(res.value)
    if res.query.times and not compares_with_other(res.query.times):
        nums.add(int(res.query.times.lstrip("<>=")))
    for n in _NUMBER.findall(_CLOCK.sub(" ", plain)):
        if int(n) not in nums:
            problems.append(f"count not in the result: {n}")
    return problems


def _norm(s: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]", " ", s.lower()).split())
