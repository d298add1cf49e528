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
* each upstream clip (``text_nodes_by_clip``) is written as one store clip transaction, in clip order, at
  ``[clip * clip_seconds, (clip + 1) * clip_seconds)``; an entity goes into the earliest clip that either
  references it or (upstream allocates ids in clip order) holds the first text node created after it;
* an entity's character seed is its upstream id, so a character's id is the smallest upstream entity id
  in it; equivalences are ordinary semantic nodes the store resolves itself; upstream's
  ``character_mappings`` (if present) are compared with ours in the report.
"""

from __future__ import annotations

import base64
import bisect
import contextlib
import importlib
import json
import math
import pickle
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from .embedders import EmbeddingError, normalize_rows
from .store import MemoryStore, StoreError
from .tags import entity_tag, find_tags, is_equivalence, replace_tags

UPSTREAM_MODULES = ("videograph", "mmagent.videograph")
DEFAULT_TEXT_EMBEDDER = "openai:text-embedding-3-large"
_KIND_OF_TYPE = {"img": "face", "face": "face", "voice": "voice", "episodic": "episodic", "semantic": "semantic"}


class PickleImportError(StoreError):
    """The pickle cannot be imported (unreadable, not a VideoGraph, store not empty, ...)."""


class ForbiddenGlobalError(PickleImportError, pickle.UnpicklingError):
    """The pickle references a global outside the allow-list; nothing of it was executed."""


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
@dataclass
class ImportReport:
    source: str
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
    seconds: float = 0.0

    def to_dict(self) -> dict:
        d = asdict(self)
        d["characters_ours"] = {str(k): v for k, v in self.characters_ours.items()}
        d["skipped"] = [{"item": i, "reason": r} for i, r in self.skipped]
        return d

    def summary(self) -> str:
        def kinds(d: dict[str, int]) -> str:
            return ", ".join(f"{k} {v}" for k, v in d.items()) or "none"

        ids = f" (ids {self.clip_ids[0]}..{self.clip_ids[-1]})" if self.clip_ids else ""
        lines = [
            f"imported {self.source} in {self.seconds:.2f} s",
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
    embeddings: np.ndarray
    contents: list[str]
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


def _rows(embeddings: object) -> list[np.ndarray | None]:
    """Each embedding of an entity node as a flat float32 vector (None where unusable)."""
    out: list[np.ndarray | None] = []
    try:
        items = list(embeddings)  # type: ignore[call-overload]
    except TypeError:
        return out
    for row in items:
        try:
            arr = np.asarray(row, dtype=np.float32).ravel()
        except (TypeError, ValueError):
            out.append(None)
            continue
        ok = arr.size > 0 and bool(np.isfinite(arr).all()) and float(np.linalg.norm(arr)) > 0
        out.append(arr if ok else None)
    return out


def _text_vector(embeddings: object) -> np.ndarray:
    arr = np.asarray(embeddings, dtype=np.float32)
    if arr.ndim == 2:
        arr = arr[0]
    if arr.ndim != 1:
        raise EmbeddingError(f"text embedding has shape {arr.shape}")
    return normalize_rows(arr)[0]


def _content_text(item: object) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, (bytes, bytearray)):
        return base64.b64encode(bytes(item)).decode("ascii")
    return json.dumps(item, default=str, ensure_ascii=False)


class _Planner:
    def __init__(self, graph: UpstreamVideoGraph, report: ImportReport) -> None:
        self.g = graph
        self.report = report
        self.nodes: dict[int, UpstreamNode] = {}
        self.entities: dict[int, _Entity] = {}
        self.texts: dict[int, _Text] = {}

    def skip(self, item: str, reason: str) -> None:
        self.report.skipped.append((item, reason))

    def run(self) -> None:
        self._collect_nodes()
        self._plan_texts()
        self._plan_entities()
        self._plan_edges()
        self._place_entities()

    def _collect_nodes(self) -> None:
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

    def _plan_texts(self) -> None:
        clip_of: dict[int, int] = {}
        by_clip = getattr(self.g, "text_nodes_by_clip", None) or {}
        if not isinstance(by_clip, dict):
            self.report.notes.append("text_nodes_by_clip is not a dict; clips come from node timestamps")
            by_clip = {}
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
            text = contents[0] if isinstance(contents[0], str) else _content_text(contents[0])
            if not text.strip():
                self.skip(f"node {uid}", "empty memory text")
                continue
            if len(contents) > 1:
                self.report.notes.append(f"text node {uid} has {len(contents)} contents; the first is its text")
            self.texts[uid] = _Text(uid, kind, text, clip_of[uid])
        for uid in sorted(set(clip_of) - set(self.nodes)):
            self.skip(f"clip entry {uid}", f"text_nodes_by_clip lists node {uid}, which is not in nodes")

    def _plan_entities(self) -> None:
        rows: dict[int, list[np.ndarray | None]] = {}
        dims: dict[str, Counter[int]] = {"face": Counter(), "voice": Counter()}
        for uid, node in self.nodes.items():
            kind = _KIND_OF_TYPE[str(node.type)]
            if kind in ("face", "voice"):
                rows[uid] = _rows(getattr(node, "embeddings", None) or [])
                dims[kind].update(r.size for r in rows[uid] if r is not None)
        dim = {k: (c.most_common(1)[0][0] if c else 0) for k, c in dims.items()}
        for uid, node_rows in sorted(rows.items()):
            node = self.nodes[uid]
            kind = _KIND_OF_TYPE[str(node.type)]
            self.report.embeddings_in[kind] = self.report.embeddings_in.get(kind, 0) + len(node_rows)
            good = [r for r in node_rows if r is not None and r.size == dim[kind]]
            if len(good) < len(node_rows):
                self.report.notes.append(f"{kind} node {uid}: {len(node_rows) - len(good)} of {len(node_rows)} "
                                         f"embeddings unusable (empty, NaN, zero or not {dim[kind]}-d), dropped")
            meta = getattr(node, "metadata", None) or {}
            contents = meta.get("contents") if isinstance(meta, dict) else None
            contents = [_content_text(c) for c in (contents or []) if c is not None]
            self.report.contents_in[kind] = self.report.contents_in.get(kind, 0) + len(contents)
            if not good:
                self.skip(f"node {uid}", f"{kind} node without a usable embedding")
                continue
            self.entities[uid] = _Entity(uid, kind, np.stack(good), contents)

    def _plan_edges(self) -> None:
        edges = getattr(self.g, "edges", None) or {}
        if not isinstance(edges, dict):
            self.report.notes.append("VideoGraph.edges is not a dict; no edges imported")
            return
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


# ---------------------------------------------------------------------------------------------- import
def _store_is_empty(store: MemoryStore) -> bool:
    return not (store.conn.execute("SELECT 1 FROM nodes LIMIT 1").fetchone()
                or store.conn.execute("SELECT 1 FROM clips LIMIT 1").fetchone())


def _groups(tag_lists: Iterable[Iterable[str]]) -> set[frozenset[str]]:
    return {frozenset(tags) for tags in tag_lists if tags}


def import_videograph(pickle_path: str | Path, store: MemoryStore, *, clip_seconds: float = 30.0,
                      reembed: bool = False, embedder_name: str = DEFAULT_TEXT_EMBEDDER,
                      into_existing: bool = False,
                      progress: Callable[[int, int], None] | None = None) -> ImportReport:
    """Import an upstream ``VideoGraph`` pickle into ``store`` (see the module docstring).

    ``reembed=False`` keeps upstream's text vectors and declares ``embedder_name`` as the store's text
    embedder (queries then need that model); ``reembed=True`` embeds every memory text with the store's own
    embedder instead, so the graph is searchable offline. The store must be empty unless ``into_existing``:
    then the graph is appended after the existing memory with node ids, clip ids and times shifted past it.
    Everything is validated before the first write; each clip is then one transaction, in clip order.
    """
    t0 = time.perf_counter()
    store._require_writable()
    if not clip_seconds > 0 or not math.isfinite(clip_seconds):
        raise PickleImportError(f"clip_seconds must be a positive number, got {clip_seconds}")
    if not into_existing and not _store_is_empty(store):
        raise PickleImportError(f"{store.path} already holds memories; import into an empty database, or pass "
                                "into_existing=True (--into-existing) to append the graph after them")
    graph = load_videograph(pickle_path)
    report = ImportReport(source=str(pickle_path), reembedded=reembed)
    plan = _Planner(graph, report)
    plan.run()

    # -- offsets when appending to existing memory
    node_off = clip_off = 0
    time_off = 0.0
    if not _store_is_empty(store):
        max_node = store.conn.execute("SELECT coalesce(max(id), -1) FROM nodes").fetchone()[0]
        next_seed = int(store.meta("next_character_seed", "0") or 0)
        node_off = max(max_node + 1, next_seed)
        row = store.conn.execute("SELECT max(id), max(end_time) FROM clips").fetchone()
        clip_off = 0 if row[0] is None else int(row[0]) + 1
        time_off = 0.0 if row[1] is None else float(row[1])
    report.node_id_offset, report.clip_id_offset, report.time_offset = node_off, clip_off, time_off

    def shift_tags(text: str) -> str:
        if not node_off:
            return text
        return replace_tags(text, lambda k, n: entity_tag(k, n + node_off) if k != "character" else None)

    texts = sorted(plan.texts.values(), key=lambda t: t.uid)
    for t in texts:
        t.text = shift_tags(t.text)

    # -- text vectors (all computed/validated before anything is written)
    if reembed:
        emb = store.embedder
        if texts:
            vecs = store.embed_texts([t.text for t in texts])
            for t, v in zip(texts, vecs, strict=True):
                t.vector = v
        report.text_embedder, report.text_dim = emb.name, emb.dim
    else:
        dims: Counter[int] = Counter()
        for t in texts:
            try:
                t.vector = _text_vector(getattr(plan.nodes[t.uid], "embeddings", None))
                dims[t.vector.size] += 1
            except (EmbeddingError, TypeError, ValueError) as e:
                t.vector = None
                plan.skip(f"node {t.uid}", f"unusable text embedding ({e}); import with reembed=True to keep it")
        dim = dims.most_common(1)[0][0] if dims else 0
        for t in texts:
            if t.vector is not None and t.vector.size != dim:
                plan.skip(f"node {t.uid}", f"text embedding is {t.vector.size}-d, the others {dim}-d")
                t.vector = None
        if dim:
            report.text_embedder, report.text_dim = embedder_name, dim
    dropped = {t.uid for t in texts if t.vector is None}
    texts = [t for t in texts if t.vector is not None]
    if dropped:  # an entity placed by a dropped text node keeps its place: still a valid (earlier) clip
        report.notes.append(f"{len(dropped)} text node(s) not imported, see skipped")
    if report.text_embedder is not None and texts:
        # raises (before any clip is written) when the store already holds vectors of another model
        store.declare_embedder(report.text_embedder, int(report.text_dim or 0))

    # -- write, clip by clip
    by_clip_texts: dict[int, list[_Text]] = {}
    for t in texts:
        by_clip_texts.setdefault(t.clip, []).append(t)
    by_clip_ents: dict[int, list[_Entity]] = {}
    for e in plan.entities.values():
        by_clip_ents.setdefault(e.clip, []).append(e)
    later_refs: dict[int, set[int]] = {}
    for t in texts:
        later_refs.setdefault(t.clip, set()).update(u for u in t.edges if plan.entities[u].clip < t.clip)
    clips = sorted(set(by_clip_texts) | set(by_clip_ents))
    source = f"videograph:{Path(str(pickle_path)).name}"
    max_seed = -1
    for i, clip in enumerate(clips):
        cid = clip + clip_off
        start = time_off + clip * clip_seconds
        with store.begin_clip(cid, start, start + clip_seconds, source=source,
                              extra={"upstream_clip": clip, "node_id_offset": node_off}) as w:
            for e in sorted(by_clip_ents.get(clip, []), key=lambda x: x.uid):
                nid = e.uid + node_off
                store._set_meta("next_character_seed", nid)  # seed = (shifted) upstream id
                w.add_entity(e.kind, e.embeddings, e.contents,
                             content_kind="face_jpeg_b64" if e.kind == "face" else "voice_asr", node_id=nid)
                max_seed = max(max_seed, nid)
            for uid in sorted(later_refs.get(clip, ())):
                w.update_entity(uid + node_off)  # extends the entity's time span to this clip
            edge_rows: list[tuple[int, int, float]] = []
            for t in by_clip_texts.get(clip, []):
                nid = t.uid + node_off
                assert t.vector is not None
                w._new_text_node(t.text, t.kind, t.vector, [], is_equivalence(t.text), nid)
                edge_rows.extend((nid, e + node_off, wt) for e, wt in sorted(t.edges.items()))
                if t.edges:
                    store.conn.execute("UPDATE nodes SET weight = ? WHERE id = ?", (max(t.edges.values()), nid))
            # our own weighted edges (the node was created without any); same transaction as the nodes
            store.conn.executemany("INSERT OR REPLACE INTO edges (text_id, entity_id, weight) VALUES (?, ?, ?)",
                                   edge_rows)
        report.clip_ids.append(cid)
        if progress is not None:
            progress(i + 1, len(clips))

    # -- counters
    with store.transaction():
        cur = int(store.meta("next_character_seed", "0") or 0)
        nxt = report.upstream_next_node_id
        want = max(cur, max_seed + 1, (nxt + node_off) if nxt is not None else 0)
        store._set_meta("next_character_seed", want)
        history = json.loads(store.meta("upstream_imports", "[]") or "[]")
        history.append({"source": str(pickle_path), "imported_at": time.time(), "node_id_offset": node_off,
                        "clip_id_offset": clip_off, "time_offset": time_off, "clip_seconds": clip_seconds,
                        "upstream_next_node_id": nxt, "text_embedder": report.text_embedder,
                        "reembedded": reembed})
        store._set_meta("upstream_imports", json.dumps(history))

    _fill_counts(store, plan, report, node_off)
    _compare_characters(store, graph, plan, report, node_off)
    report.seconds = time.perf_counter() - t0
    return report


def _fill_counts(store: MemoryStore, plan: _Planner, report: ImportReport, node_off: int) -> None:
    ids = [u + node_off for u in plan.entities] + [u + node_off for u in plan.texts]
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
    report.nodes = {k: counts.get(k, 0) for k in ("face", "voice", "episodic", "semantic")}
    report.embeddings_kept = {k: emb.get(k, 0) for k in ("face", "voice")}
    report.contents_kept = {k: cont.get(k, 0) for k in ("face", "voice")}
    report.edges = edges
    report.equivalences = eq
    report.clips = len(report.clip_ids)


def _compare_characters(store: MemoryStore, graph: UpstreamVideoGraph, plan: _Planner, report: ImportReport,
                        node_off: int) -> None:
    ours_ids = {u + node_off for u in plan.entities}
    chars = store.characters()
    report.characters_ours = {
        cid: [entity_tag(k, n) for k, n in members]
        for cid, members in sorted(chars.members.items()) if any(n in ours_ids for _, n in members)}
    mappings = getattr(graph, "character_mappings", None)
    if not isinstance(mappings, dict):
        return
    upstream: list[list[str]] = []
    for tags in mappings.values():
        group = []
        for tag in tags if isinstance(tags, (list, tuple, set)) else ():
            kind, _, num = str(tag).strip("<>").partition("_")
            n = _int(num) if num.isdigit() else None
            kind = "face" if kind in ("face", "img") else kind
            if n is not None and kind in ("face", "voice") and n in plan.entities:
                group.append(entity_tag(kind, n + node_off))
        if group:
            upstream.append(sorted(group))
    report.characters_upstream = sorted(upstream)
    report.characters_match = _groups(upstream) == _groups(report.characters_ours.values())


__all__ = ["DEFAULT_TEXT_EMBEDDER", "ForbiddenGlobalError", "ImportReport", "PickleImportError",
           "RestrictedUnpickler", "UpstreamNode", "UpstreamVideoGraph", "import_videograph", "load_videograph"]
