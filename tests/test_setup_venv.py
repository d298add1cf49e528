"""scripts/distro.sh's m3_venv_make: a venv whose creation was cut off is made again, a folder that is not a venv is
left alone with a clear error (setup.sh runs it before anything else; CI once failed on such a venv)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _make(venv: Path) -> subprocess.CompletedProcess:
    script = f'. scripts/distro.sh && m3_venv_make "{venv}" && m3_venv_whole "{venv}" && echo WHOLE'
    env = {"PATH": "/usr/bin:/bin", "HOME": str(venv.parent), "PYTHON": sys.executable, "M3_ROS_DISTRO": "none"}
    return subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_a_venv_cut_off_during_ensurepip_is_made_again(tmp_path: Path) -> None:
    venv = tmp_path / "cut"
    # what a kill during ensurepip leaves: the interpreter links and pyvenv.cfg, no activate, no pip
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (venv / "bin" / "activate").unlink()
    done = _make(venv)
    assert done.returncode == 0, done.stderr
    assert "incomplete" in done.stdout and "WHOLE" in done.stdout
    assert (venv / "bin" / "activate").is_file()


def test_a_whole_venv_is_kept(tmp_path: Path) -> None:
    venv = tmp_path / "whole"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    marker = venv / "kept"
    marker.write_text("x")
    done = _make(venv)
    assert done.returncode == 0, done.stderr
    assert "incomplete" not in done.stdout and marker.exists()


def test_a_folder_that_is_not_a_venv_is_left_alone(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    done = _make(folder)
    assert done.returncode != 0
    assert "not a venv" in done.stderr
    assert (folder / "notes.txt").read_text() == "mine"
