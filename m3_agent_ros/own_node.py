"""A ROS node in its own rclpy context, for tools and harnesses that live next to other ROS code in one process
(the replay, the query client, the synthetic stream, benchmarks): loopback-only DDS applied before the participant
exists, a single-threaded executor spun on demand, init and shutdown paired."""

from __future__ import annotations

import time
from collections.abc import Callable


class OwnNode:
    def __init__(self, name: str) -> None:
        self._start(name)

    def _start(self, name: str) -> None:
        import rclpy
        from rclpy.executors import SingleThreadedExecutor

        from m3_agent_ros import dds_env

        dds_env.apply()  # loopback-only DDS before the participant exists
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        try:
            self.node = rclpy.create_node(name, context=self.context)
            self.executor = SingleThreadedExecutor(context=self.context)
            self.executor.add_node(self.node)
        except Exception:
            self.context.try_shutdown()
            raise

    def spin_until(self, pred: Callable[[], bool], timeout: float) -> bool:
        """Spin until ``pred()`` (True) or ``timeout`` seconds (False)."""
        deadline = time.monotonic() + timeout
        while not pred():
            if time.monotonic() > deadline:
                return False
            self.executor.spin_once(timeout_sec=0.05)
        return True

    def wait(self, pred: Callable[[], bool], timeout: float, what: str) -> None:
        """Spin until ``pred()``; TimeoutError naming ``what`` after ``timeout`` seconds."""
        if not self.spin_until(pred, timeout):
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        self.context.try_shutdown()
