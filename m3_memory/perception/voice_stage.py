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
    def __init__(self, pipeline: VoicePipeline, match_threshold: float | None = None,
                 max_embeddings_per_speaker: int = 10) -> None:
        self.pipeline = pipeline
        self.name = f"voices:{pipeline.embedder.name}"
        # mean pairwise cosine of the speaker's windows against a node's stored windows (the store's rule)
        self.match_threshold = (match_threshold if match_threshold is not None
                                else pipeline.embedder.same_speaker_threshold)
        self.max_emb = max_embeddings_per_speaker

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
            embs = np.stack(spk.embeddings)
            if len(embs) > self.max_emb:
                embs = embs[np.linspace(0, len(embs) - 1, self.max_emb).round().astype(int)]
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
