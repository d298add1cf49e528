"""Entity tools of the reasoning loop: typed operations over who-said-what-when facts, executed by code.

A small model classifies and extracts well but counts, sorts and compares badly, so it only *chooses* a call
(``Action: [Tool]`` / ``Content: times_spoke("lay blue at x four now")``); the count, the order or the
same/different decision is computed here from :class:`m3_memory.people.PeopleFacts`, and the answer sentence is
phrased by a template. Every result names the turn records and memories it was derived from (provenance).

Calls (times are stream seconds; ``t1``/``t2`` optional, both or neither):

===============================  =================================================================
``count_people(t1, t2)``          how many different people were seen or heard
``people(t1, t2)``                who was seen or heard, in order of first appearance
``times_spoke("who")``            how many times a person spoke
``said_by("who")``                what a person said, in order
``spoke_before("a", "b")``        did a speak (first) before b did (``spoke_after``: after)
``same_person("a", "b")``         are a and b the same person (``different_people``: the opposite question)
``spoke_more("a", "b")``          did a speak more often than b (``spoke_less``: less often)
``most_talkative(t1, t2)``        who spoke most often (``least_talkative``: least)
``first_speaker(t1, t2)``         who spoke first (``last_speaker``: last)
``last_seen("who")``              when a person was last seen or heard
``last_place("who")`` ...          where: see :mod:`m3_control.where_tools`
===============================  =================================================================

``Characters``, ``Timeline`` and ``Who`` actions (``Action: [Timeline]`` / ``Content: <character_2>``) are
accepted as aliases of ``people``, ``said_by`` and ``people(t1, t2)`` for models trained on the plain protocol.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from m3_memory.people import PeopleFacts, Person
from m3_memory.timeline import Timeline

from .tool_result import ToolError, ToolResult
from .where_tools import WhereOps

NO_MEMORY = "I have no memory of that."
MAX_ARG_CHARS = 300
MAX_PROVENANCE_TURNS = 100
__all__ = ["EntityTools", "ToolError", "ToolResult", "parse_call", "alias_call", "parse_time"]


@dataclass
class Call:
    name: str
    args: list[Any]


def parse_call(text: str) -> Call:
    """``name(arg, ...)`` with string/number literals only (parsed as a Python expression, never evaluated)."""
    text = " ".join(str(text).split())
    if len(text) > 2 * MAX_ARG_CHARS:
        raise ToolError(f"tool call too long ({len(text)} characters)")
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        raise ToolError(f"not a tool call: {text!r} ({e.msg})") from None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.keywords:
        raise ToolError(f"not a tool call: {text!r} (expected name(arguments))")
    args: list[Any] = []
    for a in node.args:
        if not isinstance(a, ast.Constant) or not isinstance(a.value, str | int | float) or isinstance(a.value, bool):
            raise ToolError(f"{node.func.id}: arguments must be quoted text or numbers")
        args.append(a.value)
    return Call(node.func.id, args)


def alias_call(action: str, content: str) -> str:
    """Plain-protocol tool actions (``[Characters]``, ``[Timeline] <character_2>``, ``[Who] 30-90``) -> a call."""
    a = action.strip().lower()
    content = content.strip()
    if a == "characters":
        return "people()"
    if a == "timeline":
        return f"said_by({content!r})"
    if a == "who":
        parts = [p for p in content.replace("to", "-").split("-") if p.strip()]
        try:
            t1, t2 = (float(p) for p in parts[:2])
        except ValueError:
            raise ToolError(f"[Who] needs 't1-t2' in seconds, got {content!r}") from None
        return f"people({t1}, {t2})"
    raise ToolError(f"unknown action [{action}]")


class EntityTools(WhereOps):
    """Runs calls against the facts visible at the question's time."""

    def __init__(self, store: Any, min_match: float = 0.6) -> None:
        self.store = store
        self.min_match = min_match
        self._ops: dict[str, Callable[..., ToolResult]] = {
            "count_people": self.count_people, "people": self.people, "times_spoke": self.times_spoke,
            "said_by": self.said_by, "spoke_before": self.spoke_before, "spoke_after": self.spoke_after,
            "same_person": self.same_person, "different_people": self.different_people,
            "spoke_more": self.spoke_more, "spoke_less": self.spoke_less,
            "last_place": self.last_place, "first_place": self.first_place,
            "places_discussed": self.places_discussed, "place_at": self.place_at,
            "most_talkative": self.most_talkative, "least_talkative": self.least_talkative,
            "first_speaker": self.first_speaker, "last_speaker": self.last_speaker, "last_seen": self.last_seen}

    @property
    def names(self) -> list[str]:
        return list(self._ops)

    def run(self, text: str, before_time: float | None) -> ToolResult:
        call = parse_call(text)
        op = self._ops.get(call.name)
        if op is None:
            raise ToolError(f"unknown tool {call.name!r}; tools: {', '.join(self._ops)}")
        self._facts = PeopleFacts(self.store, before_time)
        self._timeline = self.store.timeline()
        self._now = self._timeline.now(before_time)
        try:
            result = op(*call.args)
        except TypeError as e:
            raise ToolError(f"{call.name}: wrong arguments ({e})") from None
        result.call = f"{call.name}({', '.join(repr(a) for a in call.args)})"
        if len(result.turns) > MAX_PROVENANCE_TURNS:  # a count over thousands of turns cites the first ones
            result.facts.append(f"provenance lists {MAX_PROVENANCE_TURNS} of {len(result.turns)} turns")
            result.turns = result.turns[:MAX_PROVENANCE_TURNS]
        result.turns = self._facts.with_memories(result.turns)
        return result

    # -- helpers --------------------------------------------------------------------------------------
    _timeline: Timeline = Timeline()
    _now: float | None = None

    def _at(self, t: float) -> str:
        """A time as answers say it: wall clock on a live robot's memory, minutes:seconds into a recording."""
        return self._timeline.say(t, self._now)

    def _time(self, t: float | str | None) -> float | None:
        """A time argument as the question wrote it (a clock time may be a wall time: m3_memory.timeline)."""
        if isinstance(t, str) and self._timeline.is_wall:
            try:
                return self._timeline.read(t, self._now)
            except ValueError as e:
                raise ToolError(str(e)) from None
        return parse_time(t)

    def _d(self, p: Person) -> str:
        """How answers name a person (from everything known of them, not only the window's turns)."""
        return self._facts.describe(p.character_id)

    def _window(self, t1: float | str | None, t2: float | str | None) -> tuple[float | None, float | None]:
        t1, t2 = self._time(t1), self._time(t2)
        if t1 is not None and t2 is not None and t2 < t1:
            t1, t2 = t2, t1
        return t1, t2

    def _span(self, t1: float | None, t2: float | None) -> str:
        if t1 is None and t2 is None:
            return ""
        if t2 is None:
            return f" after {self._at(t1 or 0)}"
        return f" between {self._at(t1 or 0)} and {self._at(t2)}"

    def _who(self, ref: Any) -> tuple[Person | None, dict[str, Any]]:
        if not isinstance(ref, str) or not ref.strip():
            raise ToolError("a person must be given as quoted text (a name or what they said)")
        if len(ref) > MAX_ARG_CHARS:
            raise ToolError(f"a person reference is limited to {MAX_ARG_CHARS} characters")
        r = self._facts.resolve(ref, self.min_match)
        info = {"ref": ref, "character_id": r.character_id, "how": r.how, "score": round(r.score, 3)}
        return (self._facts.person(r.character_id) if r.character_id is not None else None), info

    def _no_one(self, call: str, ref: str, info: dict) -> ToolResult:
        return ToolResult(call, "I have no memory of anyone like that.", [f"no person matches {ref!r}"],
                          resolved={ref: info})

    # -- operations -----------------------------------------------------------------------------------
    def count_people(self, t1: float | str | None = None, t2: float | str | None = None) -> ToolResult:
        t1, t2 = self._window(t1, t2)
        ps = self._facts.people(t1, t2)
        facts = [f"{self._d(p)}: {len(p.turns)} turns, {len(p.appearances)} appearances" for p in ps]
        n = len(ps)
        answer = (f"I saw or heard {n} different {'person' if n == 1 else 'people'}{self._span(t1, t2)}."
                  if n else f"I have no memory of anyone{self._span(t1, t2)}.")
        return ToolResult("", answer, facts, [t for p in ps for t in (p.turns + p.appearances)[:1]], n)

    def people(self, t1: float | str | None = None, t2: float | str | None = None) -> ToolResult:
        t1, t2 = self._window(t1, t2)
        ps = self._facts.people(t1, t2)
        if not ps:
            return ToolResult("", f"I have no memory of anyone{self._span(t1, t2)}.", [], [], [])
        facts = [f"{self._d(p)}: first {self._at(p.first)}, last {self._at(p.last)}, spoke {len(p.turns)} times, "
                 f"seen {len(p.appearances)} times" for p in ps]
        answer = f"In order{self._span(t1, t2)}: " + ", then ".join(self._d(p) for p in ps) + "."
        return ToolResult("", answer, facts, [(p.turns + p.appearances)[0] for p in ps],
                          [p.character_id for p in ps])

    def times_spoke(self, who: str) -> ToolResult:
        p, info = self._who(who)
        if p is None:
            return self._no_one("", who, info)
        n = len(p.turns)
        answer = f"{_cap(self._d(p))} spoke {_times(n)}." if n else f"{_cap(self._d(p))} never spoke."
        return ToolResult("", answer, [f"{self._at(t.start)} \"{t.text}\"" for t in p.turns], p.turns, n, {who: info})

    def said_by(self, who: str) -> ToolResult:
        p, info = self._who(who)
        if p is None:
            return self._no_one("", who, info)
        said = list(dict.fromkeys(" ".join(t.text.split()).rstrip(".!?") for t in p.turns if t.text.strip()))
        if not said:
            return ToolResult("", f"{_cap(self._d(p))} did not say anything I heard.", [], p.appearances[:1],
                              [], {who: info})
        answer = (f"They said \"{said[0]}\"." if len(said) == 1 else
                  "They said, in order: " + "; ".join(f"\"{s}\"" for s in said) + ".")
        return ToolResult("", answer, [f"{self._at(t.start)} \"{t.text}\"" for t in p.turns], p.turns, said,
                          {who: info})

    def _pair(self, a: str, b: str) -> tuple[Person, Person, dict[str, Any]] | ToolResult:
        pa, ia = self._who(a)
        pb, ib = self._who(b)
        if pa is None or pb is None:
            return self._no_one("", a if pa is None else b, ia if pa is None else ib)
        return pa, pb, {a: ia, b: ib}

    def _order(self, a: str, b: str, before: bool) -> ToolResult:
        """Did a first speak before (``before``) / after b first spoke. The answer names who spoke first."""
        pair = self._pair(a, b)
        if isinstance(pair, ToolResult):
            return pair
        pa, pb, resolved = pair
        if pa.character_id == pb.character_id:
            return ToolResult("", "They are the same person.", [], pa.turns[:1], None, resolved)
        fa = pa.turns[0] if pa.turns else None
        fb = pb.turns[0] if pb.turns else None
        if fa is None or fb is None:
            silent = pa if fa is None else pb
            return ToolResult("", f"{_cap(self._d(silent))} never spoke.", [], [t for t in (fa, fb) if t], None,
                              resolved)
        yes = (fa.start < fb.start) == before
        first, second = (fa, fb) if fa.start < fb.start else (fb, fa)
        answer = (f"{'Yes' if yes else 'No'}, {self._facts.describe(first.character_id)} spoke first "
                  f"({self._at(first.start)}), then {self._facts.describe(second.character_id)} "
                  f"({self._at(second.start)}).")
        return ToolResult("", answer, [], [fa, fb], yes, resolved)

    def spoke_before(self, a: str, b: str) -> ToolResult:
        return self._order(a, b, True)

    def spoke_after(self, a: str, b: str) -> ToolResult:
        return self._order(a, b, False)

    def _identity(self, a: str, b: str, same_asked: bool) -> ToolResult:
        pair = self._pair(a, b)
        if isinstance(pair, ToolResult):
            return pair
        pa, pb, resolved = pair
        same = pa.character_id == pb.character_id
        ev = list(dict.fromkeys([*(pa.turns or pa.appearances)[:1], *(pb.turns or pb.appearances)[:1]]))
        yes = "Yes" if same == same_asked else "No"
        answer = f"{yes}, that is the same person." if same else f"{yes}, they are two different people."
        return ToolResult("", answer, [], ev, same, resolved)

    def same_person(self, a: str, b: str) -> ToolResult:
        return self._identity(a, b, True)

    def different_people(self, a: str, b: str) -> ToolResult:
        return self._identity(a, b, False)

    def _compare(self, a: str, b: str, more: bool) -> ToolResult:
        """Did a speak more (``more``) / less often than b. The answer names who spoke more (or less) often."""
        pair = self._pair(a, b)
        if isinstance(pair, ToolResult):
            return pair
        pa, pb, resolved = pair
        if pa.character_id == pb.character_id:
            return ToolResult("", "They are the same person.", [], pa.turns[:1], None, resolved)
        na, nb = len(pa.turns), len(pb.turns)
        facts = [f"{self._d(pa)}: {na} turns", f"{self._d(pb)}: {nb} turns"]
        turns = pa.turns + pb.turns
        if na == nb:
            return ToolResult("", f"No, they spoke equally often ({_times(na)} each).", facts, turns, False,
                              resolved)
        yes = (na > nb) == more
        named, other = (pa, pb) if yes else (pb, pa)  # the one who did speak more (less) often is named first
        word = "more" if more else "less"
        answer = (f"{'Yes' if yes else 'No'}, {self._d(named)} spoke {word} often ({_times(len(named.turns))}) "
                  f"than {self._d(other)} ({_times(len(other.turns))}).")
        return ToolResult("", answer, facts, turns, yes, resolved)

    def spoke_more(self, a: str, b: str) -> ToolResult:
        return self._compare(a, b, True)

    def spoke_less(self, a: str, b: str) -> ToolResult:
        return self._compare(a, b, False)

    def _by_turns(self, t1: float | str | None, t2: float | str | None, most: bool) -> ToolResult:
        t1, t2 = self._window(t1, t2)
        ps = [p for p in self._facts.people(t1, t2) if p.turns]
        if not ps:
            return ToolResult("", f"I heard nobody speak{self._span(t1, t2)}.", [], [], None)
        counts = sorted({len(p.turns) for p in ps}, reverse=most)
        top = [p for p in ps if len(p.turns) == counts[0]]
        facts = [f"{self._d(p)}: {len(p.turns)} turns" for p in ps]
        word = "most" if most else "least"
        who = " and ".join(self._d(p) for p in top)
        answer = f"{_cap(who)} spoke {word} often ({_times(counts[0])}{self._span(t1, t2)})."
        return ToolResult("", answer, facts, [t for p in top for t in p.turns], [p.character_id for p in top])

    def most_talkative(self, t1: float | str | None = None, t2: float | str | None = None) -> ToolResult:
        return self._by_turns(t1, t2, True)

    def least_talkative(self, t1: float | str | None = None, t2: float | str | None = None) -> ToolResult:
        return self._by_turns(t1, t2, False)

    def _edge_speaker(self, t1: float | str | None, t2: float | str | None, first: bool) -> ToolResult:
        t1, t2 = self._window(t1, t2)
        voice = self._facts.between(t1, t2, kind="voice")
        if not voice:
            return ToolResult("", f"I heard nobody speak{self._span(t1, t2)}.", [], [], None)
        t = voice[0] if first else max(voice, key=lambda v: (v.end, v.start))
        answer = f"{_cap(self._facts.describe(t.character_id))} spoke {'first' if first else 'last'}."
        return ToolResult("", answer, [f"{self._at(t.start)} \"{t.text}\""], [t], t.character_id)

    def first_speaker(self, t1: float | str | None = None, t2: float | str | None = None) -> ToolResult:
        return self._edge_speaker(t1, t2, True)

    def last_speaker(self, t1: float | str | None = None, t2: float | str | None = None) -> ToolResult:
        return self._edge_speaker(t1, t2, False)

    def last_seen(self, who: str) -> ToolResult:
        p, info = self._who(who)
        if p is None:
            return self._no_one("", who, info)
        last = max(p.turns + p.appearances, key=lambda t: t.end)
        what = "heard" if last.kind == "voice" else "saw"
        when = (f"at {self._at(last.start)}" if self._at(last.start) == self._at(last.end) else
                f"from {self._at(last.start)} to {self._at(last.end)}")
        return ToolResult("", f"I last {what} {self._d(p)} {when}.", [], [last], last.end, {who: info})


def parse_time(t: float | str | None) -> float | None:
    """Seconds, or a clock time as the question wrote it ("1:30", "0:40", "01:02:03"); the model copies, code
    converts (small models get "0:40" -> 40 wrong)."""
    if t is None:
        return None
    if isinstance(t, str):
        parts = t.strip().split(":")
        try:
            nums = [float(p) for p in parts]
        except ValueError:
            raise ToolError(f"a time must be seconds or m:ss, got {t!r}") from None
        if not 1 <= len(nums) <= 3 or any(n < 0 for n in nums) or any(n >= 60 for n in nums[1:]):
            raise ToolError(f"a time must be seconds or m:ss, got {t!r}")
        t = sum(n * 60 ** i for i, n in enumerate(reversed(nums)))
    if not isinstance(t, int | float) or isinstance(t, bool) or t < 0 or t != t:
        raise ToolError(f"times must be seconds >= 0 or m:ss, got {t!r}")
    return float(t)


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]
