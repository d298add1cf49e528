"""The M3-Agent-Memorization path (engine="transformers") on CPU: a tiny random Qwen2.5-Omni thinker built from the
real architecture's configuration, its processor with the packaged model's tokenizer, and a real GRID clip (video +
its audio track) and face crop as inputs. Proves message construction, media decoding, the processor call of the
installed transformers, generation, and that the random model's garbage output is retried and recorded."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from m3_memory.ingest.frames import encode_jpeg
from m3_memory.writing.base import ClipEvidence, FaceEvidence, VoiceTurnEvidence

from .media import GRID, need
from .tiny_hf import tiny_omni_thinker

pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("transformers") is None, reason="transformers not installed"),
    pytest.mark.timeout(300),
]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_omni_thinker(tmp_path_factory.mktemp("tiny-omni"))


def _evidence(clip: Path) -> ClipEvidence:
    face = np.full((64, 48, 3), 120, np.uint8)
    face[16:48, 12:36] = (200, 160, 140)
    ev = ClipEvidence(clip_id=0, start_time=0.0, end_time=3.0, video_path=str(clip))
    ev.faces = [FaceEvidence(4, encode_jpeg(face), [0.5, 1.0])]
    ev.voices = [VoiceTurnEvidence(9, 0.2, 2.8, "bin blue at f two now")]
    return ev


def test_media_follow_qwen_omni_utils_rules() -> None:
    from m3_memory.writing.omni_inputs import load_audio, load_video, patchify, smart_resize

    clip = need(GRID / "bbaf2n.mpg")             # 3 s, 25 fps, 360 x 288, 44.1 kHz audio
    frames, fps = load_video(str(clip))
    assert frames.shape == (6, 280, 364, 3) and frames.dtype == np.uint8 and fps == pytest.approx(2.0)
    audio = load_audio(str(clip))
    assert audio.dtype == np.float32 and abs(len(audio) / 16000 - 2.98) < 0.1 and 0.01 < np.abs(audio).max() < 2
    assert smart_resize(288, 360, 28, 128 * 784, 768 * 784) == (280, 364)
    flat, grid = patchify(np.zeros((5, 3, 56, 84), np.float32))
    assert grid == (3, 4, 6) and flat.shape == (3 * 4 * 6, 3 * 2 * 14 * 14)


def test_numpy_video_patches_match_transformers_image_processor() -> None:
    # Qwen2-VL patches one image as a 2-frame video of itself: the image processor of the installed transformers
    # (PIL backend) must give the NumPy video processor's values for that video
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    from m3_memory.writing.omni_inputs import NumpyQwenVideoProcessor

    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (56, 84, 3), np.uint8)
    ref = Qwen2VLImageProcessorPil()(images=[img], return_tensors="np", do_resize=False)
    ours = NumpyQwenVideoProcessor()(videos=[np.stack([img, img])], return_tensors="np")
    assert ours["video_grid_thw"].tolist() == ref["image_grid_thw"].tolist() == [[1, 4, 6]]
    assert np.allclose(ours["pixel_values_videos"], ref["pixel_values"], atol=1e-4)


def test_m3_writer_runs_the_thinker_on_a_real_clip(model_dir: Path) -> None:
    from m3_memory.writing import make_writer

    clip = need(GRID / "bbaf2n.mpg")
    w = make_writer({"backend": "m3", "model_dir": str(model_dir), "engine": "transformers", "max_new_tokens": 6,
                     "max_parse_retries": 2, "device_map": "cpu"})
    ev = _evidence(clip)
    text, mm = w.prepare(w.messages(ev))
    # the trained layout reached the chat template: prompt, video (with its audio), face label + crop, voices
    assert text.count("<|VIDEO|>") == 1 and text.count("<|IMAGE|>") == 1 and "<face_4>:" in text
    assert '"<voice_9>": [{"start_time": "00:00", "end_time": "00:03", "asr": "bin blue at f two now"}]' in text
    assert text.endswith("<|im_start|>assistant\n")
    assert len(mm["video"]) == 1 and len(mm["audio"]) == 1 and len(mm["image"]) == 1
    inputs = w.inputs(text, mm)
    ids = inputs["input_ids"][0].tolist()
    tok = w._processor.tokenizer
    n_video = ids.count(tok.convert_tokens_to_ids("<|VIDEO|>"))
    n_audio = ids.count(tok.convert_tokens_to_ids("<|AUDIO|>"))
    assert n_video == int(inputs["video_grid_thw"].prod()) // 4 == 3 * 10 * 13   # 6 frames -> 3 x 20 x 26 patches
    assert 70 <= n_audio <= 76 and inputs["input_features"].shape[1] == 128          # ~3 s of audio at 25 tokens/s
    out = w.write(ev)
    # random weights: the output is garbage; it is asked again, then given up with each parse error recorded
    assert out.backend == "m3:transformers" and out.attempts == 2 and out.episodic == [] and out.semantic == []
    assert isinstance(out.raw_output, str) and len(out.errors) == 2
    assert all(e.startswith("parse (attempt") for e in out.errors)
