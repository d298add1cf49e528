"""The control node as a managed lifecycle node (autostart:=false), and configure failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .ros_helpers import RosTestNode, make_demo_store, start_module, wait_for_service, wait_until

pytestmark = pytest.mark.ros

NODE = "m3_agent_control"
SERVICE = "/m3_agent/lifecycle_test_query"


def set_param(ros: RosTestNode, proc: Any, name: str, value: int) -> tuple[bool, str]:
    """What `ros2 param set /m3_agent_control NAME VALUE` does: the node's set_parameters service."""
    from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
    from rcl_interfaces.srv import SetParameters

    client: Any = ros.node.create_client(SetParameters, f"/{NODE}/set_parameters")
    wait_for_service(client, timeout_sec=15, proc=proc)
    req = SetParameters.Request(parameters=[Parameter(name=name, value=ParameterValue(
        type=ParameterType.PARAMETER_INTEGER, integer_value=value))])
    (res,) = ros.call(client, req, proc=proc).results
    return bool(res.successful), str(res.reason)


def test_managed_transitions_create_and_remove_the_service(tmp_path: Path) -> None:
    from lifecycle_msgs.msg import State, Transition
    from lifecycle_msgs.srv import ChangeState, GetState
    from m3_agent.srv import Query

    make_demo_store(tmp_path / "memory.db")
    proc = start_module(
        "m3_agent_ros.control_node",
        ["--ros-args", "-p", f"db_path:={tmp_path / 'memory.db'}", "-p", f"service_name:={SERVICE}",
         "-p", "answerer:=extractive", "-p", "autostart:=false"],
        tmp_path / "control_node.log",
    )  # fmt: skip
    ros = RosTestNode("lifecycle_test_client")
    try:
        query: Any = ros.node.create_client(Query, SERVICE)
        get_state: Any = ros.node.create_client(GetState, f"/{NODE}/get_state")
        change: Any = ros.node.create_client(ChangeState, f"/{NODE}/change_state")
        wait_for_service(get_state, timeout_sec=15, proc=proc)
        wait_for_service(change, timeout_sec=15, proc=proc)

        def state() -> int:
            return int(ros.call(get_state, GetState.Request(), proc=proc).current_state.id)

        def transition(tid: int) -> bool:
            req = ChangeState.Request()
            req.transition.id = tid
            return bool(ros.call(change, req, proc=proc).success)

        assert state() == State.PRIMARY_STATE_UNCONFIGURED
        assert not query.service_is_ready()  # the participant is discovered, the server isn't there

        assert transition(Transition.TRANSITION_CONFIGURE)
        assert state() == State.PRIMARY_STATE_INACTIVE
        assert not query.service_is_ready()  # the participant is discovered, the server isn't there

        assert transition(Transition.TRANSITION_ACTIVATE)
        assert state() == State.PRIMARY_STATE_ACTIVE
        wait_for_service(query, timeout_sec=15, proc=proc)
        resp = ros.call(query, Query.Request(question="Who watered the plants?"), proc=proc)
        assert resp.success, resp.error

        # `ros2 param set` while configured: refused with the way to apply it, never silently ignored (topk is
        # read at configure; live parameters such as max_rounds: tests/test_ros_conventions.py)
        ok, reason = set_param(ros, proc, "topk", 3)
        assert not ok and "configure" in reason, reason

        assert transition(Transition.TRANSITION_DEACTIVATE)
        wait_until(lambda: not query.service_is_ready(), 15, f"{SERVICE} to disappear", on_fail=proc.describe)
        assert transition(Transition.TRANSITION_CLEANUP)
        assert state() == State.PRIMARY_STATE_UNCONFIGURED
        ok, reason = set_param(ros, proc, "max_rounds", 2)    # unconfigured: taken by the next configure
        assert ok, reason
    finally:
        ros.close()
        rc = proc.stop(timeout=10)
    assert rc == 0, proc.describe()


def test_autostart_with_missing_store_exits_with_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "memory.db"
    proc = start_module(
        "m3_agent_ros.control_node", ["--ros-args", "-p", f"db_path:={missing}"], tmp_path / "control_node.log"
    )
    try:
        rc = proc.wait(timeout=30)
    finally:
        proc.stop(timeout=5)
    assert rc == 1, proc.describe()
    log = proc.output()
    assert "does not exist" in log and str(missing) in log
    assert not missing.exists()  # read-only: never creates the store


def test_unknown_answerer_fails_configure(tmp_path: Path) -> None:
    make_demo_store(tmp_path / "memory.db")
    proc = start_module(
        "m3_agent_ros.control_node",
        ["--ros-args", "-p", f"db_path:={tmp_path / 'memory.db'}", "-p", "answerer:=oracle"],
        tmp_path / "control_node.log",
    )
    try:
        rc = proc.wait(timeout=30)
    finally:
        proc.stop(timeout=5)
    assert rc == 1, proc.describe()
    assert "unknown answerer 'oracle'" in proc.output()
