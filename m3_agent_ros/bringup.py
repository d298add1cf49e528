"""Launch-free runner: start the nodes of the node table as subprocesses (no `ros2 launch` needed).

    python -m m3_agent_ros.bringup [--params config/default.yaml] [--namespace robot1] [--name control=ctl]
                                   [--remap FROM:=TO] [--only control] [--dry-run]

The same arguments as ``ros2 launch m3_agent m3_agent.launch.py`` (namespace, node names, params file). Each node
runs as ``python -m <module> --ros-args -r __node:=<name> [-r __ns:=/<namespace>] --params-file <params>``; with a
namespace or other node names, the params file's node sections are re-keyed to the nodes' fully qualified names
(a temporary copy, removed at exit; node_table.params_doc). Relative topic and service names then resolve in the
namespace: the Query service is /robot1/m3_agent/query. The children
run in their own sessions; SIGINT/SIGTERM to the runner are forwarded to them as SIGINT (rclpy's clean
shutdown), escalated to SIGTERM and SIGKILL after ``--stop-timeout`` seconds each. When any node exits by
itself the others are stopped too. Exit status: 0 after a clean stop, else the failed node's status.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import FrameType

import yaml

from m3_agent_ros.browser_launch import browser_argv
from m3_agent_ros.browser_launch import stop as stop_browser
from m3_agent_ros.node_table import NODES, PACKAGE, NodeSpec, normalize_namespace, params_doc, parse_names, select

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


def node_argvs(specs: Sequence[NodeSpec], params_file: Path, namespace: str = "",
               names: Mapping[str, str] | None = None, ros_args: Sequence[str] = ()) -> list[list[str]]:
    names = names or {}
    return [s.argv(params_file, ros_args=ros_args, namespace=namespace, node_name=names.get(s.key)) for s in specs]


class Supervisor:
    def __init__(self, specs: Sequence[NodeSpec], params_file: Path, stop_timeout: float, namespace: str = "",
                 names: Mapping[str, str] | None = None, ros_args: Sequence[str] = ()) -> None:
        self.specs = list(specs)
        self.params_file = params_file
        self.stop_timeout = stop_timeout
        self.namespace, self.names, self.ros_args = namespace, dict(names or {}), list(ros_args)
        self.children: dict[str, subprocess.Popen[bytes]] = {}
        self.stop_requested = threading.Event()

    def request_stop(self, signum: int, frame: FrameType | None = None) -> None:
        if not self.stop_requested.is_set():
            _log(f"got {signal.Signals(signum).name}, stopping nodes")
        self.stop_requested.set()

    def start(self) -> None:
        argvs = node_argvs(self.specs, self.params_file, self.namespace, self.names, self.ros_args)
        for spec, argv in zip(self.specs, argvs, strict=True):
            proc = subprocess.Popen(argv, start_new_session=True)
            self.children[spec.key] = proc
            name = f"{self.namespace}/{self.names.get(spec.key, spec.node_name)}"
            _log(f"started {spec.key} ({name}) pid {proc.pid}: {' '.join(argv)}")

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
    ap = argparse.ArgumentParser(prog="python -m m3_agent_ros.bringup", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--params", "--params-file", type=Path, default=None,
                    help="ROS params file (default: config/default.yaml of the package)")
    ap.add_argument("--namespace", default="", help="ROS namespace of every node, e.g. robot1 (default: none)")
    ap.add_argument("--name", action="append", metavar="KEY=NAME",
                    help="node name instead of the table's, e.g. control=ctl (repeat or comma-separate)")
    ap.add_argument("--remap", action="append", default=[], metavar="FROM:=TO",
                    help="name remapping for every node (-r FROM:=TO), e.g. camera/image_raw:=/cam/image")
    ap.add_argument(
        "--only",
        action="append",
        metavar="NODE",
        help=f"run only these nodes (repeat or comma-separate; known: {', '.join(n.key for n in NODES)})",
    )
    ap.add_argument("--stop-timeout", type=float, default=10.0, help="seconds per stop signal (default 10)")
    ap.add_argument("--dry-run", action="store_true", help="print the node command lines and exit")
    ap.add_argument("--browser", type=int, default=None, metavar="PORT",
                    help="also serve the memory browser on 127.0.0.1:PORT (m3_agent_ros/browser_launch.py)")
    ap.add_argument("--browser-token-file", type=Path, default=None, metavar="FILE",
                    help="the browser's write token (default: $M3_BROWSER_TOKEN, else read-only)")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        specs = select(args.only)
        namespace, names = normalize_namespace(args.namespace), parse_names(args.name)
    except ValueError as e:
        _log(str(e))
        return 2
    bad = [r for r in args.remap if ":=" not in r]
    if bad:
        _log(f"--remap {bad[0]!r}: expected FROM:=TO")
        return 2
    ros_args = [a for r in args.remap for a in ("-r", r)]
    params_file = (args.params or default_params_file()).resolve()
    if not params_file.is_file():
        _log(f"params file not found: {params_file}")
        return 2
    tmp: Path | None = None
    if namespace or names:  # the node sections must name the nodes as they will be called
        tmp = Path(tempfile.mkdtemp(prefix="m3_bringup_"))
        doc = yaml.safe_load(params_file.read_text()) or {}
        params_file = tmp / params_file.name
        params_file.write_text(yaml.safe_dump(params_doc(doc, namespace, names), sort_keys=False))
    try:
        browser = browser_argv(params_file, args.browser, token_file=args.browser_token_file) \
            if args.browser is not None else None
    except (ValueError, TypeError, OSError) as e:
        _log(f"--browser: {e}")
        return 2
    if args.dry_run:
        for cmd in node_argvs(specs, params_file, namespace, names, ros_args):
            print(" ".join(cmd))
        if browser is not None:
            print(shlex.join(browser))
        if tmp is not None:
            _log(f"kept the namespaced params file {params_file} for these command lines")
        return 0
    sup = Supervisor(specs, params_file, args.stop_timeout, namespace, names, ros_args)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, sup.request_stop)
    web: subprocess.Popen[bytes] | None = None
    try:
        sup.start()
        if browser is not None:  # beside the nodes, not supervised by them: it only reads the store
            web = subprocess.Popen(browser, start_new_session=True)
            _log(f"started the memory browser pid {web.pid} on http://127.0.0.1:{args.browser}/")
        return sup.wait()
    finally:
        sup.stop_all()
        if web is not None:
            stop_browser(web, args.stop_timeout)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
