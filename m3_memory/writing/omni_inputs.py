"""Inputs of the Qwen2.5-Omni thinker (M3-Agent-Memorization) without torchvision: the clip's frames and audio track
decoded with PyAV, face crops from their data URIs, and a NumPy video processor for transformers' processor.

Upstream feeds ``qwen_omni_utils.process_mm_info(messages, use_audio_in_video=True)`` to ``Qwen2_5OmniProcessor``.
Both need torchvision (qwen-omni-utils imports it; transformers' Qwen2-VL video processor requires it), which has no
CPU build on PyPI for the pinned CPU torch. :func:`process_mm_info` uses qwen-omni-utils where it imports (the GPU
install) and otherwise this module's reader, which follows qwen-omni-utils 0.0.9 (Apache-2.0): 2 frames per second
(an even count, at least 4), frames resized to multiples of 28 px within 128..768 tokens' pixels, audio at 16 kHz
mono, face images within 4..16384 tokens' pixels. :class:`NumpyQwenVideoProcessor` turns frames into the
``pixel_values_videos`` / ``video_grid_thw`` the vision encoder takes (Qwen2-VL's patch layout: CLIP
normalisation, 2-frame temporal patches of 14 x 14 px, 2 x 2 spatial merge), used when transformers' own video
processor cannot load.
"""

from __future__ import annotations

import base64
import io
import math
from pathlib import Path
from typing import Any

import numpy as np

FPS = 2.0
FRAME_FACTOR = 2
FPS_MIN_FRAMES = 4
FPS_MAX_FRAMES = 768
PATCH_FACTOR = 28                      # patch 14 x spatial merge 2
VIDEO_MIN_PIXELS = 128 * PATCH_FACTOR ** 2
VIDEO_MAX_PIXELS = 768 * PATCH_FACTOR ** 2
IMAGE_MIN_PIXELS = 4 * PATCH_FACTOR ** 2
IMAGE_MAX_PIXELS = 16384 * PATCH_FACTOR ** 2
MODEL_SEQ_LEN = 128000
SAMPLE_RATE = 16000
CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)


def smart_resize(height: int, width: int, factor: int = PATCH_FACTOR, min_pixels: float = IMAGE_MIN_PIXELS,
                 max_pixels: float = IMAGE_MAX_PIXELS) -> tuple[int, int]:
    """Height and width divisible by ``factor``, pixels within [min, max], aspect ratio kept (qwen-omni-utils)."""
    h = max(factor, round(height / factor) * factor)
    w = max(factor, round(width / factor) * factor)
    if h * w > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        h, w = math.floor(height / beta / factor) * factor, math.floor(width / beta / factor) * factor
    elif h * w < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h, w = math.ceil(height * beta / factor) * factor, math.ceil(width * beta / factor) * factor
    return h, w


def smart_nframes(total_frames: int, video_fps: float, fps: float = FPS) -> int:
    min_frames = math.ceil(FPS_MIN_FRAMES / FRAME_FACTOR) * FRAME_FACTOR
    max_frames = math.floor(min(FPS_MAX_FRAMES, total_frames) / FRAME_FACTOR) * FRAME_FACTOR
    n = min(min(max(total_frames / video_fps * fps, min_frames), max_frames), total_frames)
    n = math.floor(n / FRAME_FACTOR) * FRAME_FACTOR
    if not FRAME_FACTOR <= n <= total_frames:
        raise ValueError(f"a video of {total_frames} frames is too short for the memorization model "
                         f"(needs >= {FRAME_FACTOR})")
    return n


def _path(src: str) -> str:
    return src[len("file://"):] if src.startswith("file://") else src


def load_video(src: str, fps: float = FPS) -> tuple[np.ndarray, float]:
    """(frames ``(T, H, W, 3)`` uint8 resized for the model, frames per second sampled) of a video file."""
    import av
    from PIL import Image

    with av.open(_path(src)) as c:
        stream = c.streams.video[0]
        frames = [f.to_ndarray(format="rgb24") for f in c.decode(stream)]
        rate = float(stream.average_rate or stream.guessed_rate or 25.0)
    if not frames:
        raise ValueError(f"{src}: no video frames")
    n = smart_nframes(len(frames), rate, fps)
    idx = np.linspace(0, len(frames) - 1, n).round().astype(int)
    picked = [frames[i] for i in idx]
    h, w = picked[0].shape[:2]
    max_pixels = max(min(VIDEO_MAX_PIXELS, MODEL_SEQ_LEN * PATCH_FACTOR ** 2 * 0.9 / n * FRAME_FACTOR),
                     int(VIDEO_MIN_PIXELS * 1.05))
    rh, rw = smart_resize(h, w, PATCH_FACTOR, VIDEO_MIN_PIXELS, max_pixels)
    out = np.stack([np.asarray(Image.fromarray(f).resize((rw, rh), Image.BICUBIC)) for f in picked])
    return out, n / max(len(frames), 1) * rate


def load_audio(src: str, sr: int = SAMPLE_RATE) -> np.ndarray:
    """The first audio track of a media file as float32 mono at ``sr`` Hz."""
    import av

    chunks: list[np.ndarray] = []
    with av.open(_path(src)) as c:
        if not c.streams.audio:
            raise ValueError(f"{src}: no audio track (use_audio_in_video needs one)")
        res = av.AudioResampler(format="flt", layout="mono", rate=sr)
        for frame in c.decode(c.streams.audio[0]):
            for f in res.resample(frame):
                chunks.append(f.to_ndarray().reshape(-1))
        for f in res.resample(None):
            chunks.append(f.to_ndarray().reshape(-1))
    return np.concatenate(chunks).astype(np.float32) if chunks else np.zeros(0, np.float32)


def load_image(src: Any) -> Any:
    """A PIL image (RGB, resized for the model) from a PIL image, a ``data:image...;base64,`` URI or a path."""
    from PIL import Image

    if isinstance(src, Image.Image):
        img = src
    elif isinstance(src, str) and src.startswith("data:image"):
        img = Image.open(io.BytesIO(base64.b64decode(src.split("base64,", 1)[1])))
    else:
        img = Image.open(_path(str(src)))
    img = img.convert("RGB")
    h, w = smart_resize(img.height, img.width)
    return img.resize((w, h))


def process_mm_info(messages: list[dict], use_audio_in_video: bool = True) -> tuple[list | None, list | None,
                                                                                    list | None]:
    """(audios, images, videos) of ``messages`` as qwen-omni-utils gives them; qwen-omni-utils itself when it
    imports (torchvision present), else this module's PyAV reader (videos as ``(T, H, W, 3)`` uint8 arrays)."""
    try:
        from qwen_omni_utils import process_mm_info as upstream
    except (ImportError, RuntimeError):
        upstream = None
    if upstream is not None:
        return upstream(messages, use_audio_in_video=use_audio_in_video)
    audios: list = []
    images: list = []
    videos: list = []
    for m in messages:
        if not isinstance(m.get("content"), list):
            continue
        for part in m["content"]:
            kind = part.get("type")
            if kind == "image":
                images.append(load_image(part["image"]))
            elif kind == "video":
                videos.append(load_video(part["video"], part.get("fps", FPS))[0])
                if use_audio_in_video:
                    audios.append(load_audio(part["video"]))
            elif kind == "audio":
                audios.append(load_audio(part["audio"]))
    return audios or None, images or None, videos or None


def patchify(frames: np.ndarray, patch: int = 14, temporal: int = 2, merge: int = 2) -> tuple[np.ndarray,
                                                                                              tuple[int, int, int]]:
    """Qwen2-VL's layout: ``frames`` (T, C, H, W) normalised -> (grid_t * grid_h * grid_w, C * temporal * patch**2),
    (grid_t, grid_h, grid_w). T is padded to a multiple of ``temporal`` with the last frame."""
    if frames.shape[0] % temporal:
        frames = np.concatenate([frames, np.repeat(frames[-1:], temporal - frames.shape[0] % temporal, 0)])
    t, c, h, w = frames.shape
    gt, gh, gw = t // temporal, h // patch, w // patch
    x = frames.reshape(gt, temporal, c, gh // merge, merge, patch, gw // merge, merge, patch)
    x = x.transpose(0, 3, 6, 4, 7, 2, 1, 5, 8)
    return x.reshape(gt * gh * gw, c * temporal * patch * patch), (gt, gh, gw)


_VIDEO_CLS: list[type] = []


def _video_processor_class() -> type:
    if _VIDEO_CLS:
        return _VIDEO_CLS[0]
    from transformers import BatchFeature
    from transformers.video_processing_utils import BaseVideoProcessor

    class NumpyQwenVideoProcessor(BaseVideoProcessor):  # type: ignore[misc]
        """Qwen2-VL video preprocessing in NumPy (no torchvision): frames sized by :func:`load_video` (or any
        size: resized to multiples of 28 px), CLIP-normalised, patchified. A subclass so the processor accepts it;
        torchvision's constructor is skipped."""

        def __init__(self, patch_size: int = 14, temporal_patch_size: int = 2, merge_size: int = 2,
                     image_mean: tuple = CLIP_MEAN, image_std: tuple = CLIP_STD, **_: Any) -> None:
            self.patch_size, self.temporal_patch_size, self.merge_size = patch_size, temporal_patch_size, merge_size
            self.image_mean, self.image_std = tuple(image_mean), tuple(image_std)
            self.size = {"shortest_edge": VIDEO_MIN_PIXELS, "longest_edge": VIDEO_MAX_PIXELS}
            self.model_input_names = ["pixel_values_videos", "video_grid_thw"]

        def __repr__(self) -> str:
            return f"{type(self).__name__}(patch {self.patch_size}, temporal {self.temporal_patch_size})"

        def to_dict(self) -> dict[str, Any]:
            return {"video_processor_type": "Qwen2VLVideoProcessor", "patch_size": self.patch_size,
                    "temporal_patch_size": self.temporal_patch_size, "merge_size": self.merge_size,
                    "image_mean": list(self.image_mean), "image_std": list(self.image_std)}

        def __call__(self, videos: Any, return_tensors: str | None = "pt", **_: Any) -> Any:
            from PIL import Image

            if not isinstance(videos, (list, tuple)):
                videos = [videos]
            pixels, grids = [], []
            factor = self.patch_size * self.merge_size
            for v in videos:
                a = np.asarray(v.numpy() if hasattr(v, "numpy") else v)
                if a.ndim != 4:
                    raise ValueError(f"a video must be 4-d frames, got shape {a.shape}")
                if a.shape[-1] == 3 and a.shape[1] != 3:     # (T, H, W, C) -> (T, C, H, W)
                    a = a.transpose(0, 3, 1, 2)
                h, w = a.shape[2:]
                if h % factor or w % factor:
                    rh, rw = smart_resize(h, w, factor, VIDEO_MIN_PIXELS, VIDEO_MAX_PIXELS)
                    a = np.stack([np.asarray(Image.fromarray(f.transpose(1, 2, 0).astype(np.uint8))
                                             .resize((rw, rh), Image.BICUBIC)).transpose(2, 0, 1) for f in a])
                x = a.astype(np.float32) / 255.0
                x = (x - np.array(self.image_mean, np.float32)[:, None, None]) / \
                    np.array(self.image_std, np.float32)[:, None, None]
                flat, grid = patchify(x, self.patch_size, self.temporal_patch_size, self.merge_size)
                pixels.append(flat)
                grids.append(grid)
            data = {"pixel_values_videos": np.concatenate(pixels), "video_grid_thw": np.array(grids, np.int64)}
            return BatchFeature(data, tensor_type=return_tensors)

    _VIDEO_CLS.append(NumpyQwenVideoProcessor)
    return NumpyQwenVideoProcessor


def __getattr__(name: str) -> Any:  # the class needs transformers: made on first use
    if name == "NumpyQwenVideoProcessor":
        cls = _video_processor_class()
        globals()[name] = cls
        return cls
    raise AttributeError(name)


def load_processor(model_dir: str | Path) -> Any:
    """``Qwen2_5OmniProcessor`` of a model folder; where its video processor needs torchvision (not installed),
    the same processor assembled with :class:`NumpyQwenVideoProcessor`."""
    from transformers import Qwen2_5OmniProcessor

    try:
        return Qwen2_5OmniProcessor.from_pretrained(str(model_dir))
    except ImportError:
        pass
    import json

    from transformers import AutoImageProcessor, AutoTokenizer, WhisperFeatureExtractor

    folder = Path(model_dir)
    vcfg_path = folder / "video_preprocessor_config.json"
    vcfg = json.loads(vcfg_path.read_text()) if vcfg_path.is_file() else {}
    tok = AutoTokenizer.from_pretrained(str(folder))
    template = getattr(tok, "chat_template", None)
    tpl_file = folder / "chat_template.jinja"
    if tpl_file.is_file():
        template = tpl_file.read_text()
    return omni_processor(AutoImageProcessor.from_pretrained(str(folder)), _video_processor_class()(**vcfg),
                          WhisperFeatureExtractor.from_pretrained(str(folder)), tok, template)


def omni_processor(image_processor: Any, video_processor: Any, feature_extractor: Any, tokenizer: Any,
                   chat_template: str | None) -> Any:
    """``Qwen2_5OmniProcessor`` from its parts; a :class:`NumpyQwenVideoProcessor` is accepted as its video
    processor (transformers' type check looks the class up in a registry that is empty without torchvision)."""
    from transformers import Qwen2_5OmniProcessor

    numpy_cls = _video_processor_class()

    class _Processor(Qwen2_5OmniProcessor):  # type: ignore[misc]
        def check_argument_for_proper_class(self, argument_name: str, argument: Any) -> Any:
            if argument_name == "video_processor" and isinstance(argument, numpy_cls):
                return numpy_cls
            return super().check_argument_for_proper_class(argument_name, argument)

    _Processor.__name__ = _Processor.__qualname__ = "Qwen2_5OmniProcessor"
    return _Processor(image_processor=image_processor, video_processor=video_processor,
                      feature_extractor=feature_extractor, tokenizer=tokenizer, chat_template=chat_template)
