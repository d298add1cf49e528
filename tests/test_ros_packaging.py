"""The ROS package as a robotics engineer uses it: `ros2 run m3_agent <node>` executables installed under
lib/m3_agent (ros2cli is not installable from wheels, so the installed executable is run directly), and a
package.xml that declares every ROS package the code imports."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .ros_helpers import REPO_ROOT, NodeProcess, RosTestNode, ros_env, wait_for_service

NODES = ("memorization_node", "control_node", "bringup")
# python modules that are not ROS packages, or that come with rclpy itself
NOT_ROS = {"rclpy", "m3_agent", "rosbags"}


def _installed(name: str) -> Path:
    return REPO_ROOT / "install" / "m3_agent" / "lib" / "m3_agent" / name


@pytest.mark.ros
def test_node_executables_are_installed_for_ros2_run() -> None:
    for name in NODES:
        exe = _installed(name)
        assert exe.exists(), f"{exe} missing: CMakeLists.txt must install it (ros2 run m3_agent {name})"
        assert exe.stat().st_mode & 0o111, f"{exe} is not executable"


@pytest.mark.ros
def test_the_installed_memorization_node_runs(tmp_path: Path) -> None:
    from std_srvs.srv import Trigger

    proc = NodeProcess([str(_installed("memorization_node")), "--ros-args", "-r", "__node:=m3_packaged_mem",
                        "-p", f"db_path:={tmp_path / 'm.db'}", "-p", "face_backend:=none",
                        "-p", "voice_backend:=none"], tmp_path / "node.log", env=ros_env())
    ros = RosTestNode("packaging_check")
    try:
        flush = ros.node.create_client(Trigger, "/m3_packaged_mem/flush")
        wait_for_service(flush, timeout_sec=30, proc=proc)
        assert ros.call(flush, Trigger.Request(), timeout_sec=30, proc=proc).success
    finally:
        ros.close()
        rc = proc.stop(timeout=20)
    assert rc == 0, proc.describe()


def test_package_xml_declares_every_ros_package_imported() -> None:
    declared = {e.text for e in ET.parse(REPO_ROOT / "package.xml").getroot()
                if e.tag.endswith("depend") and e.text}
    imported: set[str] = set()
    for path in (REPO_ROOT / "m3_agent_ros").rglob("*.py"):
        for m in re.finditer(r"^\s*(?:from|import)\s+([a-z_]+)\.(?:msg|srv|action)\b", path.read_text(), re.M):
            imported.add(m.group(1))
        if re.search(r"^\s*(?:from|import)\s+rclpy\b", path.read_text(), re.M):
            imported.add("rclpy")
        if re.search(r"^\s*(?:from|import)\s+ament_index_python\b", path.read_text(), re.M):
            imported.add("ament_index_python")
    assert "std_srvs" in imported and "sensor_msgs" in imported   # the scan finds what it should
    missing = sorted(p for p in imported - NOT_ROS if p not in declared) + (["rclpy"] if "rclpy" not in declared
                                                                          else [])
    assert not missing, f"package.xml does not declare {missing}"
