"""What the browser's pages show, read from the store: plain records for the templates.

Every page is a handful of SQL queries over whole tables or one page of clips, never one query per memory or per
person, so a page stays fast on a large store (``benchmarks/browser_bench.py``). Character references in memory
texts become :class:`Part` s that the templates turn into links to the person's page.
"""

from __future__ import annotations

import base64
import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from m3_memory import MemoryStore
from m3_memory.store.corrections import Link, edits, links
from m3_memory.store.retrieval import character_name
from m3_memory.store.where import load_places, where_text
from m3_memory.tags import TAG_RE, is_equivalence

FACE_KINDS = ("face_jpeg", "face_jpeg_b64")
MEDIA_KINDS = (*FACE_KINDS, "voice_wav")
CARD_FACES = 4          # thumbnails on a person's card
CLIP_COLS = "c.id, c.start_time, c.end_time, c.source, c.x, c.y, c.yaw, c.frame"   # the pose: m3_memory.store.where


@dataclass
class Part:
    """A piece of a memory text; ``character_id`` set where the piece names a person (rendered as a link)."""

    text: str
    character_id: int | None = None


class StatedNames:
    """Names stated in memories ("<voice_3>'s name is Anna"), per character, kept until the store changes: reading
    them scans each person's memories (:func:`m3_memory.store.retrieval.character_name`), too slow to redo for every
    page at 10k memories. Any write (a clip, a correction) moves the key and empties the cache."""

    def __init__(self) -> None:
        self.key: tuple = ()
        self.names: dict[int, str | None] = {}

    def current(self, store: MemoryStore) -> dict[int, str | None]:
        key = (*store.conn.execute("SELECT coalesce(max(seq), 0) FROM changes").fetchone(),
               *store.conn.execute("SELECT count(*), max(updated_at) FROM character_names").fetchone())
        if key != self.key:
            self.key, self.names = key, {}
        return self.names


class Naming:
    """Characters and their display names as of now, computed once per request."""

    def __init__(self, store: MemoryStore, stated: StatedNames | None = None) -> None:
        self.store = store
        self.chars = store.characters()
        self.set_names = store.character_names()
        self._stated = (stated or StatedNames()).current(store)

    def name(self, cid: int) -> str | None:
        if cid in self.set_names:
            return self.set_names[cid]
        if cid not in self._stated:
            self._stated[cid] = character_name(self.store, cid)
        return self._stated[cid]

    def name_source(self, cid: int) -> str | None:
        return "set" if cid in self.set_names else "stated" if self.name(cid) else None

    def label(self, cid: int) -> str:
        return self.name(cid) or f"character {cid}"

    def character_of_tag(self, kind: str, nid: int) -> int | None:
        return self.chars.of_tag(kind, nid)

    def parts(self, text: str) -> list[Part]:
        """``text`` with each tag replaced by its character (a link), unknown tags kept as written."""
        out: list[Part] = []
        pos = 0
        for m in TAG_RE.finditer(text or ""):
            cid = self.character_of_tag(m.group(1), int(m.group(2)))
            if cid is None:
                continue
            if m.start() > pos:
                out.append(Part(text[pos:m.start()]))
            out.append(Part(self.label(cid), cid))
            pos = m.end()
        if pos < len(text or ""):
            out.append(Part(text[pos:]))
        return out


# ---------------------------------------------------------------------------------------------- people
@dataclass
class PersonCard:
    id: int
    name: str | None
    name_source: str | None                       # set | stated | None
    members: list[tuple[str, int]]                # (face|voice, node id)
    faces: list[int] = field(default_factory=list)   # content ids of face crops, best first
    voice: int | None = None                      # content id of the voice sample
    voice_seconds: float | None = None
    first: float | None = None                    # stream seconds first / last seen or heard
    last: float | None = None
    heard: int = 0                                # voice turns
    seen: int = 0                                 # face appearances
    memories: int = 0                             # memories linked to the person (equivalences excluded)

    @property
    def label(self) -> str:
        return self.name or f"character {self.id}"

    @property
    def tags(self) -> str:
        return " ".join(f"<{k}_{n}>" for k, n in self.members)


def people(store: MemoryStore, naming: Naming) -> list[PersonCard]:
    """Every character with its media, first/last time, how often heard and seen; in order of first appearance."""
    conn = store.conn
    chars = naming.chars
    cards = {cid: PersonCard(cid, naming.name(cid), naming.name_source(cid), list(members))
             for cid, members in chars.members.items()}
    spans: dict[int, list[float]] = defaultdict(list)
    for nid, start, end in conn.execute("SELECT id, start_time, end_time FROM nodes WHERE type IN ('face', 'voice')"):
        spans[nid] = [start, end]
    turned: set[int] = set()
    for nid, kind, n, first, last in conn.execute(
            "SELECT entity_id, kind, count(*), min(start_time), max(end_time) FROM turns GROUP BY entity_id, kind"):
        cid = chars.character_of(nid)
        if cid is None:
            continue
        card = cards[cid]
        if kind == "voice":
            card.heard += n
        else:
            card.seen += n
        card.first = first if card.first is None else min(card.first, first)
        card.last = last if card.last is None else max(card.last, last)
        turned.add(cid)
    for cid, card in cards.items():   # no turn records (e.g. an imported store): the entity nodes' clip times
        if cid not in turned:
            times = [spans[n] for _, n in card.members if n in spans]
            starts = [t[0] for t in times if t[0] is not None]
            ends = [t[1] for t in times if t[1] is not None]
            card.first, card.last = (min(starts) if starts else None), (max(ends) if ends else None)
    for content_id, nid, kind, score in conn.execute(
            "SELECT id, node_id, kind, score FROM contents WHERE kind IN (?, ?, ?) "
            "ORDER BY node_id, coalesce(score, 0) DESC, id DESC", MEDIA_KINDS):
        cid = chars.character_of(nid)
        if cid is None:
            continue
        card = cards[cid]
        if kind == "voice_wav":
            if card.voice is None or (score or 0) > (card.voice_seconds or 0):
                card.voice, card.voice_seconds = content_id, score
        elif len(card.faces) < CARD_FACES:
            card.faces.append(content_id)
    for nid, n in conn.execute("SELECT e.entity_id, count(*) FROM edges e JOIN nodes n ON n.id = e.text_id "
                               "WHERE n.is_equivalence = 0 GROUP BY e.entity_id"):
        cid = chars.character_of(nid)
        if cid is not None:
            cards[cid].memories += n
    return sorted(cards.values(), key=lambda c: (c.first is None, c.first or 0.0, c.id))


@dataclass
class TurnRow:
    kind: str
    start: float
    end: float
    clip_id: int
    text: str
    language: str = ""       # of a voice turn's transcript (ISO 639-1), "" if unknown


@dataclass
class MemoryRow:
    id: int
    kind: str
    clip_id: int | None
    start: float | None
    end: float | None
    parts: list[Part]
    weight: float = 1.0
    score: float | None = None


@dataclass
class PersonPage:
    card: PersonCard
    all_faces: list[int]
    links: list[Link]
    memories: list[MemoryRow]
    turns: list[TurnRow]
    edits: list[dict[str, Any]]
    others: list[tuple[int, str]]                 # merge candidates: (character id, label)


def person(store: MemoryStore, naming: Naming, character_id: int, limit: int = 100) -> PersonPage | None:
    cid = naming.chars.resolve_alias(character_id)
    if cid is None:
        return None
    cards = people(store, naming)
    card = next(c for c in cards if c.id == cid)
    ids = [n for _, n in card.members]
    marks = ",".join("?" * len(ids))
    conn = store.conn
    faces = [r[0] for r in conn.execute(
        f"SELECT id FROM contents WHERE node_id IN ({marks}) AND kind IN (?, ?) ORDER BY coalesce(score, 0) DESC, "
        "id DESC", (*ids, *FACE_KINDS))]
    mems = [_memory_row(naming, r) for r in conn.execute(
        "SELECT DISTINCT n.id, n.type, n.clip_id, n.start_time, n.end_time, coalesce(n.text, ''), n.weight FROM "
        f"edges e JOIN nodes n ON n.id = e.text_id WHERE e.entity_id IN ({marks}) AND n.is_equivalence = 0 "
        "ORDER BY n.end_time DESC, n.id DESC LIMIT ?", (*ids, limit))]
    turns = [TurnRow(kind, start, end, clip, text or "", lang or "")
             for kind, start, end, clip, text, lang in conn.execute(
        f"SELECT kind, start_time, end_time, clip_id, text, language FROM turns WHERE entity_id IN ({marks}) "
        "ORDER BY start_time DESC, id DESC LIMIT ?", (*ids, limit))]
    log = [e for e in edits(store, 500) if e["character_id"] == cid
           or cid in (e["detail"].get("characters") or [])][:50]
    others = [(c.id, c.label) for c in cards if c.id != cid]
    return PersonPage(card, faces, links(store, cid), mems, turns, log, others)


def _memory_row(naming: Naming, r: tuple) -> MemoryRow:
    return MemoryRow(r[0], r[1], r[2], r[3], r[4], naming.parts(r[5]), r[6])


# ---------------------------------------------------------------------------------------------- timeline
@dataclass
class ClipPerson:
    character_id: int
    label: str
    appeared: bool = False
    said: list[str] = field(default_factory=list)


@dataclass
class ClipPose:
    x: float
    y: float
    yaw: float | None
    frame: str
    where: str                                    # a named place ("the kitchen") or the coordinates in words

    @property
    def yaw_deg(self) -> float | None:
        return None if self.yaw is None else math.degrees(self.yaw)


@dataclass
class ClipView:
    id: int
    start: float
    end: float
    source: str | None
    pose: ClipPose | None = None                  # where the robot was (the clip's middle), when recorded
    memories: list[MemoryRow] = field(default_factory=list)
    people: list[ClipPerson] = field(default_factory=list)


@dataclass
class TimelinePage:
    clips: list[ClipView]
    total: int                                    # clips matching the filter
    offset: int
    limit: int


def timeline(store: MemoryStore, naming: Naming, t1: float | None = None, t2: float | None = None,
             character_id: int | None = None, offset: int = 0, limit: int = 30) -> TimelinePage:
    """Clips in time order (those overlapping [t1, t2], with ``character_id`` in them when given), one page."""
    where, args = ["1 = 1"], []
    if t1 is not None:
        where.append("c.end_time >= ?")
        args.append(t1)
    if t2 is not None:
        where.append("c.start_time <= ?")
        args.append(t2)
    if character_id is not None:
        cid = naming.chars.resolve_alias(character_id)
        ids = [n for _, n in naming.chars.members.get(cid, [])] if cid is not None else []
        if not ids:
            return TimelinePage([], 0, offset, limit)
        marks = ",".join("?" * len(ids))
        where.append(f"(c.id IN (SELECT clip_id FROM turns WHERE entity_id IN ({marks})) OR c.id IN (SELECT n.clip_id "
                     f"FROM edges e JOIN nodes n ON n.id = e.text_id WHERE e.entity_id IN ({marks})))")
        args += ids + ids
    cond = " AND ".join(where)
    total = store.conn.execute(f"SELECT count(*) FROM clips c WHERE {cond}", args).fetchone()[0]
    rows = store.conn.execute(f"SELECT {CLIP_COLS} FROM clips c WHERE {cond} ORDER BY c.start_time, c.id "
                              "LIMIT ? OFFSET ?", (*args, limit, offset)).fetchall()
    return TimelinePage(clip_views(store, naming, rows), total, offset, limit)


def clip(store: MemoryStore, naming: Naming, clip_id: int) -> ClipView | None:
    rows = store.conn.execute(f"SELECT {CLIP_COLS} FROM clips c WHERE c.id = ?", (clip_id,)).fetchall()
    views = clip_views(store, naming, rows)
    return views[0] if views else None


def clip_views(store: MemoryStore, naming: Naming, rows: list[tuple]) -> list[ClipView]:
    """Clip rows (``CLIP_COLS``) with their memories and the people seen or heard in them."""
    places = load_places(store) if any(r[4] is not None for r in rows) else []
    views = {r[0]: ClipView(r[0], r[1], r[2], r[3], _pose(r, places)) for r in rows}
    if not views:
        return []
    marks = ",".join("?" * len(views))
    conn = store.conn
    for r in conn.execute(f"SELECT id, type, clip_id, start_time, end_time, coalesce(text, ''), weight FROM nodes "
                          f"WHERE clip_id IN ({marks}) AND type IN ('episodic', 'semantic') ORDER BY id", list(views)):
        if not is_equivalence(r[5]):
            views[r[2]].memories.append(_memory_row(naming, r))
    who: dict[int, dict[int, ClipPerson]] = defaultdict(dict)
    for clip_id, kind, nid, text in conn.execute(
            f"SELECT clip_id, kind, entity_id, text FROM turns WHERE clip_id IN ({marks}) ORDER BY start_time, id",
            list(views)):
        cid = naming.chars.character_of(nid)
        if cid is None:
            continue
        p = who[clip_id].get(cid) or who[clip_id].setdefault(cid, ClipPerson(cid, naming.label(cid)))
        if kind == "face":
            p.appeared = True
        elif text:
            p.said.append(text)
    for clip_id, view in views.items():   # people only mentioned in memories (no turn records)
        for m in view.memories:
            for part in m.parts:
                if part.character_id is not None and part.character_id not in who[clip_id]:
                    who[clip_id][part.character_id] = ClipPerson(part.character_id, part.text)
        view.people = list(who[clip_id].values())
    return [views[r[0]] for r in rows]


def _pose(row: tuple, places: list) -> ClipPose | None:
    x, y, yaw, frame = row[4:8]
    if x is None or y is None:
        return None
    return ClipPose(x, y, yaw, frame or "", where_text(places, x, y))


# ---------------------------------------------------------------------------------------------- search
@dataclass
class ClipResult:
    clip_id: int
    score: float
    start: float | None
    end: float | None
    memories: list[MemoryRow]


def search_memories(store: MemoryStore, naming: Naming, query: str, before: float | None,
                    topk: int) -> list[MemoryRow]:
    """Ranked memories (cosine score, best first) of clips that ended by ``before``; equivalences left out."""
    out = []
    for m in store.search_nodes(query, topk=topk, before_time=before):
        if is_equivalence(m.text):
            continue
        out.append(MemoryRow(m.id, m.kind, m.clip_id, m.start_time, m.end_time, naming.parts(m.text), m.weight,
                             m.score))
    return out


def search_clips(store: MemoryStore, naming: Naming, query: str, before: float | None,
                 topk: int) -> list[ClipResult]:
    """Ranked clips (best memory's score) with all their memories, as the control loop's clip search sees them."""
    out = []
    for hit in store.search_clips(query, topk=topk, threshold=0.0, before_time=before):
        mems = [MemoryRow(m.id, m.kind, m.clip_id, m.start_time, m.end_time, naming.parts(m.text), m.weight, m.score)
                for m in hit.memories if not is_equivalence(m.text)]
        start = min((m.start for m in mems if m.start is not None), default=None)
        end = max((m.end for m in mems if m.end is not None), default=None)
        out.append(ClipResult(hit.clip_id, hit.score, start, end, mems))
    return out


# ---------------------------------------------------------------------------------------------- media
def media(store: MemoryStore, content_id: int) -> tuple[bytes, str] | None:
    """A face crop (JPEG) or voice sample (WAV) by content id, with its media type; None when there is none."""
    row = store.conn.execute("SELECT kind, data, text FROM contents WHERE id = ? AND kind IN (?, ?, ?)",
                             (content_id, *MEDIA_KINDS)).fetchone()
    if row is None:
        return None
    kind, data, text = row
    if kind == "face_jpeg_b64":   # imported from an upstream pickle
        try:
            data = base64.b64decode(text or "", validate=True)
        except ValueError:
            return None
    if not data:
        return None
    return bytes(data), ("audio/wav" if kind == "voice_wav" else "image/jpeg")


def overview(store: MemoryStore) -> dict[str, Any]:
    """Counts for the page header."""
    counts = dict(store.conn.execute("SELECT type, count(*) FROM nodes GROUP BY type").fetchall())
    last = store.last_clip()
    return {"memories": counts.get("episodic", 0) + counts.get("semantic", 0), "clips": store.conn.execute(
        "SELECT count(*) FROM clips").fetchone()[0], "until": last[2] if last else None}
