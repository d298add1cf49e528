"""Any OpenAI-compatible chat endpoint: `vllm serve` of M3-Agent-Control, `m3-serve-llm` (the embedded GGUF served
by llama.cpp on loopback), hosted APIs. The HTTP client is the ``openai`` SDK (:mod:`m3_memory.openai_api`:
connect/read timeouts, retries with backoff on connection errors, 429 and 5xx, the key from the environment).

``grammar_field`` sends the reasoning loop's GBNF grammar with each request, so the reply has the protocol's shape
as with the in-process backend: ``"grammar"`` for llama.cpp servers (``m3-serve-llm``), ``"guided_grammar"`` for
vLLM; ``None`` (hosted APIs) sends none and the reply is parsed tolerantly.
"""

from __future__ import annotations

import threading
from typing import Any

from m3_memory.openai_api import ApiError, chat_message, make_client

from .base import M3_SAMPLING, ChatError, ChatStopped, StopCheck

GRAMMAR_FIELDS = ("grammar", "guided_grammar")


class OpenAIChatBackend:
    # complete(..., should_stop=f): the request runs on a helper thread and f is polled every STOP_POLL_S; when it
    # turns true the reply is abandoned (ChatStopped) and the server finishes that request unobserved
    supports_stop = True
    STOP_POLL_S = 0.05

    def __init__(self, base_url: str, model: str, api_key: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 temperature: float = M3_SAMPLING["temperature"], top_p: float = M3_SAMPLING["top_p"],
                 top_k: int | None = M3_SAMPLING["top_k"], max_tokens: int = M3_SAMPLING["max_tokens"],
                 seed: int | None = None, enable_thinking: bool | None = True, grammar_field: str | None = None,
                 extra_body: dict[str, Any] | None = None, timeout_s: float = 120.0, connect_timeout_s: float = 5.0,
                 retries: int = 4) -> None:
        if not base_url:
            raise ValueError("the openai backend needs base_url (e.g. http://127.0.0.1:8000/v1)")
        if grammar_field not in (None, "", *GRAMMAR_FIELDS):
            raise ValueError(f"grammar_field {grammar_field!r}: one of {', '.join(GRAMMAR_FIELDS)} or none")
        self.name = f"openai:{model}"
        self.base_url = base_url.rstrip("/")
        self.grammar_field = grammar_field or None
        self.supports_grammar = self.grammar_field is not None  # complete(..., grammar=GBNF) is honoured
        self._client = make_client(base_url, api_key, api_key_env, timeout_s, connect_timeout_s, retries)
        self._body: dict[str, Any] = {"model": model, "temperature": temperature, "top_p": top_p,
                                      "max_tokens": max_tokens}
        if seed is not None:
            self._body["seed"] = seed
        if top_k is not None:
            self._body["top_k"] = top_k  # vLLM / llama.cpp extension; hosted APIs may ignore it
        if enable_thinking is not None:  # vLLM: forwarded to the Qwen3 chat template (upstream: enable_thinking)
            self._body["chat_template_kwargs"] = {"enable_thinking": enable_thinking}
        self._body.update(extra_body or {})

    def request_body(self, messages: list[dict[str, str]], grammar: str | None = None,
                     max_tokens: int | None = None) -> dict[str, Any]:
        body = {**self._body, "messages": messages}
        if max_tokens:
            body["max_tokens"] = max_tokens
        if grammar and self.grammar_field:
            body[self.grammar_field] = grammar
        return body

    def complete(self, messages: list[dict[str, str]], grammar: str | None = None, max_tokens: int | None = None,
                 should_stop: StopCheck | None = None) -> str:
        """The assistant's reply. ``grammar``: GBNF the reply must follow (sent when ``grammar_field`` is set).
        Every failure (server down, timeout, HTTP error, garbage reply) raises ChatError; a true
        ``should_stop`` abandons the request with ChatStopped."""
        body = self.request_body(messages, grammar, max_tokens)
        if should_stop is None:
            return self._complete(body)
        if should_stop():
            raise ChatStopped("stopped before the request was sent")
        box: dict[str, Any] = {}
        done = threading.Event()

        def request() -> None:
            try:
                box["reply"] = self._complete(body)
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

    def _complete(self, body: dict[str, Any]) -> str:
        try:
            msg = chat_message(self._client, body)
        except ApiError as e:
            raise ChatError(str(e)) from e
        content = msg.get("content") or ""
        thinking = msg.get("reasoning_content") or msg.get("reasoning")
        # servers that split the <think> block off (vLLM reasoning parsers) get it glued back, as the model wrote it
        return f"<think>{thinking}</think>{content}" if thinking else content
