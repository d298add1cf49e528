"""The m3_agent/action/Instruct server of the control node: reasoning with per-round feedback and cancel,
then action goals (m3_agent/msg/ActionGoal) and speech (std_msgs/String) for the planned skills."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from m3_agent.action import Instruct
from m3_agent.msg import ActionGoal
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from std_msgs.msg import String

from m3_control.answerer import Answer, validate_query
from m3_control.skills import Goal, GoalPlanner, load_skills

UINT8_MAX = 255


def default_skills_file() -> Path:
    here = Path(__file__).resolve().parents[1] / "config" / "skills.yaml"
    if here.exists():
        return here
    from ament_index_python.packages import get_package_share_directory

    return Path(get_package_share_directory("m3_agent")) / "config" / "skills.yaml"


class InstructServer:
    def __init__(self, node: Node, answerer: Any, params: Any, answer_lock: threading.Lock) -> None:
        self.node, self.answerer, self.params = node, answerer, params
        skills = load_skills(params.skills_file or default_skills_file())
        backend = getattr(answerer, "backend", None)
        # a model that cannot follow the reasoning format cannot plan goals either: use the rules then
        planning_model = backend if backend is not None and not str(backend.name).startswith("embedded") else None
        self.planner = GoalPlanner(skills, planning_model)
        self.goal_pub = node.create_publisher(ActionGoal, params.goal_topic, 10)
        self.speech_pub = node.create_publisher(String, params.speech_topic, 10)
        self._busy = answer_lock  # shared with the Query service: one answer at a time over one store/model
        self.server = ActionServer(node, Instruct, params.action_name, execute_callback=self._execute,
                                   goal_callback=self._on_goal, cancel_callback=lambda _: CancelResponse.ACCEPT,
                                   callback_group=ReentrantCallbackGroup())

    def destroy(self) -> None:
        self.server.destroy()
        self.node.destroy_publisher(self.goal_pub)
        self.node.destroy_publisher(self.speech_pub)

    def _on_goal(self, request: Instruct.Goal) -> GoalResponse:
        error = validate_query(request.instruction, int(request.max_rounds) or self.params.max_rounds,
                               self.params.max_question_chars)
        if error:
            self.node.get_logger().warning(f"instruction rejected: {error}")
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    def _execute(self, goal_handle: Any) -> Instruct.Result:
        req = goal_handle.request
        before = float(req.before_time) if req.has_time_bound else None
        rounds = int(req.max_rounds) or self.params.max_rounds

        def on_round(info: Any) -> bool:
            fb = Instruct.Feedback(round=min(info.round, UINT8_MAX), action=info.action, content=info.content[:2000],
                                   results=max(0, int(info.results)))
            goal_handle.publish_feedback(fb)
            return not goal_handle.is_cancel_requested

        with self._busy:
            try:
                if hasattr(self.answerer, "loop"):
                    ans: Answer = self.answerer.answer(req.instruction, before, rounds, on_round=on_round)
                else:
                    ans = self.answerer.answer(req.instruction, before, rounds)
                    on_round(type("Info", (), {"round": 1, "action": "answer", "content": ans.answer,
                                              "results": len(ans.cited_memory_ids)})())
            except Exception as e:  # never let an instruction take the node down
                ans = Answer.failure(f"internal error: {type(e).__name__}: {e}")
        result = Instruct.Result()
        if goal_handle.is_cancel_requested or ans.error == "cancelled":
            goal_handle.canceled()
            result.error = "cancelled"
            result.rounds_used = min(ans.rounds_used, UINT8_MAX)
            return result
        goals: list[Goal] = []
        problems: list[str] = []
        if not ans.error:
            goals, problems = self.planner.plan(req.instruction, ans.answer, ans.cited_memory_ids)
        for p in problems:
            self.node.get_logger().warning(f"goal planning: {p}")
        msgs = [self._publish(g, req.instruction) for g in goals]
        result.success, result.answer, result.error = not ans.error, ans.answer, ans.error
        result.rounds_used = min(ans.rounds_used, UINT8_MAX)
        result.cited_memory_ids = [int(i) for i in ans.cited_memory_ids]
        result.goals = msgs
        result.trace_json = json.dumps({**ans.trace, "goal_problems": problems}, default=str, ensure_ascii=False)
        goal_handle.succeed()
        return result

    def _publish(self, goal: Goal, instruction: str) -> ActionGoal:
        msg = ActionGoal(goal_id=goal.goal_id, skill=goal.skill, arguments_json=json.dumps(goal.arguments),
                         source_instruction=instruction,
                         supporting_memory_ids=[int(i) for i in goal.supporting_memory_ids])
        msg.header.stamp = self.node.get_clock().now().to_msg()
        self.goal_pub.publish(msg)
        if goal.skill == "say":
            self.speech_pub.publish(String(data=str(goal.arguments.get("text", ""))))
        return msg
