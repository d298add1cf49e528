"""m3-bag: convert videos to rosbag2 bags (one or a folder + M3-Bench annotations) and inspect bags."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

from .convert import ConvertOptions, convert_video, parse_start_time
from .questions import load_annotations, questions_for_video

VIDEO_EXTS = (".mp4", ".mkv", ".mov", ".avi", ".mpg", ".webm")


def _opts(a: argparse.Namespace) -> ConvertOptions:
    return ConvertOptions(fps=a.fps, max_side=a.max_side or None, jpeg_quality=a.quality, raw=a.raw,
                          storage=a.storage, sample_rate=a.sample_rate, chunk_s=a.chunk,
                          start_time=parse_start_time(a.start_time) if a.start_time else None)


def cmd_convert(a: argparse.Namespace) -> int:
    qs = None
    vid = a.video_id or Path(a.video).stem
    if a.annotations:
        qs = questions_for_video(load_annotations(a.annotations), vid)
    r = convert_video(a.video, a.out, _opts(a), questions=qs, video_id=vid, overwrite=a.overwrite)
    print(f"{r.bag}: {r.duration_s:.1f} s, {r.frames} frames, {r.audio_chunks} audio chunks, "
          f"{r.questions} questions, {r.bytes / 1e6:.1f} MB")
    return 0


def cmd_batch(a: argparse.Namespace) -> int:
    from tqdm import tqdm

    ann = load_annotations(a.annotations) if a.annotations else {}
    videos = sorted(p for p in Path(a.videos).iterdir() if p.suffix.lower() in VIDEO_EXTS)
    if a.only_annotated:
        videos = [v for v in videos if v.stem in ann]
    out = Path(a.out)
    failed = []
    for v in tqdm(videos, desc="videos", unit="video"):
        bag = out / v.stem
        if bag.exists() and not a.overwrite:
            continue  # resumable: finished bags are kept
        try:
            qs = questions_for_video(ann, v.stem) if v.stem in ann else None
            convert_video(v, bag, _opts(a), questions=qs, video_id=v.stem, overwrite=a.overwrite)
        except Exception as e:  # one bad video must not stop the batch
            failed.append(f"{v.name}: {e}")
    for f in failed:
        print(f"failed: {f}", file=sys.stderr)
    print(f"{len(videos) - len(failed)}/{len(videos)} videos converted into {out}")
    return 1 if failed else 0


def cmd_as_robot(a: argparse.Namespace) -> int:
    import time

    from .as_robot import as_robot
    from .convert import parse_start_time

    start = parse_start_time(a.start_time) if a.start_time else time.time()
    out = as_robot(a.bag, a.out, start, a.stamps, a.storage)
    print(f"{out}: recorded as from {datetime.fromtimestamp(start, timezone.utc).isoformat(timespec='seconds')}")
    return 0


def cmd_info(a: argparse.Namespace) -> int:
    from rosbags.rosbag2 import Reader

    from .read import bag_metadata, bag_questions

    with Reader(Path(a.bag)) as r:
        info = {"duration_s": r.duration / 1e9, "messages": r.message_count,
                "topics": {t: {"type": i.msgtype, "count": i.msgcount} for t, i in r.topics.items()}}
    meta = bag_metadata(a.bag)
    start_s = meta["starting_time"]["nanoseconds_since_epoch"] / 1e9
    info |= {"start": datetime.fromtimestamp(start_s, timezone.utc).isoformat(timespec="milliseconds"),
             "rosbag2_version": meta["version"], "ros_distro": meta.get("ros_distro", "")}
    info["questions"] = len(bag_questions(a.bag))
    if a.json:
        print(json.dumps(info, indent=1))
        return 0
    from tabulate import tabulate

    print(f"bag {a.bag}: {info['duration_s']:.1f} s from {info['start']}, {info['messages']} messages, "
          f"{info['questions']} questions (rosbag2 v{info['rosbag2_version']}, {info['ros_distro'] or '?'})")
    rows = [(t, i["type"], i["count"], f"{i['count'] / info['duration_s']:.1f}" if info["duration_s"] else "-")
            for t, i in sorted(info["topics"].items())]
    print(tabulate(rows, headers=("topic", "type", "messages", "per s"), tablefmt="simple"))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="m3-bag", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--fps", type=float, default=5.0, help="camera frames per second in the bag")
        p.add_argument("--max-side", type=int, default=640, help="resize so the longest side is this (0: keep)")
        p.add_argument("--quality", type=int, default=80, help="JPEG quality")
        p.add_argument("--raw", action="store_true", help="sensor_msgs/Image rgb8 instead of JPEG")
        p.add_argument("--storage", choices=("mcap", "sqlite3"), default="mcap", help="rosbag2 storage (default mcap)")
        p.add_argument("--sample-rate", type=int, default=16000, help="audio sample rate in the bag (Hz)")
        p.add_argument("--chunk", type=float, default=0.1, help="audio chunk length in seconds")
        p.add_argument("--annotations", help="M3-Bench robot.json (questions go into the bag)")
        p.add_argument("--overwrite", action="store_true", help="replace existing bags")
        p.add_argument("--start-time", metavar="TIME", default=None,
                       help="real time of the video's start: epoch seconds or ISO 8601, e.g. 2024-06-10T08:00:00Z "
                            "(bag timestamps; default: the video's creation_time, else now)")

    p = sub.add_parser("convert", help="one video -> one bag")
    p.add_argument("video", help="video file (anything PyAV/FFmpeg decodes)")
    p.add_argument("out", help="bag folder to create")
    p.add_argument("--video-id", help="annotation key (default: the file stem)")
    common(p)
    p.set_defaults(fn=cmd_convert)
    p = sub.add_parser("batch", help="a folder of videos -> a folder of bags (resumable)")
    p.add_argument("videos", help="folder of videos")
    p.add_argument("out", help="folder for the bags (one per video, named by its stem)")
    p.add_argument("--only-annotated", action="store_true", help="only videos with questions in --annotations")
    common(p)
    p.set_defaults(fn=cmd_batch)
    p = sub.add_parser("as-robot", help="rewrite a converted bag as a robot records it (ROS-time stamps and bag "
                                        "times, no m3 metadata)")
    p.add_argument("bag", help="bag folder made by convert")
    p.add_argument("out", help="bag folder to create")
    p.add_argument("--start-time", metavar="TIME", default=None,
                   help="wall time of the recording's start: epoch seconds or ISO 8601 (default: now)")
    p.add_argument("--stamps", choices=("ros", "stream"), default="ros",
                   help="header stamps in ROS time (a live robot) or left in stream time (a simulator's clock)")
    p.add_argument("--storage", choices=("mcap", "sqlite3"), default="mcap", help="rosbag2 storage (default mcap)")
    p.set_defaults(fn=cmd_as_robot)
    p = sub.add_parser("info", help="topics, counts, duration and questions of a bag")
    p.add_argument("bag", help="bag folder")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(fn=cmd_info)
    a = ap.parse_args(argv)
    try:
        return a.fn(a)
    except (FileNotFoundError, FileExistsError, KeyError, ValueError) as e:
        print(f"m3-bag: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
