"""The memorization request for one clip, in the layout the M3-Agent-Memorization model was trained on.

One user message (no system message), content parts in order: the SFT prompt, the clip video (its audio track
is fed too), ``Face features:``, then ``<face_N>:`` + the face's best crop for each face, ``Voice features:``,
then ``json.dumps({"<voice_N>": [{"start_time", "end_time", "asr"}, ...]})``. Parts with empty content are left
out, as upstream's message builder does (so with no faces only the label remains).
"""

from __future__ import annotations

import base64
import json

import numpy as np

from ..ingest.frames import encode_jpeg
from .base import ClipEvidence
from .protocol_text import FACE_FEATURES_LABEL, MEMORY_PROMPT_SFT, VOICE_FEATURES_LABEL


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def qwen_omni_content(evidence: ClipEvidence, video: str | None = None) -> list[dict]:
    """Content parts in qwen-omni-utils form (``{"type": "video", "video": path}``, ``{"type": "image", ...}``)."""
    parts: list[dict] = [{"type": "text", "text": MEMORY_PROMPT_SFT}]
    video = video or evidence.video_path
    if video:
        parts.append({"type": "video", "video": video})
    parts.append({"type": "text", "text": FACE_FEATURES_LABEL})
    for face in evidence.faces:
        parts.append({"type": "text", "text": f"{face.tag}:"})
        parts.append({"type": "image", "image": f"data:image;base64,{b64(face.crop_jpeg)}"})
    parts.append({"type": "text", "text": VOICE_FEATURES_LABEL})
    parts.append({"type": "text", "text": json.dumps(evidence.voices_json())})
    return parts


def openai_content(evidence: ClipEvidence, max_frames: int = 16) -> list[dict]:
    """The same request for OpenAI-compatible multimodal chat APIs: the video becomes sampled JPEG frames."""
    parts: list[dict] = []
    for p in qwen_omni_content(evidence, video="frames"):
        if p["type"] == "text":
            parts.append(p)
        elif p["type"] == "image":
            url = p["image"].replace("data:image;base64,", "data:image/jpeg;base64,")
            parts.append({"type": "image_url", "image_url": {"url": url}})
        elif p["type"] == "video":
            frames = evidence.frames
            if len(frames) > max_frames:
                idx = np.linspace(0, len(frames) - 1, max_frames).round().astype(int)
                frames = [frames[i] for i in idx]
            parts.extend({"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{b64(encode_jpeg(f))}"}}
                         for f in frames)
    return parts
