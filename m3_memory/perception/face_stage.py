"""The memorizer's face stage: clip frames -> face clusters -> face nodes in the graph (+ evidence)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from ..ingest.clips import Clip
from ..store import ClipWriter
from ..writing import FaceEvidence
from .faces import FaceBackend, FaceCluster, FaceConfig, cluster_faces, detect_faces, make_face_backend

log = logging.getLogger(__name__)


@dataclass
class FaceAnalysis:
    clusters: list[FaceCluster] = field(default_factory=list)
    detections: int = 0
    bad_frames: int = 0


class FaceStage:
    def __init__(self, backend: FaceBackend, config: FaceConfig | None = None,
                 match_threshold: float | None = None) -> None:
        self.backend = backend
        self.config = config or FaceConfig()
        self.name = f"faces:{backend.name}"
        # graph matching uses the store's mean-pairwise-cosine rule with a threshold per embedding model
        self.match_threshold = match_threshold if match_threshold is not None else backend.same_person_threshold - 0.02

    @classmethod
    def create(cls, backend: str, model_dir: str = "", **kw: Any) -> FaceStage:
        cfg = FaceConfig(**{k: v for k, v in kw.items() if k in FaceConfig.__dataclass_fields__})
        return cls(make_face_backend(backend, model_dir), cfg, kw.get("match_threshold"))

    def analyze(self, clip: Clip) -> FaceAnalysis:
        dets, bad = detect_faces(self.backend, clip.frames, clip.frame_times, self.config)
        thr = self.config.cluster_threshold or self.backend.same_person_threshold
        return FaceAnalysis(cluster_faces(dets, thr, self.config.min_cluster_size), len(dets), bad)

    def attach(self, graph: ClipWriter, analysis: FaceAnalysis) -> list[FaceEvidence]:
        out: list[FaceEvidence] = []
        used: set[int] = set()
        k = self.config.crops_per_face
        for cl in analysis.clusters:
            best = cl.best(k)
            embs = cl.embeddings
            node, score = graph.match_entity("face", embs, threshold=self.match_threshold)
            crops = [d.crop_jpeg for d in best]
            scores = [d.quality for d in best]
            best_embs = embs[[cl.detections.index(d) for d in best]]
            if node is None or node in used:  # two people in one clip never become one node
                node = graph.add_entity("face", best_embs, crops, scores=scores)
            else:
                graph.update_entity(node, best_embs, crops, scores=scores)
            used.add(node)
            log.debug("face cluster of %d detections -> node %d (match %.3f)", len(cl.detections), node, score)
            out.append(FaceEvidence(node, best[0].crop_jpeg, cl.times, best[0].det_score))
        return out
