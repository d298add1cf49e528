"""Whether a process still runs, for files and records that name the process that made them."""

from __future__ import annotations

import os


def process_exists(pid: int) -> bool:
    """Whether a process with this id runs on this host (another user's counts; a pid reused since is not told
    apart). Where there is no cheap check (not POSIX), True: callers never remove what another process may own."""
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
