"""M3-Agent-Control (Qwen3 architecture) in-process with vLLM, exactly as upstream's control.py runs it:
the tokenizer's chat template with ``enable_thinking=True`` and ``add_generation_prompt=True``, token ids handed to
vLLM, sampling temperature 0.6 / top_p 0.95 / top_k 20 / max_tokens 1024. Needs a GPU and vllm (not part of the
CPU install); imported only when chosen. The request (``prompt_ids``) is :mod:`.hf_request`'s, shared with the
transformers backend, whose tests run it on CPU with a tiny model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import M3_SAMPLING, ChatError
from .hf_request import chat_prompt_ids, load_tokenizer


class VLLMBackend:
    supports_stop = False
    supports_grammar = False
    def __init__(self, model_dir: str, tensor_parallel_size: int = 1, gpu_memory_utilization: float = 0.9,
                 max_model_len: int | None = None, **sampling: Any) -> None:
        if not Path(model_dir).expanduser().is_dir():
            raise FileNotFoundError(f"M3-Agent-Control model folder not found: {model_dir}")
        self.model_dir = str(Path(model_dir).expanduser())
        self.name = f"vllm:{Path(self.model_dir).name}"
        self.sampling = {**M3_SAMPLING, **sampling}
        self._engine_args = {"model": self.model_dir, "tensor_parallel_size": tensor_parallel_size,
                             "gpu_memory_utilization": gpu_memory_utilization}
        if max_model_len:
            self._engine_args["max_model_len"] = max_model_len
        self._llm: Any = None
        self._tok: Any = None

    def prompt_ids(self, messages: list[dict[str, str]]) -> list[int]:
        """The request, built by the code the transformers backend shares (tested on CPU there)."""
        if self._tok is None:
            self._tok = load_tokenizer(self.model_dir)
        return chat_prompt_ids(self._tok, messages)

    def complete(self, messages: list[dict[str, str]]) -> str:
        try:
            from vllm import LLM, SamplingParams

            if self._llm is None:
                self._llm = LLM(**self._engine_args)
            out = self._llm.generate([{"prompt_token_ids": self.prompt_ids(messages)}],
                                     SamplingParams(**self.sampling), use_tqdm=False)
            return out[0].outputs[0].text
        except ImportError as e:
            raise ChatError("the vllm backend needs vllm and transformers (GPU install)") from e
