"""The stream pipeline without ROS (m3_memory.ingest): stamped frames and audio in, committed clips out, and every
input that does not become memory counted with its cause; the memorization node only converts messages for it."""

from __future__ import annotations

import logging
from datetime import datetime, timezone

import numpy as np
import pytest

from m3_memory import MemoryStore
from m3_memory.ingest.frames import FrameError
from m3_memory.ingest.pipeline import IngestSettings, StreamPipeline
from m3_memory.memorize import Memorizer
from m3_memory.poses import Pose
from m3_memory.store.stream_records import gaps, runs

NINE = datetime(2026, 11, 26, 9, 0, tzinfo=timezone.utc).timestamp()
SETTINGS = IngestSettings(clip_seconds=2.0, sample_fps=2.0, max_queued_clips=100, video_topic="/cam",
                          audio_topic="/mic", time_zone="UTC")


def _pipeline(store: MemoryStore, **kw) -> tuple[StreamPipeline, list]:
    done: list = []
    pipe = StreamPipeline(store, Memorizer(store, None, None, "embedded"), SETTINGS if not kw else
                          IngestSettings(**{**SETTINGS.__dict__, **kw}), logging.getLogger("test.ingest"),
                          "test", done.append)
    return pipe, done


def _feed(pipe: StreamPipeline, t0: float, seconds: float, offset: float = 0.0) -> int:
    """Frames at 10 fps and 0.1 s audio chunks (48 kHz stereo -> resampled) from t0; returns messages sent."""
    n = 0
    for i in range(int(seconds * 10)):
        t = t0 + i * 0.1
        pipe.frame("/cam", offset + t, lambda: np.zeros((8, 8, 3), np.uint8), "frame")
        pipe.audio("/mic", offset + t, lambda: (48000, np.zeros(4800, np.float32)))
        n += 1
    return n


def test_clips_commit_and_every_lost_input_is_counted(db_at):
    with MemoryStore(db_at("m.db")) as store:
        pipe, done = _pipeline(store)
        pipe.start()
        sent = _feed(pipe, 0.0, 3.0)
        pipe.frame("/cam", 29 * 0.1, lambda: np.zeros((8, 8, 3), np.uint8), "frame")      # same stamp again
        pipe.frame("/cam", 3.0, lambda: np.zeros(1), "frame", check=lambda: (_ for _ in ()).throw(
            FrameError("unsupported image encoding '32FC1'")))
        pipe.pose("/odom", 1.0, lambda t: Pose(t, float("nan"), 0.0, 0.0, 0.0, "map"))  # refused: NaN
        r = pipe.sync(4.0, {"/cam": sent + 2, "/mic": sent + 5}, receive_timeout_s=0.1)
        assert r.ok and r.watermark == 4.0 and r.clips_committed == 2 and [c.clip_id for c in done] == [0, 1]
        assert r.lost_in_transport == {"/cam": 0, "/mic": 5, "/odom": 0}
        pipe.audio("/mic", 0.5, lambda: (48000, np.zeros(4800, np.float32)))   # for a committed clip: late
        assert pipe.flush(timeout_s=60)
        pipe.stop(drain=True)
        assert [c[0] for c in store.conn.execute("SELECT id FROM clips ORDER BY id")] == [0, 1]
        causes = {(g.topic, g.cause): g for g in gaps(store)}
        assert causes[("/cam", "duplicate")].count == 1
        assert "32FC1" in causes[("/cam", "bad")].detail
        assert causes[("/mic", "transport")].count == 5
        assert ("/mic", "late") in causes and [k for k in causes if k[0] == "/odom"], causes
        (run,) = runs(store)
        assert run["status"] == "clean" and run["last_stream_time"] >= 2.9, run
        level, _, values = pipe.status()
        assert level == "warn" and values["clips_committed"] == 2 and values["lost./mic.transport"] == 5


def test_a_backlog_handed_over_after_a_stall_keeps_its_stamps_by_their_reception_times(db_at):
    """The node's callbacks stall (a busy process) while the transport goes on receiving: the camera's queue keeps
    only its last frames. Handed over in one burst afterwards, with the transport's reception times (the node passes
    rclpy's MessageInfo), nothing is taken for a clock jump: every frame and chunk keeps its stamp's time."""
    frame, chunk = (lambda: np.zeros((8, 8, 3), np.uint8)), (lambda: (48000, np.zeros(4800, np.float32)))
    t0 = 1_800_000_000.0   # reception times: epoch seconds, 4x replay
    with MemoryStore(db_at("m.db")) as store:
        pipe, _ = _pipeline(store, clip_seconds=30.0, sample_fps=1.0)
        pipe.start()
        for i in range(400):                                   # 40 s of stream, received in 10 s
            pipe.frame("/cam", i * 0.1, frame, "frame", received=t0 + i * 0.025)
            pipe.audio("/mic", i * 0.1, chunk, received=t0 + i * 0.025)
        for i in range(560, 600):                              # the camera's queue: only its last 40 frames
            pipe.frame("/cam", i * 0.1, frame, "frame", received=t0 + i * 0.025)
        for i in range(400, 600):                              # the microphone's whole backlog
            pipe.audio("/mic", i * 0.1, chunk, received=t0 + i * 0.025)
        assert pipe.clocks.jumps == [] and pipe.latest_t == pytest.approx(59.9)
        assert pipe.flush(timeout_s=60)
        pipe.stop(drain=True)
        assert not [g for g in gaps(store) if g.cause in ("future", "past")]
        assert [g.cause for g in gaps(store) if g.topic == "/cam"] == ["no_video"]   # the frames the queue lost


@pytest.mark.parametrize("written_before", [False, True], ids=["pending", "in_store"])
def test_messages_delivered_after_their_watermark_are_taken_back_from_the_transport_loss(db_at, written_before):
    """A loaded machine: the transport delivers 4 audio messages after the replay's watermark gave up on them. They
    were recorded lost; when they turn up (memorized into the open clip, or late for a finished one) the next
    watermark takes them back from the loss, in the ledger, /diagnostics and the store's gaps table (whether or not
    the loss had been written yet), so no message counts as both memorized and lost."""
    with MemoryStore(db_at("m.db")) as store:
        pipe, _ = _pipeline(store)
        pipe.start()
        sent = _feed(pipe, 0.0, 3.0)
        r = pipe.sync(3.0, {"/cam": sent, "/mic": sent + 4}, receive_timeout_s=0.1)
        assert r.lost_in_transport["/mic"] == 4
        if written_before:
            pipe.save_losses()
            assert sum(g.count for g in gaps(store, cause="transport")) == 4
        pipe.audio("/mic", 1.05, lambda: (48000, np.zeros(4800, np.float32)))   # clip 0 is finished: late
        for t in (2.95, 2.97, 2.99):                                               # clip 1 still open
            pipe.audio("/mic", t, lambda: (48000, np.zeros(480, np.float32)))
        sent += _feed(pipe, 3.0, 2.0)
        r = pipe.sync(5.0, {"/cam": sent, "/mic": sent + 4}, receive_timeout_s=0.1)
        assert r.lost_in_transport["/mic"] == 0 and r.received["/mic"] == sent + 4
        assert "transport" not in pipe.ledger.counts().get("/mic", {})
        assert "lost./mic.transport" not in pipe.status()[2]
        pipe.stop(drain=True)
        assert gaps(store, cause="transport") == []
        assert [g.count for g in gaps(store, cause="late", topic="/mic")] == [1]


def test_a_loss_taken_back_only_in_part_keeps_the_rest(db_at):
    with MemoryStore(db_at("m.db")) as store:
        pipe, _ = _pipeline(store)
        pipe.start()
        sent = _feed(pipe, 0.0, 3.0)
        pipe.sync(3.0, {"/cam": sent + 3, "/mic": sent}, receive_timeout_s=0.1)
        pipe.save_losses()
        pipe.frame("/cam", 2.96, lambda: np.zeros((8, 8, 3), np.uint8), "frame")   # one of the three turns up
        sent += _feed(pipe, 3.0, 2.0)
        r = pipe.sync(5.0, {"/cam": sent + 3, "/mic": sent}, receive_timeout_s=0.1)
        assert r.lost_in_transport["/cam"] == 2
        pipe.stop(drain=True)
        assert [g.count for g in gaps(store, cause="transport", topic="/cam")] == [2]


def test_a_robots_ros_time_stamps_anchor_the_memory_and_the_watermark_follows(db_at):
    with MemoryStore(db_at("robot.db")) as store:
        pipe, done = _pipeline(store)
        pipe.start()
        sent = _feed(pipe, 0.0, 3.0, offset=NINE)
        r = pipe.sync(NINE + 4.0, {"/cam": sent, "/mic": sent}, receive_timeout_s=0.1)
        assert r.ok and r.watermark == pytest.approx(4.0) and [c.clip_id for c in done] == [0, 1]
        assert store.timeline().origin == NINE and store.timeline().zone == "UTC"
        pipe.frame("/cam", 3.5, lambda: np.zeros((8, 8, 3), np.uint8), "frame")   # a stream-time stamp: refused
        pipe.stop(drain=True)
        assert [g.count for g in gaps(store, cause="clock_mismatch")] == [1]
        assert store.conn.execute("SELECT min(start_time) FROM clips").fetchone()[0] == 0.0


def test_stopping_without_draining_records_the_open_clips_as_shutdown_gaps(db_at):
    with MemoryStore(db_at("m.db")) as store:
        pipe, done = _pipeline(store)
        pipe.start()
        _feed(pipe, 0.0, 3.0)
        pipe.stop(drain=False)
        shut = gaps(store, cause="shutdown")
        assert shut and all(g.topic == "*" for g in shut) and max(g.end_time for g in shut) <= 3.0
        committed = {c[0] for c in store.conn.execute("SELECT id FROM clips")}
        assert not committed & {int(g.start_time // 2) for g in shut}   # a clip is either memorized or a gap


def test_a_full_queue_drops_clips_with_an_overflow_record(db_at):
    with MemoryStore(db_at("m.db")) as store:
        pipe, done = _pipeline(store, max_queued_clips=1)   # no worker started: nothing leaves the queue
        _feed(pipe, 0.0, 7.0)
        assert pipe.count.clips_dropped >= 1
        pipe.save_losses()
        assert gaps(store, cause="overflow")


def test_a_database_server_that_goes_down_mid_stream_loses_no_input_uncounted(pg_folder):
    """PostgreSQL goes away while the stream runs: the clips written meanwhile fail (clip_error, with the
    server's words), their gap records wait in memory and reach the store once it is back, later clips commit and
    the pipeline never stops; every second of the stream is a clip or a recorded gap."""
    from m3_memory.store.stream_records import unaccounted_spans

    from .conftest import own_pg_server

    server = own_pg_server(pg_folder)
    url = server.database("outage")
    store = MemoryStore(url, robot="robot1")
    pipe, done = _pipeline(store)
    pipe.start()
    try:
        sent = _feed(pipe, 0.0, 2.0)
        assert pipe.sync(2.0, {"/cam": sent, "/mic": sent}, receive_timeout_s=0.1).clips_committed == 1
        server.stop()
        sent += _feed(pipe, 2.0, 2.0)
        r = pipe.sync(4.0, {"/cam": sent, "/mic": sent}, receive_timeout_s=0.1)
        assert r.clips_committed == 1 and pipe.status()[2]["clip_errors"] == 1   # failed, the pipeline goes on
        server = own_pg_server(pg_folder)
        sent += _feed(pipe, 4.0, 2.0)
        assert pipe.sync(6.0, {"/cam": sent, "/mic": sent}, receive_timeout_s=0.1).clips_committed == 2
        assert pipe.flush(timeout_s=60)
        pipe.stop(drain=True)
        assert len(done) == 2 and [r[0] for r in store.conn.execute("SELECT stream_clip FROM clips ORDER BY id")
                                   ] == [0, 2], "the robot's clips 0 and 2 (the store numbers them 0 and 1)"
        (outage,) = [g for g in gaps(store) if g.cause == "clip_error"]
        assert (outage.start_time, outage.end_time) == (2.0, 4.0) and "PostgreSQL" in outage.detail
        assert unaccounted_spans(store, 0.0, 6.0) == []
        store.close()
    finally:
        server.stop()
