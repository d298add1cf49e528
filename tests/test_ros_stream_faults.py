"""Ordinary robot faults against a real memorization node over DDS: nothing is lost without a record.

* a camera frame stamped an hour ahead (clock jump), a microphone gap, a re-sent audio chunk: the stream goes on,
  speech after the gap lands at its true time, and every fault is counted in the store's gaps table;
* ``kill -9`` mid-run: the restarted node keeps every committed clip, records the lost span as a crash gap and
  goes on.
"""

from __future__ import annotations

import json
import signal
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from m3_agent_ros.stream_publisher import SyntheticStream
from m3_memory import MemoryStore

from .ros_helpers import start_module, wait_until

pytestmark = pytest.mark.ros
SR = 16000


def _node(db: Path, log: Path, clip_seconds: float = 2.0):
    return start_module("m3_agent_ros.memorization_node", [
        "--ros-args", "-p", f"db_path:={db}", "-p", f"clip_seconds:={clip_seconds}", "-p", "sample_fps:=2.0",
        "-p", "audio_grace_s:=1.0", "-p", "face_backend:=none", "-p", "voice_backend:=none",
        "-p", "compressed_topic:=/cam/compressed", "-p", "image_topic:=''", "-p", "audio_topic:=/mic"], log)


class Stream(SyntheticStream):
    """The shared synthetic stream (10 fps JPEG frames, 0.1 s 16 kHz audio chunks) on /cam/compressed and /mic,
    paced 4x real time by the test, with the node's log in every failure."""

    def __init__(self, name: str, proc) -> None:
        super().__init__(name, "/cam/compressed", "/mic")
        self.proc = proc

    def ready(self, proc) -> None:
        self.proc = proc
        try:
            self.wait_ready(timeout=20)
        except TimeoutError as e:
            raise AssertionError(f"{e}\n{proc.describe()}") from None

    def pace(self) -> None:
        """Let the executors breathe between messages (the subscriber side is best effort)."""
        self.spin_until(lambda: False, 0.025)   # 4x real time, like the demo replay

    def sync_to(self, t: float, proc) -> object:
        try:
            return self.sync(t, timeout=60.0)
        except TimeoutError as e:
            raise AssertionError(f"{e}\n{proc.describe()}") from None


def tone(n: int) -> np.ndarray:
    return (0.3 * np.sin(2 * np.pi * 440 * np.arange(n) / SR)).astype(np.float32)


def test_clock_jump_mic_gap_and_duplicates_are_survived_and_recorded(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    proc = _node(db, tmp_path / "node.log")
    s = Stream("stream_fault_publisher", proc)
    try:
        s.ready(proc)
        for i in range(120):                     # 12 s of stream
            t = round(i * 0.1, 3)
            s.publish_frame(t + 3600.0 if i == 40 else t)   # ONE frame stamped an hour ahead at 4 s
            if not 60 <= i < 80:                 # the microphone is off from 6 s to 8 s
                s.publish_audio(t, tone(1600) if i >= 80 else np.zeros(1600, np.float32))
            if i == 30:
                s.publish_audio(t, np.zeros(1600, np.float32))   # a re-sent chunk (same stamp)
            s.pace()
            if i % 10 == 9:   # like a replay: a watermark every second keeps the best-effort input from overflowing
                assert s.sync_to(t, proc).success
        res = s.sync_to(12.0, proc)
        assert res.success, res.message
        assert res.memorized_upto >= 12.0 - 1e-6, res.message
        # every published message is accounted for: received, or recorded as lost in transport
        for topic, got, lost in zip(res.topics, res.received, res.lost_in_transport, strict=True):
            assert got + lost == s.published[topic], (topic, got, lost, s.published)
    finally:
        s.close()
        rc = proc.stop(timeout=20)
    assert rc == 0, proc.describe()
    store = MemoryStore(db, readonly=True)
    clips = {cid: json.loads(extra) for cid, extra in store.conn.execute("SELECT id, extra FROM clips")}
    assert sorted(clips) == [0, 1, 2, 3, 4, 5], "the stream after the future-stamped frame was not memorized"
    rows = store.conn.execute("SELECT topic, cause, start_time, end_time, count FROM gaps").fetchall()
    # 2 fps sampling of 2 s clips keeps ~4 frames (clip 0 may lose its first messages to DDS matching: counted);
    # a clip whose span holds camera frames recorded as lost (in transport: best effort, under load; or to an
    # overflowing queue) may keep fewer, but never none
    lost_camera = [(a, b) for topic, cause, a, b, _ in rows
                   if topic in ("/cam/compressed", "*") and cause in ("transport", "overflow", "late")]
    for k in range(1, 6):
        lossy = any(a <= 2.0 * k + 2.0 and b >= 2.0 * k - 0.1 for a, b in lost_camera)
        assert clips[k]["frames"] >= (1 if lossy else 3), (k, clips[k], rows)
    # speech after the gap landed at its true time: clip 3 (6-8 s) has no audio, clips 4 and 5 are fully covered
    assert clips[3]["audio_coverage"] < 0.05 and clips[4]["audio_coverage"] > 0.95, clips
    causes = {(topic, cause) for topic, cause, *_ in rows}
    assert ("/cam/compressed", "future") in causes and ("/cam/compressed", "past") in causes, rows
    assert ("/mic", "duplicate") in causes, rows
    (gap,) = [(a, b) for topic, cause, a, b, _ in rows if (topic, cause) == ("/mic", "no_audio")]
    assert gap[0] == pytest.approx(6.0, abs=0.15) and gap[1] == pytest.approx(8.0, abs=0.15), rows
    assert not [r for r in rows if r[1] == "late"], rows
    log = proc.output()
    assert "re-anchored" in log


def _clip_ids(db: Path) -> list[int]:
    with sqlite3.connect(db) as c:
        return [r[0] for r in c.execute("SELECT id FROM clips ORDER BY id")]


def test_kill_9_keeps_committed_clips_and_records_the_lost_span(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    proc = _node(db, tmp_path / "node1.log")
    s = Stream("crash_publisher", proc)
    try:
        s.ready(proc)
        for i in range(55):                      # 5.5 s: clips 0 and 1 finish, clip 2 is open
            t = round(i * 0.1, 3)
            s.publish_frame(t)
            s.publish_audio(t, np.zeros(1600, np.float32))
            s.pace()
            if i % 10 == 9:
                assert s.sync_to(round(t - 0.5, 3), proc).success
        wait_until(lambda: len(_clip_ids(db)) >= 2, timeout=30, what="two committed clips")

        def heartbeat_reached() -> bool:
            with sqlite3.connect(db) as c:
                row = c.execute("SELECT last_stream_time FROM runs WHERE status='running'").fetchone()
            return bool(row and row[0] is not None and row[0] >= 5.3)

        wait_until(heartbeat_reached, timeout=10, what="the run heartbeat to reach the stream time")
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=10) == -signal.SIGKILL
        before = _clip_ids(db)
        proc.stop()
        proc = _node(db, tmp_path / "node2.log")
        s.reconnect("crash_publisher_2")   # a fresh participant: the old one may still see the dead node's service
        s.ready(proc)                      # until its lease expires; published counts restart with the new node
        for i in range(80, 110):                 # the stream goes on at 8-11 s
            t = round(i * 0.1, 3)
            s.publish_frame(t)
            s.publish_audio(t, np.zeros(1600, np.float32))
            s.pace()
        res = s.sync_to(10.0, proc)
        assert res.success, res.message
    finally:
        s.close()
        rc = proc.stop(timeout=20)
    assert rc == 0, proc.describe()
    after = _clip_ids(db)
    assert before[:2] == [0, 1] and set(before) <= set(after) and 4 in after, (before, after)
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        crash = c.execute("SELECT start_time, end_time, detail FROM gaps WHERE cause = 'crash'").fetchall()
        statuses = [r[0] for r in c.execute("SELECT status FROM runs ORDER BY id")]
        resumed = c.execute("SELECT first_stream_time FROM runs ORDER BY id").fetchall()[1][0]
    assert len(crash) == 1, crash
    start, end, _ = crash[0]
    assert start == pytest.approx(2 * len(before), abs=1e-6)      # the end of the last committed clip
    # down until the stream resumed: the first input the new run received. The stream restarts at 8 s, but the
    # node's reader may match the new publisher a frame or two after the publisher matched it (DDS discovery is
    # not symmetric): those frames never reach the node, and the crash gap covers them too (one full-suite run: 8.2)
    assert end == pytest.approx(resumed, abs=1e-6), (crash, resumed)
    assert 8.0 - 1e-6 <= end <= 8.5, crash
    assert statuses == ["crashed", "clean"]
    assert "previous run died without closing" in proc.output()


def test_a_replay_reports_a_hung_node_within_seconds(tmp_path: Path) -> None:
    """The memorization node stops responding (SIGSTOP) while a replay waits for it: the replay fails within
    seconds with what happened, instead of waiting out its 30 min timeout in silence."""
    import time

    from m3_agent_ros.replay import Replayer, ReplayStats

    proc = _node(tmp_path / "memory.db", tmp_path / "node.log")
    rp = Replayer(stall_s=4.0)
    try:
        rp.wait(rp.sync.service_is_ready, 30, "the sync service")
        rp.wait(lambda: rp._diag_at > 0, 10, "the node's first /diagnostics")   # noqa: SLF001 - test of the watch
        proc.send_signal(signal.SIGSTOP)
        t0 = time.monotonic()
        with pytest.raises(TimeoutError, match="stopped reporting"):
            rp.sync_to(10.0, ReplayStats(), timeout=1800.0)
        assert time.monotonic() - t0 < 15.0
    finally:
        proc.send_signal(signal.SIGCONT)
        rp.close()
        proc.stop(timeout=20)
