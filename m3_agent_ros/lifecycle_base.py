"""Shared lifecycle plumbing of the m3_agent nodes: parameter declaration from a params dataclass, release on
cleanup/shutdown/error, the autostart path, and the process main loop.

Parameters (m3_agent_ros.params): every one is declared with a descriptor (description, the numeric range and
choices of its ``Rule``, read_only). A set (``ros2 param set``, the set_parameters service) outside the range or of
a read-only parameter is refused by rclpy with the reason; while the node is configured, a ``live`` parameter is
checked (``check()``) and applied at once (``apply_live``), any other is refused with the way to apply it.

Stopping (SIGINT/SIGTERM) is handled here rather than by rclpy's handler, so the context stays valid while the
node winds down: pending requests still get their refusals, then the node is released (store closed) and the
process exits. A second signal exits at once.
"""

from __future__ import annotations

import inspect
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import fields, replace
from types import FrameType
from typing import Any

import rclpy
from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor, SetParametersResult
from rclpy.exceptions import InvalidParameterTypeException, InvalidParameterValueException
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn
from rclpy.signals import SignalHandlerOptions
from rclpy.utilities import remove_ros_args

from m3_agent_ros.pool_executor import PoolExecutor

SPIN_POLL_S = 0.1          # the main loop notices a stop signal within this
STOP_GRACE_S = 2.0         # at a stop, how long callbacks get to finish (send their refusals) before release
DRAIN_S = 0.5              # at a stop, keep dispatching this long so queued requests are refused, not dropped
SEND_SETTLE_S = 0.2        # then give the last responses this long to leave before the node is destroyed


class M3LifecycleNode(LifecycleNode):
    """Subclasses set ``PARAMS`` (a dataclass of ROS parameters) and implement ``release()``."""

    PARAMS: Any

    def __init__(self, node_name: str) -> None:
        super().__init__(node_name)
        for f in fields(self.PARAMS):
            self.declare_parameter(f.name, f.default, parameter_descriptor(self.PARAMS, f.name))
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self.add_post_set_parameters_callback(self._after_set_parameters)

    def _configured(self) -> bool:
        return self._state_machine.current_state[1] in ("inactive", "active")

    def _on_set_parameters(self, params: list[Any]) -> SetParametersResult:
        """Most parameters are read when the node configures: a set while it is configured would be silently
        ignored, so it is refused with the way to apply it (unconfigured: accepted, checked by the next configure).
        Live parameters are checked with the others' current values and accepted (then applied)."""
        if not self._configured():
            return SetParametersResult(successful=True)
        state = self._state_machine.current_state[1]
        fixed = [p.name for p in params if not self.PARAMS.rule(p.name).live]
        if fixed:
            live = ", ".join(sorted(self.PARAMS.live_names())) or "none"
            return SetParametersResult(successful=False, reason=(
                f"{', '.join(fixed)}: read when the node configures, and it is {state}: deactivate and clean up "
                f"the node, set the parameter, then configure it again (applied at once: {live})"))
        current = getattr(self, "params", None)
        if current is not None:
            try:
                replace(current, **{p.name: p.value for p in params}).check()
            except (TypeError, ValueError) as e:
                return SetParametersResult(successful=False, reason=str(e))
        return SetParametersResult(successful=True)

    def _after_set_parameters(self, params: list[Any]) -> None:
        current = getattr(self, "params", None)
        live = {p.name: p.value for p in params if self.PARAMS.rule(p.name).live}
        if current is not None and live and self._configured():
            self.apply_live(replace(current, **live))
            self.get_logger().info("applied: " + ", ".join(f"{k}={v!r}" for k, v in live.items()))

    def apply_live(self, params: Any) -> None:
        """A live parameter changed while configured: ``params`` are the node's parameters with the new values."""
        self.params = params

    def read_params(self) -> Any:
        return self.PARAMS(**{n: self.get_parameter(n).value for n in self.PARAMS.names()})

    def release(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        self.release()
        return super().on_cleanup(state)

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        self.release()
        return super().on_shutdown(state)

    def on_error(self, state: LifecycleState) -> TransitionCallbackReturn:
        self.release()
        return TransitionCallbackReturn.SUCCESS  # -> unconfigured, can be configured again

    def start(self) -> bool:
        """configure + activate (the autostart path); False when a transition fails."""
        return (self.trigger_configure() == TransitionCallbackReturn.SUCCESS
                and self.trigger_activate() == TransitionCallbackReturn.SUCCESS)

    # -- stopping (run_node); the defaults do nothing ---------------------------------------------------
    def request_stop(self) -> None:
        """Called from the signal handler (keep it to setting flags): e.g. abort a start in progress."""

    def begin_shutdown(self) -> None:
        """Called once the main loop stopped, before release(): refuse pending work, stop work in progress."""

    def has_abandoned_work(self) -> bool:
        """True when release() left work behind that cannot be stopped (the process then exits without it)."""
        return False


def parameter_descriptor(params_cls: Any, name: str) -> ParameterDescriptor:
    """The ROS descriptor of one parameter of a params dataclass: description, range, choices, read_only."""
    rule = params_cls.rule(name)
    when = ("read-only: fixed at process start" if rule.read_only else "applied at once" if rule.live
            else "applied at configure")
    d = ParameterDescriptor(description=params_cls.docs()[name], read_only=rule.read_only,
                            additional_constraints="; ".join(
                                ([f"one of: {', '.join(repr(c) for c in rule.choices)}"] if rule.choices else [])
                                + [when]))
    if rule.range is not None:
        lo, hi = rule.range
        if isinstance(lo, float):
            d.floating_point_range = [FloatingPointRange(from_value=lo, to_value=float(hi), step=0.0)]
        else:
            d.integer_range = [IntegerRange(from_value=int(lo), to_value=int(hi), step=0)]
    return d


def node_help(factory: Any) -> str:
    """``--help`` of a node executable: its module's docstring and every parameter with default, rule and doc."""
    doc = (sys.modules.get(factory.__module__).__doc__ or "").strip()  # type: ignore[union-attr]
    lines = [doc, "", "Usage: [--help] [--ros-args -r __node:=NAME -r __ns:=/NAMESPACE --params-file FILE "
             "-p NAME:=VALUE ...]", "", "Parameters:"]
    params_cls = factory.PARAMS
    for f in fields(params_cls):
        d = parameter_descriptor(params_cls, f.name)
        rng = d.floating_point_range or d.integer_range
        extra = [f"range {rng[0].from_value:g}..{rng[0].to_value:g}"] if rng else []
        lines.append(f"  {f.name} ({type(f.default).__name__}, default {f.default!r}; "
                     f"{'; '.join(extra + [d.additional_constraints])})")
        lines.append(f"      {d.description}")
    return "\n".join(lines)


def _drain(executor: MultiThreadedExecutor, seconds: float) -> None:
    """Keep dispatching for a moment after the stop: a request that reached the node but was not yet taken by a
    callback would otherwise vanish with the node (its client waits forever); now it is refused at once."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        executor.spin_once(timeout_sec=0.05)


def _wait_for_callbacks(executor: MultiThreadedExecutor, timeout_s: float) -> None:
    """Wait (bounded) for the callbacks in progress, including rclpy sending their responses. Executor.shutdown()
    does not wait in this rclpy, so its work tracker is asked directly where it exists."""
    tracker = getattr(executor, "_work_tracker", None)
    if tracker is not None:
        tracker.wait(timeout_s)


def _shutdown_without_joining(executor: MultiThreadedExecutor) -> None:
    """Shut the executor down without waiting for its threads (a callback may be abandoned work). Kilted's rclpy
    (9.x) takes wait_for_threads; Jazzy's (7.x) has no such argument and leaves its thread pool running."""
    if "wait_for_threads" in inspect.signature(executor.shutdown).parameters:
        executor.shutdown(timeout_sec=0, wait_for_threads=False)
        return
    executor.shutdown(timeout_sec=0)
    pool = getattr(executor, "_executor", None)  # rclpy 7: the ThreadPoolExecutor of the callbacks
    if pool is not None:
        pool.shutdown(wait=False)


def run_node(factory: Any, args: list[str] | None = None, threads: int | Callable[[Any], int] = 2) -> int:
    """Process main: init, autostart if asked, spin a multi-threaded executor until SIGINT/SIGTERM, then
    begin_shutdown(), let the callbacks finish (bounded), release() and exit. ``threads``: the executor's threads,
    or a function of the node giving them."""
    if {"-h", "--help"} & set(remove_ros_args(args if args is not None else sys.argv)[1:]):
        print(node_help(factory))
        return 0
    stop = threading.Event()
    node: Any = None

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if stop.is_set():  # the second signal: no more waiting
            print(f"[{signal.Signals(signum).name}] again: exiting now", file=sys.stderr, flush=True)
            os._exit(128 + signum)
        stop.set()
        if node is not None:
            node.request_stop()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    from m3_agent_ros import dds_env

    dds_note = dds_env.apply()  # loopback-only DDS with the shipped profile, whatever the shell set
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    rc, abandoned = 0, False
    try:
        try:
            node = factory()
        except (InvalidParameterValueException, InvalidParameterTypeException) as e:  # params file, -p: at start
            print(f"[FATAL] {e}", file=sys.stderr, flush=True)
            return 1
        if dds_note:
            node.get_logger().warning(dds_note)
        from m3_agent_ros.node_guard import EXIT_NAME_TAKEN, name_taken  # refuse a name already on the graph
        if name_taken(node, stopping=stop.is_set):  # (FATAL logged)
            node.destroy_node()  # leave the graph now (a participant that just vanishes stays until its lease ends)
            return EXIT_NAME_TAKEN
        executor = PoolExecutor(num_threads=threads(node) if callable(threads) else threads)
        executor.add_node(node)
        try:
            if node.get_parameter("autostart").value and not node.start() and not stop.is_set():
                node.get_logger().fatal("autostart failed (see the configure error above)")
                rc = 1
            while rc == 0 and not stop.is_set() and rclpy.ok():
                executor.spin_once(timeout_sec=SPIN_POLL_S)
        except (KeyboardInterrupt, ExternalShutdownException):
            pass
        finally:
            t = time.monotonic()
            node.begin_shutdown()
            _drain(executor, DRAIN_S)            # requests already delivered get their refusal, not silence
            _wait_for_callbacks(executor, STOP_GRACE_S)
            time.sleep(SEND_SETTLE_S)            # the last responses leave before their writers are destroyed
            node.release()
            abandoned = node.has_abandoned_work()
            if stop.is_set():
                node.get_logger().info(f"stopped in {time.monotonic() - t:.2f} s"
                                       f"{' (work left behind)' if abandoned else ''}")
            _shutdown_without_joining(executor)
            node.destroy_node()
    finally:
        rclpy.try_shutdown()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if abandoned:  # e.g. a generation that cannot be aborted: don't wait for it (nor run its cleanup)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc)
    return rc


