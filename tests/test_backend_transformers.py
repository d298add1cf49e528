"""The transformers control backend on CPU with a tiny random Qwen3 model (M3-Agent-Control's architecture) and
the packaged model's real tokenizer: the request is the one the vLLM backend builds, generation runs, and the
reasoning loop turns the random model's garbage into the labelled fallback."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from m3_control.backends import make_backend
from m3_control.backends.base import ChatError
from m3_control.backends.transformers_local import TransformersBackend
from m3_control.backends.vllm_local import VLLMBackend
from m3_control.m3_answerer import M3Answerer
from m3_control.protocol import initial_messages

from .store_helpers import kitchen_store
from .tiny_hf import tiny_control_model

pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("transformers") is None, reason="transformers not installed"),
    pytest.mark.timeout(300),
]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_control_model(tmp_path_factory.mktemp("tiny-qwen3"))


def test_request_is_the_vllm_request(model_dir: Path) -> None:
    msgs = initial_messages("Where are the car keys?")
    tf = TransformersBackend(str(model_dir))
    ids = tf.prompt_ids(msgs)
    assert ids == VLLMBackend(str(model_dir)).prompt_ids(msgs)   # one request builder for both engines
    text = tf._tok.decode(ids)
    assert text.startswith("<|im_start|>system\n") and text.endswith("<|im_start|>assistant\n")
    assert "Where are the car keys?" in text and text.count("<|im_start|>") == len(msgs) + 1
    with pytest.raises(ChatError, match="chat template"):
        tf.prompt_ids([{"role": "user", "content": None}, 5])  # type: ignore[list-item]


def test_tiny_model_generates_deterministically(model_dir: Path) -> None:
    be = make_backend({"backend": "transformers", "model_dir": str(model_dir), "max_tokens": 12,
                       "temperature": 0.0})
    assert isinstance(be, TransformersBackend) and be.name == f"transformers:{model_dir.name}"
    a = be.complete(initial_messages("Where are the car keys?"))
    b = be.complete(initial_messages("Where are the car keys?"))
    assert isinstance(a, str) and a and a == b   # random weights: any text, but the same text for the same prompt
    n_new = len(be._tok(a, add_special_tokens=False)["input_ids"])
    assert 1 <= n_new <= 12   # max_tokens reached the generation (re-tokenizing may merge tokens)
    sampled = TransformersBackend(str(model_dir), max_tokens=12, seed=1)   # upstream sampling (0.6 / 0.95 / 20)
    assert sampled.generation_kwargs()["do_sample"] is True and isinstance(sampled.complete(
        initial_messages("Where are the car keys?")), str)


def test_reasoning_loop_turns_garbage_into_the_labelled_fallback(model_dir: Path, tmp_path: Path) -> None:
    store, ids = kitchen_store(tmp_path / "m.db")
    ans = M3Answerer(store, backend={"backend": "transformers", "model_dir": str(model_dir), "max_tokens": 10,
                                     "temperature": 0.0},
                     prompt="m3", fallback="extractive", max_consecutive_invalid=2, threshold=0.2)
    out = ans.answer("Where are the car keys?", None, max_rounds=3)
    rounds = out.trace["rounds"]
    assert out.trace["answer_source"] == "fallback" and out.answer.startswith("[extractive]")
    assert out.trace["backend"] == f"transformers:{model_dir.name}"
    assert len(rounds) == 2 and all(r["action"] == "invalid" and r["reply"] for r in rounds), rounds
    assert "no answer" in out.trace["fallback_reason"] or "invalid" in out.trace["fallback_reason"]
    assert ids["m_keys"] in out.cited_memory_ids
