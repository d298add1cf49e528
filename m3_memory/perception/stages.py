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


def make_stages(p: Any) -> dict[str, Any]:
    """The Memorizer's perception stages (``faces``, ``voices``, ``texts`` keyword arguments) from an object with
    the memorization parameters' names (m3_agent_ros.params.MemorizationParams): the node and the benchmarks build
    them in one place."""
    from .scene_text import make_text_stage

    return {"faces": make_face_stage(p.face_backend, p.face_model_dir, expression=p.face_expression),
            "voices": make_voice_stage(p.voice_backend, p.voice_model_dir, p.asr_model, p.sample_rate,
                                       overlap_aware=p.voice_overlap_aware, speakers_from=p.voice_diarizer),
            "texts": make_text_stage(p.text_backend)}
