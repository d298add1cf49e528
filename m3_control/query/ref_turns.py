"""One turn, silence or moment the question names by its place in the talk, and what is asked around it: "between A's
second and third turns, how many times did B speak?", "between the first turn in the bathroom and the first turn in
the bedroom, how many turns were there?", "how much silence was there just before the final turn in the lab?", "after
the longest silence, how long was it until A spoke again?", "which turn of A's was nearest the middle of the
recording?", "whose turn came right after the longest turn in the bedroom?".

A reference is one of a small set of forms, each resolved over everyone's voice turns by code:

- a person's n-th (last) turn: "A's second turn", "A's second and third turns", "B's last one";
- a room's n-th (last) turn: "the first turn in the porch", "the final turn in the lab";
- the longest (shortest) turn, in a room or of a person: "the longest turn in the bedroom";
- the longest (shortest) silence between two turns, in a room or not: "the longest silence";
- the middle of the recording (its start to the last input the memory holds).

What is asked around it: the turns, people or one person's turns strictly between two references; the silence just
before (after) one; the time from one to a person's next words; a person's turn nearest one; the turn right after
(before) one. A reference that names a turn there is not ("A's third turn" of someone heard twice) is said as such, the
question not answered about another turn. The answer names the turns it used, checked against the result.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, replace

from m3_memory.people import began
from m3_memory.store.where import find_place, load_places

from .execute import QueryExecutor
from .frame import Query
from .measure_groups import silences_between
from .named_ids import scope_and_people
from .phrase import REFUSAL, _cap, _join, check, phrase
from .result import QueryResult
from .turn_windows import bare_ref
from .words import ordinal_word, seconds_word, spoke_times, tenths, times_word

_WHO = r"(?:the\s+person\s+who\s+said\s+\"[^\"]+\"|\"[^\"]+\"|(?-i:[A-Z][a-z]+))"
_ORD = r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|final|\d+(?:st|nd|rd|th)"
_ORDS = {w: i + 1 for i, w in enumerate(("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                                         "ninth", "tenth"))}
_ROOM = r"(?P<{}>[a-z]+(?:\s+room)?)"
_TURN = r"(?:turns?|one|words|utterance|remark)"
# the forms of one reference (named groups distinguished by a suffix: two references in one question)
_FORMS = (
    ("person", rf"(?P<who_{{k}}{{s}}>{_WHO})\s*(?:'s|’s)\s+(?P<ord_{{k}}{{s}}>{_ORD})"
               rf"(?:\s+(?:and|to)\s+(?P<ord2_{{k}}{{s}}>{_ORD}))?"
               rf"(?:\s+{_TURN})?"),
    ("person_of", rf"the\s+(?P<ord_{{k}}{{s}}>{_ORD})\s+{_TURN}\s+(?:of|by|from)\s+(?P<who_{{k}}{{s}}>{_WHO})"),
    ("room", rf"the\s+(?:very\s+)?(?P<ord_{{k}}{{s}}>{_ORD})\s+(?:turn|words|thing\s+(?:said|I\s+heard)|utterance)"
             r"\s+(?:in|at)"
             rf"\s+the\s+{_ROOM.format('place_{k}{s}')}"),
    ("length", rf"the\s+(?P<len_{{k}}{{s}}>longest|shortest)\s+(?:single\s+)?(?:turn|utterance|remark|one)"
               r"(?:\s+(?:in|at)\s+the\s+"
               rf"{_ROOM.format('place_{k}{s}')}|\s+(?:of|by)\s+(?P<who_{{k}}{{s}}>{_WHO}))?"),
    ("silence", rf"the\s+(?P<len_{{k}}{{s}}>longest|shortest)\s+(?:silence|pause|gap|lull|quiet\s+stretch)"
                r"(?:\s+between\s+"
                rf"turns)?(?:\s+(?:in|at)\s+the\s+{_ROOM.format('place_{k}{s}')})?"),
    ("middle", r"the\s+(?:middle|midpoint|halfway\s+point)\s+of\s+the\s+(?:recording|conversation|video|talk)"),
    ("end", r"the\s+(?:very\s+)?end\s+of\s+the\s+(?:recording|conversation|video|talk)"),
    ("start", r"the\s+(?:very\s+)?(?:start|beginning)\s+of\s+the\s+(?:recording|conversation|video|talk)"),
)


def _ref_pattern(s: str) -> str:
    return "(?:" + "|".join(f"(?P<{kind}{s}>{body.format(s=s, k=kind)})" for kind, body in _FORMS) + ")"


_R1, _R2 = _ref_pattern("1"), _ref_pattern("2")
# "their third (turn)", "his last one", "the third": a second reference to the first one's person
_THEIR = rf"(?:(?:their|his|her|the)\s+)?(?P<ordx>{_ORD})(?:\s+{_TURN})?"
_BETWEEN = re.compile(rf"\b(?:between|from)\s+{_R1}\s+(?:and|to|until|till)\s+(?:{_R2}|{_THEIR})", re.IGNORECASE)
_BEFORE = re.compile(rf"\b(?:how\s+much\s+(?:silence|quiet|time)|how\s+long\s+(?:was\s+|were\s+)?(?:the\s+)?(?:silence|"
                     rf"pause|gap|quiet))\b[^?]*?\b(?:just\s+|right\s+|immediately\s+|directly\s+)?(?P<side>before|after)"
                     rf"\s+{_R1}", re.IGNORECASE)
_UNTIL = re.compile(rf"\bafter\s+{_R1}\s*,?\s*how\s+(?:long|much\s+time|many\s+seconds)\b[^?]*?\buntil\s+"
                    rf"(?P<p>{_WHO})\s+(?:spoke|talked|said|was\s+heard)|\bhow\s+(?:long|much\s+time|many\s+seconds)\s+"
                    rf"(?:after|passed\s+after)\s+{_R2}\s+(?:did|until|before)\s+(?P<q>{_WHO})\s+(?:next\s+|again\s+|"
                    rf"first\s+)?(?:speak|talk|spoke|"
                    r"talked|say)", re.IGNORECASE)
_NEAREST = re.compile(rf"\b(?:which|what)\s+(?:(?:turn|one|utterance)\s+of|of)\s+(?P<p>{_WHO})\s*(?:'s|’s)?[^?]*?"
                      rf"\b(?:nearest|"
                      rf"closest)\s+(?:to\s+)?{_R1}|\b(?P<q>{_WHO})\s*(?:'s|’s)\s+(?:turn|one)\s+(?:was\s+)?(?:nearest|"
                      rf"closest)\s+(?:to\s+)?{_R2}", re.IGNORECASE)
_NEXT = re.compile(rf"\b(?:whose|who|which\s+(?:person(?:'s)?|turn|one)|what\s+turn)\s+"
                   rf"(?:turn\s+|words\s+)?(?:came|spoke|followed|was|were|"
                   rf"talked|went)?\s*(?:immediately|right|directly|just)\s+(?P<side>after|before)\s+{_R1}",
                   re.IGNORECASE)


# "how many of C's turns were longer than A's first turn?", "how many turns by C lasted longer than A's first one?",
# "how many turns were shorter than the longest turn in the lab?": turns against one turn's length (to hundredths)
_THAN = re.compile(rf"^\W*how\s+many\s+(?:of\s+(?P<p>{_WHO})\s*(?:'s|’s)\s+(?:own\s+)?turns|turns\s+(?:by|of|from)\s+"
                   rf"(?P<q>{_WHO})|(?:turns|utterances)\b)[^?]*?\b(?P<cmp>longer|shorter)\s+than\s+{_R1}",
                   re.IGNORECASE)
# "how many turns came after the longest silence?", "after the longest silence, how many more turns were there?"
_SIDE_COUNT = re.compile(rf"^\W*how\s+many\s+(?:more\s+)?(?:turns|times|utterances)\b[^?]*?\b(?P<side>after|before|"
                         rf"following|preceding)\s+{_R1}|^\W*(?P<side2>after|before)\s+{_R2}\s*,?\s*how\s+many\s+"
                         r"(?:more\s+)?(?:turns|times|utterances)\b", re.IGNORECASE)


_WHOSE_COUNT = re.compile(rf"\b(?:did|had|has)\s+(?P<p>{_WHO})\s+(?:take|speak|talk|say|have)\b|\b(?:of|by|from)\s+"
                          rf"(?P<p2>{_WHO})\b", re.IGNORECASE)


# "whose first turn came closest to the middle of the recording?": everyone's first (last) turn against one moment
_NEAREST_OWN = re.compile(rf"^\W*(?:whose|which\s+(?:person|speaker)(?:'s|’s))\s+(?P<o>first|last|final)\s+"
                          r"(?:turn|words)\s+"
                          rf"(?:came|was|were|began|started)?\s*(?:the\s+)?(?:closest|nearest)\s+(?:to\s+)?{_R1}",
                          re.IGNORECASE)
# "how much time passed between the end of the longest turn and the start of the longest silence?"
_GAP = re.compile(rf"^\W*how\s+(?:much\s+time|long|many\s+seconds)\s+(?:passed\s+|elapsed\s+|was\s+it\s+|"
                  rf"was\s+there\s+|"
                  rf"went\s+by\s+)?(?:between|from)\s+(?:the\s+(?P<e1>end|start|beginning)\s+of\s+)?{_R1}\s+(?:and|to|"
                  rf"until|till)\s+(?:the\s+(?P<e2>end|start|beginning)\s+of\s+)?{_R2}", re.IGNORECASE)


@dataclass(frozen=True)
class RefAsk:
    kind: str                  # between | before | after | until | nearest | next | previous | than | count_after |
    #                            count_before
    refs: tuple[dict, ...]     # each reference: its form and words
    person: str | None = None  # until / nearest: the person whose turn is looked for; between: whose turns count
    what: str = "turns"        # between: turns | others | people | person | who; than: longer | shorter


def _ref(m: re.Match, s: str) -> dict | None:
    for kind, _ in _FORMS:
        if m.group(f"{kind}{s}"):
            out = {"kind": kind, "said": m.group(f"{kind}{s}")}
            for g in ("who", "ord", "ord2", "place", "len"):
                name = f"{g}_{kind}{s}"
                if name in m.re.groupindex and m.group(name):
                    out[g] = m.group(name)
            return out
    return None


def asks_ref(question: str) -> RefAsk | None:
    m = _NEAREST_OWN.search(question)
    if m is not None and (a := _ref(m, "1")) is not None:
        return RefAsk("nearest_own", (a,), what="last" if m.group("o").lower() in ("last", "final") else "first")
    m = _GAP.search(question)
    if m is not None and (a := _ref(m, "1")) is not None and (b := _ref(m, "2")) is not None and any(
            r["kind"] in ("silence", "length", "middle") for r in (a, b)):
        # (between people's or rooms' turns, or to the end: the frame's gap, turn_order.py)
        return RefAsk("gap", (a, b), what=f"{(m.group('e1') or '').lower()}|{(m.group('e2') or '').lower()}")
    m = _THAN.search(question)
    if m is not None and (a := _ref(m, "1")) is not None and a["kind"] not in ("middle", "start", "end"):
        who = m.group("p") or m.group("q")
        return RefAsk("than", (a,), bare_ref(who) if who else None, m.group("cmp").lower())
    m = _SIDE_COUNT.search(question)
    if m is not None:
        s = "1" if m.group("side") else "2"
        a = _ref(m, s)     # (after a person's or a room's turn: turn_order.py, turn_windows.py)
        side = (m.group("side") or m.group("side2")).lower()
        if a is not None and a["kind"] in ("silence", "length", "middle"):
            # "how many turns did A take after ...?", "after ..., how many times did A speak?": A's turns only
            who = _WHOSE_COUNT.search(question[:m.start("side")] if s == "1" else question[m.end():])
            return RefAsk("count_before" if side in ("before", "preceding") else "count_after", (a,),
                          bare_ref(who.group("p") or who.group("p2")) if who else None)
    m = _BETWEEN.search(question)
    if m is not None:
        a = _ref(m, "1")
        if a is None:
            return None
        if a.get("ord2"):     # "between A's second and third turns"
            b = {"kind": a["kind"], "said": a["said"], "who": a.get("who"), "ord": a["ord2"]}
        elif m.group("ordx") and a["kind"] in ("person", "person_of", "room"):
            b = {**a, "ord": m.group("ordx"), "said": m.group("ordx")}
        else:
            b = _ref(m, "2")
        if b is None:
            return None
        rest = question[:m.start()] + " " + question[m.end():]
        if re.search(r"\bhow\s+many\s+(?:different\s+|distinct\s+)?(?:people|speakers|persons|voices)\b", rest, re.I):
            return RefAsk("between", (a, b), what="people")
        who = re.search(rf"\bhow\s+many\s+(?:times|turns)\s+did\s+(?P<p>{_WHO})\s+(?:speak|talk|take)|"
                        rf"\bhow\s+(?:many\s+"
                        rf"times|often)\s+did\s+(?P<q>{_WHO})\s+(?:speak|talk)", rest, re.IGNORECASE)
        if who is not None:
            return RefAsk("between", (a, b), bare_ref(who.group("p") or who.group("q")), "person")
        if re.search(r"\bhow\s+many\s+(?:turns|times|utterances)\b|\bhow\s+many\s+(?:people\s+)?(?:spoke|talked)\b",
                     rest, re.IGNORECASE):
            # "how many turns did others (other people, everyone else) take between A's first and last turns?": the
            # turns of the people the references do not name
            others = re.search(r"\b(?:others|other\s+(?:people|speakers|persons)|everyone\s+else|anyone\s+else|"
                               r"the\s+rest)\b", rest, re.IGNORECASE)
            return RefAsk("between", (a, b), what="others" if others else "turns")
        if re.search(r"^\W*who\s+(?:spoke|talked)\b|\bwho\s+(?:spoke|talked)\s*\??$", rest.strip(), re.IGNORECASE):
            return RefAsk("between", (a, b), what="who")
        return None
    m = _BEFORE.search(question)
    if m is not None and (a := _ref(m, "1")) is not None and a["kind"] not in ("person", "person_of"):
        # (the silence next to a person's turn: the frame's gap)
        return RefAsk(m.group("side").lower(), (a,))
    m = _UNTIL.search(question)
    if m is not None:
        s = "1" if m.group("p") else "2"
        a = _ref(m, s)     # (after one of a person's turns: the frame's gap)
        return RefAsk("until", (a,), bare_ref(m.group("p") or m.group("q"))) if a and a["kind"] not in (
            "person", "person_of") else None
    m = _NEAREST.search(question)
    if m is not None:
        s = "1" if m.group("p") else "2"
        a = _ref(m, s)
        return RefAsk("nearest", (a,), bare_ref(m.group("p") or m.group("q"))) if a else None
    m = _NEXT.search(question)
    if m is not None and (a := _ref(m, "1")) is not None and a["kind"] in ("silence", "middle"):
        # (next to a room's n-th turn: the frame's; next to the longest turn: length_anchor.py)
        return RefAsk("next" if m.group("side").lower() == "after" else "previous", (a,))
    return None


def prepare(q: Query) -> Query:
    """Everyone's voice turns (the references are the question's)."""
    return Query(find="who", act="spoke")


class _NoTurn(Exception):
    """A reference with nothing behind it (its words in the message)."""


def _nth(items: list, word: str, whose: str) -> object:
    w = word.lower()
    if w in ("last", "final"):
        if not items:
            raise _NoTurn(f"{whose} has no turn")
        return items[-1]
    n = _ORDS.get(w) or int(re.sub(r"\D", "", w))
    if n > len(items):
        raise _NoTurn(f"{whose} took only {len(items)} turn{'s' if len(items) != 1 else ''}, so there is no "
                      f"{ordinal_word(n)} one")
    return items[n - 1]


def _resolve(executor: QueryExecutor, res: QueryResult, ref: dict, turns: list, ids: dict[str, int],
             end: float) -> list[tuple[float, float, list, str]]:
    """(start, end, the turns it is, how it reads in the answer) of one reference: one, or each of the turns that tie
    for the longest (shortest) to hundredths of a second."""
    kind = ref["kind"]
    room = None
    if ref.get("place"):
        place = find_place(load_places(executor.store), ref["place"])
        if place is None:
            raise _NoTurn(f"I don't know a place called \"{ref['place']}\"")
        room = place.name
        executor.place_turns(res, turns)
    scope = [e for e in turns if room is None or res.places.get(e.id) == room]
    where = f" in the {room}" if room else ""
    if kind in ("person", "person_of"):
        cid = ids[bare_ref(ref["who"])]
        e = _nth([x for x in scope if x.character_id == cid], ref["ord"], res.describe[cid])
        return [(e.start, e.end, [e], f"{res.describe[cid]}'s {ref['ord'].lower()} turn ({res.say(e.start)})")]
    if kind == "room":
        e = _nth(scope, ref["ord"], f"the {room}")
        return [(e.start, e.end, [e], f"the {ref['ord'].lower()} turn{where} ({res.describe[e.character_id]}'s at "
                                      f"{res.say(e.start)})")]
    if kind == "length":
        if ref.get("who"):
            cid = ids[bare_ref(ref["who"])]
            scope = [e for e in scope if e.character_id == cid]
        if not scope:
            raise _NoTurn(f"I heard no turn{where}")
        pick = max if ref["len"].lower() == "longest" else min
        best = round(pick(x.end - x.start for x in scope), 2)
        tied = [e for e in scope if round(e.end - e.start, 2) == best]
        _figure(res, best)
        res.seconds[-(len(res.seconds) + 1)] = best
        length = seconds_word(tenths(best)) if len(tied) == 1 else f"{best:.2f} seconds"
        return [(e.start, e.end, [e], f"the {ref['len'].lower()} turn{where} ({res.describe[e.character_id]}'s at "
                                      f"{res.say(e.start)}, {length})") for e in tied]
    if kind == "silence":
        gaps = silences_between(turns, lambda e: room is None or res.places.get(e.id) == room)
        if not gaps:
            raise _NoTurn(f"I heard no two turns{where} with a silence between them")
        g, a, b = (max if ref["len"].lower() == "longest" else min)(gaps, key=lambda x: x[0])
        _figure(res, g)
        return [(a.end, b.start, [a, b], f"the {ref['len'].lower()} silence{where} ({seconds_word(tenths(g))}, from "
                                         f"{res.say(a.end)} to {res.say(b.start)})")]
    if kind == "start":
        return [(0.0, 0.0, [], "the start of the recording")]
    t = end / 2 if kind == "middle" else end
    res.query = replace(res.query, at=f"{t:.2f}")    # (the moment the answer names)
    return [(t, t, [], f"the {kind} of the recording ({res.say(t)})")]


def _figure(res: QueryResult, seconds: float) -> None:
    """A length the answer says, kept in the result (the check reads it there)."""
    res.seconds[-(len(res.seconds) + 1)] = tenths(seconds)


def answer(executor: QueryExecutor, q: Query, ask: RefAsk, before_time: float | None) -> tuple[str, QueryResult]:
    refs = list(dict.fromkeys([bare_ref(r["who"]) for r in ask.refs if r.get("who")] +
                              ([ask.person] if ask.person else [])))
    res, found = scope_and_people(executor, Query(find="who", act="spoke"), refs, before_time)
    if found is None:
        return phrase(res), res
    ids = dict(zip(refs, found, strict=True))
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    end = executor.store.perceived_until(before_time) or max((e.end for e in turns), default=0.0)
    try:
        options = [_resolve(executor, res, r, turns, ids, end) for r in ask.refs]
    except _NoTurn as why:
        res.events = turns
        text = _cap(f"{why}.")
        return (REFUSAL if check(text, res) else text), res
    res.steps.append({"step": "references", "resolved": [[s[3] for s in o] for o in options]})
    ways = math.prod(len(o) for o in options)     # (each tied turn of each reference)
    combos = list(itertools.product(*options))[:4]
    texts, values, events, picked = [], [], [], []
    for spans in combos:
        res.value, res.picked = None, []
        texts.append(_cap(_one(res, ask, turns, list(spans), ids)))
        values += list(res.value) if isinstance(res.value, tuple) else [res.value] if isinstance(res.value, int) else []
        events += [e for e in res.events if e not in events]
        picked += [e for e in res.picked if e not in picked]
    res.events, res.picked = events, picked
    if len(combos) == 1:
        text = texts[0]
    else:      # a tie: the answer for each of the turns that tie
        res.value = tuple(values)
        ties = "; ".join(f"{len(o)} turns tie for {o[0][3].split(' (')[0]} "
                         f"({', '.join(x[3].split(' (', 1)[1][:-1] for x in o)})" for o in options if len(o) > 1)
        more = f" (and {ways - len(combos)} more ways)" if ways > len(combos) else ""
        text = _cap(f"{ties}, so it depends on which is meant: " + "; ".join(t.rstrip(".") for t in texts) + more + ".")
    return (REFUSAL if check(text, res) else text), res


def _one(res: QueryResult, ask: RefAsk, turns: list, spans: list, ids: dict[str, int]) -> str:
    """The answer for one resolution of the references (its figures and turns set on ``res``)."""
    if ask.kind == "between":
        return _between(res, ask, turns, spans, ids)
    t0, t1, used, said = spans[0]
    if ask.kind == "than":
        return _than(res, ask, turns, spans[0], ids)
    if ask.kind == "gap":
        return _gap(res, ask, spans)
    if ask.kind == "nearest_own":
        return _nearest_own(res, ask, turns, spans[0])
    if ask.kind in ("count_after", "count_before"):
        after = ask.kind == "count_after"
        # (after a silence: from its end, the turn that ended it counted; before it: the turn that began it counted)
        # (a moment of the recording: a turn is on the side its speaking began on, as windows read it)
        at = began if ask.refs[0]["kind"] in ("middle", "start", "end") else (lambda e: e.start)
        side = [e for e in turns if (at(e) >= t1 - 0.05 if after else at(e) < t0) and
                (ask.refs[0]["kind"] == "silence" or e not in used)]
        word = "after" if after else "before"
        if ask.person:     # one person's turns on that side (everyone's said beside them)
            cid = ids[ask.person]
            mine = [e for e in side if e.character_id == cid]
            res.events, res.value = mine + used + [e for e in side if e not in mine], (len(mine), len(side))
            return f"{res.describe[cid]} {spoke_times(len(mine))} {word} {said}" + \
                (f" (from {res.say(mine[0].start)})" if mine and after else "") + \
                f"; {len(side)} turn{'s' if len(side) != 1 else ''} by everyone."
        res.events, res.value = side + used, len(side)
        if not side:
            return f"Nobody spoke {word} {said}."
        return f"I heard people speak {times_word(len(side))} {word} {said}" + \
            (f" (from {res.say(side[0].start)})." if after else ".")
    if ask.kind in ("before", "after"):
        if ask.kind == "before":
            prev = [e for e in turns if e.end <= t0 + 0.05 and e not in used]
            other, gap = (prev[-1], t0 - prev[-1].end) if prev else (None, t0)
        else:
            nxt = [e for e in turns if e.start >= t1 - 0.05 and e not in used]
            other, gap = (nxt[0], nxt[0].start - t1) if nxt else (None, None)
        res.events = used + ([other] if other else [])
        _figure(res, max(0.0, gap)) if gap is not None else None
        if other is None:
            text = f"Nothing came {ask.kind} {said}." if ask.kind == "after" else \
                f"Nobody spoke before {said}: it was the first turn, {seconds_word(tenths(gap))} into the recording."
        else:
            text = f"{seconds_word(tenths(max(0.0, gap)))} of silence {ask.kind} {said}: " \
                   f"{'the turn before it' if ask.kind == 'before' else 'the next turn'} was " \
                   f"{res.describe[other.character_id]}'s, {'ending' if ask.kind == 'before' else 'at'} " \
                   f"{res.say(other.end if ask.kind == 'before' else other.start)}."
    elif ask.kind == "until":
        cid = ids[ask.person]  # type: ignore[index]
        nxt = [e for e in turns if e.character_id == cid and e.start >= t1 - 0.05]
        res.events, res.picked = used + nxt[:1], nxt[:1]
        who = res.describe[cid]
        if not nxt:
            text = f"{who} did not speak after {said}."
        else:
            gap = max(0.0, nxt[0].start - t1)
            _figure(res, gap)
            text = f"No time at all: {who}'s turn at {res.say(nxt[0].start)} is what ended {said}." \
                if nxt[0] in used else f"{seconds_word(tenths(gap))}: after {said}, {who} spoke next at " \
                                       f"{res.say(nxt[0].start)}."
    elif ask.kind == "nearest":
        cid = ids[ask.person]  # type: ignore[index]
        mine = [e for e in turns if e.character_id == cid]
        if not mine:
            return f"I never heard {res.describe[cid]} speak."
        mid = (t0 + t1) / 2
        best = min(mine, key=lambda e: 0.0 if e.start <= mid <= e.end else min(abs(e.start - mid), abs(e.end - mid)))
        res.events, res.picked = [best] + used + [e for e in mine if e is not best], [best]
        others = ", ".join(res.say(e.start) for e in mine if e is not best)
        text = f"{res.describe[cid]}'s turn at {res.say(best.start)} (\"{best.text}\") was the nearest to {said}" \
               f"{'; their others: ' + others if others else ''}."
    else:
        if ask.refs[0]["kind"] == "silence":      # the turns either side of a silence are its own
            side = used[1:] if ask.kind == "next" else used[:1]
        elif ask.refs[0]["kind"] in ("middle", "start", "end"):   # a moment: by where speaking began, as windows
            side = [e for e in turns if began(e) >= t1] if ask.kind == "next" else \
                [e for e in turns if began(e) < t0][-1:]
            if side and side[0].start < t0 < side[0].end:     # (a turn that goes on across the moment)
                res.events, res.picked = used + side[:1], side[:1]
                return f"{res.describe[side[0].character_id]} spoke right before {said}: their turn began at " \
                       f"{res.say(side[0].start)} and went on to {res.say(side[0].end)} (\"{side[0].text}\")."
        else:
            side = [e for e in turns if e.start >= t1 - 0.05 and e not in used] if ask.kind == "next" else \
                [e for e in turns if e.end <= t0 + 0.05 and e not in used][-1:]
        res.events, res.picked = used + side[:1], side[:1]
        text = f"Nobody spoke {'after' if ask.kind == 'next' else 'before'} {said}." if not side else \
            f"{res.describe[side[0].character_id]} spoke right {'after' if ask.kind == 'next' else 'before'} " \
            f"{said}, at {res.say(side[0].start)} (\"{side[0].text}\")."
    return text


def _gap(res: QueryResult, ask: RefAsk, spans: list) -> str:
    """"55.6 seconds: from the end of the longest turn (A's at 00:02) to the start of the longest silence (...)"; the
    ends the question does not name: from the end of the earlier one to the start of the later one."""
    e1, e2 = ask.what.split("|")
    (a0, a1, ua, sa), (b0, b1, ub, sb) = spans
    t1 = a0 if e1 in ("start", "beginning") else a1
    t2 = b1 if e2 == "end" else b0
    if not e1 and not e2 and b1 <= a0:      # (the second named came first: from its end to the first's start)
        t1, t2 = b1, a0
    res.events = ua + [e for e in ub if e not in ua]
    gap = abs(t2 - t1)
    _figure(res, gap)
    res.query = replace(res.query, from_=f"{min(t1, t2):.2f}", to=f"{max(t1, t2):.2f}")
    end1 = "start" if t1 == a0 and e1 else "end"
    end2 = "end" if e2 == "end" else "start"
    return f"{seconds_word(tenths(gap))}: from the {end1} of {sa} at {res.say(t1)} to the {end2} of {sb} at " \
           f"{res.say(t2)}."


def _nearest_own(res: QueryResult, ask: RefAsk, turns: list, span: tuple) -> str:
    """"B's first turn (00:21) came closest to the middle of the recording (00:40); the others' first turns: ..."."""
    t0, t1, used, said = span
    mid = (t0 + t1) / 2
    own: dict[int, object] = {}
    for e in turns if ask.what == "first" else reversed(turns):
        own.setdefault(e.character_id, e)
    if not own:
        return "I heard nobody speak."

    def distance(e: object) -> float:
        return 0.0 if e.start <= mid <= e.end else min(abs(e.start - mid), abs(e.end - mid))  # type: ignore[attr-defined]

    best = min(own.values(), key=distance)
    res.events = [best] + used + [e for e in own.values() if e is not best]
    others = "; ".join(f"{res.describe[c]} {res.say(e.start)}" for c, e in own.items() if e is not best)
    return f"{res.describe[best.character_id]}'s {ask.what} turn ({res.say(best.start)}) came closest to {said}" + \
        (f"; the others' {ask.what} turns: {others}." if others else ".")


def _than(res: QueryResult, ask: RefAsk, turns: list, span: tuple, ids: dict[str, int]) -> str:
    """"1 of C's 2 turns was longer than A's first turn (1.93 seconds, at 00:02): ..." (to hundredths)."""
    t0, t1, used, said = span
    limit = round(t1 - t0, 2)
    counted = [e for e in turns if (ask.person is None or e.character_id == ids[ask.person]) and e not in used]
    longer = ask.what == "longer"
    hits = [e for e in counted if (round(e.end - e.start, 2) > limit if longer else round(e.end - e.start, 2) < limit)]
    res.events = used + hits + [e for e in counted if e not in hits]
    res.value = (len(hits), len(counted), 0)     # (0: the hundredths of "2.00 seconds")
    res.seconds[-(len(res.seconds) + 1)] = limit
    whose = f"{res.describe[ids[ask.person]]}'s " if ask.person else ""
    each = "; ".join(f"{res.describe[e.character_id]}'s at {res.say(e.start)} ({e.end - e.start:.2f} seconds)"
                     for e in hits)
    for e in counted:
        res.seconds[-(len(res.seconds) + 1)] = round(e.end - e.start, 2)
    theirs = f"; theirs: {', '.join(f'{e.end - e.start:.2f}' for e in counted)}" if ask.person and counted else ""
    return f"{len(hits)} of {whose}{len(counted)} {'other ' if not ask.person else ''}turns " \
           f"{'was' if len(hits) == 1 else 'were'} {ask.what} than {said} ({limit:.2f} seconds{theirs})" + \
        (f": {each}." if hits else ".")


def _between(res: QueryResult, ask: RefAsk, turns: list, spans: list, ids: dict[str, int]) -> str:
    """The turns that began after the first reference began and before the second one did, neither counted; between
    two turns of one person the people counted are the others (they are the ones who spoke between)."""
    (a0, _, ua, sa), (b0, _, ub, sb) = sorted(spans, key=lambda s: s[0])
    (ra, rb) = ask.refs if spans[0][0] <= spans[1][0] else ask.refs[::-1]
    # (the turns either side of a silence bound it from outside: the one after a silence that opens the span counts)
    ua, ub = ([] if ra["kind"] == "silence" else ua), ([] if rb["kind"] == "silence" else ub)
    inside = [e for e in turns if a0 < e.start < b0 and e not in ua and e not in ub]
    res.events = inside + [e for _, _, used, _ in spans for e in used if e not in inside]
    first, second = ask.refs if spans[0][0] <= spans[1][0] else ask.refs[::-1]
    same = first["kind"] == second["kind"] == "person" and bare_ref(first["who"]) == bare_ref(second["who"])
    if same:      # "between A's first and third turns (00:35 and 00:55)"
        cid = ids[bare_ref(first["who"])]
        span = f"between {res.describe[cid]}'s {first['ord'].lower()} and {second['ord'].lower()} turns " \
               f"({res.say(a0)} and {res.say(b0)})"
    else:
        span = f"between {sa} and {sb}"
    if ask.what == "person":
        cid = ids[ask.person]  # type: ignore[index]
        mine = [e for e in inside if e.character_id == cid]
        res.value = len(mine)
        when = f" (at {', '.join(res.say(e.start) for e in mine)})" if mine else ""
        text = f"{res.describe[cid]} spoke {times_word(len(mine))} {span}{when}." if mine \
            else f"{res.describe[cid]} did not speak {span}."
    elif ask.what in ("people", "who"):
        bound = ids[bare_ref(first["who"])] if same else None
        people = list(dict.fromkeys(e.character_id for e in inside if e.character_id != bound))
        res.value = len(people)
        names = _join([res.describe[c] for c in people])
        text = f"I heard {len(people)} different {'person' if len(people) == 1 else 'people'} {span}" + \
            (f": {names}." if people else ".") if ask.what == "people" else \
            (f"{names} spoke {span}." if people else f"Nobody spoke {span}.")
    elif ask.what == "others":   # the turns of people the references do not name
        named = {ids[bare_ref(r["who"])] for r in (ra, rb) if r.get("who") and bare_ref(r["who"]) in ids}
        theirs = [e for e in inside if e.character_id not in named]
        res.events = theirs + [e for e in res.events if e not in theirs]
        own = len(inside) - len(theirs)
        res.value = (len(theirs), len(inside), own)
        text = f"Others spoke {times_word(len(theirs))} {span}" + \
            (f" ({len(inside)} turns in all, {own} of them by {_join([res.describe[c] for c in named])})" if own
             else "") + "." if theirs else f"Nobody else spoke {span}."
    else:
        res.value = len(inside)
        turned = all(r["kind"] in ("person", "person_of", "room", "length") for r in (ra, rb))
        text = f"I heard people speak {times_word(len(inside))} {span}" \
               f"{' (not counting those two turns)' if turned else ''}." if inside \
            else f"Nobody spoke {span}."
    return text
