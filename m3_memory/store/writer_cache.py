"""The writer's caches: semantic memories per entity and face/voice embeddings, so an insert costs a BLAS product.

A new semantic memory about an entity is compared with every semantic memory linked to that entity (upstream's
reinforce / weaken rule, :meth:`m3_memory.store.ClipWriter._insert_memory`). Reading those rows and vectors from
SQLite at every insert made ingest O(memories of the entity) in I/O; here they live in memory, loaded once per
entity, kept in step by the writer's own inserts and edge removals, and thrown away whenever anything else may
have changed them:

* at the first use in a transaction the cache reads the change log after ``max(changes.seq)`` as it recorded it at
  the end of its last clip transaction: any other write to nodes or edges (another robot's clips, an import, a
  forget, a correction) logs a change. Added and updated nodes (another robot's clips) are followed: their
  embeddings and semantic links are read and applied, so two robots writing one memory do not reload everything at
  every clip.
  An equivalence change (``eq``: a new face-voice link, one weakened away, a merge) is a semantic memory's change
  and is followed the same way (who is who is not cached here; readers recompute characters). A delete (forget, a
  split), or more than ``FOLLOW_MAX`` changes, empties the cache;
* a rolled-back transaction empties it (its in-memory updates never happened).

Weakening an edge to zero deletes it: the writer applies that to its own cache (:meth:`unlink`) and logs an ``upd``
of the memory, so other writers re-read its links. Face/voice embeddings (what
:meth:`~m3_memory.store.ClipWriter.match_entity` compares a new face or voice with) are kept per kind the same
way; the writer updates them after each change of a node's embeddings (:meth:`entity_updated`).
"""

from __future__ import annotations

import sqlite3

import numpy as np

from .select_in import execute_in

FOLLOW_MAX = 20_000   # more changes than this since the writer's last clip: reloading is cheaper than following
MARK_ROWS = 4096   # changes since a clip began that mark() reads one by one (more: counted by the server)


class _Linked:
    """Semantic memories linked to one entity: ids ascending, their vectors row by row."""

    __slots__ = ("ids", "mat", "n")

    def __init__(self, ids: np.ndarray, mat: np.ndarray) -> None:
        self.n = len(ids)
        cap = max(16, 2 * self.n)
        self.ids = np.zeros(cap, dtype=np.int64)
        self.ids[: self.n] = ids
        self.mat = np.zeros((cap, mat.shape[1] if mat.ndim == 2 and mat.shape[1] else 0), dtype=np.float32)
        if self.n:
            self.mat[: self.n] = mat

    def add(self, nid: int, vec: np.ndarray) -> None:
        if self.mat.shape[1] == 0:
            self.mat = np.zeros((len(self.ids), len(vec)), dtype=np.float32)
        if self.n == len(self.ids):
            ids = np.zeros(2 * len(self.ids), dtype=np.int64)
            ids[: self.n] = self.ids[: self.n]
            mat = np.zeros((2 * len(self.ids), self.mat.shape[1]), dtype=np.float32)
            mat[: self.n] = self.mat[: self.n]
            self.ids, self.mat = ids, mat
        at = self.n if self.n == 0 or nid > self.ids[self.n - 1] else int(np.searchsorted(self.ids[: self.n], nid))
        if at < self.n:  # an explicit, older node id: keep the id order
            if self.ids[at] == nid:
                self.mat[at] = vec
                return
            self.ids[at + 1 : self.n + 1] = self.ids[at : self.n].copy()
            self.mat[at + 1 : self.n + 1] = self.mat[at : self.n].copy()
        self.ids[at] = nid
        self.mat[at] = vec
        self.n += 1

    def remove(self, nid: int) -> None:
        at = int(np.searchsorted(self.ids[: self.n], nid))
        if at < self.n and self.ids[at] == nid:
            self.ids[at : self.n - 1] = self.ids[at + 1 : self.n].copy()
            self.mat[at : self.n - 1] = self.mat[at + 1 : self.n].copy()
            self.n -= 1

    def contains(self, ids: np.ndarray) -> np.ndarray:
        own = self.ids[: self.n]
        at = np.searchsorted(own, ids)
        return (at < self.n) & (own[np.minimum(at, max(self.n - 1, 0))] == ids) if self.n else np.zeros(len(ids), bool)


class WriterCache:
    def __init__(self) -> None:
        self.by_entity: dict[int, _Linked] = {}
        self.embs: dict[str, dict[int, np.ndarray]] = {}              # kind -> node id -> its embeddings
        self.means: dict[str, tuple[np.ndarray, np.ndarray]] = {}      # kind -> (node ids, each node's mean row)
        self.kinds: dict[int, str] | None = None                       # face/voice node id -> kind
        self.seq: int | None = None    # every change up to this one is in the cache (None: nothing is)
        self.own: tuple[int, int] | None = None   # the changes our last clip logged (seq range): in it already
        self.base: int = 0             # self.seq as validated in the current transaction
        self.tx: int = -1              # the transaction the cache was last validated in
        self.splits: set[tuple[int, int]] | None = None   # entity_splits' pairs (a user's corrections: few)
        self._sent: tuple[int, int, object] | None = None   # (tx, base, cursor): catch_up's read, sent ahead

    @staticmethod
    def _max_seq(conn: sqlite3.Connection) -> int:
        return int(conn.execute("SELECT coalesce(max(seq), 0) FROM changes").fetchone()[0])

    def validate(self, conn: sqlite3.Connection, tx: int) -> None:
        """Call before use inside transaction ``tx``: brings the cache up to what the database holds when anything
        else wrote since (another robot's clips: followed change by change; anything the cache cannot follow, such
        as a delete, or too many changes: emptied)."""
        if self.tx == tx:
            return
        self.tx = tx
        if self.seq is None:
            self.clear()
            self.base = self._max_seq(conn)   # what is loaded from here on holds at least this
            return
        self.base = self.seq
        sent, self._sent = self._sent, None
        self.catch_up(conn, sent[2] if sent is not None and sent[:2] == (tx, self.base) else None)

    def send_ahead(self, conn: sqlite3.Connection, tx: int) -> None:
        """Send the read :meth:`validate` will make in transaction ``tx`` now, without reading it: on PostgreSQL it
        then reaches the server with the transaction's first read (a clip's number) instead of waiting alone."""
        self._sent = None
        if self.tx != tx and self.seq is not None:
            self._sent = (tx, self.seq, self._changes_after(conn, self.seq))

    def _changes_after(self, conn: sqlite3.Connection, base: int):
        lo, hi = self.own or (0, -1)
        return conn.execute("SELECT c.seq, c.node_id, c.op, n.type FROM changes c LEFT JOIN nodes n ON "
                            "n.id = c.node_id WHERE c.seq > ? AND (c.seq < ? OR c.seq > ?) ORDER BY c.seq LIMIT ?",
                            (base, lo, hi, FOLLOW_MAX + 1))

    def catch_up(self, conn: sqlite3.Connection, sent=None) -> None:
        """Follow what others logged since the cache's base, with each node's kind, in one read. Changes are logged
        in commit order (under the write lock), so the committed ones are every change up to the last one read. A
        clip on PostgreSQL writes without the lock until its commit, so others may log more before it commits
        (followed at the next clip, see mark()), or until it takes the lock to decide something others must not
        decide at the same time (a new person: ClipWriter.serialize), when it catches up again."""
        _, hi = self.own or (0, -1)
        rows = (sent if sent is not None else self._changes_after(conn, self.base)).fetchall()
        if rows and not self._follow(conn, [r[1:] for r in rows]):
            self.clear()
            self.base = self._max_seq(conn)
        else:
            self.base = max(self.base, hi, int(rows[-1][0]) if rows else 0)

    def _follow(self, conn: sqlite3.Connection, rows: list[tuple]) -> bool:
        """Apply the logged changes ``(node id, op, node kind)`` to the caches; False when the cache must be emptied
        instead."""
        if len(rows) > FOLLOW_MAX or any(op == "del" for _, op, _ in rows):
            return False
        if any(op == "eq" for _, op, _ in rows):
            self.splits = None
        ids = list(dict.fromkeys(int(n) for n, _, _ in rows))
        kind_of = {int(n): t for n, _, t in rows if t is not None}
        entities = [n for n in ids if kind_of.get(n) in ("face", "voice")]
        semantic = [n for n in ids if kind_of.get(n) == "semantic"]
        links = []   # sent before the embeddings are read: on PostgreSQL both reads wait for the server once
        if semantic and self.by_entity:   # new or re-linked semantic memories of the entities loaded
            # the vector by a lookup per link (a join let PostgreSQL's planner scan every embedding on a growing store)
            links = list(execute_in(conn, "SELECT e.text_id, e.entity_id, (SELECT v.vector FROM embeddings v "
                                          "WHERE v.node_id = e.text_id LIMIT 1) FROM edges e WHERE e.text_id IN ({})",
                                    semantic))
        if entities:   # new or updated faces / voices: their kind and current embeddings
            if self.kinds is not None:
                self.kinds.update({n: kind_of[n] for n in entities})
            self._follow_embeddings(conn, [n for n in entities if kind_of[n] in self.embs], kind_of)
        if links:
            changed = np.array(sorted(semantic), dtype=np.int64)
            for linked in self.by_entity.values():   # one vectorised look-up per entity, a removal per hit
                for n in changed[linked.contains(changed)].tolist():
                    linked.remove(n)
            for tid, eid, vec in (row for cur in links for row in cur.fetchall()):
                got = self.by_entity.get(int(eid))
                if got is not None and vec is not None:
                    got.add(int(tid), np.frombuffer(vec, dtype=np.float32))
        return True

    def _follow_embeddings(self, conn: sqlite3.Connection, entities: list[int], kind_of: dict[int, str]) -> None:
        """The current embeddings of faces / voices another writer changed, for the kinds loaded: every row's id,
        and the vector only of rows the cache does not hold (a person's face keeps up to ten 2 KB vectors, of
        which a clip adds one or two)."""
        for i in range(0, len(entities), 100):
            part = entities[i:i + 100]
            known: dict[int, np.ndarray] = {}   # embedding id -> its vector, as cached
            for n in part:
                got = self.embs[kind_of[n]].get(n)
                if got is not None:
                    known.update(zip(got[0].tolist(), got[1], strict=True))
            marks = ",".join("?" * len(part))
            if known:
                rows = conn.execute(f"SELECT node_id, id, CASE WHEN id IN ({','.join('?' * len(known))}) THEN NULL "
                                    f"ELSE vector END FROM embeddings WHERE node_id IN ({marks})",
                                    [*known, *part]).fetchall()
            else:
                rows = conn.execute(f"SELECT node_id, id, vector FROM embeddings WHERE node_id IN ({marks})",
                                    part).fetchall()
            embs: dict[int, list[tuple[int, np.ndarray]]] = {}
            for nid, eid, vec in rows:
                embs.setdefault(int(nid), []).append(
                    (int(eid), known[int(eid)] if vec is None else np.frombuffer(vec, dtype=np.float32)))
            for n in part:
                got = sorted(embs.get(n, []), key=lambda r: r[0])
                if got:   # (a node known already: its mean overwritten in place)
                    self.entity_updated(kind_of[n], n, np.array([r[0] for r in got], dtype=np.int64),
                                        np.stack([r[1] for r in got]))
                else:
                    self.embs[kind_of[n]].pop(n, None)
                    self.means.pop(kind_of[n], None)

    def mark(self, conn: sqlite3.Connection, tx: int, own: int) -> bool:
        """At the end of a clip transaction, under the write lock, after it logged its ``own`` changes: the cache
        holds every change up to the one it was validated at and those ``own`` ones; what others logged between
        (robots writing at once on PostgreSQL) is followed at the next clip. True when one of those was a delete
        (a forget, a split, a merge): the clip may name what is gone, and must not commit."""
        if self.tx != tx:
            self.invalidate()
            return False
        # ordered and limited: an index range whatever the table's statistics say (an aggregate over "seq > ?" was
        # planned as a scan of the whole log on a new PostgreSQL store: 4 ms a clip at 80k changes, under the lock)
        rows = conn.execute("SELECT seq, op FROM changes WHERE seq > ? ORDER BY seq LIMIT ?",
                            (self.base, MARK_ROWS)).fetchall()
        if len(rows) < MARK_ROWS:
            hi, deletes = (int(rows[-1][0]) if rows else 0), any(op == "del" for _, op in rows)
        else:   # a long way behind (a large import meanwhile): count them all
            hi, deletes = conn.execute("SELECT coalesce(max(seq), 0), count(CASE WHEN op = 'del' THEN 1 END) "
                                       "FROM changes WHERE seq > ?", (self.base,)).fetchone()
        if deletes:
            self.invalidate()
            return True
        self.seq, self.own = self.base, ((int(hi) - own + 1, int(hi)) if own else None)
        return False

    def split_pairs(self, conn: sqlite3.Connection) -> set[tuple[int, int]]:
        """The face / voice pairs a user split apart (``entity_splits``, ``(smaller id, larger id)``), read once and
        kept until a change of who is who: every write of ``entity_splits`` logs an ``eq`` (a merge lifting splits)
        or a ``del`` (a split deletes its link, a forget its entities), which empties this in :meth:`_follow`. A
        clip that raced a split without the lock finds its ``del`` at :meth:`mark` and is not committed."""
        if self.splits is None:
            self.splits = {(int(a), int(b)) for a, b in conn.execute("SELECT entity_a, entity_b FROM entity_splits")}
        return self.splits

    def clear(self) -> None:
        self.splits = None
        self.by_entity.clear()
        self.embs.clear()
        self.means.clear()
        self.kinds = None

    def invalidate(self) -> None:
        self.clear()
        self.seq, self.own = None, None
        self.tx = -1

    def linked(self, conn: sqlite3.Connection, entity_id: int) -> _Linked:
        got = self.by_entity.get(entity_id)
        if got is None:
            rows = conn.execute(   # the vector by a lookup per memory: see _follow
                "SELECT n.id, (SELECT v.vector FROM embeddings v WHERE v.node_id = n.id LIMIT 1) FROM edges e "
                "JOIN nodes n ON n.id = e.text_id WHERE e.entity_id = ? AND n.type = 'semantic' ORDER BY n.id",
                (entity_id,)).fetchall()
            rows = [r for r in rows if r[1] is not None]
            ids = np.array([r[0] for r in rows], dtype=np.int64)
            mat = (np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
                   if rows else np.zeros((0, 0), dtype=np.float32))
            got = self.by_entity[entity_id] = _Linked(ids, mat)
        return got

    def added(self, nid: int, entities: list[int], vec: np.ndarray) -> None:
        """A new semantic memory linked to ``entities`` (only entities already loaded are updated)."""
        for e in entities:
            got = self.by_entity.get(e)
            if got is not None:
                got.add(nid, vec)

    def unlink(self, nid: int, entities: set[int]) -> None:
        """The edges nid -> entities were deleted."""
        for e in entities:
            got = self.by_entity.get(e)
            if got is not None:
                got.remove(nid)

    # ---------------------------------------------------------------- face / voice embeddings
    def _load_kind(self, conn: sqlite3.Connection, kind: str) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        per = self.embs.get(kind)
        if per is None:
            rows: dict[int, list[tuple[int, bytes]]] = {}
            for nid, eid, vec in conn.execute("SELECT e.node_id, e.id, e.vector FROM nodes n JOIN embeddings e ON "
                                              "e.node_id = n.id WHERE n.type = ? ORDER BY e.node_id, e.id", (kind,)):
                rows.setdefault(nid, []).append((eid, vec))
            per = self.embs[kind] = {
                nid: (np.array([r[0] for r in v], dtype=np.int64),
                      np.frombuffer(b"".join(r[1] for r in v), dtype=np.float32).reshape(len(v), -1))
                for nid, v in rows.items()}
        return per

    def entity_embeddings(self, conn: sqlite3.Connection, kind: str, node_id: int) -> tuple[np.ndarray, np.ndarray]:
        """(embedding row ids, vectors) of one face/voice node, in id order."""
        got = self._load_kind(conn, kind).get(node_id)
        return got if got is not None else (np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32))

    def entity_means(self, conn: sqlite3.Connection, kind: str) -> tuple[np.ndarray, np.ndarray]:
        """(node ids ascending, the mean of each node's embeddings) of every ``kind`` node with embeddings. The
        matching rule's mean cosine of a node's rows with the probes is the dot product of the two means (it is
        linear), so a probe costs one row per person instead of one per stored embedding (up to ten: at a
        household of people a 20 MB matrix per face probe)."""
        got = self.means.get(kind)
        if got is None:
            per = self._load_kind(conn, kind)
            nodes = np.array(sorted(n for n, v in per.items() if len(v[0])), dtype=np.int64)
            means = (np.stack([per[n][1].mean(axis=0, dtype=np.float64) for n in nodes.tolist()]) if len(nodes)
                     else np.zeros((0, 0)))
            got = self.means[kind] = (nodes, means)
        return got

    def entity_updated(self, kind: str, node_id: int, row_ids: np.ndarray, mat: np.ndarray) -> None:
        """``node_id`` now has exactly these embeddings (in embedding-id order)."""
        per = self.embs.get(kind)
        if per is None:
            return
        old = per.get(node_id)
        per[node_id] = (row_ids, mat)
        got = self.means.get(kind)
        if got is not None and old is not None and len(old[0]) and len(row_ids):
            at = int(np.searchsorted(got[0], node_id))   # a node already in the matrix: its row in place
            got[1][at] = mat.mean(axis=0, dtype=np.float64)
        else:
            self.means.pop(kind, None)

    def entity_kind(self, conn: sqlite3.Connection, node_id: int) -> str | None:
        """'face' / 'voice' for an entity node, None for anything else."""
        if self.kinds is None:
            self.kinds = dict(conn.execute("SELECT id, type FROM nodes WHERE type IN ('face', 'voice')").fetchall())
        return self.kinds.get(node_id)

    def entity_added(self, node_id: int, kind: str) -> None:
        if self.kinds is not None:
            self.kinds[node_id] = kind
