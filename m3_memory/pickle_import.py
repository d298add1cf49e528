"""Import upstream M3-Agent memory graphs (pickled ``VideoGraph``, e.g. the released M3-Bench memories).

Upstream's code is *not* needed and never imported: a restricted unpickler maps the pickle's references to
``videograph.VideoGraph`` / ``mmagent.videograph.VideoGraph`` (and the nested ``VideoGraph.Node``) to small
local stand-ins that only hold attributes, allows numpy's array/dtype/scalar reconstruction and a few plain
builtins, and refuses every other global (``os.system``, ``builtins.eval``, ...) before anything is called.

What comes across (upstream layout: docs/upstream-spec.md §4.4):

* every node keeps its upstream id; ``img`` nodes become ``face`` nodes (embeddings capped by the store's
  config, base64 JPEG crops as ``face_jpeg_b64`` text contents), ``voice`` nodes keep embeddings and ASR
  contents, ``episodic``/``semantic`` nodes their text (``metadata['contents'][0]``) and vector (or a fresh one
  from the store's embedder with ``reembed=True``). Text nodes are inserted verbatim: no semantic
  reinforce/dedup as a live ``add_memory`` would do;
* edges (stored in both directions upstream) become our text -> entity edges with their weights; a text
  node's weight is its largest edge weight (our reinforcement counter, upstream only kept edge weights);
* each upstream clip (``text_nodes_by_clip``) becomes one store clip, in clip order, at
  ``[clip * clip_seconds, (clip + 1) * clip_seconds)``; an entity goes into the earliest clip that either
  references it or (upstream allocates ids in clip order) holds the first text node created after it;
* an entity's character seed is its upstream id, so a character's id is the smallest upstream entity id
  in it; equivalences are ordinary semantic nodes the store resolves itself; upstream's
  ``character_mappings`` (if present) are compared with ours in the report.

How it is written (issue 10):

* all or nothing: the graph is read, planned and checked completely first; the writes then go into ONE
  transaction (``BEGIN IMMEDIATE ... COMMIT``), and :func:`import_pickle_file` builds a NEW database in a
  temporary file next to it and moves it into place (fsync, then an atomic link/rename) only once complete,
  so a process killed at any moment leaves the old store (or no file) or the fully imported one;
* idempotent: the pickle's sha256 is recorded in ``meta`` (``import:<sha256>``, with counts and time): the
  same file imports again as "already imported, 0 added". Each node also has a key, (graph origin, upstream
  id): the origin hashes what upstream never rewrites (the first clip's nodes), so a later, grown pickle of
  the same memorization run (or the same graph pickled again) adds only the nodes not imported before, and
  its new memories refer to the entities already in the store; nodes deleted since (``forget``) stay deleted;
* capped before writing: every :class:`ImportLimits` cap (node/edge counts, embeddings per node, vector
  length, text and content length, total bytes) is counted on the unpickled data (a pickle can reference
  one object many times) while planning, before any conversion that could blow up and before any write,
  and fails with :class:`ImportCapError` naming the cap and the value; the store's own per-entity caps
  (``max_face_embeddings`` ..., ``max_contents_per_entity``) are applied in the plan too, so the store never
  holds more than it keeps.
"""

from __future__ import annotations

import base64
import bisect
import contextlib
import glob
import hashlib
import importlib
import io
import json
import math
import os
import pickle
import re
import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from .config import StoreConfig
from .embedders import EmbeddingError, TextEmbedder, make_embedder, normalize_rows
from .store import ClipWriter, MemoryStore, StoreError
from .tags import entity_tag, find_tags, is_equivalence, replace_tags

UPSTREAM_MODULES = ("videograph", "mmagent.videograph")
DEFAULT_TEXT_EMBEDDER = "openai:text-embedding-3-large"
_KIND_OF_TYPE = {"img": "face", "face": "face", "voice": "voice", "episodic": "episodic", "semantic": "semantic"}


class PickleImportError(StoreError):
    """The pickle cannot be imported (unreadable, not a VideoGraph, store not empty, ...)."""


class ForbiddenGlobalError(PickleImportError, pickle.UnpicklingError):
    """The pickle references a global outside the allow-list; nothing of it was executed."""


class ImportCapError(PickleImportError):
    """The pickle exceeds an :class:`ImportLimits` cap; raised before anything was written."""

    def __init__(self, source: str, cap: str, value: int, limit: int, what: str) -> None:
        self.cap, self.value, self.limit = cap, value, limit
        super().__init__(f"{source}: refused, nothing was written: {what} is {value:,}, over the cap {cap} = "
                         f"{limit:,} (raise the cap only for a pickle you trust)")


@dataclass(frozen=True)
class ImportLimits:
    """Caps on what a pickle may bring in, counted on the unpickled graph before anything is written.

    A pickle can reference one object many times, so a small file can unpickle into a huge graph (a 1 MB
    pickle once grew a store to 4.2 GB): sizes are counted per reference, while planning, and each is checked
    before the conversion (and long before the write) it bounds.
    """

    max_nodes: int = 200_000              # VideoGraph.nodes (and text_nodes_by_clip entries, character_mappings)
    max_edges: int = 5_000_000            # VideoGraph.edges entries (both directions)
    max_embeddings_per_node: int = 256    # of one face/voice node in the pickle (upstream keeps 10 / 20)
    max_embedding_dim: int = 8192         # one vector (text-embedding-3-large: 3072)
    max_text_chars: int = 100_000         # one memory text
    max_content_chars: int = 8_000_000    # one content: a base64 face crop or a voice turn
    max_total_bytes: int = 2 * 1024**3    # vectors, texts and contents the import loads and writes, in all

    @classmethod
    def with_caps(cls, **caps: int | None) -> ImportLimits:
        """The defaults with the given caps changed (``None`` keeps a default)."""
        return cls(**{k: int(v) for k, v in caps.items() if v is not None})


# ---------------------------------------------------------------------------------------------- unpickling
class _Sealed(type):
    """Metaclass of the stand-ins: a pickle's BUILD on the *class* (``setattr(VideoGraph, ...)``) would change
    it for every later load in this process; refuse it."""

    def __setattr__(cls, name: str, value: object) -> None:
        raise ForbiddenGlobalError(f"refusing to set attribute {name!r} on class {cls.__name__} from a pickle")

    def __delattr__(cls, name: str) -> None:
        raise ForbiddenGlobalError(f"refusing to delete attribute {name!r} of class {cls.__name__} from a pickle")


class _AttributeBag(metaclass=_Sealed):
    """Accepts whatever state the pickle restores (a ``__dict__``, or ``(dict, slots)``) and nothing else."""

    def __setstate__(self, state: object) -> None:
        if state is None:
            return
        slots: object = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slots = state
        for part in (state, slots):
            if part is None:
                continue
            if not isinstance(part, dict):
                raise pickle.UnpicklingError(f"unexpected state of type {type(part).__name__} for "
                                             f"{type(self).__name__}")
            self.__dict__.update({str(k): v for k, v in part.items()})

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {sorted(self.__dict__)}>"


class UpstreamVideoGraph(_AttributeBag):
    """Stand-in for ``mmagent.videograph.VideoGraph``: attributes only (nodes, edges, text_nodes_by_clip, ...)."""


class UpstreamNode(_AttributeBag):
    """Stand-in for ``VideoGraph.Node``: ``id``, ``type``, ``embeddings``, ``metadata``."""


def _safe_getattr(obj: object, name: str) -> object:
    # protocols < 4 pickle the nested class as getattr(videograph.VideoGraph, "Node"); nothing else passes
    if obj is UpstreamVideoGraph and name == "Node":
        return UpstreamNode
    raise ForbiddenGlobalError(f"refusing getattr({obj!r}, {name!r}) in the pickle: only "
                               "getattr(VideoGraph, 'Node') is allowed")


def _latin1_encode(obj: str, encoding: str = "utf-8", errors: str = "strict") -> bytes:
    # how protocols < 3 pickle bytes: _codecs.encode(text, "latin1")
    if encoding.lower().replace("-", "").replace("_", "") not in ("latin1", "iso88591"):
        raise ForbiddenGlobalError(f"refusing _codecs.encode with encoding {encoding!r} in the pickle")
    return obj.encode("latin-1", errors)


def _reconstructor(cls: type, base: type, state: object) -> object:
    # how protocols 0/1 pickle instances: copyreg._reconstructor(cls, object, None); only for the stand-ins
    if not (isinstance(cls, type) and issubclass(cls, _AttributeBag)) or base is not object or state is not None:
        raise ForbiddenGlobalError(f"refusing copyreg._reconstructor({cls!r}, {base!r}, ...) in the pickle")
    return object.__new__(cls)


def _np_frombuffer(buf: object, dtype: object, shape: object, order: object) -> object:
    # numpy's _frombuffer is a plain Python function: hand out a wrapper so a pickle cannot alter the original
    fn = _numpy_attr("numeric", "_frombuffer")
    return fn(buf, dtype, shape, order)  # type: ignore[operator]


def _np_reconstruct(subtype: object, shape: object, dtype: object) -> object:
    # numpy pickles an array as _reconstruct(ndarray, (0,), b"b") followed by __setstate__ with the data
    if subtype is not np.ndarray or tuple(shape) != (0,):  # type: ignore[call-overload]
        raise ForbiddenGlobalError(f"refusing numpy _reconstruct({subtype!r}, {shape!r}, ...) in the pickle")
    fn = _numpy_attr("multiarray", "_reconstruct")
    return fn(subtype, shape, dtype)  # type: ignore[operator]


def _binary(kind: type) -> Callable[..., object]:
    # protocols < 5 pickle bytes(), bytearray(data[, encoding]); never bytes(n) / bytearray(n) (huge allocations)
    def make(*args: object) -> object:
        if args and (not isinstance(args[0], (bytes, str)) or len(args) > 2):
            raise ForbiddenGlobalError(f"refusing {kind.__name__}() of anything but bytes/str data in the pickle")
        return kind(*args)

    return make


# builtins a pickle may name: containers pickled by reduction (protocols < 4), the base for protocol 0/1 and
# plain types (e.g. a defaultdict's factory); none of them allocates much more than the pickle's own data
_BUILTINS: dict[str, object] = {
    "set": set, "frozenset": frozenset, "complex": complex, "object": object, "list": list, "dict": dict,
    "tuple": tuple, "str": str, "int": int, "float": float, "bool": bool,
    "bytes": _binary(bytes), "bytearray": _binary(bytearray), "getattr": _safe_getattr}
_MODULE_ALIASES = {"__builtin__": "builtins", "copy_reg": "copyreg"}


def _numpy_attr(sub: str, name: str) -> object | None:
    for pkg in ("numpy._core", "numpy.core"):
        with contextlib.suppress(ImportError, AttributeError):
            return getattr(importlib.import_module(f"{pkg}.{sub}"), name)
    return None


def _numpy_global(module: str, name: str) -> object | None:
    """numpy's reconstruction helpers under their numpy 1 (``numpy.core``) or numpy 2 (``numpy._core``) names."""
    sub = {"numpy.core.multiarray": "multiarray", "numpy._core.multiarray": "multiarray",
           "numpy.core.numeric": "numeric", "numpy._core.numeric": "numeric"}.get(module)
    if sub == "multiarray" and name == "scalar":
        return _numpy_attr(sub, name)  # a C function: immutable
    if sub == "multiarray" and name == "_reconstruct":
        return _np_reconstruct
    if sub == "numeric" and name == "_frombuffer":
        return _np_frombuffer
    if module == "numpy" and name in ("ndarray", "dtype"):
        return getattr(np, name)
    if module == "numpy.dtypes" and name.endswith("DType") and name.isidentifier():
        import numpy.dtypes

        obj = getattr(numpy.dtypes, name, None)
        return obj if isinstance(obj, type) and issubclass(obj, np.dtype) else None
    return None


class RestrictedUnpickler(pickle.Unpickler):
    """Unpickler that resolves only the VideoGraph stand-ins, numpy arrays/dtypes/scalars and plain types."""

    def __init__(self, file: IO[bytes], source: str = "<pickle>") -> None:
        super().__init__(file)
        self.source = source

    def find_class(self, module: str, name: str) -> Any:
        module = _MODULE_ALIASES.get(module, module)
        found: object | None = None
        if module in UPSTREAM_MODULES:
            found = {"VideoGraph": UpstreamVideoGraph, "VideoGraph.Node": UpstreamNode}.get(name)
        elif module == "builtins":
            found = _BUILTINS.get(name)
        elif module == "copyreg" and name == "_reconstructor":
            found = _reconstructor
        elif module == "_codecs" and name == "encode":
            found = _latin1_encode
        elif module == "collections" and name in ("OrderedDict", "defaultdict"):
            import collections

            found = getattr(collections, name)
        elif module.startswith("numpy"):
            found = _numpy_global(module, name)
        if found is None:
            raise ForbiddenGlobalError(
                f"{self.source}: refusing to load the global {module}.{name} from the pickle (only "
                "VideoGraph/VideoGraph.Node, numpy arrays and plain Python types are allowed; nothing was executed)")
        return found

    def persistent_load(self, pid: object) -> Any:
        raise ForbiddenGlobalError(f"{self.source}: refusing a persistent id in the pickle ({pid!r})")


def load_videograph(source: str | Path | IO[bytes]) -> UpstreamVideoGraph:
    """Unpickle an upstream ``VideoGraph`` safely (see :class:`RestrictedUnpickler`)."""
    label = str(source) if isinstance(source, (str, Path)) else str(getattr(source, "name", "<pickle>"))
    with contextlib.ExitStack() as stack:
        if isinstance(source, (str, Path)):
            if not Path(source).is_file():
                raise FileNotFoundError(f"pickle not found: {source}")
            fh: IO[bytes] = stack.enter_context(open(source, "rb"))  # noqa: SIM115
        else:
            fh = source
        try:
            graph = RestrictedUnpickler(fh, str(label)).load()
        except ForbiddenGlobalError:
            raise
        except (pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError, IndexError, KeyError,
                ImportError, UnicodeDecodeError, OverflowError, MemoryError, RecursionError) as e:
            raise PickleImportError(f"{label}: not a readable VideoGraph pickle ({type(e).__name__}: {e})") from e
    if not isinstance(graph, UpstreamVideoGraph):
        raise PickleImportError(f"{label}: the pickle holds a {type(graph).__name__}, not an upstream VideoGraph")
    if not isinstance(getattr(graph, "nodes", None), dict):
        raise PickleImportError(f"{label}: the VideoGraph has no 'nodes' dict")
    return graph


# ---------------------------------------------------------------------------------------------- report
_KINDS = ("face", "voice", "episodic", "semantic")


@dataclass
class ImportReport:
    source: str
    sha256: str = ""                                               # of the pickle file
    already_imported: bool = False                                 # this very file was imported before: 0 added
    already_present: int = 0                                       # nodes imported before from the same graph
    nodes: dict[str, int] = field(default_factory=dict)            # imported, by our kind
    upstream_nodes: dict[str, int] = field(default_factory=dict)   # in the pickle, by upstream type
    edges: int = 0                                                 # text -> entity edges imported
    upstream_edges: int = 0                                        # directed entries in VideoGraph.edges
    clips: int = 0
    clip_ids: list[int] = field(default_factory=list)              # store clip ids written, in order
    equivalences: int = 0
    embeddings_in: dict[str, int] = field(default_factory=dict)    # entity embeddings in the pickle
    embeddings_kept: dict[str, int] = field(default_factory=dict)  # after the store's caps
    contents_in: dict[str, int] = field(default_factory=dict)
    contents_kept: dict[str, int] = field(default_factory=dict)
    text_embedder: str | None = None
    text_dim: int | None = None
    reembedded: bool = False
    node_id_offset: int = 0
    clip_id_offset: int = 0
    time_offset: float = 0.0
    upstream_next_node_id: int | None = None
    characters_upstream: list[list[str]] | None = None             # member tags per upstream character
    characters_ours: dict[int, list[str]] = field(default_factory=dict)
    characters_match: bool | None = None                           # same grouping (None: pickle had none)
    skipped: list[tuple[str, str]] = field(default_factory=list)   # (item, reason)
    notes: list[str] = field(default_factory=list)
    counted_bytes: int = 0                                         # what the max_total_bytes cap counted
    seconds: float = 0.0

    @property
    def added(self) -> int:
        return sum(self.nodes.values())

    def to_dict(self) -> dict:
        d = asdict(self)
        d["characters_ours"] = {str(k): v for k, v in self.characters_ours.items()}
        d["skipped"] = [{"item": i, "reason": r} for i, r in self.skipped]
        d["added"] = self.added
        return d

    def summary(self) -> str:
        if self.already_imported:
            return "\n".join([f"{self.source}: already imported, 0 added (sha256 {self.sha256[:16]}...)"]
                             + [f"  note: {note}" for note in self.notes])

        def kinds(d: dict[str, int]) -> str:
            return ", ".join(f"{k} {v}" for k, v in d.items()) or "none"

        ids = f" (ids {self.clip_ids[0]}..{self.clip_ids[-1]})" if self.clip_ids else ""
        lines = [
            f"imported {self.source} in {self.seconds:.2f} s: {self.added} nodes added",
            f"  clips:       {self.clips}{ids}",
            f"  nodes:       {kinds(self.nodes)}   (pickle: {kinds(self.upstream_nodes)})",
            f"  edges:       {self.edges} text->entity   (pickle: {self.upstream_edges} directed)",
            f"  equivalences: {self.equivalences}",
            "  embeddings:  " + ", ".join(f"{k} {self.embeddings_in.get(k, 0)} -> {self.embeddings_kept.get(k, 0)} kept"
                                          for k in ("face", "voice")),
            "  contents:    " + ", ".join(f"{k} {self.contents_in.get(k, 0)} -> {self.contents_kept.get(k, 0)} kept"
                                          for k in ("face", "voice")),
            f"  text vectors: {self.text_embedder} ({self.text_dim}-d, "
            + ("re-embedded)" if self.reembedded else "from the pickle)"),
        ]
        if self.already_present:
            lines.append(f"  already in the store: {self.already_present} nodes of this graph (imported before, "
                         "not added again)")
        if self.node_id_offset or self.clip_id_offset:
            lines.append(f"  offsets:     node ids +{self.node_id_offset}, clip ids +{self.clip_id_offset}, "
                         f"time +{self.time_offset:g} s")
        same = {None: "no character_mappings in the pickle", True: "same grouping",
                False: "DIFFERENT grouping"}[self.characters_match]
        up = "-" if self.characters_upstream is None else str(len(self.characters_upstream))
        lines.append(f"  characters:  upstream {up}, ours {len(self.characters_ours)} ({same})")
        for note in self.notes:
            lines.append(f"  note: {note}")
        if self.skipped:
            lines.append(f"  skipped ({len(self.skipped)}):")
            lines.extend(f"    {item}: {reason}" for item, reason in self.skipped)
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- planning
@dataclass
class _Entity:
    uid: int
    kind: str
    embeddings: np.ndarray             # unit rows, already within the store's cap
    contents: list[str]                # already within the store's cap
    first_content: str = ""            # digest of upstream's first content (upstream only appends contents)
    clip: int = 0


@dataclass
class _Text:
    uid: int
    kind: str
    text: str
    clip: int
    vector: np.ndarray | None = None
    edges: dict[int, float] = field(default_factory=dict)   # entity uid -> weight


def _int(x: object) -> int | None:
    """An integer id from an int, a numpy integer, an integral float or a decimal string; else None."""
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)) and float(x).is_integer():
        return int(x)
    if isinstance(x, str) and x.strip().lstrip("-").isdigit():
        return int(x)
    return None


def _size(obj: object) -> int:
    return len(obj) if hasattr(obj, "__len__") else 0  # type: ignore[arg-type]


def _vector_size(obj: object) -> int | None:
    """Length of a vector (an array, or a list/tuple of numbers) without converting it; None if not one."""
    if isinstance(obj, np.ndarray):
        return int(obj.size)
    if isinstance(obj, (list, tuple)):
        return len(obj)
    return None


def _is_flat(obj: object) -> bool:
    return isinstance(obj, np.ndarray) or not any(
        isinstance(x, (list, tuple, dict, set, np.ndarray, str, bytes, bytearray)) for x in obj)  # type: ignore


def _first_row(embeddings: object) -> object:
    """A text node's vector: upstream stores ``[vector]`` (or a bare vector / 2-d array)."""
    if isinstance(embeddings, (list, tuple)) and embeddings and isinstance(embeddings[0], (list, tuple, np.ndarray)):
        return embeddings[0]
    if isinstance(embeddings, np.ndarray) and embeddings.ndim >= 2 and len(embeddings):
        return embeddings[0]
    return embeddings


def _content_text(item: object, limit: int) -> tuple[str | None, int]:
    """An upstream content as text (str as is, bytes as base64, anything else as JSON) and its length in
    characters; ``(None, length so far)`` when it is longer than ``limit``, found before building it."""
    if isinstance(item, str):
        return (item if len(item) <= limit else None), len(item)
    if isinstance(item, (bytes, bytearray)):
        n = 4 * ((len(item) + 2) // 3)
        return (base64.b64encode(bytes(item)).decode("ascii") if n <= limit else None), n
    parts: list[str] = []
    n = 0
    for chunk in json.JSONEncoder(default=str, ensure_ascii=False).iterencode(item):
        parts.append(chunk)
        n += len(chunk)
        if n > limit:
            return None, n
    return "".join(parts), n


def _keep_diverse(rows: np.ndarray, cap: int) -> np.ndarray:
    """The rows a :class:`ClipWriter` keeps over its cap (it drops the one closest to the mean until ``cap``
    are left), chosen here, before writing, so the store never holds more than it keeps."""
    keep = list(range(len(rows)))
    while len(keep) > max(cap, 0):
        sub = rows[keep]
        keep.remove(keep[int(np.argmax(sub @ sub.mean(axis=0)))])
    return rows[keep]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class _Planner:
    """Reads the graph into :class:`_Entity` / :class:`_Text` records, checking every :class:`ImportLimits`
    cap before the work it bounds. ``reembed_dim``: the store embedder's dimension when texts are re-embedded
    (the pickle's text vectors are then not read)."""

    def __init__(self, graph: UpstreamVideoGraph, report: ImportReport, limits: ImportLimits,
                 config: StoreConfig, reembed_dim: int | None) -> None:
        self.g = graph
        self.report = report
        self.limits = limits
        self.config = config
        self.reembed_dim = reembed_dim
        self.nodes: dict[int, UpstreamNode] = {}
        self.entities: dict[int, _Entity] = {}
        self.texts: dict[int, _Text] = {}
        self.text_dim = 0

    def skip(self, item: str, reason: str) -> None:
        self.report.skipped.append((item, reason))

    def cap(self, name: str, value: int, what: str) -> None:
        limit = int(getattr(self.limits, name))
        if value > limit:
            raise ImportCapError(self.report.source, name, value, limit, what)

    def spend(self, nbytes: int, where: str) -> None:
        self.report.counted_bytes += nbytes
        self.cap("max_total_bytes", self.report.counted_bytes,
                 f"the data to import (vectors, texts, contents; counted up to {where}), in bytes, at least")

    def run(self) -> None:
        self._collect_nodes()
        self._plan_texts()
        self._plan_text_vectors()
        self._plan_entities()
        self._plan_edges()
        self._place_entities()

    def graph_key(self) -> str:
        """The origin of the upstream memorization run this graph comes from, the same in its later (grown)
        pickles: a hash of what upstream never rewrites, the first clip's memories and every node created up
        to its last one (an entity's first content: upstream only appends contents)."""
        h = hashlib.sha256(b"m3-videograph-origin-v1")
        first_clip = min((t.clip for t in self.texts.values()), default=None)
        last = max((u for u, t in self.texts.items() if t.clip == first_clip), default=None)
        for uid in sorted(set(self.entities) | set(self.texts)):
            if last is not None and uid > last:
                break
            if uid in self.texts:
                t = self.texts[uid]
                h.update(f"\0{t.kind}\0{uid}\0{t.clip}\0{_digest(t.text)}".encode())
            else:
                e = self.entities[uid]
                h.update(f"\0{e.kind}\0{uid}\0{e.first_content}".encode())
        return h.hexdigest()

    def _collect_nodes(self) -> None:
        self.cap("max_nodes", len(self.g.nodes), "the number of nodes in the pickle")
        types: Counter[str] = Counter()
        for key, node in self.g.nodes.items():
            uid = _int(key)
            if uid is None or uid < 0:
                self.skip(f"node {key!r}", "node id is not a non-negative integer")
                continue
            ntype = str(getattr(node, "type", None))
            types[ntype] += 1
            if not isinstance(node, UpstreamNode):
                self.skip(f"node {uid}", f"not a VideoGraph.Node but {type(node).__name__}")
                continue
            if _int(getattr(node, "id", uid)) != uid:
                self.report.notes.append(f"node {uid} carries id {getattr(node, 'id', None)!r}; the dict key is used")
            if ntype not in _KIND_OF_TYPE:
                self.skip(f"node {uid}", f"unknown node type {ntype!r}")
                continue
            self.nodes[uid] = node
        self.report.upstream_nodes = dict(types)
        nxt = _int(getattr(self.g, "next_node_id", None))
        self.report.upstream_next_node_id = nxt

    def _clip_of_texts(self) -> dict[int, int]:
        clip_of: dict[int, int] = {}
        by_clip = getattr(self.g, "text_nodes_by_clip", None) or {}
        if not isinstance(by_clip, dict):
            self.report.notes.append("text_nodes_by_clip is not a dict; clips come from node timestamps")
            by_clip = {}
        self.cap("max_nodes", sum(_size(v) for v in by_clip.values()), "the number of text_nodes_by_clip entries")
        for ckey in sorted(by_clip, key=lambda k: (_int(k) is None, _int(k) or 0)):
            clip = _int(ckey)
            if clip is None or clip < 0:
                self.skip(f"clip {ckey!r}", "clip id is not a non-negative integer")
                continue
            for raw in by_clip[ckey] or ():
                uid = _int(raw)
                if uid is None or uid in clip_of:
                    if uid is not None:
                        self.report.notes.append(f"text node {uid} listed in clip {clip_of[uid]} and {clip}; "
                                                 f"kept in {clip_of[uid]}")
                    continue
                clip_of[uid] = clip
        return clip_of

    def _plan_texts(self) -> None:
        clip_of = self._clip_of_texts()
        for uid, node in sorted(self.nodes.items()):
            kind = _KIND_OF_TYPE[str(node.type)]
            if kind not in ("episodic", "semantic"):
                if uid in clip_of:
                    self.skip(f"clip entry {uid}", f"listed in text_nodes_by_clip but is a {node.type!r} node")
                    del clip_of[uid]
                continue
            meta = getattr(node, "metadata", None) or {}
            if uid not in clip_of:
                ts = _int(meta.get("timestamp")) if isinstance(meta, dict) else None
                if ts is None or ts < 0:
                    self.skip(f"node {uid}", "text node in no clip (not in text_nodes_by_clip, no timestamp)")
                    continue
                clip_of[uid] = ts
            contents = meta.get("contents") if isinstance(meta, dict) else None
            if not contents or not isinstance(contents, (list, tuple)):
                self.skip(f"node {uid}", "text node without metadata['contents']")
                continue
            text, n = _content_text(contents[0], self.limits.max_text_chars)
            if text is None:
                self.cap("max_text_chars", n, f"the length of node {uid}'s memory text (characters)")
            assert text is not None
            if not text.strip():
                self.skip(f"node {uid}", "empty memory text")
                continue
            self.spend(len(text), f"node {uid}")
            if len(contents) > 1:
                self.report.notes.append(f"text node {uid} has {len(contents)} contents; the first is its text")
            self.texts[uid] = _Text(uid, kind, text, clip_of[uid])
        for uid in sorted(set(clip_of) - set(self.nodes)):
            self.skip(f"clip entry {uid}", f"text_nodes_by_clip lists node {uid}, which is not in nodes")

    def _vector(self, obj: object, where: str) -> np.ndarray | None:
        """``obj`` as a flat float32 vector, its length capped before converting it; None if not a vector."""
        size = _vector_size(obj)
        if size is None:
            return None
        self.cap("max_embedding_dim", size, f"the length of a vector of {where}")
        if not size or not _is_flat(obj):
            return None
        self.spend(4 * size, where)
        try:
            return np.asarray(obj, dtype=np.float32).ravel()
        except (TypeError, ValueError):
            return None

    def _plan_text_vectors(self) -> None:
        texts = sorted(self.texts.values(), key=lambda t: t.uid)
        if self.reembed_dim is not None:  # fresh vectors from the store's embedder, counted at its dimension
            for t in texts:
                self.spend(4 * self.reembed_dim, f"node {t.uid}")
            return
        dims: Counter[int] = Counter()
        for t in texts:
            vec = self._vector(_first_row(getattr(self.nodes[t.uid], "embeddings", None)), f"node {t.uid}")
            try:
                if vec is None:
                    raise EmbeddingError("not a flat numeric vector")
                t.vector = normalize_rows(vec)[0]
                dims[t.vector.size] += 1
            except EmbeddingError as e:
                self.skip(f"node {t.uid}", f"unusable text embedding ({e}); import with reembed=True to keep it")
        self.text_dim = dims.most_common(1)[0][0] if dims else 0
        for t in texts:
            if t.vector is not None and t.vector.size != self.text_dim:
                self.skip(f"node {t.uid}", f"text embedding is {t.vector.size}-d, the others {self.text_dim}-d")
                t.vector = None

    def _entity_rows(self, uid: int, kind: str, embeddings: object) -> list[np.ndarray | None]:
        """Each embedding of an entity node as a flat float32 vector (None where unusable)."""
        try:
            items = list(embeddings)  # type: ignore[call-overload]
        except TypeError:
            return []
        self.cap("max_embeddings_per_node", len(items), f"the number of embeddings of {kind} node {uid}")
        out: list[np.ndarray | None] = []
        for row in items:
            arr = self._vector(row, f"{kind} node {uid}")
            ok = arr is not None and bool(np.isfinite(arr).all()) and float(np.linalg.norm(arr)) > 0
            out.append(arr if ok else None)
        return out

    def _entity_contents(self, uid: int, kind: str, contents: object) -> tuple[list[str], str]:
        """The contents the store keeps (the newest ``max_contents_per_entity``) and the first one's digest."""
        raw = [c for c in (contents or []) if c is not None]  # type: ignore[attr-defined]
        self.report.contents_in[kind] = self.report.contents_in.get(kind, 0) + len(raw)
        cap = self.config.max_contents_per_entity
        kept: list[str] = []
        for item in raw[len(raw) - cap:] if cap > 0 else []:
            text, n = _content_text(item, self.limits.max_content_chars)
            if text is None:
                self.cap("max_content_chars", n, f"the length of a content of {kind} node {uid} (characters)")
            assert text is not None
            self.spend(n, f"{kind} node {uid}")
            kept.append(text)
        first = _content_text(raw[0], self.limits.max_content_chars)[0] if raw else ""
        return kept, _digest(first or "")

    def _plan_entities(self) -> None:
        rows: dict[int, list[np.ndarray | None]] = {}
        dims: dict[str, Counter[int]] = {"face": Counter(), "voice": Counter()}
        for uid, node in sorted(self.nodes.items()):
            kind = _KIND_OF_TYPE[str(node.type)]
            if kind in ("face", "voice"):
                rows[uid] = self._entity_rows(uid, kind, getattr(node, "embeddings", None) or [])
                dims[kind].update(r.size for r in rows[uid] if r is not None)
        dim = {k: (c.most_common(1)[0][0] if c else 0) for k, c in dims.items()}
        cap = {"face": self.config.max_face_embeddings, "voice": self.config.max_voice_embeddings}
        for uid, node_rows in sorted(rows.items()):
            node = self.nodes[uid]
            kind = _KIND_OF_TYPE[str(node.type)]
            self.report.embeddings_in[kind] = self.report.embeddings_in.get(kind, 0) + len(node_rows)
            good = [r for r in node_rows if r is not None and r.size == dim[kind]]
            if len(good) < len(node_rows):
                self.report.notes.append(f"{kind} node {uid}: {len(node_rows) - len(good)} of {len(node_rows)} "
                                         f"embeddings unusable (empty, NaN, zero or not {dim[kind]}-d), dropped")
            meta = getattr(node, "metadata", None) or {}
            contents, first = self._entity_contents(uid, kind, meta.get("contents") if isinstance(meta, dict) else None)
            if not good:
                self.skip(f"node {uid}", f"{kind} node without a usable embedding")
                continue
            embs = _keep_diverse(normalize_rows(np.stack(good)), cap[kind])
            self.entities[uid] = _Entity(uid, kind, embs, contents, first)

    def _plan_edges(self) -> None:
        edges = getattr(self.g, "edges", None) or {}
        if not isinstance(edges, dict):
            self.report.notes.append("VideoGraph.edges is not a dict; no edges imported")
            return
        self.cap("max_edges", len(edges), "the number of edges in the pickle")
        self.report.upstream_edges = len(edges)
        seen: dict[tuple[int, int], float] = {}
        for key, w in edges.items():
            try:
                a, b = (_int(x) for x in key)
            except (TypeError, ValueError):
                self.skip(f"edge {key!r}", "key is not a node id pair")
                continue
            try:
                weight = float(w)
            except (TypeError, ValueError):
                self.skip(f"edge {key!r}", f"weight {w!r} is not a number")
                continue
            if a is None or b is None:
                self.skip(f"edge {key!r}", "key is not a node id pair")
                continue
            pair = (a, b) if a in self.texts else (b, a)
            text, ent = pair
            if text not in self.texts or ent not in self.entities:
                if (a in self.texts and b in self.texts) or (a in self.entities and b in self.entities):
                    why = "joins two text nodes" if a in self.texts else "joins two entity nodes"
                else:
                    missing = [x for x in (a, b) if x not in self.texts and x not in self.entities]
                    why = f"node(s) {missing} not imported"
                if (b, a) not in seen and (a, b) not in seen:
                    self.skip(f"edge {a}-{b}", why)
                seen[(a, b)] = weight
                continue
            if not math.isfinite(weight) or weight <= 0:
                if (ent, text) not in seen and (text, ent) not in seen:
                    self.skip(f"edge {text}-{ent}", f"weight {weight} (upstream deletes edges at <= 0)")
                seen[(a, b)] = weight
                continue
            prev = self.texts[text].edges.get(ent)
            if prev is not None and prev != weight:
                self.report.notes.append(f"edge {text}-{ent}: weights differ by direction ({prev} vs {weight}); "
                                         "kept the larger")
            self.texts[text].edges[ent] = max(weight, prev or weight)
            seen[(a, b)] = weight

    def _place_entities(self) -> None:
        """Earliest of: first clip referencing the entity; clip of the first text node created after it."""
        first_ref: dict[int, int] = {}
        for t in self.texts.values():
            refs = set(t.edges)
            for kind, nid in find_tags(t.text):
                if nid in self.entities and self.entities[nid].kind == kind:
                    refs.add(nid)
            for e in refs:
                first_ref[e] = min(first_ref.get(e, t.clip), t.clip)
        text_ids = sorted(self.texts)
        last_clip = max((t.clip for t in self.texts.values()), default=0)
        for uid, ent in self.entities.items():
            i = bisect.bisect_right(text_ids, uid)
            created = self.texts[text_ids[i]].clip if i < len(text_ids) else last_clip
            ent.clip = min(first_ref.get(uid, created), created)


# ---------------------------------------------------------------------------------------------- import records
_RECORD_PREFIX = "import:"


def _record_key(sha256: str) -> str:
    return f"{_RECORD_PREFIX}{sha256}"


def _records(store: MemoryStore) -> Iterable[dict]:
    """The ``import:<sha256>`` records in ``meta`` (a range scan of its primary key)."""
    for (value,) in store.conn.execute("SELECT value FROM meta WHERE key >= ? AND key < ?",
                                       (_RECORD_PREFIX, _RECORD_PREFIX[:-1] + ";")):
        with contextlib.suppress(ValueError, TypeError):
            rec = json.loads(value)
            if isinstance(rec, dict):
                yield rec


def _ranges(ids: Iterable[int]) -> list[list[int]]:
    """Sorted ids as ``[[first, last], ...]`` runs (what an import record keeps of the nodes it added)."""
    out: list[list[int]] = []
    for i in sorted(ids):
        if out and i == out[-1][1] + 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def _known_nodes(store: MemoryStore, graph_key: str) -> dict[int, int]:
    """upstream id -> our node id, for every node an earlier import of the same graph added."""
    known: dict[int, int] = {}
    for rec in _records(store):
        if rec.get("graph") != graph_key:
            continue
        off = int(rec.get("node_id_offset", 0))
        for lo, hi in rec.get("uids", []):
            known.update((u, u + off) for u in range(int(lo), int(hi) + 1))
    return known


def _existing(store: MemoryStore, ids: Iterable[int]) -> set[int]:
    ids = list(ids)
    found: set[int] = set()
    for chunk in (ids[i:i + 500] for i in range(0, len(ids), 500)):
        marks = ",".join("?" * len(chunk))
        found.update(r[0] for r in store.conn.execute(f"SELECT id FROM nodes WHERE id IN ({marks})", chunk))
    return found


def _already_imported(store: MemoryStore, source: str, sha256: str) -> ImportReport | None:
    raw = store.meta(_record_key(sha256))
    if raw is None:
        return None
    report = ImportReport(source=source, sha256=sha256, already_imported=True, nodes=dict.fromkeys(_KINDS, 0))
    with contextlib.suppress(ValueError, TypeError, AttributeError):
        rec = json.loads(raw)
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(rec["imported_at"])))
        report.notes.append(f"imported on {when} from {rec.get('source')}: {rec.get('added', {})}")
    return report


# ---------------------------------------------------------------------------------------------- import
def _store_is_empty(store: MemoryStore) -> bool:
    return not (store.conn.execute("SELECT 1 FROM nodes LIMIT 1").fetchone()
                or store.conn.execute("SELECT 1 FROM clips LIMIT 1").fetchone())


def _require_empty_unless(store: MemoryStore, into_existing: bool) -> None:
    if not into_existing and not _store_is_empty(store):
        raise PickleImportError(f"{store.path} already holds memories; import into an empty database, or pass "
                                "into_existing=True (--into-existing) to append the graph after them")


def _groups(tag_lists: Iterable[Iterable[str]]) -> set[frozenset[str]]:
    return {frozenset(tags) for tags in tag_lists if tags}


@dataclass
class _Options:
    clip_seconds: float = 30.0
    reembed: bool = False
    embedder_name: str = DEFAULT_TEXT_EMBEDDER
    into_existing: bool = False
    progress: Callable[[int, int], None] | None = None

    def check(self) -> None:
        if not self.clip_seconds > 0 or not math.isfinite(self.clip_seconds):
            raise PickleImportError(f"clip_seconds must be a positive number, got {self.clip_seconds}")


@dataclass
class _Prepared:
    """A read, planned and cap-checked pickle: everything before the first write."""

    sha256: str
    graph: UpstreamVideoGraph
    plan: _Planner
    graph_key: str


def _read_pickle(path: str | Path) -> tuple[bytes, str]:
    if not Path(path).is_file():
        raise FileNotFoundError(f"pickle not found: {path}")
    data = Path(path).read_bytes()
    return data, hashlib.sha256(data).hexdigest()


def _prepare(path: str | Path, data: bytes, sha256: str, config: StoreConfig, limits: ImportLimits,
             reembed_dim: int | None) -> _Prepared:
    buf = io.BytesIO(data)
    buf.name = str(path)  # type: ignore[attr-defined]  # the label of load errors
    graph = load_videograph(buf)
    report = ImportReport(source=str(path), sha256=sha256, reembedded=reembed_dim is not None)
    plan = _Planner(graph, report, limits, config, reembed_dim)
    plan.run()
    return _Prepared(sha256, graph, plan, plan.graph_key())


class _Writer:
    """Writes a :class:`_Prepared` graph into ``store``; :meth:`run` must be called inside ONE transaction."""

    def __init__(self, store: MemoryStore, prep: _Prepared, opts: _Options) -> None:
        self.store, self.prep, self.opts = store, prep, opts
        self.plan, self.report = prep.plan, prep.plan.report
        self.node_off = self.clip_off = 0
        self.time_off = 0.0
        self.ids: dict[int, int] = {}      # upstream id -> our node id (new, or from an earlier import)
        self.old: set[int] = set()         # upstream ids an earlier import of this graph added
        self.gone: set[int] = set()        # ... and that were deleted from the store since
        self.added: list[int] = []         # upstream ids written now

    def run(self) -> ImportReport:
        done = _already_imported(self.store, self.report.source, self.prep.sha256)  # a concurrent import won
        if done is not None:
            return done
        _require_empty_unless(self.store, self.opts.into_existing)
        self._offsets()
        self._map_ids()
        texts = self._vectors(self._new_texts())
        max_seed = self._write_clips(texts)
        if self.added:
            self._counters(max_seed)
        _fill_counts(self.store, self.report, [self.ids[u] for u in self.added])
        self._record()
        return self.report

    def nid(self, uid: int) -> int:
        return self.ids.get(uid, uid + self.node_off)

    def live_ids(self) -> dict[int, int]:
        return {u: n for u, n in self.ids.items() if u not in self.gone}

    def _offsets(self) -> None:
        """Shift ids and times past what the store holds (when appending to existing memory)."""
        s = self.store
        if not _store_is_empty(s):
            max_node = s.conn.execute("SELECT coalesce(max(id), -1) FROM nodes").fetchone()[0]
            self.node_off = max(max_node + 1, int(s.meta("next_character_seed", "0") or 0))
            row = s.conn.execute("SELECT max(id), max(end_time) FROM clips").fetchone()
            self.clip_off = 0 if row[0] is None else int(row[0]) + 1
            self.time_off = 0.0 if row[1] is None else float(row[1])
        r = self.report
        r.node_id_offset, r.clip_id_offset, r.time_offset = self.node_off, self.clip_off, self.time_off

    def _map_ids(self) -> None:
        known = _known_nodes(self.store, self.prep.graph_key)
        present = _existing(self.store, known.values())
        for uid in [*self.plan.entities, *self.plan.texts]:
            if uid in known:
                self.ids[uid] = known[uid]
                self.old.add(uid)
                if known[uid] not in present:
                    self.gone.add(uid)
            else:
                self.ids[uid] = uid + self.node_off
        self.report.already_present = len(self.old)

    def _new_texts(self) -> list[_Text]:
        """The text nodes not imported before, with their tags pointing at our node ids."""
        out: list[_Text] = []
        for t in sorted(self.plan.texts.values(), key=lambda t: t.uid):
            if t.uid in self.old:
                continue
            refs = set(t.edges) | {n for k, n in find_tags(t.text) if k != "character"}
            gone = sorted(self.ids[u] for u in refs & self.gone)
            if gone:
                self.plan.skip(f"node {t.uid}", f"mentions node(s) {gone}, deleted from the store since an earlier "
                                                "import of this graph")
                continue
            t.text = replace_tags(t.text, lambda k, n: None if k == "character" else entity_tag(k, self.nid(n)))
            out.append(t)
        return out

    def _vectors(self, texts: list[_Text]) -> list[_Text]:
        """Text vectors: the store embedder's (reembed) or the pickle's (checked while planning)."""
        r, s = self.report, self.store
        if self.opts.reembed:
            emb = s.embedder
            if texts:
                for t, v in zip(texts, s.embed_texts([t.text for t in texts]), strict=True):
                    t.vector = v
            r.text_embedder, r.text_dim = emb.name, emb.dim
        elif self.plan.text_dim:
            r.text_embedder, r.text_dim = self.opts.embedder_name, self.plan.text_dim
        kept = [t for t in texts if t.vector is not None]
        if len(kept) < len(texts):  # an entity placed by a dropped text node keeps its place: still a valid clip
            r.notes.append(f"{len(texts) - len(kept)} text node(s) not imported, see skipped")
        if r.text_embedder is not None and kept:
            _declare_text_embedder(s, r.text_embedder, int(r.text_dim or 0))
        return kept

    def _write_clips(self, texts: list[_Text]) -> int:
        by_clip_texts: dict[int, list[_Text]] = {}
        for t in texts:
            by_clip_texts.setdefault(t.clip, []).append(t)
        by_clip_ents: dict[int, list[_Entity]] = {}
        for e in self.plan.entities.values():
            if e.uid not in self.old:
                by_clip_ents.setdefault(e.clip, []).append(e)
        later_refs: dict[int, set[int]] = {}
        for t in texts:
            later_refs.setdefault(t.clip, set()).update(
                u for u in t.edges if u in self.old or self.plan.entities[u].clip < t.clip)
        clips = sorted(set(by_clip_texts) | set(by_clip_ents))
        max_seed = -1
        for i, clip in enumerate(clips):
            w = self._open_clip(clip)
            for e in sorted(by_clip_ents.get(clip, []), key=lambda x: x.uid):
                max_seed = max(max_seed, self._write_entity(w, e))
            for uid in sorted(later_refs.get(clip, ())):
                w.update_entity(self.ids[uid])  # extends the entity's time span to this clip
            edge_rows = [row for t in by_clip_texts.get(clip, []) for row in self._write_text(w, t)]
            # our own weighted edges (the node was created without any); same transaction as the nodes
            self.store.conn.executemany("INSERT OR REPLACE INTO edges (text_id, entity_id, weight) VALUES (?, ?, ?)",
                                        edge_rows)
            _insert_clip_row(self.store, w, f"videograph:{Path(self.report.source).name}")
            self.report.clip_ids.append(w.clip_id)
            if self.opts.progress is not None:
                self.opts.progress(i + 1, len(clips))
        return max_seed

    def _open_clip(self, clip: int) -> ClipWriter:
        cid = clip + self.clip_off
        if self.store.conn.execute("SELECT 1 FROM clips WHERE id = ?", (cid,)).fetchone():
            raise StoreError(f"clip {cid} is already committed")
        start = self.time_off + clip * self.opts.clip_seconds
        w = ClipWriter(self.store, cid, start, start + self.opts.clip_seconds)
        w.extra.update({"upstream_clip": clip, "node_id_offset": self.node_off})
        return w

    def _write_entity(self, w: ClipWriter, e: _Entity) -> int:
        nid = self.ids[e.uid]
        self.store._set_meta("next_character_seed", nid)  # seed = (shifted) upstream id
        w.add_entity(e.kind, e.embeddings, e.contents,
                     content_kind="face_jpeg_b64" if e.kind == "face" else "voice_asr", node_id=nid)
        self.added.append(e.uid)
        return nid

    def _write_text(self, w: ClipWriter, t: _Text) -> list[tuple[int, int, float]]:
        nid = self.ids[t.uid]
        assert t.vector is not None
        w._new_text_node(t.text, t.kind, t.vector, [], is_equivalence(t.text), nid)
        if t.edges:
            self.store.conn.execute("UPDATE nodes SET weight = ? WHERE id = ?", (max(t.edges.values()), nid))
        self.added.append(t.uid)
        return [(nid, self.ids[e], wt) for e, wt in sorted(t.edges.items())]

    def _counters(self, max_seed: int) -> None:
        s, nxt = self.store, self.report.upstream_next_node_id
        cur = int(s.meta("next_character_seed", "0") or 0)
        s._set_meta("next_character_seed", max(cur, max_seed + 1, (nxt + self.node_off) if nxt is not None else 0))

    def _record(self) -> None:
        """The import's record (``import:<sha256>``, what makes it idempotent) and the import history."""
        r, s, now = self.report, self.store, time.time()
        s._set_meta(_record_key(self.prep.sha256), json.dumps({
            "source": r.source, "imported_at": now, "graph": self.prep.graph_key,
            "added": {**r.nodes, "edges": r.edges, "clips": r.clips}, "already_present": r.already_present,
            "node_id_offset": self.node_off, "clip_id_offset": self.clip_off, "time_offset": self.time_off,
            "uids": _ranges(self.added)}))
        history = json.loads(s.meta("upstream_imports", "[]") or "[]")
        history.append({"source": r.source, "sha256": self.prep.sha256, "imported_at": now,
                        "node_id_offset": self.node_off, "clip_id_offset": self.clip_off,
                        "time_offset": self.time_off, "clip_seconds": self.opts.clip_seconds,
                        "upstream_next_node_id": r.upstream_next_node_id, "text_embedder": r.text_embedder,
                        "reembedded": self.opts.reembed, "added": r.added})
        s._set_meta("upstream_imports", json.dumps(history))


def _insert_clip_row(store: MemoryStore, w: ClipWriter, source: str) -> None:
    """The ``clips`` row :meth:`MemoryStore.begin_clip` writes at its commit; here inside the import's single
    transaction (``begin_clip`` would commit each clip on its own)."""
    store.conn.execute(
        "INSERT INTO clips (id, start_time, end_time, source, committed_at, extra) VALUES (?,?,?,?,?,?)",
        (w.clip_id, w.start_time, w.end_time, source, time.time(), json.dumps(w.extra, default=str)))


def _declare_text_embedder(store: MemoryStore, name: str, dim: int) -> None:
    """:meth:`MemoryStore.declare_embedder` without its own transaction."""
    have, have_dim = store.meta("embedder_name"), int(store.meta("embedder_dim") or 0)
    if have is not None and (have != name or have_dim != dim):
        raise StoreError(f"{store.path} already holds {have_dim}-d text vectors from {have!r}; cannot mix with "
                         f"{dim}-d ones from {name!r}")
    store._set_meta("embedder_name", name)
    store._set_meta("embedder_dim", dim)


def _commit(store: MemoryStore, prep: _Prepared, opts: _Options, t0: float) -> ImportReport:
    """The whole write in ONE transaction: a kill at any moment leaves the store as it was or fully imported."""
    writer = _Writer(store, prep, opts)
    with store.transaction():
        report = writer.run()
    if not report.already_imported:
        _compare_characters(store, prep.graph, prep.plan, report, writer.live_ids())
    report.seconds = time.perf_counter() - t0
    return report


def import_videograph(pickle_path: str | Path, store: MemoryStore, *, clip_seconds: float = 30.0,
                      reembed: bool = False, embedder_name: str = DEFAULT_TEXT_EMBEDDER,
                      into_existing: bool = False, progress: Callable[[int, int], None] | None = None,
                      limits: ImportLimits | None = None) -> ImportReport:
    """Import an upstream ``VideoGraph`` pickle into the open ``store`` (see the module docstring).

    ``reembed=False`` keeps upstream's text vectors and declares ``embedder_name`` as the store's text
    embedder (queries then need that model); ``reembed=True`` embeds every memory text with the store's own
    embedder instead, so the graph is searchable offline. The store must be empty unless ``into_existing``:
    then the graph is appended after the existing memory with node ids, clip ids and times shifted past it.
    The pickle is read, planned and checked against ``limits`` first; then everything is written in ONE
    transaction (which holds the store's write lock meanwhile). Importing a pickle again adds nothing
    (``report.already_imported``). To create a new database file atomically, use :func:`import_pickle_file`.
    """
    t0 = time.perf_counter()
    opts = _Options(clip_seconds, reembed, embedder_name, into_existing, progress)
    opts.check()
    store._require_writable()
    _require_empty_unless(store, into_existing)
    data, sha256 = _read_pickle(pickle_path)
    done = _already_imported(store, str(pickle_path), sha256)
    if done is not None:
        return done
    prep = _prepare(pickle_path, data, sha256, store.config, limits or ImportLimits(),
                    store.embedder.dim if reembed else None)
    del data
    return _commit(store, prep, opts, t0)


# ---------------------------------------------------------------------------------------------- new database file
_TEMP_RE = re.compile(r"\.import-(\d+)-[0-9a-f]+\.tmp(-wal|-shm|-journal)?$")


def _pid_alive(pid: int) -> bool:
    if os.name != "posix":
        return True  # no cheap check: never remove another importer's file
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_db_files(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _remove_stale_temps(db: Path) -> None:
    """Temporary databases left by importers that were killed (their process is gone)."""
    for p in db.parent.glob(f".{glob.escape(db.name)}.import-*.tmp*"):
        m = _TEMP_RE.search(p.name)
        if m and not _pid_alive(int(m.group(1))):
            p.unlink(missing_ok=True)


def _refuse_orphan_journal(db: Path) -> None:
    # SQLite would apply a leftover WAL / hot journal of a deleted database to the new file of the same name
    for suffix in ("-wal", "-journal"):
        p = Path(f"{db}{suffix}")
        if p.exists() and p.stat().st_size > 0:
            raise PickleImportError(f"{p} exists without its database {db}; restore the database or remove {p} "
                                    "before importing (a new database of that name would read it)")


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError:  # e.g. a directory on a file system that cannot fsync one
        pass
    finally:
        os.close(fd)


def _publish(tmp: Path, db: Path) -> None:
    """Make the complete temporary database ``db`` in one atomic step, never replacing a database that
    appeared meanwhile: a hard link (fails if ``db`` exists), else ``os.replace``."""
    _fsync(tmp)
    try:
        os.link(tmp, db)
    except FileExistsError:
        raise PickleImportError(f"{db} was created by someone else during the import; it was left as it is and "
                                "nothing was imported") from None
    except OSError:  # no hard links on this file system
        if db.exists():
            raise PickleImportError(f"{db} was created by someone else during the import; it was left as it is "
                                    "and nothing was imported") from None
        os.replace(tmp, db)
    _fsync(db.parent)


def _text_embedder(spec: TextEmbedder | dict | str | None) -> TextEmbedder:
    return spec if hasattr(spec, "embed") else make_embedder(spec)  # type: ignore[arg-type,return-value]


def import_pickle_file(pickle_path: str | Path, db_path: str | Path, *, clip_seconds: float = 30.0,
                       reembed: bool = False, embedder_name: str = DEFAULT_TEXT_EMBEDDER,
                       into_existing: bool = False, progress: Callable[[int, int], None] | None = None,
                       limits: ImportLimits | None = None, config: StoreConfig | dict | None = None,
                       embedder: TextEmbedder | dict | str | None = None) -> ImportReport:
    """Import a pickle into the database FILE ``db_path``, all or nothing whatever happens to this process.

    An existing database gets the import as ONE transaction (:func:`import_videograph`). A new one is built
    in a temporary file next to it (``.<name>.import-<pid>-<random>.tmp``; those of killed importers are
    removed) and only once complete and fsynced does it become ``db_path``, in one atomic step: ``db_path``
    never exists half-written. Nothing is created when the pickle is refused (caps, bad pickle).
    """
    db = Path(db_path)
    _remove_stale_temps(db)
    if db.exists():
        with MemoryStore(db, config=config, embedder=embedder) as store:
            return import_videograph(pickle_path, store, clip_seconds=clip_seconds, reembed=reembed,
                                     embedder_name=embedder_name, into_existing=into_existing, progress=progress,
                                     limits=limits)
    t0 = time.perf_counter()
    opts = _Options(clip_seconds, reembed, embedder_name, into_existing, progress)
    opts.check()
    _refuse_orphan_journal(db)
    data, sha256 = _read_pickle(pickle_path)
    cfg = config if isinstance(config, StoreConfig) else StoreConfig.from_dict(config)
    emb = _text_embedder(embedder) if reembed else embedder
    prep = _prepare(pickle_path, data, sha256, cfg, limits or ImportLimits(),
                    emb.dim if reembed else None)  # type: ignore[union-attr]
    del data
    db.parent.mkdir(parents=True, exist_ok=True)
    tmp = db.parent / f".{db.name}.import-{os.getpid()}-{secrets.token_hex(4)}.tmp"
    try:
        store = MemoryStore(tmp, config=cfg, embedder=emb)
        try:
            report = _commit(store, prep, opts, t0)
            store.conn.execute("PRAGMA journal_mode = DELETE")  # fold the WAL in: one self-contained file
        finally:
            store.close()
        _publish(tmp, db)
    finally:
        _remove_db_files(tmp)  # the partial file after an error; else only a second name of the database
    return report


def _fill_counts(store: MemoryStore, report: ImportReport, ids: list[int]) -> None:
    counts: Counter[str] = Counter()
    emb: Counter[str] = Counter()
    cont: Counter[str] = Counter()
    eq = edges = 0
    for chunk in (ids[i:i + 500] for i in range(0, len(ids), 500)):
        marks = ",".join("?" * len(chunk))
        for kind, n, ne, nc, n_eq in store.conn.execute(
                f"SELECT type, count(*), sum((SELECT count(*) FROM embeddings e WHERE e.node_id = n.id)), "
                f"sum((SELECT count(*) FROM contents c WHERE c.node_id = n.id)), sum(is_equivalence) "
                f"FROM nodes n WHERE id IN ({marks}) GROUP BY type", chunk):
            counts[kind] += n
            emb[kind] += ne or 0
            cont[kind] += nc or 0
            eq += n_eq or 0
        edges += store.conn.execute(f"SELECT count(*) FROM edges WHERE text_id IN ({marks})", chunk).fetchone()[0]
    report.nodes = {k: counts.get(k, 0) for k in _KINDS}
    report.embeddings_kept = {k: emb.get(k, 0) for k in ("face", "voice")}
    report.contents_kept = {k: cont.get(k, 0) for k in ("face", "voice")}
    report.edges = edges
    report.equivalences = eq
    report.clips = len(report.clip_ids)


def _compare_characters(store: MemoryStore, graph: UpstreamVideoGraph, plan: _Planner, report: ImportReport,
                        ids: dict[int, int]) -> None:
    """Our characters of the graph's entities (``ids``: upstream id -> our id) against upstream's mappings."""
    ours_ids = {ids[u] for u in plan.entities if u in ids}
    chars = store.characters()
    report.characters_ours = {
        cid: [entity_tag(k, n) for k, n in members]
        for cid, members in sorted(chars.members.items()) if any(n in ours_ids for _, n in members)}
    mappings = getattr(graph, "character_mappings", None)
    if not isinstance(mappings, dict):
        return
    if sum(_size(v) for v in mappings.values()) > plan.limits.max_nodes:
        report.notes.append("character_mappings is larger than max_nodes; not compared")
        return
    upstream: list[list[str]] = []
    for tags in mappings.values():
        group = []
        for tag in tags if isinstance(tags, (list, tuple, set)) else ():
            kind, _, num = str(tag).strip("<>").partition("_")
            n = _int(num) if num.isdigit() else None
            kind = "face" if kind in ("face", "img") else kind
            if n is not None and kind in ("face", "voice") and n in plan.entities and n in ids:
                group.append(entity_tag(kind, ids[n]))
        if group:
            upstream.append(sorted(group))
    report.characters_upstream = sorted(upstream)
    report.characters_match = _groups(upstream) == _groups(report.characters_ours.values())


__all__ = ["DEFAULT_TEXT_EMBEDDER", "ForbiddenGlobalError", "ImportCapError", "ImportLimits", "ImportReport",
           "PickleImportError", "RestrictedUnpickler", "UpstreamNode", "UpstreamVideoGraph", "import_pickle_file",
           "import_videograph", "load_videograph"]
