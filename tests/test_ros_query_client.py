"""The query CLI (python -m m3_agent_ros.query_client) against a real control node over DDS: the node runs in a
namespace and the CLI finds it with --namespace; without it, the CLI says the service is not there (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from m3_agent_ros.query_client import DEFAULT_SERVICE, service_in

from .openai_server import FakeOpenAI
from .ros_helpers import REPO_ROOT, make_demo_store, start_module

SEARCH = "Action: [Search]\nContent: Where are the car keys?"
ANSWER = "Action: [Answer]\nContent: The car keys are in the blue drawer."


def _cli(*args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "m3_agent_ros.query_client", *args], cwd=REPO_ROOT, env=os.environ,
                          capture_output=True, text=True, timeout=timeout)


def test_service_in_a_namespace() -> None:
    assert service_in("") == DEFAULT_SERVICE == "/m3_agent/query"
    assert service_in("robot1") == service_in("/robot1/") == "/robot1/m3_agent/query"
    assert service_in("fleet/robot_2") == "/fleet/robot_2/m3_agent/query"
    with pytest.raises(ValueError, match="not a valid ROS name token"):
        service_in("robot-1")


def test_cli_refuses_a_bad_namespace_and_both_flags() -> None:
    bad = _cli("where?", "--namespace", "2robot", "--wait", "1")
    assert bad.returncode == 2 and "not a valid ROS name token" in bad.stderr, bad.stderr
    both = _cli("where?", "--namespace", "robot1", "--service", "/x/query", "--wait", "1")
    assert both.returncode == 2 and "not allowed with argument" in both.stderr, both.stderr


@pytest.mark.ros
def test_cli_asks_the_control_node_in_its_namespace(tmp_path: Path) -> None:
    make_demo_store(tmp_path / "memory.db")
    server = FakeOpenAI(tmp_path, [SEARCH, ANSWER])
    params = {"db_path": tmp_path / "memory.db", "answerer": "m3", "prompt": "m3", "backend": "openai",
              "backend_base_url": server.base_url, "backend_model": "m3-agent-control"}
    args = ["--ros-args", "-r", "__ns:=/robot7", "-r", "__node:=m3_agent_control"]
    for key, value in params.items():
        args += ["-p", f"{key}:={value}"]
    proc = start_module("m3_agent_ros.control_node", args, tmp_path / "control.log")
    try:
        res = _cli("Where are the car keys?", "--namespace", "robot7", "--wait", "30", "--json")
        assert res.returncode == 0, (res.stdout, res.stderr, proc.describe())
        out = json.loads(res.stdout)
        assert out["success"] and out["answer"] == "The car keys are in the blue drawer.", out
        assert out["searches"] == ["Where are the car keys?"] and out["cited_memory_ids"], out
        assert out["rounds_used"] == 2, out
        # the root namespace has no control node: the CLI says so within its --wait instead of hanging
        missing = _cli("Where are the car keys?", "--wait", "3")
        assert missing.returncode == 2 and "service /m3_agent/query not available" in missing.stderr, missing.stderr
    finally:
        rc = proc.stop(timeout=20)
        server.close()
    assert rc == 0, proc.describe()
