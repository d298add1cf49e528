"""``m3-serve-llm`` (m3_control.backends.llama_server) as a real process on loopback for tests."""

from __future__ import annotations

from m3_control.backends.llama_server import ServerProcess as ServedLLM

__all__ = ["ServedLLM"]
