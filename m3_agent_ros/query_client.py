"""Ask the running control node a question over m3_agent/srv/Query.

    python -m m3_agent_ros.query_client "where are the car keys?" [--before SECONDS|MM:SS] [--max-rounds N]
                                        [--namespace robot1 | --service /m3_agent/query] [--wait 15]
                                        [--timeout 600] [--json]

Prints the answer, the cited memory ids and the error (if any). ``--before`` bounds the memory to clips that
ended by then (stream seconds, or MM:SS), as a robot asked at that moment would know it. Exit status: 0 answered,
1 the service reported an error, 2 the service did not appear or did not answer in time.
``--namespace robot1`` asks the nodes started with that namespace (``bringup --namespace`` / ``ros2 launch ...
namespace:=robot1``): the service is then /robot1/m3_agent/query; ``--service`` names any other.

Use the same DDS environment as the node (``. scripts/ros_env.sh``, same ``ROS_DOMAIN_ID``).
``QueryClient`` is the reusable part: it owns its own rclpy context, so it can live inside tools and tests
next to other nodes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from m3_agent_ros.node_table import normalize_namespace
from m3_agent_ros.own_node import OwnNode

SERVICE = "m3_agent/query"          # the control node's service_name default, relative to its namespace
DEFAULT_SERVICE = "/" + SERVICE


def service_in(namespace: str) -> str:
    """The Query service of nodes run in ``namespace`` ('robot1' -> '/robot1/m3_agent/query'; '' -> the root's)."""
    return f"{normalize_namespace(namespace)}/{SERVICE}"


@dataclass
class QueryResult:
    question: str
    before_time: float | None
    success: bool
    answer: str
    error: str
    rounds_used: int = 0
    searches: list[str] = field(default_factory=list)
    cited_memory_ids: list[int] = field(default_factory=list)
    trace_json: str = ""
    latency_s: float = 0.0


class QueryClient(OwnNode):
    """A Query service client node in its own rclpy context (init/shutdown paired; a context manager)."""

    def __init__(self, service: str = DEFAULT_SERVICE, node_name: str = "m3_agent_query_client") -> None:
        from m3_agent.srv import Query

        super().__init__(node_name)
        try:
            self.client = self.node.create_client(Query, service)
        except Exception:
            self.close()
            raise
        self.service = service

    def wait_ready(self, timeout: float = 15.0) -> None:
        """Wait (spinning) until the service is discovered; TimeoutError after ``timeout`` seconds."""
        if not self.spin_until(self.client.service_is_ready, timeout):
            raise TimeoutError(f"service {self.service} not available after {timeout:.0f} s "
                               "(is the control node running in this ROS_DOMAIN_ID?)")

    def ask(self, question: str, before_time: float | None = None, max_rounds: int = 0,
            timeout: float = 600.0) -> QueryResult:
        """One service call; ``before_time`` (stream seconds) bounds what memory is visible.

        Raises TimeoutError if no response arrives within ``timeout``; errors the node reports come back
        in ``QueryResult.error`` with ``success=False``.
        """
        from m3_agent.srv import Query

        if not 0 <= max_rounds <= 255:
            raise ValueError(f"max_rounds must be in 0..255, got {max_rounds}")
        req = Query.Request(question=question, has_time_bound=before_time is not None,
                            before_time=float(before_time) if before_time is not None else 0.0,
                            max_rounds=max_rounds)
        t0 = time.perf_counter()
        fut = self.client.call_async(req)
        deadline = time.monotonic() + timeout
        while not fut.done():
            if time.monotonic() >= deadline:
                self.client.remove_pending_request(fut)
                raise TimeoutError(f"no answer from {self.service} within {timeout:.0f} s")
            self.executor.spin_once(timeout_sec=0.05)
        exc = fut.exception()
        if exc is not None:
            raise exc
        res: Any = fut.result()
        return QueryResult(question=question, before_time=before_time, success=bool(res.success),
                           answer=res.answer, error=res.error, rounds_used=int(res.rounds_used),
                           searches=list(res.searches), cited_memory_ids=[int(i) for i in res.cited_memory_ids],
                           trace_json=res.trace_json, latency_s=time.perf_counter() - t0)

    def __enter__(self) -> QueryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def parse_time(text: str) -> float:
    """Stream time from ``SECONDS`` (float), ``MM:SS`` or ``HH:MM:SS``."""
    parts = text.strip().split(":")
    if len(parts) > 3 or not all(p.strip() for p in parts):
        raise ValueError(f"not a time: {text!r} (SECONDS, MM:SS or HH:MM:SS)")
    value = 0.0
    for p in parts:
        value = value * 60 + float(p)
    if value < 0:
        raise ValueError(f"time must not be negative: {text!r}")
    return value


def _time_arg(text: str) -> float:
    try:
        return parse_time(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="m3-query", description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("question")
    ap.add_argument("--before", type=_time_arg, default=None,
                    help="time bound: only memories of clips that ended by then (seconds or MM:SS)")
    ap.add_argument("--max-rounds", type=int, default=0, help="reasoning rounds (0 = node default)")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--namespace", default=None, help="the nodes' ROS namespace (service <ns>/m3_agent/query)")
    where.add_argument("--service", default=None, help=f"the Query service's full name (default {DEFAULT_SERVICE})")
    ap.add_argument("--wait", type=float, default=15.0, help="seconds to wait for the service to appear")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the answer")
    ap.add_argument("--json", action="store_true", help="print the whole response as one JSON object")
    a = ap.parse_args(argv)
    if not 0 <= a.max_rounds <= 255:
        ap.error("--max-rounds must be in 0..255")
    try:
        service = a.service or service_in(a.namespace or "")
    except ValueError as e:
        ap.error(str(e))
    with QueryClient(service) as client:
        try:
            client.wait_ready(a.wait)
            res = client.ask(a.question, a.before, a.max_rounds, a.timeout)
        except TimeoutError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    if a.json:
        print(json.dumps(asdict(res), ensure_ascii=False))
    else:
        bound = f" (memory up to {res.before_time:g} s)" if res.before_time is not None else ""
        print(f"question: {res.question}{bound}")
        print(f"answer:   {res.answer}")
        print(f"cited:    {', '.join(map(str, res.cited_memory_ids)) or '-'}")
        print(f"rounds:   {res.rounds_used}, {res.latency_s * 1000:.0f} ms")
        print(f"error:    {res.error or '-'}")
    return 0 if res.success and not res.error else 1


if __name__ == "__main__":
    sys.exit(main())
