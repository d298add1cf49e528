"""The nodes of the m3_agent system: one table for bringup.py and launch/m3_agent.launch.py.

ROS-free (no rclpy import), so the launch file and the launch-free runner can both read it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from m3_agent_ros.params import ControlParams, MemorizationParams

PACKAGE = "m3_agent"  # the ROS package (interfaces, share/m3_agent/config, launch)


@dataclass(frozen=True)
class NodeSpec:
    key: str  # short name for --only / the launch argument `only`
    node_name: str  # ROS node name (also the params-file section)
    module: str  # run as `python -m <module> --ros-args ...`
    params: tuple[str, ...]  # parameters the node declares
    description: str
    lifecycle: bool = False  # a rclpy LifecycleNode (autostart parameter configures+activates it)

    def argv(
        self, params_file: str | Path | None = None, python: str = sys.executable, ros_args: Sequence[str] = ()
    ) -> list[str]:
        """Command line running this node as its own process."""
        cmd = [python, "-m", self.module, "--ros-args", "-r", f"__node:={self.node_name}"]
        if params_file is not None:
            cmd += ["--params-file", str(params_file)]
        return cmd + list(ros_args)


NODES: tuple[NodeSpec, ...] = (
    NodeSpec(
        key="memorization",
        node_name="m3_agent_memorization",
        module="m3_agent_ros.memorization_node",
        params=MemorizationParams.names(),
        description="turns camera + audio topics into memories in the store",
        lifecycle=True,
    ),
    NodeSpec(
        key="control",
        node_name="m3_agent_control",
        module="m3_agent_ros.control_node",
        params=ControlParams.names(),
        description="answers m3_agent/srv/Query from the memory store",
        lifecycle=True,
    ),
)


def select(only: Iterable[str] | None = None, nodes: Sequence[NodeSpec] = NODES) -> list[NodeSpec]:
    """The table rows named in ``only`` (keys or node names, comma lists allowed); all when empty."""
    wanted = [w.strip() for item in (only or ()) for w in item.split(",") if w.strip()]
    if not wanted:
        return list(nodes)
    by_name = {n.key: n for n in nodes} | {n.node_name: n for n in nodes}
    unknown = [w for w in wanted if w not in by_name]
    if unknown:
        raise ValueError(f"unknown node(s) {', '.join(unknown)}; known: {', '.join(n.key for n in nodes)}")
    return [n for n in nodes if n in {by_name[w] for w in wanted}]
