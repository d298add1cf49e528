"""OpenAI-compatible HTTP APIs (vLLM, llama.cpp / ``m3-serve-llm``, hosted APIs) through the ``openai`` SDK.

One client per endpoint, made by :func:`make_client`:

- timeouts: ``connect_timeout_s`` to open a connection, ``timeout_s`` for the whole answer;
- retries with exponential backoff and jitter (the SDK's: 0.5 s doubling up to 8 s, ``Retry-After`` honoured) on
  connection errors, timeouts, 408/409/429 and 5xx; any other status is final;
- the API key comes from the argument or the environment variable ``api_key_env``, travels only in the
  ``Authorization`` header and is never logged (servers without a key get the placeholder ``EMPTY``).

:func:`chat_message` and :func:`embeddings` turn every failure into :class:`ApiError` with a message that says what
went wrong and where: the server is not reachable (not running?), did not answer in time, answered an HTTP error,
or answered something that is not an OpenAI reply (HTML, broken JSON, no choices).
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

log = logging.getLogger(__name__)

# Parameters the SDK's chat.completions.create() takes by name; everything else (grammar, top_k,
# chat_template_kwargs, cache_prompt, ...) is sent through ``extra_body`` as the server's extension.
_CHAT_PARAMS = {"model", "messages", "temperature", "top_p", "max_tokens", "seed", "stop", "n",
                "presence_penalty", "frequency_penalty", "response_format", "logprobs", "top_logprobs"}
NO_KEY = "EMPTY"


class ApiError(RuntimeError):
    """The endpoint failed, or gave a reply we cannot use."""


def api_key_from(api_key: str | None, api_key_env: str | None) -> str:
    return api_key or (os.environ.get(api_key_env) if api_key_env else None) or NO_KEY


def make_client(base_url: str, api_key: str | None = None, api_key_env: str | None = "OPENAI_API_KEY",
                timeout_s: float = 120.0, connect_timeout_s: float = 5.0, retries: int = 4) -> Any:
    """An ``openai.OpenAI`` client for ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``)."""
    import openai

    if not base_url:
        raise ValueError("an OpenAI-compatible endpoint needs base_url (e.g. http://127.0.0.1:8000/v1)")
    if timeout_s <= 0 or connect_timeout_s <= 0 or retries < 0:
        raise ValueError(f"timeout_s and connect_timeout_s > 0, retries >= 0 needed (got {timeout_s}, "
                         f"{connect_timeout_s}, {retries})")
    return openai.OpenAI(base_url=base_url.rstrip("/"), api_key=api_key_from(api_key, api_key_env),
                         timeout=openai.Timeout(timeout_s, connect=min(connect_timeout_s, timeout_s)),
                         max_retries=retries)


def _where(client: Any, path: str) -> str:
    return f"{str(client.base_url).rstrip('/')}/{path}"


def _call(client: Any, path: str, fn: Any, **kw: Any) -> Any:
    """Run one SDK call; every failure becomes ApiError naming the URL and the cause."""
    import openai

    url = _where(client, path)
    tries = client.max_retries + 1
    try:
        return fn(**kw)
    except openai.APITimeoutError as e:
        raise ApiError(f"{url} failed after {tries} tries: ReadTimeout (no answer within "
                       f"{client.timeout.read:g} s)") from e
    except openai.APIConnectionError as e:
        cause = e.__cause__ or e
        raise ApiError(f"{url} failed after {tries} tries: {type(cause).__name__} ({cause}); is the server "
                       "running?") from e
    except openai.APIStatusError as e:
        if e.status_code in (408, 409, 429) or e.status_code >= 500:  # the SDK retried these
            raise ApiError(f"{url} failed after {tries} tries: HTTP {e.status_code}: {_status_text(e)[:300]}") from e
        raise ApiError(f"{url} answered HTTP {e.status_code}: {_status_text(e)[:300]}") from e
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ApiError(f"{url} answered with invalid JSON: {e}") from e
    except openai.OpenAIError as e:  # e.g. a response that does not validate
        raise ApiError(f"{url}: {type(e).__name__}: {e}") from e


def _status_text(e: Any) -> str:
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        msg = err.get("message") if isinstance(err, dict) else err
        if msg:
            return str(msg)
    return str(getattr(e, "message", e))


def _as_dict(obj: Any) -> Any:
    return obj.model_dump() if hasattr(obj, "model_dump") else obj


def chat_message(client: Any, body: dict[str, Any]) -> dict[str, Any]:
    """POST ``body`` to ``/chat/completions``; the first choice's message as a dict (``content``, and the
    server's ``reasoning_content`` when it splits thinking off). Raises ApiError."""
    known = {k: v for k, v in body.items() if k in _CHAT_PARAMS}
    extra = {k: v for k, v in body.items() if k not in _CHAT_PARAMS and k != "stream"}
    reply = _call(client, "chat/completions", client.chat.completions.create, **known,
                  extra_body=extra or None)
    url = _where(client, "chat/completions")
    if isinstance(reply, str):
        raise ApiError(f"{url} answered with something that is not JSON: {reply[:200]!r}")
    data = _as_dict(reply)
    try:
        msg = data["choices"][0]["message"]
        content = msg.get("content")
    except (KeyError, IndexError, TypeError, AttributeError) as e:
        raise ApiError(f"{url} answered with no choices: {json.dumps(data, default=str)[:200]}") from e
    if content is not None and not isinstance(content, str):
        raise ApiError(f"{url} answered with non-text content: {str(content)[:200]}")
    return msg


def embeddings(client: Any, model: str, inputs: list[str]) -> list[list[float]]:
    """POST ``/embeddings``; one vector per input, in input order. Raises ApiError."""
    reply = _call(client, "embeddings", client.embeddings.create, model=model, input=inputs,
                  encoding_format="float")
    url = _where(client, "embeddings")
    if isinstance(reply, str):
        raise ApiError(f"{url} answered with something that is not JSON: {reply[:200]!r}")
    data = _as_dict(reply)
    try:
        rows = sorted(data["data"], key=lambda d: d["index"])
        out = [[float(x) for x in d["embedding"]] for d in rows]
    except (KeyError, TypeError, ValueError) as e:
        raise ApiError(f"{url} returned an unusable reply: {e!r}") from e
    if len(out) != len(inputs):
        raise ApiError(f"{url} returned {len(out)} vectors for {len(inputs)} inputs")
    return out
