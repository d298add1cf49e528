"""People corrections a person makes to the memory: merge two characters, split a wrong link, and the audit log.

Who is who comes from equivalence memories ("Equivalence: <face_3>, <voice_1>", see :mod:`m3_memory.characters`).
A correction is therefore an edit of those memories, so every reader (search, tools, the control loop, export)
sees it through the rules it already follows:

* **merge** (:func:`merge_characters`) writes one equivalence between the oldest member of each character, marked
  ``{"source": "user"}`` in ``nodes.extra`` and visible from the time both characters exist. The merged character
  keeps the older id; the younger id stays an alias. A split the user made earlier between the two is lifted.
* **split** (:func:`split_link`) deletes one equivalence memory (a *link*, listed by :func:`links`) and records
  every pair of entities it joined in ``entity_splits``. From then on an equivalence stating such a pair is refused
  when it is written (``ClipWriter`` checks :func:`split_between`), so the memorization of later clips does not
  join them again. Each part keeps its own smallest seed as its id (the part with the older seed keeps the name).
* **edits** (:func:`record_edit`, :func:`edits`): one audit row per correction (name, merge, split, forget) with
  ids and counts only, never a name, so a forget leaves no name behind in the log.

Limitation: a face or voice *node* that perception built from two people cannot be split here (that is one node,
not a link); forgetting it and letting memorization start again is the way out.
"""

from __future__ import annotations

import itertools
import json
import logging
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import StoreError, UnknownCharacterError
from ..tags import entity_tag, find_tags

if TYPE_CHECKING:
    from .memory_store import MemoryStore

log = logging.getLogger(__name__)

USER_SOURCE = "user"
EDIT_ACTIONS = ("name", "merge", "split", "forget")


@dataclass
class Link:
    """One equivalence memory joining entities of a character."""

    memory_id: int
    entities: list[tuple[str, int]]    # (kind, node id), as linked by the memory's edges
    clip_id: int | None
    time: float | None                 # when it became known (the memory's end time)
    weight: float
    source: str                        # "user" (a merge) or "memorization"
    # face=voice links from audio-visual evidence (store/av_links.py): confidence in [0, 1], seconds of credit
    # (speech while the face was alone on camera) and clips it came from; None for a user's merge or a model's
    confidence: float | None = None
    evidence_s: float | None = None
    evidence_clips: int | None = None

    @property
    def tags(self) -> list[str]:
        return [entity_tag(kind, nid) for kind, nid in self.entities]


def entity_pairs(ids: Iterable[int]) -> list[tuple[int, int]]:
    """Every two of ``ids`` as ``(smaller, larger)``: how ``entity_splits`` keeps a pair."""
    return list(itertools.combinations(sorted(set(ids)), 2))


def split_between(conn: sqlite3.Connection, entity_ids: Sequence[int]) -> bool:
    """True when a user split any two of ``entity_ids`` apart (an equivalence joining them must be refused)."""
    pairs = entity_pairs(entity_ids)
    if not pairs:
        return False
    where = " OR ".join("(entity_a = ? AND entity_b = ?)" for _ in pairs)
    return conn.execute(f"SELECT 1 FROM entity_splits WHERE {where} LIMIT 1",
                        [x for p in pairs for x in p]).fetchone() is not None


def links(store: MemoryStore, character_id: int) -> list[Link]:
    """The equivalence memories (with positive edges) that join the members of a character, oldest first."""
    chars = store.characters()
    cid = chars.resolve_alias(character_id)
    if cid is None:
        return []
    members = {nid: kind for kind, nid in chars.members[cid]}
    marks = ",".join("?" * len(members))
    rows = store.conn.execute(
        "SELECT n.id, n.clip_id, n.end_time, n.weight, n.extra, e.entity_id FROM edges e JOIN nodes n ON "
        f"n.id = e.text_id WHERE n.is_equivalence = 1 AND e.weight > 0 AND e.entity_id IN ({marks}) "
        "ORDER BY n.end_time, n.id, e.entity_id", list(members)).fetchall()
    out: dict[int, Link] = {}
    for mid, clip, end, weight, extra, eid in rows:
        link = out.get(mid)
        if link is None:
            link = out[mid] = Link(mid, [], clip, end, weight, _source(extra))
        link.entities.append((members[eid], eid))
    found = [link for link in out.values() if len(link.entities) > 1]
    for link in found:
        faces = [nid for kind, nid in link.entities if kind == "face"]
        voices = [nid for kind, nid in link.entities if kind == "voice"]
        if len(faces) == 1 and len(voices) == 1:
            row = store.conn.execute("SELECT confidence, overlap_s, clips FROM av_evidence WHERE face_id = ? AND "
                                     "voice_id = ?", (faces[0], voices[0])).fetchone()
            if row is not None and row[0] is not None:
                link.confidence, link.evidence_s, link.evidence_clips = float(row[0]), round(row[1], 2), int(row[2])
    return found


def _source(extra: str | None) -> str:
    try:
        val = json.loads(extra) if extra else {}
    except ValueError:
        return "memorization"
    return str(val.get("source", "memorization")) if isinstance(val, dict) else "memorization"


def merge_characters(store: MemoryStore, a: int, b: int, origin: str = "") -> int:
    """Join characters ``a`` and ``b`` (ids or aliases); returns the merged character's id (the older one)."""
    from .forget import NEEDS_REEMBED

    store.require_writable()
    chars = store.characters()
    ca, cb = chars.resolve_alias(a), chars.resolve_alias(b)
    for asked, got in ((a, ca), (b, cb)):
        if got is None:
            raise UnknownCharacterError(f"unknown character {asked}")
    assert ca is not None and cb is not None
    if ca == cb:
        raise StoreError(f"characters {a} and {b} are already one character ({ca})")
    oldest = [min(chars.members[c], key=lambda m: chars.seed_of[m[1]]) for c in (ca, cb)]
    text = "Equivalence: " + ", ".join(entity_tag(kind, nid) for kind, nid in oldest)
    vector: bytes | None = None
    try:
        vector = store.embed_texts([text], writing=True)[0].astype("float32").tobytes()
    except Exception as e:  # a store made by another embedder: the link still counts (equivalences are hidden)
        log.warning("merge: no vector for the new equivalence (%s); marked %r", e, NEEDS_REEMBED)
    ids = [nid for _, nid in oldest]
    with store.transaction() as conn:
        clip, start = conn.execute(
            f"SELECT clip_id, start_time FROM nodes WHERE id IN ({','.join('?' * len(ids))}) "
            "ORDER BY start_time DESC LIMIT 1", ids).fetchone()
        all_ids = [nid for c in (ca, cb) for _, nid in chars.members[c]]
        lifted = entity_pairs(all_ids)
        conn.executemany("DELETE FROM entity_splits WHERE entity_a = ? AND entity_b = ?", lifted)
        extra = {"source": USER_SOURCE} if vector is not None else {"source": USER_SOURCE, NEEDS_REEMBED: True}
        cur = conn.execute(
            "INSERT INTO nodes (type, clip_id, start_time, end_time, text, is_equivalence, created_at, extra) "
            "VALUES ('semantic', ?, ?, ?, ?, 1, ?, ?)", (clip, start, start, text, time.time(), json.dumps(extra)))
        nid = int(cur.lastrowid)  # type: ignore[arg-type]
        if vector is not None:
            conn.execute("INSERT INTO embeddings (node_id, clip_id, vector) VALUES (?, ?, ?)", (nid, clip, vector))
        conn.executemany("INSERT INTO edges (text_id, entity_id, weight) VALUES (?, ?, 1.0)", [(nid, e) for e in ids])
        store._log(nid, "add")
        store._log(nid, "eq")
    merged = min(ca, cb)
    record_edit(store, "merge", merged, {"characters": [ca, cb], "link": nid}, origin)
    log.info("merge: characters %d and %d are now %d (equivalence memory %d, %s)", ca, cb, merged, nid, origin)
    return merged


def name_character(store: MemoryStore, character_id: int, name: str, origin: str = "") -> int:
    """Set a character's name (:meth:`MemoryStore.set_character_name`) and log the edit (without the name)."""

    cid = store.characters().resolve_alias(character_id)
    if cid is None:
        raise UnknownCharacterError(f"unknown character {character_id}")
    store.set_character_name(cid, name)
    record_edit(store, "name", cid, {"characters": [cid]}, origin)
    log.info("name: character %d named (%s)", cid, origin)
    return cid


def split_link(store: MemoryStore, memory_id: int, origin: str = "") -> list[int]:
    """Delete the equivalence memory ``memory_id`` and refuse its pairs from now on; returns the characters its
    entities belong to afterwards."""

    store.require_writable()
    with store.transaction() as conn:
        row = conn.execute("SELECT is_equivalence, coalesce(text, '') FROM nodes WHERE id = ? AND type = 'semantic'",
                           (memory_id,)).fetchone()
        if row is None or not row[0]:
            raise StoreError(f"memory {memory_id} is not a link (an equivalence memory)")
        ents = {r[0] for r in conn.execute("SELECT entity_id FROM edges WHERE text_id = ?", (memory_id,))}
        tagged = [nid for kind, nid in find_tags(row[1]) if kind in ("face", "voice")]
        ents |= {r[0] for r in conn.execute(
            f"SELECT id FROM nodes WHERE id IN ({','.join('?' * len(tagged))}) AND type IN ('face', 'voice')",
            tagged)} if tagged else set()
        pairs = entity_pairs(ents)
        now = time.time()
        conn.executemany("INSERT OR IGNORE INTO entity_splits (entity_a, entity_b, created_at) VALUES (?, ?, ?)",
                         [(x, y, now) for x, y in pairs])
        # the same statement may exist more than once (another wording, another writer): every equivalence that
        # joins a pair split now goes
        doomed = [memory_id]
        if ents:
            others = {r[0] for r in conn.execute(
                "SELECT DISTINCT e.text_id FROM edges e JOIN nodes n ON n.id = e.text_id WHERE n.is_equivalence = 1 "
                f"AND e.text_id != ? AND e.entity_id IN ({','.join('?' * len(ents))})", (memory_id, *ents))}
            for other in sorted(others):
                joined = [r[0] for r in conn.execute("SELECT entity_id FROM edges WHERE text_id = ?", (other,))]
                if split_between(conn, joined):
                    doomed.append(other)
        conn.executemany("DELETE FROM nodes WHERE id = ?", [(n,) for n in doomed])
        for n in doomed:
            store._log(n, "del")
            store._log(n, "eq")
    chars = store.characters()
    after = sorted({c for e in ents if (c := chars.character_of(e)) is not None})
    record_edit(store, "split", after[0] if after else None,
                {"link": memory_id, "deleted": doomed, "entities": sorted(ents), "characters": after}, origin)
    log.info("split: link %d removed (%d memories), entities %s are now characters %s (%s)", memory_id,
             len(doomed), sorted(ents), after, origin)
    return after


def record_edit(store: MemoryStore, action: str, character_id: int | None, detail: dict[str, Any],
                origin: str = "") -> int:
    """Append one audit row (ids and counts only: callers never put a name in ``detail``)."""
    if action not in EDIT_ACTIONS:
        raise ValueError(f"unknown edit action {action!r} ({', '.join(EDIT_ACTIONS)})")
    with store.transaction() as conn:
        cur = conn.execute("INSERT INTO edits (at, action, character_id, detail, origin) VALUES (?, ?, ?, ?, ?)",
                           (time.time(), action, character_id, json.dumps(detail, default=str), origin or None))
        return int(cur.lastrowid)  # type: ignore[arg-type]


def edits(store: MemoryStore, limit: int = 100) -> list[dict[str, Any]]:
    """The newest audit rows first."""
    rows = store.conn.execute("SELECT id, at, action, character_id, detail, origin FROM edits ORDER BY id DESC "
                              "LIMIT ?", (int(limit),)).fetchall()
    return [{"id": r[0], "at": r[1], "action": r[2], "character_id": r[3],
             "detail": json.loads(r[4]) if r[4] else {}, "origin": r[5] or ""} for r in rows]
