"""A generated scene end to end through the nodes: a procedural GRID scene (seed outside the tune and report splits)
built into a bag with the project's library, replayed over DDS through the memorization and control nodes, every
question kind asked once over the Query service and judged strictly against references derived from the scene
definition. Questions memory cannot answer must be declined, never answered about somebody else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from m3_agent_ros.bags.procedural import make_scene
from m3_agent_ros.bags.procedural_bag import build_bag
from m3_agent_ros.bags.procedural_questions import REPORT_SEEDS, TUNE_SEEDS
from m3_agent_ros.demo import main as demo_main

pytestmark = [pytest.mark.ros, pytest.mark.slow, pytest.mark.once]   # once: see .ci/run
GRID = Path(__file__).resolve().parents[2] / "shared" / "data" / "grid_talking_faces"
SEED = 300


# bag build + memorization + the model's load and warm-up + every question: ~2.5 min alone on 2 cores, over 600 s
# once on a loaded CI machine (cut off while waiting for an answer, so no log was printed); a dead node or an
# answer that does not come now fails the replay itself (replay.py), well inside this limit, with the logs
@pytest.mark.timeout(1200)
def test_generated_scene_through_the_nodes(tmp_path: Path) -> None:
    pytest.importorskip("dlib")
    if not GRID.is_dir():
        pytest.skip(f"{GRID} is not there")
    assert SEED not in TUNE_SEEDS and SEED not in REPORT_SEEDS
    bag = build_bag(make_scene(SEED, GRID), tmp_path / "scene", GRID, phrasings={0})
    out = tmp_path / "out"
    rc = demo_main(["--bag", str(bag), "--out", str(out), "--rate", "4"])
    assert rc == 0, (out / "memorization_node.log").read_text()[-3000:] + (out / "control_node.log").read_text()[-3000:]
    lost = json.loads((out / "summary.json").read_text())["input_not_memorized"]
    # the node waits for a stream that lags but delivers (clips.py): no microphone audio may miss its clip (under
    # load the audio callbacks once starved behind the camera's and clip 0 kept 3.4 s of its 30 s of audio)
    assert not [k for k in lost if k.endswith(" late")], lost
    rows = [json.loads(x) for x in (out / "answers.jsonl").read_text().splitlines()]
    questions = json.loads((bag / "questions.json").read_text())["questions"]
    assert len(rows) == len(questions) >= 30
    assert all(r["success"] and r["answer_source"] == "model" for r in rows), [
        (r["question_id"], r["answer_source"], r["error"]) for r in rows if r["answer_source"] != "model"]
    unanswerable = [r for r in rows if "unanswerable" in (r.get("types") or [])]
    assert unanswerable and all(r["correct"] for r in unanswerable), [
        (r["question"], r["answer"]) for r in unanswerable if not r["correct"]]
    right = sum(r["correct"] for r in rows)
    wrong = [(r["question"], r["answer"], r["reference"]) for r in rows if not r["correct"]]
    # one scene through the nodes, perception included (speech recognition mis-hears one GRID sentence; voices may
    # split): the ROS-free report split measures 80 % over eight scenes; below 60 % here something is broken (a
    # question asked before the last clip was visible scored 38 %)
    assert right >= 0.6 * len(rows), (wrong, lost)
