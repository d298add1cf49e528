"""ROS-free question answering over the memory store: result type, store protocol, validation, factory.

The control node (m3_agent_ros.control_node) only converts a ROS request into :func:`run_query` and the
returned :class:`Answer` back into a response; everything that decides *what* to answer lives here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from m3_memory.timeline import Timeline

DEFAULT_MAX_QUESTION_CHARS = 4000
ANSWERERS = ("extractive", "m3")


class MemoryLike(Protocol):
    """What answerers read from a memory node (m3_memory's Memory satisfies this)."""

    @property
    def id(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def clip_id(self) -> int | None: ...
    @property
    def start_time(self) -> float | None: ...
    @property
    def end_time(self) -> float | None: ...
    @property
    def score(self) -> float | None: ...


class ClipHitLike(Protocol):
    @property
    def clip_id(self) -> int: ...
    @property
    def score(self) -> float: ...
    @property
    def memories(self) -> Sequence[MemoryLike]: ...


class SearchableStore(Protocol):
    """The read side of m3_memory.MemoryStore that answerers use."""

    def search_clips(
        self,
        query: str,
        topk: int = 2,
        threshold: float = 0.5,
        before_time: float | None = None,
        exclude_clips: Iterable[int] = (),
    ) -> Sequence[ClipHitLike]: ...

    def search_nodes(
        self,
        query: str,
        topk: int = 20,
        before_time: float | None = None,
        kinds: Sequence[str] = ("episodic", "semantic"),
    ) -> Sequence[MemoryLike]: ...

    def translate(self, text: str, *, before_time: float | None = None) -> str:
        """Raw ids -> <character_k> as known at ``before_time``; "" for Equivalence lines."""
        ...

    def timeline(self) -> Timeline:
        """How stream seconds meet the wall clock (answers say times through it)."""
        ...


class ErrorKind(str, Enum):
    """Why a question has no answer; code decides on this, never on the wording of ``Answer.error``."""

    NONE = ""
    CANCELLED = "cancelled"          # the caller's stop check turned true during the reasoning
    MODEL_FAILED = "model_failed"    # the backend failed or the model is not loaded (a fallback may answer)
    NO_ANSWER = "no_answer"          # the rounds ran out, or the answer was empty (a fallback may answer)
    BUSY = "busy"                    # refused at once: too many queries pending
    REFUSED = "refused"              # refused at once: an invalid request, the node inactive or shutting down
    STOPPED = "stopped"              # stopped midway: deadline, departed client, shutdown
    INTERNAL = "internal"            # an unexpected exception


@dataclass
class Answer:
    """Outcome of one question; ``error`` is empty on success, ``error_kind`` says what kind of failure it is."""

    answer: str = ""
    rounds_used: int = 0
    searches: list[str] = field(default_factory=list)
    cited_memory_ids: list[int] = field(default_factory=list)
    trace: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    error_kind: ErrorKind = ErrorKind.NONE

    @property
    def success(self) -> bool:
        return not self.error

    @classmethod
    def failure(cls, error: str, kind: ErrorKind = ErrorKind.INTERNAL, **trace: Any) -> Answer:
        return cls(error=error, error_kind=kind, trace={"error": error, "error_kind": kind.value, **trace})


class Answerer(Protocol):
    """``supports_stop``: ``answer(..., should_stop=f)`` stops the reasoning when ``f()`` turns true."""

    supports_stop: bool

    def answer(self, question: str, before_time: float | None, max_rounds: int) -> Answer: ...


def validate_query(question: str, max_rounds: int, max_question_chars: int) -> str:
    """Return an error message for a request that must not reach the answerer, else ""."""
    if not question.strip():
        return "question is empty"
    if len(question) > max_question_chars:
        return (
            f"question too long: {len(question)} characters, the limit is {max_question_chars} "
            "(parameter max_question_chars)"
        )
    if max_rounds < 1:
        return f"max_rounds must be >= 1, got {max_rounds}"
    return ""


def run_query(
    answerer: Answerer,
    question: str,
    before_time: float | None,
    max_rounds: int,
    max_question_chars: int = DEFAULT_MAX_QUESTION_CHARS,
    should_stop: Callable[[], bool] | None = None,
) -> Answer:
    """Validate, answer, and turn any exception into a failed :class:`Answer` (never raises). ``should_stop`` goes
    to answerers with ``supports_stop`` (multi-round reasoning): true stops them (``error="cancelled"``)."""
    error = validate_query(question, max_rounds, max_question_chars)
    if error:
        return Answer.failure(error, ErrorKind.REFUSED)
    try:
        if should_stop is not None and answerer.supports_stop:
            return answerer.answer(question, before_time, max_rounds, should_stop=should_stop)  # type: ignore[call-arg]
        return answerer.answer(question, before_time, max_rounds)
    except Exception as e:  # the caller is a long-running service: report, don't crash
        return Answer.failure(f"{type(e).__name__}: {e}")
