"""Who a query means: a reference (what someone said, a name, a tag) -> one character, or an honest "nobody" /
"more than one person" with the candidates.

A quote is matched against every visible voice turn, word by word in order (:mod:`.quotes`: speech recognition
errors still match, a different word does not); a person's score is their best turn's. The best person is the
answer only when they score at least ``min_match`` and no
other person comes within ``margin`` of them; two people who both said something like the quote are reported
as ambiguous, never resolved to one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from m3_memory.people import PeopleFacts, Turn, similarity
from m3_memory.perception.expression import look_label
from m3_memory.tags import find_tags

from .quotes import quote_score, spoken

MIN_MATCH = 0.75     # share of the quote's words heard, in order (quotes.quote_score)
MARGIN = 0.1
PREFILTER = 0.4      # m3_memory.people.similarity below this: not worth aligning
_NAME_LIKE = re.compile(r"^(?:[A-Z][a-z'\-]+)(?: [A-Z][a-z'\-]+)?$")


@dataclass
class Who:
    ref: str
    status: str                     # found | unknown | ambiguous
    character_id: int | None = None
    how: str = ""                   # tag | name | speech | role | look | sight
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


_ROLE_WORD = re.compile(r"\b(first|second|third|fourth|fifth|last|final|most|least|fewest)\b")
_ROLE_VERB = re.compile(r"\b(?:spoke|speak|speaks|talked|talk|talks|heard|said|talkative|speaker|voice)\b")
_FILLER_WORDS = ("the a one person man woman guy lady who that which was is to of all people speaker voice i me did do "
                 "spoke speak speaks talked talk talks heard said talkative often times first second third fourth "
                 "fifth last final most least fewest time")
_ROLE_FILLER = frozenset(_FILLER_WORDS.split())
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}


def is_role(ref: str) -> bool:
    """Whether ``ref`` names a person by a role ("spoke first", "the second speaker"), not by words or a name."""
    low = ref.lower()
    if _ROLE_WORD.search(low) is None or not _ROLE_VERB.search(low) or re.search(r"[\"“”]", ref):
        return False
    return not set(re.findall(r"[a-z]+", low)) - _ROLE_FILLER   # other words: something said ("who first said hi")


def by_role(facts: PeopleFacts, ref: str) -> Who | None:
    """A person given by a role instead of words or a name ("spoke first", "the one who talked the most",
    "the second speaker"): computed from the visible voice turns; a tie is ambiguous. None: not a role."""
    m = _ROLE_WORD.search(ref.lower())
    if m is None or not is_role(ref):
        return None
    voice = [t for t in facts.turns if t.kind == "voice"]
    if not voice:
        return Who(ref, "unknown", how="role")
    word = m.group(1)
    counts: dict[int, int] = {}
    for t in voice:
        counts[t.character_id] = counts.get(t.character_id, 0) + 1
    if word in ("most", "least", "fewest"):
        best = max(counts.values()) if word == "most" else min(counts.values())
        hits = [c for c, n in counts.items() if n == best]
        ev = {c: next(t for t in voice if t.character_id == c) for c in hits}
        if len(hits) > 1:
            return Who(ref, "ambiguous", how="role", candidates=[(c, 1.0, ev[c]) for c in hits])
        return Who(ref, "found", hits[0], "role", 1.0, [ev[hits[0]]])
    if word in ("last", "final"):
        t = max(voice, key=lambda v: (v.end, v.start))
        return Who(ref, "found", t.character_id, "role", 1.0, [t])
    order = list(dict.fromkeys(t.character_id for t in voice))
    n = _ORDINALS[word]
    if n > len(order):
        return Who(ref, "unknown", how="role")
    cid = order[n - 1]
    return Who(ref, "found", cid, "role", 1.0, [next(t for t in voice if t.character_id == cid)])


# how people say the expressions the face stage states (m3_memory.perception.expression.LABELS, neutral never)
LOOK_WORDS = {
    "happy": r"happy|smil(?:e|es|ed|ing)|laugh(?:s|ed|ing)?|grin(?:s|ned|ning)?|cheerful|joyful|beaming|glad",
    "sad": r"sad|unhappy|upset|cry|crying|cried|tearful|gloomy",
    "angry": r"angry|mad|furious|annoyed|frowning|frowned",
    "surprised": r"surprised|astonished|amazed|shocked|startled",
    "afraid": r"afraid|scared|frightened|fearful|worried|nervous|anxious",
    "disgusted": r"disgusted|grossed",
}
_LOOK = {label: re.compile(rf"\b(?:{words})\b") for label, words in LOOK_WORDS.items()}
_LOOK_FILLER = frozenset((_FILLER_WORDS + " looked look looks looking seemed seem seems appeared appear appears "
                          "face expression very really quite an anyone somebody someone everyone were are being "
                          "with as in view visible girl boy").split())


def looks_named(text: str) -> list[str]:
    """The expressions ``text`` names, in LOOK_WORDS' terms ("was anyone smiling?" -> ["happy"])."""
    low = text.lower()
    return [label for label, rx in _LOOK.items() if rx.search(low)]


def look_ref(label: str) -> str:
    """The reference the frame carries for a person described by looks."""
    return f"the person who looked {label}"


def look_of(ref: str) -> str | None:
    """The expression a reference describes a person by ("the woman who smiled" -> happy), or None: not a
    description by looks (a quote, other words: something said)."""
    if re.search(r"[\"“”]", ref):
        return None
    low = ref.lower()
    labels = looks_named(low)
    if len(labels) != 1:
        return None
    rest = set(re.findall(r"[a-z]+", _LOOK[labels[0]].sub(" ", low))) - _LOOK_FILLER
    return labels[0] if not rest else None


def by_look(facts: PeopleFacts, ref: str) -> Who | None:
    """A person given by how they looked ("the person who looked happy"): the characters whose face appearances
    show that expression (the face stage states only clear ones). One: found; several: ambiguous; none: unknown.
    None: not a description by looks."""
    label = look_of(ref)
    if label is None:
        return None
    hits: dict[int, Turn] = {}
    for t in facts.turns:
        if t.kind == "face" and look_label(t.text) == label:
            hits.setdefault(t.character_id, t)
    if not hits:
        return Who(ref, "unknown", how="look")
    if len(hits) > 1:
        return Who(ref, "ambiguous", how="look", candidates=[(c, 1.0, t) for c, t in hits.items()])
    (cid, t), = hits.items()
    return Who(ref, "found", cid, "look", 1.0, [t])


_NO_WORDS_SAID = frozenset(("again", "first", "last", "next", "before", "after", "later", "earlier", "then", "too",
                            "also", "more", "most", "less", "once", "twice", "now", "still", "anymore", "ever", "never",
                            "something", "anything", "nothing", "it", "that", "this", "so"))


# "the person (I) saw at 0:50", "the one seen at 1:05", "the man on camera at 0:35": a person by a moment they were seen
SIGHTING = re.compile(r"\bthe\s+(?:person|one|man|woman|guy|lady|face)\s+(?:(?:that|who)\s+)?(?:I\s+(?:saw|see|"
                      r"spotted|noticed)|(?:I\s+had\s+|was\s+|were\s+)?(?:seen|spotted|on\s+(?:camera|screen)|in\s+view|"
                      r"visible))\s+(?:at|around)\s+(?P<t>\d{1,2}:[0-5]\d(?::[0-5]\d)?)", re.IGNORECASE)
SIGHTING_SLACK_S = 1.0    # a face seen this close to the moment counts as seen at it


def by_sighting(facts: PeopleFacts, ref: str) -> Who | None:
    """The person whose face was in view at the moment ``ref`` names ("the person seen at 0:50"); several people in
    view then are ambiguous, nobody unknown. None: not such a reference."""
    m = SIGHTING.match(ref.strip(" .?!"))
    if m is None:
        return None
    t = facts.timeline.reading(m.group("t"), facts.timeline.now(facts.before_time))[0]
    hits: dict[int, Turn] = {}
    for e in facts.turns:
        if e.kind == "face" and e.start - SIGHTING_SLACK_S <= t <= e.end + SIGHTING_SLACK_S:
            hits.setdefault(e.character_id, e)
    if not hits:
        return Who(ref, "unknown", how="sight")
    if len(hits) > 1:
        return Who(ref, "ambiguous", how="sight", candidates=[(c, 1.0, e) for c, e in hits.items()])
    (cid, e), = hits.items()
    return Who(ref, "found", cid, "sight", 1.0, [e])


def resolve(facts: PeopleFacts, ref: str, min_match: float = MIN_MATCH, margin: float = MARGIN) -> Who:
    ref = " ".join(str(ref).split())
    role = by_role(facts, ref) or by_look(facts, ref) or by_sighting(facts, ref)
    if role is not None:
        return role
    if find_tags(ref) or facts._by_name(ref) is not None:      # a tag or a known name: exact
        r = facts.resolve(ref, min_match)
        if r.character_id is not None and r.how in ("tag", "name"):
            return Who(ref, "found", r.character_id, r.how, 1.0, list(r.evidence))
    said = facts._said_part(ref)
    best: dict[int, tuple[float, Turn]] = {}
    if said and set(spoken(said)) <= _NO_WORDS_SAID:
        # "spoke again", "talked first": what someone did, not words anyone said ("again" is in many sentences)
        return Who(ref, "unknown")
    if said:
        for t in facts._speech_candidates(said):
            if similarity(said, t.text) < PREFILTER:   # cheap first: most turns are about something else
                continue
            s = quote_score(said, t.text)
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
