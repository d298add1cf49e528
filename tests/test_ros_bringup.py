"""The launch-free runner (real subprocesses, signals) and the launch file built from the same node table."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from m3_agent_ros.node_table import NODES, select
from m3_agent_ros.params import ControlParams, MemorizationParams

from .ros_helpers import REPO_ROOT, RosTestNode, make_demo_store, ros_env, start_module, wait_for_service, wait_until

DEFAULT_YAML = REPO_ROOT / "config" / "default.yaml"
LAUNCH_FILE = REPO_ROOT / "launch" / "m3_agent.launch.py"


def params_with_db(tmp_path: Path, db: Path, service: str) -> Path:
    """config/default.yaml with db_path and service_name overridden (so its format is tested too)."""
    doc = yaml.safe_load(DEFAULT_YAML.read_text())
    doc["/**"]["ros__parameters"]["db_path"] = str(db)
    doc["m3_agent_control"]["ros__parameters"]["service_name"] = service
    # the runner's mechanics are under test, not the model: answer without the LLM so the test is fast under load
    doc["m3_agent_control"]["ros__parameters"]["answerer"] = "extractive"
    out = tmp_path / "params.yaml"
    out.write_text(yaml.safe_dump(doc))
    return out


def child_pids(log: str) -> list[int]:
    return [int(line.split(" pid ")[1].split(":")[0]) for line in log.splitlines() if " pid " in line]


def pid_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # a zombie is gone for our purposes (its parent, the runner, has exited)
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(") ")[1].startswith("Z")


@pytest.mark.ros
@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_bringup_serves_and_stops_cleanly(tmp_path: Path, stop_signal: int) -> None:
    from m3_agent.srv import Query

    ids = make_demo_store(tmp_path / "memory.db")
    service = f"/m3_agent/bringup_test_{stop_signal}"
    params = params_with_db(tmp_path, tmp_path / "memory.db", service)
    proc = start_module(
        "m3_agent_ros.bringup", ["--params", str(params), "--only", "control"], tmp_path / "bringup.log"
    )
    ros = RosTestNode("bringup_test_client")
    try:
        client: Any = ros.node.create_client(Query, service)
        wait_for_service(client, timeout_sec=15, proc=proc)
        resp = ros.call(client, Query.Request(question="Who watered the plants?"), proc=proc)
        assert resp.success, resp.error
        assert list(resp.cited_memory_ids)[0] == ids["plants"]
        pids = child_pids(proc.output())
        assert len(pids) == 1, proc.describe()
        proc.send_signal(stop_signal)
        rc = proc.wait(timeout=30)
    finally:
        ros.close()
        proc.stop(timeout=5)
    assert rc == 0, proc.describe()
    wait_until(lambda: pid_gone(pids[0]), 10, "the control node process to exit", on_fail=proc.describe)


@pytest.mark.ros
def test_bringup_stops_when_a_node_fails(tmp_path: Path) -> None:
    params = params_with_db(tmp_path, tmp_path / "missing.db", "/m3_agent/bringup_fail")
    argv = ["--params", str(params), "--only", "control"]
    proc = start_module("m3_agent_ros.bringup", argv, tmp_path / "bringup.log")
    try:
        rc = proc.wait(timeout=30)
    finally:
        proc.stop(timeout=5)
    assert rc == 1, proc.describe()
    assert "control exited with status 1" in proc.output()


def run_bringup(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "m3_agent_ros.bringup", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=ros_env(),
        cwd=REPO_ROOT,
    )


def test_bringup_dry_run_and_bad_arguments(tmp_path: Path) -> None:
    dry = run_bringup("--params", str(DEFAULT_YAML), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    lines = dry.stdout.splitlines()
    assert len(lines) == len(NODES)
    for spec, line in zip(NODES, lines, strict=True):
        assert f"-m {spec.module} --ros-args -r __node:={spec.node_name} --params-file {DEFAULT_YAML}" in line

    unknown = run_bringup("--only", "nonexistent", "--dry-run")
    assert unknown.returncode == 2 and "unknown node(s) nonexistent" in unknown.stderr
    missing = run_bringup("--params", str(tmp_path / "nope.yaml"), "--dry-run")
    assert missing.returncode == 2 and "params file not found" in missing.stderr


def test_node_table_and_default_params_agree() -> None:
    assert [s.key for s in select(["control"])] == ["control"]
    assert select() == list(NODES)
    by_key = {s.key: s for s in NODES}
    assert select(["m3_agent_control,control"]) == [by_key["control"]]
    with pytest.raises(ValueError, match="unknown"):
        select(["x"])
    doc = yaml.safe_load(DEFAULT_YAML.read_text())
    shared = set(doc.pop("/**")["ros__parameters"])
    by_name = {s.node_name: s for s in NODES}
    assert set(doc) == set(by_name), "config/default.yaml has one section per node"
    for name, section in doc.items():
        keys = set(section["ros__parameters"])
        assert keys <= set(by_name[name].params), f"{name}: undeclared parameters {keys - set(by_name[name].params)}"
    for node_name, cls in (("m3_agent_control", ControlParams), ("m3_agent_memorization", MemorizationParams)):
        assert set(by_name[node_name].params) == set(cls.names())
        documented = shared | set(doc[node_name]["ros__parameters"])
        assert documented == set(cls.names()), f"every {node_name} parameter is documented in default.yaml"
        defaults = cls()
        for key, value in doc[node_name]["ros__parameters"].items():
            assert type(value) is type(getattr(defaults, key)), f"{key}: type differs from the declared default"


def test_launch_file_compiles() -> None:
    compile(LAUNCH_FILE.read_text(), str(LAUNCH_FILE), "exec")


def test_launch_file_builds_nodes_from_the_table(tmp_path: Path) -> None:
    pytest.importorskip("launch_ros")
    from launch import LaunchContext
    from launch.actions import DeclareLaunchArgument, OpaqueFunction
    from launch_ros.actions import LifecycleNode

    spec = importlib.util.spec_from_file_location("m3_agent_launch", LAUNCH_FILE)
    assert spec is not None and spec.loader is not None
    module: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ld = module.generate_launch_description()
    declared = {e.name: e.default_value for e in ld.entities if isinstance(e, DeclareLaunchArgument)}
    assert set(declared) == {"namespace", "params_file", "only", "memorization_name", "control_name", "autostart"}
    context = LaunchContext()
    for name in declared:  # the arguments' defaults, as `ros2 launch` sets them
        context.launch_configurations[name] = ""
    context.launch_configurations.update(params_file=str(DEFAULT_YAML), memorization_name="m3_agent_memorization",
                                         control_name="m3_agent_control")
    (opaque,) = [e for e in ld.entities if isinstance(e, OpaqueFunction)]
    nodes = opaque.execute(context)
    assert len(nodes) == len(NODES) and all(isinstance(n, LifecycleNode) for n in nodes)
    context.launch_configurations["only"] = "control"
    assert len(opaque.execute(context)) == 1


@pytest.mark.ros
def test_launch_service_starts_the_nodes_in_a_namespace(tmp_path: Path) -> None:
    """What `ros2 launch m3_agent m3_agent.launch.py namespace:=robot1 control_name:=ctl only:=control` does, through
    launch.LaunchService (needs launch/launch_ros: a real ROS 2 install)."""
    pytest.importorskip("launch_ros")
    import threading

    from launch import LaunchService
    from launch.actions import IncludeLaunchDescription
    from launch.launch_description_sources import PythonLaunchDescriptionSource
    from m3_agent.srv import Query

    make_demo_store(tmp_path / "memory.db")
    params = params_with_db(tmp_path, tmp_path / "memory.db", "m3_agent/query")
    ls = LaunchService(argv=[])
    ls.include_launch_description(IncludeLaunchDescription(
        PythonLaunchDescriptionSource(str(LAUNCH_FILE)),
        launch_arguments={"namespace": "robot1", "params_file": str(params), "only": "control",
                          "control_name": "ctl"}.items()))
    answers: list[Any] = []
    errors: list[BaseException] = []

    def ask() -> None:  # LaunchService must run in the main thread: the client runs beside it
        ros = RosTestNode("launch_check")
        try:
            client: Any = ros.node.create_client(Query, "/robot1/m3_agent/query")
            wait_for_service(client, timeout_sec=60)
            answers.append(ros.call(client, Query.Request(question="Who watered the plants?")))
            assert ("ctl", "/robot1") in ros.node.get_node_names_and_namespaces()
        except BaseException as e:  # reported by the test thread
            errors.append(e)
        finally:
            ros.close()
            ls.shutdown()

    t = threading.Thread(target=ask, daemon=True)
    t.start()
    assert ls.run() == 0
    t.join(30)
    assert not errors, errors
    (resp,) = answers
    assert resp.success and resp.answer.startswith("[extractive]"), resp   # the re-keyed params section applied
