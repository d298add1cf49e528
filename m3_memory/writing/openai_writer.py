"""Memory writing through any OpenAI-compatible multimodal chat endpoint (vllm serve, hosted APIs, m3-serve-llm).

The request is :func:`request.openai_content` (the trained layout, the video as sampled JPEG frames); the client is
the ``openai`` SDK (:mod:`m3_memory.openai_api`: timeouts, retries with backoff, the key from the environment). An
unparseable reply is asked again up to ``max_parse_retries`` times; a failed request ends the clip's writing with the
error recorded (``WrittenMemories.errors``), the clip keeps its perception results."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..openai_api import ApiError, chat_message, make_client
from .base import ClipEvidence, WrittenMemories
from .parse import MemoryParseError, parse_memory_output
from .request import openai_content

if TYPE_CHECKING:
    from ..store import ClipWriter

log = logging.getLogger(__name__)
SYSTEM_MESSAGE = "You are an expert in video understanding."  # upstream mmagent/utils/chat_api.py:275


class OpenAIMemoryWriter:
    def __init__(self, base_url: str, model: str, api_key: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 temperature: float = 1e-6, max_tokens: int = 4096, max_frames: int = 16, max_parse_retries: int = 3,
                 timeout_s: float = 120.0, connect_timeout_s: float = 5.0, retries: int = 4,
                 extra_body: dict | None = None) -> None:
        """``extra_body``: server extensions merged into every request (e.g. ``{"top_k": 1}``)."""
        self.name = f"openai:{model}"
        self._client = make_client(base_url, api_key, api_key_env, timeout_s, connect_timeout_s, retries)
        self._model, self._temperature, self._max_tokens = model, temperature, max_tokens
        self._max_frames, self._parse_retries = max_frames, max_parse_retries
        self._extra = dict(extra_body or {})

    def messages(self, evidence: ClipEvidence) -> list[dict]:
        return [{"role": "system", "content": SYSTEM_MESSAGE},
                {"role": "user", "content": openai_content(evidence, self._max_frames)}]

    def write(self, evidence: ClipEvidence, graph: ClipWriter | None = None) -> WrittenMemories:
        body = {"model": self._model, "messages": self.messages(evidence), "temperature": self._temperature,
                "max_tokens": self._max_tokens, **self._extra}
        out = WrittenMemories(backend=self.name)
        for attempt in range(1, self._parse_retries + 1):
            out.attempts = attempt
            try:
                text = chat_message(self._client, body).get("content") or ""
            except ApiError as e:
                out.errors.append(f"request: {e}")
                log.error("clip %d: memory writer request failed: %s", evidence.clip_id, e)
                return out
            out.raw_output = text
            try:
                out.episodic, out.semantic = parse_memory_output(text)
                return out
            except MemoryParseError as e:
                out.errors.append(f"parse (attempt {attempt}): {e}")
                log.warning("clip %d: unparseable memory output (attempt %d)", evidence.clip_id, attempt)
        return out
