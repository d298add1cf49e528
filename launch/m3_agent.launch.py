"""Launch the m3_agent nodes on a real ROS 2 install (the same node table as m3_agent_ros.bringup).

    ros2 launch m3_agent m3_agent.launch.py [namespace:=robot1] [params_file:=/path/params.yaml] [only:=control]
        [memorization_name:=...] [control_name:=...] [autostart:=true]

Each node is a launch_ros ``LifecycleNode`` running the package's executable (``ros2 run m3_agent <node>``) with
the table's node name (or the ``*_name`` argument) in ``namespace``. Relative topic and service names resolve
there: with ``namespace:=robot1`` the Query service is /robot1/m3_agent/query. The params file's node sections
are re-keyed to the nodes' fully qualified names (m3_agent_ros.node_table.params_doc, written to a temporary
file), since rcl matches a plain ``m3_agent_control:`` section only in the root namespace.
``autostart:=false`` leaves the nodes unconfigured for a lifecycle manager.
Without ``ros2 launch`` (PyPI wheels), ``python -m m3_agent_ros.bringup`` takes the same arguments.
"""

from __future__ import annotations

import os
import tempfile

import yaml
from ament_index_python.packages import get_package_share_directory
from launch import LaunchContext, LaunchDescription
from launch.action import Action
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import LifecycleNode

from m3_agent_ros.node_table import NODES, PACKAGE, NodeSpec, normalize_namespace, params_doc, select


def node_action(spec: NodeSpec, params_file: str, namespace: str = "", name: str | None = None,
                autostart: str = "") -> LifecycleNode:
    overrides = [{"autostart": autostart.lower() in ("1", "true", "yes")}] if autostart else []
    return LifecycleNode(
        package=PACKAGE,
        executable=spec.executable,
        name=name or spec.node_name,
        namespace=namespace,
        parameters=[params_file, *overrides],
        output="screen",
        emulate_tty=True,
    )


def namespaced_params(params_file: str, namespace: str, names: dict[str, str]) -> str:
    """``params_file`` itself in the root namespace with the table's names, else a re-keyed temporary copy."""
    if not namespace and not names:
        return params_file
    with open(params_file) as f:
        doc = yaml.safe_load(f) or {}
    fd, path = tempfile.mkstemp(prefix="m3_agent_params_", suffix=".yaml")
    with os.fdopen(fd, "w") as f:
        yaml.safe_dump(params_doc(doc, namespace, names), f, sort_keys=False)
    return path


def _nodes(context: LaunchContext) -> list[Action]:
    def arg(name: str) -> str:
        return LaunchConfiguration(name).perform(context)

    namespace = normalize_namespace(arg("namespace"))
    only = arg("only")
    names = {s.key: arg(f"{s.key}_name") for s in NODES if arg(f"{s.key}_name") != s.node_name}
    params_file = namespaced_params(arg("params_file"), namespace, names)
    return [node_action(spec, params_file, namespace, names.get(spec.key), arg("autostart"))
            for spec in select([only] if only else None)]


def generate_launch_description() -> LaunchDescription:
    default_params = os.path.join(get_package_share_directory(PACKAGE), "config", "default.yaml")
    return LaunchDescription([
        DeclareLaunchArgument("namespace", default_value="", description="ROS namespace of every node"),
        DeclareLaunchArgument("params_file", default_value=default_params, description="ROS params file"),
        DeclareLaunchArgument("only", default_value="", description="comma-separated node keys to run (default: all)"),
        *[DeclareLaunchArgument(f"{s.key}_name", default_value=s.node_name, description=f"node name: {s.description}")
          for s in NODES],
        DeclareLaunchArgument("autostart", default_value="",
                              description="true/false: override the params file's autostart (configure + activate)"),
        OpaqueFunction(function=_nodes),
    ])
