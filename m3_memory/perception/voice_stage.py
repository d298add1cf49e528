"""The memorizer's voice stage: clip audio -> speaker turns with transcripts -> voice nodes (+ evidence)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..clips import Clip
from ..store import ClipWriter
from ..writing import VoiceTurnEvidence
from .voices import SR, Speaker, Transcriber, VoiceConfig, VoicePipeline, VoiceTurn, make_voice_embedder

log = logging.getLogger(__name__)


@dataclass
class VoiceAnalysis:
    turns: list[VoiceTurn] = field(default_factory=list)
    speakers: dict[int, Speaker] = field(default_factory=dict)


class VoiceStage:
    def __init__(self, pipeline: VoicePipeline, match_threshold: float | None = None) -> None:
        self.pipeline = pipeline
        self.name = f"voices:{pipeline.embedder.name}"
        # mean cosine of the speaker's centroid against the node's stored centroids (the store's rule)
        self.match_threshold = (match_threshold if match_threshold is not None
                                else pipeline.embedder.match_threshold)

    @classmethod
    def create(cls, backend: str, model_dir: str = "", asr_model: str = "tiny.en", sample_rate: int = SR,
               **kw: Any) -> VoiceStage:
        if sample_rate != SR:
            raise ValueError(f"the voice stage works at {SR} Hz; set sample_rate: {SR}")
        cfg = VoiceConfig(**{k: v for k, v in kw.items() if k in VoiceConfig.__dataclass_fields__})
        asr = Transcriber(asr_model) if asr_model != "none" else None
        return cls(VoicePipeline(make_voice_embedder(backend, model_dir), asr, cfg), kw.get("match_threshold"))

    def analyze(self, clip: Clip) -> VoiceAnalysis:
        if clip.audio is None:
            return VoiceAnalysis()
        if clip.sample_rate != SR:
            raise ValueError(f"clip audio is {clip.sample_rate} Hz, the voice stage needs {SR} Hz")
        turns, speakers = self.pipeline.turns(clip.audio, clip.start_time)
        return VoiceAnalysis(turns, speakers)

    def attach(self, graph: ClipWriter, analysis: VoiceAnalysis) -> list[VoiceTurnEvidence]:
        out: list[VoiceTurnEvidence] = []
        used: set[int] = set()
        for _, spk in sorted(analysis.speakers.items()):
            # one L2-normalised centroid per speaker per clip: averaging the 1.6 s windows removes much of the
            # content/noise variation (see the thresholds in voices.py)
            centroid = np.mean(np.stack(spk.embeddings), axis=0, keepdims=True)
            embs = centroid / np.linalg.norm(centroid)
            node, score = graph.match_entity("voice", embs, threshold=self.match_threshold)
            texts = [t.text for t in spk.turns if t.text]
            if node is None or node in used:
                node = graph.add_entity("voice", embs, texts)
            else:
                graph.update_entity(node, embs, texts)
            used.add(node)
            log.debug("speaker with %d turns -> voice node %d (match %.3f)", len(spk.turns), node, score)
            out += [VoiceTurnEvidence(node, t.start, t.end, t.text) for t in spk.turns]
        return sorted(out, key=lambda v: v.start)
