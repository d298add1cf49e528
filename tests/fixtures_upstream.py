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
(grown, the same run memorized further: clip 6: face 18, text 19 "<face_18> greets <face_1> at the door.")

Also: ``build_large_pickle`` (many clips, for kill/timing tests) and ``build_bomb_pickle`` (a small file that
unpickles into a huge graph: one big content referenced many times).
"""

from __future__ import annotations

import base64
import contextlib
import pickle
import sys
import types
from collections.abc import Iterator
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


@contextlib.contextmanager
def _graph_class(module: str = "videograph") -> Iterator[type]:
    """The ``VideoGraph`` class, importable as ``{module}.VideoGraph`` while the block runs (to pickle it)."""
    cls = _make_module(module)
    added = _install(module, cls)
    try:
        yield cls
    finally:
        for name in reversed(added):
            sys.modules.pop(name, None)


GROWN_TEXT = "<face_18> greets <face_1> at the door."


def build_upstream_pickle(path: Path, protocol: int = 4, module: str = "videograph", numpy_arrays: bool = False,
                          seed: int = 0, extra_node: object | None = None, grown: bool = False) -> Expected:
    """Write the graph described in the module docstring to ``path``; return what it holds.

    ``numpy_arrays``: embeddings as numpy arrays (text: ``[np.ndarray]``) instead of float lists.
    ``extra_node``: any object stored in a node's metadata (to smuggle a forbidden global in).
    ``grown``: the same graph memorized one clip further (clip 6: face 18 and text 19); every other node is
    the same as without it.
    """
    rng = np.random.default_rng(seed)
    with _graph_class(module) as cls:
        g = cls(max_img_embeddings=12)
        exp = Expected(next_node_id=18, clips=[0, 1, 2, 4])

        def emb(rows: np.ndarray) -> list:
            return [r.astype(np.float32) if numpy_arrays else [float(x) for x in r] for r in rows]

        def add_entity(uid: int, kind: str, n_emb: int, n_cont: int, clip: int) -> None:
            node = cls.Node(uid, "img" if kind == "face" else "voice")
            vecs = _unit(rng, n_emb, FACE_DIM if kind == "face" else VOICE_DIM)
            node.embeddings = emb(vecs)
            contents = [_jpeg_b64(rng) for _ in range(n_cont)] if kind == "face" else list(ASR[uid][:n_cont])
            node.metadata["contents"] = contents
            g.nodes[uid] = node
            exp.entities[uid] = {"kind": kind, "embeddings": vecs.astype(np.float32), "contents": contents}
            exp.entity_clip[uid] = clip

        def add_text(clip: int, uid: int, kind: str, text: str, edges: dict[int, float]) -> None:
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

        for uid, (kind, n_emb, n_cont, clip) in ENTITIES.items():
            add_entity(uid, kind, n_emb, n_cont, clip)
        for clip, uid, kind, text, edges in MEMORIES:
            add_text(clip, uid, kind, text, edges)
        characters = dict(UPSTREAM_CHARACTERS)
        if grown:  # drawn after everything else: the other nodes stay the same
            add_entity(18, "face", 2, 1, 6)
            add_text(6, 19, "episodic", GROWN_TEXT, {18: 1.0, 1: 1.0})
            characters["character_5"] = ["face_18"]
            exp.clips.append(6)
        if extra_node is not None:
            g.nodes[1].metadata["extra"] = extra_node
        g.nodes = dict(sorted(g.nodes.items()))  # upstream inserts in id order
        g.next_node_id = exp.next_node_id = 20 if grown else 18
        g.character_mappings = characters
        g.reverse_character_mappings = {t: c for c, tags in characters.items() for t in tags}
        exp.character_groups = [{f"<{t}>" for t in tags} for tags in characters.values()]
        with open(path, "wb") as f:
            pickle.dump(g, f, protocol=protocol)
    return exp


def build_large_pickle(path: Path, clips: int, texts_per_clip: int, faces_per_clip: int = 2, dim: int = 32,
                       seed: int = 0, name: str = "big") -> dict[str, int]:
    """A long graph (upstream layout) for kill/timing tests: per clip new faces, then memories about them with
    ``dim``-d text vectors and edges to the clip's faces; ``name`` goes into every text and crop (another name,
    another video). Returns the node counts by our kind."""
    rng = np.random.default_rng(seed)
    with _graph_class() as cls:
        g = cls()
        uid = 0
        for clip in range(clips):
            faces = []
            for _ in range(faces_per_clip):
                node = cls.Node(uid, "img")
                node.embeddings = list(_unit(rng, 2, 16).astype(np.float32))
                node.metadata["contents"] = [f"{name} crop {uid}"]
                g.nodes[uid] = node
                faces.append(uid)
                uid += 1
            vecs = _unit(rng, texts_per_clip, dim).astype(np.float32)
            for i in range(texts_per_clip):
                node = cls.Node(uid, "episodic")
                face = faces[i % len(faces)]
                node.embeddings = [vecs[i]]
                node.metadata.update(contents=[f"<face_{face}> does thing {i} in {name} clip {clip}."],
                                     timestamp=clip)
                g.nodes[uid] = node
                g.text_nodes.append(uid)
                g.text_nodes_by_clip.setdefault(clip, []).append(uid)
                g.edges[(uid, face)] = g.edges[(face, uid)] = 1.0
                uid += 1
        g.next_node_id = uid
        with open(path, "wb") as f:
            pickle.dump(g, f, protocol=4)
    n_faces = clips * faces_per_clip
    return {"face": n_faces, "voice": 0, "episodic": clips * texts_per_clip, "semantic": 0}


def build_bomb_pickle(path: Path, faces: int, content_chars: int, refs_per_face: int = 20) -> int:
    """A small file that unpickles into a huge graph: ``faces`` face nodes whose contents are all the same
    ``content_chars``-character string, referenced ``refs_per_face`` times each (pickle stores it once).
    Returns the number of content characters the graph would bring in."""
    big = "A" * content_chars
    with _graph_class() as cls:
        g = cls()
        row = [1.0] + [0.0] * (FACE_DIM - 1)
        for uid in range(faces):
            node = cls.Node(uid, "img")
            node.embeddings = [row]
            node.metadata["contents"] = [big] * refs_per_face
            g.nodes[uid] = node
        node = cls.Node(faces, "episodic")
        node.embeddings = [[1.0, 0.0, 0.0, 0.0]]
        node.metadata.update(contents=["<face_0> waves."], timestamp=0)
        g.nodes[faces] = node
        g.text_nodes_by_clip = {0: [faces]}
        g.edges = {(faces, 0): 1.0, (0, faces): 1.0}
        g.next_node_id = faces + 1
        with open(path, "wb") as f:
            pickle.dump(g, f, protocol=4)
    return faces * refs_per_face * content_chars


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
