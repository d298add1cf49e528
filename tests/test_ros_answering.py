"""The ROS-free answering path the control node calls (m3_control.answerer / .extractive), on a real store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from m3_control.answerer import Answer, run_query, validate_query
from m3_control.answerers import make_answerer
from m3_control.extractive import NO_MATCH, ExtractiveAnswerer
from m3_memory import MemoryStore

from .ros_helpers import make_demo_store


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[MemoryStore, dict[str, int]]]:
    path: Path = tmp_path_factory.mktemp("answering") / "memory.db"
    ids = make_demo_store(path)
    store = MemoryStore(path, readonly=True)
    yield store, ids
    store.close()


def test_extractive_answer_quotes_translated_best_memories(demo: tuple[MemoryStore, dict[str, int]]) -> None:
    store, ids = demo
    ans = ExtractiveAnswerer(store, topk=2, threshold=0.5, max_memories=3).answer("Where are the car keys?", None, 5)
    assert ans.success and ans.rounds_used == 1 and ans.searches == ["Where are the car keys?"]
    assert ans.cited_memory_ids[0] == ids["keys"]
    assert ans.answer.startswith("[extractive] <character_") and "<face_" not in ans.answer
    json.dumps(ans.trace)  # serialisable as the response's trace_json
    scores = [s["score"] for s in ans.trace["selected"]]
    assert scores == sorted(scores, reverse=True)


def test_extractive_limits_and_no_match(demo: tuple[MemoryStore, dict[str, int]]) -> None:
    store, ids = demo
    one = ExtractiveAnswerer(store, topk=3, threshold=-1.0, max_memories=1).answer("Who reads?", None, 1)
    assert one.cited_memory_ids == [ids["newspaper"]]
    none = ExtractiveAnswerer(store, threshold=0.99).answer("quantum chromodynamics lecture", None, 1)
    assert none.success and none.answer == NO_MATCH and none.cited_memory_ids == []
    early = ExtractiveAnswerer(store, topk=3, threshold=-1.0).answer("Where are the car keys?", 30.0, 1)
    assert set(early.cited_memory_ids) <= {ids["mug"], ids["newspaper"]}


def test_run_query_validates_and_never_raises(demo: tuple[MemoryStore, dict[str, int]], tmp_path: Path) -> None:
    store, _ = demo
    answerer = make_answerer("extractive", store)
    assert validate_query("ok?", 1, 10) == ""
    assert "too long" in run_query(answerer, "x" * 11, None, 1, max_question_chars=10).error
    assert "empty" in run_query(answerer, " \n", None, 1).error
    assert "max_rounds" in run_query(answerer, "ok?", None, 0).error
    with pytest.raises(ValueError, match="unknown answerer"):
        make_answerer("gpt", store)

    make_demo_store(tmp_path / "closed.db")
    closed = MemoryStore(tmp_path / "closed.db", readonly=True)
    closed.close()
    failed = run_query(make_answerer("extractive", closed), "Where are the car keys?", None, 1)
    assert isinstance(failed, Answer) and not failed.success and failed.error
    assert failed.trace["error"] == failed.error
