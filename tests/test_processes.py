"""m3_memory.processes.process_exists: the one check behind stale import files, crashed runs and orphaned test
servers."""

from __future__ import annotations

import os
import subprocess
import sys

from m3_memory.processes import process_exists


def test_a_running_process_exists_and_a_reaped_one_does_not():
    assert process_exists(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()          # reaped: its pid names no process (until the kernel hands it out again)
    assert not process_exists(child.pid)


def test_another_users_process_counts_as_existing():
    assert process_exists(1)      # init: signalling it may be refused (EPERM), it still runs
