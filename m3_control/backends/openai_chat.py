"""Any OpenAI-compatible chat endpoint: `vllm serve` of M3-Agent-Control, hosted APIs, llama.cpp servers."""

from __future__ import annotations

import os
from typing import Any

from m3_memory.http_json import HttpApiError, auth_headers, post_json

from .base import M3_SAMPLING, ChatError


class OpenAIChatBackend:
    def __init__(self, base_url: str, model: str, api_key: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 temperature: float = M3_SAMPLING["temperature"], top_p: float = M3_SAMPLING["top_p"],
                 top_k: int | None = M3_SAMPLING["top_k"], max_tokens: int = M3_SAMPLING["max_tokens"],
                 enable_thinking: bool | None = True, extra_body: dict[str, Any] | None = None,
                 timeout_s: float = 120.0, retries: int = 4) -> None:
        import httpx

        if not base_url:
            raise ValueError("the openai backend needs base_url (e.g. http://127.0.0.1:8000/v1)")
        self.name = f"openai:{model}"
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._client = httpx.Client(timeout=timeout_s, headers=auth_headers(api_key or os.environ.get(api_key_env)))
        self._retries = retries
        self._body: dict[str, Any] = {"model": model, "temperature": temperature, "top_p": top_p,
                                      "max_tokens": max_tokens}
        if top_k is not None:
            self._body["top_k"] = top_k  # vLLM / llama.cpp extension; hosted APIs may ignore it
        if enable_thinking is not None:  # vLLM: forwarded to the Qwen3 chat template (upstream: enable_thinking)
            self._body["chat_template_kwargs"] = {"enable_thinking": enable_thinking}
        self._body.update(extra_body or {})

    def request_body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        return {**self._body, "messages": messages}

    def complete(self, messages: list[dict[str, str]]) -> str:
        try:
            reply = post_json(self._client, self._url, self.request_body(messages), self._retries)
        except HttpApiError as e:
            raise ChatError(str(e)) from e
        try:
            msg = reply["choices"][0]["message"]
        except (KeyError, IndexError, TypeError) as e:
            raise ChatError(f"{self._url} returned no choices: {str(reply)[:200]}") from e
        content = msg.get("content") or ""
        thinking = msg.get("reasoning_content") or msg.get("reasoning")
        # servers that split the <think> block off (vLLM reasoning parsers) get it glued back, as the model wrote it
        return f"<think>{thinking}</think>{content}" if thinking else content
