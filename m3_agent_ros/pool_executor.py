"""The nodes' executor: rclpy's MultiThreadedExecutor, each callback handed to the thread pool once.

rclpy's MultiThreadedExecutor (Jazzy 7.1, Kilted 9.1) yields the tasks that have not started yet again on every
spin, and submits them to its thread pool again each time (ros2/rclpy#1452, fixed upstream after these releases).
Under a steady stream of messages that feeds on itself: the pool's queue fills with thousands of copies that do
nothing, the spinning thread holds the GIL while it submits and scans them, and the real callbacks wait behind
them. Measured in the memorization node on a 4x replay of the demo bag (2 cores): a spin loop at 100 % of one core,
3,900 pending futures, sensor callbacks run 5-8 s after their messages arrived, the camera's queue (30 frames)
overflowing: frames lost in transport, in one CI run a face left without its voice.

:class:`PoolExecutor` submits a task once; yielded again before a pool thread has taken it, the spinning thread
waits (without the GIL) until one has, instead of submitting it again. Everything else is rclpy's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from rclpy.executors import (
    ConditionReachedException,
    ExternalShutdownException,
    MultiThreadedExecutor,
    ShutdownException,
    TimeoutException,
)

QUEUED_WAIT_S = 0.05   # longest the spinning thread waits for a queued task to start (all pool threads busy)


class PoolExecutor(MultiThreadedExecutor):
    def __init__(self, num_threads: int | None = None, **kw: Any) -> None:
        super().__init__(num_threads=num_threads, **kw)
        self._queued: set[Any] = set()       # tasks submitted to the pool that have not started
        self._cv = threading.Condition()

    def _spin_once_impl(self, timeout_sec: Any = None, wait_condition: Callable[[], bool] = lambda: False) -> None:
        try:
            handler, _entity, _node = self.wait_for_ready_callbacks(timeout_sec, None, wait_condition)
        except (ExternalShutdownException, ShutdownException, TimeoutException, ConditionReachedException):
            return
        with self._cv:
            if handler in self._queued:
                # rclpy yields it again until it starts: wait (GIL released) for a pool thread to take it
                self._cv.wait_for(lambda: handler not in self._queued, timeout=QUEUED_WAIT_S)
                return
            self._queued.add(handler)
        self._executor.submit(self._run, handler)
        self._futures.append(handler)
        for future in self._futures[:]:   # as rclpy: finished tasks are dropped, their exceptions raised
            if future.done():
                self._futures.remove(future)
                future.result()

    def _run(self, handler: Any) -> None:
        with self._cv:
            self._queued.discard(handler)
            self._cv.notify_all()
        handler()
