import json

import pytest

from m3_control.evaluation.judge import LLMJudge, NormalizedMatchJudge, StrictMatchJudge, make_judge, normalize_words
from m3_control.evaluation.judge_prompt import JUDGE_PROMPT
from m3_control.evaluation.report import markdown_table, summarize, write_report


def test_normalized_match_judge():
    j = NormalizedMatchJudge()
    assert j.judge("q", "Coffee.", "They all drink coffee in the morning").correct
    assert j.judge("q", "Two cups", "She drank 2 cups.").correct
    assert not j.judge("q", "Marketing staff.", "She works in sales").correct
    assert not j.judge("q", "Coffee", "").correct
    assert normalize_words("The man's RED folder!") == ["mans", "red", "folder"]
    assert j.judge("q", "lay blue at x four now", '<character_0> says: "Lay blue at X4 now."').correct
    assert isinstance(make_judge(None), StrictMatchJudge)  # the lenient judge is no longer the default


def test_judge_prompt_is_the_papers():
    p = JUDGE_PROMPT.format(question="Q?", ground_truth_answer="GT", agent_answer="AA")
    assert "question: Q?" in p and "ground_truth_answer: GT" in p and p.endswith("Output ('Yes' or 'No'):")


def test_llm_judge_unreachable_counts_as_wrong():
    j = LLMJudge("http://127.0.0.1:9/v1", "judge", retries=0, timeout_s=1)
    v = j.judge("q", "a", "a")
    assert not v.correct and "judge failed" in v.detail


def test_summary_is_multi_label_and_report_files(tmp_path):
    recs = [
        {"question_id": "a", "types": ["Person Understanding", "Cross-Modal Reasoning"], "correct": True,
         "latency_s": 0.1, "question": "who?", "answer": "Anna", "reference": "Anna", "time": 10.0},
        {"question_id": "b", "types": ["Person Understanding"], "correct": False, "latency_s": 0.3,
         "question": "<b>?", "answer": "", "error": "boom", "reference": "x", "time": 20.0},
    ]
    s = summarize(recs, "normalized-match", {"memorization_rtf": 0.4})
    assert s["accuracy"] == 0.5 and s["errors"] == 1
    assert s["per_type"]["Person Understanding"] == {"n": 2, "correct": 1, "accuracy": 0.5}
    assert s["per_type"]["Cross-Modal Reasoning"]["accuracy"] == 1.0
    assert "Multi-Hop Reasoning" not in s["per_type"]
    assert s["latency_s"]["p50"] == pytest.approx(0.2)
    md = markdown_table(s)
    assert "| **overall** | 2 | 50.0 % |" in md and "real-time factor: 0.40" in md
    page = write_report(recs, s, tmp_path)
    text = page.read_text()
    assert "&lt;b&gt;?" in text and "data:image/png;base64," in text
    assert (tmp_path / "accuracy_per_type.png").stat().st_size > 1000
    assert [json.loads(x)["question_id"] for x in (tmp_path / "answers.jsonl").read_text().splitlines()] == ["a", "b"]
