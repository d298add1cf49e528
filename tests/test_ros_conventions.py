"""ROS conventions of the nodes (issue 12): a namespace moves every name (relative names; /diagnostics stays
absolute), parameters carry descriptors (ranges, read_only) and are set through the parameter services the way
`ros2 param set/describe` does, and the publishers are lifecycle publishers (nothing goes out while inactive)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import yaml

from m3_agent_ros.params import ControlParams, MemorizationParams

from .ros_helpers import (
    REPO_ROOT,
    NodeProcess,
    RosTestNode,
    make_demo_store,
    start_module,
    wait_for_service,
    wait_until,
)

pytestmark = pytest.mark.ros

# names the nodes use, relative to their namespace (~ = the node's own name)
MEMORIZATION_SUBSCRIPTIONS = ("camera/image_raw", "camera/image_raw/compressed", "audio")
MEMORIZATION_PUBLICATIONS = ("m3_agent/memory_events",)
CONTROL_PUBLICATIONS = ("m3_agent/action_goals", "m3_agent/speech")
ROS_OWN = ("/rosout", "/parameter_events")  # absolute by ROS convention, as /diagnostics


def _params(tmp_path: Path, db: Path) -> Path:
    doc = yaml.safe_load((REPO_ROOT / "config" / "default.yaml").read_text())
    doc["/**"]["ros__parameters"]["db_path"] = str(db)
    doc["m3_agent_control"]["ros__parameters"]["answerer"] = "extractive"
    mem = doc["m3_agent_memorization"]["ros__parameters"]
    mem.update(face_backend="none", voice_backend="none")
    out = tmp_path / "params.yaml"
    out.write_text(yaml.safe_dump(doc))
    return out


def _graph(node: Any) -> dict[str, set[str]]:
    """Every topic with a publisher or subscriber of the given node names (fully qualified)."""
    return {"topics": {t for t, _ in node.get_topic_names_and_types()},
            "services": {s for s, _ in node.get_service_names_and_types()}}


def test_a_namespace_moves_every_topic_service_and_action(tmp_path: Path) -> None:
    """bringup --namespace robot1 --name control=ctl: the nodes are /robot1/m3_agent_memorization and /robot1/ctl,
    their params-file sections still apply (re-keyed), and everything they publish, subscribe, serve is under
    /robot1 except /diagnostics."""
    from m3_agent.srv import Query
    from std_srvs.srv import Trigger

    make_demo_store(tmp_path / "memory.db")
    params = _params(tmp_path, tmp_path / "memory.db")
    proc = start_module("m3_agent_ros.bringup", ["--params", str(params), "--namespace", "robot1",
                                                 "--name", "control=ctl"], tmp_path / "bringup.log")
    ros = RosTestNode("namespace_check")
    try:
        query: Any = ros.node.create_client(Query, "/robot1/m3_agent/query")
        flush: Any = ros.node.create_client(Trigger, "/robot1/m3_agent_memorization/flush")
        wait_for_service(query, timeout_sec=60, proc=proc)
        wait_for_service(flush, timeout_sec=60, proc=proc)
        resp = ros.call(query, Query.Request(question="Who watered the plants?"), proc=proc)
        assert resp.success and resp.answer.startswith("[extractive]"), resp  # the re-keyed section applied

        node = ros.node
        wait_until(lambda: ("ctl", "/robot1") in node.get_node_names_and_namespaces()
                   and ("m3_agent_memorization", "/robot1") in node.get_node_names_and_namespaces(),
                   15, "both nodes in /robot1", on_fail=proc.describe)
        mem, ctl = ("m3_agent_memorization", "/robot1"), ("ctl", "/robot1")

        def names(fn: Any, who: tuple[str, str]) -> set[str]:
            return {n for n, _ in fn(*who)}

        def complete() -> bool:
            subs = names(node.get_subscriber_names_and_types_by_node, mem)
            pubs = names(node.get_publisher_names_and_types_by_node, mem) | names(
                node.get_publisher_names_and_types_by_node, ctl)
            return (all(f"/robot1/{t}" in subs for t in MEMORIZATION_SUBSCRIPTIONS)
                    and all(f"/robot1/{t}" in pubs for t in MEMORIZATION_PUBLICATIONS + CONTROL_PUBLICATIONS))

        wait_until(complete, 15, "the nodes' topics in the graph", on_fail=lambda: f"{_graph(node)}")
        owned: set[str] = set()
        for who in (mem, ctl):
            owned |= names(node.get_subscriber_names_and_types_by_node, who)
            owned |= names(node.get_publisher_names_and_types_by_node, who)
            owned |= names(node.get_service_names_and_types_by_node, who)
        outside = sorted(n for n in owned if not n.startswith("/robot1/") and n not in ("/diagnostics", *ROS_OWN))
        assert not outside, f"names outside the namespace: {outside}"
        assert "/diagnostics" in names(node.get_publisher_names_and_types_by_node, mem)
        services = names(node.get_service_names_and_types_by_node, ctl)
        assert {"/robot1/m3_agent/query", "/robot1/m3_agent/instruct/_action/send_goal",
                "/robot1/ctl/change_state"} <= services, services
        assert {"/robot1/m3_agent_memorization/sync"} <= names(node.get_service_names_and_types_by_node, mem)
        # nothing of the default (root) names is served
        assert not ros.node.create_client(Query, "/m3_agent/query").wait_for_service(timeout_sec=0.5)
    finally:
        ros.close()
        rc = proc.stop(timeout=20)
    assert rc == 0, proc.describe()


def test_bringup_refuses_a_bad_namespace_or_node_name(tmp_path: Path) -> None:
    for args, msg in ((["--namespace", "robot-1"], "not a valid ROS name token"),
                      (["--name", "nonexistent=x"], "expected KEY=NAME"),
                      (["--name", "control=9x"], "not a valid ROS node name")):
        proc = start_module("m3_agent_ros.bringup", [*args, "--dry-run"], tmp_path / "bringup.log")
        try:
            rc = proc.wait(timeout=30)
        finally:
            proc.stop(timeout=5)
        assert rc == 2 and msg in proc.output(), proc.describe()


# -- parameters ---------------------------------------------------------------------------------------
def _param_value(value: Any) -> Any:
    from rcl_interfaces.msg import ParameterType, ParameterValue

    if isinstance(value, bool):
        return ParameterValue(type=ParameterType.PARAMETER_BOOL, bool_value=value)
    if isinstance(value, int):
        return ParameterValue(type=ParameterType.PARAMETER_INTEGER, integer_value=value)
    if isinstance(value, float):
        return ParameterValue(type=ParameterType.PARAMETER_DOUBLE, double_value=value)
    return ParameterValue(type=ParameterType.PARAMETER_STRING, string_value=str(value))


class ParamClient:
    """What `ros2 param set / get / describe /NODE ...` do: the node's parameter services."""

    def __init__(self, ros: RosTestNode, node: str, proc: NodeProcess) -> None:
        from rcl_interfaces.srv import DescribeParameters, GetParameters, SetParameters

        self.ros, self.proc = ros, proc
        self.set_c: Any = ros.node.create_client(SetParameters, f"{node}/set_parameters")
        self.get_c: Any = ros.node.create_client(GetParameters, f"{node}/get_parameters")
        self.describe_c: Any = ros.node.create_client(DescribeParameters, f"{node}/describe_parameters")
        for c in (self.set_c, self.get_c, self.describe_c):
            wait_for_service(c, timeout_sec=30, proc=proc)

    def set(self, name: str, value: Any) -> tuple[bool, str]:
        from rcl_interfaces.msg import Parameter
        from rcl_interfaces.srv import SetParameters

        req = SetParameters.Request(parameters=[Parameter(name=name, value=_param_value(value))])
        (res,) = self.ros.call(self.set_c, req, proc=self.proc).results
        return bool(res.successful), str(res.reason)

    def get(self, name: str) -> Any:
        from rcl_interfaces.srv import GetParameters

        (v,) = self.ros.call(self.get_c, GetParameters.Request(names=[name]), proc=self.proc).values
        return {1: v.bool_value, 2: v.integer_value, 3: v.double_value, 4: v.string_value}.get(v.type)

    def describe(self, names: list[str]) -> list[Any]:
        from rcl_interfaces.srv import DescribeParameters

        return list(self.ros.call(self.describe_c, DescribeParameters.Request(names=names),
                                  proc=self.proc).descriptors)


def test_parameters_have_descriptors_and_sets_are_checked_applied_or_refused(tmp_path: Path) -> None:
    from m3_agent.srv import Query

    make_demo_store(tmp_path / "memory.db")
    service = "/m3_agent/params_test_query"
    proc = start_module("m3_agent_ros.control_node", [
        "--ros-args", "-r", "__node:=m3_params_test", "-p", f"db_path:={tmp_path / 'memory.db'}",
        "-p", f"service_name:={service}", "-p", "answerer:=extractive"], tmp_path / "control.log")
    ros = RosTestNode("params_test_client")
    try:
        query: Any = ros.node.create_client(Query, service)
        wait_for_service(query, timeout_sec=30, proc=proc)
        pc = ParamClient(ros, "/m3_params_test", proc)

        # describe: every parameter documented; every number with its range; read_only where fixed at start
        names = list(ControlParams.names())
        for name, d in zip(names, pc.describe(names), strict=True):
            rule, default = ControlParams.rule(name), getattr(ControlParams(), name)
            assert d.name == name and d.description, name
            assert d.read_only == rule.read_only, name
            if isinstance(default, bool) or not isinstance(default, (int, float)):
                continue
            ranges = d.floating_point_range if isinstance(default, float) else d.integer_range
            assert len(ranges) == 1, f"{name} has no range"
            assert (ranges[0].from_value, ranges[0].to_value) == rule.range, name
        assert {n for n in names if ControlParams.rule(n).read_only} == {"max_pending_queries", "autostart"}

        ok, reason = pc.set("topk", 0)                     # out of range: refused by the descriptor
        assert not ok and "out of range" in reason and "topk" in reason, reason
        ok, reason = pc.set("query_timeout_s", -5.0)
        assert not ok and "out of range" in reason, reason
        ok, reason = pc.set("max_pending_queries", 4)      # read-only: fixed at process start
        assert not ok and "read-only" in reason, reason
        ok, reason = pc.set("topk", 3)                     # in range, but read at configure: refused with the way
        assert not ok and "configure" in reason and "max_question_chars" in reason, reason
        assert pc.get("topk") == 2 and pc.get("max_pending_queries") == 8   # nothing changed

        long_q = "Who watered the plants on the balcony?"
        before = ros.call(query, Query.Request(question=long_q), proc=proc)
        assert before.success, before.error
        ok, reason = pc.set("max_question_chars", 20)      # live: applied at once
        assert ok, reason
        assert pc.get("max_question_chars") == 20
        after = ros.call(query, Query.Request(question=long_q), proc=proc)
        assert not after.success and "the limit is 20" in after.error, after.error
        ok, reason = pc.set("max_question_chars", 4000)
        assert ok, reason
        assert ros.call(query, Query.Request(question=long_q), proc=proc).success
        ok, reason = pc.set("query_timeout_s", 30.0)
        assert ok and pc.get("query_timeout_s") == 30.0, reason
        assert "applied: query_timeout_s=30.0" in wait_until(
            lambda: "applied: query_timeout_s" in proc.output() and proc.output(), 10, "the applied log line")
    finally:
        ros.close()
        rc = proc.stop(timeout=10)
    assert rc == 0, proc.describe()


def test_an_out_of_range_parameter_stops_the_node_at_start(tmp_path: Path) -> None:
    proc = start_module("m3_agent_ros.memorization_node", [
        "--ros-args", "-p", f"db_path:={tmp_path / 'm.db'}", "-p", "clip_seconds:=0.1"], tmp_path / "mem.log")
    try:
        rc = proc.wait(timeout=60)
    finally:
        proc.stop(timeout=5)
    assert rc == 1, proc.describe()
    assert "clip_seconds" in proc.output() and "out of range" in proc.output(), proc.describe()
    assert not (tmp_path / "m.db").exists()


def test_every_numeric_parameter_has_a_range() -> None:
    for cls in (ControlParams, MemorizationParams):
        defaults = cls()
        for name in cls.names():
            value, rule = getattr(defaults, name), cls.rule(name)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                assert rule.range is not None, f"{cls.__name__}.{name} has no range"
                lo, hi = rule.range
                assert type(lo) is type(hi) is type(value) and lo <= value <= hi, name
        assert set(cls.RULES) <= set(cls.names()), f"{cls.__name__}: rules for unknown parameters"
        assert not any(r.live and r.read_only for r in cls.RULES.values())


# -- lifecycle publishers -----------------------------------------------------------------------------
def test_memory_events_only_go_out_while_active(tmp_path: Path) -> None:
    """The MemoryEvent publisher is a lifecycle publisher: it exists from configure to cleanup (transient-local
    history kept across deactivate/activate), and a publish while inactive sends nothing."""
    import rclpy
    from m3_agent.msg import MemoryEvent
    from rclpy.executors import MultiThreadedExecutor
    from rclpy.lifecycle import TransitionCallbackReturn
    from rclpy.qos import DurabilityPolicy, QoSProfile

    from m3_agent_ros.memorization_node import MemorizationNode
    from m3_memory.memorize import ClipResult

    topic = "/m3_agent/lifecycle_pub_test_events"
    qos = QoSProfile(depth=100, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    # the node takes the default context (as in its process): init it here, shut it down at the end
    rclpy.init(args=["test", "--ros-args", "-p", f"db_path:={tmp_path / 'm.db'}", "-p", "face_backend:=none",
                     "-p", "voice_backend:=none", "-p", "autostart:=false", "-p", f"event_topic:={topic}"])
    try:
        node = MemorizationNode("m3_lifecycle_pub_test")
        sub_node = rclpy.create_node("lifecycle_pub_listener")
        got: list[int] = []
        sub_node.create_subscription(MemoryEvent, topic, lambda m: got.append(int(m.clip_id)), qos)
        executor = MultiThreadedExecutor(num_threads=3)
        executor.add_node(node)
        executor.add_node(sub_node)
        spinner = threading.Thread(target=executor.spin, daemon=True)
        spinner.start()

        def publish(clip_id: int) -> None:
            node._publish_event(ClipResult(clip_id, clip_id * 30.0, clip_id * 30.0 + 30.0))

        assert sub_node.count_publishers(topic) == 0            # unconfigured: no publisher
        assert node.trigger_configure() == TransitionCallbackReturn.SUCCESS
        wait_until(lambda: sub_node.count_publishers(topic) == 1, 15, "the event publisher after configure")
        wait_until(lambda: node._event_pub.get_subscription_count() == 1, 15, "the listener to match")
        publish(1)                                              # inactive: nothing goes out
        assert node.trigger_activate() == TransitionCallbackReturn.SUCCESS
        publish(2)
        wait_until(lambda: 2 in got, 15, "the event published while active")
        assert node.trigger_deactivate() == TransitionCallbackReturn.SUCCESS
        assert sub_node.count_publishers(topic) == 1            # still there, silent
        publish(3)
        assert node.trigger_activate() == TransitionCallbackReturn.SUCCESS
        publish(4)
        wait_until(lambda: 4 in got, 15, "the event published after re-activation")
        assert got == [2, 4], got                               # 1 and 3 (inactive) never went out
        late: list[int] = []                                    # transient local: history across deactivate
        sub_node.create_subscription(MemoryEvent, topic, lambda m: late.append(int(m.clip_id)), qos)
        wait_until(lambda: len(late) >= 2, 15, "the late subscriber's history")
        assert late == [2, 4], late                             # (in order, complete once two arrived)
        assert node.trigger_deactivate() == TransitionCallbackReturn.SUCCESS
        assert node.trigger_cleanup() == TransitionCallbackReturn.SUCCESS
        wait_until(lambda: sub_node.count_publishers(topic) == 0, 15, "the event publisher to go at cleanup")
        executor.shutdown(timeout_sec=1)
        sub_node.destroy_node()
        node.destroy_node()
    finally:
        rclpy.try_shutdown()


def test_action_goal_publishers_are_lifecycle_publishers(tmp_path: Path) -> None:
    import rclpy
    from rclpy.lifecycle import LifecyclePublisher, TransitionCallbackReturn

    from m3_agent_ros.control_node import ControlNode

    make_demo_store(tmp_path / "memory.db")
    goals = "/m3_agent/lc_goal_test_goals"
    rclpy.init(args=["test", "--ros-args", "-p", f"db_path:={tmp_path / 'memory.db'}", "-p", "answerer:=extractive",
                     "-p", "autostart:=false", "-p", "service_name:=/m3_agent/lc_goal_test_query",
                     "-p", "action_name:=/m3_agent/lc_goal_test_instruct", "-p", f"goal_topic:={goals}"])
    try:
        node = ControlNode("m3_lifecycle_goal_test")
        assert node.trigger_configure() == TransitionCallbackReturn.SUCCESS
        assert node.trigger_activate() == TransitionCallbackReturn.SUCCESS
        instruct = node._instruct
        assert isinstance(instruct.goal_pub, LifecyclePublisher) and instruct.goal_pub.is_activated
        assert isinstance(instruct.speech_pub, LifecyclePublisher) and instruct.speech_pub.is_activated
        assert node.trigger_deactivate() == TransitionCallbackReturn.SUCCESS
        assert node._instruct is None   # (its publishers are destroyed: nothing can go out while inactive)
        wait_until(lambda: node.count_publishers(goals) == 0, 10, "the goal publisher to go at deactivate")
        node.release()
        node.destroy_node()
    finally:
        rclpy.try_shutdown()
