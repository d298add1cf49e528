"""The memory browser beside the nodes (``python -m m3_agent_ros.bringup --browser 8765``).

Its command line comes from the same params file as the nodes: the store is ``db_path`` and the ask page answers
with the control node's settings (``ControlParams.answerer_options``), so it asks what the robot would answer. It is
an ordinary process (``python -m m3_control.browser``), not a ROS node: it reads the SQLite store directly.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from m3_agent_ros.node_table import control_params
from m3_memory.store import store_location


def browser_argv(params_file: Path, port: int, host: str = "127.0.0.1", token_file: Path | None = None) -> list[str]:
    p = control_params(params_file)
    if not p.db_path:
        raise ValueError(f"{params_file} sets no db_path: the browser needs the memory store")
    argv = [sys.executable, "-m", "m3_control.browser", str(store_location(p.db_path)), "--host", host,
            "--port", str(port), "--answerer", p.answerer, "--answerer-options", json.dumps(p.answerer_options()),
            "--max-rounds", str(p.max_rounds)]
    return argv + (["--write-token-file", str(token_file)] if token_file else [])


def stop(proc: subprocess.Popen, timeout_s: float = 10.0) -> int:
    """SIGINT (uvicorn's clean stop), then SIGKILL after ``timeout_s``."""
    import signal

    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return int(proc.returncode)
