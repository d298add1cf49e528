"""Helpers for multi-process ROS tests: node subprocesses with the session's DDS env, deadline waits.

Never sleep-then-assert: discovery takes 0.05-3 s per participant, so everything here polls until a
condition holds or a deadline passes, and failures carry the node's log.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
# the sourced distro's colcon build and install bases (scripts/ros_env.sh: build-jazzy/ install-jazzy/ for Jazzy)
BUILD_BASE = Path(os.environ.get("M3_COLCON_BUILD_BASE") or REPO_ROOT / "build")
INSTALL_BASE = Path(os.environ.get("M3_COLCON_INSTALL_BASE") or REPO_ROOT / "install")
T = TypeVar("T")
# set by tests/conftest.py: the shipped Fast DDS profile, which keeps every DDS socket on 127.0.0.1
LOOPBACK_DDS_KEYS = ("RMW_IMPLEMENTATION", "FASTDDS_DEFAULT_PROFILES_FILE", "FASTRTPS_DEFAULT_PROFILES_FILE",
                     "ROS_AUTOMATIC_DISCOVERY_RANGE")


def ros_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """os.environ (loopback-only DDS profile, ROS_DOMAIN_ID etc. set by conftest) with the source tree first on
    PYTHONPATH. ``extra`` may not change the DDS settings: every node the tests start stays on 127.0.0.1."""
    env = dict(os.environ)
    from m3_agent_ros import dds_env

    required = [k for k in LOOPBACK_DDS_KEYS if k != "FASTRTPS_DEFAULT_PROFILES_FILE" or dds_env.fast_dds_2(env)]
    for key in (*required, "ROS_DOMAIN_ID", "ROS_LOG_DIR"):
        if key not in env:
            raise RuntimeError(f"{key} is not set: tests/conftest.py must run first")
    extra = dict(extra or {})
    changed = [k for k in LOOPBACK_DDS_KEYS if k in extra and extra[k] != env.get(k)]
    if changed:
        raise ValueError(f"ros_env: {changed} would take the node off the loopback-only DDS profile")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    env["RCUTILS_LOGGING_BUFFERED_STREAM"] = "0"
    env.update(extra)
    return env


def wait_until(
    predicate: Callable[[], T],
    timeout: float,
    what: str,
    interval: float = 0.05,
    on_fail: Callable[[], str] | None = None,
) -> T:
    """Poll ``predicate`` until it returns a truthy value (returned) or raise TimeoutError after ``timeout``.

    ``on_fail`` (e.g. ``proc.describe``) adds context, such as a node's log, to the error.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            extra = f"\n{on_fail()}" if on_fail is not None else ""
            raise TimeoutError(f"timed out after {timeout:.1f} s waiting for {what}{extra}")
        time.sleep(interval)


def write_params_file(path: Path, node_params: Mapping[str, Mapping[str, Any]]) -> Path:
    """A ROS params file: ``{node_name_or_/**: {param: value}}``."""
    doc = {node: {"ros__parameters": dict(params)} for node, params in node_params.items()}
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


class NodeProcess:
    """A node (or bringup) subprocess with stdout+stderr captured to a log file."""

    def __init__(self, argv: Sequence[str], log_path: Path, env: Mapping[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.log_path = log_path
        self._log = open(log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            self.argv, stdout=self._log, stderr=subprocess.STDOUT, env=dict(env or ros_env()), cwd=REPO_ROOT
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def output(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def describe(self) -> str:
        rc = self.proc.poll()
        state = "running" if rc is None else f"exited with {rc}"
        return f"process {' '.join(self.argv)} ({state}), log:\n{self.output()[-4000:]}"

    def send_signal(self, sig: int) -> None:
        if self.alive():
            self.proc.send_signal(sig)

    def wait(self, timeout: float) -> int:
        return self.proc.wait(timeout=timeout)

    def stop(self, timeout: float = 10.0, sig: int = signal.SIGINT) -> int:
        """Ask it to stop with ``sig``; SIGTERM, then SIGKILL if it doesn't within ``timeout`` each."""
        try:
            for s in (sig, signal.SIGTERM):
                if not self.alive():
                    break
                self.proc.send_signal(s)
                try:
                    self.proc.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    continue
            if self.alive():
                self.proc.kill()
                self.proc.wait(timeout=timeout)
            return int(self.proc.returncode)
        finally:
            self._log.close()

    def __enter__(self) -> NodeProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_module(module: str, args: Sequence[str], log_path: Path, env: Mapping[str, str] | None = None) -> NodeProcess:
    """``python -m module args...`` with the session's ROS env."""
    return NodeProcess([sys.executable, "-m", module, *args], log_path, env)


def wait_for_service(client: Any, timeout_sec: float = 15.0, proc: NodeProcess | None = None) -> None:
    """client.wait_for_service with a deadline; fails early (with the log) if ``proc`` dies."""
    deadline = time.monotonic() + timeout_sec
    while not client.wait_for_service(timeout_sec=0.25):
        if proc is not None and not proc.alive():
            raise AssertionError(f"server died before {client.srv_name} appeared: {proc.describe()}")
        if time.monotonic() >= deadline:
            extra = proc.describe() if proc is not None else ""
            raise TimeoutError(f"service {client.srv_name} not available after {timeout_sec} s\n{extra}")


class RosTestNode:
    """A client-side node in its own rclpy context with its own executor (init/shutdown are paired)."""

    def __init__(self, name: str) -> None:
        import rclpy
        from rclpy.executors import SingleThreadedExecutor

        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(name, context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)

    def call(self, client: Any, request: Any, timeout_sec: float = 30.0, proc: NodeProcess | None = None) -> Any:
        """Synchronous service call: spin until the response arrives or the deadline passes."""
        future = client.call_async(request)
        deadline = time.monotonic() + timeout_sec
        while not future.done():
            self.executor.spin_until_future_complete(future, timeout_sec=0.1)
            if future.done():
                break
            if proc is not None and not proc.alive():
                raise AssertionError(f"server died during {client.srv_name} call: {proc.describe()}")
            if time.monotonic() >= deadline:
                client.remove_pending_request(future)
                extra = proc.describe() if proc is not None else ""
                raise TimeoutError(f"no response from {client.srv_name} within {timeout_sec} s\n{extra}")
        exc = future.exception()
        if exc is not None:
            raise exc
        return future.result()

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        self.context.try_shutdown()


def make_demo_store(path: Path) -> dict[str, int]:
    """A small real store: two people over three 30 s clips. Returns memory/entity ids by name."""
    import numpy as np

    from m3_memory import MemoryStore

    rng = np.random.default_rng(3)

    def face() -> np.ndarray:
        v = rng.normal(size=(2, 128)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    ids: dict[str, int] = {}

    def add(w: Any, key: str, text: str, kind: str = "episodic") -> None:
        node_id = w.add_memory(text, kind).node_id
        assert node_id is not None, f"memory {key!r} was not inserted"
        ids[key] = int(node_id)

    store = MemoryStore(path)
    try:
        with store.begin_clip(0, 0.0, 30.0) as w:
            a = ids["anna"] = w.add_entity("face", face(), ["anna crop"])
            b = ids["ben"] = w.add_entity("face", face(), ["ben crop"])
            add(w, "mug", f"<face_{a}> puts the red mug on the kitchen table.")
            add(w, "newspaper", f"<face_{b}> reads a newspaper on the sofa.")
        with store.begin_clip(1, 30.0, 60.0) as w:
            add(w, "plants", f"<face_{b}> waters the plants on the balcony.")
        with store.begin_clip(2, 60.0, 90.0) as w:
            add(w, "keys", f"<face_{a}> puts the car keys in the blue drawer.")
            add(w, "tidy", f"<face_{a}> keeps the hallway tidy.", "semantic")
    finally:
        store.close()
    return ids
