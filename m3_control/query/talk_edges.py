"""The edges of the talk as a question's words say them: "at the very end", "the opening words", "where did the
conversation end?" -> pick the last (first) words (used by :mod:`.fidelity`)."""

from __future__ import annotations

import re

_OPENING_WORDS = re.compile(r"\b(opening|closing)\s+(?:words?|remarks?|lines?|sentences?)\b", re.IGNORECASE)
_EDGE = re.compile(r"\b(?:at|in|near|towards?)\s+the\s+(?:very\s+)?(end|beginning|start)\b(?!\s+of\b)", re.IGNORECASE)
# "which room did the talking end in?", "where did the conversation start?": the last (first) words' place or time
_TALK_EDGE = re.compile(r"\b(?:talk|talking|conversation|speaking|chat|chatting|discussion|speech)\s+(?:\w+\s+)?"
                        r"(?P<edge>end|ended|ends|finish|finished|stop|stopped|start|started|starts|begin|began|"
                        r"begins)\b", re.IGNORECASE)


# "who spoke just after the start of the recording?", "what was said right before the end?": the first (last) words
_NEAR_EDGE = re.compile(r"\b(?:just|right|shortly|soon|immediately|directly)\s+(?P<side>after|following|before)\s+"
                        r"the\s+(?:very\s+)?(?P<edge>start|beginning|end)\b", re.IGNORECASE)


def edge_picks(plain: str) -> set[str]:
    """"first" / "last" as the question's words for an edge of the talk say it ("at the very end", "the opening
    words", "where did the conversation end?")."""
    said = {"last" if m.group(1).lower() == "end" else "first" for m in _EDGE.finditer(plain)}
    said |= {"first" if m.group(1).lower() == "opening" else "last" for m in _OPENING_WORDS.finditer(plain)}
    for m in _NEAR_EDGE.finditer(plain):   # (after the start, before the end: not "before the start")
        start = m.group("edge").lower() in ("start", "beginning")
        if (m.group("side").lower() == "before") != start:
            said.add("first" if start else "last")
    return said | {"first" if m.group("edge").lower().startswith(("start", "beg")) else "last"
                   for m in _TALK_EDGE.finditer(plain)}
