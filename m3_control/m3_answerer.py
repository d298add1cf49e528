"""The M3-Agent answerer: multi-turn reasoning with a chat backend, optionally backed by the extractive answerer
when the model produces no answer (labelled, and counted separately as ``answer_source: fallback``).

Two prompts over the same Action/Content protocol:

* ``tools`` (the embedded default): the tool-using few-shot prompt with a GBNF grammar, entity tools executed by
  code, cited memories (:mod:`m3_control.tool_loop`);
* ``m3``: the verbatim M3-Agent-Control prompt the fine-tuned model was trained with (:mod:`m3_control.loop`);
  its parser also accepts tool actions.
"""

from __future__ import annotations

import logging
from typing import Any

from .answerer import Answer, ErrorKind, SearchableStore
from .backends import make_backend
from .backends.base import StopCheck
from .loop import ReasoningLoop, RoundCallback
from .robot_provenance import add_robots
from .tool_loop import ToolReasoningLoop

log = logging.getLogger(__name__)
PROMPTS = ("tools", "m3")


class M3Answerer:
    name = "m3"
    supports_stop = True   # answer(..., should_stop=f): reasoning and generation stop when f() turns true

    def __init__(self, store: SearchableStore, backend: dict[str, Any] | str | None = None, topk: int = 2,
                 threshold: float = 0.5, fallback: str = "extractive", max_answer_chars: int = 2000,
                 max_consecutive_invalid: int | None = None, prompt: str = "tools", search_topk: int = 6,
                 **extractive_options: Any) -> None:
        if prompt not in PROMPTS:
            raise ValueError(f"unknown prompt {prompt!r} ({', '.join(PROMPTS)})")
        self.backend = make_backend(backend)
        self.store = store
        self.prompt = prompt
        self.load_error = ""
        self.loop: ReasoningLoop | ToolReasoningLoop
        if prompt == "tools":
            self.loop = ToolReasoningLoop(store, self.backend, search_topk=search_topk,
                                          max_answer_chars=min(max_answer_chars, 600))
        else:
            self.loop = ReasoningLoop(store, self.backend, topk=topk, threshold=threshold,
                                      max_answer_chars=max_answer_chars,
                                      max_consecutive_invalid=max_consecutive_invalid)
        self.fallback = None
        if fallback == "extractive":
            from .extractive import ExtractiveAnswerer

            self.fallback = ExtractiveAnswerer(store, topk=topk, threshold=threshold, **extractive_options)
        elif fallback not in ("none", ""):
            raise ValueError(f"unknown fallback {fallback!r} (extractive, none)")

    def load(self, should_stop: StopCheck | None = None) -> str:
        """Load the model and put the static prompt prefix into its cache (the node calls this on activate).
        Returns "" or the load error; after a failed load every answer is the labelled fallback (or an error).
        ``should_stop`` aborts the warm-up (a node told to stop while it starts); the cache then fills later."""
        from .backends.base import ChatError, ChatStopped

        try:
            load = getattr(self.backend, "load", None)
            if load is not None:
                load()
            warmup = getattr(self.backend, "warmup", None)
            if warmup is not None and isinstance(self.loop, ToolReasoningLoop):
                try:
                    if should_stop is not None and self.backend.supports_stop:
                        warmup(self.loop.prompt_prefix(), should_stop=should_stop)
                    else:
                        warmup(self.loop.prompt_prefix())
                except ChatStopped:
                    log.warning("warm-up stopped; the prompt prefix is cached by the first query instead")
            self.load_error = ""
        except ChatError as e:
            self.load_error = f"model not loaded: {e}"
            log.error("%s", self.load_error)
        return self.load_error

    def answer(self, question: str, before_time: float | None, max_rounds: int,
               on_round: RoundCallback | None = None, should_stop: StopCheck | None = None) -> Answer:
        """A stopped answer (``should_stop``) is ``error="cancelled"``, never the fallback's."""
        if self.load_error:
            ans = Answer(error=self.load_error, error_kind=ErrorKind.MODEL_FAILED,
                         trace={"backend": self.backend.name, "rounds": []})
        else:
            ans = self.loop.run(question, before_time, max_rounds, on_round, should_stop)
        failed = ans.error_kind in (ErrorKind.MODEL_FAILED, ErrorKind.NO_ANSWER)
        if failed and self.fallback is not None:
            log.warning("model gave no answer (%s): extractive fallback", ans.error)
            fb = self.fallback.answer(question, before_time, max_rounds)
            fb.rounds_used = ans.rounds_used
            fb.searches = ans.searches
            fb.trace = {**ans.trace, "fallback": "extractive", "fallback_reason": ans.error,
                        "answer_source": "fallback", "extractive": fb.trace,
                        "provenance": fb.trace.get("selected", [])}
            add_robots(self.store, fb.trace)
            return fb
        ans.trace.setdefault("answer_source", "model" if ans.success else "error")
        add_robots(self.store, ans.trace)
        return ans
