"""Control node with the M3 reasoning loop behind an OpenAI-compatible model server (a real local process):
the Query service, the Instruct action with per-round feedback, action goals on the topic, and cancel."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from .openai_server import FakeOpenAI
from .ros_helpers import RosTestNode, make_demo_store, start_module, wait_until
from .store_helpers import kitchen_store

pytestmark = pytest.mark.ros


def _start_control(tmp: Path, base_url: str, suffix: str) -> Any:
    return start_module("m3_agent_ros.control_node", [
        "--ros-args", "-p", f"db_path:={tmp / 'memory.db'}", "-p", "answerer:=m3", "-p", "prompt:=m3",
        "-p", "backend:=openai",
        "-p", f"backend_base_url:={base_url}", "-p", "backend_model:=m3-agent-control",
        "-p", f"service_name:=/m3_agent/query_{suffix}", "-p", f"action_name:=/m3_agent/instruct_{suffix}",
        "-p", f"goal_topic:=/m3_agent/goals_{suffix}", "-r", f"__node:=m3_agent_control_{suffix}"],
        tmp / "control.log")


def _send_goal(ros: RosTestNode, client: Any, goal: Any, feedback: list, timeout: float = 60.0) -> Any:
    fut = client.send_goal_async(goal, feedback_callback=lambda m: feedback.append(m.feedback))
    handle = wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05), fut.done())[1] and fut.result(),
                        timeout=timeout, what="goal acceptance")
    return handle


def test_instruction_answers_with_feedback_and_publishes_a_validated_goal(tmp_path: Path) -> None:
    from m3_agent.action import Instruct
    from m3_agent.msg import ActionGoal
    from m3_agent.srv import Query
    from rclpy.action import ActionClient

    _, ids = kitchen_store(tmp_path / "memory.db")
    server = FakeOpenAI(tmp_path, [
        "<think>find the folder</think>Action: [Search]\nContent: Who handed over a red folder?",
        "Action: [Answer]\nContent: The red folder.",
        '{"skill": "fetch_object", "arguments": {"object": "red folder"}}',
        "Action: [Answer]\nContent: Black coffee without sugar.",
    ])
    proc = _start_control(tmp_path, server.base_url, "a")
    ros = RosTestNode("instruct_test_client")
    goals: list = []
    try:
        ros.node.create_subscription(ActionGoal, "/m3_agent/goals_a", goals.append, 10)
        client = ActionClient(ros.node, Instruct, "/m3_agent/instruct_a")
        assert client.wait_for_server(timeout_sec=20), proc.describe()
        feedback: list = []
        handle = _send_goal(ros, client, Instruct.Goal(instruction="Bring me the folder for confidential files"),
                            feedback)
        assert handle.accepted
        res_fut = handle.get_result_async()
        wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05), res_fut.done())[1], timeout=60,
                   what="the instruction result", on_fail=proc.describe)
        result = res_fut.result().result
        assert result.success and result.answer == "The red folder."
        # feedback travels on its own topic; rclpy drops feedback that arrives after the result, so the last
        # round's may be missing: the trace carries every round
        assert [(f.round, f.action) for f in feedback][:1] == [(1, "search")]
        assert [(r["round"], r["action"]) for r in json.loads(result.trace_json)["rounds"]] == [
            (1, "search"), (2, "answer")]
        assert feedback[0].content == "Who handed over a red folder?" and feedback[0].results >= 2
        assert ids["m_folder"] in result.cited_memory_ids
        assert [(g.skill, json.loads(g.arguments_json)) for g in result.goals] == [("fetch_object",
                                                                                   {"object": "red folder"})]
        wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05), goals)[1], timeout=10, what="ActionGoal")
        assert goals[0].goal_id == result.goals[0].goal_id
        assert goals[0].source_instruction == "Bring me the folder for confidential files"
        # the Query service goes through the same reasoning loop
        q = ros.node.create_client(Query, "/m3_agent/query_a")
        assert q.wait_for_service(timeout_sec=10)
        res = ros.call(q, Query.Request(question="How does Alice take her coffee?"), proc=proc)
        assert res.success and res.answer == "Black coffee without sugar." and res.rounds_used == 1
    finally:
        ros.close()
        rc = proc.stop(timeout=20)
        server.close()
    assert rc == 0, proc.describe()


def test_cancel_stops_the_reasoning(tmp_path: Path) -> None:
    from m3_agent.action import Instruct
    from rclpy.action import ActionClient

    make_demo_store(tmp_path / "memory.db")
    server = FakeOpenAI(tmp_path, [f"Action: [Search]\nContent: query {i}" for i in range(5)], delay_s=1.0)
    proc = _start_control(tmp_path, server.base_url, "b")
    ros = RosTestNode("cancel_test_client")
    try:
        client = ActionClient(ros.node, Instruct, "/m3_agent/instruct_b")
        assert client.wait_for_server(timeout_sec=20), proc.describe()
        feedback: list = []
        handle = _send_goal(ros, client, Instruct.Goal(instruction="Where is everything?", max_rounds=5), feedback)
        wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05), feedback)[1], timeout=30, what="feedback")
        t0 = time.monotonic()
        cancel = handle.cancel_goal_async()
        res_fut = handle.get_result_async()
        wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05), res_fut.done())[1], timeout=30,
                   what="the cancelled result", on_fail=proc.describe)
        assert cancel.done()
        from action_msgs.msg import GoalStatus

        assert res_fut.result().status == GoalStatus.STATUS_CANCELED
        assert res_fut.result().result.error == "cancelled"
        assert len(feedback) < 5 and time.monotonic() - t0 < 5.0
    finally:
        ros.close()
        rc = proc.stop(timeout=20)
        server.close()
    assert rc == 0, proc.describe()
