"""Turns against one turn of one person's, by length: "how many turns were longer than A's longest turn?", "how many
turns lasted longer than the longest of A's turns?" (asked through :mod:`.sentences`), and "which turn was the closest
in length to A's first turn?" (plan ``nearest_length``). Everyone's turns in the frame's place and window are measured
against that one turn's length (itself left out), each named with its length to hundredths: detection tells lengths
apart no finer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query, voice_turns
from .named_ids import named_ids, scope_and_people
from .phrase import REFUSAL, _cap, check, phrase
from .result import QueryResult
from .turn_sequence import people_in
from .wording import QUOTED


def than_persons_turn(executor: QueryExecutor, res: QueryResult, turns: list, than: str, which: str, over: bool,
                      where: str, before_time: float | None, theirs: list | None = None) -> tuple[str, QueryResult]:
    """"3 of the 10 turns were longer than A's longest turn (1.90 seconds, at 00:02): ..." (lengths to hundredths:
    detection tells them apart no finer)."""
    ids = named_ids(executor, Query(find="who", act="spoke"), [than], res, before_time)
    if isinstance(ids, QueryResult):
        return phrase(ids), ids
    cid = ids[0]
    mine = [e for e in (turns if theirs is None else theirs) if e.character_id == cid]   # (theirs: anywhere)
    who = res.describe.get(cid, than)
    if not mine:
        return f"I did not hear {who}{where}.", res
    pick = max if which == "longest" else min
    ref = pick(mine, key=lambda e: e.end - e.start)
    limit = round(ref.end - ref.start, 2)     # (to hundredths, as said: 1.8999 and 1.9001 are both 1.90)
    hits = [e for e in turns if e is not ref and ((round(e.end - e.start, 2) > limit) if over
                                                  else (round(e.end - e.start, 2) < limit))]
    res.events = [ref] + hits + [e for e in res.events if e is not ref and e not in hits]
    res.value = (len(hits), len(turns))
    said = "; ".join(f"{res.describe[e.character_id]} at {res.say(e.start)} ({e.end - e.start:.2f} seconds)"
                     for e in hits[:8]) + (f" (and {len(hits) - 8} more)" if len(hits) > 8 else "")
    text = f"{len(hits)} of the {len(turns)} turns{where} {'were' if len(hits) != 1 else 'was'} " \
        f"{'longer' if over else 'shorter'} than {who}'s {which} turn ({limit:.2f} seconds, at " \
        f"{res.say(ref.start)})" + (f": {said}." if hits else ".")
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else _cap(text)), res


# "which turn was the closest in length to A's first turn?", "which turn's length was nearest to that of A's first
# turn?", "whose turn was closest in length to B's longest one?"
_NEAREST = re.compile(r"^\W*(?:which|what|whose)\b(?=[^?]*\b(?:closest|nearest|most\s+similar)\b)(?=[^?]*\b(?:length|"
                      r"duration|long)\b)[^?]*?\b(?:to|as)\s+(?:that\s+of\s+)?(?:the\s+person\s+who\s+said\s+)?"
                      r"(?:QUOTED|[A-Z][a-z]+)\s*(?:'s|’s)\s+(?P<which>first|second|third|last|final|longest|shortest)\s+"
                      r"(?:turn|one|sentence|utterance)\b", re.IGNORECASE)


@dataclass(frozen=True)
class NearestLengthAsk:
    person: str
    which: str       # first | second | third | last | longest | shortest


def asks_nearest_length(question: str) -> NearestLengthAsk | None:
    m = _NEAREST.search(QUOTED.sub(" QUOTED ", question))
    if m is None or len(people := people_in(question)) != 1:
        return None
    which = m.group("which").lower()
    return NearestLengthAsk(people[0], "last" if which == "final" else which)


def answer_nearest(executor: QueryExecutor, q: Query, ask: NearestLengthAsk,
                   before_time: float | None) -> tuple[str, QueryResult]:
    """"B's turn at 00:17 (1.90 seconds) was the closest in length to A's first turn (1.90 seconds, at 00:02)."
    (every turn as close as it, to hundredths, named)."""
    res, ids = scope_and_people(executor, voice_turns(q), [ask.person], before_time)
    if ids is None:
        return phrase(res), res
    cid = ids[0]
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    mine = [e for e in turns if e.character_id == cid]
    who = res.describe.get(cid, ask.person)
    rank = {"first": 0, "second": 1, "third": 2, "last": -1}
    if not mine or (ask.which in rank and rank[ask.which] >= len(mine)):
        return f"I did not hear {who} take a {ask.which} turn.", res
    ref = mine[rank[ask.which]] if ask.which in rank else \
        (max if ask.which == "longest" else min)(mine, key=lambda e: e.end - e.start)
    length = ref.end - ref.start
    others = [e for e in turns if e is not ref]
    if not others:
        return f"I heard no other turn than {who}'s.", res
    best = min(abs((e.end - e.start) - length) for e in others)
    near = [e for e in others if abs((e.end - e.start) - length) - best < 0.005]
    res.events = [ref] + near + [e for e in res.events if e is not ref and e not in near]
    res.value = (len(near),)
    said = "; ".join(f"{res.describe[e.character_id]}'s at {res.say(e.start)} ({e.end - e.start:.2f} seconds: "
                     f"\"{e.text.strip().rstrip('.!?')}\")" for e in near)
    lead = "The turn closest in length" if len(near) == 1 else f"The {len(near)} turns equally close in length"
    text = f"{lead} to {who}'s {ask.which} turn ({length:.2f} seconds, at {res.say(ref.start)}): {said}."
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else _cap(text)), res


# "was the longest turn of the recording in the lab?", "did the longest turn of the whole recording happen in the
# porch?": the recording's longest (shortest) turn, and whether it was in that room
_WHERE = re.compile(r"^\W*(?:was|did|is)\b[^?]*?\b(?P<w>longest|shortest)\s+(?:single\s+)?turn\s+of\s+(?:the\s+)?"
                    r"(?:whole\s+|entire\s+)?(?:recording|conversation|video|day)\b[^?]*?\b(?:in|at)\s+the\s+"
                    r"(?P<place>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)


@dataclass(frozen=True)
class LongestWhereAsk:
    place: str
    longest: bool


def asks_longest_where(question: str) -> LongestWhereAsk | None:
    m = _WHERE.search(question)
    return None if m is None else LongestWhereAsk(m.group("place"), m.group("w").lower() == "longest")


def answer_where(executor: QueryExecutor, q: Query, ask: LongestWhereAsk,
                 before_time: float | None) -> tuple[str, QueryResult]:
    """"No: the longest turn of the recording was B's at 01:02 (2.35 seconds), in the living room."."""
    res = executor.run(voice_turns(q, place=None), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = [e for e in res.events if e.kind == "voice"]
    if not turns:
        return "I heard nobody speak.", res
    pick = max if ask.longest else min
    best = pick(e.end - e.start for e in turns)
    top = sorted((e for e in turns if abs((e.end - e.start) - best) < 0.005), key=lambda e: e.start)
    executor.place_turns(res, top)
    rooms = [res.places.get(e.id) for e in top]
    yes = any(r is not None and r.lower() == ask.place.lower() for r in rooms)
    res.events = top + [e for e in res.events if e not in top]
    res.value = (len(top),)
    word = "longest" if ask.longest else "shortest"
    said = "; ".join(f"{res.describe[e.character_id]}'s at {res.say(e.start)} ({e.end - e.start:.2f} seconds)"
                     + (f", in the {r}" if r else ", between rooms") for e, r in zip(top, rooms, strict=True))
    lead = f"the {word} turn of the recording was" if len(top) == 1 else \
        f"the {word} turns of the recording ({len(top)}, as long as each other) were"
    text = f"{'Yes' if yes else 'No'}: {lead} {said}."
    problems = [p for p in check(_cap(text), res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else _cap(text)), res


# "did the bedroom have a turn shorter than every one of A's turns?", "was any turn in the lab longer than all of B's
# turns?", "how many turns were shorter than each of A's turns?": against that person's shortest (longest) turn
_THAN_ALL = re.compile(r"\b(?:turns?|one|utterances?)\b[^?]*?\b(?P<cmp>shorter|longer|briefer)\s+than\s+(?:every|each|"
                       r"all|any)\s+(?:single\s+)?(?:one\s+)?(?:of\s+)?(?:the\s+)?(?:the\s+person\s+who\s+said\s+)?"
                       r"(?:QUOTED|[A-Z][a-z]+)\s*(?:'s|’s)?\s*(?:own\s+)?(?:turns|ones|utterances)?", re.IGNORECASE)


@dataclass(frozen=True)
class ThanAllAsk:
    person: str
    longer: bool
    yes_no: bool


def asks_than_all(question: str) -> ThanAllAsk | None:
    m = _THAN_ALL.search(QUOTED.sub(" QUOTED ", question))
    if m is None or len(people := people_in(question)) != 1:
        return None
    return ThanAllAsk(people[0], m.group("cmp").lower() == "longer",
                      bool(re.match(r"^\W*(?:did|was|were|is|has|had)\b", question, re.IGNORECASE)))


def answer_than_all(executor: QueryExecutor, q: Query, ask: ThanAllAsk, place: str | None,
                    before_time: float | None) -> tuple[str, QueryResult]:
    """"Yes: 4 of the 6 turns in the bedroom were shorter than A's shortest turn (1.90 seconds, at 00:38): ..."."""
    res = executor.run(Query(find="who", act="spoke", place=place), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    every = executor.run(Query(find="who", act="spoke"), before_time).events    # (the person's turns anywhere)
    where = f" in the {place}" if place else ""
    text, res = than_persons_turn(executor, res, turns, ask.person, "longest" if ask.longer else "shortest",
                                  ask.longer, where, before_time, [e for e in every if e.kind == "voice"])
    if ask.yes_no and text != REFUSAL and isinstance(res.value, tuple):
        text = f"{'Yes' if res.value[0] else 'No'}: {text[0].lower()}{text[1:]}"
    return text, res
