"""Where things happened, through the real nodes: the memorization node stores the robot's odometry with its clips
(bad poses counted, not lost silently), and the control node turns "take me to ..." into a geometry_msgs/
PoseStamped goal that a real subscriber receives (a remembered pose), or a refusal when there is none."""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from m3_agent_ros.stream_publisher import SyntheticStream
from m3_memory.store.where import save_places

from .people_helpers import meeting_store
from .ros_helpers import NodeProcess, RosTestNode, start_module, wait_until
from .test_where import PLACES, samples

pytestmark = pytest.mark.ros


def _where_node(tmp_path: Path, db: Path, *params: str) -> NodeProcess:
    """A memorization node on /cam/compressed + /mic with 2 s clips, no perception, odometry on /odom in map."""
    args = ["--ros-args"]
    for p in (f"db_path:={db}", "clip_seconds:=2.0", "sample_fps:=2.0", "audio_grace_s:=1.0", "face_backend:=none",
              "voice_backend:=none", "compressed_topic:=/cam/compressed", "image_topic:=''", "audio_topic:=/mic",
              "pose_topic:=/odom", "pose_frame:=map", *params):
        args += ["-p", p]
    return start_module("m3_agent_ros.memorization_node", args, tmp_path / "mem.log")


def _odometry_publisher(stream: SyntheticStream) -> Callable[[float, float, str], None]:
    """publish(t, x, frame): one Odometry at stream time t (counted as published on /odom, for loss accounting)."""
    from nav_msgs.msg import Odometry
    from rclpy.qos import QoSProfile

    pub = stream.node.create_publisher(Odometry, "/odom", QoSProfile(depth=100))
    stream.published["/odom"] = 0
    stream.wait(lambda: pub.get_subscription_count() > 0, 30, "the node's /odom subscription")

    def publish(t: float, x: float, frame: str = "map") -> None:
        m = Odometry()
        m.header.frame_id = frame
        m.header.stamp.sec, m.header.stamp.nanosec = int(t), int(round((t - int(t)) * 1e9))
        m.pose.pose.position.x = x
        m.pose.pose.orientation.w = 1.0
        pub.publish(m)
        stream.published["/odom"] += 1
    return publish


def test_memorization_stores_odometry_with_clips_and_counts_bad_poses(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    places = tmp_path / "places.yaml"
    places.write_text("- {name: dock, x: 0.0, y: 0.0, radius: 1.0}\n- {name: desk, x: 4.0, y: 0.0, radius: 1.0}\n")
    proc = _where_node(tmp_path, db, f"places_file:={places}")
    stream = SyntheticStream("where_stream", "/cam/compressed", "/mic")
    try:
        stream.wait_ready(timeout=30)
        odom = _odometry_publisher(stream)
        for i in range(80):   # 8 s: the robot drives from the dock (x 0) to the desk (x 4) in the first 4 s
            t = round(i * 0.1, 3)
            stream.publish(t)
            odom(t, math.nan if i == 20 else min(4.0, t),          # one NaN pose: counted, not used
                 "odom" if i == 30 else "map")                      # one message in another frame: counted, not used
            stream.spin_until(lambda: False, 0.025)
        res = stream.sync(6.0, timeout=60)
        assert res.success
    finally:
        stream.close()
        proc.stop()
    conn = sqlite3.connect(db)
    clips = conn.execute("SELECT id, round(x, 2), y, frame FROM clips ORDER BY id").fetchall()
    assert [c[:2] for c in clips] == [(0, 1.0), (1, 3.0), (2, 4.0)], proc.output()   # the pose at each clip's middle
    assert all(c[3] == "map" for c in clips)
    assert conn.execute("SELECT count(*) FROM poses").fetchone()[0] >= 30
    assert sorted(r[0] for r in conn.execute("SELECT name FROM places")) == ["desk", "dock"]
    lost = dict(conn.execute("SELECT cause, sum(count) FROM gaps WHERE topic = '/odom' GROUP BY cause").fetchall())
    # the NaN pose and the one in another frame are counted; best effort may also lose a message in transport
    # (then it is accounted as such, never silently)
    assert (lost.get("bad"), lost.get("frame")) == (1, 1) and set(lost) <= {"bad", "frame", "transport"}, lost


def test_a_clip_waits_for_late_odometry_instead_of_taking_the_last_known_pose(tmp_path: Path) -> None:
    """Odometry that arrives 1.5 s of stream behind the camera (a loaded robot, a slow bridge): when clip 1 [2-4 s]
    is finished, the track ends near 2.5 s, and the clip's middle would get that last-known pose (x 2.5) instead of
    x 3.0 (with pose_wait_s 0 it does). The clip waits (pose_wait_s) while poses keep arriving."""
    db = tmp_path / "memory.db"
    proc = _where_node(tmp_path, db, "pose_wait_s:=5.0")
    stream = SyntheticStream("late_odom_stream", "/cam/compressed", "/mic")
    lag = 15   # odometry samples behind the camera (0.1 s each)
    try:
        stream.wait_ready(timeout=30)
        odom = _odometry_publisher(stream)
        for i in range(80 + lag):
            if i < 80:
                stream.publish(round(i * 0.1, 3))
            if i >= lag:
                t = round((i - lag) * 0.1, 3)
                odom(t, t)          # x = t: the pose at any time is known exactly
            stream.spin_until(lambda: False, 0.05)
        res = stream.sync(6.0, timeout=60)
        assert res.success
    finally:
        stream.close()
        proc.stop()
    with sqlite3.connect(db) as conn:
        clips = conn.execute("SELECT id, round(x, 2) FROM clips ORDER BY id").fetchall()
    assert clips == [(0, 1.0), (1, 3.0), (2, 5.0)], proc.output()


def _posed_store(path: Path) -> None:
    store, _ = meeting_store(path, poses=samples)
    save_places(store, PLACES)
    store.close()


def test_navigate_to_publishes_a_pose_stamped_goal_or_refuses(tmp_path: Path) -> None:
    from geometry_msgs.msg import PoseStamped
    from m3_agent.action import Instruct
    from rclpy.action import ActionClient

    _posed_store(tmp_path / "memory.db")
    proc = start_module("m3_agent_ros.control_node", [
        "--ros-args", "-p", f"db_path:={tmp_path / 'memory.db'}", "-p", "answerer:=extractive",
        "-p", "action_name:=/where_test/instruct", "-p", "service_name:=/where_test/query",
        "-p", "goal_pose_topic:=/where_test/goal_pose", "-r", "__node:=m3_agent_control_where"],
        tmp_path / "control.log")
    ros = RosTestNode("where_goal_client")
    poses: list = []
    try:
        ros.node.create_subscription(PoseStamped, "/where_test/goal_pose", poses.append, 10)
        client = ActionClient(ros.node, Instruct, "/where_test/instruct")
        assert client.wait_for_server(timeout_sec=30), proc.describe()

        def instruct(text: str) -> object:
            fut = client.send_goal_async(Instruct.Goal(instruction=text, has_time_bound=True, before_time=91.0))
            handle = wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05), fut.done())[1] and fut.result(),
                                timeout=60, what="goal acceptance", on_fail=proc.describe)
            res = handle.get_result_async()
            wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05), res.done())[1], timeout=60,
                       what="the result", on_fail=proc.describe)
            return res.result().result

        # Cy said 'see you tomorrow' at 1:20 (last heard then), when the robot was back in the kitchen
        r = instruct("Take me to the person who said 'see you tomorrow'")
        assert [g.skill for g in r.goals] == ["navigate_to"], r.trace_json
        wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05), poses)[1], timeout=10, what="PoseStamped")
        p = poses[0]
        assert p.header.frame_id == "map" and (round(p.pose.position.x, 2), round(p.pose.position.y, 2)) == (0, 0)
        trace = json.loads(r.trace_json)
        goal_pose = trace["goal_poses"][r.goals[0].goal_id]
        assert goal_pose["how"] == "person" and goal_pose["place"] == "kitchen"
        assert list(r.goals[0].supporting_memory_ids) == goal_pose["memory_ids"] != []
        # a named place: its centre; nothing in memory or the places names the garage: refused, no goal
        r = instruct("Go to the lab")
        wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05), len(poses) > 1)[1], timeout=10,
                   what="the second PoseStamped")
        assert (poses[1].pose.position.x, poses[1].pose.position.y) == (10.0, 8.0)
        r = instruct("Go to the garage")
        assert list(r.goals) == [] and "has no remembered pose" in " ".join(json.loads(r.trace_json)["goal_problems"])
        ros.executor.spin_once(timeout_sec=0.5)
        assert len(poses) == 2
    finally:
        ros.close()
        proc.stop()
