"""The m3_agent/action/Instruct server of the control node: reasoning with per-round feedback and cancel,
then action goals (m3_agent/msg/ActionGoal) and speech (std_msgs/String) for the planned skills.

Goals share the node's answer queue with the Query service (one answer at a time over one store/model): a goal
is rejected when the queue is full, and a cancel request, the action client leaving, the node's deadline
(query_timeout_s) or its shutdown stop the reasoning (between rounds, and the generation in progress where the
backend can abort it); a cancelled goal ends CANCELED with error "cancelled" at once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from geometry_msgs.msg import PoseStamped
from m3_agent.action import Instruct
from m3_agent.msg import ActionGoal
from rclpy.action import CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from std_msgs.msg import String

from m3_agent_ros.answer_queue import AnswerQueue, Refusal, busy_message
from m3_agent_ros.safe_action_server import SafeActionServer
from m3_control.answerer import Answer, validate_query
from m3_control.skills import Goal, GoalPlanner, load_skills
from m3_memory.poses import quaternion_from_yaw

UINT8_MAX = 255


def default_skills_file() -> Path:
    here = Path(__file__).resolve().parents[1] / "config" / "skills.yaml"
    if here.exists():
        return here
    from ament_index_python.packages import get_package_share_directory

    return Path(get_package_share_directory("m3_agent")) / "config" / "skills.yaml"


class InstructServer:
    def __init__(self, node: Node, answerer: Any, params: Any, queue: AnswerQueue,
                 client_gone: Callable[[], str] | None = None,
                 tracked: Callable[[], AbstractContextManager[Any]] = nullcontext) -> None:
        """``queue``: the node's answer queue; ``client_gone``: "" while an action client is there, else why not;
        ``tracked``: a context each goal's execution runs in (the node waits for them before destroying us)."""
        self.node, self.answerer, self.params = node, answerer, params
        self.queue, self.client_gone, self.tracked = queue, client_gone, tracked
        skills = load_skills(params.skills_file or default_skills_file())
        backend = getattr(answerer, "backend", None)
        # a model that cannot follow the reasoning format cannot plan goals either: use the rules then
        planning_model = backend if backend is not None and not str(backend.name).startswith("embedded") else None
        # goal arguments are checked against the store the answer came from (m3_control.goal_validation)
        self.planner = GoalPlanner(skills, planning_model, memory=answerer)
        # lifecycle publishers (the node is a LifecycleNode): nothing goes out while the node is not active
        self.goal_pub = node.create_lifecycle_publisher(ActionGoal, params.goal_topic, 10)  # type: ignore[attr-defined]
        self.speech_pub = node.create_lifecycle_publisher(String, params.speech_topic, 10)  # type: ignore[attr-defined]
        self.pose_pub = node.create_lifecycle_publisher(PoseStamped, params.goal_pose_topic, 10)  # type: ignore[attr-defined]
        self.server = SafeActionServer(node, Instruct, params.action_name, execute_callback=self._execute,
                                   goal_callback=self._on_goal, cancel_callback=self._on_cancel,
                                   callback_group=ReentrantCallbackGroup())

    def destroy(self) -> None:
        self.server.destroy()
        self.node.destroy_lifecycle_publisher(self.goal_pub)  # type: ignore[attr-defined]
        self.node.destroy_lifecycle_publisher(self.speech_pub)  # type: ignore[attr-defined]
        self.node.destroy_lifecycle_publisher(self.pose_pub)  # type: ignore[attr-defined]

    def _on_goal(self, request: Instruct.Goal) -> GoalResponse:
        error = validate_query(request.instruction, int(request.max_rounds) or self.params.max_rounds,
                               self.params.max_question_chars)
        if error:
            self.node.get_logger().warning(f"instruction rejected: {error}")
            return GoalResponse.REJECT
        pending = self.queue.pending()
        if pending >= self.queue.max_pending:  # the execute callback re-checks (a race only costs an abort)
            self.node.get_logger().warning(f"instruction rejected: {busy_message(pending, self.queue.max_pending)}")
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    def _on_cancel(self, goal_handle: Any) -> CancelResponse:
        self.node.get_logger().info("instruction cancel requested: stopping its reasoning")
        return CancelResponse.ACCEPT

    def _execute(self, goal_handle: Any) -> Instruct.Result:
        with self.tracked():
            return self._run_goal(goal_handle)

    def _run_goal(self, goal_handle: Any) -> Instruct.Result:
        req = goal_handle.request
        before = float(req.before_time) if req.has_time_bound else None
        rounds = int(req.max_rounds) or self.params.max_rounds

        def stop_reason() -> str:
            if goal_handle.is_cancel_requested:
                return "cancelled"
            return self.client_gone() if self.client_gone is not None else ""

        def work(should_stop: Callable[[], bool]) -> Answer:
            def on_round(info: Any) -> bool:
                if should_stop():
                    return False
                fb = Instruct.Feedback(round=min(info.round, UINT8_MAX), action=info.action,
                                       content=info.content[:2000], results=max(0, int(info.results)))
                goal_handle.publish_feedback(fb)
                return not should_stop()

            if hasattr(self.answerer, "loop"):
                return self.answerer.answer(req.instruction, before, rounds, on_round=on_round,
                                            should_stop=should_stop)
            ans = self.answerer.answer(req.instruction, before, rounds)
            on_round(type("Info", (), {"round": 1, "action": "answer", "content": ans.answer,
                                      "results": len(ans.cited_memory_ids)})())
            return ans

        result = Instruct.Result()
        job = self.queue.submit("instruct", work, stop_reason)
        if isinstance(job, Refusal):  # busy or shutting down: a clear refusal in the result
            self.node.get_logger().warning(f"instruction refused: {job.message}")
            goal_handle.abort()
            result.error = job.message
            return result
        ans: Answer = self.queue.wait(job)
        if goal_handle.is_cancel_requested:
            where = "while waiting" if job.started is None else \
                f"{time.monotonic() - job.started:.2f} s into its reasoning"
            self.node.get_logger().info(f"instruction cancelled {where}: reasoning stopped, result sent")
            goal_handle.canceled()
            result.error = "cancelled"
            result.rounds_used = min(ans.rounds_used, UINT8_MAX)
            return result
        if ans.trace.get("stopped"):  # timed out, client left, shutting down
            self.node.get_logger().warning(f"instruction not answered: {ans.error}")
            goal_handle.abort()
            result.error = ans.error
            result.rounds_used = min(ans.rounds_used, UINT8_MAX)
            return result
        goals: list[Goal] = []
        problems: list[str] = []
        if not ans.error:
            goals, problems = self.planner.plan(req.instruction, ans.answer, ans.cited_memory_ids, before, ans.trace)
        for p in problems:
            self.node.get_logger().warning(f"goal planning: {p}")
        msgs = [self._publish(g, req.instruction) for g in goals]
        result.success, result.answer, result.error = not ans.error, ans.answer, ans.error
        result.rounds_used = min(ans.rounds_used, UINT8_MAX)
        result.cited_memory_ids = [int(i) for i in ans.cited_memory_ids]
        result.goals = msgs
        poses = {g.goal_id: g.pose.as_dict() for g in goals if g.pose is not None}
        result.trace_json = json.dumps({**ans.trace, "goal_problems": problems, "goal_poses": poses}, default=str,
                                       ensure_ascii=False)
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
        if goal.pose is not None:  # a navigation stack's goal: where the robot was when it saw / heard the target
            ps = PoseStamped()
            ps.header.stamp = msg.header.stamp
            ps.header.frame_id = goal.pose.frame or "map"
            ps.pose.position.x, ps.pose.position.y = float(goal.pose.x), float(goal.pose.y)
            qx, qy, qz, qw = quaternion_from_yaw(float(goal.pose.yaw))
            ps.pose.orientation.x, ps.pose.orientation.y, ps.pose.orientation.z, ps.pose.orientation.w = qx, qy, qz, qw
            self.pose_pub.publish(ps)
            self.node.get_logger().info(f"goal {goal.goal_id}: {goal.skill} to {goal.pose.place or 'a pose'} "
                                        f"({goal.pose.x:.2f}, {goal.pose.y:.2f}) in {ps.header.frame_id}, "
                                        f"resolved by {goal.pose.how}")
        return msg
