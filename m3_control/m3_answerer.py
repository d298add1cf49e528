"""The M3-Agent answerer: the multi-turn reasoning loop with a chat backend, optionally backed by the
extractive answerer when the model produces no answer (a weak embedded model often does not)."""

from __future__ import annotations

from typing import Any

from .answerer import Answer, SearchableStore
from .backends import make_backend
from .loop import ReasoningLoop, RoundCallback


class M3Answerer:
    name = "m3"

    def __init__(self, store: SearchableStore, backend: dict[str, Any] | str | None = None, topk: int = 2,
                 threshold: float = 0.5, fallback: str = "extractive", max_answer_chars: int = 2000,
                 max_consecutive_invalid: int | None = None, **extractive_options: Any) -> None:
        self.backend = make_backend(backend)
        self.loop = ReasoningLoop(store, self.backend, topk=topk, threshold=threshold,
                                  max_answer_chars=max_answer_chars, max_consecutive_invalid=max_consecutive_invalid)
        self.fallback = None
        if fallback == "extractive":
            from .extractive import ExtractiveAnswerer

            self.fallback = ExtractiveAnswerer(store, topk=topk, threshold=threshold, **extractive_options)
        elif fallback not in ("none", ""):
            raise ValueError(f"unknown fallback {fallback!r} (extractive, none)")

    def answer(self, question: str, before_time: float | None, max_rounds: int,
               on_round: RoundCallback | None = None) -> Answer:
        ans = self.loop.run(question, before_time, max_rounds, on_round)
        if ans.error and ans.error.startswith("no answer after") and self.fallback is not None:
            fb = self.fallback.answer(question, before_time, max_rounds)
            fb.rounds_used = ans.rounds_used
            fb.searches = ans.searches
            fb.trace = {**ans.trace, "fallback": "extractive", "fallback_reason": ans.error,
                        "extractive": fb.trace}
            return fb
        return ans
