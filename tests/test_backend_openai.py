"""The OpenAI-compatible chat backend against a real local HTTP server process (loopback)."""

from __future__ import annotations

import logging

import pytest

from m3_control.backends.base import ChatError
from m3_control.backends.openai_chat import OpenAIChatBackend
from m3_control.loop import ReasoningLoop
from m3_control.protocol import initial_messages

from .openai_server import FakeOpenAI
from .store_helpers import kitchen_store


@pytest.fixture
def server(tmp_path):
    s = FakeOpenAI(tmp_path, ["Action: [Search]\nContent: Where are the car keys?",
                              "<think>found it</think>Action: [Answer]\nContent: In the top drawer."], fail_first=1)
    yield s
    s.close()


def test_request_retries_auth_and_no_key_in_logs(server, monkeypatch, caplog):
    monkeypatch.setenv("M3_TEST_KEY", "sk-very-secret")
    be = OpenAIChatBackend(server.base_url, "m3-agent-control", api_key_env="M3_TEST_KEY", retries=2)
    with caplog.at_level(logging.DEBUG):
        out = be.complete(initial_messages("Where are the keys?"))
    assert out.startswith("Action: [Search]")
    reqs = server.requests()
    assert len(reqs) == 2  # the first got a 503 and was retried
    body = reqs[-1]["body"]
    assert reqs[-1]["path"] == "/v1/chat/completions" and reqs[-1]["auth"] == "Bearer sk-very-secret"
    assert body["model"] == "m3-agent-control" and body["temperature"] == 0.6 and body["top_p"] == 0.95
    assert body["top_k"] == 20 and body["max_tokens"] == 1024
    assert body["chat_template_kwargs"] == {"enable_thinking": True}
    assert body["messages"][1] == {"role": "user", "content": "Searched knowledge: {}"}
    assert "retry" in caplog.text and "sk-very-secret" not in caplog.text


def test_full_reasoning_loop_through_the_server(server, tmp_path):
    store, ids = kitchen_store(tmp_path / "m.db")
    ans = ReasoningLoop(store, OpenAIChatBackend(server.base_url, "m", retries=2)).run("Where are the keys?")
    # the plain protocol has no citations: provenance is what the model was shown (recorded, not guessed)
    assert ans.answer == "In the top drawer." and ids["m_keys"] in ans.cited_memory_ids
    assert {p["id"] for p in ans.trace["provenance"]} == set(ans.cited_memory_ids)
    third = server.requests()[-1]["body"]["messages"]
    assert third[2]["content"].startswith("Action: [Search]") and "CLIP_2" in third[3]["content"]


def test_unreachable_and_slow_servers_fail_cleanly(tmp_path):
    with pytest.raises(ChatError, match="failed after 2 tries"):
        OpenAIChatBackend("http://127.0.0.1:9/v1", "m", retries=1).complete(initial_messages("q"))
    slow = FakeOpenAI(tmp_path, ["Action: [Answer]\nContent: late"], delay_s=3.0)
    try:
        with pytest.raises(ChatError, match="ReadTimeout"):
            OpenAIChatBackend(slow.base_url, "m", timeout_s=0.5, retries=0).complete(initial_messages("q"))
    finally:
        slow.close()
