"""Launch-free runner: start the nodes of the node table as subprocesses (no `ros2 launch` needed).

    python -m m3_agent_ros.bringup [--params config/default.yaml] [--only control] [--dry-run]

Each node runs as ``python -m <module> --ros-args -r __node:=<name> --params-file <params>``. The children
run in their own sessions; SIGINT/SIGTERM to the runner are forwarded to them as SIGINT (rclpy's clean
shutdown), escalated to SIGTERM and SIGKILL after ``--stop-timeout`` seconds each. When any node exits by
itself the others are stopped too. Exit status: 0 after a clean stop, else the failed node's status.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from m3_agent_ros.node_table import NODES, PACKAGE, NodeSpec, select

POLL_S = 0.2


def default_params_file() -> Path:
    """share/m3_agent/config/default.yaml of the installed package, else the source tree's."""
    try:
        from ament_index_python.packages import get_package_share_directory

        installed = Path(get_package_share_directory(PACKAGE)) / "config" / "default.yaml"
        if installed.is_file():
            return installed
    except Exception:  # not installed / ament_index not importable: use the source tree
        pass
    return Path(__file__).resolve().parent.parent / "config" / "default.yaml"


def _log(msg: str) -> None:
    print(f"[bringup] {msg}", file=sys.stderr, flush=True)


def _status(rc: int) -> int:
    return 128 - rc if rc < 0 else rc  # killed by signal N -> 128+N, as a shell reports it


class Supervisor:
    def __init__(self, specs: Sequence[NodeSpec], params_file: Path, stop_timeout: float) -> None:
        self.specs = list(specs)
        self.params_file = params_file
        self.stop_timeout = stop_timeout
        self.children: dict[str, subprocess.Popen[bytes]] = {}
        self.stop_requested = threading.Event()

    def request_stop(self, signum: int, frame: FrameType | None = None) -> None:
        if not self.stop_requested.is_set():
            _log(f"got {signal.Signals(signum).name}, stopping nodes")
        self.stop_requested.set()

    def start(self) -> None:
        for spec in self.specs:
            argv = spec.argv(self.params_file)
            proc = subprocess.Popen(argv, start_new_session=True)
            self.children[spec.key] = proc
            _log(f"started {spec.key} ({spec.node_name}) pid {proc.pid}: {' '.join(argv)}")

    def wait(self) -> int:
        """Block until a stop is requested or a node exits; then stop all and return the exit status."""
        failed: tuple[str, int] | None = None
        while failed is None and not self.stop_requested.wait(POLL_S):
            for key, proc in self.children.items():
                rc = proc.poll()
                if rc is not None:
                    failed = (key, rc)
                    _log(f"{key} exited with status {_status(rc)}, stopping the others")
                    break
        codes = self.stop_all()
        if failed is not None:
            return _status(failed[1])
        bad = {k: c for k, c in codes.items() if c != 0}
        if bad:
            _log(f"unclean exit: {bad}")
        return 1 if bad else 0

    def stop_all(self) -> dict[str, int]:
        """SIGINT all, then SIGTERM, then SIGKILL whatever is left; each step waits up to stop_timeout."""
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
            alive = [p for p in self.children.values() if p.poll() is None]
            if not alive:
                break
            for p in alive:
                p.send_signal(sig)
            for p in alive:
                try:
                    p.wait(timeout=self.stop_timeout)
                except subprocess.TimeoutExpired:
                    _log(f"pid {p.pid} ignored {sig.name}")
        return {k: _status(p.wait()) for k, p in self.children.items()}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m m3_agent_ros.bringup", description=__doc__.split("\n")[0])
    ap.add_argument("--params", type=Path, default=None, help="ROS params file (default: config/default.yaml)")
    ap.add_argument(
        "--only",
        action="append",
        metavar="NODE",
        help=f"run only these nodes (repeat or comma-separate; known: {', '.join(n.key for n in NODES)})",
    )
    ap.add_argument("--stop-timeout", type=float, default=10.0, help="seconds per stop signal (default 10)")
    ap.add_argument("--dry-run", action="store_true", help="print the node command lines and exit")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        specs = select(args.only)
    except ValueError as e:
        _log(str(e))
        return 2
    params_file = (args.params or default_params_file()).resolve()
    if not params_file.is_file():
        _log(f"params file not found: {params_file}")
        return 2
    if args.dry_run:
        for spec in specs:
            print(" ".join(spec.argv(params_file)))
        return 0
    sup = Supervisor(specs, params_file, args.stop_timeout)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, sup.request_stop)
    try:
        sup.start()
        return sup.wait()
    finally:
        sup.stop_all()


if __name__ == "__main__":
    sys.exit(main())
