"""Refuse to start a second node under a name that a running node already has.

ROS 2 lets two nodes share a fully qualified name: both then serve the same services and parameters and
clients reach either at random (two memorization nodes would both write the store). rclpy does not check, so
each m3_agent node does, right after it is created and before it configures anything (lifecycle_base.run_node):
it watches the graph for a bounded discovery window and gives up with a FATAL log if its name shows up twice.

Absence can't be proven early: a new participant learns about an existing one only from that one's periodic
announcement (every 1 s with config/fastdds_localhost.xml, 3 s with Fast DDS defaults), plus ~0.1 s for the
node names (ros_discovery_info); measured up to 1.15 s under load. So the window always runs to its end when the
name is free: it adds ``WINDOW_S`` to every node start (2 s: two announcement periods of the shipped profile).
Set M3_NODE_GUARD_WINDOW_S to change it (0 turns the check off), e.g. 3.5 s with the Fast DDS default profile;
the test suite uses 0.5 s (tests/conftest.py).

Two nodes started under one name within one window of each other both see the other and both refuse; a node
that started while the other was already running (past its window) keeps running and the newcomer exits.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

WINDOW_ENV = "M3_NODE_GUARD_WINDOW_S"
WINDOW_S = 2.0  # default discovery window: 2x the announcement period of config/fastdds_localhost.xml
POLL_S = 0.05
EXIT_NAME_TAKEN = 3  # process exit status of a node that refused to start (autostart failure is 1)


def window_s(default: float = WINDOW_S) -> float:
    """The discovery window in seconds: $M3_NODE_GUARD_WINDOW_S when set (>= 0), else ``default``."""
    raw = os.environ.get(WINDOW_ENV, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError as e:
        raise ValueError(f"{WINDOW_ENV}={raw!r} is not a number of seconds") from e
    if not value >= 0.0:  # also rejects nan
        raise ValueError(f"{WINDOW_ENV}={raw!r} must be >= 0")
    return value


def fully_qualified(name: str, namespace: str) -> str:
    """'/ns/name' (or '/name' in the root namespace), as Node.get_fully_qualified_name() spells it."""
    return f"{namespace.rstrip('/')}/{name}"


def count_on_graph(node: Any, fqn: str) -> int:
    """How many nodes on the graph, ``node`` included, are called ``fqn``."""
    return sum(fully_qualified(n, ns) == fqn for n, ns in node.get_node_names_and_namespaces())


def name_taken(
    node: Any,
    window: float | None = None,
    stopping: Callable[[], bool] | None = None,
    poll_s: float = POLL_S,
) -> bool:
    """True (after a FATAL log) when another node on the graph has ``node``'s fully qualified name.

    Polls the graph until a second node of that name appears (True at once) or ``window`` seconds pass (False).
    Returns False early when ``stopping()`` turns true (a stop signal) or the context is shut down.
    """
    window = window_s() if window is None else window
    fqn = node.get_fully_qualified_name()
    start = time.monotonic()
    deadline = start + window
    while True:
        if stopping is not None and stopping():
            return False
        if not node.context.ok():
            return False
        seen = count_on_graph(node, fqn)
        if seen > 1:
            node.get_logger().fatal(
                f"another node named {fqn} is already running on this ROS graph (ROS_DOMAIN_ID="
                f"{os.environ.get('ROS_DOMAIN_ID', '0')}, found after {time.monotonic() - start:.2f} s): "
                "refusing to start a second one. Stop the other one, or start this one under another name "
                "(--ros-args -r __node:=<name>) or namespace (-r __ns:=/<ns>).")
            return True
        now = time.monotonic()
        if now >= deadline:
            return False
        time.sleep(min(poll_s, deadline - now))
