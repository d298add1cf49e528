"""Parameters of the nodes, ROS-free: names, defaults (which fix each ROS parameter's type) and docs.

The node table, the params-file checks and the nodes themselves all read these, so a parameter is
declared in exactly one place. config/default.yaml documents the same keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


def _p(default: Any, doc: str) -> Any:
    return field(default=default, metadata={"doc": doc})


@dataclass(frozen=True)
class ControlParams:
    db_path: str = _p("", "SQLite memory store to answer from (required; opened read-only)")
    service_name: str = _p("/m3_agent/query", "name of the m3_agent/srv/Query service")
    answerer: str = _p("extractive", "answering backend: extractive (no LLM)")
    max_rounds: int = _p(5, "reasoning rounds when a request sets max_rounds=0")
    topk: int = _p(2, "clips retrieved per search")
    threshold: float = _p(0.5, "minimum clip score for a search result")
    max_answer_memories: int = _p(3, "extractive: memories quoted in the answer")
    max_question_chars: int = _p(4000, "longer questions are refused with success=false")
    autostart: bool = _p(True, "configure and activate on start (false: wait for a lifecycle manager)")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def docs(cls) -> dict[str, str]:
        return {f.name: f.metadata["doc"] for f in fields(cls)}

    def check(self) -> None:
        """Raise ValueError on values no node could run with."""
        if not self.db_path:
            raise ValueError("parameter db_path is not set")
        if not self.service_name:
            raise ValueError("parameter service_name is empty")
        for name in ("max_rounds", "topk", "max_answer_memories", "max_question_chars"):
            if getattr(self, name) < 1:
                raise ValueError(f"parameter {name} must be >= 1, got {getattr(self, name)}")
        if not 1 <= self.max_rounds <= 255:
            raise ValueError(f"parameter max_rounds must be in 1..255, got {self.max_rounds}")
