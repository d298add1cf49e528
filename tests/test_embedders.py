"""Text embedders: the embedded MiniLM default and an OpenAI-compatible endpoint on loopback."""

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest

from m3_memory.embedders import EmbeddingError, OpenAIEmbedder, make_embedder, normalize_rows


def test_minilm_default_is_semantic_and_unit_norm():
    emb = make_embedder()
    assert emb.dim == 384
    v = emb.embed(["A man hands a woman a red folder.", "Someone gives a lady a red file.",
                   "The weather is cold and rainy today."])
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.3
    assert emb.embed([]).shape == (0, 384)


def test_normalize_rows_rejects_nan_and_zero():
    with pytest.raises(EmbeddingError):
        normalize_rows(np.array([[np.nan, 1.0]]))
    with pytest.raises(EmbeddingError):
        normalize_rows(np.zeros((1, 4)))


class _Handler(BaseHTTPRequestHandler):
    fail_first = 0
    requests: list = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append((self.path, self.headers.get("Authorization"), body))
        if type(self).fail_first > 0:
            type(self).fail_first -= 1
            self.send_response(503)
            self.end_headers()
            return
        data = [{"index": i, "embedding": [float(len(t)), 1.0, 0.0]} for i, t in enumerate(body["input"])]
        out = json.dumps({"data": list(reversed(data))}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *a):
        pass


def test_openai_compatible_embeddings_with_retry():
    server = HTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        _Handler.fail_first = 1
        emb = OpenAIEmbedder(f"http://127.0.0.1:{server.server_port}/v1", "test-model", api_key="sk-secret",
                             retries=2)
        assert emb.dim == 3 and emb.name == "openai:test-model"
        v = emb.embed(["ab", "abcd"])
        expect = normalize_rows(np.array([[2.0, 1.0, 0.0], [4.0, 1.0, 0.0]]))
        assert np.allclose(v, expect)  # order restored from "index" although the server reversed it
        path, auth, body = _Handler.requests[-1]
        assert path == "/v1/embeddings" and auth == "Bearer sk-secret" and body["model"] == "test-model"
        _Handler.fail_first = 10
        with pytest.raises(EmbeddingError, match="failed after 3 tries"):
            emb.embed(["x"])
    finally:
        server.shutdown()
