"""Plain JSON dump of a memory database (for inspection, diffing, other tools).

The dump is read from one consistent snapshot (a read transaction; a writer may keep committing meanwhile)::

    {"format": "m3-memory-export", "version": 1, "exported_at": ..., "db": ...,
     "meta":       {key: value},                      # schema version, embedder, counters, ...
     "clips":      [{id, start_time, end_time, source, committed_at, extra}],
     "nodes":      [{id, type, clip_id, start_time, end_time, created_at, extra, ...}],
                   #  face/voice: seed, character_id, n_embeddings
                   #  episodic/semantic: text, translated, is_equivalence, weight, entities, character_ids
                   #  with include_vectors: "vectors" (list of float lists; one for a text node)
     "edges":      [{text_id, entity_id, weight}],
     "characters": [{id, members: ["<face_1>", ...], name, n_memories}],
     "contents":   [{id, node_id, kind, clip_id, score, text, data_bytes[, data_base64]}]}

Character ids and translations follow the store's rules (:mod:`m3_memory.characters`); binary contents
(voice WAVs, raw JPEG bytes) are only included, base64-encoded, with ``include_blobs``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ..characters import Characters, resolve
from ..tags import character_tag, entity_tag, find_tags, is_equivalence, replace_tags

if TYPE_CHECKING:
    from .memory_store import MemoryStore

EXPORT_FORMAT = "m3-memory-export"
EXPORT_VERSION = 1


@contextlib.contextmanager
def snapshot(store: MemoryStore) -> Iterator[sqlite3.Connection]:
    """A read transaction on the store's connection: every query inside sees the same committed state."""
    with store._lock:
        store.conn.execute("BEGIN")
        try:
            yield store.conn
        finally:
            store.conn.execute("COMMIT")


def characters_from(conn: sqlite3.Connection) -> tuple[Characters, dict[int, str]]:
    """Characters and their set names, computed from the tables (as ``MemoryStore.characters`` does)."""
    ents = conn.execute("SELECT id, type, character_seed FROM nodes WHERE type IN ('face', 'voice')").fetchall()
    groups: dict[int, list[int]] = {}
    # from the few equivalence nodes (their partial index) to their edges, not a scan of every edge
    for tid, eid in conn.execute(
            "SELECT e.text_id, e.entity_id FROM nodes n CROSS JOIN edges e ON e.text_id = n.id "
            "WHERE n.is_equivalence = 1 AND e.weight > 0 ORDER BY e.text_id, e.entity_id"):
        groups.setdefault(tid, []).append(eid)
    chars = resolve(ents, groups.values())
    by_seed = dict(conn.execute("SELECT seed, name FROM character_names").fetchall())
    names: dict[int, str] = {}
    for cid, members in chars.members.items():
        for seed in sorted(chars.seed_of[m] for _, m in members):
            if seed in by_seed:
                names[cid] = by_seed[seed]
                break
    return chars, names


def character_rows(conn: sqlite3.Connection, chars: Characters, names: dict[int, str]) -> list[dict]:
    """One row per character: id, member tags, set name, number of memories linked to its members."""
    linked: dict[int, set[int]] = {}
    for tid, eid in conn.execute("SELECT e.text_id, e.entity_id FROM edges e JOIN nodes n ON n.id = e.text_id "
                                 "WHERE n.is_equivalence = 0"):
        cid = chars.character_of(eid)
        if cid is not None:
            linked.setdefault(cid, set()).add(tid)
    return [{"id": cid, "members": chars.member_tags(cid), "name": names.get(cid),
             "n_memories": len(linked.get(cid, ()))} for cid in sorted(chars.members)]


def translate_with(chars: Characters, text: str) -> str:
    """``<face_N>``/``<voice_N>`` -> ``<character_k>``; equivalence statements -> "" (as the store's translate)."""
    if is_equivalence(text):
        return ""

    def fn(kind: str, nid: int) -> str | None:
        cid = chars.character_of(nid) if kind != "character" else chars.resolve_alias(nid)
        return None if cid is None else character_tag(cid)

    return replace_tags(text, fn)


def _json_or_none(s: str | None) -> Any:
    if s is None:
        return None
    try:
        return json.loads(s)
    except ValueError:
        return s


def _vectors(blobs: list[bytes]) -> list[list[float]]:
    return [np.frombuffer(b, dtype=np.float32).astype(float).tolist() for b in blobs]


def build_export(store: MemoryStore, include_vectors: bool = False, include_blobs: bool = False) -> dict:
    """The export document (see the module docstring) as a dict."""
    with snapshot(store) as conn:
        chars, names = characters_from(conn)
        meta = dict(conn.execute("SELECT key, value FROM meta ORDER BY key").fetchall())
        clips = [{"id": r[0], "start_time": r[1], "end_time": r[2], "source": r[3], "committed_at": r[4],
                  "extra": _json_or_none(r[5])}
                 for r in conn.execute("SELECT id, start_time, end_time, source, committed_at, extra FROM clips "
                                       "ORDER BY id")]
        edges = [{"text_id": t, "entity_id": e, "weight": w}
                 for t, e, w in conn.execute("SELECT text_id, entity_id, weight FROM edges ORDER BY text_id, "
                                             "entity_id")]
        ents_of: dict[int, list[int]] = {}
        for e in edges:
            ents_of.setdefault(e["text_id"], []).append(e["entity_id"])
        vecs: dict[int, list[bytes]] = {}
        n_emb: dict[int, int] = {}
        if include_vectors:
            for nid, blob in conn.execute("SELECT node_id, vector FROM embeddings ORDER BY node_id, id"):
                vecs.setdefault(nid, []).append(blob)
        else:
            n_emb = dict(conn.execute("SELECT node_id, count(*) FROM embeddings GROUP BY node_id").fetchall())
        nodes = []
        for (nid, kind, clip_id, start, end, text, is_eq, weight, seed, created, extra) in conn.execute(
                "SELECT id, type, clip_id, start_time, end_time, text, is_equivalence, weight, character_seed, "
                "created_at, extra FROM nodes ORDER BY id"):
            node: dict[str, Any] = {"id": nid, "type": kind, "clip_id": clip_id, "start_time": start,
                                    "end_time": end, "created_at": created, "extra": _json_or_none(extra)}
            if kind in ("face", "voice"):
                node.update(tag=entity_tag(kind, nid), seed=seed, character_id=chars.character_of(nid),
                            n_embeddings=len(vecs[nid]) if include_vectors and nid in vecs else n_emb.get(nid, 0))
            else:
                ents = ents_of.get(nid, [])
                cids = [chars.character_of(e) for e in ents]
                node.update(text=text, translated=translate_with(chars, text or ""), is_equivalence=bool(is_eq),
                            weight=weight, entities=ents,
                            character_ids=list(dict.fromkeys(c for c in cids if c is not None)),
                            tags=[entity_tag(k, i) for k, i in find_tags(text or "")])
            if include_vectors:
                node["vectors"] = _vectors(vecs.get(nid, []))
            nodes.append(node)
        contents = []
        for cid_, node_id, kind, clip_id, score, text, data in conn.execute(
                "SELECT id, node_id, kind, clip_id, score, text, data FROM contents ORDER BY node_id, id"):
            item: dict[str, Any] = {"id": cid_, "node_id": node_id, "kind": kind, "clip_id": clip_id,
                                    "score": score, "text": text, "data_bytes": None if data is None else len(data)}
            if include_blobs and data is not None:
                item["data_base64"] = base64.b64encode(data).decode("ascii")
            contents.append(item)
        characters = character_rows(conn, chars, names)
    return {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "exported_at": time.time(),
            "db": store.location, "include_vectors": include_vectors, "include_blobs": include_blobs,
            "meta": meta, "clips": clips, "nodes": nodes, "edges": edges, "characters": characters,
            "contents": contents}


def export_json(store: MemoryStore, path_or_file: str | Path | IO[str], include_vectors: bool = False,
                include_blobs: bool = False, indent: int | None = 1) -> dict[str, int]:
    """Write the export to a path (atomically: temp file + rename) or an open text file; return counts."""
    doc = build_export(store, include_vectors=include_vectors, include_blobs=include_blobs)
    if isinstance(path_or_file, (str, Path)):
        path = Path(path_or_file)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(doc, f, ensure_ascii=False, indent=indent)
                f.write("\n")
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    else:
        json.dump(doc, path_or_file, ensure_ascii=False, indent=indent)
        path_or_file.write("\n")
    return {k: len(doc[k]) for k in ("clips", "nodes", "edges", "characters", "contents")}
