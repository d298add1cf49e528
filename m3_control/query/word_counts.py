"""Turns and people measured in words, as speech recognition heard them: "who said the most words?", "... per turn on
average?", "who said the most words in a single turn?" (each person's wordiest turn), "who said the longest sentence,
counted in words?", "which turn had the most words?", "which of A's turns had the fewest words?", "how many words did
A say in their first turn?", "what was the average number of words per turn?". Read by :func:`word_form`, answered
by :mod:`.sentences` with the voice turns of its frame."""

from __future__ import annotations

import re

from .phrase import REFUSAL, _cap, _join, check
from .result import QueryResult
from .turn_sequence import people_in
from .wording import QUOTED
from .words import tenths

_WORD = re.compile(r"[\w']+")     # a word as speech recognition wrote it ("X4" is one)
_LENGTH = re.compile(r"\b(?P<which>longest|shortest|briefest|longer|shorter)\b", re.IGNORECASE)
# "how many words did A say in their first turn?", "how many words were in the longest turn?" (quotes masked)
_WORDS_OF_TURN = re.compile(r"^\W*how\s+many\s+words\s+(?:did|were|was|are|had|has|does)\b[^?]*?"
                            r"(?P<tail>\bin\s+(?:(?:their|his|her|its|the|[^?\s]+(?:'s|’s))\s+)?(?:very\s+)?"
                            r"(?P<which>first|second|third|last|final|longest|shortest)\s+(?:single\s+)?(?:turn|sentence|"
                            r"utterance|remark)\b)", re.IGNORECASE)
# "who said the longest sentence, counted in words?", "which turn was the shortest in words?"
_IN_WORDS = re.compile(r"\b(?:counted|measured)?\s*(?:in|by)\s+(?:(?:the\s+)?number\s+of\s+)?words\b|"
                       r"\bby\s+word\s+count\b|\bin\s+terms\s+of\s+words\b", re.IGNORECASE)
# "which turn had the most words, and who said it?", "which of A's turns had the fewest words?"
_WHICH_TURN = re.compile(r"^\W*(?:which|what)\s+(?:(?:single\s+|one\s+)?(?:turn|sentence|utterance|remark|line|thing\s+"
                         r"said)|of\s+[^?]*?(?:'s|’s)\s+(?:turns|sentences|utterances|remarks))\b", re.IGNORECASE)
_MOST_WORDS = re.compile(r"\b(?P<which>most|fewest|least)\s+(?:number\s+of\s+)?words\b", re.IGNORECASE)
# "what was the average number of words per turn?", "how many words per turn on average?"
_WORDS_MEAN = re.compile(r"\baverage\s+(?:number\s+of\s+)?words\s+(?:per|in\s+(?:a|each|one))\s+(?:turn|sentence|"
                         r"utterance)\b|\bwords\s+(?:per|in\s+(?:a|each))\s+(?:turn|sentence|utterance)\s+on\s+"
                         r"(?:the\s+)?average\b|\baverage\s+(?:turn|sentence|utterance)\s+length\s+in\s+words\b",
                         re.IGNORECASE)

# "which words did A say most often?", "what were the most common words?": words by how often they were said
_WORDS_OFTEN = re.compile(r"^\W*(?:which|what)\s+words?\s+(?:did|does|had|has|was|were|got)\b[^?]*?\b(?:most\s+"
                          r"(?:often|frequently|times)|the\s+most)\b|\bmost\s+(?:common|frequent|(?:often|frequently)\s+(?:said|"
                          r"used|heard|spoken))\s+words?\b", re.IGNORECASE)


def word_form(question: str) -> dict | None:
    """The fields of :class:`.sentences.SentenceAsk` of a question measuring turns in words (None: another form):
    one picked turn's words, the turn with the most (fewest) words, the words per turn on average, a sentence's length
    "counted in words"."""
    marked = QUOTED.sub(" \x00 ", question)
    people = people_in(question)
    who = people[0] if len(people) == 1 else None
    if _WORDS_OFTEN.search(marked):
        return {"kind": "word_freq", "who": who}
    m = _WORDS_OF_TURN.search(marked)
    if m is not None:
        which = {"final": "last"}.get(m.group("which").lower(), m.group("which").lower())
        return {"kind": "word_count", "nth": which, "who": who, "said": m.group("tail")}   # (no place)
    if _WORDS_MEAN.search(marked) and not re.match(r"^\W*(?:who|whose|which\s+(?:person|speaker))\b", marked,
                                                   re.IGNORECASE):
        return {"kind": "word_mean", "who": who}
    length = _LENGTH.search(marked)
    most = _MOST_WORDS.search(marked)
    if (_IN_WORDS.search(marked) and length is not None) or (_WHICH_TURN.match(marked) and most is not None):
        more = (most.group("which").lower() == "most") if most is not None and not _IN_WORDS.search(marked) else \
            length.group("which").lower() in ("longest", "longer")  # type: ignore[union-attr]
        kind = "most_words" if more else "fewest_words"
        if _WHICH_TURN.match(marked):      # the turn itself, whoever said it
            return {"kind": kind, "nth": "turn", "single": True, "who": who}
        return {"kind": kind, "single": True}
    return None


def words_ranked(res: QueryResult, turns: list, most: bool, where: str,
                 per_turn: bool = False) -> tuple[str, QueryResult]:
    """The person (people, tied) who said the most (fewest) words, as speech recognition heard them; ``per_turn``:
    their words over their turns."""
    count: dict[int, int] = {}
    for e in turns:
        count[e.character_id] = count.get(e.character_id, 0) + words_in(e)
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
    words = words_in
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


def words_in(e: object) -> int:
    """A turn's words as speech recognition heard them."""
    return len(_WORD.findall(e.text))  # type: ignore[attr-defined]


def _quoted(res: QueryResult, e: object) -> str:
    return f'{res.describe[e.character_id]} at {res.say(e.start)}: "{e.text.strip().rstrip(".!?")}"'  # type: ignore


_PICKS = {"first": 0, "second": 1, "third": 2, "last": -1, "final": -1}


def words_of_turn(res: QueryResult, turns: list, which: str, where: str, person: bool) -> tuple[str, QueryResult]:
    """The words of one turn the question picks ("in their first turn", "in the last turn", "in their longest turn":
    by its place in time or its length), as speech recognition heard them."""
    if which in ("longest", "shortest"):
        e = (max if which == "longest" else min)(turns, key=lambda x: x.end - x.start)
        tied = [x for x in turns if round(x.end - x.start, 2) == round(e.end - e.start, 2)]
        if len(tied) > 1:      # turns as long as each other to hundredths: each one's words
            return _tied_words(res, tied, which, where, person)
    elif _PICKS.get(which, 0) < len(turns) and -_PICKS.get(which, 0) <= len(turns):
        e = turns[_PICKS.get(which, 0)]
    else:
        return f"I heard only {len(turns)} turn{'s' if len(turns) != 1 else ''}{where}: there was no {which} one.", res
    n = words_in(e)
    res.events = [e] + [x for x in res.events if x is not e]
    res.value = (n,)
    res.steps.append({"step": f"the {which} turn's words", "turn": e.id, "words": n})
    words = f"{n} word{'s' if n != 1 else ''}"
    if person:
        said = e.text.strip().rstrip(".!?")  # type: ignore[attr-defined]
        text = _cap(f"{res.describe[e.character_id]} said {words} in their {which} turn{where}, as I heard them "
                    f"({res.say(e.start)}: \"{said}\").")
    else:
        text = _cap(f"{words}, as I heard them, in the {which} turn{where} ({_quoted(res, e)}).")
    return (REFUSAL if check(text, res) else text), res


def _tied_words(res: QueryResult, tied: list, which: str, where: str, person: bool) -> tuple[str, QueryResult]:
    """"6 words in each of A's 3 longest turns, as long as each other (1.9 seconds): 00:39, 00:53, 01:39"."""
    counts = [words_in(e) for e in tied]
    res.events = tied + [x for x in res.events if x not in tied]
    res.value = tuple(sorted({*counts, len(tied)}))
    res.seconds = {**res.seconds, -1: tenths(tied[0].end - tied[0].start)}
    whose = f"{res.describe[tied[0].character_id]}'s" if person else "the"
    length = f"{tenths(tied[0].end - tied[0].start)} seconds"

    def shown(res: QueryResult, e: object) -> str:   # (their own turns: who said them is known)
        said = e.text.strip().rstrip(".!?")  # type: ignore[attr-defined]
        return f"{res.say(e.start)}: \"{said}\"" if person else _quoted(res, e)  # type: ignore[attr-defined]
    if len(set(counts)) == 1:
        text = f"{counts[0]} words, as I heard them, in each of {whose} {len(tied)} {which} turns{where}, as long " \
            f"as each other ({length}): {'; '.join(shown(res, e) for e in tied)}."
    else:
        text = f"{whose} {len(tied)} {which} turns{where} were as long as each other ({length}), as I heard them: " \
            f"{'; '.join(f'{shown(res, e)} ({n} words)' for e, n in zip(tied, counts, strict=True))}."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res


def wordiest_turn(res: QueryResult, turns: list, most: bool, where: str) -> tuple[str, QueryResult]:
    """"Which turn had the most words?": the turn (turns, tied) with the most (fewest) words, who said it and when."""
    best = (max if most else min)(words_in(e) for e in turns)
    top = [e for e in turns if words_in(e) == best]
    res.events = top + [x for x in res.events if x not in top]
    res.value = tuple(sorted({words_in(e) for e in turns}))
    res.steps.append({"step": f"the turn with the {'most' if most else 'fewest'} words", "words": best,
                      "tied": len(top)})
    word = "most" if most else "fewest"
    if len(top) == 1:
        text = f"The turn with the {word} words{where} was {_quoted(res, top[0])} ({best} words, as I heard them)."
    else:
        text = f"{len(top)} turns{where} had the {word} words, {best} each, as I heard them: " \
            f"{'; '.join(_quoted(res, e) for e in top)}."
    return (REFUSAL if check(text, res) else text), res


def words_mean(res: QueryResult, turns: list, where: str) -> tuple[str, QueryResult]:
    """"What was the average number of words per turn?": over every turn, each person's beside it."""
    total = sum(words_in(e) for e in turns)
    mean = tenths(total / len(turns))
    count: dict[int, list[int]] = {}
    for e in turns:
        count.setdefault(e.character_id, []).append(words_in(e))
    res.value = tuple(sorted({total, len(turns), *(sum(v) for v in count.values()), *(len(v) for v in count.values())}))
    res.seconds = {**res.seconds, -1: mean, **{-2 - i: tenths(sum(v) / len(v)) for i, v in enumerate(count.values())}}
    res.steps.append({"step": "words per turn", "words": total, "turns": len(turns)})
    each = "; ".join(f"{res.describe[c]} {tenths(sum(v) / len(v))} ({sum(v)} in {len(v)})" for c, v in count.items())
    text = f"{mean} words per turn on average{where}, as I heard them ({total} words in {len(turns)} turns); " \
        f"person by person: {each}."
    return (REFUSAL if check(text, res) else text), res


def words_frequent(res: QueryResult, turns: list, where: str, person: bool) -> tuple[str, QueryResult]:
    """"The words said most often, as I heard them: now (5 times); then lay, blue (4 each)" (every word counted, in
    the turns of the frame: one person's where one is named)."""
    count: dict[str, int] = {}
    for e in turns:
        for w in _WORD.findall(e.text.lower()):
            count[w] = count.get(w, 0) + 1
    ranked = sorted(count.items(), key=lambda x: -x[1])
    best = ranked[0][1]
    top = [w for w, n in ranked if n == best]
    runner = next((n for _, n in ranked if n < best), 0)
    then = [w for w, n in ranked if n == runner] if runner else []
    res.value = tuple(sorted({best, runner, len(turns)}))
    res.events = list(turns) + [x for x in res.events if x not in turns]
    res.steps.append({"step": "words by how often they were said", "top": top, "times": best})
    whose = f" by {res.describe[turns[0].character_id]}" if person else ""
    each = "each" if len(top) > 1 else ""
    times = f"{runner} {'times' if runner != 1 else 'time'}{' each' if len(then) > 1 else ''}"
    rest = f"; then {', '.join(then)} ({times})" if then else ""
    text = f"The word{'s' if len(top) > 1 else ''} said most often{whose}{where}, as I heard them: {', '.join(top)} " \
        f"({best} times{' ' + each if each else ''}, in {len(turns)} turns){rest}."
    return (REFUSAL if check(text, res) else text), res


WORD_KINDS = frozenset(("most_words", "fewest_words", "word_freq", "word_mean", "word_count"))


def answer_words(res: QueryResult, turns: list, kind: str, nth: str, single: bool, per_turn: bool, where: str,
                 person: bool, asked_who: bool) -> tuple[str, QueryResult]:
    """A question measuring turns in words (:data:`WORD_KINDS`, read by :func:`word_form` or :mod:`.sentences`),
    answered from the frame's voice turns (``person``: one person's)."""
    if kind in ("most_words", "fewest_words") and nth == "turn":
        return wordiest_turn(res, turns, kind == "most_words", where)
    if kind == "word_freq":
        return words_frequent(res, turns, where, person)
    if kind == "word_mean":
        return words_mean(res, turns, where)
    if kind == "word_count" and nth:
        return words_of_turn(res, turns, nth, where, person)
    if kind in ("most_words", "fewest_words") and single:
        return words_one_turn(res, turns, kind == "most_words", where)
    if kind in ("most_words", "fewest_words"):
        return words_ranked(res, turns, kind == "most_words", where, per_turn)
    if kind == "word_count":
        n, people = sum(words_in(e) for e in turns), {e.character_id for e in turns}
        res.value = (n, len(turns))
        d = res.describe[turns[0].character_id] if asked_who and len(people) == 1 else ""
        k = f"{len(turns)} turn{'s' if len(turns) != 1 else ''}"
        text = f"{_cap(d)} said {n} words{where} in {k}, as I heard them." if d else \
            f"I heard {n} words{where} in {k}, as speech recognition heard them."
        return (REFUSAL if check(text, res) else text), res
    raise ValueError(f"not a kind measured in words: {kind}")
