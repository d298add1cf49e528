"""The embedded default reasons for real: Qwen2.5-Coder-1.5B under the query grammar, on a real store.

Every reply must parse, person questions must be answered by an executed query (not by the fallback), and the
answer must be the computed fact. A handful of questions only: each costs about a second on a 2-core CPU after the
warm-up.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest

from m3_control.m3_answerer import M3Answerer
from m3_control.prompt_tools import parse_tools_reply as parse_reply
from m3_memory.packaged_models import DEFAULT_MODEL, PACKAGED_MODELS

from .people_helpers import meeting_store

_MISSING = [req for mod, req in PACKAGED_MODELS[DEFAULT_MODEL].packages if importlib.util.find_spec(mod) is None]
pytestmark = [
    pytest.mark.once,   # the same model and numerics on every Python (.ci/run)
    pytest.mark.skipif(importlib.util.find_spec("xllamacpp") is None, reason="xllamacpp not installed"),
    pytest.mark.skipif(bool(_MISSING), reason="the packaged model's chunk packages are not installed"),
]


@pytest.fixture(scope="module")
def answerer(tmp_path_factory) -> Iterator[M3Answerer]:
    store, _ = meeting_store(tmp_path_factory.mktemp("real") / "m.db")
    ans = M3Answerer(store, backend={"backend": "embedded", "max_tokens": 64}, prompt="tools")
    assert ans.load() == ""
    yield ans
    ans.backend.close()  # type: ignore[attr-defined]
    store.close()


@pytest.mark.parametrize(("question", "at", "frame", "expect"), [
    ("How many different people did I meet?", 91.0, "find=count_people", "4 different people"),
    ("How many times did Ann speak?", 91.0, "find=count_times", "Ann spoke 4 times."),
    ("Did the person who said 'the coffee machine is broken' speak before the one who said 'I will call the "
     "technician'?", 91.0, "rel=before", "Yes"),
    ("Who spoke the least?", 91.0, "pick=least", "coffee machine is broken"),
    ("How many people had I seen by then?", 31.0, "find=count_people", "2 different people"),
    ("Did the person who said 'I will call the technician' speak after the one who said 'the coffee machine is "
     "broken'?", 91.0, "rel=after", "Yes"),
    ("Who spoke more often, Ann or the person who said 'I will call the technician'?", 91.0, "find=more",
     "Ann spoke more often."),   # the one who did, in few words (the counts are in the trace)
    ("Are the person who said 'bye everyone' and the person who said 'see you tomorrow' different people?", 91.0,
     "find=same", "Yes, they are two different people."),
    ("Who spoke exactly three times?", 91.0, "times=3", "technician"),   # a kind no former tool had
    ("Did anyone say 'the printer is out of paper'?", 91.0, "find=yes", "No, I never heard anyone say"),
])
def test_person_questions_are_answered_by_an_executed_query(answerer: M3Answerer, question, at, frame,
                                                             expect) -> None:
    a = answerer.answer(question, at, 3)
    replies = [r["reply"] for r in a.trace["rounds"]]
    assert all(parse_reply(r).action != "invalid" for r in replies), replies
    assert a.trace["answer_source"] == "model", a.trace
    assert frame in a.trace["rounds"][-1].get("query", ""), replies
    assert expect in a.answer, a.answer


def test_content_question_picks_a_shown_memory_or_says_none(answerer: M3Answerer) -> None:
    a = answerer.answer("What did someone say about the coffee machine?", 91.0, 3)
    assert a.trace["answer_source"] == "model"
    assert a.answer == 'Someone said "The coffee machine is broken".', a.trace["rounds"]
    assert len(a.cited_memory_ids) == 1
    a = answerer.answer("What did someone say about the coffee machine?", 5.0, 3)   # nothing said yet
    assert a.answer == "I have no memory of that." and a.cited_memory_ids == []
