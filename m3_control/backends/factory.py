"""The chat backend by name: the factory lives beside the interface (:mod:`.base`), so the backends can import
the interface without importing each other."""

from __future__ import annotations

from typing import Any

from .base import ChatBackend


def make_backend(config: dict[str, Any] | str | None) -> ChatBackend:
    """``{"backend": "embedded" | "openai" | "vllm" | "transformers", ...}``; heavy imports happen only for the
    chosen one."""
    if config is None or isinstance(config, str):
        config = {"backend": config or "embedded"}
    cfg = dict(config)
    kind = cfg.pop("backend", "embedded")
    if kind == "embedded":
        from .llama_embedded import EmbeddedLlamaBackend

        return EmbeddedLlamaBackend(**cfg)
    if kind == "openai":
        from .openai_chat import OpenAIChatBackend

        return OpenAIChatBackend(**cfg)
    if kind == "vllm":
        from .vllm_local import VLLMBackend

        return VLLMBackend(**cfg)
    if kind == "transformers":
        from .transformers_local import TransformersBackend

        return TransformersBackend(**cfg)
    raise ValueError(f"unknown chat backend {kind!r} (embedded, openai, vllm, transformers)")
