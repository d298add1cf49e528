""""How many people did I both see and hear?", "who did I see and also hear in the lab?", "did I hear anyone I never
saw?", "did I see B before I heard them?": people by the two senses at once. A frame selects by one act (``seen`` or
``spoke``), so this runs both in the question's place and window and keeps the people of both (``both``), or those
heard and never seen (``heard_only``); or compares one person's first sight with their first words (``seen_first``,
``heard_first``: within ``SAME_MOMENT_S`` is at once). A person the question names by their words or a name is asked
about alone ("did I both see and hear A?"). The answer lists the people kept with the times they were seen and heard,
checked against the result like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .execute import QueryExecutor
from .fidelity import quotes_of
from .frame import Query
from .people import SIGHTING
from .phrase import REFUSAL, _cap, _join, check, phrase
from .polarity import YES_NO_QUESTION
from .result import QueryResult
from .wording import QUOTED

_SEE = r"(?:see|saw|seen|spot(?:ted)?|notice[d]?)"
_HEAR = r"(?:hear|heard|listen(?:ed)?\s+to)"
_BOTH = re.compile(rf"\bboth\s+{_SEE}\s+and\s+{_HEAR}\b|\bboth\s+{_HEAR}\s+and\s+{_SEE}\b|"
                   rf"\b{_SEE}\s+and\s+(?:also\s+)?{_HEAR}\b|\b{_HEAR}\s+and\s+(?:also\s+)?{_SEE}\b|"
                   rf"\b{_SEE}\s+as\s+well\s+as\s+{_HEAR}\b|\b{_HEAR}\s+as\s+well\s+as\s+{_SEE}\b|"
                   r"\bboth\s+seen\s+and\s+heard\b|\bseen\s+and\s+(?:also\s+)?heard\b|\bheard\s+and\s+(?:also\s+)?seen\b",
                   re.IGNORECASE)
# "did I hear anyone I never saw?", "who was heard but never seen?", "whom did I hear without seeing?"
_HEARD_ONLY = re.compile(rf"\b{_HEAR}\b[^?]*?\b(?:but|yet)\s+(?:i\s+)?(?:never|not|didn't|did\s+not)\s+(?:been\s+)?"
                         rf"{_SEE}\b|\b{_HEAR}\b[^?]*?\bwithout\s+(?:ever\s+)?(?:seeing|being\s+seen)\b|"
                         rf"\b{_HEAR}\s+(?:anyone|anybody|someone|somebody|people|a\s+person)\s+(?:that\s+|whom?\s+)?"
                         rf"(?:i|we)\s+(?:never|didn't|did\s+not)\s+{_SEE}\b", re.IGNORECASE)


# "did I see B before I heard them?", "did I hear Ann before I saw her?": one person's first sight against their first
# words
_THEM = r"\s+(?:them|him|her)\b"
_SEEN_FIRST = re.compile(rf"^\W*(?:did|have|had)\s+(?:i|we)\s+(?:ever\s+)?{_SEE}\b[^?]*?\bbefore\s+(?:i|we)\s+"
                         rf"(?:first\s+|ever\s+)?{_HEAR}{_THEM}", re.IGNORECASE)
_HEARD_FIRST = re.compile(rf"^\W*(?:did|have|had)\s+(?:i|we)\s+(?:ever\s+)?{_HEAR}\b[^?]*?\bbefore\s+(?:i|we)\s+"
                          rf"(?:first\s+|ever\s+)?{_SEE}{_THEM}", re.IGNORECASE)
_NAMED = re.compile(rf"\b(?:{_SEE}|{_HEAR})\s+(?!(?:I|The)\b)([A-Z][a-z]+)\b")
SAME_MOMENT_S = 1.0     # a face is sampled about once a second: first seen within this of the first words is "at once"


def person_named(question: str) -> str | None:
    """The one person the question names by their words, a name or when they were seen, else None."""
    quoted = quotes_of(question)
    if len(quoted) == 1:
        return quoted[0]
    seen = SIGHTING.search(QUOTED.sub(" ", question))
    if seen is not None and not quoted:
        return f"the person seen at {seen.group('t')}"
    named = _NAMED.search(QUOTED.sub(" ", question))
    return None if quoted or named is None else named.group(1)


def asks_seen_heard(question: str) -> str | None:
    """``both``, ``heard_only``, ``seen_first`` or ``heard_first`` when the question asks for people by both senses
    (one person's first sight against their first words: ``*_first``), else None."""
    plain = QUOTED.sub(" ", question)
    for kind, pattern in (("seen_first", _SEEN_FIRST), ("heard_first", _HEARD_FIRST)):
        if pattern.search(plain) and person_named(question) is not None:
            return kind
    if _HEARD_ONLY.search(question):
        return "heard_only"
    if _BOTH.search(question):
        return "both"
    return None


def prepare(q: Query) -> Query:
    """The frame's place and window, everyone in them (the senses are chosen here)."""
    return Query(find="who", place=q.place, from_=q.from_, to=q.to, at=q.at)


def answer(executor: QueryExecutor, q: Query, kind: str, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    if kind.endswith("_first"):
        return _which_first(executor, q, kind, question, before_time)
    base = replace(prepare(q), who=person_named(question))
    heard = executor.run(replace(base, act="spoke"), before_time)
    seen = executor.run(replace(base, act="seen"), before_time)
    if heard.status != "ok":
        return phrase(heard), heard
    if seen.status != "ok" and seen.status != heard.status:
        return phrase(seen), seen
    looked = {p.character_id: p for p in seen.people}
    keep = [p for p in heard.people if p.spoke and (p.character_id in looked) == (kind == "both")]
    res = heard
    res.people = keep
    res.events = sorted({e for p in keep for e in p.events + (looked[p.character_id].events
                                                               if p.character_id in looked else [])},
                        key=lambda e: (e.start, e.end, e.id))
    res.value = len(keep)
    res.steps.append({"step": f"seen and heard: {kind}", "heard": len(heard.people), "seen": len(looked),
                      "kept": [p.character_id for p in keep]})
    cond = ("I both saw and heard" if kind == "both" else "I heard but never saw")
    scope = f" in the {q.place}" if q.place else ""
    t1, t2 = res.read(q.from_), res.read(q.to)
    scope += f" after {res.say(t1)}" if t1 is not None else ""
    scope += f" before {res.say(t2)}" if t2 is not None else ""

    def told(p) -> str:  # noqa: ANN001
        spoke = [e for e in p.events if e.kind == "voice"]
        if kind != "both":
            return f"{res.describe[p.character_id]} (heard at {res.say(spoke[0].start)})"
        return (f"{res.describe[p.character_id]} (seen at {res.say(looked[p.character_id].events[0].start)}, "
                f"heard at {res.say(spoke[0].start)})")

    listed = _join([told(p) for p in keep])
    low = question.lower().lstrip(" ¿")
    if base.who is not None:
        who = res.describe.get(res.who["who"].character_id, "that person") if "who" in res.who else "that person"
        text = (f"Yes: {listed}." if keep else f"No, {who} is not someone {cond}{scope}.")
    elif re.match(r"\W*how\s+many\b", low):
        n = len(keep)
        text = f"{n} {'person' if n == 1 else 'people'} {cond}{scope}: {listed}." if keep else \
            f"Nobody: there is no one {cond}{scope}."
    elif YES_NO_QUESTION.match(question):
        text = f"Yes: {listed}." if keep else f"No, there is no one {cond}{scope}."
    else:
        text = f"{_cap(listed)}: {'the people' if len(keep) > 1 else 'the one'} {cond}{scope}." if keep else \
            f"Nobody: there is no one {cond}{scope}."
    return (REFUSAL if check(text, res) else text), res


def _which_first(executor: QueryExecutor, q: Query, kind: str, question: str,
                 before_time: float | None) -> tuple[str, QueryResult]:
    """"Did I see B before I heard them?": B's first face against B's first words (in the frame's place and window)."""
    base = replace(prepare(q), who=person_named(question))
    heard = executor.run(replace(base, act="spoke"), before_time)
    if heard.status != "ok" or "who" not in heard.who:
        return phrase(heard), heard
    seen = executor.run(replace(base, act="seen"), before_time)
    cid = heard.who["who"].character_id
    d = heard.describe.get(cid, "that person")  # type: ignore[arg-type]
    words = sorted((e for e in heard.events if e.character_id == cid and e.kind == "voice"), key=lambda e: e.start)
    faces = sorted((e for e in seen.events if e.character_id == cid and e.kind == "face"), key=lambda e: e.start)
    res = heard
    res.events = words[:1] + faces[:1]
    res.steps.append({"step": "seen or heard first", "heard": [e.id for e in words[:1]],
                      "seen": [e.id for e in faces[:1]]})
    if not words or not faces:
        missing = "heard" if not words else "saw"
        text = f"I never {missing} {d}" + (f", so I saw them first (at {res.say(faces[0].start)})." if faces else
                                          f", so I heard them first (at {res.say(words[0].start)})." if words else ".")
        return (REFUSAL if check(text, res) else text), res
    saw, spoke = faces[0].start, words[0].start
    asked_seen = kind == "seen_first"
    if abs(saw - spoke) <= SAME_MOMENT_S:
        text = f"No: I first saw and heard {d} at the same moment ({res.say(min(saw, spoke))})."
    elif (saw < spoke) == asked_seen:
        first, then = (saw, spoke) if asked_seen else (spoke, saw)
        text = (f"Yes: I {'saw' if asked_seen else 'heard'} {d} at {res.say(first)}, before I first "
                f"{'heard' if asked_seen else 'saw'} them at {res.say(then)}.")
    else:
        first, then = (spoke, saw) if asked_seen else (saw, spoke)
        text = (f"No: I {'heard' if asked_seen else 'saw'} {d} first, at {res.say(first)}; I first "
                f"{'saw' if asked_seen else 'heard'} them at {res.say(then)}.")
    return (REFUSAL if check(text, res) else text), res
