"""Three processes: memorization_node and control_node run; this test replays a converted bag through DDS and
asks the bag's questions at their timestamps through the Query service."""

from __future__ import annotations

from pathlib import Path

import pytest

from m3_agent_ros.bags.convert import ConvertOptions, convert_video
from m3_agent_ros.bags.questions import Question

from .ros_helpers import start_module, wait_until

pytestmark = pytest.mark.ros
VIDEO = Path(__file__).resolve().parents[2] / "shared/data/grid_talking_faces/bbaf2n.mpg"


@pytest.mark.skipif(not VIDEO.exists(), reason="shared test media not available")
def test_replay_asks_each_question_after_the_clips_before_it_are_committed(tmp_path: Path) -> None:
    pytest.importorskip("av")
    from m3_agent_ros.replay import Replayer

    qs = [Question("g_Q01", "What is said?", "bin blue at f two now", 1.5, ["Cross-Modal Reasoning"], "00:01"),
          Question("g_Q02", "What happened?", "a man speaks", 2.5, ["Multi-Detail Reasoning"], "00:02")]
    convert_video(VIDEO, tmp_path / "bag", ConvertOptions(fps=5), questions=qs, progress=False)
    db = tmp_path / "memory.db"
    common = ["-p", f"db_path:={db}"]
    mem = start_module("m3_agent_ros.memorization_node", ["--ros-args", *common, "-p", "clip_seconds:=1.0",
                       "-p", "face_backend:=none", "-p", "voice_backend:=none"], tmp_path / "mem.log")
    ctl = None
    rp = None
    try:
        wait_until(db.exists, timeout=30, what="the memory store", on_fail=mem.describe)
        ctl = start_module("m3_agent_ros.control_node", ["--ros-args", *common, "-p", "answerer:=extractive"],
                           tmp_path / "ctl.log")
        rp = Replayer()
        # (at the bag's own pace: a burst of every message at once on a loaded machine loses half of them to the
        # best-effort sensor queues, recorded as lost, and leaves clips with nothing to commit)
        records, stats = rp.replay(tmp_path / "bag", rate=1.0, clip_seconds=1.0, progress=False)
    finally:
        if rp is not None:
            rp.close()
        rcs = [p.stop(timeout=20) for p in (mem, ctl) if p is not None]
    assert rcs == [0, 0], mem.describe()
    assert [r.question_id for r in records] == ["g_Q01", "g_Q02"]
    assert all(r.success and not r.error for r in records), records
    # question 1 at 1.5 s waited for clip 0 only; question 2 at 2.5 s for clips 0 and 1
    assert records[0].clips_committed >= 1 and records[1].clips_committed >= 2
    assert stats.clips_committed == 3 and stats.messages > 40
