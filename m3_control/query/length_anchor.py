"""A named person's turn picked by its length, as the moment a question is relative to: "who was the last person to
speak before A's longest turn?", "who spoke last before A's longest turn began?", "what was said just before B's
shortest turn?" (anyone's longest turn, "who spoke right after the longest turn?": :mod:`.sentences`).

One frame selects everyone's voice turns; the anchor is the named person's longest (shortest) turn by its detected
speech, start to end (turns within a tenth of a second of it are as long: the turn next to each is said). The answer
names the turn right before (after) it, who spoke it and when, or that there was none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query
from .named_ids import named_ids
from .phrase import REFUSAL, _cap, check, phrase
from .result import QueryResult
from .words import seconds_word, tenths

_TURN = r"(?:turn|sentence|remark|utterance|time\s+speaking)"
_ANCHOR = re.compile(rf"\b(?P<side>before|after)\s+(?:(?P<owner>[^?]*?)(?:'s|’s)\s+|the\s+)(?P<w>longest|shortest|"
                     rf"longest-lasting|briefest)\s+(?:single\s+)?{_TURN}\b", re.IGNORECASE)
_WHO = re.compile(r"^\W*(?:who|which\s+(?:person|speaker|one))\b|\b(?:last|first|next)\s+(?:person|one|speaker)\b",
                  re.IGNORECASE)
_WHAT = re.compile(r"^\W*what\b", re.IGNORECASE)


@dataclass(frozen=True)
class LengthAnchorAsk:
    before: bool          # the turn before the anchor (else after)
    shortest: bool        # the anchor is the shortest turn (else the longest)
    owner: str            # whose turn (their words or name)
    words: bool           # what was said (else who)


def asks_length_anchor(question: str) -> LengthAnchorAsk | None:
    m = _ANCHOR.search(question)
    if m is None or not (_WHO.search(question) or _WHAT.match(question)):
        return None
    quoted = quotes_of(question)
    owner_words = m.group("owner") or ""
    owner = next((x for x in quoted if x in owner_words), None)
    if owner is None:      # (anyone's longest turn: sentences.py, its ties each said)
        name = re.search(r"\b(?!(?:I|The|A)\b)([A-Z][a-z]+)\s*$", owner_words)
        if name is None:
            return None
        owner = name.group(1)
    return LengthAnchorAsk(m.group("side").lower() == "before", m.group("w").lower() in ("shortest", "briefest"),
                           owner, bool(_WHAT.match(question)) and not _WHO.search(question))


def prepare(q: Query) -> Query:
    """Voice turns in the frame's place and window (the person is read from the question)."""
    return Query(find="who", act="spoke", place=q.place, from_=q.from_, to=q.to)


def answer(executor: QueryExecutor, q: Query, ask: LengthAnchorAsk,
           before_time: float | None) -> tuple[str, QueryResult]:
    base = prepare(q)
    res = executor.run(base, before_time)
    if res.status != "ok":
        return phrase(res), res
    ids = named_ids(executor, base, [ask.owner], res, before_time)
    if isinstance(ids, QueryResult):
        return phrase(ids), ids
    owner = ids[0]
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    mine = [e for e in turns if e.character_id == owner]
    if not mine:
        return f"I did not hear {res.describe[owner]}.", res
    length = {e: e.end - e.start for e in mine}
    best = min(length.values()) if ask.shortest else max(length.values())
    ties = [e for e in mine if abs(length[e] - best) <= 0.05]
    side = "before" if ask.before else "after"
    word = "shortest" if ask.shortest else "longest"
    whose = f"{res.describe[owner]}'s"
    res.seconds = {**res.seconds, -1: tenths(best)}
    res.value = (len(ties),)
    res.steps.append({"step": f"the turn right {side} the {word} turn", "anchors": [round(e.start, 1) for e in ties]})

    def neighbour(anchor) -> object | None:  # noqa: ANN001
        i = turns.index(anchor)
        return turns[i - 1] if ask.before and i > 0 else turns[i + 1] if not ask.before and i + 1 < len(turns) else None

    def one(anchor) -> str:  # noqa: ANN001
        other = neighbour(anchor)
        if other is None:
            return f"nobody {'before' if ask.before else 'after'} the one at {res.say(anchor.start)} (the " \
                f"{'first' if ask.before else 'last'} turn I heard)"
        what = f", \"{other.text.strip().rstrip('.!?')}\"" if ask.words else ""
        return f"{res.describe[other.character_id]} at {res.say(other.start)}{what}, {side} the one at " \
            f"{res.say(anchor.start)}"

    near = [x for e in ties if (x := neighbour(e)) is not None]
    res.events = near + ties + [e for e in res.events if e not in near and e not in ties]
    if len(ties) == 1:
        anchor, other = ties[0], neighbour(ties[0])
        said = f"{whose} {word} turn was at {res.say(anchor.start)} ({seconds_word(tenths(best))})"
        if other is None:
            edge = "first" if ask.before else "last"
            text = _cap(f"nobody: {said}, the {edge} turn I heard, so nobody spoke {side} it.")
        else:
            what = f": \"{other.text.strip().rstrip('.!?')}\"" if ask.words else ""
            text = _cap(f"{res.describe[other.character_id]}, at {res.say(other.start)}{what}; {said}.")
    else:
        text = _cap(f"{whose} {word} turns were {len(ties)}, as long as each other ({seconds_word(tenths(best))}): "
                    + "; ".join(one(e) for e in ties) + ".")
    return (REFUSAL if check(text, res) else text), res
