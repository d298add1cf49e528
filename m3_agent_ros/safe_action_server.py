"""An rclpy ActionServer that can be destroyed while another thread spins the executor.

rclpy (Jazzy's 7.x and Kilted's 9.x alike) destroys an action server's handle and only then removes it from the
node's waitables, and its executor adds every waitable it listed to the wait set even when entering that
waitable's handle just failed. A lifecycle deactivate (a service callback on an executor thread) destroying the
server while the spinning thread builds its wait set then kills the process: "Failed to add
'rcl_action_server_t' to wait set: action server pointer is invalid" (seen in CI on Jazzy). Here every
executor-facing use of the handle (counting entities, adding to the wait set, readiness, taking data) holds the
handle in use for its duration (a destroy meanwhile waits until it returned) and, once the handle is destroyed or
being destroyed, sees a server with nothing to wait on instead of a destroyed handle.
"""

from __future__ import annotations

from typing import Any

from rclpy.action import ActionServer
from rclpy.exceptions import InvalidHandle
from rclpy.waitable import NumberOfEntities


class SafeActionServer(ActionServer):
    def get_num_entities(self) -> Any:
        try:
            with self._handle:  # in use: a destroy() elsewhere waits until this returned
                return super().get_num_entities()
        except InvalidHandle:  # destroyed (or being destroyed)
            return NumberOfEntities()

    def add_to_wait_set(self, wait_set: Any) -> None:
        try:
            with self._handle:
                super().add_to_wait_set(wait_set)
        except InvalidHandle:
            return

    def is_ready(self, wait_set: Any) -> bool:
        try:
            with self._handle:
                return bool(super().is_ready(wait_set))
        except InvalidHandle:
            return False

    def take_data(self) -> Any:
        try:
            with self._handle:
                return super().take_data()
        except InvalidHandle:
            return {}
