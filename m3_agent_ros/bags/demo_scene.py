"""Build the bundled demo bag (rosbags/demo/) from rosbags/demo/scene.yaml and ../shared/data/grid_talking_faces.

    python -m m3_agent_ros.bags.demo_scene [--data ../shared/data] [--out rosbags/demo/grid_scene]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import yaml

from .compose import Segment, compose
from .convert import ConvertOptions, convert_video
from .questions import Question, parse_timestamp

ROOT = Path(__file__).resolve().parents[2]
SCENE = ROOT / "rosbags" / "demo" / "scene.yaml"


def load_questions(scene: dict) -> list[Question]:
    return [Question(q["id"], q["q"], q["a"], parse_timestamp(q["at"]), list(q.get("types", [])), q["at"])
            for q in scene["questions"]]


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
        rep = convert_video(video, Path(a.out), ConvertOptions(fps=a.fps, jpeg_quality=75), load_questions(scene),
                            video_id="grid_scene", overwrite=True)
    print(f"{rep.bag}: {dur:.1f} s scene, {rep.frames} frames, {rep.audio_chunks} audio chunks, "
          f"{rep.questions} questions, {rep.bytes / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
