"""Two processes: control_node serves Query over a real store; this test process is the client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .ros_helpers import NodeProcess, RosTestNode, make_demo_store, start_module, wait_for_service

pytestmark = pytest.mark.ros

SERVICE = "/m3_agent/query"


@dataclass
class Server:
    proc: NodeProcess
    ros: RosTestNode
    client: Any
    ids: dict[str, int]
    db_path: Path

    def query(self, question: str, before_time: float | None = None, max_rounds: int = 0) -> Any:
        from m3_agent.srv import Query

        req = Query.Request(question=question, max_rounds=max_rounds)
        if before_time is not None:
            req.has_time_bound = True
            req.before_time = before_time
        return self.ros.call(self.client, req, timeout_sec=30, proc=self.proc)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    from m3_agent.srv import Query

    tmp: Path = tmp_path_factory.mktemp("query_service")
    ids = make_demo_store(tmp / "memory.db")
    proc = start_module(
        "m3_agent_ros.control_node",
        ["--ros-args", "-p", f"db_path:={tmp / 'memory.db'}", "-p", f"service_name:={SERVICE}",
         "-p", "answerer:=extractive"],
        tmp / "control_node.log",
    )
    ros = RosTestNode("query_service_test_client")
    try:
        client: Any = ros.node.create_client(Query, SERVICE)
        wait_for_service(client, timeout_sec=15, proc=proc)
        yield Server(proc, ros, client, ids, tmp / "memory.db")
    finally:
        ros.close()
        rc = proc.stop(timeout=10)
        assert rc == 0, f"control_node did not exit cleanly on SIGINT: {proc.describe()}"


def test_answer_cites_the_matching_memory(server: Server) -> None:
    resp = server.query("Who watered the plants on the balcony?")
    assert resp.success, resp.error
    assert resp.error == ""
    assert list(resp.cited_memory_ids)[0] == server.ids["plants"]
    assert resp.answer.startswith("[extractive]")
    assert "waters the plants on the balcony" in resp.answer
    assert "<character_" in resp.answer and "<face_" not in resp.answer  # translated ids
    assert list(resp.searches) == ["Who watered the plants on the balcony?"]
    assert resp.rounds_used == 1
    trace = json.loads(resp.trace_json)
    assert trace["max_rounds"] == 5  # request max_rounds=0 -> node default
    assert trace["rounds"][0]["action"] == "search"
    assert [s["id"] for s in trace["selected"]] == list(resp.cited_memory_ids)


def test_before_time_excludes_later_memories(server: Server) -> None:
    question = "Where are the car keys?"
    unbounded = server.query(question)
    assert unbounded.success, unbounded.error
    assert list(unbounded.cited_memory_ids)[0] == server.ids["keys"]
    assert "car keys" in unbounded.answer

    bounded = server.query(question, before_time=60.0)  # the keys memory is in clip [60, 90)
    assert bounded.success, bounded.error
    later = {server.ids["keys"], server.ids["tidy"]}
    assert not later & set(bounded.cited_memory_ids)
    assert "car keys" not in bounded.answer
    for hit in json.loads(bounded.trace_json)["rounds"][0]["results"]:
        assert all(m["end_time"] <= 60.0 for m in hit["memories"])


def test_oversized_question_fails_and_server_keeps_answering(server: Server) -> None:
    resp = server.query("x" * 4001)
    assert not resp.success
    assert "too long" in resp.error and "4000" in resp.error
    assert list(resp.cited_memory_ids) == []

    empty = server.query("   ")
    assert not empty.success and "empty" in empty.error

    after = server.query("Who reads a newspaper?", max_rounds=2)
    assert after.success, after.error
    assert list(after.cited_memory_ids)[0] == server.ids["newspaper"]
    assert json.loads(after.trace_json)["max_rounds"] == 2
    assert server.proc.alive()


def test_memories_committed_while_serving_become_visible(server: Server) -> None:
    from m3_memory import MemoryStore

    question = "Who fed the cat in the garden?"
    assert "feeds the cat" not in server.query(question).answer
    writer = MemoryStore(server.db_path)  # another process's view: read-write, same file (WAL)
    try:
        with writer.begin_clip(3, 90.0, 120.0) as w:
            cat = w.add_memory(f"<face_{server.ids['ben']}> feeds the cat in the garden.").node_id
    finally:
        writer.close()
    resp = server.query(question)
    assert resp.success, resp.error
    assert list(resp.cited_memory_ids)[0] == cat
    assert "feeds the cat in the garden" in resp.answer
