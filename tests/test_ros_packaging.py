"""The ROS package as a robotics engineer uses it: `ros2 run m3_agent <node>` executables installed under
lib/m3_agent (ros2cli is not installable from wheels, so the installed executable is run directly), and a
package.xml that declares every ROS package the code imports."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .ros_helpers import BUILD_BASE, INSTALL_BASE, REPO_ROOT, NodeProcess, RosTestNode, ros_env, wait_for_service

NODES = ("memorization_node", "control_node", "bringup")
# python modules that are not ROS packages, or that come with rclpy itself
NOT_ROS = {"rclpy", "m3_agent", "rosbags"}


def _installed(name: str) -> Path:
    return INSTALL_BASE / "m3_agent" / "lib" / "m3_agent" / name


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


# one ROS test (needs the workspace's generated interfaces) and one plain test: quick, and neither is this one
COLCON_TEST_SELECTION = "test_node_executables_are_installed_for_ros2_run or test_every_numeric_parameter_has_a_range"


@pytest.mark.ros
@pytest.mark.skipif(os.environ.get("M3_IN_COLCON_TEST") == "1", reason="already inside colcon test")
def test_colcon_test_runs_the_pytest_suite(tmp_path: Path) -> None:
    """`colcon test --packages-select m3_agent` runs tests/ through ament_cmake_pytest (CMakeLists.txt, BUILD_TESTING
    on in scripts/setup.sh), with the package's own install on the paths even when the shell did not source it."""
    ctest = BUILD_BASE / "m3_agent" / "CTestTestfile.cmake"
    assert ctest.is_file() and "m3_agent_pytest" in ctest.read_text(), \
        f"{ctest}: no m3_agent_pytest test registered (build with -DBUILD_TESTING=ON: bash scripts/setup.sh)"
    colcon = shutil.which("colcon")
    assert colcon, "colcon not on PATH"
    result = BUILD_BASE / "m3_agent" / "test_results" / "m3_agent" / "m3_agent_pytest.xunit.xml"
    result.unlink(missing_ok=True)
    env = ros_env({"PYTEST_ADDOPTS": f"-k '{COLCON_TEST_SELECTION}'", "M3_IN_COLCON_TEST": "1"})
    ours = str(INSTALL_BASE / "m3_agent")
    for key in ("PYTHONPATH", "LD_LIBRARY_PATH", "AMENT_PREFIX_PATH", "CMAKE_PREFIX_PATH"):  # not sourced
        env[key] = os.pathsep.join(p for p in env.get(key, "").split(os.pathsep) if p and ours not in p)
    env.pop("ROS_DOMAIN_ID")  # the suite's conftest picks its own
    run = subprocess.run([colcon, "--log-base", str(tmp_path / "log"), "test", "--packages-select", "m3_agent",
                          "--build-base", str(BUILD_BASE), "--install-base", str(INSTALL_BASE),
                          "--event-handlers", "console_direct+"], cwd=REPO_ROOT, env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert result.is_file(), f"no pytest result file {result}\n{run.stdout[-4000:]}"
    suite = ET.parse(result).getroot()
    suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
    assert suite is not None
    # the two selected tests ran and passed; a module skipped as a whole at collection (the browser tests where
    # chromium is missing) is reported as a skipped "test" of that module and selects nothing
    cases = [c for c in suite.iter("testcase") if not any(x.get("message") == "collection skipped" for x in c)]
    outcome = {c.get("name"): [x.tag for x in c] for c in cases}
    assert outcome == {"test_every_numeric_parameter_has_a_range": [],
                       "test_node_executables_are_installed_for_ros2_run": []}, f"{outcome}\n{run.stdout[-4000:]}"
    assert int(suite.get("failures", 0)) == int(suite.get("errors", 0)) == 0, run.stdout[-4000:]
    verdict = subprocess.run([colcon, "--log-base", str(tmp_path / "log"), "test-result", "--test-result-base",
                              str(BUILD_BASE / "m3_agent")], cwd=REPO_ROOT, env=env, capture_output=True,
                             text=True, timeout=60)
    assert verdict.returncode == 0 and "0 failures" in verdict.stdout, verdict.stdout + verdict.stderr
