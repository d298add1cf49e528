"""A small OpenAI-compatible chat server for tests (a separate process on 127.0.0.1).

usage: python -m tests.fake_openai_server SCRIPT.json LOG.jsonl
SCRIPT: {"replies": ["...", ...], "fail_first": N, "delay_s": 0.0}. Each POST /v1/chat/completions returns the next
reply (the last one repeats), after answering the first N requests with HTTP 503. Every request body and its
Authorization header are appended to LOG. Prints "PORT <n>" once listening.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main() -> None:
    with open(sys.argv[1]) as f:
        script = json.load(f)
    log_path = sys.argv[2]
    replies = list(script.get("replies", []))
    state = {"n": 0, "fail": int(script.get("fail_first", 0))}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            with lock:
                with open(log_path, "a") as f:
                    f.write(json.dumps({"path": self.path, "auth": self.headers.get("Authorization"),
                                        "body": body}) + "\n")
                if state["fail"] > 0:
                    state["fail"] -= 1
                    self.send_response(503)
                    self.end_headers()
                    return
                i = min(state["n"], len(replies) - 1)
                state["n"] += 1
            time.sleep(float(script.get("delay_s", 0.0)))
            if self.path.rstrip("/") != "/v1/chat/completions":
                self.send_response(404)
                self.end_headers()
                return
            out = json.dumps({"id": f"c{i}", "object": "chat.completion", "model": body.get("model"),
                              "choices": [{"index": 0, "finish_reason": "stop",
                                           "message": {"role": "assistant", "content": replies[i]}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *a: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"PORT {server.server_port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
