"""control_node with the openai backend on a real OpenAI-compatible server (``m3-serve-llm``, a separate process):
answers come from the served model under the reasoning loop's grammar; the server killed in the middle of a query
gives that query the labelled extractive fallback with a clear reason, and once the server is back on its port the
next query is the model's again, from the same node."""

from __future__ import annotations

import importlib.util
import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .ros_helpers import RosTestNode, start_module, wait_for_service, wait_until
from .served_llm import ServedLLM
from .store_helpers import kitchen_store

pytestmark = [
    pytest.mark.ros,
    pytest.mark.once,   # the openai backend in the node: nothing distro-specific (.ci/run)
    pytest.mark.skipif(importlib.util.find_spec("xllamacpp") is None, reason="xllamacpp not installed"),
    pytest.mark.timeout(300),
]


def _busy(base_url: str) -> bool:
    """A slot of the llama.cpp server is processing a request (GET /slots)."""
    try:
        with urllib.request.urlopen(base_url.removesuffix("/v1") + "/slots", timeout=2) as r:
            return any(s.get("is_processing") for s in json.load(r))
    except OSError:
        return False


def test_served_model_answers_and_a_killed_server_is_survived(tmp_path: Path) -> None:
    from m3_agent.srv import Query

    kitchen_store(tmp_path / "memory.db")[0].close()
    # the small plumbing model: the grammar gives it the protocol's shape, which is all this test needs
    llm = ServedLLM("--model", "gemma-3-270m", "--threads", "1", "--n-ctx", "6144")   # the tools prompt: ~4.2k tokens
    proc = start_module("m3_agent_ros.control_node", [
        "--ros-args", "-p", f"db_path:={tmp_path / 'memory.db'}", "-p", "answerer:=m3", "-p", "prompt:=tools",
        "-p", "backend:=openai", "-p", f"backend_base_url:={llm.base_url}", "-p", "backend_model:=m3-embedded",
        "-p", "backend_grammar_field:=grammar", "-p", "backend_temperature:=0.0", "-p", "backend_max_tokens:=48",
        "-p", "fallback:=extractive", "-p", "service_name:=/m3_agent/query_served",
        "-p", "action_name:=/m3_agent/instruct_served", "-r", "__node:=m3_agent_control_served"],
        tmp_path / "control.log")
    ros = RosTestNode("served_llm_test_client")
    try:
        client = ros.node.create_client(Query, "/m3_agent/query_served")
        wait_for_service(client, timeout_sec=30, proc=proc)

        def ask(question: str) -> tuple[Any, dict]:
            res = ros.call(client, Query.Request(question=question, max_rounds=3), timeout_sec=150, proc=proc)
            return res, json.loads(res.trace_json)

        res, trace = ask("Where are the car keys?")
        assert res.success and trace["answer_source"] == "model", (res.error, trace)
        assert trace["backend"] == "openai:m3-embedded" and res.answer

        # kill -9 the server while it is generating this query's reply
        fut = client.call_async(Query.Request(question="Who hands over a red folder?", max_rounds=3))
        wait_until(lambda: _busy(llm.base_url), timeout=60, what="the server working on the query")
        t_kill = time.monotonic()
        llm.kill()
        ros.executor.spin_until_future_complete(fut, timeout_sec=60)
        assert fut.done(), proc.describe()
        res = fut.result()
        trace = json.loads(res.trace_json)
        assert trace["answer_source"] == "fallback" and res.answer.startswith("[extractive]"), (res.answer, trace)
        reason = trace["fallback_reason"]
        assert reason.startswith("model backend failed:") and llm.base_url in reason, reason
        assert "is the server running?" in reason, reason
        assert time.monotonic() - t_kill < 40
        assert proc.alive()

        llm.start()      # back on the same port: the same node's next query is answered by the model again
        res, trace = ask("Where are the car keys?")
        assert res.success and trace["answer_source"] == "model", (res.error, trace)
    finally:
        ros.close()
        rc = proc.stop(timeout=20)
        llm.stop()
    assert rc == 0, proc.describe()
