"""The strict judge beside a second judge: counts, agreement rate and Cohen's kappa."""

from __future__ import annotations

import pytest

from m3_control.evaluation.agreement import agreement, agreement_table, second_opinion
from m3_control.evaluation.judge import StrictMatchJudge


def test_agreement_counts_and_kappa() -> None:
    rows = [{"correct": a, "llm_correct": b} for a, b in
            [(True, True)] * 6 + [(False, False)] * 2 + [(True, False)] * 1 + [(False, True)] * 1]
    s = agreement(rows)
    assert (s["n"], s["both_correct"], s["both_wrong"], s["only_first"], s["only_second"]) == (10, 6, 2, 1, 1)
    assert s["agreement"] == pytest.approx(0.8)
    # chance agreement: p1 = p2 = 0.7 -> 0.7*0.7 + 0.3*0.3 = 0.58; kappa = (0.8 - 0.58) / 0.42
    assert s["kappa"] == pytest.approx(0.22 / 0.42)
    table = agreement_table(s, "strict", "LLM")
    assert "| strict | 7 / 10 | 70.0 % |" in table and "Agreement: 8 of 10 (80.0 %" in table
    assert agreement([])["agreement"] is None and "no questions" in agreement_table(agreement([]), "a", "b")


def test_second_opinion_adds_the_other_judges_verdicts() -> None:
    rows = [{"question": "How many people spoke?", "reference": "3", "answer": "Three people.", "correct": False},
            {"question": "How many people spoke?", "reference": "3", "answer": "Five people.", "correct": False}]
    second_opinion(rows, StrictMatchJudge(), key="strict2")
    assert [r["strict2_correct"] for r in rows] == [True, False]
    assert rows[1]["strict2_detail"].startswith("wrong count")
    s = agreement(rows, "correct", "strict2_correct")
    assert (s["both_wrong"], s["only_second"]) == (1, 1)
