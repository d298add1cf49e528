"""Seconds of talk compared between people: who talked the longest, which of two talked for longer.

People are ranked by the exact seconds of their detected speech, and two count as equal only when they are closer
than :data:`TIE_S` (what speech detection can tell apart: its turn edges move by a tenth of a second or two). The
figures said are whole seconds, or tenths where two people who are not equal would round to the same whole second
("4.4 seconds" and "3.8 seconds", never "4 seconds" for both beside "talked the longest"). Rounding before ranking
made 4.4 and 3.8 seconds a tie.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .result import QueryResult, Turn

TIE_S = 0.3
_DECIMAL = re.compile(r"\b\d+\.\d{1,2}\b")   # (tenths, or hundredths where a near tie is told apart)


def talk_seconds(events: Iterable[Turn], kind: str = "voice", character: int | None = None) -> float:
    """The seconds of ``events`` of ``kind`` (one character's where given)."""
    return sum(e.end - e.start for e in events
               if e.kind == kind and (character is None or e.character_id == character))


def equal(a: float, b: float) -> bool:
    return abs(a - b) < TIE_S


def figures(exact: dict[int, float]) -> dict[int, float]:
    """The seconds to say for each character: whole seconds, or tenths for all when two that are not
    :func:`equal` round to the same whole second."""
    whole = {c: int(round(s)) for c, s in exact.items()}
    values = list(exact.values())
    clash = any(round(a) == round(b) and not equal(a, b) for i, a in enumerate(values) for b in values[i + 1:])
    return {c: round(s, 1) for c, s in exact.items()} if clash else dict(whole)


def best(exact: dict[int, float], most: bool) -> list[int]:
    """The characters with the most (least) seconds, everyone :func:`equal` to the top one included."""
    if not exact:
        return []
    top = max(exact.values()) if most else min(exact.values())
    return [c for c, s in exact.items() if equal(s, top)]


def keep(res: QueryResult, exact: dict[int, float]) -> dict[int, float]:
    """Record ``exact``'s figures in ``res.seconds`` (what the answer says and its check allows) and return them."""
    said = figures(exact)
    res.seconds.update(said)
    return said


def said_decimals(answer: str, res: QueryResult) -> str:
    """``answer`` without the tenths of seconds the result holds (the check then reads whole numbers only)."""
    allowed = {round(float(v), 2) for v in res.seconds.values()}    # ("2.00 seconds": a whole one in hundredths)
    return _DECIMAL.sub(lambda m: " " if round(float(m.group(0)), 2) in allowed else m.group(0), answer)
