"""The answer to a ``find=gap`` frame: the seconds from a moment (someone's turn, a time) to the turn it runs to, said
with both times; where every turn of the person lies on the other side of the moment, what the records hold."""

from __future__ import annotations

from .frame import before_side
from .result import QueryResult
from .words import cap as _cap
from .words import seconds_word


def gap_answer(res: QueryResult) -> str:
    """"B spoke 14 seconds after the person who said A (00:07; B at 00:21)."; "how long after A did B first speak?"
    of a B who had spoken before A says that too (``res.near``: their very first turn)."""
    q = res.query
    if res.gap is None or res.value is None:
        same = [w.character_id for k, w in res.who.items() if k in ("who", "other")]
        if len(same) == 2 and same[0] == same[1] and same[0] is not None and res.anchor is not None:
            # "how long did B wait between their first and second turns?" of someone who never spoke again
            once = ": they spoke only once" if res.spoke.get(same[0]) == 1 else ""
            return f"{_cap(res.describe[same[0]])} did not speak again after {res.say(res.anchor.start)}{once}."
        if (q.rel or q.until) and res.anchor is None:
            return "I don't remember anyone like that."
        return f"I don't remember anyone speaking {'before' if before_side(q.rel) else 'after'} that."
    start, end = res.gap
    secs = int(res.value)
    span = seconds_word(secs)
    if q.measure == "silence" and res.anchor is not None:
        a = res.describe[res.anchor.character_id]  # type: ignore[index]
        nxt = res.describe[end.character_id]  # type: ignore[index]
        if before_side(q.rel):   # (end: the words before A's turn, start: when they ended)
            return (f"Nobody spoke for {span} before {a} ({res.say(res.anchor.start)}); {nxt} had stopped at "
                    f"{res.say(start)}.")
        return (f"Nobody spoke for {span} after {a} (who spoke from {res.say(res.anchor.start)} to "
                f"{res.say(start)}); then {nxt} spoke at {res.say(end.start)}.")
    side = "before" if end.start < start else "after"
    d = _cap(res.describe[end.character_id])  # type: ignore[index]
    verb = "was seen" if end.kind == "face" else "spoke"
    asked = "before" if before_side(q.rel) else "after"
    if (side != asked and q.who and res.until_anchor is None and q.pick != "last"
            and (res.anchor is None or res.anchor.character_id != end.character_id)):
        # every turn of the person lies on the other side of the moment: say so, then what the records hold
        seen = end.kind == "face"
        if res.anchor is None:
            moment, it, when = res.say(start), "it", f"(at {res.say(end.start)})"
        else:
            moment, it = res.describe[res.anchor.character_id], "them"  # type: ignore[index]
            when = f"({res.say(min(start, end.start))}; then {res.say(max(start, end.start))})"
        return (f"{d} {'was not seen' if seen else 'did not speak'} {asked} {moment}; "
                f"{'they were seen' if seen else 'they spoke'} {span} {side} {it} {when}.")
    if res.anchor is None:
        return f"{d} {verb} {span} {side} {res.say(start)} (at {res.say(end.start)})."
    a = res.describe[res.anchor.character_id]  # type: ignore[index]
    which = " spoke for the last time" if q.rel and q.rel.endswith("_last") else ""
    first, then = sorted((res.anchor.start, end.start))
    when = f"({res.say(first)}; then {res.say(then)})"
    if res.anchor.character_id == end.character_id:   # the same person's next (last) turn
        again = " for the last time" if q.pick == "last" and q.who else " again"
        return f"{d} {verb}{again} {span} {side} their {'last' if which else 'first'} turn {when}."
    own_last = " for the last time" if q.pick == "last" and q.who else ""
    earlier = f" {d} had first spoken before that, at {res.say(res.near[0].start)}." if res.near else ""
    return f"{d} {verb}{own_last} {span} {side} {a}{which} {when}.{earlier}"
