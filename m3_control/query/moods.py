""""What mood was B in?", "how did Ann seem?", "what expression did A have?": one person's mood, which the records
hold only as the expressions the face stage stated on their face appearances (m3_memory.perception.expression:
stated only when clear, never "neutral"). The answer gives those expressions with their times, or says that none
was noted (and when the person was seen), or that they were never seen: a mood is never guessed from what someone
said, and a frame about their words ("what did B say?") is no answer to it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from m3_memory.perception.expression import look_label

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, _join, check, phrase
from .result import QueryResult
from .seen_heard import person_named
from .wording import QUOTED

_MOOD = re.compile(r"^\W*(?:what|which)\s+(?:kind\s+of\s+|sort\s+of\s+)?(?:mood|emotions?|expressions?|feelings?|"
                   r"state\s+of\s+mind)\s+(?:was|were|did|had|has|is|does|showed|show)\b|"
                   r"\b(?:mood|emotional\s+state|state\s+of\s+mind)\b|"
                   r"^\W*how\s+(?:did|does|was|is)\s+[^?]*?\b(?:feel|feeling|seem|seemed|look\s+emotionally)\b",
                   re.IGNORECASE)


# a mood someone said ("what did A say about her mood?"; not "the person who said X")
_SAID = re.compile(r"\b(?<!who\s)(?<!that\s)(?:say|said|says|tell|told|mention\w*|talk\w*|speak|spoke)\b",
                   re.IGNORECASE)
_NAME = re.compile(r"\b(?:was|were|is|did|does|had|has)\s+(?!(?:I|The)\b)((?-i:[A-Z][a-z]+))\b")


def _who(question: str) -> str | None:
    if (ref := person_named(question)) is not None:
        return ref
    m = _NAME.search(QUOTED.sub(" ", question))
    return m.group(1) if m else None


def asks_mood(question: str) -> bool:
    plain = QUOTED.sub(" ", question)
    if re.search(r"\b(?:feel|felt|feeling|feelings)\s+(?:about|towards?|on)\b", plain, re.IGNORECASE):
        return False      # "how did A feel about the meeting?": an opinion, what they said about it
    return bool(_MOOD.search(plain)) and not _SAID.search(plain) and _who(question) is not None


def prepare(q: Query) -> Query:
    return Query(find="who", act="seen", place=q.place, from_=q.from_, to=q.to, at=q.at)


def answer(executor: QueryExecutor, q: Query, question: str, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(replace(prepare(q), who=_who(question)), before_time)
    if res.status != "ok" or "who" not in res.who:
        return phrase(res), res
    cid = res.who["who"].character_id
    d = res.describe.get(cid, "that person")  # type: ignore[arg-type]
    faces = sorted((e for e in res.events if e.character_id == cid and e.kind == "face"), key=lambda e: e.start)
    moods = [(e, look_label(e.text)) for e in faces if look_label(e.text)]
    res.events = [e for e, _ in moods] or faces[:1]
    res.steps.append({"step": "mood", "faces": len(faces), "expressions": [m for _, m in moods]})
    if moods:
        said = _join([f"{m} at {res.say(e.start)}" for e, m in moods])
        text = f"{d[0].upper() + d[1:]} looked {said}: the expressions I noted on their face."
    elif faces:
        text = (f"I can't tell the mood of {d}: I saw them (first at {res.say(faces[0].start)}) but noted no "
                f"clear expression on their face.")
    else:
        text = f"I can't tell the mood of {d}: I never saw their face."
    return (REFUSAL if check(text, res) else text), res
