"""The round skeleton both reasoning loops share (:mod:`m3_control.loop`, :mod:`m3_control.tool_loop`): the stop
check before each round, the backend call with its stop check and its failure, the round records, the report to the
caller after each round, and the failed answers (cancelled, model failed, no answer), each with its
:class:`~m3_control.answerer.ErrorKind`. The loops keep only what differs: the prompt, the actions and their
results."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .answerer import Answer, ErrorKind
from .backends.base import ChatBackend, ChatError, StopCheck

RoundCallback = Callable[[Any], "bool | None"]   # called after each round; False cancels


class Rounds:
    def __init__(self, backend: ChatBackend, trace: dict[str, Any], should_stop: StopCheck | None,
                 on_round: RoundCallback | None) -> None:
        self.backend, self.trace, self.should_stop, self.on_round = backend, trace, should_stop, on_round
        self.searches: list[str] = []

    def stopped(self) -> bool:
        return self.should_stop is not None and self.should_stop()

    def complete(self, messages: list[dict[str, str]], **kw: Any) -> tuple[str, float]:
        """The backend's reply and the seconds it took; the stop check goes to backends that take one. A backend
        failure raises ChatError (:meth:`failed` turns it into the answer)."""
        if self.should_stop is not None and self.backend.supports_stop:
            kw["should_stop"] = self.should_stop
        t = time.perf_counter()
        reply = self.backend.complete(messages, **kw)
        return reply, time.perf_counter() - t

    def failed(self, r: int, e: ChatError) -> Answer:
        """A backend failure in round ``r`` (0-based): cancelled when the caller stopped it, else model_failed."""
        self.trace["rounds"].append({"round": r + 1, "error": str(e)})
        if self.stopped():
            return self.cancelled(r + 1)
        return self.answer(Answer(rounds_used=r + 1, error=f"model backend failed: {e}",
                                  error_kind=ErrorKind.MODEL_FAILED), "error")

    def report(self, info: Any) -> bool:
        """Tell the caller about a finished round; False when it cancels the rest."""
        return not (self.on_round is not None and self.on_round(info) is False)

    def cancelled(self, used: int) -> Answer:
        self.trace["cancelled"] = True
        return self.answer(Answer(rounds_used=used, error="cancelled", error_kind=ErrorKind.CANCELLED), "error")

    def no_answer(self, used: int, why: str = "") -> Answer:
        return self.answer(Answer(rounds_used=used, error=f"no answer after {used} rounds{why}",
                                  error_kind=ErrorKind.NO_ANSWER), "error")

    def answer(self, answer: Answer, source: str) -> Answer:
        """The loop's answer with the searches made and the trace (``answer_source``: model | error)."""
        answer.searches = self.searches
        answer.trace = self.trace
        self.trace["answer_source"] = source
        return answer
