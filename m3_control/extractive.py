"""Answer from memory without an LLM: one search round, the best supporting memories are the answer.

The question itself is the (only) search query. ``search_clips`` picks the clips above ``threshold``
(the upstream control loop's retrieval); the memories of those clips are ranked by their own similarity
to the question (``Memory.score`` or, where the store leaves it unset, ``search_nodes``) and the best
``max_memories`` are returned, translated from raw ``<face_N>``/``<voice_N>`` ids to ``<character_k>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from m3_control.answerer import Answer, ClipHitLike, MemoryLike, SearchableStore
from m3_control.robot_provenance import add_robots, robots_of

PREFIX = "[extractive]"
NO_MATCH = f"{PREFIX} No stored memory matches the question."


@dataclass
class _Candidate:
    memory: MemoryLike
    clip_score: float
    score: float  # the memory's own similarity to the question (-1 when unknown)
    text: str  # translated


class ExtractiveAnswerer:
    """LLM-free answerer over a :class:`~m3_control.answerer.SearchableStore`."""

    name = "extractive"
    supports_stop = False   # one search, no reasoning rounds to stop

    def __init__(
        self,
        store: SearchableStore,
        topk: int = 2,
        threshold: float = 0.5,
        max_memories: int = 3,
        node_topk: int = 50,
    ) -> None:
        if topk < 1 or max_memories < 1 or node_topk < 1:
            raise ValueError("topk, max_memories and node_topk must be >= 1")
        self.store = store
        self.topk = topk
        self.threshold = threshold
        self.max_memories = max_memories
        self.node_topk = node_topk

    def answer(self, question: str, before_time: float | None, max_rounds: int) -> Answer:
        hits = self.store.search_clips(question, topk=self.topk, threshold=self.threshold, before_time=before_time)
        candidates = self._rank(question, hits, before_time)
        chosen = candidates[: self.max_memories]
        robots = robots_of(self.store, (c.memory.clip_id for c in chosen))   # a memory several robots share
        text = f"{PREFIX} " + " ".join(
            (f"{robots[c.memory.clip_id]}: " if c.memory.clip_id in robots else "") + _sentence(c.text)
            for c in chosen) if chosen else NO_MATCH
        trace: dict[str, Any] = {
            "answerer": self.name,
            "answer_source": "extractive",
            "question": question,
            "before_time": before_time,
            "max_rounds": max_rounds,
            "params": {"topk": self.topk, "threshold": self.threshold, "max_memories": self.max_memories},
            "rounds": [
                {
                    "round": 1,
                    "action": "search",
                    "content": question,
                    "results": [_hit_trace(h) for h in hits],
                }
            ],
            "selected": [
                {"id": c.memory.id, "clip_id": c.memory.clip_id, "score": c.score, "text": c.text} for c in chosen
            ],
        }
        trace["provenance"] = trace["selected"]
        add_robots(self.store, trace)
        return Answer(
            answer=text,
            rounds_used=1,
            searches=[question],
            cited_memory_ids=[int(c.memory.id) for c in chosen],
            trace=trace,
        )

    def _rank(self, question: str, hits: Sequence[ClipHitLike], before_time: float | None) -> list[_Candidate]:
        memories: dict[int, tuple[MemoryLike, float]] = {}
        for hit in hits:
            for m in hit.memories:
                if m.kind in ("episodic", "semantic") and m.id not in memories:
                    memories[m.id] = (m, float(hit.score))
        if not memories:
            return []
        scores = {i: m.score for i, (m, _) in memories.items() if m.score is not None}
        if len(scores) < len(memories):  # the store left node scores unset: ask for them
            nodes = self.store.search_nodes(question, topk=max(self.node_topk, len(memories)), before_time=before_time)
            scores.update({n.id: n.score for n in nodes if n.id in memories and n.score is not None})
        out = []
        for i, (m, clip_score) in memories.items():
            text = self.store.translate(m.text, before_time=before_time).strip()
            if text:  # Equivalence lines translate to ""
                out.append(_Candidate(m, clip_score, float(scores.get(i, -1.0)), text))
        out.sort(key=lambda c: (c.score, c.clip_score), reverse=True)
        unique: dict[str, _Candidate] = {}  # the same fact seen in several clips is quoted once
        for c in out:
            unique.setdefault(" ".join(c.text.lower().split()).rstrip(".!?"), c)
        return list(unique.values())


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


def _hit_trace(hit: ClipHitLike) -> dict[str, Any]:
    return {
        "clip_id": int(hit.clip_id),
        "score": float(hit.score),
        "memories": [
            {
                "id": int(m.id),
                "kind": m.kind,
                "text": m.text,
                "start_time": m.start_time,
                "end_time": m.end_time,
                "score": m.score,
            }
            for m in hit.memories
        ],
    }
