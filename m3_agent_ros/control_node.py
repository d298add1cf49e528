"""Control node: serves m3_agent/srv/Query from the memory store (a rclpy LifecycleNode).

    python -m m3_agent_ros.control_node --ros-args --params-file config/default.yaml [-p db_path:=...]

Lifecycle: on_configure reads the parameters and opens the store read-only, on_activate creates the
service, on_deactivate removes it, on_cleanup/on_shutdown close the store. With ``autostart`` (default
true) the node configures and activates itself, so no lifecycle manager is needed; with
``autostart:=false`` drive it through ``/<node>/change_state``. Parameters are applied on configure, except
max_rounds, max_question_chars and query_timeout_s, which a set applies at once (next request); see
m3_agent_ros.params (ranges, read-only max_pending_queries and autostart) and lifecycle_base.

The node only converts requests and responses: the answering is m3_control.answerer.run_query, which
never raises, and the callback additionally turns any exception into ``success=false`` so the service
keeps running.

Load (m3_agent_ros.answer_queue): one question is answered at a time by a worker thread; service callbacks
(a reentrant group, so they run side by side) enqueue and wait. Every request gets an answer or a clear
refusal: beyond ``max_pending_queries`` accepted requests (answering + waiting) a Query is answered at once
``success=false, error="busy: N queries pending (max_pending_queries=M) ..."``; after ``query_timeout_s`` it
is answered "timed out ..." and its reasoning stopped. The service is RELIABLE with a request queue deeper
than ``max_pending_queries`` (+ SERVICE_QUEUE_MARGIN), and the executor has a thread per accepted request
plus spares, so requests beyond the bound are taken and refused at once instead of being dropped by DDS.
A client that left (no client of the service remains), a cancelled Instruct goal, the deadline or a
shutdown stop the reasoning between rounds and abort the model's generation where the backend can.
SIGINT/SIGTERM (m3_agent_ros.lifecycle_base.run_node): waiting requests are answered "shutting down ...",
the generation is aborted, the store closed, and the process exits within a few seconds even when a
generation cannot be aborted (the worker is a daemon thread, never waited for past a short grace).
"""

from __future__ import annotations

import json
import math
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from m3_agent.srv import Query
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.lifecycle import LifecycleState, TransitionCallbackReturn
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.service import Service

from m3_agent_ros.answer_queue import AnswerQueue, Refusal
from m3_agent_ros.instruct_server import InstructServer
from m3_agent_ros.lifecycle_base import M3LifecycleNode, run_node
from m3_agent_ros.params import ControlParams
from m3_control.answerer import Answer, Answerer, ErrorKind, run_query, validate_query
from m3_control.answerers import make_answerer
from m3_memory import MemoryStore, StoreConfig
from m3_memory.store import store_exists, store_location

NODE_NAME = "m3_agent_control"
UINT8_MAX = 255
# Requests DDS may hold beyond max_pending_queries before the executor takes them (taking and refusing one takes
# well under a millisecond, so this covers bursts far larger than the bound).
SERVICE_QUEUE_MARGIN = 64
# Executor threads besides one per accepted request: refusals, Instruct goal/cancel/result, lifecycle, parameters.
SPARE_THREADS = 4
SHUTDOWN_GRACE_S = 2.0      # how long stopping waits for the answering to end (it is aborted) before giving up
SEND_SETTLE_S = 0.2        # deactivate: time for the refused callbacks' responses to leave before the service goes
CLIENT_CHECK_S = 0.25       # how often a request's "did the client leave?" check asks the ROS graph


def query_qos(max_pending: int) -> QoSProfile:
    """The Query service's QoS: RELIABLE, a request queue deeper than the requests the node accepts at once."""
    return QoSProfile(reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST,
                      depth=max_pending + SERVICE_QUEUE_MARGIN, durability=DurabilityPolicy.VOLATILE)


class ControlNode(M3LifecycleNode):
    PARAMS = ControlParams

    def __init__(self, node_name: str = NODE_NAME) -> None:
        super().__init__(node_name)
        self.params: ControlParams | None = None
        self._store: MemoryStore | None = None
        self._answerer: Answerer | None = None
        self._service: Service | None = None
        self._instruct: InstructServer | None = None
        self._queue: AnswerQueue | None = None
        self._group = ReentrantCallbackGroup()      # Query callbacks wait for their answer side by side
        self._inflight = 0                          # Query/Instruct callbacks running (see _tracked)
        self._inflight_cv = threading.Condition()
        self._stopping = threading.Event()          # SIGINT/SIGTERM: abort the warm-up, refuse, stop the answering
        self._abandoned = False                     # the answering did not stop within the grace: exit anyway
        # the executor's threads are sized once, at start, from this value (run_node asks executor_threads())
        self.max_pending_limit = max(1, int(self.get_parameter("max_pending_queries").value))

    def executor_threads(self) -> int:
        return self.max_pending_limit + SPARE_THREADS

    def apply_live(self, params: ControlParams) -> None:
        """max_rounds / max_question_chars / query_timeout_s set while configured: used from the next request on."""
        self.params = params
        if self._queue is not None:
            self._queue.timeout_s = params.query_timeout_s
        if self._instruct is not None:
            self._instruct.params = params

    # -- lifecycle ---------------------------------------------------------------------------------
    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        try:
            params = self.read_params()
            params.check()
            if params.max_pending_queries > self.max_pending_limit:
                raise ValueError(f"max_pending_queries={params.max_pending_queries} is more than "
                                 f"{self.max_pending_limit}, the value this process started with (it sized the "
                                 "executor threads); restart the node to raise it")
            db = store_location(params.db_path)
            if not store_exists(db):
                raise FileNotFoundError(f"memory store {db} does not exist (db_path)")
            self._store = MemoryStore(db, config=StoreConfig(vector_search=params.vector_search), readonly=True,
                                      robot=params.robot_name)
            self._answerer = make_answerer(params.answerer, self._store, **params.answerer_options())
            self.params = params
        except Exception as e:
            self.get_logger().error(f"configure failed: {type(e).__name__}: {e}")
            self.release()
            return TransitionCallbackReturn.FAILURE
        self.get_logger().info(f"configured: store {db}, answerer {params.answerer}")
        return super().on_configure(state)

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        assert self.params is not None
        p = self.params
        load = getattr(self._answerer, "load", None)
        if load is not None:  # the model is loaded (and its prompt prefix cached) here, not on the first query
            t = time.monotonic()
            error = load(should_stop=self._stopping.is_set) if self._answerer.supports_stop \
                else load()
            if error:
                self.get_logger().error(f"{error}; answers come from the labelled fallback")
            else:
                how = getattr(getattr(self._answerer, "backend", None), "warmup_from", "")
                how = f" (prompt prefix {how})" if isinstance(how, str) and how else ""
                self.get_logger().info(f"model loaded and warmed up in {time.monotonic() - t:.1f} s{how}")
        self._queue = AnswerQueue(p.max_pending_queries, p.query_timeout_s, self._log_from_queue)
        self._service = self.create_service(Query, p.service_name, self._on_query,
                                            qos_profile=query_qos(p.max_pending_queries), callback_group=self._group)
        action_clients = self._client_gone_check(f"{p.action_name}/_action/get_result")
        self._instruct = InstructServer(self, self._answerer, p, self._queue, action_clients, self._tracked)
        self.get_logger().info(f"active: serving {self._service.service_name} (max_pending_queries "
                               f"{p.max_pending_queries}, query_timeout_s {p.query_timeout_s:g})")
        return super().on_activate(state)

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        self._drop_service("node deactivated: the request was not answered")
        return super().on_deactivate(state)

    def request_stop(self) -> None:
        """Signal-handler safe: a start in progress aborts its warm-up."""
        self._stopping.set()

    def begin_shutdown(self) -> None:
        """SIGINT/SIGTERM: waiting requests are refused, the answering in progress is stopped (not waited for)."""
        self._stopping.set()
        if self._queue is not None:
            self._queue.close("shutting down: the node is stopping, the request was not answered")

    def has_abandoned_work(self) -> bool:
        return self._abandoned

    def _drop_service(self, reason: str) -> None:
        queue, self._queue = self._queue, None
        deadline = time.monotonic() + SHUTDOWN_GRACE_S
        if queue is not None:
            queue.close(reason)
            with self._inflight_cv:  # the refused callbacks return their responses before the service goes
                had_inflight = self._inflight > 0
                self._inflight_cv.wait_for(lambda: self._inflight == 0, timeout=deadline - time.monotonic())
            if had_inflight and not self._stopping.is_set():
                # deactivate while spinning: rclpy sends a response just after its callback returned; give those
                # sends a moment before the service goes (at shutdown run_node waits for the executor's work)
                time.sleep(SEND_SETTLE_S)
        if self._instruct is not None:
            self._instruct.destroy()
            self._instruct = None
        if self._service is not None:
            self.destroy_service(self._service)
            self._service = None
        if queue is not None and not queue.wait_idle(deadline - time.monotonic()):
            self._abandoned = True
            self.get_logger().warning(f"the answering did not stop within {SHUTDOWN_GRACE_S:g} s (the model "
                                      "backend cannot abort it): left behind")

    def release(self) -> None:
        """Drop the service and close the store (cleanup, shutdown, process exit)."""
        self._drop_service("shutting down: the node is stopping, the request was not answered")
        self._answerer = None
        if self._store is not None:
            store, self._store = self._store, None
            store.close()

    def _log_from_queue(self, level: str, msg: str) -> None:
        log = self.get_logger()  # one call site per severity (rclpy refuses a call site changing severity)
        if level == "error":
            log.error(msg)
        elif level == "warning":
            log.warning(msg)
        else:
            log.info(msg)

    def _client_gone_check(self, service_name: str) -> Callable[[], str]:
        """A stop check for one request: "" while a client of ``service_name`` is in the ROS graph, a reason once
        none is left. Only a client seen before counts as gone (the graph may learn of a client after its first
        request arrived); with several clients of the service, one leaving goes unnoticed."""
        state = {"next": 0.0, "seen": False, "reason": ""}

        def check() -> str:
            now = time.monotonic()
            if not state["reason"] and now >= state["next"]:
                state["next"] = now + CLIENT_CHECK_S
                try:
                    n = self.count_clients(service_name)
                except Exception:  # node being destroyed: other checks (shutdown) decide
                    return ""
                if n > 0:
                    state["seen"] = True
                elif state["seen"]:
                    state["reason"] = f"client left: no client of {service_name} remains, the reasoning was stopped"
            return str(state["reason"])

        return check

    # -- service -----------------------------------------------------------------------------------
    @contextmanager
    def _tracked(self) -> Iterator[None]:
        """A Query / Instruct callback in progress (the service and action server stay until they returned)."""
        with self._inflight_cv:
            self._inflight += 1
        try:
            yield
        finally:
            with self._inflight_cv:
                self._inflight -= 1
                self._inflight_cv.notify_all()

    def _on_query(self, request: Query.Request, response: Query.Response) -> Query.Response:
        with self._tracked():
            try:
                answer = self._answer(request)
            except Exception as e:  # never let a request take the node down
                answer = Answer.failure(f"internal error: {type(e).__name__}: {e}")
            if answer.error and answer.error_kind is not ErrorKind.BUSY:
                self.get_logger().warning(f"query failed: {answer.error}")
            try:
                return fill_response(response, answer)
            except Exception as e:  # e.g. a value that doesn't fit the message type
                self.get_logger().error(f"cannot build the response: {type(e).__name__}: {e}")
                return fill_response(Query.Response(), Answer.failure(f"internal error building the response: {e}"))

    def _answer(self, request: Query.Request) -> Answer:
        queue, answerer, params, service = self._queue, self._answerer, self.params, self._service
        if queue is None or answerer is None or params is None or service is None:
            return Answer.failure("node is not active", ErrorKind.REFUSED)
        before_time = None
        if request.has_time_bound:
            before_time = float(request.before_time)
            if not math.isfinite(before_time):
                return Answer.failure(f"before_time must be finite, got {before_time}", ErrorKind.REFUSED)
        question, rounds = request.question, int(request.max_rounds) or params.max_rounds
        error = validate_query(question, rounds, params.max_question_chars)
        if error:  # refused before it takes a place in the queue
            return Answer.failure(error, ErrorKind.REFUSED)
        job = queue.submit("query", lambda should_stop: run_query(
            answerer, question, before_time, rounds, params.max_question_chars, should_stop=should_stop),
            self._client_gone_check(service.service_name))
        if isinstance(job, Refusal):
            self.get_logger().warning(f"query refused: {job.message}", throttle_duration_sec=1.0)
            return job.answer()
        return queue.wait(job)


def fill_response(response: Query.Response, answer: Answer) -> Query.Response:
    response.success = answer.success
    response.answer = answer.answer
    response.rounds_used = max(0, min(UINT8_MAX, int(answer.rounds_used)))
    response.searches = [str(s) for s in answer.searches]
    response.cited_memory_ids = [int(i) for i in answer.cited_memory_ids]
    try:
        response.trace_json = json.dumps(answer.trace, default=str, ensure_ascii=False)
    except (TypeError, ValueError) as e:
        response.trace_json = json.dumps({"trace_error": str(e)})
    response.error = answer.error
    return response


def main(args: list[str] | None = None) -> int:
    return run_node(ControlNode, args, threads=lambda node: node.executor_threads())


if __name__ == "__main__":
    sys.exit(main())
