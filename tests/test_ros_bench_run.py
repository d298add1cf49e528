"""m3-bench run: a folder of bags through the nodes, aggregated report, resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from m3_agent_ros.bench import main as bench_main

pytestmark = [pytest.mark.ros, pytest.mark.slow, pytest.mark.once]   # once: see .ci/run
BAGS = Path(__file__).resolve().parents[1] / "rosbags" / "demo"


def test_bench_run_reports_and_resumes(tmp_path: Path) -> None:
    pytest.importorskip("dlib")
    out = tmp_path / "bench"
    args = ["run", str(BAGS), "--out", str(out), "--rate", "6", "--answerer", "extractive"]
    assert bench_main(args) == 0, (out / "grid_scene.log").read_text()[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    rows = [json.loads(x) for x in (out / "answers.jsonl").read_text().splitlines()]
    questions = json.loads((BAGS / "grid_scene" / "questions.json").read_text())["questions"]
    assert summary["bags"] == 1 and summary["questions"] == len(rows) == len(questions)
    assert summary["memorization_rtf"] < 1.0 and summary["failed_bags"] == 0
    assert (out / "report.html").exists()
    stamp = (out / "bags" / "grid_scene" / "summary.json").stat().st_mtime
    assert bench_main(args) == 0  # resumed: the finished bag is not replayed again
    assert (out / "bags" / "grid_scene" / "summary.json").stat().st_mtime == stamp
