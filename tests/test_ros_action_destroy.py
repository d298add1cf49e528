"""The Instruct action server can be destroyed (lifecycle deactivate, on an executor thread) while another thread
spins the executor: m3_agent_ros.safe_action_server. CI on Jazzy once lost the control node to rclpy adding the
just-destroyed server to a wait set."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

pytestmark = pytest.mark.ros


@pytest.fixture
def ros_node() -> Any:
    from .ros_helpers import RosTestNode

    ros = RosTestNode("action_destroy_test")
    yield ros
    ros.close()


def _server(node: Any, name: str) -> Any:
    from m3_agent.action import Instruct

    from m3_agent_ros.safe_action_server import SafeActionServer

    return SafeActionServer(node, Instruct, name, execute_callback=lambda goal_handle: Instruct.Result())


def _entities(n: Any) -> int:
    return int(n.num_subscriptions + n.num_guard_conditions + n.num_timers + n.num_clients + n.num_services)


def test_a_destroyed_server_has_nothing_to_wait_on(ros_node: Any) -> None:
    from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy

    server = _server(ros_node.node, "/m3_agent_test/destroyed")
    assert _entities(server.get_num_entities()) > 0
    server.destroy()
    # what the spinning thread does with the waitables it listed before the destroy: each call is harmless now
    assert _entities(server.get_num_entities()) == 0
    wait_set = _rclpy.WaitSet(0, 0, 0, 0, 0, 0, ros_node.context.handle)
    server.add_to_wait_set(wait_set)
    assert server.is_ready(wait_set) is False
    assert server.take_data() == {}
    assert server not in ros_node.node.waitables


def test_servers_destroyed_while_the_executor_spins(ros_node: Any) -> None:
    """Create and destroy servers on one thread while another spins: every spin completes without an error."""
    errors: list[BaseException] = []
    stop = threading.Event()
    spins = [0]

    def spin() -> None:
        while not stop.is_set():
            try:
                ros_node.executor.spin_once(timeout_sec=0.001)
                spins[0] += 1
            except BaseException as e:  # noqa: BLE001 - the failure this test is about
                errors.append(e)
                return

    spinner = threading.Thread(target=spin, daemon=True)
    spinner.start()
    try:
        deadline = time.monotonic() + 3.0
        cycles = 0
        while time.monotonic() < deadline and not errors:
            _server(ros_node.node, f"/m3_agent_test/cycle_{cycles % 4}").destroy()
            cycles += 1
    finally:
        stop.set()
        spinner.join(timeout=5)
    assert not errors, f"after {cycles} create/destroy cycles: {errors[0]!r}"
    assert cycles > 20 and spins[0] > 20, (cycles, spins[0])
