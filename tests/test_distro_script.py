"""scripts/distro.sh: one distro per shell. A shell that sourced one distro's workspace (scripts/ros_env.sh exports
M3_ACTIVE_DISTRO) keeps it on LD_LIBRARY_PATH / PYTHONPATH, so another distro's run from it would load the first
one's libraries (a Python 3.12 Jazzy process aborted dlopen()ing Kilted's interfaces built for 3.11): refused, with
the reason; with M3_ROS_DISTRO unset the shell's own distro is the default."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _distro(**env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("M3_ROS_DISTRO", "M3_ACTIVE_DISTRO")}
    return subprocess.run(["bash", "-c", '. scripts/distro.sh && echo "$m3_distro $m3_install_base"'], cwd=REPO,
                          env={**base, **env}, capture_output=True, text=True, timeout=30)


def test_another_distro_than_the_shells_is_refused_with_the_reason() -> None:
    r = _distro(M3_ACTIVE_DISTRO="kilted", M3_ROS_DISTRO="jazzy")
    assert r.returncode != 0 and "this shell has the kilted workspace sourced" in r.stderr, (r.stdout, r.stderr)


def test_the_shells_own_distro_is_the_default_and_a_fresh_shell_gets_kilted() -> None:
    assert _distro(M3_ACTIVE_DISTRO="jazzy").stdout.split() == ["jazzy", "install-jazzy"]
    assert _distro(M3_ACTIVE_DISTRO="jazzy", M3_ROS_DISTRO="jazzy").stdout.split() == ["jazzy", "install-jazzy"]
    assert _distro().stdout.split() == ["kilted", "install"]
    assert _distro(M3_ROS_DISTRO="none").stdout.split() == ["none"]
