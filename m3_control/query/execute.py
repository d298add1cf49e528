"""Run a :class:`~m3_control.query.frame.Query` over the records visible at the question's time.

The steps, each recorded in ``QueryResult.steps`` (the trace):

1. **scope**: every visible turn (voice turns and face appearances), narrowed by time (``from``/``to``: events
   overlapping the window; ``at``: events around that moment), by place (the robot's place at the event) and by
   ``rel`` to the first turn of ``other`` (before / after it, or the one turn of someone else right before /
   right after it), or ``rel=with``: other people's face appearances overlapping one of ``other``'s (in view
   together);
2. **select**: events of the asked kind (``act``) and person (``who``);
3. **people**: who the selected events belong to, each with how many times they spoke in the scope; ``times``
   keeps the people whose count fits;
4. **pick**: first / n-th / last person (or event, when ``who`` names the person), most / least talkative;
5. **project**: ``find`` computes the value (a count, people, what they said, times, places, yes/no, same
   person, more/less often).

Nothing is guessed: a reference that matches nobody, or more than one person, a place the memory does not know,
a time after the question, stop the query with that status; the answer says so (:mod:`m3_control.query.phrase`).
"""

from __future__ import annotations

import operator
from collections import Counter
from dataclasses import replace
from typing import Any

from m3_memory.people import PeopleFacts, Turn, in_window
from m3_memory.poses import place_of
from m3_memory.store.where import find_place, load_places, turn_poses

from .frame import (
    TIMED_REL,
    Query,
    before_side,
    by_count,
    check_shape,
    compares_with_other,
    count_rank,
    nth,
    pick_ordinal,
    rel_base,
)
from .people import MIN_MATCH, Who, resolve
from .quotes import quote_score
from .rank_people import ranked
from .repair import repair
from .result import PersonRow, QueryResult, both_people, busiest_place
from .robot_track import not_there, robot_moments, robot_places, robot_seconds_by_place, robot_time_in
from .talk_time import seconds_of
from .turn_forms import nearest, reach_pick, scoped_role, silence, sole, span_turns

AT_TOLERANCE_S = 1.0     # "who was speaking at 1:05": a turn that ends up to a second before still counts
NEAR_S = 3.0             # nobody at that moment: a turn this close to it is named as the nearest
NAMED_NEAR_S = 10.0      # the person asked about not at that moment: their own turn this close is named
SAME_SENTENCE = 0.75     # two transcripts of one person this alike (quotes.quote_score both ways) are one sentence
REL_SLACK_S = 0.5        # turns may touch: "right before" allows this much overlap with the anchor


def _plain_seconds(t: str) -> bool:
    return t.strip().lstrip("-").replace(".", "", 1).isdigit()


class QueryExecutor:
    def __init__(self, store: Any, min_match: float = MIN_MATCH) -> None:
        self.store, self.min_match = store, min_match

    def names(self, before_time: float | None) -> list[str]:
        """The names people visible at ``before_time`` are known by (a question may name them)."""
        return PeopleFacts(self.store, before_time).names()

    def run(self, q: Query, before_time: float | None) -> QueryResult:
        facts = PeopleFacts(self.store, before_time)
        q, moved = repair(q, [p.name for p in load_places(self.store)], lambda ref: resolve(
            facts, ref, self.min_match).status != "unknown", lambda: self.store.perceived_until(before_time))
        check_shape(q)
        timeline = self.store.timeline()
        res = QueryResult(q, timeline=timeline, now=timeline.now(before_time))
        res.steps += [{"step": "repair", "moved": m} for m in moved]
        res.describe = _Describer(facts)  # type: ignore[assignment]
        t1, t2, at = res.read(q.from_), res.read(q.to), res.read(q.at)
        for t, text in ((at, q.at), (t1, q.from_)):
            if t is not None and res.now is not None and t > res.now + 1e-6:
                return self._stop(res, "future_time", text or "")
        # 1. scope
        scope = list(facts.turns)
        self._step(res, "visible", scope)
        if t1 is not None and t2 is not None and t2 < t1:
            t1, t2 = t2, t1
        if t1 is not None or t2 is not None:
            scope = [e for e in scope if in_window(e, t1, t2)]
            self._step(res, f"window {res.say(t1 or 0)}-{res.say(t2) if t2 is not None else 'now'}", scope)
        if at is not None and q.find != "gap":   # (for a time between, the moment is where it starts)
            # a wall time written to the minute ("at 9:01", "at 3 pm") is that whole minute
            minute = 60.0 if res.timeline.is_wall and q.at and q.at.count(":") < 2 and not _plain_seconds(q.at) \
                and not res.into_recording else 0.0
            around = scope
            scope = nearest(scope, at, q.act) if q.measure == "nearest" else [
                e for e in scope if e.start - AT_TOLERANCE_S <= at + minute and at <= e.end + AT_TOLERANCE_S]
            if q.place is None and not any(e.kind == ("face" if q.act == "seen" else "voice") for e in scope):
                # nobody then: the answer says who was nearest, a few seconds off
                res.near = [e for e in nearest(around, at, q.act) if min(abs(e.start - at), abs(e.end - at)) <= NEAR_S]
            self._step(res, f"at {res.say(at)}", scope)
        known = load_places(self.store) if q.place is not None or q.not_place else []
        away = []
        for name in q.not_places():
            # "in the garage but not in the workshop", "in neither the garage nor the office": never there
            place = find_place(known, name)
            if place is None:
                return self._stop(res, "unknown_place", name)
            away.append(place)
        if q.place is not None:
            place = find_place(known, q.place)
            if place is None:
                return self._stop(res, "unknown_place", q.place)
            self.place_turns(res, scope)
            scope = [e for e in scope if res.places.get(e.id) == place.name]
            self._step(res, f"place {place.name}", scope)
            if not scope and not_there(self.store, q, place.name, t1, t2):   # nothing heard: the robot was elsewhere
                res.absent = place.name
                self._step(res, f"robot not in {place.name} in the window", [])
        who = other = until = None
        for key, ref in (("who", q.who), ("other", q.other), ("until", q.until)):
            if ref is None:
                continue
            w = scoped_role(resolve(facts, ref, self.min_match), scope, q)
            if key == "other" and w.status == "ambiguous" and w.how == "role" and q.find in ("same", "more", "less") \
                    and who is not None:
                # "did X also speak the most?" when people tie for the most: X is one of them, or compared with any
                # of them (they spoke equally often)
                tied = [c for c, _, _ in w.candidates]
                pick = who if who in tied else tied[0]
                res.steps.append({"step": f"tie for {ref}", "people": len(tied), "tied": tied})
                w = Who(ref, "found", pick, "role", 1.0, [t for c, _, t in w.candidates if c == pick])
            res.who[key] = w
            if w.status == "ambiguous":
                res.candidates = [_telling_apart(facts, c, ref, t) for c, _, t in w.candidates]
            if w.status != "found":
                return self._stop(res, f"{w.status}_person", ref)
            if w.how == "speech" and w.character_id is not None:
                # the person the question named is named back in the question's own words, not in the
                # transcript's (which may hold speech recognition errors the asker never said)
                res.describe[w.character_id] = f'the person who said "{_words_of(facts, ref)}"'  # type: ignore[index]
            if key == "who":
                who = w.character_id
            elif key == "other":
                other = w.character_id
            else:
                until = w.character_id
        if q.other_turn is not None and other is not None and \
                not nth(_own_turns(facts, other), int(q.other_turn)):
            res.value = len(_own_turns(facts, other))
            return self._stop(res, "no_such_turn", q.other_turn)
        if q.until_turn not in (None, "last") and until is not None and \
                not nth(_own_turns(facts, until), int(q.until_turn)):   # "between A's first and second turns"
            res.value = len(_own_turns(facts, until))
            return self._stop(res, "no_such_turn", f"until:{q.until_turn}")
        if q.until_turn == "last" and other is not None and until == other and len(_own_turns(facts, other)) < 2:
            res.value = len(_own_turns(facts, other))   # "between A's first and last turns" of one turn
            return self._stop(res, "no_such_turn", "until:-1")
        if q.until and other is not None and until is not None:
            scope = self._between(res, facts, other, until, scope)
        if q.rel:
            assert other is not None
            # the time until someone's next turn ("... and the next thing B said") is measured to B's next turn,
            # not to whoever spoke right after
            # ... and "what did C say right after A's last words?" is C's next words, whoever spoke in between
            next_of = who not in (None, other) and q.find in ("what", "when", "where") and q.rel.startswith("right_")
            rq = replace(q, rel=q.rel.replace("right_", "")) if (q.find == "gap" or next_of) and who is not None \
                else q
            if q.place is not None and q.rel in TIMED_REL and (q.other_there or not q.rel.endswith("_last")
                                                               and q.other_turn is None):
                # "how many people spoke in the kitchen before A did?": A's turns there are the anchor (A's last
                # words are their last anywhere: "did anyone speak in the kitchen after A's last words?")
                rq, theirs = replace(rq, place=place.name), _own_turns(facts, other)
                mine = _own_turns(facts, who) if who not in (None, other) else []   # type: ignore[arg-type]
                self.place_turns(res, theirs + mine)
                if not any(res.places.get(e.id) == place.name for e in theirs):   # (the answer says who's there)
                    res.events = [e for e in mine if res.places.get(e.id) == place.name]
                    return self._stop(res, "not_there", place.name)
            if next_of:     # who really spoke right after (before) the anchor: said when it was someone else
                right = self._relate(res, facts, replace(rq, rel=q.rel, act="spoke"), other, scope)
                res.right_next = right[0] if right else None
            scope = self._relate(res, facts, rq, other, scope)
            if next_of:     # the executed frame is what the answer says ("after", their next turn)
                q = res.query = replace(q, rel=rq.rel, pick=q.pick or ("first" if "after" in q.rel else "last"))
                res.steps.append({"step": f"rel={q.rel} pick={q.pick}: the named person's own next turn"})
        # 2. select
        act = q.act or ("spoke" if q.find in ("what", "count_times", "more", "less", "gap") or (count_rank(q.pick)
                                                                                          and q.measure != "people")
                        or q.by == "turn" else "any")
        if q.rel == "with":
            act = "seen"      # in view together: the face appearances are the events, whatever the frame said
        kinds = {"spoke": ("voice",), "seen": ("face",), "any": ("voice", "face")}[act]
        # "how many times in total did A and B speak?": both people's turns (a second person with no relation)
        # ... and "did A and B both speak in the workshop?": yes only if each did
        both = both_people(q, ("count_times", "yes")) and who is not None and other is not None
        sel = [e for e in scope if e.kind in kinds and (who is None or e.character_id == who
                                                        or (both and e.character_id == other))]
        self._step(res, f"act {act}" + (" of who and other" if both else " of who" if who is not None else ""), sel)
        if at is not None and q.measure == "nearest" and who is not None and not sel and act != "any" and not q.rel:
            # "what was A saying at around 0:30?" where someone else was nearer then: A's own nearest turn
            sel = [e for e in nearest([e for e in around if e.character_id == who and e.kind in kinds], at, act)
                   if min(abs(e.start - at), abs(e.end - at)) <= NEAR_S]
            scope = scope + [e for e in sel if e not in scope]
            self._step(res, f"nearest of who to {res.say(at)}", sel)
        elif at is not None and q.find != "gap" and who is not None and not sel and act != "any" and q.place is None \
                and not q.rel and q.measure != "nearest":
            # "what did A say at 0:25?" when A was not speaking then: A's own turn nearest that moment, if close
            res.near = [e for e in nearest([e for e in around if e.character_id == who], at, act)
                        if min(abs(e.start - at), abs(e.end - at)) <= NAMED_NEAR_S]
        if away:
            there = [e for e in facts.turns if e.kind in kinds]   # never there: at any time, not only then
            self.place_turns(res, there)
            names = {p.name for p in away}
            gone = {e.character_id for e in there if res.places.get(e.id) in names}
            sel = [e for e in sel if e.character_id not in gone]
            self._step(res, f"not in {' or '.join(p.name for p in away)}", sel)
        # 3. people
        spoke: dict[int, int] = {}
        for e in scope:
            if e.kind == "voice":
                spoke[e.character_id] = spoke.get(e.character_id, 0) + 1
        res.spoke, res.scope_events = spoke, scope
        rows: dict[int, PersonRow] = {}
        for e in sel:
            r = rows.get(e.character_id)
            if r is None:
                r = rows[e.character_id] = PersonRow(e.character_id, "", [], spoke.get(e.character_id, 0))
            r.events.append(e)
        if q.find in ("same", "more", "less") and who is not None and other is not None:
            for cid in (who, other):
                if cid not in rows:
                    rows[cid] = PersonRow(cid, "", [e for e in scope if e.character_id == cid], spoke.get(cid, 0))
        op, k = _times(q.times) if q.times else (None, 0)
        if compares_with_other(q.times) and other is not None:
            # "how many people spoke more often than X?": X's own count in the same scope is the k; X is not one of
            # the people compared with X
            k = spoke.get(other, 0)
            rows.pop(other, None)
            res.steps.append({"step": f"times of other: {k}"})
        if op is not None and act == "spoke" and op(0, k):
            # "which of the people I heard never spoke in the bathroom?": everyone heard at all is counted, with no
            # turn in the scope; their turns elsewhere are the evidence that they were heard
            for e in facts.turns:
                if e.kind == "voice" and e.character_id not in rows and e.character_id not in spoke and \
                        (who is None or e.character_id == who) and e.character_id != (
                        other if compares_with_other(q.times) else None):
                    rows[e.character_id] = PersonRow(e.character_id, "", [], 0)
                if e.kind == "voice" and e.character_id in rows and not rows[e.character_id].spoke:
                    rows[e.character_id].events.append(e)
        people = list(rows.values())
        if op is not None:
            people = [p for p in people if op(p.spoke, k)]
            self._step(res, f"times{q.times}", [e for p in people for e in p.events], people)
        # 4. pick
        n = pick_ordinal(q)
        if busiest_place(q):
            pass          # most / least of the places (project), not of the people
        elif q.pick and (who is not None or q.by == "turn") and q.find not in ("same", "more", "less"):
            # someone's n-th (last) turn, or with by=turn the n-th thing anyone said ("the third thing I heard")
            evs = [e for p in people for e in p.events]
            evs.sort(key=lambda e: (e.start, e.end))
            if q.pick == "last":
                evs = [max(evs, key=lambda e: (e.end, e.start))] if evs else []
            elif n is not None:
                picked = nth(evs, n)
                if not picked and evs and who is None and n > 0:   # "the third thing said in the office" of two
                    res.value = len(evs)
                    return self._stop(res, "no_such_turn", f"turn:{n}")
                evs = picked
            for p in people:
                p.events = [e for e in p.events if e in evs]
            people = [p for p in people if p.events]
            self._step(res, f"pick {q.pick} event", evs, people)
        elif q.pick:
            if q.measure == "reach":    # "the first person to speak twice": by the moment of their k-th turn
                people = reach_pick(people, q)
            elif count_rank(q.pick):
                people = ranked(res, q, people)
            elif q.top and q.pick in ("first", "last"):   # "the first two people to speak"
                order = sorted(people, key=lambda p: p.first if q.pick == "first" else -p.last)
                people = order[:int(q.top)]
            elif q.pick == "last":
                people = [max(people, key=lambda p: (p.last, p.first))] if people else []
            elif n is not None and n < 0:
                # "the second to last person to speak": by their last turns, counted from the end
                people = nth(sorted(people, key=lambda p: (p.last, p.first)), n)
            elif n is not None:
                people = nth(sorted(people, key=lambda p: p.first), n)
            self._step(res, f"pick {q.pick}", [e for p in people for e in p.events], people)
        people.sort(key=lambda p: p.first if p.events else float("inf"))
        for p in people:
            p.description = res.describe[p.character_id]  # type: ignore[index]
        res.people = people
        res.events = sorted({e for p in people for e in p.events}, key=lambda e: (e.start, e.end, e.id))
        if res.anchor is not None and (q.rel or q.until):
            res.events = sorted({*res.events, res.anchor, *([res.until_anchor] if res.until_anchor else [])},
                                key=lambda e: (e.start, e.end, e.id))
        elif q.find in ("what", "when") and who is None and q.pick in ("first", "last") and res.events:
            # "the first thing anyone said", "what were the last words I heard?", "when did I first hear someone in
            # the hallway?": one turn, not a person's all
            voiced = [e for e in res.events if e.kind == "voice"] or res.events
            edge = voiced[0] if q.pick == "first" else voiced[-1]
            res.events = [edge]
            for p in people:
                p.events = [e for e in p.events if e is edge]
            self._step(res, f"{q.pick} words", res.events)
        # 5. project
        self._project(res, facts, q, who, other, at, t1, t2)
        if q.pick == "first" and who is not None and t1 is not None and not (q.rel or q.place or at is not None) \
                and q.find == "what":
            # "what did C say right after I entered the workshop?": C's first words after it, and who really spoke
            # first then when it was someone else
            after = [e for e in facts.turns if e.kind == "voice" and e.start >= t1 and (t2 is None or e.start <= t2)]
            res.right_next = min(after, key=lambda e: (e.start, e.id)) if after else None
        if res.right_next is not None and res.right_next.character_id != who and res.value \
                and q.find in ("what", "when"):   # (said in the answer: provenance)
            res.events = sorted({*res.events, res.right_next}, key=lambda e: (e.start, e.end, e.id))
        else:
            res.right_next = None
        return res

    # -- steps ---------------------------------------------------------------------------------------
    def _relate(self, res: QueryResult, facts: PeopleFacts, q: Query, other: int, scope: list[Turn]) -> list[Turn]:
        """Events before / after the first turn of ``other`` (the anchor; its last turn for a ``..._last`` rel), or
        the one turn of someone else right before / right after it; ``with``: other people's appearances while
        ``other`` was in view too (the anchor: ``other``'s first appearance with someone)."""
        mine = [e for e in facts.turns if e.character_id == other]
        if q.rel == "same_place":
            # "did A and B ever speak in the same room?": events in a place where other was heard (seen) too, at any
            # time; other's own events are not among them
            kinds = {"spoke": ("voice",), "seen": ("face",)}.get(q.act or "", ("voice", "face"))
            theirs = [e for e in mine if e.kind in kinds]
            self.place_turns(res, theirs + scope)
            shared = {res.places[e.id] for e in theirs if e.id in res.places}
            out = [e for e in scope if e.character_id != other and res.places.get(e.id) in shared]
            self._step(res, f"in a place where other was ({', '.join(sorted(shared)) or 'none known'})", out)
            return out
        if q.rel == "with":
            seen = [e for e in mine if e.kind == "face"]
            out = [e for e in scope if e.kind == "face" and e.character_id != other
                   and any(min(e.end, s.end) - max(e.start, s.start) > 0 for s in seen)]
            res.anchor = next((s for s in seen if any(min(e.end, s.end) - max(e.start, s.start) > 0 for e in out)),
                              seen[0] if seen else None)
            self._step(res, "in view with", out)
            return out
        voiced = [e for e in _own_turns(facts, other, q.other_act == "seen") if q.place is None
                  or not q.other_there and (q.other_turn is not None or q.rel.endswith("_last"))
                  or res.places.get(e.id) == q.place]   # (the caller placed them)
        rel = rel_base(q.rel)
        # a person named by a role is anchored on the turn that gave the role ("right before the final speaker":
        # their last turn; "the one who spoke first", "the most talkative": their first)
        w = res.who.get("other")
        role_turn = w.evidence[0] if w is not None and w.how == "role" and w.evidence else None
        anchor = (max(voiced, key=lambda e: (e.start, e.end)) if q.rel.endswith("_last") else role_turn or voiced[0]) \
            if voiced else None
        if q.other_turn is not None:    # other's n-th turn ("right before A spoke for the second time")
            anchor = next(iter(nth(voiced, int(q.other_turn))), None)
        res.anchor = anchor
        if anchor is None:
            return []
        if rel == "before":
            out = [e for e in scope if e.end <= anchor.start + REL_SLACK_S]
        elif rel == "after":
            out = [e for e in scope if e.start >= anchor.end - REL_SLACK_S]
        else:
            kind = "face" if q.act == "seen" else "voice"
            cand = [e for e in scope if e.kind == kind and e.character_id != other]
            if rel == "right_before":
                cand = [e for e in cand if e.end <= anchor.start + REL_SLACK_S]
                out = [max(cand, key=lambda e: (e.end, e.start))] if cand else []
            else:
                out = [e for e in cand if e.start >= anchor.end - REL_SLACK_S][:1]
        self._step(res, f"{q.rel} {res.say(anchor.start)}", out)
        return out

    def _between(self, res: QueryResult, facts: PeopleFacts, a: int, b: int, scope: list[Turn]) -> list[Turn]:
        """Events between the first turns of ``a`` and ``b`` (whichever came first), neither of those turns."""
        first = span_turns(_own_turns(facts, a), _own_turns(facts, b), res.query)
        res.anchor, res.until_anchor = first
        if first[0] is None or first[1] is None:
            self._step(res, "between", [])
            return []
        lo, hi = sorted(first, key=lambda e: (e.start, e.end))
        # between one person's two turns, the people who spoke are the others; the turns (words, times) are everyone's
        own = a == b and res.query.find not in ("count_times", "what", "when")
        out = [e for e in scope if e.start >= lo.end - REL_SLACK_S and e.end <= hi.start + REL_SLACK_S
               and e is not lo and e is not hi and not (own and e.character_id == a)]
        self._step(res, f"between {res.say(lo.end)} and {res.say(hi.start)}", out)
        return out

    @staticmethod
    def _step(res: QueryResult, what: str, events: list[Turn], people: list[PersonRow] | None = None) -> None:
        ids = {e.character_id for e in events} if people is None else {p.character_id for p in people}
        res.steps.append({"step": what, "events": len(events), "people": len(ids)})

    def _stop(self, res: QueryResult, status: str, problem: str) -> QueryResult:
        res.status, res.problem = status, problem
        res.steps.append({"step": "stop", "status": status, "problem": problem})
        return res

    def place_turns(self, res: QueryResult, events: list[Turn]) -> None:
        """``res.places``: the place of each of ``events`` on the robot's track."""
        need = [e.id for e in events if e.id not in res.places]
        if not need:
            return
        places = load_places(self.store)
        for tid, (x, y, _) in turn_poses(self.store, need).items():
            p = place_of(places, x, y)
            if p is not None:
                res.places[tid] = p.name

    def _project(self, res: QueryResult, facts: PeopleFacts, q: Query, who: int | None, other: int | None,
                 at: float | None, t1: float | None, t2: float | None) -> None:
        people, events = res.people, res.events
        f = q.find
        if f == "count_people":
            res.value = len(people)
        elif f == "count_times":
            kind = "face" if q.act == "seen" else "voice"
            res.value = sum(1 for p in people for e in p.events if e.kind == kind)
        elif f == "yes" and q.count:
            # "did more than three people speak?": the number of people found, compared with the question's
            op, k = _times(q.count)
            res.value = op(len(people), k)
            self._step(res, f"count{q.count}: {len(people)} people", events, people)
        elif f == "yes":
            found = {p.character_id for p in people}
            res.value = {who, other} <= found if both_people(q) else sole(res, who, bool(people)) if q.only \
                else bool(people)
            if q.only == "else":   # "did anyone other than A ...?": whether someone but A did
                if q.times and not compares_with_other(q.times):     # (that many turns: "more than twice")
                    op, k = _times(q.times)
                    res.others = [c for c in res.others if op(res.spoke.get(c, 0), k)]
                res.value = bool(res.others)
        elif f == "gap":
            self._gap(res, facts, q, who, other, t1 if t1 is not None else at)
        elif f == "same":
            res.value = who == other
        elif f in ("more", "less"):
            # each one's turns in the scope, whatever a pick or a relation left of the people (a frame that picks
            # the first of two compared people dropped the other from them)
            res.value = seconds_of(res, (who, other)) if q.measure == "time" else \
                (res.spoke.get(who, 0), res.spoke.get(other, 0))  # type: ignore[arg-type]
        elif busiest_place(q) and q.measure == "time" and who is None and q.act is None:
            # "which room did I spend the most time in?": the robot's own stays, by seconds
            res.place_counts = robot_seconds_by_place(self.store, t1, t2 if t2 is not None else facts.before_time)
            best = by_count(list(res.place_counts.values()), q.pick or "most")
            res.value = [p for p, n in res.place_counts.items() if n == best]
            self._step(res, f"the robot's place with the {q.pick} time", [])
        elif busiest_place(q):
            # "in which room did people talk the most?": most / least applies to the places, not to a person
            kind = "face" if q.act == "seen" else "voice"
            mine = [e for e in events if e.kind == kind or (q.measure == "people" and q.act is None)]
            self.place_turns(res, mine)
            pairs = [(res.places[e.id], e.character_id) for e in mine if e.id in res.places]
            # (measure=people: each person once per place; in the order of the events, not of a set's hashes)
            res.place_counts = counts = dict(Counter(p for p, _ in (dict.fromkeys(pairs) if q.measure == "people"
                                                                   else pairs)))
            best = by_count(list(counts.values()), q.pick or "most")
            res.value = [p for p, n in counts.items() if n == best]
            self._step(res, f"place with the {q.pick} {'appearances' if kind == 'face' else 'turns'}",
                       [e for e in mine if res.places.get(e.id) in res.value])
        elif f in ("where", "count_places"):
            if who is None and not q.rel and q.times is None and q.place is None and q.act is None:
                # the robot's own rooms ("how many rooms did I go to?"); with act=: where people spoke / were seen
                robot_places(self.store, res, facts, at, t1, t2)
                names = [p for _, p in res.robot_places]
                n = {"first": 1, "last": -1}.get(q.pick or "") or (int(q.pick) if q.pick and
                                                                   q.pick.lstrip("-").isdigit() else 0)
                if n and names:     # "which room did I visit second?": the n-th of its stays, in order
                    ok = 0 < n <= len(names) or 0 < -n <= len(names)
                    stay = res.robot_places[n - 1 if n > 0 else n] if ok else None
                    if stay is None:   # "which was the third room I entered?" of a robot that went to two
                        res.problem = f"visited {len(names)}: " + ", ".join(names)
                    res.robot_places = [stay] if stay else []
                    names = [stay[1]] if stay else []
            else:
                self.place_turns(res, events)
                names = [res.places[e.id] for e in events if e.id in res.places]
            res.value = len(set(names)) if f == "count_places" else list(dict.fromkeys(names))
        elif f == "how_long":
            if who is None and not q.rel and q.times is None and q.act is None and q.place is not None:
                res.value = robot_time_in(self.store, res, q.place, t1, t2 if t2 is not None else facts.before_time)
            else:   # how long the selected people talked (or were in view): their turns' lengths
                kind = "face" if q.act == "seen" else "voice"
                res.value = int(round(sum(e.end - e.start for e in events if e.kind == kind)))
        elif f == "when":
            if who is None and not q.rel and q.act is None and q.place is not None and q.times is None:
                # "when did I get to the hallway?": the robot's arrivals there, not the people it met
                robot_moments(self.store, res, q, t1, t2 if t2 is not None else facts.before_time)
            else:
                res.value = [e.end if q.measure == "end" else e.start for e in events
                             if e is not res.anchor or who == other]
        elif f == "what":
            said: list[tuple[int, str]] = []
            for e in events:
                if e.kind != "voice" or not e.text.strip() or (e is res.anchor and e.character_id != who):
                    continue
                text = " ".join(e.text.split()).rstrip(".!?")
                # one person's sentence heard twice ("Bimblue F2 now" / "Bimbloo F2 now") is one sentence
                if not any(c == e.character_id and same_sentence(t, text) for c, t in said):
                    said.append((e.character_id, text))
            res.value = [t for _, t in said]
        else:  # who
            res.value = [p.character_id for p in people]

    def _gap(self, res: QueryResult, facts: PeopleFacts, q: Query, who: int | None, other: int | None,
             clock: float | None) -> None:
        """find=gap: seconds from the first moment (other's turn that ``rel`` names, or ``from`` / ``at``) to the
        first selected turn after it (with a ``before`` relation: the last one before it; "between A and B": B's
        turn). A person named by ``who`` whose turns all lie on the other side is still measured (the answer then
        says "before" where the question said "after": what the records hold, not what the question assumed)."""
        anchor = res.anchor
        start = anchor.start if anchor is not None else clock
        if start is None:
            return
        kind = "face" if q.act == "seen" else "voice"
        if q.measure == "silence" and anchor is not None:   # the time nobody spoke after (before) A's turn
            self._step(res, silence(res, facts.turns, anchor, before_side(q.rel), REL_SLACK_S), res.events)
            return
        if res.until_anchor is not None:
            end: Turn | None = res.until_anchor
        else:
            cands = [e for e in res.events if e is not anchor and e.kind == kind
                     and (who is not None or e.character_id != other)]
            before = before_side(q.rel)
            side = [e for e in cands if (e.start < start if before else e.start >= start - 1e-6)]
            if not side and who is not None and who != other:   # (the same person "again": none is none)
                side = [e for e in facts.turns if e.character_id == who and e.kind == kind and e is not anchor]
                before = bool(side) and side[0].start < start and not any(e.start >= start for e in side)
            if q.pick == "last":
                before = False
                side = side[-1:]
            end = (max(side, key=lambda e: e.start) if before else min(side, key=lambda e: e.start)) if side else None
        if end is None:
            self._step(res, "gap: no turn to measure to", [])
            return
        res.gap = (start, end)
        if q.pick == "first" and who is not None and (anchor is None or anchor.character_id != who):
            own = min((e for e in facts.turns if e.character_id == who and e.kind == kind), key=lambda e: e.start,
                      default=None)    # "how long after A did B first speak?" of a B who had spoken before A
            res.near = [own] if own is not None and own.start < min(start, end.start) else []
        res.value = int(round(abs(end.start - start)))
        res.events = sorted({end, *([anchor] if anchor is not None else [])}, key=lambda e: (e.start, e.end, e.id))
        self._step(res, f"gap {res.say(start)} to {res.say(end.start)}: {res.value} s", res.events)


def _own_turns(facts: PeopleFacts, cid: int, seen: bool = False) -> list[Turn]:
    """A person's voice turns in time order (their face appearances where they never spoke, or ``seen``): what a
    relation to them, or a window between them and someone else, is anchored on."""
    mine = [e for e in facts.turns if e.character_id == cid]
    return [e for e in mine if e.kind == ("face" if seen else "voice")] or ([] if seen else mine)


def same_sentence(a: str, b: str) -> bool:
    """Two transcripts of one sentence (``SAME_SENTENCE`` alike, both ways)."""
    return min(quote_score(a, b), quote_score(b, a)) >= SAME_SENTENCE


def _words_of(facts: PeopleFacts, ref: str) -> str:
    return " ".join(facts._said_part(ref).split()).strip(" .?!\"'").rstrip(".!?")


def _telling_apart(facts: PeopleFacts, cid: int, ref: str, matched: Turn) -> str:
    """One of several people a reference may mean, described by something else they said (or when they said it),
    since "the person who said <the ambiguous words>" tells nobody apart."""
    from m3_memory.people import similarity

    base = facts.describe(cid)
    if similarity(facts._said_part(ref), base) < 0.6:
        return base
    p = facts.person(cid)
    other = next((t for t in (p.turns if p else []) if t.text.strip() and similarity(ref, t.text) < 0.5), None)
    if other is not None:
        return f"the person who also said \"{' '.join(other.text.split()).rstrip('.!?')}\""
    return f"the person who said it at {facts.say(matched.start)}"


class _Describer(dict):
    """character id -> how answers name them (read lazily: each name read scans that person's memories)."""

    def __init__(self, facts: PeopleFacts) -> None:
        super().__init__()
        self.facts = facts

    def __missing__(self, cid: int) -> str:
        self[cid] = self.facts.describe(cid)
        return self[cid]


_OPS = {">=": operator.ge, "<=": operator.le, "=": operator.eq, ">": operator.gt, "<": operator.lt}


def _times(spec: str) -> tuple[Any, int]:
    """"=2" / ">3" / "<=1" -> (comparison, k); the frame parser checked the form. ">other": k is the other
    person's count, which the caller sets (0 here)."""
    k = spec.lstrip("<>=")
    return _OPS[spec[: len(spec) - len(k)]], 0 if k == "other" else int(k)
