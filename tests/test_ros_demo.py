"""The README's main job end to end: the bundled bag through both nodes, questions over the Query service, answered
by the embedded reasoning default (the real model, not the fallback) and judged strictly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from m3_agent_ros.demo import main as demo_main

pytestmark = [pytest.mark.ros, pytest.mark.slow, pytest.mark.once]   # once (.ci/run): on Jazzy the same bag goes
# through the same demo as a robot's own recording (tests/test_ros_robot_time.py)
BAG = Path(__file__).resolve().parents[1] / "rosbags" / "demo" / "grid_scene"


@pytest.mark.timeout(900)   # model load + warm-up of the query prompt's 51 few-shot turns is ~50 s of the run
def test_demo_bag_through_the_nodes(tmp_path: Path) -> None:
    pytest.importorskip("dlib")
    out = tmp_path / "demo"
    # the README's speed (4x): at 6x on 2 busy cores the camera callbacks starved (45 frames lost, counted as such),
    # which changed the clips' faces and failed the perception checks below in one CI run out of two
    rc = demo_main(["--bag", str(BAG), "--out", str(out), "--rate", "4"])
    assert rc == 0, (out / "memorization_node.log").read_text()[-3000:] + (out / "control_node.log").read_text()[-3000:]
    rows = [json.loads(x) for x in (out / "answers.jsonl").read_text().splitlines()]
    summary = json.loads((out / "summary.json").read_text())
    questions = json.loads((BAG / "questions.json").read_text())["questions"]
    assert sorted(r["question_id"] for r in rows) == sorted(q["question_id"] for q in questions)
    assert all(r["success"] and not r["error"] for r in rows)
    assert summary["accuracy"] == sum(r["correct"] for r in rows) / len(rows)
    # real perception on the real scene: five people, each face joined to a voice
    assert summary["memory"]["face"] == 5
    assert 5 <= summary["memory"]["voice"] <= 7
    assert summary["clips"] == 4 and summary["memorization_rtf"] < 1.0
    # the model reasons: most answers are its own, and the person questions (counts, order, identity) are
    # computed from the turn records, whatever speech recognition made of the words
    assert summary["answer_sources"]["model"] >= 0.8 * len(rows)
    by_id = {r["question_id"]: r for r in rows}
    person = [by_id[q] for q in ("demo_P01", "demo_P02", "demo_P03", "demo_P04", "demo_P05", "demo_P06",
                                 "demo_P07", "demo_P12")]
    wrong = [(r["question_id"], r["answer"], r["judge_detail"]) for r in person if not r["correct"]]
    assert len(wrong) <= 2, wrong  # perception varies a little with replay timing; the reasoning must not
    # every answer that states something cites what it came from; an honest "I don't remember ..." cites nothing
    from m3_control.evaluation.judge import _ABSTAIN, _plain

    assert all(r["cited_memory_ids"] for r in rows if r["answer_source"] == "model"
               and not _ABSTAIN.search(_plain(r["answer"])))
    html = (out / "report.html").read_text()
    assert (out / "accuracy_per_type.png").exists() and "<table" in html and "demo_P01" in html
    # speech too short to attribute, or given no speaker, is counted by the node in the gaps table, as many turns as
    # the clips report
    import sqlite3

    conn = sqlite3.connect(out / "memory.db")
    for cause in ("short_speech", "unattributed_speech"):
        reported = sum(json.loads(x or "{}").get(cause, {}).get("turns", 0)
                       for (x,) in conn.execute("SELECT extra FROM clips"))
        counted = conn.execute("SELECT coalesce(sum(count), 0) FROM gaps WHERE cause = ?", (cause,)).fetchone()[0]
        assert counted == reported, (cause, counted, reported)
    # every person is joined face to voice (five characters with both)
    chars = conn.execute("SELECT count(*) FROM nodes WHERE is_equivalence = 1").fetchone()[0]
    assert chars >= 5
