"""Launch the m3_agent nodes on a real ROS 2 install (the same node table as m3_agent_ros.bringup).

    ros2 launch m3_agent m3_agent.launch.py [params_file:=/path/params.yaml] [only:=control]

Each node runs as ``<python> -m <module>`` (launch_ros Node without a package: the modules are installed
by ament_python_install_package), with ``parameters=[params_file]`` and the table's node name.
Without ``ros2 launch`` (PyPI wheels), use ``python -m m3_agent_ros.bringup`` instead.
"""

from __future__ import annotations

import os
import sys

from ament_index_python.packages import get_package_share_directory
from launch import LaunchContext, LaunchDescription
from launch.action import Action
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from m3_agent_ros.node_table import PACKAGE, NodeSpec, select


def node_action(spec: NodeSpec, params_file: str) -> Node:
    return Node(
        executable=sys.executable,
        arguments=["-m", spec.module],
        name=spec.node_name,
        parameters=[params_file],
        output="screen",
        emulate_tty=True,
    )


def _nodes(context: LaunchContext) -> list[Action]:
    params_file = LaunchConfiguration("params_file").perform(context)
    only = LaunchConfiguration("only").perform(context)
    return [node_action(spec, params_file) for spec in select([only] if only else None)]


def generate_launch_description() -> LaunchDescription:
    default_params = os.path.join(get_package_share_directory(PACKAGE), "config", "default.yaml")
    return LaunchDescription(
        [
            DeclareLaunchArgument(
                "params_file", default_value=default_params, description="ROS params file for all nodes"
            ),
            DeclareLaunchArgument(
                "only", default_value="", description="comma-separated node keys to run (default: all)"
            ),
            OpaqueFunction(function=_nodes),
        ]
    )
