"""The request of the Hugging Face-format M3-Agent-Control model, shared by the in-process engines (vLLM on a GPU,
transformers anywhere) so the CPU-tested transformers path builds exactly what vLLM is given.

As upstream's control.py: the tokenizer's chat template with ``add_generation_prompt=True`` and
``enable_thinking=True`` (Qwen3; templates without the switch ignore it), tokenized to ids. transformers 5 returns a
``BatchEncoding`` from ``apply_chat_template(tokenize=True)`` where 4.x returned a list; both give a list of ints here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import ChatError


def load_tokenizer(model_dir: str | Path) -> Any:
    try:
        from transformers import AutoTokenizer
    except ImportError as e:
        raise ChatError("this backend needs transformers (pip install -r requirements.txt)") from e
    try:
        return AutoTokenizer.from_pretrained(str(model_dir))
    except (OSError, ValueError) as e:
        raise ChatError(f"no usable tokenizer in {model_dir}: {e}") from e


def chat_prompt_ids(tokenizer: Any, messages: list[dict[str, str]], enable_thinking: bool = True) -> list[int]:
    """Token ids of ``messages`` rendered by the model's chat template, ending with the assistant's turn start."""
    if not getattr(tokenizer, "chat_template", None):
        raise ChatError("the tokenizer has no chat template (tokenizer_config.json / chat_template.jinja)")
    try:
        out = tokenizer.apply_chat_template(messages, tokenize=True, add_generation_prompt=True,
                                            enable_thinking=enable_thinking)
    except Exception as e:  # jinja errors, bad message shapes
        raise ChatError(f"chat template failed on the messages: {type(e).__name__}: {e}") from e
    ids = out["input_ids"] if hasattr(out, "keys") else out
    if ids and isinstance(ids[0], list):   # batched form
        ids = ids[0]
    if not ids or not all(isinstance(i, int) for i in ids):
        raise ChatError(f"chat template gave no token ids: {str(out)[:200]}")
    return list(ids)
