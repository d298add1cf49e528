"""Who-said-what-when facts read from the ``turns`` table: the entity-centric side of the memory.

Counts, orders and same/different questions are answered from these facts by code, never guessed by a model.
Everything takes the question's time: only turns of clips committed by ``before_time`` are visible, and
characters (face-voice equivalences) are resolved as known at that time.

A person is referred to by a *reference*: a tag (``<character_2>``, ``<face_3>``, ``<voice_1>``), a name known
to memory, or a description by something they said ("the person who said 'bin blue at f two now'"), matched
against the transcripts of their voice turns (fuzzy, so speech-recognition errors still match).
"""

from __future__ import annotations

import difflib
import re
import weakref
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from .perception.expression import look_label
from .store.retrieval import character_name
from .tags import find_tags
from .timeline import mmss

if TYPE_CHECKING:
    from .store import MemoryStore

_LEAD = re.compile(
    r"^\s*(?:the\s+|a\s+)?(?:person|man|woman|guy|lady|speaker|one|someone|people)?\s*(?:who|that|which)?\s*"
    r"(?:first\s+|last\s+)?(?:said|says|say|told|asked|spoke|mentioned)\s*(?:about|that|to)?\s*[:,]?\s*",
    re.IGNORECASE)
_QUOTED = re.compile(r"[\"“'‘]([^\"”’]{2,})[\"”'’]")
# a turn runs on into the next clip when it ends this close to its clip's end and the next starts this close to
# the next clip's start (voice turns stop 0.1 s inside their speech; faces are sampled about once a second)
EDGE_S = {"voice": 0.35, "face": 1.05}
JOIN_GAP_S = 1.2
PIECE_GAP_S = 0.3         # two voice turns of one person this close, nobody between: one utterance
SCAN_LIMIT = 5000          # above this many visible voice turns, candidates come from vector search first


@dataclass(frozen=True)
class Turn:
    id: int
    clip_id: int
    kind: str                     # voice | face
    entity_id: int
    character_id: int
    start: float
    end: float
    text: str = ""
    memory_ids: tuple[int, ...] = ()
    part_ids: tuple[int, ...] = ()   # a turn joined across a clip boundary: the ids of its rows (first = id)

    @property
    def row_ids(self) -> tuple[int, ...]:
        """The ids of the turn rows this turn was read from (two or more when a clip boundary cut it)."""
        return self.part_ids or (self.id,)


SPEECH_ONSET_S = 0.4        # speech is detected this long after the speaker began (median over the GRID clips)
WINDOW_MIN_INSIDE_S = 2.0   # a voice turn begun before a window belongs to it if this much of it lies inside


def began(turn: Turn) -> float:
    """Where speaking began: a voice turn's detected start less ``SPEECH_ONSET_S`` (see :func:`in_window`)."""
    return turn.start - SPEECH_ONSET_S if turn.kind == "voice" else turn.start


def in_window(turn: Turn, t1: float | None, t2: float | None) -> bool:
    """Whether ``turn`` happened between ``t1`` and ``t2`` (either may be open).

    A voice turn is speaking *begun* in the window ("who spoke after 0:40?" is not someone finishing a sentence at
    0:41), or one that goes on inside it for a while (someone talking from 0:25 to 0:45 spoke between 0:30 and 0:40).
    Where speaking began is the detected start less ``SPEECH_ONSET_S``: the voice stage marks a turn a little after
    the speaker began (measured on this project's GRID scenes: 0.34-0.87 s after each clip's start, median 0.41 s),
    so a turn detected at 0:40.3 began before 0:40. A face appearance counts if it overlaps the window (someone in
    view from 0:25 to 0:45 was seen after 0:30).
    """
    if turn.kind != "voice":
        return (t1 is None or turn.end >= t1) and (t2 is None or turn.start <= t2)
    start = began(turn)
    if (t1 is None or start >= t1) and (t2 is None or start <= t2):
        return True
    inside = min(turn.end, t2 if t2 is not None else turn.end) - max(turn.start, t1 if t1 is not None else turn.start)
    return inside >= WINDOW_MIN_INSIDE_S


@dataclass
class Person:
    character_id: int
    name: str | None
    turns: list[Turn] = field(default_factory=list)          # voice turns, in time order
    appearances: list[Turn] = field(default_factory=list)    # face appearances, in time order
    _usual: str | None = field(default=None, repr=False)

    @property
    def first(self) -> float:
        return min(t.start for t in self.turns + self.appearances)

    @property
    def last(self) -> float:
        return max(t.end for t in self.turns + self.appearances)

    @property
    def usual_words(self) -> str:
        """What they said most often among their first 200 turns (ties: said first); "" when they never spoke."""
        if self._usual is not None:
            return self._usual
        said = [" ".join(t.text.split()) for t in self.turns[:200] if t.text.strip()]
        if not said:
            self._usual = ""
            return ""
        counts = Counter(s.lower().rstrip(".!?") for s in said)
        best = max(counts.values())
        self._usual = next(s.rstrip(".!?") for s in said if counts[s.lower().rstrip(".!?")] == best)
        return self._usual

    def describe(self, say: Callable[[float], str] = mmss) -> str:
        """How an answer names this person: a known name, else by what they said, else when they were seen."""
        if self.name:
            return self.name
        if self.usual_words:
            return f"the person who said \"{self.usual_words}\""
        looks = Counter(label for t in self.appearances if (label := look_label(t.text)) is not None)
        how = f" who looked {looks.most_common(1)[0][0]}" if looks else ""
        return f"the person seen at {say(self.first)}{how} (who did not speak)"


@dataclass
class Resolution:
    character_id: int | None
    score: float
    how: str                      # tag | name | speech | none
    evidence: list[Turn] = field(default_factory=list)


class _TurnLog:
    """Every turn of a store in time order, kept per store and re-read only when turns were added or removed
    (a question at 100k memories must not parse every turn row again)."""

    def __init__(self) -> None:
        self.key: tuple | None = None
        self.rows: list[tuple] = []     # (start, id, clip, kind, entity, end, text, clip end, clip start)
        self.seq: tuple = ()            # the store's change-log position (and names table) the name cache is for
        self.names: dict[tuple[float | None, int], str | None] = {}
        self._turns: tuple[tuple, list[Turn], list[tuple[float, float]]] | None = None
        self.joined: tuple[tuple, list[Turn]] | None = None   # the last PeopleFacts' visible, joined turns

    def turns(self, store: MemoryStore, of_entity: dict[int, int]) -> tuple[list[Turn], list[tuple[float, float]]]:
        """Every turn of a known entity in time order, with its clip's (start, end)."""
        seq = store.memory_version()
        if seq != self.seq:  # any memory written or deleted: names may have changed
            self.seq, self.names = seq, {}
        key = store.turns_version()
        if key != self.key:
            old = self.key
            if old is not None and key[1] > old[1] and key[0] - old[0] == len(new := store.turn_rows(old[1])):
                self.rows = sorted(self.rows + new)          # only added: append (timsort, nearly sorted)
            else:
                self.rows = sorted(store.turn_rows())
            self.key = key
            self._turns = None
        mapping = tuple(sorted(of_entity.items()))
        if self._turns is None or self._turns[0] != (key, mapping):
            ts: list[Turn] = []
            ends: list[tuple[float, float]] = []
            for start, tid, clip, kind, ent, end, text, clip_end, clip_start in self.rows:
                cid = of_entity.get(ent)
                if cid is not None:
                    ts.append(Turn(tid, clip, kind, ent, cid, start, end, text))
                    ends.append((clip_start, clip_end))
            self._turns = ((key, mapping), ts, ends)
        return self._turns[1], self._turns[2]

    @property
    def turns_key(self) -> tuple | None:
        """What the last turns() answer was read for (the rows' count and last id, the entity mapping)."""
        return self._turns[0] if self._turns is not None else None


_TURN_LOGS: weakref.WeakKeyDictionary[MemoryStore, _TurnLog] = weakref.WeakKeyDictionary()  # one per open store


def join_across_clips(turns: list[tuple[Turn, tuple[float, float]]]) -> list[Turn]:
    """Turns (in time order, each with its clip's start and end) with each utterance or appearance that was cut in
    two made one turn again:
    - by a clip boundary: a character's turn that runs to the end of its clip and their next turn of the same kind
      that starts the next clip (within ``EDGE_S`` of the edges, at most ``JOIN_GAP_S`` apart). Without this,
      somebody talking across the 30 s mark "spoke twice" and their sentence is two halves;
    - by the diarizer: two voice turns of one character that follow each other with no pause (at most
      ``PIECE_GAP_S``) and nobody else's voice between. A clip's diarizer may hear the two halves of one sentence as
      two voices (a sentence's sounds differ more than a voice print allows); when both voices are the same
      person's (each joined to the same face), that person said one sentence, not "set blue" and then "with e
      five now"."""
    out: list[Turn] = []
    running: dict[tuple[int, str], tuple[int, float]] = {}   # (character, kind) -> (index in out, its clip's end)
    last_voice: int | None = None                            # index in out of the latest voice turn
    for t, (clip_start, clip_end) in turns:
        key = (t.character_id, t.kind)
        edge = EDGE_S.get(t.kind, EDGE_S["voice"])
        prev = running.pop(key, None)
        joined = None
        if prev is not None:
            i, prev_clip_end = prev
            p = out[i]
            if (p.clip_id != t.clip_id and abs(clip_start - prev_clip_end) <= edge and t.start <= clip_start + edge
                    and t.start - p.end <= JOIN_GAP_S):
                joined = i
        if joined is None and t.kind == "voice" and last_voice is not None:
            p = out[last_voice]
            if p.character_id == t.character_id and p.clip_id == t.clip_id and -PIECE_GAP_S <= t.start - p.end \
                    <= PIECE_GAP_S:
                joined = last_voice
        if joined is not None:
            p = out[joined]
            text = " ".join(x for x in (p.text, t.text) if x) if t.kind == "voice" else p.text or t.text
            out[joined] = replace(p, end=max(p.end, t.end), text=text, part_ids=p.row_ids + (t.id,))
            if t.end >= clip_end - edge:
                running[key] = (joined, clip_end)
            continue
        out.append(t)
        if t.kind == "voice":
            last_voice = len(out) - 1
        if t.end >= clip_end - edge:
            running[key] = (len(out) - 1, clip_end)
    return out


def _words(text: str) -> str:
    from .perception.wer import normalize

    return " ".join(normalize(text))


class PeopleFacts:
    """The visible turns at one question time, grouped by character."""

    def __init__(self, store: MemoryStore, before_time: float | None = None) -> None:
        self.store, self.before_time = store, before_time
        chars = store.characters(before_time)
        log = _TURN_LOGS.get(store)
        if log is None:
            log = _TURN_LOGS[store] = _TurnLog()
        all_turns, clip_spans = log.turns(store, chars.of_entity)
        self._log = log
        cache_key = (log.turns_key, before_time)
        if log.joined is not None and log.joined[0] == cache_key:
            self.turns = log.joined[1]
        else:
            if before_time is None:
                visible = list(zip(all_turns, clip_spans, strict=True))
            else:
                bound = before_time + 1e-9
                visible = [(t, span) for t, span in zip(all_turns, clip_spans, strict=True) if span[1] <= bound]
            self.turns = join_across_clips(visible)
            log.joined = (cache_key, self.turns)
        self._chars = chars
        self._people: dict[int, Person] = {}
        for t in self.turns:
            p = self._people.get(t.character_id)
            if p is None:
                p = self._people[t.character_id] = Person(t.character_id, None)
            (p.turns if t.kind == "voice" else p.appearances).append(t)
        self._named: set[int] = set()
        self.timeline = store.timeline()

    def say(self, t: float) -> str:
        """A time as answers say it (m3_memory.timeline): wall clock on a live robot's memory, else mm:ss."""
        return self.timeline.say(t, self.timeline.now(self.before_time))

    def _name(self, p: Person) -> str | None:
        """Names are read only for the people an answer mentions (each read scans that person's memories)."""
        if p.character_id not in self._named:
            k = (self.before_time, p.character_id)
            if k not in self._log.names:
                self._log.names[k] = character_name(self.store, p.character_id, self.before_time)
            p.name = self._log.names[k]
            self._named.add(p.character_id)
        return p.name

    # -- reading ------------------------------------------------------------------------------------
    def people(self, t1: float | None = None, t2: float | None = None) -> list[Person]:
        """Everyone seen or heard in [t1, t2] (all time when open), in order of first appearance in the window;
        each Person holds only the turns inside the window."""
        out: dict[int, Person] = {}
        for t in self.between(t1, t2):
            p = out.get(t.character_id)
            if p is None:
                p = out[t.character_id] = Person(t.character_id, None)
            (p.turns if t.kind == "voice" else p.appearances).append(t)
        return list(out.values())

    def with_memories(self, turns: list[Turn]) -> list[Turn]:
        """The same turns with the ids of the memories written from them (read only for the turns an answer
        used, not for every visible turn)."""
        if not turns:
            return []
        mids = self.store.memories_of_turns(i for t in turns for i in t.row_ids)
        return [replace(t, memory_ids=tuple(dict.fromkeys(m for i in t.row_ids for m in mids.get(i, ()))))
                for t in turns]

    def person(self, character_id: int) -> Person | None:
        return self._people.get(character_id)

    def names(self) -> list[str]:
        """The names the people seen or heard by then are known by (given, or stated in memories)."""
        return [n for p in self._people.values() if (n := self._name(p))]

    def between(self, t1: float | None = None, t2: float | None = None, kind: str | None = None) -> list[Turn]:
        return [t for t in self.turns if in_window(t, t1, t2) and (kind is None or t.kind == kind)]

    def describe(self, character_id: int) -> str:
        p = self._people.get(character_id)
        if p is None:
            return "someone"
        self._name(p)
        return p.describe(self.say)

    # -- references -> characters -------------------------------------------------------------------
    def resolve(self, ref: str, min_score: float = 0.6) -> Resolution:
        ref = " ".join(str(ref).split())
        tags = find_tags(ref)
        if tags:
            kind, nid = tags[0]
            cid = self._chars.of_tag(kind, nid)
            if cid is not None and cid in self._people:
                return Resolution(cid, 1.0, "tag", self._people[cid].turns[:1] or self._people[cid].appearances[:1])
            return Resolution(None, 0.0, "none")
        # a reference by speech ("who said '...'", or more words than a name) is matched against transcripts
        # first; names are read only when it is not one, or when no transcript matches (each name read scans that
        # person's memories)
        lead = _LEAD.match(ref)
        by_speech = bool(_QUOTED.search(ref) or (lead and lead.group(0).strip()) or len(ref.split()) > 3)
        if by_speech:
            hit = self._by_speech(ref, min_score)
            return hit if hit.character_id is not None else self._by_name(ref) or hit
        return self._by_name(ref) or self._by_speech(ref, min_score)

    def _by_name(self, ref: str) -> Resolution | None:
        low = ref.lower()
        for cid, p in self._people.items():
            name = self._name(p)
            if name and re.search(rf"\b{re.escape(name.lower())}\b", low):
                return Resolution(cid, 1.0, "name", p.turns[:1] or p.appearances[:1])
        return None

    def _by_speech(self, ref: str, min_score: float) -> Resolution:
        said = self._said_part(ref)
        if not said:
            return Resolution(None, 0.0, "none")
        best: tuple[float, Turn | None] = (0.0, None)
        for t in self._speech_candidates(said):
            s = similarity(said, t.text)
            if s > best[0]:
                best = (s, t)
        score, turn = best
        if turn is None or score < min_score:
            return Resolution(None, score, "none")
        return Resolution(turn.character_id, score, "speech", [turn])

    @staticmethod
    def _said_part(ref: str) -> str:
        m = _QUOTED.search(ref)
        if m:
            return m.group(1)
        return _LEAD.sub("", ref).strip(" .?!\"'")

    def _speech_candidates(self, said: str) -> list[Turn]:
        voice = [t for t in self.turns if t.kind == "voice" and t.text]
        if len(voice) <= SCAN_LIMIT:
            return voice
        hits = {m.id for m in self.store.search_nodes(said, topk=200, before_time=self.before_time,
                                                      kinds=("episodic",))}
        if not hits:
            return []
        tids = self.store.turns_of_memories(hits)
        return [t for t in voice if not tids.isdisjoint(t.row_ids)]


def similarity(a: str, b: str) -> float:
    """Fuzzy match of two utterances after normalization (case, punctuation, digits as words): the better of the
    character-level ratio and the share of ``a``'s words found in ``b``; 1.0 when one contains the other."""
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return 0.0
    if wa in wb or wb in wa:
        return 1.0 if min(len(wa), len(wb)) >= 0.5 * max(len(wa), len(wb)) else 0.8
    ratio = difflib.SequenceMatcher(None, wa, wb, autojunk=False).ratio()
    ta, tb = wa.split(), set(wb.split())
    share = sum(w in tb for w in ta) / len(ta)
    return max(ratio, share)
