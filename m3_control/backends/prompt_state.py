"""The embedded model's warmed prompt prefix, kept on disk between processes.

Warming the query prompt (system prompt and few-shot turns, ~3.4k tokens) costs the embedded model 50-110 s of
prompt processing on two CPU cores, at every start of a node. llama.cpp's server can save a slot (its tokens and
KV cache) to a file and restore it: ~100 MB written once, read back in a fraction of a second. This module names
those files and talks to the in-process server's ``/slots`` endpoint (127.0.0.1, the server's own API key).

A file is named by everything its KV values depend on: the model file (name, size, modification time), the
llama.cpp build (xllamacpp's version), the context and batch sizes, the thread count, and the prompt itself; a
file of any other prompt or model is never read. A restored slot also carries its tokens, and llama.cpp reuses
only the prefix whose tokens match the next request, so a wrong file can cost time, never a wrong reply. Files are
written under a temporary name and renamed (a killed process leaves no half file under the real name); the
newest ``KEEP`` files per model stay, older ones are removed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from importlib import metadata
from pathlib import Path
from typing import Any

from m3_memory.packaged_models import CACHE

log = logging.getLogger(__name__)

DEFAULT_DIR = CACHE / "prompt_states"
KEEP = 6                                   # files per model kept, the most recently used (one per prompt)
SUFFIX = ".slot"
_DIGEST = 24                               # hex digits of the name's hash
_AFTER_STEM = re.compile(rf"-[0-9a-f]{{{_DIGEST}}}{re.escape(SUFFIX)}(?:\.tmp-(\d+))?")


class PromptStateError(RuntimeError):
    """A slot could not be saved or restored (the caller then processes the prompt itself)."""


def state_name(model: Path, messages: list[dict[str, str]], settings: dict[str, Any]) -> str:
    """The file name of this prompt's state for this model and these server settings."""
    st = model.stat()
    try:
        build = metadata.version("xllamacpp")
    except metadata.PackageNotFoundError:
        build = "unknown"
    ident = json.dumps({"model": [model.name, st.st_size, st.st_mtime_ns], "build": build, "settings": settings,
                        "messages": messages}, sort_keys=True, ensure_ascii=False)
    return f"{_file_stem(model.stem)}-{hashlib.sha256(ident.encode()).hexdigest()[:_DIGEST]}{SUFFIX}"


def _file_stem(model_stem: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in model_stem)[:60]


def slot_action(address: str, api_key: str, action: str, filename: str, timeout_s: float = 120.0) -> dict:
    """POST /slots/0?action=save|restore to the in-process server; the reply's JSON, or PromptStateError."""
    import httpx

    base = address if address.startswith("http") else f"http://{address}"
    try:
        r = httpx.post(f"{base}/slots/0", params={"action": action}, json={"filename": filename},
                       headers={"Authorization": f"Bearer {api_key}"}, timeout=timeout_s, trust_env=False)
        body = r.json()
    except (httpx.HTTPError, ValueError) as e:
        raise PromptStateError(f"slot {action} of {filename}: {e}") from e
    if r.status_code != 200 or not isinstance(body, dict) or "error" in body:
        raise PromptStateError(f"slot {action} of {filename}: HTTP {r.status_code} {str(body)[:200]}")
    return body


def prune(folder: Path, model_stem: str, keep: int = KEEP) -> list[Path]:
    """Remove all but the ``keep`` newest state files of this model (and temporary files left by killed
    processes); the removed paths."""
    stem = _file_stem(model_stem)
    mine: list[Path] = []
    stale: list[Path] = []
    for p in folder.iterdir():
        # exactly this model's names: another model whose name starts like this one ("gemma" / "gemma-3") is not it
        m = _AFTER_STEM.fullmatch(p.name[len(stem):]) if p.name.startswith(stem) and p.is_file() else None
        if m is None:
            continue
        if m.group(1) is None:
            mine.append(p)
        elif not _alive(m.group(1)):
            stale.append(p)
    mine.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    removed = []
    for p in mine[keep:] + stale:
        try:
            p.unlink()
            removed.append(p)
        except OSError:
            pass
    return removed


def _alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True
