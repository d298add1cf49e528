"""The replay's waits on the nodes it drives: a question whose answer does not come within the answer timeout is
sent once more (the record says so), and a node process that exits fails the wait within a second with the end
of its log, instead of the replay waiting out its timeout (CI once spent a test's whole 600 s on one answer)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from m3_agent_ros.bags.questions import Question

pytestmark = pytest.mark.ros


class SlowQueryServer:
    """A Query service (its own rclpy context, spun in a thread) that answers its n-th request ``delays[n]`` s late."""

    def __init__(self, delays: list[float]) -> None:
        from m3_agent.srv import Query

        from m3_agent_ros.own_node import OwnNode

        self.own = OwnNode("slow_first_query_server")
        self.requests: list[str] = []
        self.delays = delays
        self.own.node.create_service(Query, "/m3_agent/query", self._answer)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def _answer(self, req, res):  # noqa: ANN001, ANN202 - rclpy's service callback signature
        self.requests.append(req.question)
        if len(self.requests) <= len(self.delays):
            time.sleep(self.delays[len(self.requests) - 1])
        res.success, res.answer = True, f"reply to request {len(self.requests)}"
        return res

    def _spin(self) -> None:
        while not self._stop.is_set():
            self.own.executor.spin_once(timeout_sec=0.05)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.own.close()


def test_an_answer_that_does_not_come_is_asked_for_again() -> None:
    from m3_agent_ros.replay import Replayer

    # the first request is answered after 1.5 s (a response lost or a wedged node, to a client that waits 1 s);
    # the resent one as soon as the server is free again
    server = SlowQueryServer(delays=[1.5, 0.0, 2.5])
    rp = Replayer(answer_timeout_s=1.0)
    try:
        rp.wait(lambda: rp.query.service_is_ready(), 20.0, "the Query service")
        rec = rp.ask(Question("q1", "Who spoke first?", "A", 10.0, ["who"], "00:10"))
        assert rec.success and rec.attempts == 2, rec
        assert rec.answer == "reply to request 2" and server.requests == ["Who spoke first?"] * 2
        assert rec.latency_s >= 1.0     # measured from the first send
        with pytest.raises(TimeoutError, match="the answer to q2"):   # one attempt only: no second chance
            rp.ask(Question("q2", "Who spoke last?", "B", 10.0, ["who"], "00:10"), attempts=1)
    finally:
        rp.close()
        server.close()


def test_a_node_that_exits_fails_the_wait_at_once_with_its_log(tmp_path: Path) -> None:
    from m3_agent_ros.replay import Replayer

    log = tmp_path / "control_node.log"
    log.write_text("[INFO] model loaded\n[FATAL] out of memory while answering query #7\n")
    alive = {"control_node": True}
    rp = Replayer()
    try:
        rp.watch_process("control_node", lambda: alive["control_node"], log)
        until = time.monotonic() + 1.5   # while it runs, a wait goes through its checks and ends as asked
        rp.wait(lambda: time.monotonic() > until, 10.0, "a moment")
        alive["control_node"] = False
        t0 = time.monotonic()
        with pytest.raises(RuntimeError, match="control_node exited while the replay waited for the answer") as e:
            rp.wait(lambda: False, 60.0, "the answer to q7")
        assert time.monotonic() - t0 < 5.0
        assert "out of memory while answering query #7" in str(e.value)
    finally:
        rp.close()
