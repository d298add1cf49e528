"""The question's own words decide the polarity of a frame: a small model sometimes writes ``rel=before`` for
"did A speak after B?", ``find=more`` for "who spoke less often?", or ``find=same`` for "are they different
people?". The fact is computed either way; only which side the yes/no is on depends on the wording."""

from __future__ import annotations

import re
from dataclasses import replace

from .frame import FIND, YES_NO_FIND, Query, rel_base

_QUOTED_SPEECH = re.compile(r"\"[^\"]*\"|“[^”]*”|(?<!\w)'[^']*'(?!\w)")
_BEFORE, _AFTER = re.compile(r"\bbefore\b"), re.compile(r"\bafter\b")
_PREVIOUS, _NEXT = re.compile(r"\b(?:previous|preceding|prior)\b"), re.compile(r"\b(?:next|following)\b")
_MORE, _LESS = re.compile(r"\bmore\b"), re.compile(r"\b(?:less|fewer)\b")
_SAME, _DIFFERENT = re.compile(r"\b(?:same|identical)\b"), re.compile(r"\b(?:different|distinct|separate)\b")
_LEAD = re.compile(r"^(Yes|No), ")
# the one turn next to it: "just / right before", "the next person to speak after", "the previous speaker before"
_ADJACENT = re.compile(r"\b(?:just|right|immediately|directly)\s+(?:before|after)\b|\b(?:next|previous|preceding)\b")


def _words(question: str) -> str:
    return _QUOTED_SPEECH.sub(" ", question.lower())  # words inside quoted speech ask nothing


def _only(q: str, a: re.Pattern, b: re.Pattern) -> str | None:
    sa, sb = bool(a.search(q)), bool(b.search(q))
    return "a" if sa and not sb else "b" if sb and not sa else None


def align(question: str, q: Query) -> Query:
    """``q`` with before/after (and "just / right before", "next", "previous": the one turn next to it) and
    more/less taken from the question where it says only one of them."""
    words = _words(question)
    if q.rel and q.rel != "with":
        # "who spoke next?" / "the previous speaker" say the side where neither "before" nor "after" is said
        side = _only(words, _BEFORE, _AFTER) or (None if _BEFORE.search(words) or _AFTER.search(words) else
                                                  _only(words, _PREVIOUS, _NEXT))
        if side is not None:
            # "just before": the one turn; a count is over every turn before / after unless the question says so
            # and so is a yes / no ("did A speak after B's last turn?": any turn after it) and a "who" with no rank
            # ("who spoke before A first spoke?": everyone before A, not only the last of them)
            adjacent = bool(_ADJACENT.search(words)) or (q.rel.startswith("right_") and not q.find.startswith("count")
                                                         and q.find != "yes" and (q.find != "who" or bool(q.pick)))
            want = ("right_" if adjacent else "") + ("before" if side == "a" else "after") \
                + q.rel.removeprefix(rel_base(q.rel) or "")    # which of other's turns stays
            if want != q.rel:
                q = replace(q, rel=want)
    if q.find in ("more", "less"):
        side = _only(words, _MORE, _LESS)
        if side is not None:
            q = replace(q, find="more" if side == "a" else "less")
    return q


def asks_different(question: str) -> bool:
    return _only(_words(question), _SAME, _DIFFERENT) == "b"


def fit(question: str, q: Query, answer: str) -> str:
    """A same-person answer turned to a "different people?" question (the lead-in flips, the fact stays); a
    comparison asked as "who spoke more, A or B?" names the one who did, and the other as "the other"."""
    if q.find == "same" and asks_different(question):
        m = _LEAD.match(answer)
        if m:
            answer = ("No, " if m.group(1) == "Yes" else "Yes, ") + answer[m.end():]
    if q.find in ("more", "less") and not YES_NO_QUESTION.match(question):
        m = _COMPARED.match(answer)   # the one who did, in few words (the counts stay in the trace)
        if m:
            answer = f"{m.group(1)[:1].upper()}{m.group(1)[1:]} spoke {m.group(2)} often{m.group(3)}."
        elif q.measure == "time" and (lead := re.match(r"(?:Yes|No), ", answer)):   # who talked longer: the one
            answer = answer[lead.end():][:1].upper() + answer[lead.end() + 1:]
    return answer


# (the scope stays: "... than B (once) in the lab." -> "A spoke more often in the lab.")
_COMPARED = re.compile(r'^(?:Yes|No), (.+?) spoke (more|less) often \([^)]*\) than .*? '
                       r'\((?:never|once|twice|\d+ times)\)(.*?)\.?$')


_AUX = r"(?:did|do|does|is|are|was|were|has|have|had|can|could|will|would|should)\b"
# "When she spoke for the last time, ...", "Once he had left, ...": a clause that sets the time, not a question
_SETTING_CLAUSE = re.compile(rf"^\W*(?:when|whenever|while|as|once|after|before|since|until)\s+(?!{_AUX})",
                             re.IGNORECASE)
# "did she ...?", or after a clause that sets the scene: "Once he had left, did she still speak?"
# (the clause may quote someone: "After the last turn of the person who said 'X', did she ...?")
_YES_NO = re.compile(rf"^(?:\W*{_AUX}|(?:[^?'\"]|(?<=\w)'(?=\w)|(?<!\w)'[^']*'(?!\w)|\"[^\"]*\")*[,:;]\s*{_AUX})",
                     re.IGNORECASE)
# "did the person who said A or the person who said B speak more?": a choice of two people, not a yes or no
_EITHER_OF_TWO = re.compile(r"(?:'[^']+'|\"[^\"]+\")\W*\s+or\s+(?:the\s+)?(?:person|man|woman|one|someone|somebody)\b",
                            re.IGNORECASE)


# "did A speak in the hallway or in the bedroom?": a choice of two places, answered by where (wording.place_choice);
# also offered after a comma ("where did A speak first, the office or the lab?")
EITHER_PLACE = re.compile(r"(?:\b(?:in|at|inside)\s+|(?P<comma>,)\s*(?:(?:in|at|inside)\s+)?)the\s+"
                          r"(?P<a>[a-z]+(?:\s+[a-z]+)?)\s+or\s+(?:in\s+|at\s+|inside\s+)?the\s+"
                          r"(?P<b>[a-z]+(?:\s+(?!(?:first|earlier|last|later)\b)[a-z]+)?)(?:\s+(?P<order>first|earlier|last|later))?"
                          r"\s*\?*\s*$", re.IGNORECASE)


_QUOTE_POSSESSIVE = re.compile(r"''s\b")
# "Fewer than 3 speakers after 1:10, right?": a statement with a tag asks for a yes or a no
_TAG = re.compile(r",\s*(?:right|correct|true|yes\s+or\s+no|yes|no|is\s+that\s+(?:right|so|true)|"
                  r"(?:is|was|did|do|does|has|had)(?:n't|\s+not)?\s+(?:it|they|i|you|he|she|there|that))\s*\?\s*$",
                  re.IGNORECASE)
_WH = re.compile(r"^\W*(?:who|whose|whom|what|when|where|which|why|how)\b", re.IGNORECASE)
# a question word that asks for no yes or no, whatever follows a comma ("when" may open a setting clause)
_ASKS_WH = re.compile(r"^\W*(?:how\s+(?:long|many|much|often|far)|who|whom|whose|which|what)\b", re.IGNORECASE)
_AUX_FIRST = re.compile(rf"^\W*{_AUX}", re.IGNORECASE)


class _YesNoQuestion:
    """``YES_NO_QUESTION.match(question)``: does the question ask for a yes or a no?"""

    def match(self, question: str) -> bool:
        # "After the person who said 'X''s final turn, did ...?": the possessive closes the quote
        question = _QUOTE_POSSESSIVE.sub("' s", question)
        tagged = bool(_TAG.search(question)) and not _WH.match(question)
        if _ASKS_WH.match(question) and not _AUX_FIRST.match(question):
            return False        # "how long, in seconds, did A talk?": the aside after a comma is no second question
        return bool(_YES_NO.match(question) or tagged) and not _EITHER_OF_TWO.search(question) \
            and not EITHER_PLACE.search(question)


YES_NO_QUESTION = _YesNoQuestion()
_FORMS: tuple[tuple[re.Pattern, tuple[str, ...]], ...] = (
    (re.compile(r"^\W*how (?:often|many (?:times|turns)|many different times)\b", re.IGNORECASE), ("count_times",)),
    (re.compile(r"^\W*how many (?:different |distinct |other )?(?:people|persons|speakers|voices|faces|of them)\b",
                re.IGNORECASE), ("count_people",)),
    (re.compile(r"^\W*how many (?:different |distinct |other )?(?:places|rooms|locations)\b", re.IGNORECASE),
     ("count_places",)),
    # a time span: how long something lasted, or the time between two moments ("how many seconds passed ...")
    # ("for how many seconds did A talk?": how long something lasted, not the time between two moments)
    (re.compile(r"^\W*(?:for|during) how many (?:seconds|minutes|hours)\b", re.IGNORECASE), ("how_long", "gap")),
    (re.compile(r"^\W*how many (?:seconds|minutes|hours)\b", re.IGNORECASE), ("gap", "how_long")),
    (re.compile(r"^\W*how many\b", re.IGNORECASE), ("count_people", "count_times", "count_places")),
    (re.compile(r"^\W*(?:for )?how (?:long|much time)\b", re.IGNORECASE), ("how_long", "gap")),
    # "how much did A talk (in seconds)?", "how much talking did A do?": their seconds of speech
    (re.compile(r"^\W*how much (?![^?]*\b(?:about|regarding)\b)(?:(?:did|does|do|has|had)\b[^?]*?\b(?:talk|speak|"
                r"talked|spoken)\b|(?:talking|speaking|speech)\b)", re.IGNORECASE), ("how_long",)),
    # "what was A's total speaking time?", "what is the total time B spent talking?", "what was the length of ...?"
    (re.compile(r"^\W*what(?:'s|\s+(?:is|was|were))\s+(?:[^?]*?\b(?:speaking|talking|talk|speech)\s+time\b|the\s+"
                r"(?:(?:total|overall|combined)\s+(?:amount\s+of\s+)?time\b[^?]*?\b(?:talk|talking|speak|speaking|spoke|"
                r"spent|speech)\b|(?:total\s+)?(?:duration|length)\s+of\b))", re.IGNORECASE), ("how_long", "gap")),
    # "what was the gap (pause, time) between A's first and last turns?"
    (re.compile(r"^\W*what(?:'s|\s+(?:is|was|were))\s+the\s+(?:gap|pause|silence|time|interval)\s+(?:between|from|after|"
                r"before)\b", re.IGNORECASE), ("gap", "how_long")),
    (re.compile(r"^\W*how (?:much (?:later|earlier|sooner)|soon|quickly|(?:far|long|many seconds) apart)\b",
                re.IGNORECASE), ("gap",)),
    (re.compile(r"^\W*(?:who|which (?:person|people|one|speaker|of (?:the|them)))\b", re.IGNORECASE),
     ("who", "what", "more", "less", "same")),   # "who spoke more, A or B?"
    (re.compile(r"^\W*(?:when|(?:at )?what time)\b", re.IGNORECASE), ("when",)),
    (re.compile(r"^\W*(?:where|(?:in |at )?(?:which|what) (?:room|place|location)\b)", re.IGNORECASE), ("where",)),
    # "What did the second person to speak say?", "What was said at 1:14?", "What words were spoken ...?"
    (re.compile(r"^\W*what\b(?=.*\b(?:say|said|says|saying|words|spoken|talk about)\b)", re.IGNORECASE),
     ("what",)),
)


def finds_for(question: str) -> tuple[str, ...]:
    """What a frame may ask for, by the form of the question: a yes/no question is answered yes or no, "how many"
    by a count, "who" by people, "when" by times, "where" by places; any other form leaves every ``find``."""
    # the question word may follow a leading clause: "In the library, how many times ...?", "Counting each person
    # once, who spoke fourth?"
    blank = _QUOTED_SPEECH.sub(lambda m: " " * len(m.group(0)), question)    # commas inside quotes split nothing
    clauses = [question[m.end():] for m in re.finditer(r"[,;:]\s*", blank)]
    # "When she spoke for the last time, who spoke next?": a leading clause that sets the time asks nothing
    for clause in ([] if clauses and _SETTING_CLAUSE.match(question) else [question]) + clauses:
        if YES_NO_QUESTION.match(clause):
            return YES_NO_FIND
        finds = next((finds for form, finds in _FORMS if form.match(clause)), None)
        if finds is not None:
            return finds
    # a duration only where the question asks "how long" ("which person did I hear just one time?" is no duration)
    return tuple(f for f in FIND if f not in ("how_long", "gap"))
