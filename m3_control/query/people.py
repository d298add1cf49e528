"""Who a query means: a reference (what someone said, a name, a tag) -> one character, or an honest "nobody" /
"more than one person" with the candidates.

A quote is matched against every visible voice turn (fuzzy: speech recognition errors still match); a person's
score is their best turn's. The best person is the answer only when they score at least ``min_match`` and no
other person comes within ``margin`` of them; two people who both said something like the quote are reported
as ambiguous, never resolved to one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from m3_memory.people import PeopleFacts, Turn, similarity
from m3_memory.tags import find_tags

MIN_MATCH = 0.6
MARGIN = 0.1
_NAME_LIKE = re.compile(r"^(?:[A-Z][a-z'\-]+)(?: [A-Z][a-z'\-]+)?$")


@dataclass
class Who:
    ref: str
    status: str                     # found | unknown | ambiguous
    character_id: int | None = None
    how: str = ""                   # tag | name | speech
    score: float = 0.0
    evidence: list[Turn] = field(default_factory=list)      # the turn(s) that matched
    candidates: list[tuple[int, float, Turn]] = field(default_factory=list)  # (character, score, best turn)

    @property
    def name_like(self) -> bool:
        """The reference looks like a name ("Maria", "Tom Hanks") rather than something said."""
        return bool(_NAME_LIKE.match(self.ref.strip(" .?!\"'")))

    def trace(self) -> dict:
        return {"ref": self.ref, "status": self.status, "character_id": self.character_id, "how": self.how,
                "score": round(self.score, 3),
                "candidates": [{"character_id": c, "score": round(s, 3), "turn_id": t.id} for c, s, t in
                               self.candidates[:4]]}


def resolve(facts: PeopleFacts, ref: str, min_match: float = MIN_MATCH, margin: float = MARGIN) -> Who:
    ref = " ".join(str(ref).split())
    if find_tags(ref) or facts._by_name(ref) is not None:      # a tag or a known name: exact
        r = facts.resolve(ref, min_match)
        if r.character_id is not None and r.how in ("tag", "name"):
            return Who(ref, "found", r.character_id, r.how, 1.0, list(r.evidence))
    said = facts._said_part(ref)
    best: dict[int, tuple[float, Turn]] = {}
    if said:
        for t in facts._speech_candidates(said):
            s = similarity(said, t.text)
            if s > best.get(t.character_id, (0.0, None))[0]:   # type: ignore[operator]
                best[t.character_id] = (s, t)
    ranked = sorted(((c, s, t) for c, (s, t) in best.items()), key=lambda x: -x[1])
    if not ranked or ranked[0][1] < min_match:
        return Who(ref, "unknown", score=ranked[0][1] if ranked else 0.0, candidates=ranked)
    top = ranked[0]
    close = [c for c in ranked[1:] if c[1] >= min_match and top[1] - c[1] < margin]
    if close:
        return Who(ref, "ambiguous", score=top[1], candidates=[top, *close])
    return Who(ref, "found", top[0], "speech", top[1], [top[2]], ranked)
