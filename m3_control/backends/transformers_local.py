"""M3-Agent-Control (or any Hugging Face chat model folder) in-process with transformers: the request vLLM is given
(:mod:`.hf_request`: chat template, ``enable_thinking=True``, generation prompt), ``generate`` with upstream's
sampling (temperature 0.6, top_p 0.95, top_k 20, max 1024 new tokens; temperature 0 is greedy), the new tokens
decoded with special tokens skipped (as vLLM's default). Runs on CPU or GPU (``device``); slow on CPU for real
models, so the CPU tests use a tiny randomly initialised model of the same architecture."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from .base import M3_SAMPLING, ChatError, ChatStopped, StopCheck
from .hf_request import chat_prompt_ids, load_tokenizer


class TransformersBackend:
    supports_stop = True    # complete(..., should_stop=f): checked at every generated token
    supports_grammar = False

    def __init__(self, model_dir: str, device: str = "cpu", dtype: str = "auto", seed: int | None = 0,
                 enable_thinking: bool = True, **sampling: Any) -> None:
        if not Path(model_dir).expanduser().is_dir():
            raise FileNotFoundError(f"model folder not found: {model_dir}")
        self.model_dir = str(Path(model_dir).expanduser())
        self.name = f"transformers:{Path(self.model_dir).name}"
        self.device, self.dtype, self.seed, self.enable_thinking = device, dtype, seed, enable_thinking
        self.sampling = {**M3_SAMPLING, **sampling}
        self._model: Any = None
        self._tok: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            try:
                from transformers import AutoModelForCausalLM
            except ImportError as e:
                raise ChatError("the transformers backend needs transformers and torch") from e
            self._tok = load_tokenizer(self.model_dir)
            try:
                self._model = AutoModelForCausalLM.from_pretrained(self.model_dir, dtype=self.dtype).to(self.device)
            except (OSError, ValueError, RuntimeError) as e:
                raise ChatError(f"transformers could not load {self.model_dir}: {e}") from e
            self._model.eval()

    def prompt_ids(self, messages: list[dict[str, str]]) -> list[int]:
        if self._tok is None:
            self._tok = load_tokenizer(self.model_dir)
        return chat_prompt_ids(self._tok, messages, self.enable_thinking)

    def generation_kwargs(self, max_tokens: int | None = None) -> dict[str, Any]:
        s = self.sampling
        kw: dict[str, Any] = {"max_new_tokens": int(max_tokens or s["max_tokens"])}
        if s["temperature"] and s["temperature"] > 0:
            kw |= {"do_sample": True, "temperature": s["temperature"], "top_p": s["top_p"], "top_k": s["top_k"]}
        else:
            kw |= {"do_sample": False, "temperature": None, "top_p": None, "top_k": None}
        return kw

    def complete(self, messages: list[dict[str, str]], max_tokens: int | None = None,
                 should_stop: StopCheck | None = None) -> str:
        import torch
        from transformers import StoppingCriteria, StoppingCriteriaList

        self.load()
        ids = self.prompt_ids(messages)
        stopped = {"yes": False}

        class _Stop(StoppingCriteria):
            def __call__(self, input_ids: Any, scores: Any, **kw: Any) -> Any:
                stopped["yes"] = bool(should_stop and should_stop())
                return torch.full((input_ids.shape[0],), stopped["yes"], dtype=torch.bool, device=input_ids.device)

        if should_stop is not None and should_stop():
            raise ChatStopped("stopped before the generation started")
        with self._lock:
            if self.seed is not None:
                torch.manual_seed(self.seed)
            inp = torch.tensor([ids], device=self._model.device)
            pad = self._tok.pad_token_id if self._tok.pad_token_id is not None else self._tok.eos_token_id
            try:
                with torch.inference_mode():
                    out = self._model.generate(inp, attention_mask=torch.ones_like(inp), pad_token_id=pad,
                                               stopping_criteria=StoppingCriteriaList([_Stop()]),
                                               **self.generation_kwargs(max_tokens))
            except (RuntimeError, ValueError, IndexError) as e:
                raise ChatError(f"transformers generate failed: {type(e).__name__}: {e}") from e
        if stopped["yes"]:
            raise ChatStopped("generation stopped")
        return self._tok.decode(out[0, inp.shape[1]:].tolist(), skip_special_tokens=True)
