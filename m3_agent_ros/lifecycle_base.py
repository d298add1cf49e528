"""Shared lifecycle plumbing of the m3_agent nodes: parameter declaration from a params dataclass, release on
cleanup/shutdown/error, the autostart path, and the process main loop."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import rclpy
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn


class M3LifecycleNode(LifecycleNode):
    """Subclasses set ``PARAMS`` (a dataclass of ROS parameters) and implement ``release()``."""

    PARAMS: Any

    def __init__(self, node_name: str) -> None:
        super().__init__(node_name)
        docs = self.PARAMS.docs()
        for f in fields(self.PARAMS):
            self.declare_parameter(f.name, f.default, ParameterDescriptor(description=docs[f.name]))

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


def run_node(factory: Any, args: list[str] | None = None, threads: int = 2) -> int:
    """Process main: init, autostart if asked, spin a multi-threaded executor, release on SIGINT/SIGTERM."""
    rclpy.init(args=args)
    node = factory()
    executor = MultiThreadedExecutor(num_threads=threads)
    executor.add_node(node)
    try:
        if node.get_parameter("autostart").value and not node.start():
            node.get_logger().fatal("autostart failed (see the configure error above)")
            return 1
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.release()
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


