"""The ask page's answerer: the real control loop (:func:`m3_control.answerer.make_answerer` + ``run_query``), made
once per server on its own read-only store connection, its model loaded once (in the background from start-up,
or at the first question), one question at a time (one model)."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from m3_memory import MemoryStore, StoreConfig
from m3_memory.store import store_location

from ..answerer import Answer, Answerer, run_query
from ..answerers import make_answerer

log = logging.getLogger(__name__)

# The control node's embedded default (config/default.yaml, section m3_agent_control). The bringup hands the
# browser the options its params file gives the control node (m3_agent_ros.params.ControlParams.answerer_options).
DEFAULT_ANSWERER = "m3"
DEFAULT_OPTIONS: dict[str, Any] = {
    "backend": {"backend": "embedded", "model_path": None, "max_tokens": 96}, "prompt": "tools",
    "fallback": "extractive", "topk": 2, "threshold": 0.35, "max_memories": 3, "max_consecutive_invalid": 2}
DEFAULT_ROUNDS = 5
MAX_QUESTION_CHARS = 1000


@dataclass
class Asked:
    answer: Answer
    seconds: float


class AskService:
    def __init__(self, db: str | Path, config: StoreConfig, embedder: Any = None, answerer: str = DEFAULT_ANSWERER,
                 options: dict[str, Any] | None = None, max_rounds: int = DEFAULT_ROUNDS) -> None:
        self.db, self.config, self.embedder = store_location(db), config, embedder
        self.name = answerer
        self.options = DEFAULT_OPTIONS if options is None else options
        self.max_rounds = max_rounds
        self._answerer: Answerer | None = None
        self._store: MemoryStore | None = None
        self._load_lock = threading.Lock()
        self._ask_lock = threading.Lock()
        self.state = "not loaded"          # not loaded | loading | ready | fallback only: <error> | failed: <error>
        self.load_s: float | None = None

    def start_loading(self) -> threading.Thread:
        """Load the model in the background now, so the first question does not wait for it."""
        t = threading.Thread(target=self._ensure, name="m3-browser-model", daemon=True)
        t.start()
        return t

    def _ensure(self) -> Answerer:
        with self._load_lock:
            if self._answerer is not None:
                return self._answerer
            self.state = "loading"
            t = time.perf_counter()
            try:
                self._store = MemoryStore(self.db, config=self.config, embedder=self.embedder, readonly=True)
                answerer = make_answerer(self.name, self._store, **self.options)
                load = getattr(answerer, "load", None)
                error = load() if load is not None else ""
            except Exception as e:
                self.state = f"failed: {type(e).__name__}: {e}"
                log.error("ask: the answerer could not be made: %s", self.state)
                raise
            self.load_s = time.perf_counter() - t
            self.state = f"fallback only: {error}" if error else "ready"
            log.info("ask: %s answerer %s in %.1f s", self.name, self.state, self.load_s)
            self._answerer = answerer
            return answerer

    def ask(self, question: str, before: float | None, max_rounds: int | None = None) -> Asked:
        """The answer with its trace (never raises for a bad question: ``Answer.error`` says why)."""
        answerer = self._ensure()
        with self._ask_lock:
            t = time.perf_counter()
            answer = run_query(answerer, question, before, max_rounds or self.max_rounds, MAX_QUESTION_CHARS)
            return Asked(answer, time.perf_counter() - t)

    def close(self) -> None:
        with self._load_lock:
            if self._store is not None:
                self._store.close()
