"""Whether a memory a search found is evidence about what was asked, or only alike in form.

The sentence embedder scores unrelated speech 0.1-0.2 against a query and a transcript about the asked words
0.25-0.7, so the loop shows nothing under 0.2 (``ToolReasoningLoop.min_score``). Short commands of one grammar sit on
the edge: "red car" scored 0.22 against "Lay blue by C to again", the small model picked it and "Who has a red car?"
was answered 'Someone said "Lay blue by C to again"' (held-out 703). A weak match (under :data:`WEAK_SCORE`) is
shown only where it shares a word with the search or the question, as said (spoken letters and numbers, words that
sound alike: "read" is "red"); a strong one is shown as found, so a paraphrase the embedder recognises still counts.
"""

from __future__ import annotations

import re

from .query.said_about import spoken_words

WEAK_SCORE = 0.3
# words every question or memory has: asking, speaking, being, people in general
_FORM = frozenset(re.split(r"\s+", """be is are was were am been being do does did done have has had say says said
saying tell tells told speak speaks spoke spoken talk talks talked ask asks asked hear heard see saw seen someone
somebody anyone anybody everyone person people man woman who whom whose what which when where why how did not no yes
appear appears appeared scene""".strip()))
_SAYS = re.compile(r'^.{0,80}?\bsays?:\s*"(.*)"\s*\.?$', re.DOTALL)


def _words(text: str) -> frozenset[str]:
    text = re.sub(r"<[^>]*>", " ", text)      # tags name people, not topics
    said = _SAYS.match(text)
    return frozenset(w for w in spoken_words(said.group(1) if said else text) if w not in _FORM and w not in "ai")


def is_evidence(text: str, score: float | None, *asked: str) -> bool:
    """A memory of ``text`` found with ``score`` says something about ``asked`` (the search, the question)."""
    if score is None or score >= WEAK_SCORE:
        return True
    mine = _words(text)
    return any(mine & _words(a) for a in asked)
