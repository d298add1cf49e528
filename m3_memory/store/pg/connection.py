"""A psycopg connection with the face of the ``sqlite3.Connection`` the store uses (``execute``, ``executemany``,
cursors with ``fetchone`` / ``fetchall`` / ``fetchmany`` / ``lastrowid`` / ``rowcount``, ``close``).

Transactions are the store's, as on SQLite (autocommit, explicit statements):

* ``BEGIN IMMEDIATE`` (a write transaction) becomes ``BEGIN`` plus a transaction-level advisory lock: one writer
  at a time per database, as SQLite's write lock, so the ``changes`` log's numbers commit in order and a
  reader that applied change N has seen every change before it; a write statement outside a transaction takes
  the same lock;
* ``BEGIN DEFERRED`` (a clip, :meth:`m3_memory.store.MemoryStore.begin_clip`) takes that lock only for its commit:
  :meth:`PgConnection.take_write_lock` before the change log is written, or ``COMMIT`` itself. Two robots then
  write their clips at the same time and take turns only to log and commit them; new rows take their ids from
  the tables' sequences (:meth:`PgConnection.reserve_ids`), so the two never give one id twice;
* ``BEGIN`` (a consistent read, e.g. a full index load) becomes a ``REPEATABLE READ`` snapshot.

``PRAGMA``: ``data_version`` (has anyone committed since?) is PostgreSQL's next transaction id, which any write
advances; the WAL and file pragmas have no meaning here and answer what "done" looks like on SQLite
(``wal_checkpoint`` -> ``(0, 0, 0)``); ``query_only = 1`` makes the session read-only.

Write transactions run in libpq's pipeline mode: a statement whose result nobody reads (an ``UPDATE``, the
change log's ``INSERT``) is sent without waiting for the server; a result that is read (``fetchone``,
``lastrowid``, ``rowcount``) waits for every statement before it; a clip's ``BEGIN`` and a write transaction's
``COMMIT`` go in the pipeline too. A clip's fifty statements cost a handful of round trips instead of fifty, and
the write lock is held that much shorter. An error of a pipelined statement comes out
where the next result is read or at ``COMMIT``, which then rolls the transaction back and raises: nothing of a
failed transaction is committed, as on SQLite.

Errors come out as the ``sqlite3`` classes the store and its callers already handle (``IntegrityError``,
``OperationalError`` for a server that is down or a lost connection, ``DatabaseError``), each chained to the
psycopg error and saying it came from PostgreSQL.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from . import batch, write_behind
from .cursor import PgCursor
from .dialect import translate, values_tuple
from .errors import redact_url, sqlite_error
from .schema import translate_ddl
from .statistics import Statistics

log = logging.getLogger(__name__)
WRITE_LOCK = 0x6D33_6167   # advisory lock key of the store's write transactions ("m3ag")
IDENTITY_TABLES = frozenset({"clips", "nodes", "embeddings", "contents", "turns", "gaps", "runs", "edits"})
_INSERT = re.compile(r"^\s*INSERT\s+(?:OR\s+\w+\s+)?INTO\s+(\w+)\s*\(([^)]*)\)", re.I | re.S)
_WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE)\b", re.I)
_OR_REPLACE = re.compile(r"^\s*INSERT\s+OR\s+REPLACE\b", re.I)
_DDL = re.compile(r"^\s*(CREATE|ALTER|DROP)\b", re.I)
_PRAGMA = re.compile(r"^\s*PRAGMA\s+(\w+)\s*(?:\(\s*(\w*)\s*\))?\s*(?:=\s*(\S+))?\s*;?\s*$", re.I)
_SQLITE_MASTER = re.compile(r"SELECT 1 FROM sqlite_master WHERE type\s*=\s*'table' AND name\s*=\s*'(\w+)'", re.I)


def _default_id(sql: str, table: str, pos: int) -> str | None:
    """``INSERT INTO t (id, ...) VALUES (?, ...)`` with the id's value ``COALESCE(?, next id)``: SQLite gives a
    row whose id is NULL the next id, PostgreSQL refuses it."""
    m = re.search(r"\)\s*VALUES\s*\(", sql, re.I)
    if not m:
        return None
    start = m.end()
    values, end = values_tuple(sql, start)
    if pos >= len(values) or values[pos].strip() != "?":
        return None
    values[pos] = f" COALESCE(?, nextval(pg_get_serial_sequence('{table}', 'id')))"
    return sql[:start] + ",".join(values) + sql[end - 1:]


@lru_cache(maxsize=2048)
def _plan(sql: str) -> tuple[str, str | None, bool, int | None]:
    """(PostgreSQL statement, identity table whose new id it returns, writes?, position of an explicit id
    parameter (its table's identity is moved on after a row written with its own id))"""
    m = _SQLITE_MASTER.search(sql)
    if m:
        return (f"SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = '{m.group(1)}'",
                None, False, None)
    if _DDL.match(sql):
        return translate_ddl(sql), None, True, None
    ins = _INSERT.match(sql)
    returning_id, explicit = None, None
    if ins and ins.group(1).lower() in IDENTITY_TABLES:
        table = ins.group(1).lower()
        cols = [c.strip().lower() for c in ins.group(2).split(",")]
        if "id" in cols:
            explicit = cols.index("id")
            sql = _default_id(sql, table, explicit) or sql
        if not re.search(r"\sRETURNING\s", sql, re.I):
            returning_id = table
            sql = sql.rstrip().rstrip(";") + " RETURNING id"
    return translate(sql), returning_id, bool(_WRITE.match(sql)), explicit


class PgConnection:
    """See the module docstring. ``url``: a libpq URL (``postgresql://user@host/db``, ``?host=/socket/dir``)."""

    engine = "postgresql"
    hold_inserts = True   # hold a write transaction's plain inserts and send them together (write_behind.py)

    def __init__(self, url: str, readonly: bool = False, connect_timeout_s: float = 10.0,
                 busy_timeout_ms: int = 5000) -> None:

        self.url = url
        self.readonly = readonly
        self._mutex = threading.RLock()
        self._in_tx = False
        self._closed = False
        self._timeouts = (max(1, int(connect_timeout_s)), max(1, int(busy_timeout_ms)))
        self.reconnects = 0
        self._pipe = None   # the psycopg Pipeline of the write transaction in progress (and its context)
        self._pipe_cm = None
        self._identities: set[str] = set()   # tables given explicit ids in this write transaction
        self._deferred = False    # a write transaction whose lock waits for its commit (BEGIN DEFERRED)
        self._locked = False      # ... and has taken it
        self._held: list[tuple[list, str | None]] = []   # its updates and deletes until then ([sql, params, cursor])
        self._pools: dict[str, list[int]] = {}   # table -> ids reserved from its sequence, not handed out yet
        self._reserved_max: dict[str, int] = {}  # table -> the largest id ever reserved by this session
        self.statistics = Statistics()   # of the tables this writer fills (statistics.py)
        self._types: dict[tuple[str, str], str] | None = None   # (table, column) -> type, for batches (batch.py)
        self._batches: dict[str, tuple[batch.Plan, str, list] | None] = {}   # statement -> its batch form
        self._ranks: dict[str, int] = {}   # table -> depth below its foreign keys' parents (write_behind.py)
        self._behind = write_behind.WriteBehind()   # a write transaction's plain inserts, not sent yet
        self._conn = self._connect()

    def _connect(self):
        """A new session (the first, or after the server went away: a restart, a failover, a lost network)."""
        import psycopg

        try:
            conn = psycopg.connect(self.url, autocommit=True, connect_timeout=self._timeouts[0])
            self._types, self._batches = None, {}
            self._behind.clear()
            # how long a writer waits for another's write lock, as SQLite's busy timeout
            conn.execute(f"SET lock_timeout = {self._timeouts[1]}")
            if self.readonly:
                conn.execute("SET default_transaction_read_only = on")
        except psycopg.Error as e:
            raise sqlite3.OperationalError(f"cannot connect to PostgreSQL at {redact_url(self.url)}: "
                                           f"{str(e).strip()}") from e
        return conn

    # -- sqlite3.Connection's face ----------------------------------------------------------------------------
    @property
    def in_transaction(self) -> bool:
        return self._in_tx

    def _check_open(self) -> None:
        """Refuse a closed store; reconnect a session the server dropped, between transactions only (a transaction
        that lost its session is gone: its statements fail, its ROLLBACK succeeds, the caller retries or records
        the loss)."""
        if self._closed:
            raise sqlite3.ProgrammingError("Cannot operate on a closed database (the PostgreSQL connection is closed)")
        if (self._conn.closed or self._conn.broken) and not self._in_tx:
            self._conn = self._connect()
            self.reconnects += 1

    def execute(self, sql: str, params: Sequence[Any] | dict = ()) -> PgCursor:
        with self._mutex:
            self._check_open()
            head = sql.lstrip()[:16].upper()
            if head.startswith("PRAGMA"):
                try:
                    self._send_behind()
                    return self._pragma(sql)
                except Exception as e:
                    raise sqlite_error(e, sql) from e
            if head.startswith(("BEGIN", "COMMIT", "END", "ROLLBACK")):
                return self._tx_statement(head)
            pg, returning, writes, explicit = _plan(sql)
            if _DDL.match(sql):   # the tables' columns may change: batches look them up again
                self._types, self._batches = None, {}
            if self._holds_back(pg):
                held = [pg, params, None]
                self._held.append((held, None))
                return PgCursor(None, load=lambda: self._held_result(held, returning is not None, sql))
            behind = self._hold(pg, [params], explicit, returning, sql) if not isinstance(params, dict) else None
            if behind is not None:
                return PgCursor(None, load=lambda: self._behind_result(behind, returning is not None, sql))
            wrap = writes and not self._in_tx
            try:
                self._send_behind()
                if wrap:
                    with self._conn.transaction():
                        self._lock()
                        cur = self._run(pg, params, explicit, sql)
                else:
                    cur = self._run(pg, params, explicit, sql)
            except sqlite3.Error:
                raise
            except Exception as e:
                raise sqlite_error(e, sql) from e
            if self._pipe is not None:   # read when (if ever) the caller reads it
                return PgCursor(None, load=lambda: self._result(cur, returning is not None, sql))
            rows, count, rowid = self._result(cur, returning is not None, sql)
            return PgCursor(rows, count, rowid)

    def _result(self, cur, returning: bool, sql: str) -> tuple[list[tuple] | None, int, int | None]:
        """(rows, rowcount, lastrowid) of a statement's psycopg cursor; in a pipeline, after the statements before
        it have run."""
        with self._mutex:
            try:
                self._wait()
                if returning:
                    row = cur.fetchone()
                    return None, cur.rowcount, int(row[0]) if row else None
                return (cur.fetchall() if cur.description is not None else None), cur.rowcount, None
            except sqlite3.Error:
                raise
            except Exception as e:
                raise sqlite_error(e, sql) from e

    def executemany(self, sql: str, seq_of_params: Iterable[Sequence[Any]]) -> PgCursor:
        rows = [tuple(p) for p in seq_of_params]
        if not rows:
            return PgCursor(None, 0)
        with self._mutex:
            self._check_open()
            pg, _, writes, explicit = _plan(sql)
            if pg.upper().endswith(" RETURNING ID"):
                pg = pg[: -len(" RETURNING id")]
            if self._holds_back(pg):
                self._held.append(([pg, rows, None], "many"))
                return PgCursor(None, -1)
            if self._hold(pg, rows, explicit, None, sql) is not None:
                return PgCursor(None, -1)
            try:
                self._send_behind()
                if writes and not self._in_tx:
                    with self._conn.transaction():
                        self._lock()
                        n = self._many(pg, rows, explicit, sql)
                else:
                    n = self._many(pg, rows, explicit, sql)
            except Exception as e:
                raise sqlite_error(e, sql) from e
            return PgCursor(None, n)

    def reserve_ids(self, table: str, n: int, block: int = 256) -> list[int]:
        """``n`` new ids of ``table`` from its sequence, never given to anyone else (``nextval``: not undone by a
        rollback, so an id may be skipped, never given twice). Fetched ``block`` at a time: one read per block,
        not per clip. Ids of two writers interleave by blocks; the change log, not the ids, orders commits."""
        if table not in IDENTITY_TABLES:
            raise ValueError(f"{table} has no id sequence")
        with self._mutex:
            self._check_open()
            pool = self._pools.setdefault(table, [])
            if len(pool) < n:
                try:
                    cur = self._conn.execute(f"SELECT nextval(pg_get_serial_sequence('{table}', 'id')) "
                                             "FROM generate_series(1, %s)", (max(block, n - len(pool)),))
                    self._wait()
                    got = sorted(int(r[0]) for r in cur.fetchall())
                except Exception as e:
                    raise sqlite_error(e, f"nextval of {table}") from e
                pool.extend(got)
                self._reserved_max[table] = max(self._reserved_max.get(table, 0), got[-1])
            out = pool[:n]
            del pool[:n]
            return out

    def skip_ids_through(self, table: str, row_id: int) -> None:
        """A row written with an id of the caller's (an import): the ids handed out next come after it, as on SQLite
        (reserved ids up to it are dropped; the sequence moves past it now, never back)."""
        with self._mutex:
            pool = self._pools.get(table)
            if pool:
                self._pools[table] = [i for i in pool if i > row_id]
            if row_id > self._reserved_max.get(table, 0):
                seq = f"pg_get_serial_sequence('{table}', 'id')"
                try:
                    self._conn.execute(f"SELECT setval({seq}, GREATEST(%s, coalesce(pg_sequence_last_value("
                                       f"{seq}::regclass), 0)))", (row_id,))
                except Exception as e:
                    raise sqlite_error(e, f"setval of {table}") from e
                self._reserved_max[table] = row_id
                self._pools[table] = []

    def take_write_lock(self) -> bool:
        """In a ``BEGIN DEFERRED`` transaction: take the write lock now (sent, not waited for; the statements after
        it run once it is held), then run the updates and deletes held back until it; True when it did. A no-op in
        any other transaction (it holds the lock from its start)."""
        with self._mutex:
            if not (self._in_tx and self._deferred and not self._locked):
                return False
            try:
                self._lock_and_release_held()
            except Exception as e:
                raise sqlite_error(e, "take the write lock") from e
            return True

    def _lock_and_release_held(self) -> None:
        self._send_behind()   # before the lock, as if sent at once
        self._lock()
        self._locked = True
        held, self._held = self._held, []
        i = 0
        while i < len(held):
            stmt, many = held[i]
            pg, params, _ = stmt
            i += 1
            if many:   # neighbours of one form: one executemany (the same rows, in the same order)
                rows = list(params)
                while i < len(held) and held[i][1] and held[i][0][0] == pg:
                    rows += held[i][0][1]
                    i += 1
                self._many(pg, rows, None, pg)
            else:
                stmt[2] = self._run(pg, params, None, pg)

    def _holds_back(self, pg: str) -> bool:
        """An ``UPDATE`` or ``DELETE`` in a ``BEGIN DEFERRED`` transaction before its lock: held back until the lock
        is taken. Rows that exist already are changed (row-locked) only under the write lock, so a clip that took
        the lock early never waits for a row of a clip that waits for the lock (no deadlock); its own reads see
        those rows as they were until then (the store reads nothing it changed this way in the same clip)."""
        return (self._in_tx and self._deferred and not self._locked
                and pg.lstrip()[:6].upper() in ("UPDATE", "DELETE"))

    def _held_result(self, held: list, returning: bool, sql: str) -> tuple[list[tuple] | None, int, int | None]:
        """The result of a held-back statement, read: the lock is taken (and the statement run) first."""
        if held[2] is None:
            self.take_write_lock()
        return self._result(held[2], returning, sql)

    def close(self) -> None:
        with self._mutex:
            self._closed = True
            self._behind.clear()
            self._end_pipeline(quiet=True)
            self._conn.close()

    # -- internals -------------------------------------------------------------------------------------------
    def _identity_first(self, sql: str, explicit: int | None, rows: Sequence[Sequence[Any]]) -> None:
        """A row about to take its id from a table's identity, whose advance this transaction deferred: advance it
        now, so that id comes after the explicit ones."""
        m = _INSERT.match(sql)
        table = m.group(1).lower() if m else None
        if table in self._identities and (explicit is None or any(r[explicit] is None for r in rows)):
            self._identities.discard(table)
            self._set_identity(table)

    def _run(self, pg: str, params: Sequence[Any] | dict, explicit: int | None, sql: str):
        if self._identities and not isinstance(params, dict):
            self._identity_first(sql, explicit, [params])
        cur = self._conn.execute(pg, tuple(params) if not isinstance(params, dict) else params)
        if explicit is not None and params[explicit] is not None:  # type: ignore[index]
            self._advance_identity(sql, int(params[explicit]))  # type: ignore[index]
        return cur

    def _many(self, pg: str, rows: list[tuple], explicit: int | None, sql: str) -> int:
        if self._identities:
            self._identity_first(sql, explicit, rows)
        n = self._batch(pg, rows, sql) if len(rows) > 1 else None
        if n is None:
            with self._conn.cursor() as cur:
                cur.executemany(pg, rows)
                n = cur.rowcount if self._pipe is None else -1   # in a pipeline: not known until the next sync
        if explicit is not None:
            given = [int(r[explicit]) for r in rows if r[explicit] is not None]
            if given:
                self._advance_identity(sql, max(given))
        return n

    def _batch(self, pg: str, rows: list[tuple], sql: str) -> int | None:
        """The rows of an ``executemany`` in one statement (:mod:`.batch`); None where it does not apply (the caller
        sends them one by one)."""
        if pg not in self._batches:
            p = batch.plan(pg, bool(_OR_REPLACE.match(sql)))
            form = None
            if p is not None:
                st = batch.statement(p, self._catalog())
                form = (p, *st) if st is not None else None
            self._batches[pg] = form
        form = self._batches[pg]
        if form is None:
            return None
        p, statement, convert = form
        params = batch.parameters(p, convert, rows)
        if params is None:
            return None
        n = 0
        for one in params:
            cur = self._conn.execute(statement, one)
            n += cur.rowcount if self._pipe is None else 0
        return n if self._pipe is None else -1

    def _catalog(self) -> dict[tuple[str, str], str]:
        """The columns' types (for batches) and the tables' foreign-key depth (``_ranks``, for held inserts), read
        once per session and again after DDL."""
        if self._types is None:
            cols = self._conn.execute("SELECT table_name, column_name, data_type FROM "
                                      "information_schema.columns WHERE table_schema = current_schema()")
            keys = self._conn.execute("SELECT ch.relname, pa.relname FROM pg_constraint k JOIN pg_class ch "
                                      "ON ch.oid = k.conrelid JOIN pg_class pa ON pa.oid = k.confrelid "
                                      "WHERE k.contype = 'f' AND k.connamespace = current_schema()::regnamespace")
            self._wait()
            self._types = {(t.lower(), c.lower()): d for t, c, d in cols.fetchall()}
            self._ranks = write_behind.parent_ranks(keys.fetchall())
        return self._types

    def _hold(self, pg: str, rows: list, explicit: int | None, returning: str | None,
              sql: str) -> write_behind.Held | None:
        """A plain ``INSERT`` of a write transaction, held until the server needs it (:mod:`.write_behind`); None
        where it goes now: outside a pipeline, a new id only the server knows, a statement of another form."""
        table = write_behind.table_of(pg) if self._pipe is not None and self.hold_inserts else None
        if table is None:
            return None
        rows = [tuple(r) for r in rows]
        given = explicit is not None and all(r[explicit] is not None for r in rows)
        if returning is not None and not given:
            return None
        if table in self._identities and not given:   # its identity must move on first (a read of the table)
            return None
        if given:
            self._advance_identity(sql, max(int(r[explicit]) for r in rows))  # type: ignore[index]
        held = self._behind.hold(pg, table, rows, sql, explicit if given else None)
        if self._behind.full:
            try:
                self._send_behind()
            except Exception as e:
                raise sqlite_error(e, sql) from e
        return held

    def _send_behind(self, before: write_behind.Held | None = None) -> None:
        """Send the held inserts (or those held before ``before``): one statement per table and form, parents'
        tables first."""
        if not self._behind:
            return
        held = self._behind.take(before)
        if not held:
            return
        if self._types is None and len({h.table for h in held}) > 1:
            self._catalog()
        for h in held:
            h.sent = True
        for form, rows, sql in write_behind.groups(held, self._ranks):
            n = self._batch(form, rows, sql) if len(rows) > 1 else None
            if n is None:
                with self._conn.cursor() as cur:
                    cur.executemany(form, rows)

    def _behind_result(self, h: write_behind.Held, returning: bool, sql: str) -> tuple[list[tuple] | None, int,
                                                                                       int | None]:
        """The result of a held insert, read: sent now, on its own, after what was held before it (unless it was
        sent with others already: :meth:`write_behind.Held.result`)."""
        with self._mutex:
            if h.cursor is None:
                if h.sent or h.dropped:
                    return h.result()
                try:
                    self._send_behind(before=h)
                    self._behind.release(h)
                    h.cursor = self._conn.execute(h.form + (write_behind.RETURNING_ID if returning else ""), h.rows[0])
                except sqlite3.Error:
                    raise
                except Exception as e:
                    raise sqlite_error(e, sql) from e
            return self._result(h.cursor, returning, sql)

    def _advance_identity(self, sql: str, largest: int) -> None:
        """Rows written with their own ids (an import, a single robot's clip numbers): the identity goes on after
        the largest id; in a write transaction once per table, at its commit. Ids reserved from the sequence
        (:meth:`reserve_ids`) are behind it already."""
        table = _INSERT.match(sql).group(1).lower()  # type: ignore[union-attr]
        if largest <= self._reserved_max.get(table, 0):
            return
        if self._pipe is not None:
            self._identities.add(table)
            return
        self._set_identity(table)

    def _set_identity(self, table: str) -> None:
        """On after the table's largest id, never back (ids other writers reserved stay theirs)."""
        seq = f"pg_get_serial_sequence('{table}', 'id')"
        self._conn.execute(f"SELECT setval({seq}, GREATEST((SELECT coalesce(max(id), 0) FROM {table}), "
                           f"coalesce(pg_sequence_last_value({seq}::regclass), 0), 1))")

    def _wait(self) -> None:
        """In a pipeline: wait until every statement sent has its result (a Sync), unless every one has already (a
        second read of what one Sync brought back waits for nothing)."""
        if self._pipe is not None and (self._pipe.result_queue or self._pipe.command_queue):
            self._pipe.sync()

    def _lock(self) -> None:
        self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))

    def _tx_statement(self, head: str) -> PgCursor:
        import psycopg

        try:
            if head.startswith("BEGIN"):
                if any(w in head for w in ("DEFERRED", "IMMEDIATE", "EXCLUSIVE")):   # a write transaction
                    deferred = "DEFERRED" in head   # takes the lock for its commit only
                    if deferred:   # its BEGIN waits for nothing: it goes to the server with the first read
                        self._pipe_cm = self._conn.pipeline()
                        self._pipe = self._pipe_cm.__enter__()
                        try:
                            self._conn.execute("BEGIN")
                        except BaseException:
                            self._end_pipeline(quiet=True)
                            raise
                    else:
                        self._conn.execute("BEGIN")
                        try:
                            self._lock()
                        except BaseException:   # as SQLite's failed BEGIN IMMEDIATE: no transaction is left open
                            self._conn.execute("ROLLBACK")
                            raise
                        self._pipe_cm = self._conn.pipeline()
                        self._pipe = self._pipe_cm.__enter__()
                    self._in_tx, self._deferred, self._locked = True, deferred, False
                else:
                    self._conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
                    self._in_tx, self._deferred = True, False
            elif head.startswith("ROLLBACK"):
                self._in_tx = self._deferred = self._locked = False
                self._held = []
                self._behind.clear()
                self._identities.clear()
                self._end_pipeline(quiet=True)
                self._roll_back()
            else:
                deferred, locked, writes = self._deferred, self._locked, self._pipe is not None
                self._in_tx = self._deferred = self._locked = False
                try:
                    self._send_behind()
                    if deferred and not locked:   # every write commits under the lock (the log's order)
                        self._lock_and_release_held()
                        self._locked = False
                    for table in sorted(self._identities):
                        self._set_identity(table)
                    self._identities.clear()
                    # a write transaction's COMMIT goes in its pipeline: one wait for the last statements and it
                    commit = self._conn.execute("COMMIT") if writes else None
                    self._end_pipeline()   # every statement's result: an error of any of them comes out here
                    # a transaction that failed before (an error read and passed over) ends in ROLLBACK, not COMMIT
                    if (self._conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR
                            or (commit is not None and commit.statusmessage != "COMMIT")):
                        raise psycopg.errors.InFailedSqlTransaction(
                            "a statement of this transaction failed; it was rolled back, nothing was committed")
                except psycopg.Error:
                    self._end_pipeline(quiet=True)   # (an error read before the last sync leaves it open)
                    self._roll_back()
                    raise
                if not writes:
                    self._conn.execute("COMMIT")
                if writes:
                    self.statistics.after_commit(self._conn)
        except psycopg.Error as e:
            raise sqlite_error(e, head) from e
        return PgCursor(None)

    def _roll_back(self) -> None:
        """End a failed or abandoned transaction. A session the rollback cannot bring back to idle (psycopg left in
        an aborted pipeline, seen on a loaded machine) is closed; the next statement reconnects."""
        import psycopg

        if self._conn.closed or self._conn.broken:   # a lost session rolled back on its own
            return
        try:
            if self._conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                self._conn.execute("ROLLBACK")
            if self._conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE or \
                    self._conn.pgconn.pipeline_status != psycopg.pq.PipelineStatus.OFF:
                raise psycopg.OperationalError("the session is not idle after its rollback")
        except psycopg.Error as e:
            log.warning("PostgreSQL session reset after a failed transaction (%s): reconnecting", e)
            self._conn.close()

    def _end_pipeline(self, quiet: bool = False) -> None:
        cm, self._pipe, self._pipe_cm = self._pipe_cm, None, None
        if cm is None:
            return
        try:
            cm.__exit__(None, None, None)
        except Exception:
            if not quiet:
                raise

    def _pragma(self, sql: str) -> PgCursor:
        m = _PRAGMA.match(sql)
        name = (m.group(1) if m else "").lower()
        value = m.group(3) if m else None
        if name == "data_version":
            row = self._conn.execute("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint").fetchone()
            return PgCursor([(int(row[0]),)])
        if name == "query_only" and value is not None:
            on = value.strip().lower() in ("1", "on", "true", "yes")
            self._conn.execute(f"SET default_transaction_read_only = {'on' if on else 'off'}")
            return PgCursor(None)
        if name == "wal_checkpoint":
            return PgCursor([(0, 0, 0)])
        if value is None:
            return PgCursor([(0,)])
        return PgCursor(None)
