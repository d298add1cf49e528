"""A robot-view scene (:mod:`.robot_view`) made into a bag: rendered (:mod:`.robot_view_render`) to a video, converted
with ``scene.json`` (the definition plus each turn's measured SNR) beside it.

    python -m m3_agent_ros.bags.robot_view_bag --seed 600 --out /tmp/rv [--data ../shared/data] [--preview]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from fractions import Fraction
from pathlib import Path

from .robot_view import VIEW, RobotScene, make_robot_scene

VIDEO_FPS = 10
BAG_FPS = 5.0
START_TIME = 1751007600.0    # 2025-06-27T07:00:00Z: the bags' recorded start (fixed: a rebuild is reproducible)


def render_video(scene: RobotScene, grid_dir: str | Path, out: Path, progress: bool = False) -> list[float]:
    """Write the scene as MPEG-4 + AAC at VIDEO_FPS; returns each turn's SNR in dB."""
    import av
    import numpy as np
    from tqdm import tqdm

    from .robot_view_render import SR, FrameRenderer, render_audio

    pcm, snrs = render_audio(scene, grid_dir)
    frames = FrameRenderer(scene, grid_dir)
    n = int(round(scene.duration * VIDEO_FPS))
    with av.open(str(out), "w") as c:
        vs = c.add_stream("mpeg4", rate=VIDEO_FPS)
        vs.width, vs.height, vs.pix_fmt, vs.bit_rate = VIEW[0], VIEW[1], "yuv420p", 2_000_000
        aus = c.add_stream("aac", rate=SR)
        aus.layout = "mono"
        for i in tqdm(range(n), desc=f"scene {scene.seed}", unit="frame", disable=not progress):
            vf = av.VideoFrame.from_ndarray(frames.frame(i / VIDEO_FPS), format="rgb24")
            vf.pts, vf.time_base = i, Fraction(1, VIDEO_FPS)
            c.mux(vs.encode(vf))
        c.mux(vs.encode(None))
        for i in range(0, len(pcm), 1024):
            af = av.AudioFrame.from_ndarray(np.ascontiguousarray(pcm[i:i + 1024]).reshape(1, -1), format="s16",
                                            layout="mono")
            af.sample_rate, af.pts, af.time_base = SR, i, Fraction(1, SR)
            c.mux(aus.encode(af))
        c.mux(aus.encode(None))
    return snrs


def build_robot_bag(scene: RobotScene, out_dir: str | Path, grid_dir: str | Path, progress: bool = False,
                    questions: bool = False, jpeg_quality: int = 85) -> Path:
    """Render and convert the scene to ``out_dir/robot_<seed>`` (5 fps JPEG, 640x480) with ``robot_<seed>.json``
    (the definition and ``turn_snr_db``) beside it; ``questions``: with the scene's questions (on the questions
    topic and in ``questions.json``: :mod:`.robot_view_questions`). Returns the bag."""
    from .convert import ConvertOptions, convert_video
    from .robot_view_questions import robot_view_questions

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    bag = out_dir / f"robot_{scene.seed}"
    with tempfile.TemporaryDirectory() as tmp:
        video = Path(tmp) / "scene.mp4"
        snrs = render_video(scene, grid_dir, video, progress)
        convert_video(video, bag, ConvertOptions(fps=BAG_FPS, jpeg_quality=jpeg_quality, start_time=START_TIME),
                      robot_view_questions(scene) if questions else None, video_id=bag.name, overwrite=True,
                      progress=False)
    (out_dir / f"robot_{scene.seed}.json").write_text(json.dumps({**scene.to_json(), "turn_snr_db": snrs}, indent=1))
    return bag


def load_scene(bag: str | Path) -> tuple[RobotScene, list[float]]:
    """The scene definition and turn SNRs written beside a bag by :func:`build_robot_bag`."""
    d = json.loads(Path(bag).with_suffix(".json").read_text())
    snrs = d.pop("turn_snr_db")
    return RobotScene.from_json(d), snrs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seed", type=int, nargs="+", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    ap.add_argument("--preview", action="store_true", help="also write a PNG contact sheet of the scene")
    ap.add_argument("--questions", action="store_true", help="put the scene's questions in the bag (the demo's)")
    ap.add_argument("--quiet", action="store_true", help="a quiet room: 20 dB SNR, RT60 0.3 s (the demo's)")
    ap.add_argument("--onlooker", choices=("smiling", "laughing"), help="with a silent onlooker (the demo's: smiling)")
    ap.add_argument("--jpeg-quality", type=int, default=85)
    a = ap.parse_args()
    grid = Path(a.data) / "grid_talking_faces"
    for seed in a.seed:
        scene = make_robot_scene(seed, grid, quiet=a.quiet, onlooker=a.onlooker)
        print(build_robot_bag(scene, a.out, grid, progress=True, questions=a.questions, jpeg_quality=a.jpeg_quality))
        if a.preview:
            write_preview(scene, grid, Path(a.out) / f"robot_{seed}.png")


def write_preview(scene: RobotScene, grid_dir: str | Path, out: Path, n: int = 6) -> None:
    """A contact sheet: ``n`` frames across the scene, true face boxes (green) and readable signs (yellow) drawn."""
    import cv2
    import numpy as np

    from .robot_view import sign_width
    from .robot_view_render import FrameRenderer

    fr = FrameRenderer(scene, grid_dir)
    tiles = []
    for k in range(n):
        t = (k + 0.5) * scene.duration / n
        img = cv2.cvtColor(fr.frame(t), cv2.COLOR_RGB2BGR)
        for person, (x1, y1, x2, y2) in scene.in_view(t):
            cv2.rectangle(img, (int(x1), int(y1)), (int(x2), int(y2)), (0, 255, 0), 1)
            cv2.putText(img, person, (int(x1), int(y1) - 3), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 255, 0), 1)
        x0 = scene.view_x0(t)
        for s in scene.signs_in_view(t):
            cv2.rectangle(img, (int(s.x - x0), s.y), (int(s.x - x0 + sign_width(s)), s.y + int(1.6 * s.text_px)),
                          (0, 255, 255), 1)
        cv2.putText(img, f"t={t:.1f}s talker={scene.talker_at(t)}", (8, 470), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                    (255, 255, 255), 1)
        tiles.append(img)
    rows = [np.hstack(tiles[i:i + 3]) for i in range(0, n, 3)]
    cv2.imwrite(str(out), np.vstack(rows))


if __name__ == "__main__":
    main()
