"""Replay a bag through the m3_agent nodes on a real ROS 2 install and ask its questions at their timestamps.

    ros2 launch m3_agent replay.launch.py bag:=/path/to/bag [rate:=1.0] [params_file:=...] [out:=answers.jsonl]

Starts every node of the node table (m3_agent.launch.py) plus the bag player / question client
``python -m m3_agent_ros.replay``; the launch ends when the replay has asked its last question. Without
``ros2 launch`` (PyPI wheels) run ``python -m m3_agent_ros.demo --bag ...`` or ``m3-bench run``.
"""

from __future__ import annotations

import os
import sys

from ament_index_python.packages import get_package_share_directory
from launch import LaunchContext, LaunchDescription
from launch.action import Action
from launch.actions import DeclareLaunchArgument, EmitEvent, ExecuteProcess, OpaqueFunction, RegisterEventHandler
from launch.event_handlers import OnProcessExit
from launch.events import Shutdown
from launch.substitutions import LaunchConfiguration

from m3_agent_ros.node_table import PACKAGE, select


def _load_main_launch():  # noqa: ANN202 - m3_agent.launch.py beside this file (its name is not importable)
    import importlib.util

    spec = importlib.util.spec_from_file_location("m3_agent_main_launch",
                                                  os.path.join(os.path.dirname(__file__), "m3_agent.launch.py"))
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


node_action = _load_main_launch().node_action


def _actions(context: LaunchContext) -> list[Action]:
    params_file = LaunchConfiguration("params_file").perform(context)
    cmd = [sys.executable, "-m", "m3_agent_ros.replay", LaunchConfiguration("bag").perform(context),
           "--rate", LaunchConfiguration("rate").perform(context)]
    out = LaunchConfiguration("out").perform(context)
    if out:
        cmd += ["--out", out]
    replay = ExecuteProcess(cmd=cmd, output="screen")
    return [*[node_action(s, params_file) for s in select(None)], replay,
            RegisterEventHandler(OnProcessExit(target_action=replay, on_exit=[EmitEvent(event=Shutdown())]))]


def generate_launch_description() -> LaunchDescription:
    default_params = os.path.join(get_package_share_directory(PACKAGE), "config", "default.yaml")
    return LaunchDescription([
        DeclareLaunchArgument("bag", description="rosbag2 folder made by m3-bag convert"),
        DeclareLaunchArgument("rate", default_value="1.0", description="playback speed-up (0: as fast as possible)"),
        DeclareLaunchArgument("params_file", default_value=default_params),
        DeclareLaunchArgument("out", default_value="", description="JSONL file for the answers"),
        OpaqueFunction(function=_actions),
    ])
