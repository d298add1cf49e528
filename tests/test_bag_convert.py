"""Video -> rosbag2 conversion round trip on a real clip: decode what was encoded, monotonic stamps,
sample-exact audio, questions carried along."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from m3_agent_ros.bags.cli import main as bag_cli
from m3_agent_ros.bags.convert import STREAM_ORIGIN_KEY, ConvertOptions, convert_video, parse_start_time
from m3_agent_ros.bags.questions import Question, parse_timestamp
from m3_agent_ros.bags.read import bag_questions, decode_audio, decode_frame, iter_messages

av = pytest.importorskip("av")
VIDEO = Path(__file__).resolve().parents[2] / "shared/data/grid_talking_faces/bbaf2n.mpg"
pytestmark = pytest.mark.skipif(not VIDEO.exists(), reason="shared test media not available")


def _reference_audio(sr: int = 16000) -> np.ndarray:
    with av.open(str(VIDEO)) as c:
        rs = av.AudioResampler(format="s16", layout="mono", rate=sr)
        parts = [f.to_ndarray().reshape(-1) for fr in c.decode(audio=0) for f in rs.resample(fr)]
        parts += [f.to_ndarray().reshape(-1) for f in rs.resample(None)]
    return np.concatenate(parts).astype(np.int16)


@pytest.mark.parametrize("storage,raw", [("mcap", False), ("sqlite3", True)])
def test_round_trip(tmp_path, storage, raw):
    qs = [Question("v_Q01", "What color was the bin?", "Blue.", 1.0, ["Multi-Detail Reasoning"], "00:01")]
    rep = convert_video(VIDEO, tmp_path / "bag", ConvertOptions(fps=5, storage=storage, raw=raw, max_side=None),
                        questions=qs, video_id="v", progress=False)
    assert rep.frames > 10 and rep.audio_chunks > 10 and rep.questions == 1
    frames, audio, stamps = [], [], {}
    for m in iter_messages(tmp_path / "bag"):
        stamps.setdefault(m.topic, []).append(m.t)
        assert abs(m.t - m.stamp) < 1e-6  # header stamp == bag time == stream time
        if "image" in m.topic:
            frames.append(decode_frame(m))
        elif m.topic == "/audio":
            audio.append(decode_audio(m))
    for topic, ts in stamps.items():
        assert ts == sorted(ts), f"{topic} not monotonic"
    img_ts = stamps["/camera/image_raw" if raw else "/camera/image_raw/compressed"]
    assert np.allclose(np.diff(img_ts), 0.2, atol=0.05)
    with av.open(str(VIDEO)) as c:
        ref = next(c.decode(video=0)).to_ndarray(format="rgb24")
    assert frames[0].shape == ref.shape
    err = np.abs(frames[0].astype(int) - ref.astype(int)).mean()
    assert err == 0 if raw else err < 6
    got = np.concatenate(audio)
    assert np.array_equal(got, _reference_audio())  # sample-exact
    a_ts = np.array(stamps["/audio"])
    assert np.allclose(np.diff(a_ts), 0.1, atol=1e-6)  # contiguous chunks
    assert [q.question_id for q in bag_questions(tmp_path / "bag")] == ["v_Q01"]


def test_timestamps_and_cli_errors(tmp_path, capsys):
    assert parse_timestamp("57:33") == 3453.0 and parse_timestamp("7:05") == 425.0
    assert parse_timestamp("1:02:03") == 3723.0
    with pytest.raises(ValueError):
        parse_timestamp("soon")
    assert bag_cli(["convert", str(tmp_path / "missing.mp4"), str(tmp_path / "b")]) == 2
    assert "not found" in capsys.readouterr().err
    assert bag_cli(["convert", str(VIDEO), str(tmp_path / "b"), "--fps", "2"]) == 0
    assert bag_cli(["convert", str(VIDEO), str(tmp_path / "b")]) == 2  # exists, no --overwrite
    assert bag_cli(["info", str(tmp_path / "b")]) == 0
    table = capsys.readouterr().out
    assert "/audio" in table and "m3_agent/msg/AudioChunk" in table and "{" not in table   # a table, not JSON
    assert bag_cli(["info", str(tmp_path / "b"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["topics"]["/audio"]["count"] > 0


def test_bench_jobs_honour_the_users_ros_domain_id():
    from m3_agent_ros.bench import job_domains

    assert job_domains(3, {"ROS_DOMAIN_ID": "42"})[0] == 42
    doms = job_domains(3, {"ROS_DOMAIN_ID": "42"})
    assert len(set(doms)) == 3 and all(1 <= d <= 101 for d in doms)
    free = job_domains(2, {})
    assert len(set(free)) == 2 and all(1 <= d <= 101 for d in free)


def test_metadata_is_what_humble_and_jazzy_read(tmp_path, capsys):
    """rosbag2 metadata version 8 (Humble's decoder reads offered_qos_profiles as a string, which version 9 made a
    list), ros_distro the real distro, real timestamps from --start-time with the stream origin in custom_data;
    the readers here still see stream time."""
    start = parse_start_time("2024-06-10T08:00:00Z")
    assert start == 1718006400.0 == parse_start_time("1718006400") == parse_start_time("2024-06-10T08:00:00")
    qs = [Question("v_Q01", "What color was the bin?", "Blue.", 1.0, [], "00:01")]
    assert bag_cli(["convert", str(VIDEO), str(tmp_path / "bag"), "--fps", "2", "--start-time",
                    "2024-06-10T08:00:00Z", "--annotations", str(_annotations(tmp_path, qs))]) == 0
    meta = yaml.safe_load((tmp_path / "bag" / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    origin = 1718006400 * 10**9
    assert meta["version"] == 8 and meta["ros_distro"] == "kilted" and meta["storage_identifier"] == "mcap"
    assert meta["starting_time"]["nanoseconds_since_epoch"] == origin      # the first frame is at stream time 0
    assert meta["custom_data"] == {STREAM_ORIGIN_KEY: str(origin)}
    assert 2.5e9 < meta["duration"]["nanoseconds"] < 3.5e9                # a 3 s clip, not 1.7e18 ns
    # what Humble's rosbag2_storage decoder reads (version >= 3, 4, 5), with the types it converts to
    assert isinstance(meta["compression_format"], str) and isinstance(meta["compression_mode"], str)
    (f,) = meta["files"]
    assert f["path"] == meta["relative_file_paths"][0] == "bag.mcap"
    assert f["starting_time"] == meta["starting_time"] and f["message_count"] == meta["message_count"] > 0
    topics = {t["topic_metadata"]["name"]: t for t in meta["topics_with_message_count"]}
    assert {"/camera/image_raw/compressed", "/audio", "/m3_agent/questions"} <= set(topics)
    for t in topics.values():
        tm = t["topic_metadata"]
        assert isinstance(tm["offered_qos_profiles"], str), "version 9's QoS list breaks Humble"
        assert tm["serialization_format"] == "cdr" and tm["type_description_hash"].startswith("RIHS01_")
    assert sum(t["message_count"] for t in topics.values()) == meta["message_count"]
    stored = (tmp_path / "bag" / "bag.mcap").read_bytes()   # the copy of the metadata inside the mcap file
    assert b"ros_distro: kilted" in stored and b"ros_distro: rosbags" not in stored
    capsys.readouterr()
    assert bag_cli(["info", str(tmp_path / "bag"), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["start"] == "2024-06-10T08:00:00.000+00:00" and info["ros_distro"] == "kilted"
    assert info["questions"] == 1
    msgs = list(iter_messages(tmp_path / "bag"))
    assert min(m.t for m in msgs) == 0.0 and max(m.t for m in msgs) < 3.5     # stream time, as before
    assert all(abs(m.t - m.stamp) < 1e-6 for m in msgs)                     # header stamps: stream time
    assert [q.time for q in bag_questions(tmp_path / "bag")] == [1.0]


def _annotations(tmp_path, qs):
    doc = {"bbaf2n": {"qa_list": [{"question_id": q.question_id, "question": q.question, "answer": q.answer,
                                   "timestamp": q.timestamp, "type": q.types} for q in qs]}}
    path = tmp_path / "robot.json"
    path.write_text(json.dumps(doc))
    return path


def test_default_start_is_the_videos_creation_time_or_now(tmp_path):
    with av.open(str(VIDEO)) as c:
        created = dict(c.metadata).get("creation_time")
    before = time.time_ns()
    convert_video(VIDEO, tmp_path / "bag", ConvertOptions(fps=1, storage="sqlite3"), progress=False)
    after = time.time_ns()
    meta = yaml.safe_load((tmp_path / "bag" / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    start = meta["starting_time"]["nanoseconds_since_epoch"]
    if created:
        assert start == round(parse_start_time(created) * 1e9)
    else:
        assert before <= start <= after
    assert meta["version"] == 8 and meta["ros_distro"] == "kilted"
    with pytest.raises(ValueError, match="ISO 8601"):
        parse_start_time("yesterday")


def test_the_bundled_demo_bag_still_reads_in_stream_time():
    """rosbags/demo/grid_scene was written before real start times (version 9, starting at 0, no stream origin): it
    reads as before, stream times from 0 with the questions inside the stream."""
    bag = Path(__file__).resolve().parents[1] / "rosbags" / "demo" / "grid_scene"
    meta = yaml.safe_load((bag / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    origin = int((meta.get("custom_data") or {}).get(STREAM_ORIGIN_KEY, 0))
    assert origin == meta["starting_time"]["nanoseconds_since_epoch"]   # old bag: 0 and 0; regenerated: both real
    ts = [m.t for m in iter_messages(bag, ["/audio"])]
    assert ts[0] < 0.2 and ts == sorted(ts) and ts[-1] <= meta["duration"]["nanoseconds"] / 1e9 + 1e-6
    qs = bag_questions(bag)
    assert qs and all(0 < q.time <= meta["duration"]["nanoseconds"] / 1e9 + 1e-6 for q in qs)


@pytest.mark.parametrize("stamps", ["ros", "stream"])
def test_a_robots_recording_reads_in_recording_time(tmp_path, stamps):
    """A bag as a robot's ``ros2 bag record`` stores it (ROS-time bag times, no m3 metadata; header stamps in ROS
    time or in a driver's own clock) reads in time into the recording, and the replay's stamp offset maps a
    question's time to the header clock the memorization node sees."""
    from m3_agent_ros.bags.as_robot import as_robot
    from m3_agent_ros.bags.read import stream_origin_ns
    from m3_agent_ros.replay import stamp_offset

    src = Path(__file__).resolve().parents[1] / "rosbags" / "demo" / "grid_scene"
    start = parse_start_time("2026-11-26T08:00:00Z")
    bag = as_robot(src, tmp_path / "robot", start, stamps=stamps)
    meta = yaml.safe_load((bag / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    assert STREAM_ORIGIN_KEY not in (meta.get("custom_data") or {})
    assert stream_origin_ns(bag) == int(start * 1e9)
    converted = list(iter_messages(src))
    robot = list(iter_messages(bag))
    assert len(robot) == len([m for m in converted if "questions" not in m.topic])
    assert [round(m.t, 6) for m in robot[:50]] == [round(m.t, 6) for m in converted[:50] if "questions" not in m.topic]
    offset = stamp_offset(robot)
    assert offset == pytest.approx(start if stamps == "ros" else 0.0, abs=1e-3)
    assert all(abs(m.stamp - (m.t + offset)) < 0.05 for m in robot if m.stamped)
    assert [q.time for q in bag_questions(bag)] == [q.time for q in bag_questions(src)]
    assert bag_cli(["as-robot", str(src), str(bag)]) == 2   # exists: a clear error, nothing overwritten
