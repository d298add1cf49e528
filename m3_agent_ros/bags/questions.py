"""M3-Bench question annotations (robot.json layout) and their place in a bag."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

QUESTIONS_TOPIC = "/m3_agent/questions"
SIDECAR = "questions.json"


def parse_timestamp(ts: str) -> float:
    """"MM:SS" (minutes may exceed 59, "M:SS" too) or "HH:MM:SS" -> seconds."""
    parts = [p.strip() for p in str(ts).split(":")]
    if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"bad timestamp {ts!r} (expected MM:SS)")
    secs = 0
    for p in parts:
        secs = secs * 60 + int(p)
    return float(secs)


@dataclass
class Question:
    question_id: str
    question: str
    answer: str
    time: float                       # stream seconds at which it is asked
    types: list[str] = field(default_factory=list)
    timestamp: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)


def questions_for_video(annotations: dict, video_id: str) -> list[Question]:
    entry = annotations.get(video_id)
    if entry is None:
        raise KeyError(f"video {video_id!r} not in the annotations")
    out = []
    for qa in entry.get("qa_list", []):
        out.append(Question(qa["question_id"], qa["question"], qa["answer"], parse_timestamp(qa["timestamp"]),
                            list(qa.get("type", [])), qa["timestamp"]))
    return sorted(out, key=lambda q: (q.time, q.question_id))


def load_annotations(path: str | Path) -> dict:
    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object keyed by video id")
    return data


def write_sidecar(bag_dir: Path, questions: list[Question], video_id: str) -> Path:
    p = Path(bag_dir) / SIDECAR
    p.write_text(json.dumps({"video_id": video_id, "questions": [asdict(q) for q in questions]},
                            ensure_ascii=False, indent=1))
    return p


def read_sidecar(bag_dir: str | Path) -> list[Question]:
    p = Path(bag_dir) / SIDECAR
    if not p.exists():
        return []
    return [Question(**q) for q in json.loads(p.read_text())["questions"]]
