"""The README's main job end to end: the bundled bag through both nodes, questions over the Query service."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from m3_agent_ros.demo import main as demo_main

pytestmark = [pytest.mark.ros, pytest.mark.slow]
BAG = Path(__file__).resolve().parents[1] / "rosbags" / "demo" / "grid_scene"


def test_demo_bag_through_the_nodes(tmp_path: Path) -> None:
    pytest.importorskip("dlib")
    out = tmp_path / "demo"
    rc = demo_main(["--bag", str(BAG), "--out", str(out), "--rate", "6", "--answerer", "extractive"])
    assert rc == 0, (out / "memorization_node.log").read_text()[-3000:]
    rows = [json.loads(x) for x in (out / "answers.jsonl").read_text().splitlines()]
    summary = json.loads((out / "summary.json").read_text())
    questions = json.loads((BAG / "questions.json").read_text())["questions"]
    assert [r["question_id"] for r in rows] == [q["question_id"] for q in questions]
    assert all(r["success"] and not r["error"] for r in rows)
    assert summary["accuracy"] == sum(r["correct"] for r in rows) / len(rows)
    # real perception on the real scene: five people, each face joined to a voice
    assert summary["memory"]["face"] == 5
    assert 5 <= summary["memory"]["voice"] <= 7
    assert summary["clips"] == 4 and summary["memorization_rtf"] < 1.0
    # the answers come from what was heard: the clearly transcribed sentences are found
    by_id = {r["question_id"]: r for r in rows}
    assert by_id["demo_Q03"]["correct"] and by_id["demo_Q08"]["correct"]
    assert (out / "report.html").exists() and (out / "accuracy_per_type.png").exists()
