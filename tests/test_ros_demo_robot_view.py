"""The demo's second scene end to end: a robot's view (two or three people in view at once, a panning camera, a
room's echo and noise, two signs, a silent onlooker who smiles) through both nodes; what the signs said, who was in
view with whom and how the onlooker looked, asked over the Query service and judged strictly against the scene's
definition."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from m3_agent_ros.demo import BAGS
from m3_agent_ros.demo import main as demo_main

pytestmark = [pytest.mark.ros, pytest.mark.slow, pytest.mark.once]   # once: see .ci/run
BAG = BAGS[1]


@pytest.mark.timeout(900)
def test_the_robot_view_scene_through_the_nodes(tmp_path: Path) -> None:
    pytest.importorskip("dlib")
    pytest.importorskip("rapidocr_onnxruntime")
    out = tmp_path / "demo"
    # 2x, not the demo's 4x: on Jazzy (Fast DDS) 100-150 of the 229 camera frames were lost in transport at 4x
    # (best-effort, sensor-data QoS; counted and reported as lost), and this test is about the scene, not the link
    rc = demo_main(["--bag", str(BAG), "--out", str(out), "--rate", "2"])
    assert rc == 0, (out / "memorization_node.log").read_text()[-3000:] + (out / "control_node.log").read_text()[-3000:]
    rows = {json.loads(x)["question_id"]: json.loads(x) for x in (out / "answers.jsonl").read_text().splitlines()}
    questions = json.loads((BAG / "questions.json").read_text())["questions"]
    assert sorted(rows) == sorted(q["question_id"] for q in questions)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["memorization_rtf"] < 1.0 and summary["memory"]["face"] >= 4
    # the signs: read off the wall by the embedded OCR, kept with the clip, found by a search and answered exactly
    signs = [r for q, r in rows.items() if "_T" in q]
    assert len(signs) == 2 and all(r["correct"] for r in signs), [(r["question"], r["answer"]) for r in signs]
    import sqlite3

    conn = sqlite3.connect(out / "memory.db")
    read = {s["text"] for (x,) in conn.execute("SELECT extra FROM clips")
            for s in json.loads(x or "{}").get("scene_text", {}).get("sightings", [])}
    assert {"ROOM D4", "GATE D9"} <= read
    # who was in view with whom: the face records answer (a query with rel=with), never a search by meaning
    company = [r for q, r in rows.items() if "_G" in q]
    assert all(any("rel=with" in (rd.get("query") or "") for rd in r["trace"]["rounds"]) for r in company), \
        [(r["question"], [rd.get("query") or rd.get("content") for rd in r["trace"]["rounds"]]) for r in company]
    # measured 8/8 (2026-11-27); 6/8 while a voice heard once for 1.5 s fell short of the face = voice link's
    # evidence: speech recognition and the links vary a little with replay timing
    assert sum(r["correct"] for r in company) >= 4, [(r["question"], r["answer"]) for r in company]
    # how people looked: the onlooker's smile is kept with her face's appearances and she is named by it in the
    # frame of every question about her (measured 4/4, 2026-11-27)
    assert conn.execute("SELECT count(*) FROM turns WHERE kind = 'face' AND text = 'looks happy'").fetchone()[0] >= 1
    looks = [r for q, r in rows.items() if "_E" in q]
    assert len(looks) >= 3 and all(any("looked happy" in (rd.get("query") or "") for rd in r["trace"]["rounds"])
                                   for r in looks), [(r["question"], r["trace"]["rounds"]) for r in looks]
    assert sum(r["correct"] for r in looks) >= 3, [(r["question"], r["answer"]) for r in looks]
