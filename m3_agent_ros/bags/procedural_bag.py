"""A procedural scene (:mod:`.procedural`) made into a bag: the composed video of its GRID clips, converted with its
odometry and its questions (:mod:`.procedural_questions`), with ``places.yaml`` and ``scene.json`` beside it."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from .procedural import FPS, ODOM_HZ, SIZE, START_TIME, SceneDef
from .procedural_questions import bag_questions


def scene_odometry(scene: SceneDef) -> list[tuple[float, float, float, float]]:
    """(t, x, y, yaw) at ODOM_HZ along the scene's path (demo_scene's interpolation)."""
    from .demo_scene import odometry

    return odometry({"places": scene.places, "path": [list(p) for p in scene.path], "odom_hz": ODOM_HZ})


def build_bag(scene: SceneDef, out_dir: str | Path, grid_dir: str | Path, phrasings: set[int] | None = None) -> Path:
    """Compose the scene's video, convert it to ``out_dir/scene_<seed>`` (2 fps JPEG 75, odometry at 10 Hz in frame
    map, the scene's questions of ``phrasings``, all when None) and write ``places.yaml`` and ``scene.json`` beside
    it. Returns the bag."""
    import yaml

    from .compose import Segment, compose
    from .convert import ConvertOptions, convert_video

    out_dir, grid_dir = Path(out_dir), Path(grid_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    bag = out_dir / f"scene_{scene.seed}"
    segs: list[Segment] = []
    for s in scene.segments:
        if s.kind == "gap":
            segs.append(Segment(None, s.seconds))
        else:
            segs += [Segment(grid_dir / f"{scene.people[s.person]}.mpg", muted=s.kind == "muted")] * s.repeats
    with tempfile.TemporaryDirectory() as tmp:
        video = Path(tmp) / "scene.mp4"
        dur = compose(segs, video, size=SIZE, fps=FPS)
        if abs(dur - scene.duration) > 1e-6:
            raise RuntimeError(f"composed {dur:.3f} s but the scene definition says {scene.duration:.3f} s")
        opts = ConvertOptions(fps=2.0, jpeg_quality=75, start_time=START_TIME)
        convert_video(video, bag, opts, bag_questions(scene, phrasings), video_id=bag.name, overwrite=True,
                      progress=False, odometry=scene_odometry(scene), odom_frame="map")
    (out_dir / "places.yaml").write_text(
        f"# Named places of procedural scene {scene.seed} (frame map), written by procedural.build_bag\n"
        + yaml.safe_dump(scene.places, sort_keys=False))
    (out_dir / "scene.json").write_text(json.dumps(scene.to_json(), indent=1))
    return bag
