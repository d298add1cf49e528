"""Pickles with upstream M3-Agent's ``VideoGraph`` layout, built without upstream code.

A throw-away module named ``videograph`` (or ``mmagent.videograph``) is put into ``sys.modules`` holding a
class ``VideoGraph`` with upstream's attributes and a nested ``VideoGraph.Node``; the graph is pickled and the
module removed again, so a loader has to cope without it, as with the released M3-Bench memory graphs.

The graph (ids allocated as upstream does: per clip voices, then faces, then text nodes):

clip 0: voice 0 (Alice), face 1 (Alice), face 2 (Bob, 12 embeddings / 25 crops: over our caps),
        texts 3-6 incl. "Equivalence: <face_1>, <voice_0>" reinforced to weight 3 and a semantic memory at 2
clip 1: face 7 (Carol; first mentioned in clip 2), texts 8-9
clip 2: voice 10 (Bob), texts 11-14 incl. "Equivalence: <face_2>, <voice_10>"
clip 3: nothing
clip 4: face 15 (never mentioned), text 16
clip 5: face 17 (never mentioned, no memory in its clip)
"""

from __future__ import annotations

import base64
import pickle
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

TEXT_DIM = 3072
FACE_DIM = 512
VOICE_DIM = 192


def _make_module(name: str) -> type:
    """A ``VideoGraph`` class (with nested ``Node``) whose pickled references say ``{name}.VideoGraph``."""

    class VideoGraph:
        def __init__(self, max_img_embeddings: int = 10, max_audio_embeddings: int = 20,
                     img_matching_threshold: float = 0.3, audio_matching_threshold: float = 0.6) -> None:
            self.nodes: dict = {}
            self.edges: dict = {}
            self.text_nodes: list = []
            self.text_nodes_by_clip: dict = {}
            self.event_sequence_by_clip: dict = {}
            self.max_img_embeddings = max_img_embeddings
            self.max_audio_embeddings = max_audio_embeddings
            self.img_matching_threshold = img_matching_threshold
            self.audio_matching_threshold = audio_matching_threshold
            self.next_node_id = 0

        class Node:
            def __init__(self, node_id: int, node_type: str) -> None:
                self.id = node_id
                self.type = node_type
                self.embeddings: list = []
                self.metadata: dict = {}

    VideoGraph.__module__ = name
    VideoGraph.__qualname__ = "VideoGraph"
    VideoGraph.Node.__module__ = name
    VideoGraph.Node.__qualname__ = "VideoGraph.Node"
    return VideoGraph


def _install(name: str, cls: type) -> list[str]:
    added = []
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        mod_name = ".".join(parts[:i])
        if mod_name not in sys.modules:
            sys.modules[mod_name] = types.ModuleType(mod_name)
            added.append(mod_name)
    sys.modules[name].VideoGraph = cls  # type: ignore[attr-defined]
    return added


def _unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    v = rng.normal(size=(n, d))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _jpeg_b64(rng: np.random.Generator) -> str:
    # a JPEG-looking byte string (SOI/APP0 ... EOI); the importer treats crops as opaque base64 text
    body = rng.integers(0, 256, size=48, dtype=np.uint8).tobytes()
    return base64.b64encode(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + body + b"\xff\xd9").decode("ascii")


@dataclass
class Expected:
    """What the pickle holds, in the importer's terms (our kinds, text -> entity edges)."""

    entities: dict[int, dict] = field(default_factory=dict)     # uid -> kind, embeddings, contents
    texts: dict[int, dict] = field(default_factory=dict)        # uid -> kind, text, clip, vector (unit)
    edges: dict[tuple[int, int], float] = field(default_factory=dict)  # (text uid, entity uid) -> weight
    entity_clip: dict[int, int] = field(default_factory=dict)   # uid -> clip the importer should put it in
    clips: list[int] = field(default_factory=list)
    character_groups: list[set[str]] = field(default_factory=list)  # e.g. {"<face_1>", "<voice_0>"}
    next_node_id: int = 0


MEMORIES: list[tuple[int, int, str, str, dict[int, float]]] = [
    # (clip, uid, kind, text, {entity uid: edge weight})
    (0, 3, "episodic", "<face_1> pours a cup of coffee in the kitchen.", {1: 1.0}),
    (0, 4, "episodic", "<voice_0> says: Good morning, I'm Alice.", {0: 1.0}),
    (0, 5, "semantic", "Equivalence: <face_1>, <voice_0>", {1: 3.0, 0: 3.0}),
    (0, 6, "semantic", "<face_1> likes black coffee without sugar.", {1: 2.0}),
    (1, 8, "episodic", "<face_2> hands <face_1> a red folder.", {2: 1.0, 1: 1.0}),
    (1, 9, "semantic", "The kitchen has a large window facing the garden.", {}),
    (2, 11, "episodic", "<face_7> waters the plant by the window.", {7: 1.0}),
    (2, 12, "episodic", "<voice_10> asks where the car keys are.", {10: 1.0}),
    (2, 13, "semantic", "Equivalence: <face_2>, <voice_10>", {2: 1.0, 10: 1.0}),
    (2, 14, "episodic", "<face_2> puts the car keys in the top drawer.", {2: 1.0}),
    (4, 16, "episodic", "<face_1> and <face_2> leave the house together.", {1: 1.0, 2: 1.0}),
]
# uid -> (kind, n embeddings, n contents, clip the importer should place it in)
ENTITIES: dict[int, tuple[str, int, int, int]] = {
    0: ("voice", 2, 2, 0), 1: ("face", 3, 3, 0), 2: ("face", 12, 25, 0),
    7: ("face", 3, 2, 1),      # created in clip 1 (before text 8), first mentioned in clip 2
    10: ("voice", 1, 1, 2),
    15: ("face", 2, 1, 4),     # never mentioned: clip of the next text node (16)
    17: ("face", 1, 1, 4),     # never mentioned, after every text node: the last clip with memories
}
UPSTREAM_CHARACTERS = {"character_0": ["face_1", "voice_0"], "character_1": ["face_2", "voice_10"],
                       "character_2": ["face_7"], "character_3": ["face_15"], "character_4": ["face_17"]}
ASR = {0: ["Good morning, I'm Alice.", "Coffee?"], 10: ["Where are the car keys?"]}


def build_upstream_pickle(path: Path, protocol: int = 4, module: str = "videograph", numpy_arrays: bool = False,
                          seed: int = 0, extra_node: object | None = None) -> Expected:
    """Write the graph described in the module docstring to ``path``; return what it holds.

    ``numpy_arrays``: embeddings as numpy arrays (text: ``[np.ndarray]``) instead of float lists.
    ``extra_node``: any object stored in a node's metadata (to smuggle a forbidden global in).
    """
    rng = np.random.default_rng(seed)
    cls = _make_module(module)
    added = _install(module, cls)
    try:
        g = cls(max_img_embeddings=12)
        exp = Expected(next_node_id=18, clips=[0, 1, 2, 4])

        def emb(rows: np.ndarray) -> list:
            return [r.astype(np.float32) if numpy_arrays else [float(x) for x in r] for r in rows]

        for uid, (kind, n_emb, n_cont, clip) in ENTITIES.items():
            node = cls.Node(uid, "img" if kind == "face" else "voice")
            vecs = _unit(rng, n_emb, FACE_DIM if kind == "face" else VOICE_DIM)
            node.embeddings = emb(vecs)
            contents = [_jpeg_b64(rng) for _ in range(n_cont)] if kind == "face" else list(ASR[uid][:n_cont])
            node.metadata["contents"] = contents
            g.nodes[uid] = node
            exp.entities[uid] = {"kind": kind, "embeddings": vecs.astype(np.float32), "contents": contents}
            exp.entity_clip[uid] = clip
        for clip, uid, kind, text, edges in MEMORIES:
            node = cls.Node(uid, kind)
            vec = _unit(rng, 1, TEXT_DIM)[0]
            node.embeddings = [vec.astype(np.float64)] if numpy_arrays else [[float(x) for x in vec]]
            node.metadata["contents"] = [text]
            node.metadata["timestamp"] = clip
            g.nodes[uid] = node
            g.text_nodes.append(uid)
            g.text_nodes_by_clip.setdefault(clip, []).append(uid)
            if kind == "episodic":
                g.event_sequence_by_clip.setdefault(clip, []).append(uid)
            for ent, w in edges.items():  # upstream stores both directions with the same weight
                g.edges[(uid, ent)] = w
                g.edges[(ent, uid)] = w
                exp.edges[(uid, ent)] = w
            exp.texts[uid] = {"kind": kind, "text": text, "clip": clip, "vector": vec.astype(np.float32)}
        if extra_node is not None:
            g.nodes[1].metadata["extra"] = extra_node
        g.nodes = dict(sorted(g.nodes.items()))  # upstream inserts in id order
        g.next_node_id = 18
        g.character_mappings = UPSTREAM_CHARACTERS
        g.reverse_character_mappings = {t: c for c, tags in UPSTREAM_CHARACTERS.items() for t in tags}
        exp.character_groups = [{f"<{t}>" for t in tags} for tags in UPSTREAM_CHARACTERS.values()]
        with open(path, "wb") as f:
            pickle.dump(g, f, protocol=protocol)
    finally:
        for name in reversed(added):
            sys.modules.pop(name, None)
    return exp


class _Evil:
    """Pickles as a call of ``os.system`` (what a malicious memory file would contain)."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple:
        import os

        return (os.system, (self.command,))


def build_malicious_pickle(path: Path, command: str, protocol: int = 4) -> None:
    """An otherwise valid upstream graph with an ``os.system(command)`` call hidden in a node's metadata."""
    build_upstream_pickle(path, protocol=protocol, extra_node=_Evil(command))
