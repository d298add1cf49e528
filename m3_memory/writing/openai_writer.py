"""Memory writing through any OpenAI-compatible multimodal chat endpoint (vllm serve, hosted APIs)."""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from ..http_json import HttpApiError, auth_headers, post_json
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
                 timeout_s: float = 120.0, retries: int = 4) -> None:
        import httpx

        self.name = f"openai:{model}"
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._client = httpx.Client(timeout=timeout_s,
                                    headers=auth_headers(api_key or os.environ.get(api_key_env)))
        self._model, self._temperature, self._max_tokens = model, temperature, max_tokens
        self._max_frames, self._parse_retries, self._retries = max_frames, max_parse_retries, retries

    def messages(self, evidence: ClipEvidence) -> list[dict]:
        return [{"role": "system", "content": SYSTEM_MESSAGE},
                {"role": "user", "content": openai_content(evidence, self._max_frames)}]

    def write(self, evidence: ClipEvidence, graph: ClipWriter | None = None) -> WrittenMemories:
        body = {"model": self._model, "messages": self.messages(evidence), "temperature": self._temperature,
                "max_tokens": self._max_tokens}
        out = WrittenMemories(backend=self.name)
        for attempt in range(1, self._parse_retries + 1):
            out.attempts = attempt
            try:
                reply = post_json(self._client, self._url, body, self._retries)
                text = reply["choices"][0]["message"]["content"] or ""
            except (HttpApiError, KeyError, IndexError, TypeError) as e:
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
