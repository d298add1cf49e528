"""Parse a memorization model's reply into episodic and semantic memory strings."""

from __future__ import annotations

import json
import re

EPISODIC_KEYS = ("video_descriptions", "video_description", "episodic_memory", "episodic_memories")
SEMANTIC_KEYS = ("high_level_conclusions", "high_level_conclusion", "semantic_memory", "semantic_memories")
MAX_MEMORY_CHARS = 1000
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


class MemoryParseError(ValueError):
    """The reply holds no usable memory JSON."""


def _candidates(text: str) -> list[str]:
    text = text.split("</think>")[-1].strip()
    out = [m.group(1) for m in _FENCE.finditer(text)]
    out.append(text)
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        out.append(text[start : end + 1])
    return out


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    out = []
    for item in value:
        if isinstance(item, str):
            s = " ".join(item.split())
            if s:
                out.append(s[:MAX_MEMORY_CHARS])
    return out


def parse_memory_output(text: str) -> tuple[list[str], list[str]]:
    """(episodic, semantic). Accepts both spellings of the episodic key (the upstream prompt says
    ``video_description``, its parser reads ``video_descriptions``), the prompting baselines' keys, an optional
    ```json fence and a leading <think> block. Raises :class:`MemoryParseError` when nothing usable is found."""
    if not isinstance(text, str) or not text.strip():
        raise MemoryParseError("empty reply")
    for cand in _candidates(text):
        try:
            obj = json.loads(cand)
        except (json.JSONDecodeError, RecursionError):
            continue
        if not isinstance(obj, dict):
            continue
        ep_key = next((k for k in EPISODIC_KEYS if k in obj), None)
        se_key = next((k for k in SEMANTIC_KEYS if k in obj), None)
        if ep_key is None and se_key is None:
            continue
        return _strings(obj.get(ep_key)) if ep_key else [], _strings(obj.get(se_key)) if se_key else []
    raise MemoryParseError(f"no memory JSON object in reply: {text[:200]!r}")
