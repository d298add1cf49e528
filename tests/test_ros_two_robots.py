"""Two robots, one memory on PostgreSQL, through the real nodes over DDS: robot1's memorization node only sees a
person (camera), robot2's only hears her (microphone), both standing in the same room (odometry); both write one
memory at the same time, the person becomes one character, and a control node on robot1 answers from both robots'
memories and says which robot each came from."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from m3_memory import MemoryStore

from .ros_helpers import RosTestNode, start_module, wait_for_service, wait_until

pytestmark = [pytest.mark.ros, pytest.mark.slow]
GRID = Path(__file__).resolve().parents[2] / "shared" / "data" / "grid_talking_faces"
CLIP_S = 10.0
STREAM_S = 20.0
FPS = 10


def _stamp(msg, t: float) -> None:
    msg.header.stamp.sec = int(t)
    msg.header.stamp.nanosec = int(round((t - int(t)) * 1e9))


def _talking_face() -> tuple[list[np.ndarray], np.ndarray]:
    """GRID speaker s1 saying 'bin blue at f two now' (3 s): RGB frames at FPS and 16 kHz speech."""
    from m3_agent_ros.bags.compose import _decode

    return _decode(GRID / "bbaf2n.mpg", (360, 288), FPS)


def _memorization(name: str, url: str, tmp: Path, search: str):
    return start_module("m3_agent_ros.memorization_node", [
        "--ros-args", "-r", f"__ns:=/{name}", "-p", f"db_path:={url}", "-p", f"robot_name:={name}",
        "-p", f"vector_search:={search}",
        "-p", f"clip_seconds:={CLIP_S}", "-p", "sample_fps:=2.0", "-p", "pose_topic:=odom",
        "-p", "pose_frame:=map", "-p", "audio_grace_s:=5.0"], tmp / f"{name}_memorization.log")


@pytest.mark.timeout(900)
@pytest.mark.parametrize("search", ["local", "server"])   # each node's own index / pgvector's on the server
def test_a_person_seen_by_one_robot_and_heard_by_the_other_is_one_character_and_answers_cite_both(
        tmp_path: Path, search: str, request) -> None:
    pytest.importorskip("dlib")
    if not GRID.is_dir():
        pytest.skip(f"{GRID} is not there")
    from m3_agent.msg import AudioChunk
    from m3_agent.srv import Query
    from nav_msgs.msg import Odometry
    from rclpy.qos import QoSProfile
    from sensor_msgs.msg import CompressedImage
    from std_srvs.srv import Trigger

    from m3_memory.ingest.frames import encode_jpeg

    server = request.getfixturevalue("pg_server" if search == "local" else "pgvector_server")
    url = server.database(f"two_robots_{search}_{time.time_ns() % 10**9}")
    frames, speech = _talking_face()
    blank = encode_jpeg(np.full((288, 360, 3), 90, np.uint8))   # robot2's camera sees nobody
    faces = [encode_jpeg(f) for f in frames]
    procs = {name: _memorization(name, url, tmp_path, search) for name in ("robot1", "robot2")}
    ros = RosTestNode("two_robots_publisher")
    try:
        n, qos = ros.node, QoSProfile(depth=200)
        pubs = {name: (n.create_publisher(CompressedImage, f"/{name}/camera/image_raw/compressed", qos),
                       n.create_publisher(AudioChunk, f"/{name}/audio", QoSProfile(depth=500)),
                       n.create_publisher(Odometry, f"/{name}/odom", qos)) for name in procs}
        flush = {name: n.create_client(Trigger, f"/{name}/m3_agent_memorization/flush") for name in procs}
        for name, client in flush.items():
            wait_for_service(client, timeout_sec=120, proc=procs[name])
        wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05),
                            all(p.get_subscription_count() > 0 for ps in pubs.values() for p in ps))[1],
                   timeout=30, what="both robots' subscriptions")
        # the person says her sentence every 4 s; robot1 (at 0, 0) shows her face all along with a silent
        # microphone, robot2 (1.5 m away) hears her with a camera that sees nobody
        chunk = int(16000 / FPS)
        for i in range(int(STREAM_S * FPS)):
            t = i / FPS
            k = i % int(4 * FPS)
            said = speech[k * chunk:(k + 1) * chunk] if k * chunk < len(speech) else np.zeros(0, np.int16)
            said = np.pad(said, (0, chunk - len(said)))
            for name, (cam, mic, odom) in pubs.items():
                img = CompressedImage(format="jpeg", data=faces[k % len(faces)] if name == "robot1" else blank)
                _stamp(img, t)
                cam.publish(img)
                audio = said if name == "robot2" else np.zeros(chunk, np.int16)
                a = AudioChunk(sample_rate=16000, channels=1, encoding="s16le", data=audio.astype("<i2").tobytes())
                _stamp(a, t)
                mic.publish(a)
                o = Odometry()
                o.header.frame_id = "map"
                o.pose.pose.position.x = 0.0 if name == "robot1" else 1.5
                o.pose.pose.orientation.w = 1.0
                _stamp(o, t)
                odom.publish(o)
            ros.executor.spin_once(timeout_sec=0.0)
            time.sleep(0.05)   # 2x real time
        for name, client in flush.items():
            res = ros.call(client, Trigger.Request(), timeout_sec=300, proc=procs[name])
            assert res.success, (name, res.message)

        store = MemoryStore(url, readonly=True)
        assert store.robots() == ["robot1", "robot2"]
        faces_seen = [e for e in store.entities("face")]
        voices_heard = [e for e in store.entities("voice")]
        assert faces_seen and voices_heard, (faces_seen, voices_heard)
        robots_of = store.clip_robots(e.clip_id for e in faces_seen + voices_heard)
        assert {robots_of[e.clip_id] for e in faces_seen} == {"robot1"}
        assert {robots_of[e.clip_id] for e in voices_heard} == {"robot2"}
        chars = store.characters()
        joined = {chars.character_of(f.id) for f in faces_seen} & {chars.character_of(v.id) for v in voices_heard}
        assert len(joined) == 1 and len(chars.members) == 1, chars.members   # one person: one character
        if search == "server":   # the writers kept pgvector's index as they wrote: every text memory is in it
            texts = store.conn.execute("SELECT count(*) FROM nodes WHERE type IN ('episodic', 'semantic')")
            assert store.conn.execute("SELECT count(*) FROM text_vectors").fetchone()[0] == texts.fetchone()[0] > 0
        heard = sorted({r[6] for r in store.turn_rows() if r[3] == "voice" and r[6]})   # what robot2 transcribed
        assert heard, store.turn_rows()
        store.close()

        control = start_module("m3_agent_ros.control_node", [
            "--ros-args", "-r", "__ns:=/robot1", "-p", f"db_path:={url}", "-p", "robot_name:=robot1",
            "-p", f"vector_search:={search}", "-p", "answerer:=extractive"], tmp_path / "robot1_control.log")
        try:
            ask = n.create_client(Query, "/robot1/m3_agent/query")
            wait_for_service(ask, timeout_sec=60, proc=control)
            cited: dict[str, list[str]] = {}
            said = f'Who says "{heard[0]}"?'
            for question in ("Who appears in the scene?", said):
                res = ros.call(ask, Query.Request(question=question), timeout_sec=120, proc=control)
                assert res.success and res.cited_memory_ids, res.error
                trace = json.loads(res.trace_json)
                cited[question] = trace.get("robots", [])
                # the answer says whose memory it is, and its provenance, made with it, names that robot
                assert all(f"{r}:" in res.answer for r in cited[question]), (res.answer, trace["provenance"])
            # robot1 saw her, robot2 heard her: the answers on robot1 cite both robots' memories
            assert cited["Who appears in the scene?"][0] == "robot1", cited
            assert "robot2" in cited[said], cited
        finally:
            assert control.stop(timeout=20) == 0, control.describe()
    finally:
        ros.close()
        for name, proc in procs.items():
            assert proc.stop(timeout=60) == 0, (name, proc.describe())
