"""A background WAL checkpointer, so a clip's commit never pays for copying the WAL into the database file.

SQLite's automatic checkpoint runs inside the commit that crosses ``wal_autocheckpoint`` pages: every few clips
one commit copies the WAL back and fsyncs the database file (half the writer's time in the ingest benchmark).
Here a thread of the writing process runs ``PRAGMA wal_checkpoint(PASSIVE)`` on its own connection every
``interval_s`` instead: PASSIVE never blocks the writer or readers, and once every frame is copied the writer
starts the WAL over, so the file stays about one interval of writes long. The writer's own auto-checkpoint stays
on with a large threshold, a safety net should the thread fall behind. The thread ends with the store (``close``)
or when the store is garbage collected.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import weakref
from pathlib import Path

from ..thread_priority import lower_this_thread

log = logging.getLogger(__name__)


class Checkpointer:
    def __init__(self, owner: object, path: Path, interval_s: float, synchronous: str) -> None:
        self.path, self.interval_s, self.synchronous = path, interval_s, synchronous
        self._owner = weakref.ref(owner)
        self._stop = threading.Event()
        self.checkpoints = 0
        self._thread = threading.Thread(target=self._run, name="m3-wal-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        lower_this_thread(10)   # yield the CPU to the writer and to searches
        try:
            conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=1.0)
        except sqlite3.Error as e:
            log.warning("WAL checkpointer for %s not started: %s", self.path, e)
            return
        try:
            conn.execute(f"PRAGMA synchronous = {self.synchronous}")
            while not self._stop.wait(self.interval_s) and self._owner() is not None:
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    self.checkpoints += 1
                except sqlite3.Error as e:  # busy (a TRUNCATE checkpoint of a forget), or the file went away
                    log.debug("WAL checkpoint of %s skipped: %s", self.path, e)
        finally:
            conn.close()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
