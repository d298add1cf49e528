"""Every command a user runs has a working --help that documents each option, positional and subcommand: the
console scripts of setup.py (installed, and their argparse parsers probed by tests/cli_help_probe.py) and the
node executables of nodes/ (`ros2 run m3_agent <node> --help` lists every parameter with its doc and rule)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from m3_agent_ros.params import ControlParams, MemorizationParams

from .ros_helpers import REPO_ROOT, ros_env

_SETUP = (REPO_ROOT / "setup.py").read_text()
CONSOLE_SCRIPTS = dict(re.findall(r'"([\w-]+)=([\w.]+:\w+)"', _SETUP[_SETUP.index('"console_scripts"'):
                                                                    _SETUP.index('"m3_memory.commands"')]))
NODE_PARAMS = {"memorization_node": MemorizationParams, "control_node": ControlParams}


def _run(argv: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT, env=ros_env())


def test_the_console_scripts_are_found() -> None:
    assert {"m3-memory", "m3-bag", "m3-bench", "m3-replay"} <= set(CONSOLE_SCRIPTS), CONSOLE_SCRIPTS


@pytest.mark.parametrize("name", sorted(CONSOLE_SCRIPTS))
def test_console_script_help_documents_everything(name: str) -> None:
    exe = shutil.which(name)
    assert exe, f"{name} is not installed (pip install -e . / bash scripts/setup.sh)"
    real = _run([exe, "--help"])
    assert real.returncode == 0 and "usage:" in real.stdout, real.stdout + real.stderr
    probe = _run([sys.executable, str(REPO_ROOT / "tests" / "cli_help_probe.py"), CONSOLE_SCRIPTS[name]])
    assert probe.returncode == 0, probe.stderr[-3000:]
    report = json.loads(probe.stdout.strip().splitlines()[-1])
    assert report["rc"] == 0 and report["description"], report
    assert all(rc == 0 for rc in report["subcommands"].values()), report["subcommands"]
    assert not report["missing"], f"{name}: no help text for {report['missing']}"


def test_bringup_help_documents_everything() -> None:
    probe = _run([sys.executable, str(REPO_ROOT / "tests" / "cli_help_probe.py"), "m3_agent_ros.bringup:main"])
    report = json.loads(probe.stdout.strip().splitlines()[-1])
    assert report["rc"] == 0 and report["description"] and not report["missing"], report


@pytest.mark.ros
@pytest.mark.parametrize("node", sorted(NODE_PARAMS))
def test_node_executable_help_lists_every_parameter(node: str) -> None:
    """nodes/<node> --help prints the node's doc and every parameter (type, default, range/choices, when it applies,
    description) and exits 0 without starting the node."""
    res = _run([str(REPO_ROOT / "nodes" / node), "--help"], timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    out, params = res.stdout, NODE_PARAMS[node]
    assert out.startswith(f"{node.split('_')[0].capitalize()} node:"), out[:200]   # the module's doc
    for name, doc in params.docs().items():
        m = re.search(rf"^  {name} \((\w+), default [^\n]*\)\n      (.+)$", out, re.M)
        assert m and m.group(2) == doc, f"{node} --help: {name} missing or without its description"
        rule = params.rule(name)
        if rule.range is not None:
            assert f"range {rule.range[0]:g}..{rule.range[1]:g}" in m.group(0), m.group(0)
    assert "read-only" in out and "applied at once" in out and "applied at configure" in out
    assert "[INFO]" not in res.stderr, "the node started instead of printing its help"


def test_every_node_executable_has_help() -> None:
    """nodes/ holds exactly the node executables above plus the runner, each answering --help."""
    assert {p.name for p in (REPO_ROOT / "nodes").iterdir() if p.is_file()} == {*NODE_PARAMS, "bringup"}
    res = _run([sys.executable, str(REPO_ROOT / "nodes" / "bringup"), "--help"])
    assert res.returncode == 0 and "--namespace" in res.stdout and "--params" in res.stdout, res.stdout + res.stderr
