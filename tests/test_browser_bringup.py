"""The memory browser beside the nodes: bringup's --browser builds its command line from the nodes' params file
(same store, the control node's answerer) and the process it starts serves and stops cleanly."""

from __future__ import annotations

import json
import os
import queue
import shlex
import subprocess
import threading
from pathlib import Path

import httpx
import yaml

from m3_agent_ros.bringup import main as bringup_main
from m3_agent_ros.browser_launch import browser_argv, stop
from m3_agent_ros.node_table import control_params

from .conftest import REPO_ROOT
from .people_helpers import meeting_store


def _params(tmp_path: Path, db: Path, **control: object) -> Path:
    path = tmp_path / "params.yaml"
    doc = yaml.safe_load((REPO_ROOT / "config" / "default.yaml").read_text())
    doc["/**"]["ros__parameters"]["db_path"] = str(db)
    doc["m3_agent_control"]["ros__parameters"].update(control)
    path.write_text(yaml.safe_dump(doc))
    return path


def test_dry_run_prints_the_browser_with_the_control_nodes_answerer(tmp_path, capsys):
    params = _params(tmp_path, tmp_path / "m.db", max_rounds=4, threshold=0.25)
    assert bringup_main(["--dry-run", "--params", str(params), "--browser", "8799"]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    argv = shlex.split(line)
    assert argv[1:4] == ["-m", "m3_control.browser", str(tmp_path / "m.db")]
    opts = dict(zip(argv[4::2], argv[5::2], strict=False))
    assert opts["--port"] == "8799" and opts["--host"] == "127.0.0.1" and opts["--max-rounds"] == "4"
    assert json.loads(opts["--answerer-options"]) == control_params(params).answerer_options()
    assert json.loads(opts["--answerer-options"])["threshold"] == 0.25


def test_the_started_browser_serves_the_store_and_stops_on_sigint(tmp_path):
    store, _ = meeting_store(tmp_path / "m.db")
    store.close()
    argv = browser_argv(_params(tmp_path, tmp_path / "m.db", answerer="extractive"), 0)
    env = {**os.environ, "PYTHONPATH": f"{REPO_ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()  # type: ignore
        line = lines.get(timeout=60)
        assert line.startswith("m3 memory browser: http://127.0.0.1:") and "read-only" in line
        url = line.split()[3]
        health = httpx.get(url + "healthz", timeout=30).json()
        assert health["ok"] and health["memories"] == 20 and health["writable"] is False
        assert "Ann" in httpx.get(url + "people", timeout=30).text
    finally:
        assert stop(proc, 15) == 0
