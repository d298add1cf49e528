"""The nodes' executor (m3_agent_ros/pool_executor.py): every callback reaches the thread pool once.

rclpy's MultiThreadedExecutor submits a task that has not started yet again on every spin (ros2/rclpy#1452); in the
memorization node that kept one core busy spinning and held sensor callbacks back by seconds (the camera's queue
overflowed). Here three streams in their own mutually exclusive groups, as in the node, go through the executor as
fast as they can be published: every message is handled, in order, and no task is ever submitted twice.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

import pytest

from tests.ros_helpers import wait_until

pytestmark = pytest.mark.ros

N = 600   # messages per stream


def _run_streams(make_executor: Any) -> tuple[dict[str, list[int]], Counter]:
    import rclpy
    from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from std_msgs.msg import Int32

    ctx = rclpy.Context()
    rclpy.init(context=ctx)
    qos = QoSProfile(depth=N, reliability=ReliabilityPolicy.RELIABLE)
    got: dict[str, list[int]] = {name: [] for name in ("camera", "audio", "pose")}
    submitted: Counter = Counter()
    try:
        node = rclpy.create_node("pool_executor_test", context=ctx)
        pub_node = rclpy.create_node("pool_executor_test_pub", context=ctx)
        pubs = {}
        for name in got:
            def on_msg(msg: Int32, name: str = name) -> None:
                time.sleep(0.0005)   # a little work, so that tasks wait in the pool's queue
                got[name].append(msg.data)
            node.create_subscription(Int32, f"/pool_executor_test/{name}", on_msg, qos,
                                     callback_group=MutuallyExclusiveCallbackGroup())
            pubs[name] = pub_node.create_publisher(Int32, f"/pool_executor_test/{name}", qos)
        executor = make_executor(ctx)
        submit = executor._executor.submit

        def counting_submit(fn: Any, *args: Any) -> Any:
            submitted[args[-1] if args else fn] += 1   # (the task itself: ids of freed tasks are reused)
            return submit(fn, *args)

        executor._executor.submit = counting_submit
        executor.add_node(node)
        spinner = threading.Thread(target=executor.spin, daemon=True)
        spinner.start()
        try:
            wait_until(lambda: all(p.get_subscription_count() == 1 for p in pubs.values()), 15, "the subscriptions")
            for i in range(N):
                for p in pubs.values():
                    p.publish(Int32(data=i))
            wait_until(lambda: all(len(v) == N for v in got.values()), 60, "every message handled")
        finally:
            executor.shutdown()
            spinner.join(timeout=5)
    finally:
        rclpy.shutdown(context=ctx)
    return got, submitted


def test_every_message_is_handled_in_order_and_no_task_reaches_the_pool_twice() -> None:
    from m3_agent_ros.pool_executor import PoolExecutor

    got, submitted = _run_streams(lambda ctx: PoolExecutor(num_threads=4, context=ctx))
    assert all(v == list(range(N)) for v in got.values())
    assert sum(submitted.values()) >= 3 * N
    twice = [n for n in submitted.values() if n > 1]
    assert not twice, f"{len(twice)} tasks submitted more than once (up to {max(twice)} times)"
