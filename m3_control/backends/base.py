"""The chat-backend interface and the factory that builds one from configuration."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

# Upstream control sampling (m3_agent/control.py; also the RL rollouts): temperature 0.6, top_p 0.95, top_k 20,
# max 1024 new tokens per round, thinking included.
M3_SAMPLING = {"temperature": 0.6, "top_p": 0.95, "top_k": 20, "max_tokens": 1024}


class ChatError(RuntimeError):
    """The model could not produce a reply (transport failure, server error, model not loadable)."""


class ChatStopped(ChatError):
    """The caller's ``should_stop()`` turned true while the reply was being generated (cancel, deadline,
    shutdown): the generation was aborted, or abandoned where the backend cannot abort it."""


StopCheck = Callable[[], bool]   # polled during a generation; True stops it (raises ChatStopped)


class ChatBackend(Protocol):
    """What a backend can do is part of its interface: ``supports_stop`` (``complete(..., should_stop=StopCheck)``
    aborts or abandons the generation) and ``supports_grammar`` (``complete(..., grammar=GBNF)`` is honoured)."""

    name: str
    supports_stop: bool
    supports_grammar: bool

    def complete(self, messages: list[dict[str, str]]) -> str:
        """The assistant's reply (raw text, including any <think> block) to the conversation so far."""
        ...
