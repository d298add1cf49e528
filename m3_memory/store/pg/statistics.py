"""Planner statistics for a store that grows faster than autovacuum looks at it.

PostgreSQL plans a statement from its tables' statistics, which autovacuum's ``ANALYZE`` refreshes when it visits a
database (every ``autovacuum_naptime``, one minute by default, later on a busy server). A new robot's store grows by
thousands of rows a second in an import or a benchmark: until the first visit its tables have no statistics, and
the planner guesses (a third of a table for ``seq > ?``, half a percent for ``clip_id = ?``) and may scan a whole
table where an index finds a handful of rows (measured: the clip search's memories of a clip 3.6 ms instead of
0.1 ms at 100k memories). After a write transaction, at most every :data:`CHECK_EVERY_S`, the writer asks the
server which of the store's tables changed by more than half since they were last analyzed (and by more than
:data:`MIN_CHANGED` rows) and analyzes them; on a store that grows slowly, as a robot's memorization does,
autovacuum has done it first and this finds nothing to do.
"""

from __future__ import annotations

import logging
import time

log = logging.getLogger("m3_memory.store")

CHECK_EVERY_S = 2.0
MIN_CHANGED = 1000
SHARE_CHANGED = 0.5


class Statistics:
    """Keeps one connection's store tables analyzed (see the module docstring)."""

    def __init__(self) -> None:
        self._checked = time.monotonic()
        self.analyzed: list[str] = []   # tables this connection analyzed, in order (for tests and logs)

    def after_commit(self, conn) -> None:
        """``conn``: a psycopg connection in autocommit, outside any transaction."""
        now = time.monotonic()
        if now - self._checked < CHECK_EVERY_S:
            return
        self._checked = now
        conn.execute("SELECT pg_stat_force_next_flush()")   # this session's counts, as of now (PostgreSQL >= 15)
        rows = conn.execute("SELECT relname, n_live_tup, n_mod_since_analyze FROM pg_stat_user_tables "
                            "WHERE schemaname = current_schema()").fetchall()
        stale = [t for t, live, changed in rows if changed >= MIN_CHANGED and changed >= SHARE_CHANGED * live]
        for table in stale:
            t0 = time.perf_counter()
            conn.execute(f'ANALYZE "{table}"')
            self.analyzed.append(table)
            log.debug("analyzed %s (%.0f ms): it changed by more than half since its statistics", table,
                      1000 * (time.perf_counter() - t0))
