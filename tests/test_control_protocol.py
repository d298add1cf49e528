"""The M3-Agent-Control protocol: reply parsing on recorded replies and byte-exact conversation building."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from m3_control.protocol import add_round_instruction, initial_messages, parse_reply, search_result_message
from m3_control.protocol_text import EMPTY_RESULT_HINT, FINAL_ROUND_NOTE, INSTRUCTION, SYSTEM_PROMPT

REPLIES = Path(__file__).parent / "recorded_replies"
UPSTREAM = Path("/work/.mirror/ByteDance-Seed+m3-agent/repo")


def reply(name: str) -> str:
    return (REPLIES / f"{name}.txt").read_text()


@pytest.mark.parametrize("name,action,content", [
    ("answer", "answer", "In the top drawer."),
    ("search", "search", "Where did someone put the car keys?"),
    ("decoy_in_think", "search", "What is the character id of Alice"),
    ("malformed", "invalid", ""),
    ("empty_content", "invalid", ""),
    ("multiple_content", "search", "second query"),  # upstream's greedy regex keeps the last Content
])
def test_parse_recorded_replies(name, action, content):
    p = parse_reply(reply(name))
    assert (p.action, p.content) == (action, content)
    assert p.raw == reply(name)


def test_parse_edge_cases():
    assert parse_reply(None).action == "invalid"
    assert parse_reply("Action: [answer]\nContent: x").action == "search"  # case-sensitive, as upstream
    assert parse_reply("Action: [Answer] [sic]\nContent: y").action == "search"  # greedy action match


def test_conversation_layout():
    m = initial_messages("Where are {the} keys?")
    assert m[0] == {"role": "system", "content": SYSTEM_PROMPT.replace("{question}", "Where are {the} keys?")}
    assert m[0]["content"].endswith("\n\nQuestion: Where are {the} keys?")
    assert m[1] == {"role": "user", "content": "Searched knowledge: {}"}
    add_round_instruction(m, final_round=False)
    assert m[1]["content"] == "Searched knowledge: {}" + INSTRUCTION and FINAL_ROUND_NOTE not in m[1]["content"]
    m.append({"role": "assistant", "content": "Action: [Search]\nContent: keys"})
    m.append(search_result_message({"CLIP_2": ["<character_1> puts the keys in the drawer."]}))
    assert m[-1]["content"] == 'Searched knowledge: {"CLIP_2": ["<character_1> puts the keys in the drawer."]}'
    add_round_instruction(m, final_round=True)
    assert m[-1]["content"].endswith(INSTRUCTION + FINAL_ROUND_NOTE)
    assert search_result_message({})["content"] == "Searched knowledge: {}" + EMPTY_RESULT_HINT
    assert json.loads(search_result_message({"CLIP_1": ["é"]})["content"][len("Searched knowledge: "):]) == {
        "CLIP_1": ["é"]}
    assert "é" in search_result_message({"CLIP_1": ["é"]})["content"]  # ensure_ascii=False as upstream


@pytest.mark.skipif(not UPSTREAM.exists(), reason="upstream mirror not available")
def test_strings_are_byte_identical_to_upstream():
    src = subprocess.run(["git", "-C", str(UPSTREAM), "show", "HEAD:m3_agent/control.py"], capture_output=True,
                         text=True, check=True).stdout
    ns: dict = {}
    start = src.index("system_prompt = ")
    exec(src[start : src.index("tokenizer = ", start)], ns)  # the two string assignments only
    assert ns["system_prompt"] == SYSTEM_PROMPT and ns["instruction"] == INSTRUCTION
    assert json.dumps(FINAL_ROUND_NOTE)[1:-1] in src and json.dumps(EMPTY_RESULT_HINT)[1:-1] in src


def test_tool_actions_are_recognised_by_the_parser():
    p = parse_reply("Action: [Tool]\nContent: count_people()")
    assert (p.action, p.name, p.content) == ("tool", "Tool", "count_people()")
    assert parse_reply("Action: [Timeline]\nContent: <character_2>").action == "tool"
    assert parse_reply("Action: [Search]\nContent: keys").name == "Search"
    assert parse_reply("Action: [Tool]\nContent: ").action == "invalid"
