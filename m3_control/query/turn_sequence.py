"""Questions about the sequence of turns that no frame field says: "who spoke twice in a row?", "did A ever speak
twice (three times) in a row?" (turns of one person with nobody else's words between them), "how many times did A
speak in a row at most?" (the longest such run), "did B ever speak right after A?" (after any of A's turns, not only
the first), "how many different people spoke right after A?", "who was the last new voice I heard?" (the last
person to speak for the first time; "who started speaking latest?", "the last person to join the conversation"), "did
C speak after everyone else had spoken?" (C's first words against everyone else's) and "did the speaker change at
every turn?" (yes when nobody spoke twice in a row, else who did and when).

One frame selects everyone's voice turns in the question's place and window (the model's frame keeps those); code
walks them in order. The answer names the people and the times of the turns it rests on, checked against that
result like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query
from .phrase import REFUSAL, _cap, _join, check, phrase
from .question_forms import IN_A_ROW, MOST_IN_A_ROW
from .result import QueryResult
from .wording import NAME_IN_QUESTION, QUOTED
from .words import times_word

_LAST_NEW = re.compile(r"\b(?:last|latest|most\s+recent|final)\s+new\s+(?:voice|person|speaker|one)\b|"
                       r"\b(?:last|final)\s+(?:person|one|speaker|voice)\s+(?:that\s+|who\s+)?(?:i\s+)?(?:heard|spoke|"
                       r"to\s+speak)\s+for\s+the\s+first\s+time\b|"
                       r"\b(?:whose|which\s+person's|who\s+had\s+the)\s+first\s+(?:words?|turn)\s+(?:came|was|were)\s+"
                       r"(?:the\s+)?(?:last|latest)\b|"
                       # "who spoke only after everyone else had (already) spoken?": the last new voice
                       r"^\W*who\s+(?:first\s+)?(?:spoke|talked)\s+(?:only\s+|last\s+)?(?:after|once)\s+(?:everyone|"
                       r"everybody|all\s+the\s+others)\s+(?:else\s+)?had\s+(?:already\s+)?(?:spoken|talked)\b|"
                       # "who waited the longest before speaking for the first time?", "who took the longest to speak?"
                       r"^\W*who\s+(?:waited|took)\s+(?:the\s+)?longest\s+(?:before|to)\s+(?:first\s+)?(?:speaking|"
                       r"talking|speak|talk|say\s+anything|saying\s+anything)\b|"
                       r"^\W*who\s+(?:was\s+)?(?:the\s+)?(?:last|latest)\s+(?:to\s+)?(?:start|begin)\s+(?:speaking|"
                       r"talking)\b|"
                       # "who started speaking latest?", "who began talking last?"
                       r"^\W*who\s+(?:started|began)\s+(?:speaking|talking|to\s+speak|to\s+talk)\s+(?:the\s+)?"
                       r"(?:latest|last)\b|"
                       # "the last (person) to say anything for the first time", "the last one I heard for the first
                       # time"
                       r"\b(?:last|final|latest)\s+(?:(?:person|one|speaker|voice)\s+)?(?:(?:that|who)\s+)?(?:i\s+)?"
                       r"(?:to\s+)?(?:heard|spoke|speak|talk|talked|say\s+(?:anything|something)|said\s+(?:anything|"
                       r"something))\s+for\s+the\s+first\s+time\b|"
                       # "the last person to join the conversation"
                       r"\b(?:last|final|latest)\s+(?:(?:person|one|speaker|voice)\s+)?(?:to\s+)?join(?:ed)?\s+(?:the\s+)?"
                       r"(?:conversation|talk|talking|discussion|group|chat)\b", re.IGNORECASE)


# "did A and B ever speak one right after the other?", "... back to back?": either order
_MUTUAL = re.compile(r"\b(?:one|each)\s+(?:(?:right|just|immediately|directly)\s+)?after\s+(?:the\s+)?other\b|"
                     r"\bafter\s+(?:each\s+other|one\s+another)\b|\bback[\s-]+to[\s-]+back\b", re.IGNORECASE)
# "right after B", "the next speaker after B", "the previous speaker before B": the side is the one group matched
_NEXT_TO = (r"(?:\b(?:right|just|immediately|directly)\s+(after|before)|\bnext\s+(?:(?:speaker|person|one|voice)\s+)?"
            r"(?:to\s+(?:speak|talk)\s+)?(after|following)|\b(?:previous|preceding)\s+(?:(?:speaker|person|one|voice)\s+)?"
            r"(before))\b")
_EVER_NEXT = re.compile(rf"\bever\b[^?]*?{_NEXT_TO}", re.IGNORECASE)
# "did A speak right before B?" with no turn of B's named: any of B's turns ("did C speak right before B?" was answered
# "no" from B's first turn alone, C having spoken right before B's second)
_YES_NEXT = re.compile(rf"^\W*(?:did|was|has|had)\b[^?]*?{_NEXT_TO}", re.IGNORECASE)
# "how many times did B speak right after A?", "how often did someone talk right before A?": over all of A's turns
_COUNT_NEXT = re.compile(r"^\W*how\s+(?:many\s+(?:times|turns)|often)\s+(?:did|has|had)\b[^?]*?\b(?:right|just|"
                         r"immediately|directly)\s+(after|before)\b", re.IGNORECASE)
_SOMEONE = re.compile(r"^\W*how\s+(?:many\s+(?:times|turns)|often)\s+(?:did|has|had)\s+(?:someone|somebody|anyone|"
                      r"anybody|people|others|someone\s+else|anyone\s+else)\b", re.IGNORECASE)
# "how many different people spoke right after A?": the people whose turns came right after one of A's
_PEOPLE_NEXT = re.compile(r"^\W*how\s+many\s+(?:different\s+|distinct\s+|other\s+)?(?:people|persons|speakers|voices)"
                          r"\b[^?]*?\b(?:right|just|immediately|directly)\s+(after|before)\b", re.IGNORECASE)

# "did C speak after everyone else had spoken?", "did A talk before everybody else?": one person's first words
# against everyone else's first words
_EVERYONE_ELSE = re.compile(r"^\W*(?:did|was|were|has|had)\b[^?]*?\b(?:spoke|speak|talk|talked|heard|say|said)\b[^?]*?"
                            r"\b(?P<side>after|before)\s+(?:everyone|everybody|all\s+(?:the\s+)?(?:others|other\s+"
                            r"(?:people|speakers)))(?:\s+else)?\b(?P<had>\s+had\s+(?:already\s+|first\s+)?(?:spoken|"
                            r"talked|said\s+(?:something|anything)))?", re.IGNORECASE)


def people_in(question: str) -> list[str]:
    """The people a question names, in its order: their quoted words or their names."""
    quoted = iter(quotes_of(question))
    marked = QUOTED.sub(" \x00 ", question)
    return [next(quoted, "") if m.group(0) == "\x00" else m.group(0)
            for m in re.finditer(rf"\x00|{NAME_IN_QUESTION.pattern}", marked)]


def _side(m: re.Match) -> str:
    """After or before, whichever of _NEXT_TO's groups matched ("following" is after)."""
    side = m.group(m.lastindex or 1).lower()
    return "after" if side == "following" else side


_A_TURN = re.compile(r"\b(?:first|last|final|second|third|fourth|fifth|\d+(?:st|nd|rd|th)|time|turns?|words|once)\b",
                     re.IGNORECASE)
_K = {"twice": 2, "thrice": 3, "two": 2, "three": 3, "four": 4, "five": 5}


# "how many times did the speaker change?", "how many speaker changes were there?"
# "how often did the speaker switch from one person to another?", "how many times did the conversation pass to
# someone else?", "how many speaker switches were there?"
_CHANGES = re.compile(r"\bhow\s+(?:many\s+times|often)\s+did\s+(?:the\s+)?(?:speaker|voice|person\s+speaking|talker|"
                      r"conversation|talk|turn|floor)\s+(?:change|switch|pass|shift|move|go)(?:e?s|ed)?\b(?!\s+(?:room|place"
                      r"|location))|\bhow\s+many\s+(?:speaker|turn|voice)\s+(?:changes|switches|shifts|handovers)\b|"
                      r"\bhow\s+many\s+(?:changes|switches)\s+(?:of|between|in)\s+(?:the\s+)?speakers?\b|\bhow\s+(?:many\s+"
                      r"times|often)\s+did\s+(?:a\s+different|another|a\s+new)\s+(?:person|speaker|voice)\s+(?:take\s+over|"
                      r"start\s+(?:speaking|talking)|speak)\b", re.IGNORECASE)
# "did the speaker change at every turn?", "did every turn come from a different speaker than the one before?", "did
# people always take turns?": yes when nobody spoke twice in a row
_EVERY_CHANGE = re.compile(r"^\W*(?:did|was|were|has|had)\b[^?]*?(?:\b(?:speaker|voice|person\s+speaking)\s+change\s+"
                           r"(?:at|with|after|on|for)\s+(?:every|each)\s+(?:single\s+)?turn\b|\b(?:every|each)\s+"
                           r"(?:single\s+)?turn\b[^?]*?\b(?:different|another|new|other)\s+(?:speaker|person|voice|one)\b"
                           r"[^?]*?\b(?:than|from)\s+the\s+(?:one|turn|speaker|person|voice)\s+(?:before|preceding|"
                           r"previous)|\b(?:always|every\s+time)\s+(?:take|took|taking)\s+turns\b|\balways\s+alternat"
                           r"(?:e|ed)\b)", re.IGNORECASE)
# "who spoke both first and last?", "was the first speaker also the last?"
# ... "was the last speaker the same person as the first (speaker)?"
_FIRST_AND_LAST = re.compile(r"\b(?:both\s+)?first\s+and\s+(?:also\s+)?last\b|\bfirst\s+(?:speaker|person|one)\b[^?]*?"
                             r"\balso\s+the\s+last\b|\b(?:first|last)\s+(?:speaker|person|one)\b[^?]*?\bsame\s+"
                             r"(?:person|one|speaker|voice)?\s*as\s+the\s+(?:first|last)\b", re.IGNORECASE)


# "how many times did A speak twice in a row?": how often it happened, not the longest run
_OCCASIONS = re.compile(r"^\W*how\s+(?:many\s+times|often)\b[^?]*?\b(?:twice|thrice|(?:two|three|four|five|[2-5])\s+"
                        r"(?:times|turns))\s+in\s+a\s+row\b", re.IGNORECASE)


def asks_sequence(question: str) -> str | None:
    """"in_a_row", "most_in_a_row", "ever_after" / "ever_before" / "ever_mutual", "last_new", "changes",
    "every_change" or "first_and_last" when the question asks one of them, else None."""
    if _CHANGES.search(question):
        return "changes"
    if _EVERY_CHANGE.search(question) and not quotes_of(question):
        return "every_change"
    if _FIRST_AND_LAST.search(question) and not quotes_of(question) and re.match(r"^\W*(?:who|was|were|did|is)\b",
                                                                                    question, re.IGNORECASE):
        return "first_and_last"
    if MOST_IN_A_ROW.search(question) and len(quotes_of(question)) <= 1 and not _OCCASIONS.match(question):
        return "most_in_a_row"
    if IN_A_ROW.search(question) and len(quotes_of(question)) <= 1:
        return "in_a_row"
    if _MUTUAL.search(question) and len(quotes_of(question)) == 2:
        return "ever_mutual"
    if (m := _EVER_NEXT.search(question)) and len(quotes_of(question)) == 2:
        return f"ever_{_side(m)}"
    if (m := _COUNT_NEXT.search(question)) and not _A_TURN.search(QUOTED.sub(" ", question[m.end(1):])) and \
            (len(people_in(question)) == 2 or (len(people_in(question)) == 1 and _SOMEONE.search(question))):
        return f"count_{m.group(1).lower()}"
    # ("did C speak after everyone else?" with no "had spoken" may mean "last": the frame's)
    if (m := _EVERYONE_ELSE.search(question)) and len(people_in(question)) == 1 and \
            (m.group("had") or m.group("side").lower() == "before"):
        return f"{m.group('side').lower()}_everyone"
    if (m := _PEOPLE_NEXT.search(question)) and not _A_TURN.search(QUOTED.sub(" ", question[m.end(1):])) and \
            len(people_in(question)) == 1:
        return f"people_{m.group(1).lower()}"
    if (m := _YES_NEXT.search(question)) and len(quotes_of(question)) == 2 and \
            not _A_TURN.search(QUOTED.sub(" ", question)):
        return f"ever_{_side(m)}"
    if _LAST_NEW.search(question) and not quotes_of(question):
        return "last_new"
    return None


def prepare(q: Query) -> Query:
    """Voice turns in the frame's place and window (the person the frame names kept: "did Ann ... in a row?")."""
    return replace(q, find="who", other=None, rel=None, until=None, pick=None, by=None, times=None, count=None,
                   act="spoke", top=None, measure=None, only=None)


def answer(executor: QueryExecutor, q: Query, kind: str, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(replace(prepare(q), who=None), before_time)     # everyone's turns
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.end, e.id))
    where = f" in the {q.place}" if q.place else ""
    if kind == "last_new":
        firsts = {}
        for e in turns:
            firsts.setdefault(e.character_id, e)
        if not firsts:
            return f"I heard nobody{where}.", res
        e = max(firsts.values(), key=lambda t: (t.start, t.end))
        text = f"{_cap(res.describe[e.character_id])} was the last new voice I heard{where} (first at " \
            f"{res.say(e.start)})."
        return (REFUSAL if check(text, res) else text), res
    quoted = quotes_of(question)
    if kind == "every_change":
        return _every_change(turns, res, where)
    if kind in ("changes", "first_and_last"):
        before = _turn_before(executor, q, res, turns, before_time) if kind == "changes" else None
        return _changes_or_ends(turns, kind, res, where, bool(re.match(r"^\W*(?:was|were|is|did)\b", question,
                                                                        re.IGNORECASE)), before)
    if kind.startswith("ever_"):
        return _ever_next(executor, q, kind != "ever_before", quoted, turns, res, before_time, where,
                          kind == "ever_mutual")
    if kind.endswith("_everyone"):
        return _against_everyone(executor, q, kind == "after_everyone", people_in(question), turns, res, before_time,
                                 where)
    if kind.startswith(("count_", "people_")):
        return _count_next(executor, q, kind.endswith("_after"), people_in(question), turns, res, before_time, where,
                           kind.startswith("people_"))
    ref = quoted[0] if quoted else q.who
    who = None
    if ref:
        named = executor.run(replace(prepare(q), who=ref), before_time)
        if named.status != "ok":
            return phrase(named), named
        who = named.who["who"].character_id
        res.who["who"] = named.who["who"]     # (the person as the question names them: their words, as asked)
        res.describe[who] = named.describe[who]  # type: ignore[index]
    if kind == "most_in_a_row":
        return _longest_run(turns, who, res, where)
    m = IN_A_ROW.search(question)
    word = next((w for w in re.findall(r"[a-z0-9]+", m.group(0).lower()) if w in _K or w.isdigit()), "twice") \
        if m else "twice"
    k = int(word) if word.isdigit() else _K[word]
    row = "twice" if k == 2 else f"{k} times"
    runs = [r for r in one_person_runs(turns) if len(r) >= k and (who is None or r[0].character_id == who)]
    if _OCCASIONS.match(question):     # how often: each run of k or more turns once
        res.value = len(runs)
        res.events = [e for r in runs for e in r] + [e for e in res.events if not any(e in r for r in runs)]
        d = res.describe[who] if who is not None else "anyone"
        if not runs:
            return f"Never: {d if who is not None else 'nobody'} {'never ' if who is not None else ''}spoke {row} " \
                f"in a row{where}.".replace("nobody never", "nobody"), res
        each = "; ".join(f"{res.describe[r[0].character_id]} at {_join([res.say(e.start) for e in r])}" for r in runs)
        text = f"{_cap(times_word(len(runs)))}{where}: {each}."
        return (REFUSAL if check(text, res) else text), res
    if not runs:
        text = (f"No, {res.describe[who]} never spoke {row} in a row{where}." if who is not None else
                f"Nobody spoke {row} in a row{where}: someone else always spoke in between.")
        return text, res
    people = list(dict.fromkeys(r[0].character_id for r in runs))

    def times(c: int) -> str:
        return _join([_join([res.say(e.start) for e in r]) for r in runs if r[0].character_id == c])

    if who is not None:
        text = f"Yes, {res.describe[who]} spoke {row} in a row{where}: at {times(who)}."
    else:
        said = "; ".join(f"{res.describe[c]} at {times(c)}" for c in people)
        text = f"{_cap(_join([res.describe[c] for c in people]))} spoke {row} in a row{where}: {said}."
    return (REFUSAL if check(text, res) else text), res


def _people_ids(executor: QueryExecutor, q: Query, refs: list[str], res: QueryResult,
                before_time: float | None) -> list[int] | tuple[str, QueryResult]:
    """Each named person's character id (their description put into ``res``), or the answer that one of them is not
    known."""
    ids = []
    for ref in refs:
        named = executor.run(replace(prepare(q), who=ref), before_time)
        if named.status != "ok":
            return phrase(named), named
        cid = named.who["who"].character_id
        res.describe[cid] = named.describe[cid]  # type: ignore[index]
        ids.append(cid)
    return ids


def _ever_next(executor: QueryExecutor, q: Query, after: bool, quoted: list[str], turns: list, res: QueryResult,
               before_time: float | None, where: str, mutual: bool = False) -> tuple[str, QueryResult]:
    """"Did B ever speak right after A?": over every turn of A's (the frame relates to one of them only);
    ``mutual``: "did A and B ever speak one right after the other?", in either order, each order said."""
    ids = _people_ids(executor, q, quoted, res, before_time)
    if isinstance(ids, tuple):
        return ids
    who, other = ids
    if who == other:
        return REFUSAL, res
    side = "after" if after else "before"
    near = list(zip(turns, turns[1:], strict=False))
    pairs = [(a, b) for a, b in near if (a.character_id, b.character_id) == ((other, who) if after else (who, other))]
    d, o = res.describe[who], res.describe[other]  # type: ignore[index]
    if mutual:
        back = [(a, b) for a, b in near if (a.character_id, b.character_id) == (who, other)]
        clauses = [f"{x} spoke right after {y} at {_join([res.say(b.start) for _, b in ps])}" if ps else
                   f"{x} never spoke right after {y}" for x, y, ps in ((d, o, pairs), (o, d, back))]
        pairs += back
        if not pairs:
            return f"No, {d} and {o} never spoke one right after the other{where}.", res
        text = f"Yes{where}: {clauses[0]}; {clauses[1]}."
    elif not pairs:
        return f"No, {d} never spoke right {side} {o}{where}.", res
    else:
        at = _join([res.say((b if after else a).start) for a, b in pairs])
        text = f"Yes, {d} spoke right {side} {o}{where}: at {at}."
    res.events = sorted({e for pair in pairs for e in pair}, key=lambda e: (e.start, e.end, e.id))
    return (REFUSAL if check(text, res) else text), res


def _count_next(executor: QueryExecutor, q: Query, after: bool, quoted: list[str], turns: list, res: QueryResult,
                before_time: float | None, where: str, people: bool = False) -> tuple[str, QueryResult]:
    """"How many times did B speak right after A?" (each of B's turns that came right after one of A's), "how many
    times did someone speak right after A?" (each of A's turns someone else's came right after); ``people``: "how
    many different people spoke right after A?" (who those were)."""
    ids = _people_ids(executor, q, quoted, res, before_time)
    if isinstance(ids, tuple):
        return ids
    side = "after" if after else "before"
    near = list(zip(turns, turns[1:], strict=False))
    if len(ids) == 2:
        who, other = ids
        if who == other:
            return REFUSAL, res
        pair = (other, who) if after else (who, other)
        pairs = [(a, b) for a, b in near if (a.character_id, b.character_id) == pair]
        subject, o = res.describe[who], res.describe[other]  # type: ignore[index]
    else:
        other, who = ids[0], None
        pairs = [(a, b) for a, b in near if a.character_id != b.character_id and
                 (a if after else b).character_id == other]
        subject, o = "someone", res.describe[other]  # type: ignore[index]
    res.value = len(pairs)
    res.events = sorted({e for pair in pairs for e in pair}, key=lambda e: (e.start, e.end, e.id))
    if people and who is None:
        return _people_next(pairs, after, o, where, res)
    if not pairs:
        text = f"{_cap('nobody' if who is None else subject)} {'spoke' if who is None else 'never spoke'} right " \
               f"{side} {o}{where}."
        return text, res
    at = _join([res.say((b if after else a).start) for a, b in pairs])
    text = f"{_cap(subject)} spoke right {side} {o} {times_word(len(pairs))}{where}: at {at}."
    return (REFUSAL if check(text, res) else text), res


def _against_everyone(executor: QueryExecutor, q: Query, after: bool, refs: list[str], turns: list, res: QueryResult,
                      before_time: float | None, where: str) -> tuple[str, QueryResult]:
    """"Did C speak after everyone else had spoken?": C's first words after every other person's first words (before
    them: C spoke first)."""
    ids = _people_ids(executor, q, refs, res, before_time)
    if isinstance(ids, tuple):
        return ids
    firsts: dict[int, object] = {}
    for e in turns:
        firsts.setdefault(e.character_id, e)
    d = res.describe[ids[0]]  # type: ignore[index]
    mine = firsts.get(ids[0])
    if mine is None:
        return f"I did not hear {d}{where}.", res
    others = [e for c, e in firsts.items() if c != ids[0]]
    side = "after" if after else "before"
    wrong = [e for e in others if (e.start > mine.start if after else e.start < mine.start)]  # type: ignore[attr-defined]
    res.events, res.value = [mine, *others], not wrong
    told = _join([f"{res.describe[e.character_id]} ({res.say(e.start)})"  # type: ignore[attr-defined]
                  for e in (wrong or others)])
    at = res.say(mine.start)  # type: ignore[attr-defined]
    if not others:
        text = f"{_cap(d)} was the only person I heard{where} (first at {at})."
    elif not wrong:
        text = f"Yes: {d} first spoke at {at}{where}, {side} everyone else's first words: {told}."
    else:
        text = f"No: {d} first spoke at {at}{where}, {'before' if after else 'after'} the first words of {told}."
    return (REFUSAL if check(text, res) else text), res


def _people_next(pairs: list, after: bool, o: str, where: str, res: QueryResult) -> tuple[str, QueryResult]:
    """The different people whose turns came right after (before) one of the named person's, each with when."""
    side, by = ("after", 1) if after else ("before", 0)
    when: dict[int, list[str]] = {}
    for pair in pairs:
        when.setdefault(pair[by].character_id, []).append(res.say(pair[by].start))
    res.value = len(when)
    if not when:
        return f"Nobody spoke right {side} {o}{where}.", res
    each = _join([f"{res.describe[c]} (at {_join(ts)})" for c, ts in when.items()])  # type: ignore[index]
    n = len(when)
    text = f"{n} different {'person' if n == 1 else 'people'} spoke right {side} {o}{where}: {each}."
    return (REFUSAL if check(text, res) else text), res


def one_person_runs(turns: list) -> list[list]:
    """Each run of one person's turns with nobody else's words between them, in order."""
    runs: list[list] = []
    for e in turns:
        if runs and runs[-1][-1].character_id == e.character_id:
            runs[-1].append(e)
        else:
            runs.append([e])
    return runs


def _longest_run(turns: list, who: int | None, res: QueryResult, where: str) -> tuple[str, QueryResult]:
    """"How many times did A speak in a row at most?" (``who``), "who spoke the most times in a row?" (None)."""
    runs = [r for r in one_person_runs(turns) if who is None or r[0].character_id == who]
    if not runs:
        d = res.describe[who] if who is not None else "anyone"
        return f"I never heard {d}{where}.", res
    n = max(len(r) for r in runs)
    best = [r for r in runs if len(r) == n]
    res.value = n
    res.events = [e for r in best for e in r]
    if who is not None:
        d = res.describe[who]
        if n == 1:
            k = sum(len(r) for r in runs)
            text = f"Once: {d} never spoke twice in a row{where} (someone else spoke between each of their {k} " \
                f"turns)." if k > 1 else f"Once: {d} spoke only once{where}."
        else:
            text = f"{_cap(times_word(n))}: {d} spoke {times_word(n)} in a row{where}, at " \
                f"{_join([_join([res.say(e.start) for e in r]) for r in best])}."
    elif n == 1:
        text = f"Nobody spoke twice in a row{where}: someone else always spoke in between."
    else:
        people = list(dict.fromkeys(r[0].character_id for r in best))
        said = "; ".join(f"{res.describe[r[0].character_id]} at {_join([res.say(e.start) for e in r])}" for r in best)
        text = f"{_cap(_join([res.describe[c] for c in people]))} spoke {times_word(n)} in a row{where}: {said}."
    return (REFUSAL if check(text, res) else text), res


def _turn_before(executor: QueryExecutor, q: Query, res: QueryResult, turns: list,
                 before_time: float | None) -> Any:
    """The turn just before a time window's first turn (in the frame's place), else None: a change of speaker
    belongs to the window the new speaker's turn began in, so the change into the window is one of its own."""
    if not turns or res.query.from_ is None:
        return None
    every = executor.run(replace(prepare(q), who=None, from_=None, to=None, at=None), before_time)
    earlier = [e for e in every.events if e.kind == "voice" and e.start < turns[0].start and e not in turns]
    return max(earlier, key=lambda e: (e.start, e.end, e.id)) if earlier else None


def _changes_or_ends(turns: list, kind: str, res: QueryResult, where: str,
                     yes_no: bool = False, before: Any = None) -> tuple[str, QueryResult]:
    """"How many times did the speaker change?" (consecutive turns of different people; in a window, the change
    into it from the turn just ``before`` it counted too), "who spoke both first and last?" (the first speaker, if
    they were also the last)."""
    if not turns:
        return f"I heard nobody{where}.", res
    if kind == "changes":
        changes = [(a, b) for a, b in zip(turns, turns[1:], strict=False) if a.character_id != b.character_id]
        into = before is not None and before.character_id != turns[0].character_id
        n = len(changes) + into
        res.value = (n, len(turns))
        res.events = turns + ([before] if into else [])
        first = f", the first at {res.say(turns[0].start)} from {res.describe[before.character_id]}'s turn before " \
            f"(at {res.say(before.start)})" if into else ""
        text = f"{_cap(times_word(n))}{where}: {len(turns)} turns, each change a different person " \
            f"speaking after another{first}." if n else f"Never{where}: one person spoke all {len(turns)} turns."
        return (REFUSAL if check(text, res) else text), res
    first, last = turns[0], turns[-1]
    res.events = [first, last] + [e for e in res.events if e not in (first, last)]
    if first.character_id == last.character_id:
        text = f"{'Yes, ' if yes_no else ''}{res.describe[first.character_id]} spoke both first (at " \
            f"{res.say(first.start)}) and last (at {res.say(last.start)}){where}."
        text = _cap(text)
    else:
        text = f"{'No' if yes_no else 'Nobody'}{where}: {res.describe[first.character_id]} spoke first (at " \
            f"{res.say(first.start)}), {res.describe[last.character_id]} last (at {res.say(last.start)})."
    return (REFUSAL if check(text, res) else text), res


def _every_change(turns: list, res: QueryResult, where: str) -> tuple[str, QueryResult]:
    """"Did the speaker change at every turn?": yes when no two turns in a row were one person's; else who spoke twice
    (or more) in a row, and when."""
    if len(turns) < 2:
        return (f"I heard nobody{where}." if not turns else f"I heard only one turn{where}."), res
    runs = [r for r in one_person_runs(turns) if len(r) > 1]
    changes = sum(1 for a, b in zip(turns, turns[1:], strict=False) if a.character_id != b.character_id)
    res.value = (len(turns), changes)
    res.events = [e for r in runs for e in r] or turns
    if not runs:
        text = f"Yes{where}: the speaker changed at every one of the {len(turns)} turns; nobody spoke twice in a row."
    else:
        said = "; ".join(f"{res.describe[r[0].character_id]} spoke {times_word(len(r))} in a row at "
                         f"{_join([res.say(e.start) for e in r])}" for r in runs)
        text = f"No{where}: {said} (the speaker changed {times_word(changes)} in {len(turns)} turns)."
    return (REFUSAL if check(text, res) else text), res
