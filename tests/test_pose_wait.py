"""SharedPoseTrack (m3_memory/poses.py): a finished clip waits for late poses, but never for a stopped or refused
pose stream, and never when no pose has come at all. Real threads, deadlines instead of sleeps-then-assert."""

from __future__ import annotations

import threading
import time

from m3_memory.poses import Pose, PoseRefused, PoseTrack, SharedPoseTrack


def _feed(shared: SharedPoseTrack, times: list[float], frame: str, step_s: float, stop: threading.Event) -> None:
    for t in times:
        if stop.is_set():
            return
        try:
            shared.add(Pose(t, t, 0.0, 0.0, 0.0, frame))
        except PoseRefused:
            pass
        time.sleep(step_s)


def _ask(shared: SharedPoseTrack, end: float, wait_s: float) -> tuple[threading.Thread, list]:
    out: list = []
    th = threading.Thread(target=lambda: out.append(shared.window_when_covered(0.0, end, wait_s)), daemon=True)
    th.start()
    return th, out


def test_a_clip_waits_until_late_poses_cover_its_end() -> None:
    shared = SharedPoseTrack(PoseTrack("map"))
    for k in range(11):                                     # the track stands at 1.0 s when the clip [0, 2] is done
        shared.add(Pose(k / 10, k / 10, 0.0, 0.0, 0.0, "map"))
    stop = threading.Event()
    feeder = threading.Thread(target=_feed, args=(shared, [1.1 + k / 10 for k in range(30)], "map", 0.02, stop))
    th, out = _ask(shared, 2.0, wait_s=5.0)
    feeder.start()
    th.join(timeout=10)
    stop.set()
    feeder.join(timeout=10)
    assert not th.is_alive()
    assert max(p.t for p in out[0]) >= 2.0                  # without the wait the window would end near 1.0


def test_refused_poses_do_not_keep_a_clip_waiting() -> None:
    # valid poses up to 1.0 s, then only poses in another frame (refused): the clip goes on wait_s after the last
    # accepted pose, not when the refused stream stops (10 s later)
    shared = SharedPoseTrack(PoseTrack("map"))
    for k in range(11):
        shared.add(Pose(k / 10, k / 10, 0.0, 0.0, 0.0, "map"))
    stop = threading.Event()
    feeder = threading.Thread(target=_feed, args=(shared, [1.1 + k / 100 for k in range(1000)], "odom", 0.01, stop))
    feeder.start()
    th, out = _ask(shared, 2.0, wait_s=0.3)
    th.join(timeout=5)
    waited_for_refused = th.is_alive()
    stop.set()
    feeder.join(timeout=10)
    th.join(timeout=10)
    assert not waited_for_refused
    assert max(p.t for p in out[0]) == 1.0


def test_no_wait_without_poses_or_without_a_wait() -> None:
    empty = SharedPoseTrack(PoseTrack("map"))
    th, out = _ask(empty, 2.0, wait_s=60.0)
    th.join(timeout=5)
    assert not th.is_alive() and out == [[]]
    shared = SharedPoseTrack(PoseTrack("map"))
    shared.add(Pose(0.5, 0.5, 0.0, 0.0, 0.0, "map"))
    assert [p.t for p in shared.window_when_covered(0.0, 2.0, wait_s=0.0)] == [0.5]
