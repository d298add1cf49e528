"""The query frame: one flat, typed question over the records the memory keeps (voice turns, face appearances, the
robot's places and times), written by the model in a compact ``key=value`` form and executed by code.

    find=who rel=right_before other="lay blue at x four now"
    find=count_people times=2
    find=count_times place="porch"
    find=yes who="lay red with p nine again"
    find=how_long place="kitchen"
    find=who other="the milk is gone" rel=with
    find=gap who="I am cold" other="the door is open" rel=after
    find=yes place="lounge" act=spoke count>2

One table (:data:`FIELDS`) defines every field; the grammar the model decodes under (GBNF), the JSON schema
(for backends with ``response_format``) and the parser are all made from it, so they cannot disagree.

Semantics (see :mod:`m3_control.query.execute`): events are selected (``act``: spoke / seen / any), filtered by
time (``from``, ``to``, ``at``), place (``place``), relation to another person (``rel`` + ``other``: before / after
their first turn, or with ``_last`` their last one, or ``with``: in view at the same time as them, or
``same_place``: in a place where they were too) and person (``who``); people are filtered by how many times they
spoke there (``times``: a number, or ``other``: as often as the other person did there) and picked (``pick``: first,
last, n-th, n-th from the end, most, least, second most ...; ``by=turn``: the n-th turn of anyone, as opposed to the
n-th person); ``find`` says what the answer is: ``gap`` the time between two moments (other's turn, or ``from`` /
``at``, and the first selected turn after it, or the last before it); ``yes`` with ``count`` whether the number of
people found compares so with a number ("did more than 3 people speak?").
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, replace
from typing import Any

FIND = ("who", "what", "when", "where", "count_people", "count_times", "count_places", "yes", "same", "more",
        "less", "how_long", "gap")
REL = ("right_before", "right_after", "before", "after", "right_before_last", "right_after_last", "before_last",
       "after_last", "with", "same_place")
# relative to one of other's turns: the first, or with _last the last (with: in view together; same_place: in a place
# where other was heard / seen too, at any time)
TIMED_REL = tuple(r for r in REL if r not in ("with", "same_place"))
PICK = ("first", "last", "most", "least", "second_most", "third_most", "second_least")
# or an ordinal 2..20, or -2..-20 from the end (-2: second to last); second_most: the people with the second highest
# count (counts ranked without gaps: two people tied for the most leave the next count second)
BY = ("person", "turn")   # what an ordinal pick counts when no person is named: people (default) or turns
ACT = ("spoke", "seen", "any")
TIMES_OPS = (">=", "<=", "=", ">", "<")
MAX_TEXT = 200


class QueryError(ValueError):
    """A frame that cannot be parsed or does not fit the schema (reported back to the model)."""


@dataclass
class Query:
    find: str
    who: str | None = None         # a person: what they said (quoted words) or a name
    other: str | None = None       # the second person (same / more / less) or the one ``rel`` is relative to
    rel: str | None = None         # right_before | right_after | before | after (other's first turn; with the
    #                                suffix _last: other's last turn) | with (in view at the same time as other)
    #                                | same_place (in a place where other was too)
    pick: str | None = None        # first | last | most | least | second_most | third_most | second_least |
    #                                "2".."20" | "-2".."-20" (from the end)
    by: str | None = None          # person (default) | turn: "the third thing I heard" is the third turn
    times: str | None = None       # spoken-turn count condition per person: "=2", ">3", "<2", ">=1", "<=1", or
    #                                against other's count: ">other", "=other", ...
    count: str | None = None       # find=yes: the number of people found compared with a number: ">3", ">=2", "=2"
    from_: str | None = None       # m:ss
    to: str | None = None          # m:ss
    at: str | None = None          # m:ss (a moment)
    place: str | None = None       # a named place
    act: str | None = None         # spoke | seen | any (default: any; spoke for counts of times)
    # not the model's to write (no grammar field): set by the question check for "between A and B" (fidelity.py),
    # the second person: the window runs between other's first turn and theirs, whichever came first
    until: str | None = None
    # also the question checks' own (place_forms.py, question_forms.py): a place the people must not have been in
    # ("in the garage but not in the workshop"; several joined by "|": "in neither the garage nor the office"), and
    # move="left" for when the robot left ``place`` (not when it got there)
    not_place: str | None = None
    move: str | None = None
    other_turn: str | None = None   # rel relative to other's n-th turn ("2"; "-2" the second to last), not the first
    measure: str | None = None      # "time": most / least rank by seconds (talk, the robot's stays), not by turns;
    #                                 "silence": find=gap from the end of other's turn to anyone's next words;
    #                                 "people": the busiest place by different people, not turns; "reach": people
    #                                 by the moment of their k-th turn (times>=k); "nearest": the turn nearest at=;
    #                                 "end": find=when is when the turns ended ("when did A stop talking?")
    top: str | None = None          # "2".."5": most / least names that many people ("which two people spoke most?")
    until_turn: str | None = None   # "between A's first and second turns": until's n-th turn ("last"), not the first
    only: str | None = None         # "1": find=yes is whether who was the only one who did it; "else": whether
    #                                 anyone but who did (turn_forms.py)
    other_act: str | None = None    # "seen": rel is to other's face appearances, not their turns (sight_anchor.py)
    other_there: str | None = None  # "1": rel is to other's turns in ``place`` only, their last (n-th) too ("A's last
    #                                 turn there"; without it a last turn is the last anywhere) (sight_anchor.py)

    def compact(self) -> str:
        parts = [f"find={self.find}"]
        for f in FIELDS[1:]:
            v = getattr(self, f.attr)
            if v is None:
                continue
            if f.key in ("times", "count"):
                parts.append(f"{f.key}{v}")
            else:
                parts.append(f"{f.key}={json.dumps(v) if f.quoted else v}")
        for key in HIDDEN:
            v = getattr(self, key)
            if v is not None:
                parts.append(f"{key}={json.dumps(v) if key in ('until', 'not_place') else v}")
        return " ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        return {("from" if k == "from_" else k): v for k, v in asdict(self).items() if v is not None}

    def not_places(self) -> list[str]:
        """The places of ``not_place`` (one, or several joined by "|")."""
        return self.not_place.split("|") if self.not_place else []


@dataclass(frozen=True)
class Field:
    key: str
    attr: str
    values: tuple[str, ...] = ()   # an enum; empty: free text or a time
    quoted: bool = False
    time: bool = False
    doc: str = ""


FIELDS: tuple[Field, ...] = (
    Field("find", "find", FIND, doc="what the answer is"),
    Field("who", "who", quoted=True, doc="a person, by what they said or by name"),
    Field("other", "other", quoted=True, doc="the second person (same, more, less) or the person rel refers to"),
    Field("rel", "rel", REL, doc="events relative to other's first turn (..._last: other's last turn), or with: in "
                                 "view together with other, or same_place: in a place where other was too"),
    Field("pick", "pick", PICK, doc="first, last, most, least, second_most, third_most, second_least, an ordinal "
                                    "2..20, or -2..-20 from the end"),
    Field("by", "by", BY, doc="what pick counts: person (the n-th person) or turn (the n-th thing said)"),
    Field("from", "from_", time=True, doc="start of the time window, m:ss"),
    Field("to", "to", time=True, doc="end of the time window, m:ss"),
    Field("at", "at", time=True, doc="a moment, m:ss"),
    Field("place", "place", quoted=True, doc="a named place where the robot was"),
    Field("act", "act", ACT, doc="spoke (voice turns), seen (face appearances) or any"),
    Field("times", "times", doc="how many times a person spoke, e.g. =2, >3, <2, or >other: more often than "
                                "other"),   # after act=seen
    Field("count", "count", doc="find=yes: how many different people were found, compared with a number, e.g. "
                                ">3 (more than three people), >=2, =2, <4"),
)
_BY_KEY = {f.key: f for f in FIELDS}
# fields the question checks set, never the model (no grammar)
HIDDEN = ("until", "not_place", "move", "other_turn", "measure", "top", "until_turn", "only", "other_act",
          "other_there")
_TIME = re.compile(r"^\d{1,3}:[0-5]\d(?::[0-5]\d)?$|^-?\d+(?:\.\d+)?$")   # m:ss, or stream seconds
_TIMES = re.compile(r"^(>=|<=|=|>|<)(\d{1,3}|other)$")
_COUNT = re.compile(r"^(>=|<=|=|>|<)(\d{1,3})$")
_PAIR = re.compile(r'\s*(?P<key>[a-z_]+)\s*(?P<op>>=|<=|=|>|<)\s*(?P<val>"(?:[^"\\]|\\.)*"|\S+)')


def parse(text: str) -> Query:
    """The compact form (``find=who pick=2``; fields in any order) or a JSON object -> a Query whose every field
    has a valid value (:func:`check_shape` checks the fields against each other)."""
    text = " ".join(str(text).split())
    if len(text) > 4 * MAX_TEXT:
        raise QueryError(f"query too long ({len(text)} characters)")
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise QueryError(f"not a JSON query: {e.msg}") from None
        if not isinstance(data, dict):
            raise QueryError("a JSON query must be an object")
        return from_dict(data)
    data: dict[str, Any] = {}
    pos = 0
    while pos < len(text):
        m = _PAIR.match(text, pos)
        if not m:
            raise QueryError(f"cannot read the query at {text[pos:pos + 30]!r} (expected key=value)")
        key, op, val = m.group("key"), m.group("op"), m.group("val")
        if val.startswith('"'):
            try:
                val = json.loads(val)
            except json.JSONDecodeError:
                raise QueryError(f"bad quoted text for {key}: {val}") from None
        if key in ("times", "count"):
            val = f"{op}{val}"
        elif op != "=":
            raise QueryError(f"{key} takes '=', not {op!r}")
        if key in data:
            raise QueryError(f"{key} given twice")
        data[key] = val
        pos = m.end()
    return from_dict(data)


def from_dict(data: dict[str, Any]) -> Query:
    data = dict(data)
    # the question checks' fields (not in the grammar), read back from a trace
    hidden = {k: data.pop(k, None) for k in HIDDEN}
    for key, v in hidden.items():
        if v is not None and (not isinstance(v, str) or len(v) > MAX_TEXT):
            raise QueryError(f"{key} is text of at most {MAX_TEXT} characters")
    if hidden["move"] not in (None, "left"):
        raise QueryError(f"move is left, got {hidden['move']!r}")
    if hidden["measure"] not in (None, "time", "silence", "people", "reach", "nearest", "end"):
        raise QueryError(f"measure is time, silence, people, reach, nearest or end, got {hidden['measure']!r}")
    if hidden["only"] not in (None, "1", "else"):
        raise QueryError(f"only is 1 or else, got {hidden['only']!r}")
    if hidden["other_act"] not in (None, "seen"):
        raise QueryError(f"other_act is seen, got {hidden['other_act']!r}")
    if hidden["until_turn"] not in (None, "last") and _ordinal(str(hidden["until_turn"])) is None:
        raise QueryError(f"until_turn is an ordinal 1..20 or last, got {hidden['until_turn']!r}")
    if hidden["top"] is not None and hidden["top"] not in ("2", "3", "4", "5"):
        raise QueryError(f"top is 2..5, got {hidden['top']!r}")
    if hidden["other_turn"] is not None and _ordinal(str(hidden["other_turn"])) is None and \
            str(hidden["other_turn"]) != "-1":   # -1: the other's last turn ("between A's last words and ...")
        raise QueryError(f"other_turn is an ordinal 2..20, -2..-20 or -1, got {hidden['other_turn']!r}")
    unknown = [k for k in data if k not in _BY_KEY]
    if unknown:
        raise QueryError(f"unknown field(s) {', '.join(unknown)}; fields: {', '.join(_BY_KEY)}")
    if "find" not in data:
        raise QueryError("a query needs find=...")
    kw: dict[str, Any] = {}
    for key, val in data.items():
        f = _BY_KEY[key]
        if val is None:
            continue
        if isinstance(val, bool) or not isinstance(val, str | int | float):
            raise QueryError(f"{key}: expected text, got {type(val).__name__}")
        val = " ".join(str(val).split())
        if not val:
            continue
        if len(val) > MAX_TEXT:
            raise QueryError(f"{key} is limited to {MAX_TEXT} characters")
        if f.values and val not in f.values and not (key == "pick" and _ordinal(val)):
            raise QueryError(f"unknown {key} {val!r}: {', '.join(f.values)}" + (" or 2..20" if key == "pick" else ""))
        if f.time and not _TIME.match(val):
            raise QueryError(f"{key} must be a time as m:ss, got {val!r}")
        if key == "times":
            if val.isdigit():
                val = f"={val}"
            if not _TIMES.match(val):
                raise QueryError(f"times must be =k, >k, <k, >=k or <=k (k a number or other), got {val!r}")
        if key == "count":
            if val.isdigit():
                val = f"={val}"
            if not _COUNT.match(val):
                raise QueryError(f"count must be =k, >k, <k, >=k or <=k (k a number), got {val!r}")
        kw[f.attr] = val
    return Query(**kw, **{k: (" ".join(v.split()) or None) if v is not None else None for k, v in hidden.items()})


def _ordinal(val: str) -> int | None:
    """"2" -> 2; "-2" -> -2 (second to last); None for anything else (first / last are words)."""
    n = val.removeprefix("-")
    if not n.isdigit() or not 1 <= int(n) <= 20 or (val.startswith("-") and n == "1"):
        return None
    return -int(n) if val.startswith("-") else int(n)


def check_shape(q: Query) -> None:
    """Fields that only make sense together (checked after misplaced values were moved, see repair.py)."""
    if q.find in ("same", "more", "less") and not (q.who and q.other):
        raise QueryError(f"find={q.find} compares two people: give who=\"...\" and other=\"...\"")
    if q.rel and not q.other:
        raise QueryError("rel needs other=\"...\" (the person it is relative to)")
    if q.until and (q.rel or not q.other):
        raise QueryError("until (the second person of 'between A and B') goes with other=, without rel")
    if q.at and (q.from_ or q.to):
        raise QueryError("give either at=... or from=/to=..., not both")
    if compares_with_other(q.times) and (not q.other or q.rel or q.until):
        raise QueryError("times>other compares with other=\"...\"'s count: give other= without rel")
    if q.by == "turn" and (q.pick is None or count_rank(q.pick) is not None):
        raise QueryError("by=turn ranks turns: it goes with pick=first, last or an ordinal")
    if q.count and q.find != "yes":
        raise QueryError("count compares the number of people found with a number: it goes with find=yes")
    if q.find == "gap" and not (q.other or q.from_ or q.at):
        raise QueryError("find=gap is the time between two moments: give the first one (other=\"...\" with rel=, "
                         "or from=)")


_COUNT_RANKS = {"most": (True, 1), "second_most": (True, 2), "third_most": (True, 3), "least": (False, 1),
                "second_least": (False, 2)}


def count_rank(pick: str | None) -> tuple[bool, int] | None:
    """most -> (True, 1), second_most -> (True, 2), least -> (False, 1), second_least -> (False, 2); None for a
    pick that is no rank by count."""
    return _COUNT_RANKS.get(pick or "")


def by_count(counts: list[int], pick: str) -> int | None:
    """The count a rank by count picks from ``counts`` (ranked without gaps, most first for most / second_most;
    where there are fewer different counts, as places in a race); None where no count holds that place."""
    most, k = count_rank(pick) or (True, 1)
    values = sorted(set(counts), reverse=most)
    if len(values) >= k:
        return values[k - 1]
    # fewer different counts: ranked as in a race ("the third most" of 4, 4, 2 is the 2: two tied for the most
    # take the first two places), never a place a tie covers (of 2, 2 nobody is second)
    ranked = sorted(counts, reverse=most)
    if len(ranked) >= k and (k == 1 or ranked[k - 1] != ranked[k - 2]):
        return ranked[k - 1]
    return None


def voice_turns(q: Query, *, person: bool = False, **also: Any) -> Query:
    """The frame made into one that finds voice turns in its place and window: every field that would pick, count,
    relate or rank people cleared. ``person`` keeps the person the frame names (their own turns); ``also`` clears
    or sets more (``at=None``: a moment in the question is the plan's, not the window's)."""
    keep_who = {} if person else {"who": None}
    return replace(q, find="who", other=None, rel=None, until=None, pick=None, by=None, times=None, count=None,
                   act="spoke", top=None, measure=None, only=None, **keep_who, **also)


def noted(q: Query, new: Query, added: list[str], why: str) -> Query:
    """``new``, with ``why`` noted among what a question check changed when it differs from ``q``."""
    if new != q:
        added.append(why)
    return new


def compares_with_other(times: str | None) -> bool:
    """``times>other`` and the like: the count is compared with ``other``'s own, not with a number."""
    return bool(times) and times.endswith("other")  # type: ignore[union-attr]


def rel_base(rel: str | None) -> str | None:
    """right_before_last -> right_before: the relation without which of other's turns it is relative to."""
    return rel.removesuffix("_last") if rel else rel


def before_side(rel: str | None) -> bool:
    """Whether a relation looks back from other's turn: before, right_before and their _last forms (a silence
    "between the previous turn and A's" is the one right before A's turn)."""
    return rel_base(rel) in ("before", "right_before")


def pick_ordinal(q: Query) -> int | None:
    """The pick as a position: first 1, "3" 3, "-2" -2 (second to last); None for last / most / least."""
    if q.pick == "first":
        return 1
    return _ordinal(q.pick) if q.pick else None


def nth(items: list, n: int) -> list:
    """The n-th item (1-based; negative from the end: -2 is the second to last) as a list of one, [] past either
    end."""
    i = n - 1 if n > 0 else len(items) + n
    return items[i:i + 1] if 0 <= i < len(items) else []


def json_schema() -> dict[str, Any]:
    """The frame as a JSON schema (every field optional but ``find``; no other fields)."""
    props: dict[str, Any] = {}
    for f in FIELDS:
        if f.key == "pick":
            props[f.key] = {"anyOf": [{"enum": list(f.values)},
                                      {"type": "string", "pattern": "^-?([2-9]|1[0-9]|20)$"}]}
        elif f.values:
            props[f.key] = {"enum": list(f.values)}
        elif f.key == "times":
            props[f.key] = {"type": "string", "pattern": _TIMES.pattern}
        elif f.key == "count":
            props[f.key] = {"type": "string", "pattern": _COUNT.pattern}
        elif f.time:
            props[f.key] = {"type": "string", "pattern": r"^\d{1,3}:[0-5]\d$"}
        else:
            props[f.key] = {"type": "string", "maxLength": MAX_TEXT}
        props[f.key]["description"] = f.doc
    return {"type": "object", "properties": props, "required": ["find"], "additionalProperties": False}


YES_NO_FIND = ("yes", "same", "more", "less")   # what a yes/no question can ask for


def gbnf_rules(root: str = "query", finds: tuple[str, ...] = FIND) -> str:
    """GBNF rules for the compact form (fields in :data:`FIELDS` order, each optional but ``find``, whose values
    may be narrowed: a yes/no question is answered by a frame that says yes or no)."""
    parts = [f'"find=" ({" | ".join(json.dumps(v) for v in finds)})']
    for f in FIELDS[1:]:
        if f.key == "other":   # rel only with other (relative to whom), right after it
            rel = " | ".join(json.dumps(v) for v in REL)
            parts.append(f'(" other=" q-text (" rel=" ({rel}))?)?')
        elif f.key == "rel":
            continue
        elif f.key == "times":
            parts.append('(" times" ("=" | ">" | "<" | ">=" | "<=") ([0-9] [0-9]? | "other"))?')
        elif f.key == "count":
            parts.append('(" count" ("=" | ">" | "<" | ">=" | "<=") [0-9] [0-9]?)?')
        elif f.key == "pick":
            parts.append(f'(" pick=" ({" | ".join(json.dumps(v) for v in f.values)} | "-"? [2-9]))?')
        elif f.values:
            parts.append(f'(" {f.key}=" ({" | ".join(json.dumps(v) for v in f.values)}))?')
        elif f.time:
            parts.append(f'(" {f.key}=" q-time)?')
        else:
            parts.append(f'(" {f.key}=" q-text)?')
    return (f"{root} ::= " + " ".join(parts) + "\n"
            'q-text ::= "\\"" [^"\\n]+ "\\""\n'
            'q-time ::= [0-9] [0-9]? ":" [0-5] [0-9] (":" [0-5] [0-9])?\n')
