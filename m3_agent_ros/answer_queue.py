"""The control node's bounded answer queue (ROS-free): one worker thread answers jobs in arrival order, every job
ends with an answer or an explicit refusal, never silence.

* ``submit`` refuses at once when ``max_pending`` jobs (the one being answered plus those waiting) are accepted
  already ("busy: N queries pending (max_pending_queries=M)") or the queue is closed ("shutting down ...").
* ``wait`` blocks the caller (a service callback) until its job is answered, or answers it at once when the job
  must stop: its deadline passed ("timed out ..."), its extra stop check gives a reason (Instruct goal cancelled,
  client left), or the queue was closed. A stopped job still waiting is dropped; the one being answered sees
  ``should_stop()`` turn true: the reasoning stops between rounds and the backend aborts (or abandons) its
  generation, so the next job starts promptly.
* ``close`` (lifecycle deactivate, SIGINT/SIGTERM) answers every waiting job with the given reason and stops the
  running one; ``wait_idle`` waits (bounded) for the worker to leave the running job.

The worker is a daemon thread: a generation that cannot be aborted never keeps the process alive.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from m3_control.answerer import Answer, ErrorKind

StopCheck = Callable[[], bool]
Work = Callable[[StopCheck], Answer]      # the answering, given its should_stop
ReasonCheck = Callable[[], str]           # "" to go on, else why the job must stop
Log = Callable[[str, str], None]          # (level: info | warning | error, message)

WAIT_POLL_S = 0.1                         # how often a waiting caller re-checks its job's stop reasons
_ids = itertools.count(1)


def busy_message(pending: int, max_pending: int) -> str:
    return f"busy: {pending} queries pending (max_pending_queries={max_pending}); try again later"


@dataclass(frozen=True)
class Refusal:
    """A job not accepted: why (said to the caller) and its kind (``BUSY``, or ``REFUSED`` when closed)."""

    message: str
    kind: ErrorKind

    def answer(self) -> Answer:
        return Answer.failure(self.message, self.kind)


@dataclass(eq=False)
class Job:
    kind: str                               # "query" or "instruct" (for the log)
    work: Work
    timeout_s: float                        # 0: no deadline
    extra_stop: ReasonCheck | None = None
    id: int = field(default_factory=lambda: next(_ids))
    arrived: float = field(default_factory=time.monotonic)
    started: float | None = None
    answer: Answer | None = None
    done: threading.Event = field(default_factory=threading.Event)
    _reason: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def deadline(self) -> float | None:
        return self.arrived + self.timeout_s if self.timeout_s > 0 else None

    def stop(self, reason: str) -> None:
        """Make the job stop with ``reason`` (the first reason sticks)."""
        with self._lock:
            if not self._reason:
                self._reason = reason

    def stop_reason(self) -> str:
        """Why the job must stop ("" while it may go on): closed queue, deadline, or the extra check."""
        if self._reason:
            return self._reason
        deadline = self.deadline
        if deadline is not None and time.monotonic() >= deadline:
            self.stop(f"timed out after {self.timeout_s:g} s (query_timeout_s={self.timeout_s:g}); "
                      "the reasoning was stopped")
        elif self.extra_stop is not None:
            reason = self.extra_stop()
            if reason:
                self.stop(reason)
        return self._reason

    def should_stop(self) -> bool:
        return bool(self.stop_reason())

    def finish(self, answer: Answer) -> bool:
        """Set the answer once; False when the job was answered already."""
        with self._lock:
            if self.done.is_set():
                return False
            self.answer = answer
            self.done.set()
            return True


def stopped_answer(reason: str, partial: Answer | None = None) -> Answer:
    """The answer of a job stopped for ``reason``, keeping what the stopped reasoning did (rounds, searches)."""
    ans = Answer.failure(reason, ErrorKind.STOPPED, stopped=True)
    if partial is not None:
        ans.rounds_used, ans.searches = partial.rounds_used, list(partial.searches)
        ans.trace = {**partial.trace, "error": reason, "error_kind": ErrorKind.STOPPED.value, "stopped": True}
    return ans


class AnswerQueue:
    def __init__(self, max_pending: int, timeout_s: float, log: Log | None = None, name: str = "answer-worker"
                 ) -> None:
        if max_pending < 1:
            raise ValueError(f"max_pending must be >= 1, got {max_pending}")
        self.max_pending, self.timeout_s = max_pending, timeout_s
        self._log = log or (lambda level, msg: None)
        self._cv = threading.Condition()
        self._waiting: deque[Job] = deque()
        self._running: Job | None = None
        self._closed = ""
        self._worker = threading.Thread(target=self._work, name=name, daemon=True)
        self._worker.start()

    # -- callers ------------------------------------------------------------------------------------
    def pending(self) -> int:
        with self._cv:
            return len(self._waiting) + (self._running is not None)

    def submit(self, kind: str, work: Work, extra_stop: ReasonCheck | None = None) -> Job | Refusal:
        """Accept a job, or return the refusal (busy, closed) to answer at once."""
        with self._cv:
            if self._closed:
                return Refusal(self._closed, ErrorKind.REFUSED)
            pending = len(self._waiting) + (self._running is not None)
            if pending >= self.max_pending:
                return Refusal(busy_message(pending, self.max_pending), ErrorKind.BUSY)
            job = Job(kind, work, self.timeout_s, extra_stop)
            self._waiting.append(job)
            self._cv.notify_all()
            return job

    def wait(self, job: Job) -> Answer:
        """The job's answer; a job that must stop is answered at once with the reason (see the module doc)."""
        while not job.done.wait(WAIT_POLL_S):
            reason = job.stop_reason()
            if reason:
                with self._cv:
                    try:
                        self._waiting.remove(job)   # not started: the worker never sees it
                    except ValueError:
                        pass                        # being answered: the worker aborts it (should_stop)
                job.finish(stopped_answer(reason))
        assert job.answer is not None
        return job.answer

    def close(self, reason: str) -> None:
        """Refuse new jobs with ``reason``, answer the waiting ones with it, stop the running one."""
        with self._cv:
            first = not self._closed
            if first:
                self._closed = reason
            waiting, self._waiting = list(self._waiting), deque()
            running = self._running
            self._cv.notify_all()
        for job in waiting:
            job.stop(reason)
            job.finish(stopped_answer(reason))
        if running is not None:
            running.stop(reason)
        if waiting or (first and running is not None):
            self._log("warning", f"{reason}: {len(waiting)} waiting request(s) refused"
                                 f"{', the one being answered stopped' if running is not None else ''}")

    def wait_idle(self, timeout_s: float) -> bool:
        """Wait until no job is being answered; False when the worker is still inside one after ``timeout_s``."""
        with self._cv:
            return self._cv.wait_for(lambda: self._running is None, timeout=max(0.0, timeout_s))

    def busy(self) -> bool:
        with self._cv:
            return self._running is not None

    # -- worker -------------------------------------------------------------------------------------
    def _work(self) -> None:
        while True:
            with self._cv:
                while not self._waiting and not self._closed:
                    self._cv.wait()
                if not self._waiting:
                    return                          # closed and drained
                job = self._waiting.popleft()
                self._running = job
                left = len(self._waiting)
            try:
                self._answer(job, left)
            finally:
                with self._cv:
                    self._running = None
                    self._cv.notify_all()

    def _answer(self, job: Job, left: int) -> None:
        reason = job.stop_reason()
        if reason:
            job.finish(stopped_answer(reason))
            return
        job.started = time.monotonic()
        self._log("info", f"answering {job.kind} #{job.id} (waited {job.started - job.arrived:.2f} s, "
                          f"{left} waiting)")
        try:
            ans = job.work(job.should_stop)
        except Exception as e:  # never let a request take the worker down
            ans = Answer.failure(f"internal error: {type(e).__name__}: {e}")
        reason = job.stop_reason()
        if reason:
            ans = stopped_answer(reason, ans)
            self._log("info", f"{job.kind} #{job.id} stopped after {ans.rounds_used} round(s) and "
                              f"{time.monotonic() - job.started:.2f} s: {reason}")
        job.finish(ans)
