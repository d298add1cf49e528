"""The fine-tuned M3-Agent-Memorization model (Qwen2.5-Omni-7B thinker, SFT) from a local folder.

``engine="transformers"`` follows upstream's inference exactly (``Qwen2_5OmniThinkerForConditionalGeneration``,
``qwen_omni_utils.process_mm_info(use_audio_in_video=True)``, ``do_sample=True``, ``temperature=1e-6``,
``max_new_tokens=4096``); ``engine="vllm"`` runs the same request (:meth:`M3MemoryWriter.prepare`) in-process
with vLLM (GPU only). The media come from :mod:`.omni_inputs` (qwen-omni-utils where torchvision is installed, a
PyAV reader otherwise). The transformers engine is tested on CPU with a tiny random Qwen2.5-Omni thinker and a real
GRID clip (tests/test_m3_writer_transformers.py); the real 7B model needs a GPU.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .base import ClipEvidence, WrittenMemories
from .parse import MemoryParseError, parse_memory_output
from .request import qwen_omni_content

if TYPE_CHECKING:
    from ..store import ClipWriter

log = logging.getLogger(__name__)


class M3MemoryWriter:
    def __init__(self, model_dir: str, engine: str = "transformers", max_new_tokens: int = 4096,
                 temperature: float = 1e-6, max_parse_retries: int = 3, device_map: str = "auto",
                 tensor_parallel_size: int = 1) -> None:
        if not Path(model_dir).expanduser().is_dir():
            raise FileNotFoundError(f"M3-Agent-Memorization model folder not found: {model_dir} (download it to "
                                    "local disk and point memory_writer.model_dir at it)")
        if engine not in ("transformers", "vllm"):
            raise ValueError("engine must be transformers or vllm")
        self.name = f"m3:{engine}"
        self.model_dir = str(Path(model_dir).expanduser())
        self.engine, self.max_new_tokens, self.temperature = engine, max_new_tokens, temperature
        self.max_parse_retries, self.device_map, self.tp = max_parse_retries, device_map, tensor_parallel_size
        self._model: Any = None
        self._processor: Any = None

    def messages(self, evidence: ClipEvidence) -> list[dict]:
        if not evidence.video_path:
            raise ValueError("the m3 memory writer needs the clip as a video file (evidence.video_path)")
        return [{"role": "user", "content": qwen_omni_content(evidence)}]

    def _load(self) -> None:
        if self._model is not None:
            return
        from .omni_inputs import load_processor

        self._processor = load_processor(self.model_dir)
        if self.engine == "transformers":
            from transformers import Qwen2_5OmniThinkerForConditionalGeneration

            # device_map "auto" (upstream; needs accelerate) spreads the model over the GPUs; "cpu" loads it plainly
            on_map = self.device_map not in ("", "cpu", None)
            self._model = Qwen2_5OmniThinkerForConditionalGeneration.from_pretrained(
                self.model_dir, dtype="auto", **({"device_map": self.device_map} if on_map else {}))
        else:
            from vllm import LLM

            self._model = LLM(model=self.model_dir, tensor_parallel_size=self.tp,
                              limit_mm_per_prompt={"image": 64, "video": 1, "audio": 1})

    def prepare(self, messages: list[dict]) -> tuple[str, dict]:
        """The shared request of both engines: the chat-template text and the media (qwen-omni-utils' layout,
        audio track of the video included)."""
        from .omni_inputs import process_mm_info

        self._load()
        text = self._processor.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        audios, images, videos = process_mm_info(messages, use_audio_in_video=True)
        return text, {"audio": audios, "image": images, "video": videos}

    def inputs(self, text: str, mm: dict) -> Any:
        """The transformers engine's processor output for :meth:`prepare`'s request (the video's audio track in)."""
        from transformers import processing_utils

        videos = mm["video"]
        # transformers with omni-modal processing (5.23, the pin on 3.11/3.12): the video's audio track is passed as
        # audio slot i of video i (load_audio_from_video); older ones (5.20.2, the newest for Python 3.10; 4.x) take
        # use_audio_in_video=True
        if not videos:
            track: dict = {}
        elif hasattr(processing_utils, "OmniModalProcessingKwargs"):
            track = {"load_audio_from_video": True, "audio_from_video_indices": list(range(len(videos)))}
        else:
            track = {"use_audio_in_video": True}
        return self._processor(text=text, audio=mm["audio"], images=mm["image"], videos=videos, return_tensors="pt",
                               padding=True, **track)

    def _generate(self, messages: list[dict]) -> str:
        text, mm = self.prepare(messages)
        if self.engine == "vllm":
            from vllm import SamplingParams

            data: dict = {k: v for k, v in mm.items() if v}
            params = SamplingParams(temperature=self.temperature, max_tokens=self.max_new_tokens)
            out = self._model.generate([{"prompt": text, "multi_modal_data": data,
                                         "mm_processor_kwargs": {"use_audio_in_video": True}}], params)
            return out[0].outputs[0].text
        import torch

        videos = mm["video"]
        inputs = self.inputs(text, mm).to(self._model.device)
        with torch.inference_mode():
            gen = self._model.generate(**inputs, use_audio_in_video=bool(videos), max_new_tokens=self.max_new_tokens,
                                       do_sample=True, temperature=self.temperature)
        return self._processor.batch_decode(gen[:, inputs.input_ids.size(1):], skip_special_tokens=True,
                                            clean_up_tokenization_spaces=False)[0]

    def write(self, evidence: ClipEvidence, graph: ClipWriter | None = None) -> WrittenMemories:
        out = WrittenMemories(backend=self.name)
        messages = self.messages(evidence)
        for attempt in range(1, self.max_parse_retries + 1):
            out.attempts = attempt
            out.raw_output = self._generate(messages)
            try:
                out.episodic, out.semantic = parse_memory_output(out.raw_output)
                return out
            except MemoryParseError as e:
                out.errors.append(f"parse (attempt {attempt}): {e}")
        return out
