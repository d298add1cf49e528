"""One clip's writes: face / voice nodes, episodic and semantic memories, edges and equivalences, inside the clip's
transaction. Obtained from :meth:`m3_memory.store.MemoryStore.begin_clip`; part of the store (it uses the store's
private bookkeeping: change log, writer cache, seeds, edge weights)."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..characters import resolve
from ..embedders import normalize_rows
from ..errors import StoreError
from ..poses import Pose
from ..tags import find_tags, is_equivalence
from . import av_links
from .corrections import entity_pairs
from .records import ENTITY_KINDS, TEXT_KINDS, InsertResult

if TYPE_CHECKING:
    from ..writing.base import ClipEvidence
    from .memory_store import MemoryStore

log = logging.getLogger("m3_memory.store")


def blob(vec: np.ndarray) -> bytes:
    """A vector as the float32 bytes the store keeps."""
    return np.ascontiguousarray(vec, dtype=np.float32).tobytes()


_blob = blob


class ClipWriter:
    """Adds nodes inside one clip transaction. Obtain it from :meth:`MemoryStore.begin_clip`."""

    def __init__(self, store: MemoryStore, clip_id: int, start_time: float, end_time: float) -> None:
        self.store = store
        self.conn = store.conn
        self.clip_id = clip_id
        self.start_time = start_time
        self.end_time = end_time
        self.node_ids: list[int] = []
        self.extra: dict = {}   # stored as the clip row's extra JSON at commit (e.g. processing timings)
        self.cache = store._wcache
        self.cache.validate(self.conn, store._tx)  # (a writer lives inside one transaction)
        self._changes: list[tuple[int, str]] | None = None  # begin_clip buffers the change log until its commit
        self._seen: dict[int, None] = {}   # ... and the faces / voices seen in the clip (their end_time)
        self.clip_pose: Pose | None = None  # a poses.Pose stored with the clip row at commit (m3_memory.store.where)
        self._next_id: dict[str, int] = {}  # table -> the next id this transaction gives (see _new_ids)

    def _new_ids(self, table: str, n: int) -> list[int]:
        """Ids for ``n`` new rows of ``nodes`` / ``embeddings`` / ``turns``: on SQLite the ones it would give them
        one by one (max(id) + 1, ...; the clip's transaction holds the write lock), read once per transaction; on
        PostgreSQL, where robots write at once, reserved from the table's sequence. Written with their ids, rows need
        no read back (``lastrowid``), which on PostgreSQL would wait for the server. Every row the writer adds to
        these tables takes its id from here (a row given its id by the database meanwhile would be the id handed
        out next)."""
        if self.store.engine == "postgresql":
            return self.conn.reserve_ids(table, n)  # type: ignore[attr-defined]
        first = self._next_id.get(table)
        if first is None:
            first = int(self.conn.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchone()[0])
        self._next_id[table] = first + n
        return list(range(first, first + n))

    def _given_id(self, table: str, row_id: int) -> int:
        """A row written with an id of the caller's (an import): later new ids go on after it."""
        if self.store.engine == "postgresql":
            self.conn.skip_ids_through(table, int(row_id))  # type: ignore[attr-defined]
            return int(row_id)
        if table in self._next_id:
            self._next_id[table] = max(self._next_id[table], int(row_id) + 1)
        return int(row_id)

    def _log(self, node_id: int, op: str) -> None:
        if self._changes is None:
            self.store._log(node_id, op)
        else:
            self._changes.append((node_id, op))

    def _flush_changes(self) -> int:
        """Write the clip's change log and its faces' and voices' last times (under the write lock); returns how
        many changes it logged."""
        if self._seen:
            self.conn.executemany("UPDATE nodes SET end_time = max(coalesce(end_time, 0), ?) WHERE id = ?",
                                  [(self.end_time, n) for n in self._seen])
            self._seen = {}
        n = len(self._changes or ())
        if self._changes:
            self.conn.executemany("INSERT INTO changes (node_id, op) VALUES (?, ?)", self._changes)
        self._changes = None
        return n

    # -------------------------------------------------------------- entities (faces, voices)
    def _cap(self, kind: str) -> int:
        c = self.store.config
        return c.max_face_embeddings if kind == "face" else c.max_voice_embeddings

    def _check_entity_kind(self, kind: str) -> None:
        if kind not in ENTITY_KINDS:
            raise StoreError(f"entity kind must be one of {ENTITY_KINDS}, got {kind!r}")

    def serialize(self) -> bool:
        """From here to its commit the clip holds the write lock, and its caches hold what others committed before:
        for decisions two robots must not make at the same time (a new person, face-voice evidence). True when it
        took the lock now; a no-op on SQLite (one writer) and once the lock is held."""
        take = getattr(self.conn, "take_write_lock", None)
        if take is None or not take():
            return False
        self.cache.catch_up(self.conn)
        return True

    # -- face-voice evidence (av_links.py) --------------------------------------------------------------
    def record_av_evidence(self, ev: ClipEvidence, p: av_links.AVParams) -> set[int]:
        """This clip's speech and face credit, added to the store's evidence; returns the voices heard."""
        self.serialize()   # evidence sums and the links decided from them: one robot at a time
        return av_links.record_clip(self.conn, ev, p, self.store.robot)

    def av_links_now(self, heard: Sequence[int], p: av_links.AVParams, same_speaker: float) -> list[av_links.AVLink]:
        """The face-voice links the store's evidence supports now, for the voices heard in this clip."""
        return av_links.decide(self.conn, self.clip_id, heard, p, same_speaker)

    def linked_entities(self, node_id: int, kind: str) -> set[int]:
        """Entities of ``kind`` joined to ``node_id`` by an equivalence memory (a direct link)."""
        return {int(r[0]) for r in self.conn.execute(
            "SELECT DISTINCT e2.entity_id FROM edges e1 JOIN nodes n ON n.id = e1.text_id AND n.is_equivalence = 1 "
            "JOIN edges e2 ON e2.text_id = n.id JOIN nodes x ON x.id = e2.entity_id AND x.type = ? "
            "WHERE e1.entity_id = ? AND e1.weight > 0 AND e2.weight > 0 AND e2.entity_id != ?",
            (kind, node_id, node_id))}

    def add_entity(self, kind: str, embeddings: np.ndarray, contents: Sequence[str | bytes] = (),
                   content_kind: str | None = None, scores: Sequence[float] | None = None,
                   node_id: int | None = None) -> int:
        """A new face/voice node with its first embeddings (capped) and contents (crops / voice turns)."""
        self._check_entity_kind(kind)
        self.serialize()   # a new person: one robot at a time (match_entity took the lock before deciding)
        embs = normalize_rows(embeddings)
        nid = self._new_ids("nodes", 1)[0] if node_id is None else self._given_id("nodes", node_id)
        self.conn.execute(
            "INSERT INTO nodes (id, type, clip_id, start_time, end_time, character_seed, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (nid, kind, self.clip_id, self.start_time, self.end_time, self.store._next_seed(), time.time()))
        self.cache.entity_added(nid, kind)
        self._log(nid, "add")
        self._store_embeddings(nid, embs, self._cap(kind), kind)
        self._store_contents(nid, kind, contents, content_kind, scores)
        self.node_ids.append(nid)
        return nid

    def update_entity(self, node_id: int, embeddings: np.ndarray | None = None,
                      contents: Sequence[str | bytes] = (), content_kind: str | None = None,
                      scores: Sequence[float] | None = None) -> None:
        kind = self.cache.entity_kind(self.conn, node_id)
        if kind is None:
            raise StoreError(f"node {node_id} is not a face/voice node")
        if embeddings is not None and len(embeddings):
            embs = normalize_rows(embeddings)
            self._store_embeddings(node_id, embs, self._cap(kind), kind)
        self._store_contents(node_id, kind, contents, content_kind, scores)
        if self._changes is not None:   # in begin_clip: one statement for the clip's faces and voices, at its commit
            self._seen.setdefault(node_id)
        else:
            self.conn.execute("UPDATE nodes SET end_time = max(coalesce(end_time, 0), ?) WHERE id = ?",
                              (self.end_time, node_id))
        self._log(node_id, "upd")
        if node_id not in self.node_ids:
            self.node_ids.append(node_id)

    def _store_embeddings(self, node_id: int, embs: np.ndarray, cap: int, kind: str | None = None) -> None:
        embs = np.ascontiguousarray(embs, dtype=np.float32)
        if kind is not None:  # the node's embeddings are in the writer cache: no read back
            ids_arr, mat = self.cache.entity_embeddings(self.conn, kind, node_id)
            if len(ids_arr) and mat.shape[1] != embs.shape[1]:
                raise StoreError(f"node {node_id}: embedding dim {embs.shape[1]} != stored {mat.shape[1]}")
        else:
            old = self.conn.execute("SELECT length(vector) FROM embeddings WHERE node_id = ? LIMIT 1",
                                    (node_id,)).fetchone()
            if old and old[0] != 4 * embs.shape[1]:
                raise StoreError(f"node {node_id}: embedding dim {embs.shape[1]} != stored {old[0] // 4}")
        new_ids = self._new_ids("embeddings", len(embs))
        self.conn.executemany("INSERT INTO embeddings (id, node_id, clip_id, vector) VALUES (?, ?, ?, ?)",
                              [(i, node_id, self.clip_id, _blob(vec)) for i, vec in zip(new_ids, embs, strict=True)])
        if kind is not None:
            ids = [*ids_arr.tolist(), *new_ids]
            mat = np.concatenate([mat.reshape(len(ids_arr), embs.shape[1]), embs])
        else:
            rows = self.conn.execute("SELECT id, vector FROM embeddings WHERE node_id = ? ORDER BY id",
                                     (node_id,)).fetchall()
            ids = [r[0] for r in rows]
            mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        if len(ids) <= cap:
            if kind is not None:
                self.cache.entity_updated(kind, node_id, np.array(ids, dtype=np.int64), mat)
            return
        # Over the cap: repeatedly drop the most redundant vector (highest cosine to the node mean),
        # which keeps the node's spread of poses/conditions. Deterministic, unlike upstream's random.sample.
        keep = list(range(len(ids)))
        while len(keep) > cap:
            sub = mat[keep]
            mean = sub.mean(axis=0)
            drop = keep[int(np.argmax(sub @ mean))]
            keep.remove(drop)
        dropped = [ids[i] for i in range(len(ids)) if i not in set(keep)]
        self.conn.executemany("DELETE FROM embeddings WHERE id = ?", [(i,) for i in dropped])
        if kind is not None:
            self.cache.entity_updated(kind, node_id, np.array(ids, dtype=np.int64)[keep], mat[keep])

    def _store_contents(self, node_id: int, kind: str, contents: Sequence[str | bytes], content_kind: str | None,
                        scores: Sequence[float] | None) -> None:
        if not contents:
            return
        ck = content_kind or ("face_jpeg" if kind == "face" else "voice_asr")
        scores = list(scores) if scores is not None else [None] * len(contents)
        if len(scores) != len(contents):
            raise StoreError("scores must match contents")
        for item, score in zip(contents, scores, strict=True):
            text, data = (item, None) if isinstance(item, str) else (None, bytes(item))
            self.conn.execute("INSERT INTO contents (node_id, kind, clip_id, score, text, data) VALUES (?,?,?,?,?,?)",
                              (node_id, ck, self.clip_id, score, text, data))
        c = self.store.config
        cap = {"face_jpeg": c.max_face_crops, "voice_wav": c.max_voice_snippets}.get(ck, c.max_contents_per_entity)
        # keep the best-scored (then newest) contents per kind
        self.conn.execute(
            "DELETE FROM contents WHERE node_id = ? AND kind = ? AND id NOT IN (SELECT id FROM contents WHERE "
            "node_id = ? AND kind = ? ORDER BY coalesce(score, 0) DESC, id DESC LIMIT ?)",
            (node_id, ck, node_id, ck, cap))

    def match_entity(self, kind: str, embeddings: np.ndarray, threshold: float | None = None
                     ) -> tuple[int | None, float]:
        """Best existing node of ``kind`` by mean pairwise cosine (upstream rule); (None, best) below threshold."""
        c = self.store.config
        thr = threshold if threshold is not None else (c.face_match_threshold if kind == "face"
                                                       else c.voice_match_threshold)
        for _ in range(2):
            nodes, per_node = self.entity_scores(kind, embeddings)
            best = int(np.argmax(per_node)) if len(nodes) else -1
            score = float(per_node[best]) if len(nodes) else 0.0
            if score >= thr:
                return int(nodes[best]), score
            # a new person? Decided under the write lock, with what other robots committed meanwhile (on
            # PostgreSQL; two robots meeting one person at once make one node, as one after the other would)
            if not self.serialize():
                break
        return None, score

    def entity_scores(self, kind: str, embeddings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(node ids, score of each) of every ``kind`` node with embeddings: the mean pairwise cosine of
        ``embeddings`` against the node's stored embeddings (upstream's matching rule)."""
        self._check_entity_kind(kind)
        embs = normalize_rows(embeddings)
        # the mean of every node's stored embeddings (kept in memory by the writer cache): the mean cosine over
        # a node's rows and the probes is the dot product of the two means
        nodes, means = self.cache.entity_means(self.conn, kind)
        if not len(nodes):
            return nodes, np.zeros(0, dtype=np.float64)
        if means.shape[1] != embs.shape[1]:
            raise StoreError(f"{kind} embedding dim {embs.shape[1]} != stored {means.shape[1]}")
        return nodes, means @ embs.mean(axis=0, dtype=np.float64)

    # -------------------------------------------------------------- memories (episodic, semantic)
    def add_memory(self, text: str, kind: str = "episodic", vector: np.ndarray | None = None,
                   node_id: int | None = None) -> InsertResult:
        return self.add_memories([text], kind, None if vector is None else np.asarray(vector)[None, :],
                                 node_ids=None if node_id is None else [node_id])[0]

    def add_memories(self, texts: Sequence[str], kind: str = "episodic", vectors: np.ndarray | None = None,
                     node_ids: Sequence[int] | None = None) -> list[InsertResult]:
        """Insert memories as upstream does: episodic always new; semantic near-duplicates reinforce."""
        if kind not in TEXT_KINDS:
            raise StoreError(f"memory kind must be episodic or semantic, got {kind!r}")
        texts = [" ".join(str(t).split()) for t in texts]
        if any(not t for t in texts):
            raise StoreError("empty memory text")
        if vectors is None:
            vectors = self.store.embed_texts(texts, writing=True)
        else:
            vectors = normalize_rows(vectors)
            self.store._check_vector_dim(vectors.shape[1])
        if kind == "episodic" and node_ids is None:
            return self._insert_episodic(texts, vectors)
        return [self._insert_memory(t, kind, v, None if node_ids is None else node_ids[i])
                for i, (t, v) in enumerate(zip(texts, vectors, strict=True))]

    def _insert_episodic(self, texts: list[str], vectors: np.ndarray) -> list[InsertResult]:
        """Episodic memories are always new nodes: one statement per table for the batch, with the ids SQLite
        would have given them one by one (max(id) + 1, ...; the clip's transaction holds the write lock)."""
        ents = [self._entities_of(t) for t in texts]
        ids = self._new_ids("nodes", len(texts))
        now = time.time()
        c, st, et = self.clip_id, self.start_time, self.end_time
        self.conn.executemany(   # the form insert_text_node uses: on PostgreSQL both go as one statement
            "INSERT INTO nodes (id, type, clip_id, start_time, end_time, text, is_equivalence, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(nid, "episodic", c, st, et, t, 0, now) for nid, t in zip(ids, texts, strict=True)])
        self.conn.executemany("INSERT INTO embeddings (id, node_id, clip_id, vector) VALUES (?, ?, ?, ?)",
                              [(eid, nid, c, _blob(v)) for eid, nid, v in
                               zip(self._new_ids("embeddings", len(ids)), ids, vectors, strict=True)])
        self.conn.executemany("INSERT OR REPLACE INTO edges (text_id, entity_id, weight) VALUES (?, ?, 1.0)",
                              [(nid, e) for nid, es in zip(ids, ents, strict=True) for e in es])
        for nid in ids:
            self._log(nid, "add")
        self.node_ids.extend(ids)
        return [InsertResult(nid, "inserted", [], [], e) for nid, e in zip(ids, ents, strict=True)]

    def _entities_of(self, text: str) -> list[int]:
        out: list[int] = []
        chars = None
        for tag_kind, nid in find_tags(text):
            if tag_kind == "character":
                chars = chars or resolve(
                    self.conn.execute("SELECT id, type, character_seed FROM nodes WHERE type IN ('face','voice')"),
                    self._equivalence_groups())
                cid = chars.resolve_alias(nid)
                if cid is not None:
                    out.extend(m for _, m in chars.members[cid])
            elif self.cache.entity_kind(self.conn, nid) == tag_kind:
                out.append(nid)
        return list(dict.fromkeys(out))

    def _equivalence_groups(self) -> list[list[int]]:
        groups: dict[int, list[int]] = {}
        for tid, eid in self.conn.execute(
                "SELECT e.text_id, e.entity_id FROM edges e JOIN nodes n ON n.id = e.text_id "
                "WHERE n.is_equivalence = 1 AND e.weight > 0"):
            groups.setdefault(tid, []).append(eid)
        return list(groups.values())

    def _insert_memory(self, text: str, kind: str, vec: np.ndarray, node_id: int | None) -> InsertResult:
        ents = self._entities_of(text)
        eq = kind == "semantic" and is_equivalence(text)
        if eq and not self.cache.split_pairs(self.conn).isdisjoint(entity_pairs(ents)):  # a person split these apart
            # (corrections.py): not again
            log.info("equivalence %r refused: a user split these entities apart", text)
            return InsertResult(None, "refused", entities=ents)
        if kind == "semantic" and ents:
            c = self.store.config
            # the semantic memories linked to the first entity (writer_cache.py keeps them in memory)
            cache = self.cache
            linked = cache.linked(self.conn, ents[0])
            ids, mat = linked.ids[: linked.n].copy(), linked.mat[: linked.n]
            if len(ids) and len(ents) > 1:  # keep the candidates linked to every entity of the new memory
                keep = np.ones(len(ids), dtype=bool)
                for e in ents[1:]:
                    keep &= cache.linked(self.conn, e).contains(ids)
                ids, mat = ids[keep], mat[keep]
            reinforced: list[int] = []
            weakened: list[int] = []
            if len(ids):
                cos = mat @ vec
                for cid, s in zip(ids.tolist(), cos.tolist(), strict=True):
                    if s > c.semantic_reinforce_threshold:
                        self.store._edge_delta(cid, +1.0)
                        reinforced.append(cid)
                    elif c.semantic_weaken_threshold is not None and s < c.semantic_weaken_threshold:
                        self.store._edge_delta(cid, -1.0)
                        weakened.append(cid)
            if reinforced:
                self.node_ids.extend(r for r in reinforced if r not in self.node_ids)  # updated nodes
                return InsertResult(None, "reinforced", reinforced, weakened, ents)
            # upstream drops the new memory after weakening an old one (its own comment says it should be
            # added); we add it.
            nid = self.insert_text_node(text, kind, vec, ents, eq, node_id)
            return InsertResult(nid, "inserted", [], weakened, ents)
        nid = self.insert_text_node(text, kind, vec, ents, eq, node_id)
        return InsertResult(nid, "inserted", [], [], ents)

    def insert_text_node(self, text: str, kind: str, vec: np.ndarray, ents: list[int], eq: bool,
                         node_id: int | None) -> int:
        """One text node as given (no near-duplicate check; add_memories() is the normal way), edges of weight 1
        to ``ents``; for bulk loaders that decided everything already."""
        nid = self._new_ids("nodes", 1)[0] if node_id is None else self._given_id("nodes", node_id)
        self.conn.execute(
            "INSERT INTO nodes (id, type, clip_id, start_time, end_time, text, is_equivalence, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (nid, kind, self.clip_id, self.start_time, self.end_time, text, int(eq), time.time()))
        self.conn.execute("INSERT INTO embeddings (id, node_id, clip_id, vector) VALUES (?, ?, ?, ?)",
                          (self._new_ids("embeddings", 1)[0], nid, self.clip_id, _blob(vec)))
        self.conn.executemany("INSERT OR REPLACE INTO edges (text_id, entity_id, weight) VALUES (?, ?, 1.0)",
                              [(nid, e) for e in ents])
        if kind == "semantic" and ents:
            self.cache.added(nid, ents, vec)
        self._log(nid, "add")
        if eq:
            self._log(nid, "eq")
        self.node_ids.append(nid)
        return nid

    # -------------------------------------------------------------- per-turn facts (who said / appeared when)
    def add_turn(self, kind: str, entity_id: int, start_time: float, end_time: float, text: str | None = None,
                 memory_ids: Sequence[int] = (), language: str | None = None) -> int:
        """One voice turn (``kind="voice"``, with its transcript and the language it was heard in) or face
        appearance (``"face"``) of this clip, linked to the episodic memories written from it."""
        self._check_entity_kind(kind)
        if not (np.isfinite(start_time) and np.isfinite(end_time)) or end_time < start_time:
            raise StoreError(f"turn of node {entity_id}: invalid time range [{start_time}, {end_time}]")
        if self.cache.entity_kind(self.conn, int(entity_id)) != kind:   # the writer cache: no read per turn
            raise StoreError(f"node {entity_id} is not a {kind} node")
        if language is not None and not (isinstance(language, str) and 2 <= len(language) <= 8
                                         and language.replace("-", "").isalpha()):
            raise StoreError(f"turn of node {entity_id}: language {language!r} is not a language code")
        tid = self._new_ids("turns", 1)[0]   # given here: nothing to wait for (see _new_ids)
        self.conn.execute("INSERT INTO turns (id, clip_id, kind, entity_id, start_time, end_time, text, language) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                          (tid, self.clip_id, kind, int(entity_id), float(start_time), float(end_time), text, language))
        self.conn.executemany("INSERT OR IGNORE INTO turn_memories (turn_id, memory_id) VALUES (?, ?)",
                              [(tid, int(m)) for m in dict.fromkeys(memory_ids)])
        return tid

    def set_name(self, entity_id: int, name: str, source: str = "memorization") -> None:
        row = self.conn.execute("SELECT character_seed FROM nodes WHERE id = ?", (entity_id,)).fetchone()
        if not row or row[0] is None:
            raise StoreError(f"node {entity_id} is not a face/voice node")
        self.conn.execute("INSERT OR REPLACE INTO character_names (seed, name, source, updated_at) VALUES "
                          "(?, ?, ?, ?)", (row[0], name, source, time.time()))

