"""Forget a person: a privacy delete of everything the store holds about one character.

:func:`forget_character` (called by :meth:`MemoryStore.forget_character` and ``m3-memory forget``), in ONE write
transaction with ``PRAGMA secure_delete = ON`` (SQLite overwrites deleted rows and freed pages with zeros):

* deletes the character's face/voice nodes with their embeddings and contents (face crops, voice WAV/ASR), their
  turns (and those turns' ``turn_memories`` links), ``av_evidence``/``voice_speech`` rows, ``character_names``
  rows, and the episodic/semantic memories about only them (and every equivalence involving them), with their
  vectors;
* in every remaining text (``nodes.text``, ``contents.text``, ``turns.text``) replaces the person's tags and each
  of their known names (names set for any of their entities, names their own memories state; whole words,
  case-insensitive) by ``<redacted>``;
* re-embeds the memories whose text changed when the store's embedder is the running one; otherwise (a store
  imported from upstream pickles without ``--reembed``, or an embedder that fails) deletes their old vectors,
  which encode the name, and marks the node ``{"needs_reembed": true}`` in ``nodes.extra``: the forget never
  depends on an embedding model;
* logs ``del``/``upd`` in ``changes`` so every reader's vector index drops the rows.

Then ``PRAGMA wal_checkpoint(TRUNCATE)`` is retried until ``timeout_s``: until it succeeds, old WAL frames (and
database pages a reader's snapshot still needs) can hold the deleted bytes. A reader that keeps its read
transaction open blocks it; the report then says ``checkpointed=False, open_readers_blocking=True`` and
:func:`checkpoint_truncate` (``m3-memory checkpoint``) finishes the job once the readers are gone.

``vacuum=True`` also rebuilds the file. secure_delete zeroes what this forget deletes, but not bytes freed
*earlier* without it (e.g. a face embedding or crop of this person dropped by the per-entity caps before the
forget); only VACUUM removes those. It rewrites the whole database (time and disk proportional to the store, a
WAL as large as the database until the checkpoint) and holds the write lock meanwhile, so it is opt-in.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..characters import Characters, resolve
from ..embedders import TextEmbedder, normalize_rows
from ..errors import UnknownCharacterError
from ..tags import find_tags, is_equivalence, replace_tags
from .records import TEXT_KINDS, CheckpointResult, ForgetReport
from .select_in import select_in

if TYPE_CHECKING:
    from .memory_store import MemoryStore

log = logging.getLogger(__name__)

REDACTED = "<redacted>"
FORGET_EPOCH = "forget_epoch"   # meta key: forgets so far; a saved vector index belongs to one epoch
NEEDS_REEMBED = "needs_reembed"   # key in nodes.extra: the node's text changed but it has no vector yet
# name parts that are not redacted on their own ("Anne de Vries": "Anne de Vries", "Anne", "Vries")
_PARTICLES = frozenset({"al", "bin", "da", "das", "de", "del", "della", "den", "der", "di", "do", "dos", "du",
                        "el", "la", "le", "st", "ten", "ter", "van", "von", "mr", "mrs", "ms", "dr", "jr", "sr"})
# explicit name statements (retrieval's first two name patterns): "<voice_3>'s name is Alice", "... says her name is"
_NAME_STATEMENTS = (
    r"{tag}(?:'s)? (?:name is|is named|is called|introduces (?:himself|herself|themselves) as)"
    r" ([A-Z][\w-]+(?: [A-Z][\w-]+)?)",
    r"{tag} (?:says|said|states|mentions) (?:that )?(?:his|her|their) name is ([A-Z][\w-]+(?: [A-Z][\w-]+)?)",
)


def forget_character(store: MemoryStore, character_id: int, *, checkpoint_timeout_s: float = 10.0,
                     vacuum: bool = False) -> ForgetReport:

    store.require_writable()
    conn = store.conn
    with store._lock:
        with _secure_delete(conn), store.transaction():
            chars = _characters(conn)
            cid = chars.resolve_alias(character_id)
            if cid is None:
                raise UnknownCharacterError(f"unknown character {character_id}")
            report = _forget(store, chars, cid)
            # every copy of the vector index saved before this (other machines' caches of a shared memory, or a
            # file beside SQLite) was built for an older epoch: it is refused and deleted where it is next opened
            store.set_meta(FORGET_EPOCH, int(store.meta(FORGET_EPOCH) or 0) + 1)
        if store.engine == "postgresql":
            return _purge_postgres(conn, report, full=vacuum)
        if vacuum:
            try:
                conn.execute("VACUUM")
                report.vacuumed = True
            except sqlite3.OperationalError as e:  # e.g. another writer holds the lock
                log.warning("forget: VACUUM failed (%s); freed space of earlier deletes is not rewritten", e)
        ck = checkpoint_truncate(conn, checkpoint_timeout_s)
    report.checkpointed = ck.ok
    report.open_readers_blocking = not ck.ok
    report.checkpoint = (ck.busy, ck.log_frames, ck.checkpointed_frames)
    if not ck.ok:
        log.warning("forget: other connections kept %s-wal busy for %.1f s; the deleted bytes may remain in the "
                    "WAL or database file until they close and a checkpoint runs", store.location, ck.waited_s)
    return report


# tables that held something of the person (PostgreSQL: vacuumed after the delete)
PURGED_TABLES = ("nodes", "embeddings", "contents", "edges", "turns", "turn_memories", "av_evidence",
                 "voice_speech", "character_names", "entity_splits")


def _purge_postgres(conn, report: ForgetReport, full: bool) -> ForgetReport:
    """PostgreSQL keeps a deleted row's bytes in its table until VACUUM, and in the write-ahead log until the WAL
    segment is recycled. VACUUM (``full``: VACUUM FULL, which rewrites each table into a new file and holds an
    exclusive lock on it meanwhile) then CHECKPOINT, so the dead rows leave the tables and WAL recycling can
    begin; ``report.remains`` says honestly what is still out of reach."""
    t0 = time.monotonic()
    # the server's vector index (server_index.py), where a store has one: its rows went with their nodes
    server_index = conn.execute("SELECT to_regclass('text_vectors')").fetchone()[0] is not None
    tables = PURGED_TABLES + (("text_vectors",) if server_index else ())
    for table in tables:
        conn.execute(f"VACUUM {'(FULL) ' if full else ''}{table}")
    report.vacuumed = full
    try:
        conn.execute("CHECKPOINT")
        report.checkpointed = True
    except sqlite3.Error as e:   # CHECKPOINT needs superuser or the pg_checkpoint role
        log.warning("forget: CHECKPOINT refused (%s); the server's next checkpoint does it", e)
    report.remains = (
        "PostgreSQL: the rows are deleted and the tables vacuumed"
        + (" (VACUUM FULL: rewritten into new files; the old files' blocks are freed, not overwritten)" if full
           else " (dead rows removed; freed space is reused, not overwritten: use --vacuum for VACUUM FULL)")
        + ". The write-ahead log keeps the deleted rows until its segments are recycled after later checkpoints; "
        "archived WAL, base backups and replicas keep them until they are rotated or re-taken.")
    report.checkpoint = (0 if report.checkpointed else 1, -1, -1)
    log.info("forget: PostgreSQL purge of %d tables in %.1f s", len(tables), time.monotonic() - t0)
    return report


# ---------------------------------------------------------------------------------------------- the delete
def _forget(store: MemoryStore, chars: Characters, cid: int) -> ForgetReport:
    conn = store.conn
    members = chars.members[cid]
    ents = [nid for _, nid in members]
    seeds = sorted({chars.seed_of[e] for e in ents})
    mine = set(members) | {("character", s) for s in seeds}
    report = ForgetReport(character_id=cid, entities=ents)
    # memories about the person: linked by an edge, or naming one of their tags
    linked = {r[0] for r in select_in(conn, "SELECT DISTINCT text_id FROM edges WHERE entity_id IN ({})", ents)}
    rows = conn.execute("SELECT id, coalesce(text, ''), is_equivalence FROM nodes WHERE type IN ('episodic', "
                        "'semantic') ORDER BY id").fetchall()
    about = [(nid, text, bool(is_eq) or is_equivalence(text), find_tags(text)) for nid, text, is_eq in rows]
    about = [a for a in about if a[0] in linked or any(t in mine for t in a[3])]
    name_re = _name_regex(_known_names(conn, seeds, mine, [a[1] for a in about]))

    def redact(text: str) -> tuple[str, int]:
        new = replace_tags(text, lambda k, n: REDACTED if (k, n) in mine else None)
        if name_re is None:
            return new, 0
        return name_re.subn(REDACTED, new)

    # ... deleted when they are equivalences or name nobody else
    report.deleted_memories = [nid for nid, _, is_eq, tags in about if is_eq or all(t in mine for t in tags)]
    dead = report.deleted_memories + ents

    turn_ids = [r[0] for r in select_in(conn, "SELECT id FROM turns WHERE entity_id IN ({})", ents)]
    report.deleted_turns = len(turn_ids)
    conn.executemany("DELETE FROM turn_memories WHERE turn_id = ?", [(t,) for t in turn_ids])
    conn.executemany("DELETE FROM turn_memories WHERE memory_id = ?", [(n,) for n in dead])
    conn.executemany("DELETE FROM turns WHERE id = ?", [(t,) for t in turn_ids])
    conn.executemany("DELETE FROM av_evidence WHERE face_id = ? OR voice_id = ?", [(e, e) for e in ents])
    conn.executemany("DELETE FROM voice_speech WHERE voice_id = ?", [(e,) for e in ents])
    conn.executemany("DELETE FROM edges WHERE text_id = ?", [(n,) for n in dead])
    conn.executemany("DELETE FROM edges WHERE entity_id = ?", [(n,) for n in dead])
    conn.executemany("DELETE FROM embeddings WHERE node_id = ?", [(n,) for n in dead])
    conn.executemany("DELETE FROM contents WHERE node_id = ?", [(n,) for n in dead])
    conn.executemany("DELETE FROM character_names WHERE seed = ?", [(s,) for s in seeds])
    conn.executemany("DELETE FROM nodes WHERE id = ?", [(n,) for n in dead])
    conn.executemany("INSERT INTO changes (node_id, op) VALUES (?, 'del')", [(n,) for n in dead])

    # every remaining text: the person's tags and names -> <redacted>
    changed: list[tuple[int, str]] = []   # text nodes to re-embed
    text_kind = dict(conn.execute("SELECT id, type FROM nodes WHERE text IS NOT NULL").fetchall())
    for table in ("nodes", "contents", "turns"):
        rows = conn.execute(f"SELECT id, text FROM {table} WHERE text IS NOT NULL ORDER BY id").fetchall()
        for rid, text in rows:
            new, n_names = redact(text)
            if new == text:
                continue
            conn.execute(f"UPDATE {table} SET text = ? WHERE id = ?", (new, rid))
            report.texts_rewritten += 1
            report.names_redacted += n_names
            if table == "nodes" and text_kind.get(rid) in TEXT_KINDS:
                changed.append((rid, new))
    report.redacted_memories = sorted(rid for rid, _ in changed)
    if changed:
        _reembed_or_mark(store, changed, report)
    return report


def _reembed_or_mark(store: MemoryStore, changed: list[tuple[int, str]], report: ForgetReport) -> None:
    """New vectors for rewritten memories with the store's own embedder; else drop the old vectors and mark."""
    conn = store.conn
    emb = _matching_embedder(store)
    vecs: np.ndarray | None = None
    if emb is not None:
        try:
            vecs = normalize_rows(emb.embed([t for _, t in changed]))
            if vecs.shape != (len(changed), emb.dim):
                raise ValueError(f"embedder returned shape {vecs.shape}")
        except Exception as e:  # a privacy delete must not depend on the model (or its server) working
            log.warning("forget: re-embedding %d redacted memories failed (%s); their vectors are dropped and "
                        "the nodes marked %r", len(changed), e, NEEDS_REEMBED)
            vecs = None
    for i, (nid, _) in enumerate(changed):
        extra = _extra(conn, nid)
        if vecs is not None:
            blob = np.ascontiguousarray(vecs[i], dtype=np.float32).tobytes()
            if not conn.execute("UPDATE embeddings SET vector = ? WHERE node_id = ?", (blob, nid)).rowcount:
                conn.execute("INSERT INTO embeddings (node_id, clip_id, vector) SELECT id, clip_id, ? FROM nodes "
                             "WHERE id = ?", (blob, nid))
            extra.pop(NEEDS_REEMBED, None)
            report.reembedded.append(nid)
        else:
            conn.execute("DELETE FROM embeddings WHERE node_id = ?", (nid,))
            extra[NEEDS_REEMBED] = True
            report.needs_reembed.append(nid)
        conn.execute("UPDATE nodes SET extra = ? WHERE id = ?", (json.dumps(extra) if extra else None, nid))
        conn.execute("INSERT INTO changes (node_id, op) VALUES (?, 'upd')", (nid,))


def _matching_embedder(store: MemoryStore) -> TextEmbedder | None:
    """The running embedder when it made the store's text vectors, else None (never raises)."""
    name, dim = store.meta("embedder_name"), store.meta("embedder_dim")
    if name is None:
        return None
    try:
        emb = store.embedder
    except Exception as e:
        log.warning("forget: no text embedder available (%s)", e)
        return None
    if emb.name != name or emb.dim != int(dim or 0):
        return None
    return emb


def _extra(conn: sqlite3.Connection, nid: int) -> dict:
    raw = conn.execute("SELECT extra FROM nodes WHERE id = ?", (nid,)).fetchone()[0]
    try:
        val = json.loads(raw) if raw else {}
    except ValueError:
        val = {"extra": raw}
    return val if isinstance(val, dict) else {"extra": val}


# ---------------------------------------------------------------------------------------------- names
def _known_names(conn: sqlite3.Connection, seeds: Sequence[int], mine: set[tuple[str, int]],
                 texts: Sequence[str]) -> list[str]:
    """Names set for any of the person's entities, and names stated in memories about them ("<voice_3>'s name is
    X", "<face_1> says her name is X")."""
    names = [r[0] for r in select_in(conn, "SELECT name FROM character_names WHERE seed IN ({})", seeds)]
    tags = [f"<{k}_{n}>" for k, n in sorted(mine)]
    pats = [re.compile(p.format(tag=re.escape(tag))) for tag in tags for p in _NAME_STATEMENTS]
    for text in texts:
        for pat in pats:
            names.extend(m.group(1) for m in pat.finditer(text))
    return names


def _name_regex(names: Sequence[str]) -> re.Pattern[str] | None:
    """Each full name and each name part (not particles like "van"), whole words, case-insensitive."""
    words: set[str] = set()
    for name in names:
        full = " ".join(str(name).split())
        if not any(ch.isalpha() for ch in full):
            continue
        words.add(full.casefold())
        words.update(p.casefold() for p in full.split(" ")
                     if len(p) >= 2 and any(ch.isalpha() for ch in p) and p.casefold() not in _PARTICLES)
    words.discard(REDACTED.strip("<>"))
    if not words:
        return None
    alts = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=lambda w: (-len(w), w)))
    return re.compile(rf"(?<!\w)(?:{alts})(?!\w)", re.IGNORECASE)


# ---------------------------------------------------------------------------------------------- sqlite helpers
def _characters(conn: sqlite3.Connection) -> Characters:
    """The characters as committed (inside the forget's transaction: MemoryStore.characters() may BEGIN)."""
    ents = conn.execute("SELECT id, type, character_seed FROM nodes WHERE type IN ('face', 'voice')").fetchall()
    groups: dict[int, list[int]] = {}
    # from the few equivalence nodes (their partial index) to their edges, not a scan of every edge
    for tid, eid in conn.execute(
            "SELECT e.text_id, e.entity_id FROM nodes n CROSS JOIN edges e ON e.text_id = n.id "
            "WHERE n.is_equivalence = 1 AND e.weight > 0 ORDER BY e.text_id, e.entity_id").fetchall():
        groups.setdefault(tid, []).append(eid)
    return resolve(ents, groups.values())


@contextlib.contextmanager
def _secure_delete(conn: sqlite3.Connection) -> Iterator[None]:
    if getattr(conn, "engine", "sqlite") != "sqlite":
        yield
        return
    prev = int(conn.execute("PRAGMA secure_delete").fetchone()[0])
    conn.execute("PRAGMA secure_delete = ON")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA secure_delete = {prev}")


def checkpoint_truncate(conn: sqlite3.Connection, timeout_s: float = 10.0, poll_s: float = 0.05,
                        clock: Callable[[], float] = time.monotonic) -> CheckpointResult:
    """``PRAGMA wal_checkpoint(TRUNCATE)``, retried until it reports success or ``timeout_s`` passed.

    Success (busy == 0) means every WAL frame is in the database file and the WAL is truncated to 0 bytes. busy
    == 1 means another connection (a reader in a read transaction, or a writer) kept it from finishing."""
    start = clock()
    deadline = start + max(0.0, timeout_s)
    prev_timeout = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
    attempts = 0
    busy, log_frames, done = 1, -1, -1
    try:
        while True:
            attempts += 1
            wait_ms = int(max(0.0, min(deadline - clock(), 0.25)) * 1000)
            conn.execute(f"PRAGMA busy_timeout = {wait_ms}")
            try:
                busy, log_frames, done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) and "busy" not in str(e):
                    raise
                busy = 1
            if busy == 0 or clock() >= deadline:
                break
            time.sleep(poll_s)
    finally:
        conn.execute(f"PRAGMA busy_timeout = {prev_timeout}")
    return CheckpointResult(ok=busy == 0, busy=int(busy), log_frames=int(log_frames),
                            checkpointed_frames=int(done), attempts=attempts, waited_s=clock() - start)
