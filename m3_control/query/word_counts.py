"""People by the words they said, as speech recognition heard them: "who said the most words?", "... per turn on
average?", "who said the most words in a single turn?" (each person's wordiest turn). Called by :mod:`.sentences`
with the voice turns of its frame."""

from __future__ import annotations

import re

from .phrase import REFUSAL, _cap, _join, check
from .result import QueryResult
from .words import tenths


def words_ranked(res: QueryResult, turns: list, most: bool, where: str,
                 per_turn: bool = False) -> tuple[str, QueryResult]:
    """The person (people, tied) who said the most (fewest) words, as speech recognition heard them; ``per_turn``:
    their words over their turns."""
    count: dict[int, int] = {}
    for e in turns:
        count[e.character_id] = count.get(e.character_id, 0) + len(re.findall(r"[\w']+", e.text))
    if per_turn:
        return words_per_turn(res, turns, count, most, where)
    best = max(count.values()) if most else min(count.values())
    top = [c for c in count if count[c] == best]
    res.events = [e for e in turns if e.character_id in top] + [e for e in res.events if e.character_id not in top]
    res.value = tuple(sorted(set(count.values())))
    res.steps.append({"step": f"{'most' if most else 'fewest'} words", "words": count})
    rest = sorted((c for c in count if c not in top), key=lambda c: -count[c] if most else count[c])
    then = "; then " + ", ".join(f"{res.describe[c]} {count[c]}" for c in rest) if rest else ""
    text = f"{_cap(_join([res.describe[c] for c in top]))} said the {'most' if most else 'fewest'} words{where}: " \
        f"{best}{' each' if len(top) > 1 else ''}, as I heard them{then}."
    return (REFUSAL if check(text, res) else text), res


def words_per_turn(res: QueryResult, turns: list, count: dict[int, int], most: bool,
                    where: str) -> tuple[str, QueryResult]:
    """"A said the most words per turn: 5.0 on average (15 words in 3 turns), as I heard them; then B 3.0 (...)"."""
    n_turns = {c: sum(1 for e in turns if e.character_id == c) for c in count}
    mean = {c: tenths(count[c] / n_turns[c]) for c in count}
    best = max(mean.values()) if most else min(mean.values())
    top = [c for c in mean if mean[c] == best]
    res.events = [e for e in turns if e.character_id in top] + [e for e in res.events if e.character_id not in top]
    res.value = tuple(sorted({*count.values(), *n_turns.values()}))
    res.seconds = {**res.seconds, **{-1 - i: m for i, m in enumerate(mean.values())}}
    res.steps.append({"step": f"{'most' if most else 'fewest'} words per turn", "words": count, "turns": n_turns})

    def said(c: int) -> str:
        return f"{res.describe[c]} {mean[c]} ({count[c]} words in {n_turns[c]} turn{'s' if n_turns[c] != 1 else ''})"

    rest = sorted((c for c in mean if c not in top), key=lambda c: -mean[c] if most else mean[c])
    then = "; then " + ", ".join(said(c) for c in rest) if rest else ""
    text = f"{_cap(_join([res.describe[c] for c in top]))} said the {'most' if most else 'fewest'} words per turn" \
        f"{where} on average, as I heard them: {', '.join(said(c) for c in top)}{then}."
    return (REFUSAL if check(text, res) else text), res


def words_one_turn(res: QueryResult, turns: list, most: bool, where: str) -> tuple[str, QueryResult]:
    """"A and C said the most words in one turn: 5, as I heard them (A at 00:01: "..."); then B 3." (each person's
    wordiest (tersest) turn, its words counted as speech recognition heard them)."""
    def words(e) -> int:  # noqa: ANN001
        return len(re.findall(r"[\w']+", e.text))

    own: dict[int, object] = {}
    for e in turns:
        c = own.get(e.character_id)
        if c is None or (words(e) > words(c) if most else words(e) < words(c)):
            own[e.character_id] = e
    count = {c: words(e) for c, e in own.items()}
    best = (max if most else min)(count.values())
    top = [c for c in own if count[c] == best]
    res.events = [own[c] for c in top] + [e for e in res.events if all(e is not own[c] for c in top)]  # type: ignore[misc]
    res.value = tuple(sorted(set(count.values())))
    res.steps.append({"step": f"each person's {'wordiest' if most else 'tersest'} turn", "words": count})
    word = "most" if most else "fewest"

    def turn(c: int) -> str:
        e = own[c]
        return f'{res.describe[c]} at {res.say(e.start)}: "{e.text.strip().rstrip(".!?")}"'  # type: ignore[attr-defined]

    rest = sorted((c for c in count if c not in top), key=lambda c: -count[c] if most else count[c])
    then = "; then " + ", ".join(f"{res.describe[c]} {count[c]}" for c in rest) if rest else ""
    text = f"{_cap(_join([res.describe[c] for c in top]))} said the {word} words in a single turn{where}: {best}" \
        f"{' each' if len(top) > 1 else ''}, as I heard them ({'; '.join(turn(c) for c in top)}){then}."
    return (REFUSAL if check(text, res) else text), res
