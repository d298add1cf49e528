"""The memory writer by name: the factory lives beside the interface (:mod:`.base`), so the implementations can
import the interface without importing each other."""

from __future__ import annotations

from .base import MemoryWriter


def make_writer(config: dict | str | None = None) -> MemoryWriter:
    """``{"backend": "embedded" | "openai" | "m3", ...}`` -> a writer (heavy imports happen lazily)."""
    if config is None or isinstance(config, str):
        config = {"backend": config or "embedded"}
    cfg = dict(config)
    backend = cfg.pop("backend", "embedded")
    if backend == "embedded":
        from .embedded import EmbeddedWriter

        return EmbeddedWriter(**cfg)
    if backend == "openai":
        from .openai_writer import OpenAIMemoryWriter

        return OpenAIMemoryWriter(**cfg)
    if backend == "m3":
        from .m3_writer import M3MemoryWriter

        return M3MemoryWriter(**cfg)
    raise ValueError(f"unknown memory writer backend {backend!r} (embedded, openai, m3)")
