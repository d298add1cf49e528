"""Retrieval over the memory graph: clips, nodes, entities, character names.

``search_clips`` follows upstream's ``retrieve_from_videograph`` + ``search``: the query is back-translated
(one variant per member tag of each ``<character_k>``), candidate text nodes are restricted to the
neighbours of the entities the query names (if any), a node scores the max cosine over the variants, a clip
scores the max over its nodes, clips below ``threshold`` are dropped and the ``topk`` best returned with
all their memories. Differences: already-seen clips are excluded *before* taking the top k (upstream let
them use up the slots), and the time bound filters inside the index (a row range of its time-ordered
segments) rather than after scoring.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from .records import ClipHit, Memory

if TYPE_CHECKING:
    from .memory_store import MemoryStore


def _candidates(store: MemoryStore, query: str, before_time: float | None) -> np.ndarray | None:
    """Text nodes adjacent to the entities the query names (sorted, unique); None when it names none."""
    related = store.entity_ids_in(query, before_time)
    if not related:
        return None
    marks = ",".join("?" * len(related))
    # one string instead of a row per memory (a person has ~35k at 1M memories: 3 ms instead of 9)
    ids = store.conn.execute(f"SELECT group_concat(text_id) FROM edges WHERE entity_id IN ({marks})",
                             related).fetchone()[0]
    return np.unique(np.array(ids.split(","), dtype=np.int64)) if ids else np.zeros(0, dtype=np.int64)


def _ranked_nodes(store: MemoryStore, query: str, k: int, before_time: float | None,
                  exclude_clips: set[int]) -> tuple[np.ndarray, np.ndarray, bool]:
    """(node ids, scores, exhaustive) best first."""
    with store._lock:
        index = store.index
        variants = store.query_variants(query, before_time)
        qv = store.embed_texts(variants)
        cands = _candidates(store, query, before_time)
        if cands is not None:
            kk = min(k, len(cands))
            ids, scores = index.search(qv, max(kk, 1), subset_ids=cands, before_time=before_time,
                                       exclude_clips=exclude_clips)
            return ids, scores, kk >= len(cands)
        # the time bound is a row range of the index (segments in time order), exclusions a filter on its results
        ids, scores = index.search(qv, k, before_time=before_time, exclude_clips=exclude_clips)
        return ids, scores, k >= len(index)


def search_clips(store: MemoryStore, query: str, topk: int, threshold: float, before_time: float | None,
                 exclude_clips: set[int]) -> list[ClipHit]:
    if topk <= 0:
        return []
    k = max(64, topk * 16)
    while True:
        ids, scores, exhaustive = _ranked_nodes(store, query, k, before_time, exclude_clips)
        best: dict[int, float] = {}
        for c, s in zip(store.index.clips_of(ids).tolist(), scores.tolist(), strict=True):
            if c >= 0 and c not in best:
                best[c] = s
        above = [c for c, s in best.items() if s >= threshold]
        if len(above) >= topk or exhaustive or (len(best) > len(above)):
            break
        k *= 4
    node_score = dict(zip(ids.tolist(), scores.tolist(), strict=True))
    hits = []
    for c in above[:topk]:
        mems = store.clip_memories(c)
        for m in mems:
            m.score = node_score.get(m.id)
        hits.append(ClipHit(clip_id=c, score=best[c], memories=mems))
    return hits


def search_nodes(store: MemoryStore, query: str, topk: int, before_time: float | None,
                 kinds: tuple[str, ...]) -> list[Memory]:
    """Top memories node by node (upstream's mem-wise mode, used for "character id" queries)."""
    if topk <= 0:
        return []
    k = topk * 4
    while True:
        ids, scores, exhaustive = _ranked_nodes(store, query, k, before_time, set())
        mems = store.get_memories(ids.tolist())
        score = dict(zip(ids.tolist(), scores.tolist(), strict=True))
        out = [m for m in mems if m.kind in kinds]
        if len(out) >= topk or exhaustive:
            break
        k *= 4
    for m in out:
        m.score = score[m.id]
    return out[:topk]


_NAME_PATTERNS = [
    re.compile(r"{tag}(?:'s)? (?:name is|is named|is called|introduces (?:himself|herself|themselves) as)"
               r" ([A-Z][\w-]+(?: [A-Z][\w-]+)?)"),
    re.compile(r"{tag} (?:says|said|states|mentions) (?:that )?(?:his|her|their) name is"
               r" ([A-Z][\w-]+(?: [A-Z][\w-]+)?)"),
    re.compile(r"{tag} is ([A-Z][a-z]+)\b(?=[.,]|$)"),
]


def character_name(store: MemoryStore, character_id: int, before_time: float | None = None) -> str | None:
    """The name of a character: an explicitly set name, else the most-supported name stated in memories."""
    chars = store.characters(before_time)
    cid = chars.resolve_alias(character_id)
    if cid is None:
        return None
    known = store.character_names().get(cid)  # a name given by a user holds at any question time
    if known:
        return known
    tags = chars.member_tags(cid)
    if not tags:
        return None
    marks = ",".join("?" * len(tags))
    ids = [m for _, m in chars.members[cid]]
    # only texts that can state a name (every pattern needs one of these words): SQLite filters, Python matches
    q = (f"SELECT DISTINCT n.text, n.weight FROM nodes n JOIN edges e ON e.text_id = n.id "
         f"WHERE e.entity_id IN ({marks}) AND (n.text LIKE '%name%' OR n.text LIKE '%called%' "
         f"OR n.text LIKE '%introduces%' OR n.text LIKE '% is %')")
    args: list = list(ids)
    if before_time is not None:
        q += " AND n.end_time <= ?"
        args.append(before_time + 1e-9)
    votes: Counter[str] = Counter()
    pats = [re.compile(p.pattern.format(tag=re.escape(tag))) for tag in tags + [f"<character_{cid}>"]
            for p in _NAME_PATTERNS]
    for text, weight in store.conn.execute(q, args):
        for pat in pats:
            for m in pat.finditer(text):
                votes[m.group(1)] += weight or 1.0
    return votes.most_common(1)[0][0] if votes else None


def characters_named(store: MemoryStore, name: str, before_time: float | None = None) -> list[int]:
    """Character ids whose (set or stated) name is ``name`` (case-insensitive)."""
    want = name.strip().lower()
    chars = store.characters(before_time)
    out = []
    for cid in chars.members:
        got = character_name(store, cid, before_time)
        if got and got.lower() == want:
            out.append(cid)
    return out
