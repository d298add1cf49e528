"""Memorization real-time factor per stage on the bundled demo bag, ROS-free (the same Memorizer the node runs).

    python benchmarks/memorization_bench.py [--bag rosbags/demo/grid_scene] [--fps 1 2]

The bag's frames and audio are fed to the clip assembler in stream order; each finished clip goes through
perception (dlib faces, Silero VAD + Resemblyzer voices + faster-whisper tiny.en) and the embedded memory writer
into a fresh SQLite store. RTF = processing seconds / stream seconds (below 1 keeps up with real time).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from m3_agent_ros.bags.read import decode_audio, decode_frame, iter_messages
from m3_agent_ros.params import MemorizationParams
from m3_memory import MemoryStore
from m3_memory.ingest.clips import ClipAssembler
from m3_memory.ingest.pipeline import IngestSettings
from m3_memory.memorize import Memorizer
from m3_memory.perception.stages import make_stages

ROOT = Path(__file__).resolve().parents[1]


def bag_clips(bag: Path, asm: ClipAssembler, decode_s: list[float] | None = None) -> Iterator:
    """The bag's camera frames and audio fed to the clip assembler in stream order: yields (stream time, finished
    clips) per message, then the flushed last clip (decoding time is added to ``decode_s[0]``). Odometry in the bag
    becomes each clip's pose samples, as the memorization node attaches them."""
    from m3_memory.poses import Pose, PoseRefused, PoseTrack, yaw_from_quaternion

    track = PoseTrack()

    def posed(clips: list) -> list:
        for c in clips:
            c.poses = track.window(c.start_time - 1.0, c.end_time + 1.0)
        return clips

    for m in iter_messages(bag):
        t = time.perf_counter()
        if "image" in m.topic:
            clips = asm.add_frame(m.t, decode_frame(m)) if asm.wants_frame(m.t) else asm.note_video_time(m.t)
        elif m.topic == "/audio":
            clips = asm.add_audio(m.t, decode_audio(m).astype("float32") / 32768.0)
        elif m.msgtype == "nav_msgs/msg/Odometry":
            pose, q = m.msg.pose.pose, m.msg.pose.pose.orientation  # type: ignore[attr-defined]
            try:
                track.add(Pose(m.t, pose.position.x, pose.position.y, yaw_from_quaternion(q.x, q.y, q.z, q.w),
                               pose.position.z, m.msg.header.frame_id))  # type: ignore[attr-defined]
            except PoseRefused:
                pass
            continue
        else:
            continue
        if decode_s is not None:
            decode_s[0] += time.perf_counter() - t
        yield m.t, posed(clips)
    yield None, posed(asm.flush())


def run(bag: Path, fps: float, clip_s: float, voice_backend: str = "campplus") -> dict:
    """The node's stages as its defaults build them (MemorizationParams, make_stages), ``voice_backend`` aside."""
    t_load = time.perf_counter()
    p = MemorizationParams()
    stages = make_stages(replace(p, voice_backend=voice_backend,
                                 voice_overlap_aware=p.voice_overlap_aware and voice_backend == "campplus"))
    load_s = time.perf_counter() - t_load
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore(Path(tmp) / "m.db")
        mem = Memorizer(store, writer="embedded", **stages)
        asm = ClipAssembler(clip_s, fps, 16000, motion_fps=IngestSettings.motion_fps)
        stages: dict[str, float] = {}
        stream = 0.0
        decode_s = 0.0
        results = []

        def process(clips: list) -> None:
            for c in clips:
                r = mem.process(c)
                results.append(r)
                for k, v in r.timings.items():
                    stages[k] = stages.get(k, 0.0) + v

        dec = [0.0]
        for t, clips in bag_clips(bag, asm, dec):
            if t is not None:
                stream = max(stream, t)
            process(clips)
        decode_s = dec[0]
        stats = store.stats()
    total = sum(stages.values()) + decode_s
    return {"sample_fps": fps, "clip_s": clip_s, "voice_backend": voice_backend,
            "stream_s": round(stream, 1), "clips": len(results),
            "model_load_s": round(load_s, 2), "rtf_total": total / stream,
            "rtf_per_stage": {**{k: v / stream for k, v in stages.items()}, "decode": decode_s / stream},
            "nodes": stats["nodes"], "characters": stats["characters"]}


TARGET_RTF = 0.5


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bag", default=str(ROOT / "rosbags" / "demo" / "grid_scene"))
    ap.add_argument("--fps", type=float, nargs="+", default=[1.0, 2.0])
    ap.add_argument("--clip-seconds", type=float, default=30.0)
    ap.add_argument("--voice-backend", default="campplus", help="resemblyzer or campplus")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "memorization_bench.json"))
    a = ap.parse_args()
    results = [run(Path(a.bag), f, a.clip_seconds, a.voice_backend) for f in a.fps]
    Path(a.out).write_text(json.dumps(results, indent=1))
    print(f"voice backend {a.voice_backend}; target: RTF total <= {TARGET_RTF} (issue 11: memorization on this CPU)")
    print("| sample fps | clips | RTF total | faces | voices (VAD+embed+ASR) | scene text | writer | store | decode "
          "| nodes | met |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for r in results:
        s = r["rtf_per_stage"]
        print(f"| {r['sample_fps']:g} | {r['clips']} | {r['rtf_total']:.3f} | {s.get('faces', 0):.3f} | "
              f"{s.get('voices', 0):.3f} | {s.get('scene_text', 0):.3f} | {s.get('writer', 0):.4f} | "
              f"{s.get('store', 0):.4f} | {s['decode']:.4f} | "
              f"{r['nodes']} | {'met' if r['rtf_total'] <= TARGET_RTF else 'NOT MET'} |")


if __name__ == "__main__":
    main()
