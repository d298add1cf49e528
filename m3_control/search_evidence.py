"""Whether a memory a search found is evidence about what was asked, or only alike in form.

The sentence embedder scores unrelated speech 0.1-0.2 against a query and a transcript about the asked words
0.25-0.7, so the loop shows nothing under 0.2 (``ToolReasoningLoop.min_score``). Short commands of one grammar sit on
the edge: "red car" scored 0.22 against "Lay blue by C to again" and "Who has a red car?" was answered 'Someone said
"Lay blue by C to again"' (held-out 703); "blue bike" scored 0.32 against "Lay blue at X4 now" by the one word and
"Who owns a blue bike?" was answered with it (705). So a match under :data:`WEAK_SCORE` is shown only where it shares
a word with the search or the question, as said (spoken letters and numbers, words that sound alike: "read" is
"red"), and one under :data:`VALUE_SCORE` that shares nothing but a colour, letter or number is shown only where the
question asks about nothing but such values ("what was said about red and the letter k?"). A strong match is shown as
found, and one that shares no word at all over :data:`WEAK_SCORE` too: a paraphrase the embedder recognises.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .query.said_about import _CLASSES, spoken_words

WEAK_SCORE = 0.3      # under this, a memory that shares no word with what was asked is no evidence
VALUE_SCORE = 0.5     # under this, one that shares only a colour, letter or number with a question about more
# words every question or memory has: asking, speaking, being, people in general
_FORM = frozenset(re.split(r"\s+", """be is are was were am been being do does did done have has had say says said
saying tell tells told speak speaks spoke spoken talk talks talked ask asks asked hear heard see saw seen someone
somebody anyone anybody everyone person people man woman who whom whose what which when where why how not no yes
appear appears appeared scene about regard regarding mention mentioned thing word sentence remark""".strip()))
# values any short command is made of, and the kinds of them a question asks about ("the letter k", "a colour"):
# "blue" alone does not make "Lay blue at X4 now" about a blue bike (held-out 705)
_VALUES = frozenset().union(*_CLASSES.values())
_KINDS = frozenset(("letter", "number", "digit", "numeral", "colour", "color"))
# a memory of speech: 'X says: "..."' (the speaker, the words)
SAYS = re.compile(r'^(.{1,80}?) says?:\s*"(.*)"\s*\.?$', re.DOTALL)


@lru_cache(maxsize=1024)
def _words(text: str) -> frozenset[str]:
    """The words of a search, a question or a memory (of speech: its words) that can say what it is about (a search
    reads each found memory against the same query and question: kept)."""
    text = re.sub(r"<[^>]*>", " ", text)      # tags name people, not topics
    said = SAYS.match(text)
    return frozenset(w for w in spoken_words(said.group(2) if said else text) if w not in _FORM and w not in "ai")


def is_evidence(text: str, score: float | None, *asked: str) -> bool:
    """A memory of ``text`` found with ``score`` says something about ``asked`` (the search, the question)."""
    if score is None or score >= VALUE_SCORE:
        return True
    mine = _words(text)
    for a in asked:
        want = _words(a)
        shared = mine & want
        if shared - _VALUES:
            return True
        # a colour, letter or number in common counts where the question asks about nothing but such values ("what
        # was said about red and k?"), or the match is more than that value ("blue bike" and "Lay blue at X4 now"
        # score 0.32 by the one word)
        if shared and (not want - _VALUES - _KINDS):
            return True
    return score >= WEAK_SCORE and not any(mine & _words(a) & _VALUES for a in asked)
