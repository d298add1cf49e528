"""The demo's replay waits for each answer as long as the control node it starts may take: the node's
``query_timeout_s`` (from the params file the demo writes) plus a margin, and without limit when the node has none
(a big model on CPU), instead of a fixed 180 s that would re-send and then fail a slow but healthy node's answer."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from m3_agent_ros.demo import replay_answer_wait, write_params
from m3_agent_ros.replay import answer_wait_s

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("overrides", "expected"), [
    ({}, 120.0 + 60.0),                                                       # config/default.yaml's 120 s
    ({"m3_agent_control": {"query_timeout_s": 600.0}}, 660.0),               # the node's own section
    ({"/**": {"query_timeout_s": 30.0}}, 180.0),      # every node's section: the node's own (120 s) still wins
    ({"m3_agent_control": {"query_timeout_s": 0.0}}, math.inf),              # no limit at the node: none here
])
def test_the_wait_follows_the_control_nodes_limit(tmp_path: Path, overrides: dict, expected: float) -> None:
    params = write_params(ROOT / "config" / "default.yaml", tmp_path, tmp_path / "memory.db", overrides)
    assert replay_answer_wait(params) == expected


def test_a_limit_plus_its_margin_or_none() -> None:
    assert answer_wait_s(10.0, margin_s=5.0) == 15.0
    assert answer_wait_s(0.0) == math.inf
