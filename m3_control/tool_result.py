"""What an entity tool returns: a template answer, the facts behind it and the turn records it used."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from m3_memory.people import Turn


class ToolError(ValueError):
    """A call that cannot run: unknown tool, wrong arguments (reported back to the model, never raised out)."""


@dataclass
class ToolResult:
    call: str
    answer: str                                  # a short sentence, phrased by a template
    facts: list[str] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)   # provenance: the turn records used
    value: Any = None
    resolved: dict[str, Any] = field(default_factory=dict)

    @property
    def memory_ids(self) -> list[int]:
        return list(dict.fromkeys(m for t in self.turns for m in t.memory_ids))

    def provenance(self) -> list[dict[str, Any]]:
        return [{"turn_id": t.id, "turn_ids": list(t.row_ids), "kind": t.kind, "clip_id": t.clip_id,
                 "character_id": t.character_id,
                 "start": round(t.start, 2), "end": round(t.end, 2), "text": t.text, "memory_ids": list(t.memory_ids)}
                for t in self.turns]
