"""Control node: serves m3_agent/srv/Query from the memory store (a rclpy LifecycleNode).

    python -m m3_agent_ros.control_node --ros-args --params-file config/default.yaml [-p db_path:=...]

Lifecycle: on_configure reads the parameters and opens the store read-only, on_activate creates the
service, on_deactivate removes it, on_cleanup/on_shutdown close the store. With ``autostart`` (default
true) the node configures and activates itself, so no lifecycle manager is needed; with
``autostart:=false`` drive it through ``/<node>/change_state``. Parameters are applied on configure.

The node only converts requests and responses: the answering is m3_control.answerer.run_query, which
never raises, and the callback additionally turns any exception into ``success=false`` so the service
keeps running.
"""

from __future__ import annotations

import json
import math
import sys
import threading
import time
from pathlib import Path

from m3_agent.srv import Query
from rclpy.lifecycle import LifecycleState, TransitionCallbackReturn
from rclpy.service import Service

from m3_agent_ros.instruct_server import InstructServer
from m3_agent_ros.lifecycle_base import M3LifecycleNode, run_node
from m3_agent_ros.params import ControlParams
from m3_control.answerer import Answer, Answerer, make_answerer, run_query
from m3_memory import MemoryStore

NODE_NAME = "m3_agent_control"
UINT8_MAX = 255


class ControlNode(M3LifecycleNode):
    PARAMS = ControlParams

    def __init__(self, node_name: str = NODE_NAME) -> None:
        super().__init__(node_name)
        self.params: ControlParams | None = None
        self._store: MemoryStore | None = None
        self._answerer: Answerer | None = None
        self._service: Service | None = None
        self._instruct: InstructServer | None = None
        self._answer_lock = threading.Lock()

    # -- lifecycle ---------------------------------------------------------------------------------
    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        try:
            params = self.read_params()
            params.check()
            db = Path(params.db_path).expanduser()
            if not db.is_file():
                raise FileNotFoundError(f"memory store {db} does not exist (db_path)")
            self._store = MemoryStore(str(db), readonly=True)
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
        load = getattr(self._answerer, "load", None)
        if load is not None:  # the model is loaded (and its prompt prefix cached) here, not on the first query
            t = time.monotonic()
            error = load()
            if error:
                self.get_logger().error(f"{error}; answers come from the labelled fallback")
            else:
                self.get_logger().info(f"model loaded and warmed up in {time.monotonic() - t:.1f} s")
        self._service = self.create_service(Query, self.params.service_name, self._on_query)
        self._instruct = InstructServer(self, self._answerer, self.params, self._answer_lock)
        self.get_logger().info(f"active: serving {self._service.service_name}")
        return super().on_activate(state)

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        self._drop_service()
        return super().on_deactivate(state)

    def _drop_service(self) -> None:
        if self._instruct is not None:
            self._instruct.destroy()
            self._instruct = None
        if self._service is not None:
            self.destroy_service(self._service)
            self._service = None

    def release(self) -> None:
        """Drop the service and close the store (cleanup, shutdown, process exit)."""
        self._drop_service()
        self._answerer = None
        if self._store is not None:
            store, self._store = self._store, None
            store.close()

    # -- service -----------------------------------------------------------------------------------
    def _on_query(self, request: Query.Request, response: Query.Response) -> Query.Response:
        try:
            with self._answer_lock:
                answer = self._answer(request)
        except Exception as e:  # never let a request take the node down
            answer = Answer.failure(f"internal error: {type(e).__name__}: {e}")
        if answer.error:
            self.get_logger().warning(f"query failed: {answer.error}")
        try:
            return fill_response(response, answer)
        except Exception as e:  # e.g. a value that doesn't fit the message type
            self.get_logger().error(f"cannot build the response: {type(e).__name__}: {e}")
            return fill_response(Query.Response(), Answer.failure(f"internal error building the response: {e}"))

    def _answer(self, request: Query.Request) -> Answer:
        if self._answerer is None or self.params is None:
            return Answer.failure("node is not active")
        before_time = None
        if request.has_time_bound:
            before_time = float(request.before_time)
            if not math.isfinite(before_time):
                return Answer.failure(f"before_time must be finite, got {before_time}")
        return run_query(
            self._answerer,
            request.question,
            before_time,
            int(request.max_rounds) or self.params.max_rounds,
            self.params.max_question_chars,
        )


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
    return run_node(ControlNode, args, threads=3)


if __name__ == "__main__":
    sys.exit(main())
