"""``m3-serve-llm``: the embedded GGUF chat model served as an OpenAI-compatible HTTP server on loopback.

The stand-in for ``vllm serve`` on a machine without a GPU: the same llama.cpp server the in-process ``embedded``
backend runs (same parameters: one slot with prompt-prefix caching, no context shift), listening on
``http://HOST:PORT`` with ``/v1/chat/completions`` (``grammar`` field for GBNF-constrained replies),
``/v1/completions``, ``/v1/models``, ``/health`` and, with ``--embeddings``, ``/v1/embeddings``.

    m3-serve-llm [--host 127.0.0.1] [--port 8000] [--model qwen2.5-coder-1.5b | --model-path FILE.gguf]
                 [--alias m3-embedded] [--threads 2] [--n-ctx 8192] [--api-key-env NAME]
                 [--embeddings [--pooling mean|last|cls]]

Prints ``m3-serve-llm: serving MODEL at http://HOST:PORT/v1`` once ``/health`` answers, then serves until SIGINT or
SIGTERM. ``--port 0`` picks a free port (the printed URL has it). With ``--api-key-env NAME`` the server requires
the key held by that environment variable (the key itself is never printed or logged).

Python: ``with LlamaHttpServer(port=0) as srv: srv.base_url`` (``start()`` / ``stop()``) in this process, or
:class:`ServerProcess` for ``m3-serve-llm`` as a child process (the demo's ``--backend openai``, the tests).
"""

from __future__ import annotations

import argparse
import logging
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from .base import ChatError
from .llama_embedded import FLASH_ATTN, EmbeddedLlamaBackend, server_params

log = logging.getLogger(__name__)
DEFAULT_ALIAS = "m3-embedded"
POOLING = ("mean", "last", "cls")


class LlamaHttpServer:
    def __init__(self, model: str | None = None, model_path: str | None = None, host: str = "127.0.0.1",
                 port: int = 8000, alias: str = DEFAULT_ALIAS, n_ctx: int = 8192, threads: int = 2,
                 n_batch: int = 512, api_key: str | None = None, embeddings: bool = False,
                 pooling: str = "mean", verbosity: int = 1, flash_attn: str = "off") -> None:
        """``model``: a packaged model name (default qwen2.5-coder-1.5b), ``model_path``: any local GGUF (wins).
        ``alias``: the model name clients send and ``/v1/models`` lists. ``api_key``: required from clients
        (None: no key). ``embeddings``: also serve ``/v1/embeddings`` (llama.cpp then runs in embedding mode)
        with ``pooling`` (mean, last, cls) of the token states. ``flash_attn``: off (default, faster on CPUs), on,
        auto (GPU builds)."""
        if not 0 <= port <= 65535:
            raise ValueError(f"port must be in 0..65535, got {port}")
        if pooling not in POOLING:
            raise ValueError(f"pooling must be one of {', '.join(POOLING)}, got {pooling!r}")
        self.pooling = pooling
        # the embedded backend validates the model choice and finds (or joins) the packaged GGUF
        self._model = EmbeddedLlamaBackend(model_path=model_path, model=model, n_ctx=n_ctx, threads=threads,
                                           n_batch=n_batch, verbosity=verbosity, flash_attn=flash_attn)
        self.host, self.port, self.alias = host, port, alias
        self._api_key, self._embeddings = api_key, embeddings
        self._server: Any = None
        self.url = ""                     # http://HOST:PORT once started
        self.model_file: Path | None = None
        self.load_s: float | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI base URL (``.../v1``) clients use."""
        return f"{self.url}/v1" if self.url else ""

    def start(self, ready_timeout_s: float = 60.0) -> LlamaHttpServer:
        """Load the model, listen, and wait until ``/health`` answers 200. Raises ChatError on failure."""
        if self._server is not None:
            return self
        path = self.model_file = self._model.resolve_model_path()
        import xllamacpp as xlc

        m = self._model
        t0 = time.perf_counter()
        p = server_params(xlc, path, m.n_ctx, m.threads, m.n_batch, m.cache_ram_mib, m.verbosity,
                          host=self.host, port=self.port, flash_attn=m.flash_attn)
        p.model_alias = {self.alias}
        p.embedding = self._embeddings
        if self._embeddings:
            p.pooling_type = getattr(xlc.llama_pooling_type, f"LLAMA_POOLING_TYPE_{self.pooling.upper()}")
        if self._api_key:
            p.api_keys = [self._api_key]
        try:
            self._server = xlc.Server(p)
        except Exception as e:
            raise ChatError(f"llama.cpp server could not load {path} or listen on {self.host}:{self.port}: {e}") \
                from e
        self.url = str(self._server.listening_address).rstrip("/")
        if not self.url.startswith("http"):
            self.stop()
            raise ChatError(f"llama.cpp server is not listening (address {self.url!r}; port {self.port} in use?)")
        deadline = time.monotonic() + ready_timeout_s
        while not health(self.url):
            if time.monotonic() > deadline:
                self.stop()
                raise ChatError(f"llama.cpp server at {self.url} did not answer /health within {ready_timeout_s} s")
            time.sleep(0.1)
        self.load_s = time.perf_counter() - t0
        log.info("serving %s as %r at %s (%.1f s to load)", path.name, self.alias, self.base_url, self.load_s)
        return self

    def stop(self) -> None:
        self._server = None   # the server's destructor stops its HTTP threads and frees the model
        self.url = ""

    def __enter__(self) -> LlamaHttpServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ServerProcess:
    """``m3-serve-llm --port PORT ARGS...`` as a child process; ``base_url`` once it prints that it serves.
    ``kill()`` is SIGKILL (a crash), ``stop()`` SIGINT; ``start()`` again serves on the same port. ``output``
    keeps what the server printed (drained continuously, so the child never blocks on a full pipe)."""

    _URL = re.compile(r"at (http://\S+/v1)\s*$")

    def __init__(self, *args: str, port: int = 0, env: dict[str, str] | None = None,
                 start_timeout_s: float = 180.0, log_path: str | Path | None = None) -> None:
        self.args, self.port, self.env, self.timeout = list(args), port, env, start_timeout_s
        self.log_path = Path(log_path) if log_path else None
        self.proc: subprocess.Popen | None = None
        self.base_url = ""
        self.output: list[str] = []
        self.start()

    def start(self) -> ServerProcess:
        env = {**os.environ, **(self.env or {})}
        self.proc = subprocess.Popen([sys.executable, "-m", "m3_control.backends.llama_server", "--port",
                                      str(self.port), *self.args], env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        lines: queue.Queue[str | None] = queue.Queue()
        log = open(self.log_path, "a") if self.log_path else None  # noqa: SIM115 - closed by the pump

        def pump(stream: Any) -> None:
            for line in stream:
                self.output.append(line)
                if log:
                    log.write(line)
                    log.flush()
                lines.put(line)
            if log:
                log.close()
            lines.put(None)

        threading.Thread(target=pump, args=(self.proc.stdout,), daemon=True).start()
        while True:
            try:
                line = lines.get(timeout=self.timeout)
            except queue.Empty:
                self.kill()
                raise ChatError(f"m3-serve-llm did not start within {self.timeout} s: "
                                f"{''.join(self.output)[-2000:]}") from None
            if line is None:
                raise ChatError(f"m3-serve-llm exited ({self.proc.wait()}): {''.join(self.output)[-2000:]}")
            m = self._URL.search(line)
            if m:
                self.base_url = m.group(1)
                self.port = int(self.base_url.rsplit(":", 1)[1].split("/")[0])
                return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        if self.proc is not None and self.alive():
            self.proc.kill()
            self.proc.wait(timeout=30)

    def stop(self, timeout_s: float = 30.0) -> int | None:
        if self.proc is not None and self.alive():
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode if self.proc else None


def health(url: str, timeout_s: float = 2.0) -> bool:
    """True when ``{url}/health`` answers 200 (the model is loaded and the server takes requests)."""
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/health", timeout=timeout_s) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="m3-serve-llm", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback only)")
    ap.add_argument("--port", type=int, default=8000, help="port (0: any free port; the printed URL has it)")
    ap.add_argument("--model", default=None, help="packaged model name (default qwen2.5-coder-1.5b)")
    ap.add_argument("--model-path", default=None, help="a local GGUF file instead of a packaged model")
    ap.add_argument("--alias", default=DEFAULT_ALIAS, help="model name clients send (default %(default)s)")
    ap.add_argument("--threads", type=int, default=2, help="CPU threads of llama.cpp (default %(default)s)")
    ap.add_argument("--n-ctx", type=int, default=8192, help="context length in tokens (default %(default)s)")
    ap.add_argument("--flash-attn", default="off", choices=tuple(FLASH_ATTN),
                    help="llama.cpp flash attention (default off: faster on CPUs; auto for GPU builds)")
    ap.add_argument("--embeddings", action="store_true", help="serve /v1/embeddings (embedding mode)")
    ap.add_argument("--pooling", default="mean", choices=POOLING, help="embedding mode: pooling of token states")
    ap.add_argument("--api-key-env", default="", help="environment variable whose value clients must send as "
                                                     "their API key (default: no key)")
    ap.add_argument("--verbosity", type=int, default=1, help="llama.cpp log level 0..4 (default 1: errors)")
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="m3-serve-llm: %(message)s")
    key = None
    if a.api_key_env:
        key = os.environ.get(a.api_key_env)
        if not key:
            print(f"m3-serve-llm: --api-key-env {a.api_key_env}: that variable is not set", file=sys.stderr)
            return 2
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        srv = LlamaHttpServer(model=a.model, model_path=a.model_path, host=a.host, port=a.port, alias=a.alias,
                              n_ctx=a.n_ctx, threads=a.threads, api_key=key, embeddings=a.embeddings,
                              pooling=a.pooling, verbosity=a.verbosity, flash_attn=a.flash_attn).start()
    except (ChatError, ValueError) as e:
        print(f"m3-serve-llm: {e}", file=sys.stderr)
        return 1
    name = srv.model_file.name if srv.model_file else "?"
    print(f"m3-serve-llm: serving {name} as {srv.alias!r} at {srv.base_url}", flush=True)
    while not stop.wait(1.0):
        pass
    srv.stop()
    print("m3-serve-llm: stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
