"""POST JSON to an HTTP API with timeouts and exponential backoff (OpenAI-compatible servers, hosted APIs).

Retries on transport errors, timeouts, 429 and 5xx; any other status is final. The API key travels only in the
``Authorization`` header and is never logged.
"""

from __future__ import annotations

import logging
import time

import httpx

log = logging.getLogger(__name__)


class HttpApiError(RuntimeError):
    """The endpoint failed, or gave a reply we cannot use."""


def auth_headers(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def post_json(client: httpx.Client, url: str, body: dict, retries: int = 4, first_delay_s: float = 0.5,
              max_delay_s: float = 10.0) -> dict:
    delay = first_delay_s
    reason = ""
    for attempt in range(retries + 1):
        try:
            r = client.post(url, json=body)
            if r.status_code < 500 and r.status_code != 429:
                if r.status_code >= 400:
                    raise HttpApiError(f"{url} answered HTTP {r.status_code}: {r.text[:300]}")
                try:
                    return r.json()
                except ValueError as e:
                    raise HttpApiError(f"{url} answered with invalid JSON: {e}") from e
            reason = f"HTTP {r.status_code}"
        except (httpx.TransportError, httpx.TimeoutException) as e:
            reason = type(e).__name__
        if attempt < retries:
            log.warning("request to %s failed (%s), retry %d/%d in %.1fs", url, reason, attempt + 1, retries, delay)
            time.sleep(delay)
            delay = min(delay * 2, max_delay_s)
    raise HttpApiError(f"{url} failed after {retries + 1} tries: {reason}")
