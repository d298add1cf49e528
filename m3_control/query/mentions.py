"""Words of a kind mentioned in what people said: "which colours were mentioned in the office?", "how many times was a
number mentioned?", "did anyone mention a letter of the alphabet in the hallway?", "who mentioned a colour first?",
"what numbers did A mention?".

A kind is a small closed vocabulary, :mod:`.said_about`'s: colours (the common colour words), numbers (digits,
number words) and letters (a single letter said on its own, "X" of "X4"; not the words "a" and "I"). The words are
the turns' transcripts as speech recognition heard them, read as said_about reads them: a word that sounds like one
of the kind counts, and the answer says so ("been read" is heard as "read", which sounds like red). One frame
selects the voice turns in the question's place, window and person; code finds the words. The answer names each word,
how often, and the first turn it was heard in, checked against that result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query, voice_turns
from .phrase import REFUSAL, _cap, _join, check, conditions, phrase
from .result import QueryResult
from .said_about import _CLASSES, _in_order, heard_as
from .wording import QUOTED
from .words import times_word

_VERB = r"(?:mention(?:ed|s)?|said|say|says|spoken|named|name|called\s+out|heard|hear)"
_PLURAL = r"(?P<kind>colou?rs|numbers|digits|numerals|letters)"
_ONE = r"(?P<kind>colou?r|number|digit|numeral|letter)(?:\s+of\s+the\s+alphabet)?"
# what said_about answers stays its own: one colour a person said ("what colour did A mention?"), a named one ("did
# anyone mention the colour red?"), one that fits ("a number larger than five", "an even number"), someone's life
_FORMS = (
    ("list", re.compile(rf"^\W*(?:which|what)\s+{_PLURAL}\b[^?]*?\b{_VERB}\b", re.IGNORECASE)),
    ("count", re.compile(rf"^\W*how\s+(?:many\s+times|often)\s+(?:was|were|did|has|had)\s+(?:a|any|some)\s+{_ONE}\s+"
                         rf"(?:get\s+|been\s+)?{_VERB}\b", re.IGNORECASE)),
    ("distinct", re.compile(rf"^\W*how\s+many\s+(?:different\s+|distinct\s+)?{_PLURAL}\s+(?:were|did|have|had|got)\b"
                            rf"[^?]*?\b{_VERB}\b", re.IGNORECASE)),
    ("who", re.compile(rf"^\W*who\s+{_VERB}\s+(?:a|any)\s+{_ONE}\s+(?:the\s+)?(?P<pick>first|last)\b", re.IGNORECASE)),
    ("yes", re.compile(rf"^\W*(?:did|has|had)\s+(?:anyone|anybody|someone|somebody|any\s+one|people)\s+(?:ever\s+)?"
                       rf"{_VERB}\s+(?:a|any)\s+{_ONE}(?:\s+(?:in|at)\s+the\s+[a-z]+(?:\s+room)?|\s+(?:before|after)\s+"
                       rf"\d{{1,2}}:[0-5]\d)?\s*[?.!]*\s*$", re.IGNORECASE)),
)


@dataclass(frozen=True)
class MentionAsk:
    kind: str          # colour | number | letter
    form: str          # list | count | distinct | yes | who
    pick: str = ""     # who: "first" / "last" (else everyone who did)


def asks_mentions(question: str) -> MentionAsk | None:
    plain = QUOTED.sub(" quoted ", question)       # (a person named by their words)
    for form, pattern in _FORMS:
        m = pattern.search(plain)
        if m is not None:
            word = m.group("kind").lower()
            kind = "colour" if word.startswith("colo") else "letter" if word.startswith("letter") else "number"
            pick = (m.group("pick") or "").lower() if "pick" in pattern.groupindex else ""
            return MentionAsk(kind, form, pick)
    return None


def words_of(text: str, kind: str) -> list[str]:
    """The words of ``kind`` in one transcript, in order, as :mod:`.said_about` reads what was said ("X4" is "x" and
    "four"; "read" sounds like "red"): "Lay blue at X4 now" has the colour "blue", the number "four", the letter
    "X"."""
    return [w.upper() if kind == "letter" else w for w in _in_order(text) if w in _CLASSES[kind]]


def prepare(q: Query) -> Query:
    """The voice turns in the frame's place, window and person."""
    return voice_turns(q, person=True)


def answer(executor: QueryExecutor, q: Query, ask: MentionAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    where = conditions(res)
    if "who" in res.who and q.who:      # one person's words ("which numbers did A mention?")
        where = f" by {res.describe[res.who['who'].character_id]}{where}"
    if not turns:
        return f"I heard nobody speak{where}.", res
    hits = [(e, w) for e in turns for w in words_of(e.text, ask.kind)]
    found = list(dict.fromkeys(w for _, w in hits))
    noun = {"colour": "colour", "number": "number", "letter": "letter"}[ask.kind]
    used = list(dict.fromkeys(e for e, _ in hits))
    res.events = used + [e for e in res.events if e not in used]
    res.value = tuple(sorted({len(hits), len(found), len(turns), *(sum(1 for _, x in hits if x == w) for w in found),
                              *(int(w) for w in found if w.isdigit())}))
    res.steps.append({"step": f"{noun}s in the turns' words", "words": found, "mentions": len(hits)})
    heard = f"as speech recognition heard the {len(turns)} turn{'s' if len(turns) != 1 else ''}"
    if not hits:
        lead = "No: " if ask.form == "yes" else "Nobody: " if ask.form == "who" else "None: " if ask.form == "list" \
            else "0: " if ask.form in ("count", "distinct") else ""
        return _cap(f"{lead}I heard no {noun} mentioned{where} ({heard})."), res

    def each(w: str) -> str:
        mine = [e for e, x in hits if x == w]
        first = mine[0]
        sounds = heard_as(first.text, frozenset([w.lower()]))
        return f"{w} ({times_word(len(mine))}, first by {res.describe[first.character_id]} at " \
            f"{res.say(first.start)}: \"{first.text.strip().rstrip('.!?')}\"{sounds})"

    listed = "; ".join(each(w) for w in found)
    if ask.form == "who":
        if ask.pick:
            e, w = hits[0] if ask.pick == "first" else hits[-1]
            text = f"{res.describe[e.character_id]} mentioned a {noun} {ask.pick}{where}: {w} at " \
                f"{res.say(e.start)} (\"{e.text.strip().rstrip('.!?')}\"), {heard}."
        else:
            people = list(dict.fromkeys(e.character_id for e, _ in hits))
            text = f"{_join([res.describe[c] for c in people])} mentioned {noun}s{where}, {heard}: {listed}."
    elif ask.form == "count":
        text = f"A {noun} was mentioned {times_word(len(hits))}{where}, {heard}: {listed}."
    elif ask.form == "distinct":
        text = f"{len(found)} different {noun}{'s' if len(found) != 1 else ''}{where}, {heard}: {listed}."
    elif ask.form == "yes":
        text = f"Yes{',' if where else ''}{where}: {listed}, {heard}."
    else:
        text = f"{noun.capitalize()}s mentioned{where}, {heard}: {listed}."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res
