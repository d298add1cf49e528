"""The robot's audio message packages for tests: tests/interfaces/<variant>/audio_common_msgs built with colcon.

Both variants are named ``audio_common_msgs`` (a robot has one of them, see tests/interfaces/SOURCES.md), so each is
built into its own install prefix and used by node and publisher subprocesses started with :func:`variant_env`.
The build is cached under the repo's build/test_interfaces/<variant>-<hash of the package files>/ (a rerun is
free; another checkout or an edited .msg builds anew) and guarded by a file lock (parallel sessions wait for it).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
INTERFACES = REPO_ROOT / "tests" / "interfaces"
CACHE = REPO_ROOT / "build" / "test_interfaces"
VARIANTS = ("audio_common_4x", "audio_common_ros2_port")
DONE = ".m3_built"


def _key(src: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(p for p in src.rglob("*") if p.is_file()):
        h.update(f.relative_to(src).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    h.update(sys.executable.encode())   # the generated type support is built for this interpreter (venv)
    return h.hexdigest()[:16]


def build_variant(variant: str, timeout: float = 600.0) -> Path:
    """The install prefix (merged) of ``variant``, building it with colcon first if needed."""
    src = INTERFACES / variant / "audio_common_msgs"
    if not (src / "package.xml").is_file():
        raise FileNotFoundError(f"no test interface package {src}")
    base = CACHE / f"{variant}-{_key(src)}"
    install = base / "install"
    if (install / DONE).is_file():
        return install
    base.mkdir(parents=True, exist_ok=True)
    with open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)   # another session building the same thing: wait for it
        if (install / DONE).is_file():
            return install
        for d in ("src", "build", "install", "log"):
            shutil.rmtree(base / d, ignore_errors=True)
        shutil.copytree(src, base / "src" / "audio_common_msgs")
        venv = os.environ.get("VIRTUAL_ENV") or sys.prefix
        colcon = shutil.which("colcon", path=str(Path(sys.executable).parent)) or shutil.which("colcon")
        if colcon is None:
            raise RuntimeError("colcon not found (the venv of scripts/setup.sh has it)")
        env = {k: v for k, v in os.environ.items() if k not in ("COLCON_PREFIX_PATH", "PYTHONPATH")}
        env.update(CMAKE_PREFIX_PATH=venv, AMENT_PREFIX_PATH=venv)   # as scripts/setup.sh builds m3_agent
        cmd = [colcon, "--log-base", str(base / "log"), "build", "--merge-install",
               "--base-paths", str(base / "src"), "--build-base", str(base / "build"),
               "--install-base", str(install), "--event-handlers", "console_direct-", "console_cohesion-",
               "--cmake-args", f"-DPython3_EXECUTABLE={sys.executable}", "-DBUILD_TESTING=OFF"]
        res = subprocess.run(cmd, cwd=base, env=env, capture_output=True, text=True, timeout=timeout)
        if res.returncode != 0:
            raise RuntimeError(f"colcon build of {src} failed ({res.returncode}):\n{res.stdout[-3000:]}\n"
                               f"{res.stderr[-3000:]}\nlogs: {base / 'log'}")
        (install / DONE).write_text(" ".join(cmd) + "\n")
    return install


def site_packages(install: Path) -> Path:
    found = sorted(install.glob("lib/python3*/site-packages"))
    if not found:
        raise FileNotFoundError(f"no lib/python3*/site-packages under {install}")
    return found[0]


def variant_env(install: Path) -> dict[str, str]:
    """Environment additions for a subprocess that uses this audio_common_msgs (for ros_helpers.ros_env(extra)):
    its python package, its type support libraries (LD_LIBRARY_PATH must be set before python starts) and its
    ament prefix, in front of the session's (the source tree stays first on PYTHONPATH)."""

    def join(*parts: str) -> str:
        return os.pathsep.join(p for p in parts if p)

    return {"PYTHONPATH": join(str(REPO_ROOT), str(site_packages(install)), os.environ.get("PYTHONPATH", "")),
            "LD_LIBRARY_PATH": join(str(install / "lib"), os.environ.get("LD_LIBRARY_PATH", "")),
            "AMENT_PREFIX_PATH": join(str(install), os.environ.get("AMENT_PREFIX_PATH", ""))}
