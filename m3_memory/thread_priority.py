"""Background threads yield the CPU to the memorization writer and to searches."""

from __future__ import annotations

import os
import threading


def lower_this_thread(nice: int) -> None:
    """Give the calling thread its own nice value (Linux: niceness is per thread); elsewhere, nothing."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
    except (AttributeError, OSError):
        pass
