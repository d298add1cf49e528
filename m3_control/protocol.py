"""The M3-Agent-Control conversation: messages, per-round instructions, reply parsing, search-result turns.

Parsing follows upstream's regex on the text after the last ``</think>`` (greedy, DOTALL: the action lies between
the first ``Action: [`` and the last ``]`` followed by ``Content: ``), with defined outcomes where upstream had
none: no match or empty content -> ``invalid`` (upstream searched with ``None``); a tool action (``[Tool]``,
``[Query]``, ``[Characters]``, ``[Timeline]``, ``[Who]``; any case) -> ``tool``; any other action than ``Answer`` ->
``search`` (as upstream).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .protocol_text import (
    ACTION_PATTERN,
    EMPTY_RESULT_HINT,
    FINAL_ROUND_NOTE,
    INITIAL_KNOWLEDGE,
    INSTRUCTION,
    SEARCHED_KNOWLEDGE,
    SYSTEM_PROMPT,
)

_ACTION = re.compile(ACTION_PATTERN, re.DOTALL)
TOOL_ACTIONS = ("tool", "query", "characters", "timeline", "who")


@dataclass
class ParsedReply:
    action: str          # answer | search | tool | invalid
    content: str
    raw: str
    reason: str = ""     # why a reply is invalid
    name: str = ""       # the action as written (a tool action's name selects the tool)


def parse_reply(text: str | None) -> ParsedReply:
    raw = text or ""
    tail = raw.split("</think>")[-1]
    m = _ACTION.search(tail)
    if not m:
        return ParsedReply("invalid", "", raw, "no 'Action: [...] ... Content: ...' in the reply")
    return reply_of(m.group(1), m.group(2), raw)


def reply_of(action: str, content: str, raw: str) -> ParsedReply:
    """A reply's action as written and its content, classified: empty content -> ``invalid``, a tool action ->
    ``tool``, ``Answer`` -> ``answer``, anything else -> ``search`` (as upstream)."""
    content = content.strip()
    if not content:
        return ParsedReply("invalid", "", raw, "empty content", action.strip())
    kind = "tool" if action.strip().lower() in TOOL_ACTIONS else "answer" if action == "Answer" else "search"
    return ParsedReply(kind, content, raw, name=action.strip())


def initial_messages(question: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM_PROMPT.replace("{question}", question)},
            {"role": "user", "content": INITIAL_KNOWLEDGE}]


def add_round_instruction(messages: list[dict[str, str]], final_round: bool) -> None:
    """Append the instruction (and on the last round the forced-answer note) to the last user message."""
    last = messages[-1]
    if last["role"] != "user":
        raise ValueError("the conversation must end with a user message before a round")
    last["content"] += INSTRUCTION + (FINAL_ROUND_NOTE if final_round else "")


def search_result_message(result: dict[str, list[str]]) -> dict[str, str]:
    text = SEARCHED_KNOWLEDGE + json.dumps(result, ensure_ascii=False)
    if not result:
        text += EMPTY_RESULT_HINT
    return {"role": "user", "content": text}
