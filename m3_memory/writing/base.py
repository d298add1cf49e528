"""The memory-writer interface and the evidence one clip gives it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..timeline import mmss  # "MM:SS", the timestamp format of the memorization protocol

if TYPE_CHECKING:
    from ..perception.lip_activity import Loudness
    from ..store import ClipWriter


@dataclass
class FaceEvidence:
    node_id: int                 # graph node id: the model refers to it as <face_{node_id}>
    crop_jpeg: bytes             # the best crop of this face in the clip
    times: list[float] = field(default_factory=list)  # stream seconds of the sampled frames it was seen in
    det_score: float | None = None
    # (time, lip activity) samples from the motion frames (perception/lip_activity.py); empty without them
    activity: list[tuple[float, float]] = field(default_factory=list)
    # (label, probability) of a clear, non-neutral facial expression (perception/expression.py), else None
    expression: tuple[str, float] | None = None

    @property
    def tag(self) -> str:
        return f"<face_{self.node_id}>"


@dataclass
class VoiceTurnEvidence:
    node_id: int                 # <voice_{node_id}>
    start: float                 # stream seconds
    end: float
    text: str
    overlapped: bool = False     # under someone else's speech: no transcript, no face=voice credit
    language: str | None = None  # the language the transcript was heard in (ISO 639-1), None if unknown

    @property
    def tag(self) -> str:
        return f"<voice_{self.node_id}>"


@dataclass
class ClipEvidence:
    clip_id: int
    start_time: float
    end_time: float
    faces: list[FaceEvidence] = field(default_factory=list)
    voices: list[VoiceTurnEvidence] = field(default_factory=list)
    frame_times: list[float] = field(default_factory=list)      # stream seconds of every sampled frame
    frames: list[np.ndarray] = field(default_factory=list)      # sampled RGB frames (for multimodal APIs)
    video_path: str | None = None                                # clip file (the m3 model reads a path)
    poses: list = field(default_factory=list)    # the robot's poses in the clip (m3_memory.poses.Pose), if known
    texts: list = field(default_factory=list)    # scene text read in the clip (perception.scene_text.TextSighting)
    loudness: Loudness | None = None             # the clip's sound level (a still mouth vs a talker's)

    def voices_json(self) -> dict[str, list[dict[str, str]]]:
        """``{"<voice_N>": [{"start_time": "MM:SS", "end_time": "MM:SS", "asr": ...}]}`` relative to the clip,
        as the memorization model was fed."""
        out: dict[str, list[dict[str, str]]] = {}
        for t in sorted(self.voices, key=lambda v: v.start):
            out.setdefault(t.tag, []).append({"start_time": mmss(t.start - self.start_time),
                                              "end_time": mmss(t.end - self.start_time), "asr": t.text})
        return out


@dataclass
class WrittenMemories:
    episodic: list[str] = field(default_factory=list)
    semantic: list[str] = field(default_factory=list)
    backend: str = ""
    raw_output: str | None = None
    attempts: int = 1
    errors: list[str] = field(default_factory=list)


class MemoryWriter(Protocol):
    name: str

    def write(self, evidence: ClipEvidence, graph: ClipWriter | None = None) -> WrittenMemories:
        """Memories for one clip. ``graph`` is the open clip transaction (for writers that keep state)."""
        ...
