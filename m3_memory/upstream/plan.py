"""The import planner: an unpickled graph read into records and checked against every :class:`ImportLimits` cap
before anything is written, and the :class:`ImportReport` (package docstring: :mod:`m3_memory.upstream`)."""

from __future__ import annotations

import base64
import bisect
import hashlib
import io
import json
import math
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..config import StoreConfig
from ..embedders import EmbeddingError, normalize_rows
from ..tags import find_tags
from .unpickle import ImportCapError, ImportLimits, UpstreamNode, UpstreamVideoGraph, load_videograph

_KIND_OF_TYPE = {"img": "face", "face": "face", "voice": "voice", "episodic": "episodic", "semantic": "semantic"}


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
