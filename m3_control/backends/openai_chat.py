"""Any OpenAI-compatible chat endpoint: `vllm serve` of M3-Agent-Control, hosted APIs, llama.cpp servers."""

from __future__ import annotations

import os
import threading
from typing import Any

from m3_memory.http_json import HttpApiError, auth_headers, post_json

from .base import M3_SAMPLING, ChatError, ChatStopped, StopCheck


class OpenAIChatBackend:
    # complete(..., should_stop=f): the request runs on a helper thread and f is polled every STOP_POLL_S; when it
    # turns true the reply is abandoned (ChatStopped) and the server finishes that request unobserved
    supports_stop = True
    STOP_POLL_S = 0.05

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

    def complete(self, messages: list[dict[str, str]], should_stop: StopCheck | None = None) -> str:
        if should_stop is None:
            return self._complete(messages)
        if should_stop():
            raise ChatStopped("stopped before the request was sent")
        box: dict[str, Any] = {}
        done = threading.Event()

        def request() -> None:
            try:
                box["reply"] = self._complete(messages)
            except BaseException as e:  # handed to the caller below
                box["error"] = e
            finally:
                done.set()

        threading.Thread(target=request, name="openai-request", daemon=True).start()
        while not done.wait(self.STOP_POLL_S):
            if should_stop():
                raise ChatStopped("stopped while waiting for the server; its reply is abandoned")
        if "error" in box:
            raise box["error"]
        return box["reply"]

    def _complete(self, messages: list[dict[str, str]]) -> str:
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
