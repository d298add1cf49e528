"""Control-only evaluation on an upstream-layout memory-graph pickle (m3-bench graphs)."""

from __future__ import annotations

import json

from m3_agent_ros.bench import main as bench_main

from .fixtures_upstream import build_upstream_pickle


def test_graphs_path_answers_with_the_memory_of_the_question_time(tmp_path):
    graphs = tmp_path / "graphs"
    graphs.mkdir()
    build_upstream_pickle(graphs / "kitchen_01.pkl")
    ann = {"kitchen_01": {"qa_list": [
        {"question_id": "kitchen_01_Q01", "question": "Where are the car keys?", "answer": "top drawer",
         "timestamp": "01:35", "type": ["Multi-Detail Reasoning"]},
        {"question_id": "kitchen_01_Q02", "question": "Where are the car keys?", "answer": "top drawer",
         "timestamp": "00:45", "type": ["Multi-Detail Reasoning"]},
        {"question_id": "kitchen_01_Q03", "question": "What coffee does she like?", "answer": "black coffee",
         "timestamp": "00:59", "type": ["Person Understanding"]},
    ]}}
    (tmp_path / "robot.json").write_text(json.dumps(ann))
    out = tmp_path / "out"
    rc = bench_main(["graphs", "--annotations", str(tmp_path / "robot.json"), "--graphs", str(graphs),
                     "--out", str(out), "--answerer", "extractive", "--reembed"])
    assert rc == 0
    rows = {r["question_id"]: r for r in map(json.loads, (out / "answers.jsonl").read_text().splitlines())}
    # the extractive answerer quotes several memories, which the strict judge rejects: check what was found
    assert "drawer" in rows["kitchen_01_Q01"]["answer"]   # asked after clip 2 (the keys) ended
    assert not rows["kitchen_01_Q02"]["correct"]          # asked during clip 1: the keys are not known yet
    assert "drawer" not in rows["kitchen_01_Q02"]["answer"]
    assert "black coffee" in rows["kitchen_01_Q03"]["answer"].lower()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["questions"] == 3 and summary["per_type"]["Person Understanding"]["n"] == 1
    # resumable: a second run answers nothing new and keeps the results
    assert bench_main(["graphs", "--annotations", str(tmp_path / "robot.json"), "--graphs", str(graphs),
                       "--out", str(out), "--answerer", "extractive"]) == 0
    assert json.loads((out / "summary.json").read_text())["questions"] == 3
