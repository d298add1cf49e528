"""Start tests/fake_openai_server.py as a real process on loopback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class FakeOpenAI:
    def __init__(self, tmp: Path, replies: list[str], fail_first: int = 0, delay_s: float = 0.0) -> None:
        self.script, self.log = tmp / "script.json", tmp / "requests.jsonl"
        self.script.write_text(json.dumps({"replies": replies, "fail_first": fail_first, "delay_s": delay_s}))
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.fake_openai_server", str(self.script),
                                      str(self.log)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()  # blocks until the server listens (or dies: "")
        if not line.startswith("PORT "):
            self.proc.kill()
            raise RuntimeError(f"fake OpenAI server did not start: {line!r}")
        self.base_url = f"http://127.0.0.1:{int(line.split()[1])}/v1"

    def requests(self) -> list[dict]:
        return [json.loads(x) for x in self.log.read_text().splitlines()] if self.log.exists() else []

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
