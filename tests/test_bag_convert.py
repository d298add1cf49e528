"""Video -> rosbag2 conversion round trip on a real clip: decode what was encoded, monotonic stamps,
sample-exact audio, questions carried along."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from m3_agent_ros.bags.cli import main as bag_cli
from m3_agent_ros.bags.convert import ConvertOptions, convert_video
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
