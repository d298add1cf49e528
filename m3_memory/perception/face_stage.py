"""The memorizer's face stage: clip frames -> face clusters -> face nodes in the graph (+ evidence)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..ingest.clips import Clip
from ..store import ClipWriter
from ..writing import FaceEvidence
from .expression import ExpressionConfig, ExpressionModel, face_expression
from .faces import FaceBackend, FaceCluster, FaceConfig, cluster_faces, detect_faces, make_face_backend
from .lip_activity import lip_activity

log = logging.getLogger(__name__)
COHESION_CAP = 0.98   # a track's reused embeddings make a small cluster's own cohesion 1.0


@dataclass
class FaceAnalysis:
    clusters: list[FaceCluster] = field(default_factory=list)
    detections: int = 0
    bad_frames: int = 0
    activity: list[list[tuple[float, float]]] = field(default_factory=list)   # per cluster: lip_activity samples
    expressions: list[tuple[str, float] | None] = field(default_factory=list)  # per cluster (expression.py)


class FaceStage:
    def __init__(self, backend: FaceBackend, config: FaceConfig | None = None,
                 match_threshold: float | None = None, expression: ExpressionModel | None = None) -> None:
        self.backend = backend
        self.config = config or FaceConfig()
        self.expression = expression
        self.expression_config = ExpressionConfig()
        self.name = f"faces:{backend.name}"
        # graph matching uses the store's mean-pairwise-cosine rule with a threshold per embedding model
        self.match_threshold = match_threshold if match_threshold is not None else backend.same_person_threshold - 0.02

    @classmethod
    def create(cls, backend: str, model_dir: str = "", **kw: Any) -> FaceStage:
        cfg = FaceConfig(**{k: v for k, v in kw.items() if k in FaceConfig.__dataclass_fields__})
        opts = {"upsample": cfg.upsample} if backend.startswith("dlib") else {}   # the detector's own setting
        expression = ExpressionModel() if kw.get("expression", True) else None
        return cls(make_face_backend(backend, model_dir, **opts), cfg, kw.get("match_threshold"), expression)

    def analyze(self, clip: Clip) -> FaceAnalysis:
        dets, bad = detect_faces(self.backend, clip.frames, clip.frame_times, self.config)
        thr = self.config.cluster_threshold or self.backend.same_person_threshold
        clusters = cluster_faces(dets, thr, self.config.min_cluster_size)
        activity = lip_activity([[(d.time, d.bbox) for d in cl.detections] for cl in clusters], clip.motion_times,
                                clip.motion_frames) if clip.motion_frames else [[] for _ in clusters]
        expressions = [face_expression(self.expression, clip.frames, [(d.frame_index, d.bbox) for d in
                                                                       sorted(cl.detections, key=lambda d: d.time)],
                                       self.expression_config) if self.expression is not None else None
                       for cl in clusters]
        return FaceAnalysis(clusters, len(dets), bad, activity, expressions)

    def _close_as_itself(self, embs: np.ndarray, score: float) -> bool:
        """Is the best node's score within the backend's ``same_person_spread`` of the cluster's own mean pairwise
        cosine (capped at COHESION_CAP)? A look-alike clears the fixed threshold, not this (faces.py)."""
        spread = getattr(self.backend, "same_person_spread", None)
        if spread is None or len(embs) < 2:
            return True
        cohesion = float((embs @ embs.T).mean())   # FaceCluster.embeddings are unit rows
        return score >= min(cohesion, COHESION_CAP) - spread

    def attach(self, graph: ClipWriter, analysis: FaceAnalysis) -> list[FaceEvidence]:
        out: list[FaceEvidence] = []
        used: set[int] = set()
        k = self.config.crops_per_face
        activity = analysis.activity or [[] for _ in analysis.clusters]
        expressions = analysis.expressions or [None for _ in analysis.clusters]
        for cl, lips, looks in zip(analysis.clusters, activity, expressions, strict=True):
            best = cl.best(k)
            embs = cl.embeddings
            node, score = graph.match_entity("face", embs, threshold=self.match_threshold)
            if node is not None and not self._close_as_itself(embs, score):
                log.debug("face cluster matches node %d at %.3f, well below its own cohesion: a new node", node, score)
                node = None
            crops = [d.crop_jpeg for d in best]
            scores = [d.quality for d in best]
            best_embs = embs[[cl.detections.index(d) for d in best]]
            if node is None or node in used:  # two people in one clip never become one node
                node = graph.add_entity("face", best_embs, crops, scores=scores)
            else:
                graph.update_entity(node, best_embs, crops, scores=scores)
            used.add(node)
            log.debug("face cluster of %d detections -> node %d (match %.3f)", len(cl.detections), node, score)
            out.append(FaceEvidence(node, best[0].crop_jpeg, cl.times, best[0].det_score, lips, looks))
        return out
