"""Build the bundled demo bag (rosbags/demo/) from rosbags/demo/scene.yaml and ../shared/data/grid_talking_faces.

    python -m m3_agent_ros.bags.demo_scene [--data ../shared/data] [--out rosbags/demo/grid_scene]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

import yaml

from .compose import Segment, compose
from .convert import ConvertOptions, convert_video
from .questions import Question, parse_timestamp

ROOT = Path(__file__).resolve().parents[2]
SCENE = ROOT / "rosbags" / "demo" / "scene.yaml"
DEMO_START_TIME = 1748854800.0   # 2025-06-02T09:00:00Z: the bag's recorded start (fixed: a rebuild is reproducible)


def load_questions(scene: dict) -> list[Question]:
    return [Question(q["id"], q["q"], q["a"], parse_timestamp(q["at"]), list(q.get("types", [])), q["at"])
            for q in scene["questions"]]


def odometry(scene: dict) -> list[tuple[float, float, float, float]]:
    """(t, x, y, yaw) at ``odom_hz`` along the scene's path: linear between waypoints, facing the way it drives."""
    places = {p["name"]: (float(p["x"]), float(p["y"])) for p in scene.get("places", [])}
    way = [(float(t), *places[name]) for t, name in scene.get("path", [])]
    if len(way) < 2:
        return []
    hz = float(scene.get("odom_hz", 10.0))
    out: list[tuple[float, float, float, float]] = []
    yaw = 0.0
    for i in range(int(way[-1][0] * hz) + 1):
        t = i / hz
        a, b = next(((a, b) for a, b in zip(way, way[1:], strict=False) if a[0] <= t <= b[0]), (way[-1], way[-1]))
        f = (t - a[0]) / (b[0] - a[0]) if b[0] > a[0] else 0.0
        if (b[1], b[2]) != (a[1], a[2]):
            yaw = math.atan2(b[2] - a[2], b[1] - a[1])
        out.append((t, a[1] + f * (b[1] - a[1]), a[2] + f * (b[2] - a[2]), yaw))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--out", default=str(ROOT / "rosbags" / "demo" / "grid_scene"))
    ap.add_argument("--fps", type=float, default=2.0)
    a = ap.parse_args(argv)
    scene = yaml.safe_load(SCENE.read_text())
    grid = Path(a.data) / "grid_talking_faces"
    segs: list[Segment] = []
    for who in scene["order"]:
        segs += [Segment(grid / f"{scene['people'][who]}.mpg"), Segment(None, float(scene["gap_s"]))]
    with tempfile.TemporaryDirectory() as tmp:
        video = Path(tmp) / "scene.mp4"
        dur = compose(segs, video)
        opts = ConvertOptions(fps=a.fps, jpeg_quality=75, start_time=DEMO_START_TIME)
        rep = convert_video(video, Path(a.out), opts, load_questions(scene),
                            video_id="grid_scene", overwrite=True, odometry=odometry(scene), odom_frame="map")
    if scene.get("places"):
        (Path(a.out).parent / "places.yaml").write_text(
            "# Named places of the demo scene (frame map), generated from scene.yaml by demo_scene.py\n"
            + yaml.safe_dump(scene["places"], sort_keys=False))
    print(f"{rep.bag}: {dur:.1f} s scene, {rep.frames} frames, {rep.audio_chunks} audio chunks, "
          f"{rep.questions} questions, {rep.poses} poses, {rep.bytes / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
