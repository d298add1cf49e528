"""Build the memorizer's perception stages from configuration names (heavy imports happen only here)."""

from __future__ import annotations

from typing import Any


def make_face_stage(backend: str, model_dir: str = "", **kw: Any) -> Any:
    """``dlib`` (embedded default), ``insightface`` (local model dir) or ``none``."""
    if backend == "none":
        return None
    from .face_stage import FaceStage

    return FaceStage.create(backend, model_dir, **kw)


def make_voice_stage(backend: str, model_dir: str = "", asr_model: str = "tiny.en", sample_rate: int = 16000,
                     **kw: Any) -> Any:
    """``campplus`` (embedded CAM++, the default), ``resemblyzer`` (embedded), ``eres2netv2`` (local checkpoint) or
    ``none``."""
    if backend == "none":
        return None
    from .voice_stage import VoiceStage

    return VoiceStage.create(backend, model_dir, asr_model, sample_rate, **kw)
