"""The reasoning loop over a real store, driven by scripted model replies (a stand-in model for unit tests)."""

from __future__ import annotations

import json

import pytest

from m3_control.backends.base import ChatError
from m3_control.loop import ReasoningLoop
from m3_control.protocol_text import EMPTY_RESULT_HINT, FINAL_ROUND_NOTE

from .store_helpers import kitchen_store


class Scripted:
    name = "scripted"
    supports_stop = supports_grammar = False

    def __init__(self, replies):
        self.replies = list(replies)
        self.seen: list[list[dict]] = []

    def complete(self, messages):
        self.seen.append([dict(m) for m in messages])
        if not self.replies:
            raise ChatError("script exhausted")
        return self.replies.pop(0)


def S(q):  # noqa: N802
    return f"<think>hmm</think>Action: [Search]\nContent: {q}"


def A(a):  # noqa: N802
    return f"Action: [Answer]\nContent: {a}"


@pytest.fixture
def kitchen(db_at):
    return kitchen_store(db_at("m.db"))


def test_search_then_answer_shows_translated_memories_of_the_right_clip(kitchen):
    store, ids = kitchen
    model = Scripted([S("Where are the car keys?"), A("In the top drawer.")])
    ans = ReasoningLoop(store, model).run("Where are the car keys?")
    assert ans.answer == "In the top drawer." and ans.rounds_used == 2 and not ans.error
    shown = model.seen[1][-1]["content"]
    result = json.loads(shown[len("Searched knowledge: "): shown.index("\n\nOutput the answer")])
    assert "CLIP_2" in result
    bob = store.characters().character_of(ids["bob_face"])
    assert f"<character_{bob}> puts the car keys in the top drawer." in result["CLIP_2"]
    assert "<face_" not in shown and "<voice_" not in shown
    assert ids["m_keys"] in ans.cited_memory_ids  # shown to the model (the plain protocol has no citations)
    assert ans.searches == ["Where are the car keys?"]


def test_repeated_query_is_flagged_and_gets_the_empty_hint(kitchen):
    store, _ = kitchen
    model = Scripted([S("car keys drawer"), S("car keys drawer"), A("drawer")])
    ans = ReasoningLoop(store, model, topk=3, threshold=0.0).run("Where are the keys?")
    assert ans.trace["counts"]["repeated_query"] == 1
    second_result = model.seen[2][-1]["content"]
    assert ans.trace["rounds"][1]["results"] == 0 and EMPTY_RESULT_HINT in second_result


def test_character_id_query_returns_node_level_results(kitchen):
    store, ids = kitchen
    model = Scripted([S("What is the character id of the person who waters the plant"), A("Bob")])
    ans = ReasoningLoop(store, model).run("Who waters the plant?")
    r = ans.trace["rounds"][0]
    assert r["results"] > 2 and len(r["result"]) >= 2  # memories from several clips, node by node


def test_garbage_is_counted_and_the_last_round_forces_an_answer(kitchen):
    store, _ = kitchen
    model = Scripted(["I dunno", "Action: [Answer]\nContent:   ", S("keys"), "still nothing", A("Not sure.")])
    ans = ReasoningLoop(store, model).run("Where are the keys?", max_rounds=5)
    assert ans.answer == "Not sure." and ans.rounds_used == 5
    assert ans.trace["counts"]["invalid"] == 3
    assert model.seen[4][-1]["content"].endswith(FINAL_ROUND_NOTE)
    assert all(not m[-1]["content"].endswith(FINAL_ROUND_NOTE) for m in model.seen[:4])


def test_no_answer_and_backend_failure_are_errors_not_crashes(kitchen):
    store, _ = kitchen
    ans = ReasoningLoop(store, Scripted(["x", "y"])).run("q", max_rounds=2)
    assert ans.error == "no answer after 2 rounds" and ans.answer == ""
    ans = ReasoningLoop(store, Scripted([])).run("q")
    assert "model backend failed" in ans.error


def test_time_bound_hides_later_clips(kitchen):
    store, _ = kitchen
    model = Scripted([S("Where are the car keys?"), S("car keys top drawer"), A("unknown")])
    ans = ReasoningLoop(store, model, threshold=0.0).run("Where are the keys?", before_time=60.0)
    for r in ans.trace["rounds"]:
        assert all(k in ("CLIP_0", "CLIP_1") for k in r.get("result", {}))


def test_ids_in_answers_become_names_or_someone_and_long_answers_are_cut(kitchen):
    store, ids = kitchen
    alice = store.characters().character_of(ids["alice_face"])
    bob = store.characters().character_of(ids["bob_face"])
    store.set_character_name(alice, "Alice")
    reply = A(f"<character_{alice}> gave it to <character_{bob}> (<face_{ids['bob_face']}>)")
    ans = ReasoningLoop(store, Scripted([reply])).run("who?")
    assert ans.answer == "Alice gave it to someone (someone)"
    assert "id_in_answer" in ans.trace["rounds"][0]["flags"]
    ans = ReasoningLoop(store, Scripted([A("x" * 5000)]), max_answer_chars=100).run("q")
    assert len(ans.answer) <= 104 and "truncated_answer" in ans.trace["rounds"][0]["flags"]


def test_cancel_from_the_round_callback(kitchen):
    store, _ = kitchen
    seen = []
    ans = ReasoningLoop(store, Scripted([S("keys"), A("x")])).run("q", on_round=lambda i: (seen.append(i), False)[1])
    assert ans.error == "cancelled" and len(seen) == 1 and seen[0].action == "search"
