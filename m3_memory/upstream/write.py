"""The writer: a planned graph written into an open store in ONE transaction, the import records that make it
idempotent, and :func:`import_videograph` (package docstring: :mod:`m3_memory.upstream`)."""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..store import ClipWriter, MemoryStore, StoreError
from ..tags import entity_tag, find_tags, is_equivalence, replace_tags
from .plan import (
    _KINDS,
    ImportReport,
    _Entity,
    _int,
    _Planner,
    _prepare,
    _Prepared,
    _read_pickle,
    _size,
    _Text,
)
from .unpickle import ImportLimits, PickleImportError, UpstreamVideoGraph

DEFAULT_TEXT_EMBEDDER = "openai:text-embedding-3-large"


# ---------------------------------------------------------------------------------------------- import records
_RECORD_PREFIX = "import:"


def _record_key(sha256: str) -> str:
    return f"{_RECORD_PREFIX}{sha256}"


def _records(store: MemoryStore) -> Iterable[dict]:
    """The ``import:<sha256>`` records in ``meta`` (a range scan of its primary key)."""
    for value in store.meta_values(_RECORD_PREFIX):
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
def _require_empty_unless(store: MemoryStore, into_existing: bool) -> None:
    if not into_existing and not store.is_empty():
        raise PickleImportError(f"{store.location} already holds memories; import into an empty database, or pass "
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
        if not s.is_empty():
            max_node, max_clip, max_end = s.id_extents()
            self.node_off = max(max_node + 1, int(s.meta("next_character_seed", "0") or 0))
            self.clip_off = 0 if max_clip is None else int(max_clip) + 1
            self.time_off = 0.0 if max_end is None else float(max_end)
        r = self.report
        r.node_id_offset, r.clip_id_offset, r.time_offset = self.node_off, self.clip_off, self.time_off

    def _map_ids(self) -> None:
        known = _known_nodes(self.store, self.prep.graph_key)
        present = self.store.existing_node_ids(known.values())
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
            self.store.put_edges(edge_rows)
            # the clips row begin_clip() writes at its commit, here inside the import's single transaction
            self.store.insert_clip_row(w.clip_id, w.start_time, w.end_time,
                                       f"videograph:{Path(self.report.source).name}", w.extra)
            self.report.clip_ids.append(w.clip_id)
            if self.opts.progress is not None:
                self.opts.progress(i + 1, len(clips))
        return max_seed

    def _open_clip(self, clip: int) -> ClipWriter:
        cid = clip + self.clip_off
        if self.store.has_clip(cid):
            raise StoreError(f"clip {cid} is already committed")
        start = self.time_off + clip * self.opts.clip_seconds
        w = ClipWriter(self.store, cid, start, start + self.opts.clip_seconds)
        w.extra.update({"upstream_clip": clip, "node_id_offset": self.node_off})
        return w

    def _write_entity(self, w: ClipWriter, e: _Entity) -> int:
        nid = self.ids[e.uid]
        self.store.set_meta("next_character_seed", nid)  # seed = (shifted) upstream id
        w.add_entity(e.kind, e.embeddings, e.contents,
                     content_kind="face_jpeg_b64" if e.kind == "face" else "voice_asr", node_id=nid)
        self.added.append(e.uid)
        return nid

    def _write_text(self, w: ClipWriter, t: _Text) -> list[tuple[int, int, float]]:
        nid = self.ids[t.uid]
        assert t.vector is not None
        w.insert_text_node(t.text, t.kind, t.vector, [], is_equivalence(t.text), nid)
        if t.edges:
            self.store.set_node_weight(nid, max(t.edges.values()))
        self.added.append(t.uid)
        return [(nid, self.ids[e], wt) for e, wt in sorted(t.edges.items())]

    def _counters(self, max_seed: int) -> None:
        s, nxt = self.store, self.report.upstream_next_node_id
        cur = int(s.meta("next_character_seed", "0") or 0)
        s.set_meta("next_character_seed", max(cur, max_seed + 1, (nxt + self.node_off) if nxt is not None else 0))

    def _record(self) -> None:
        """The import's record (``import:<sha256>``, what makes it idempotent) and the import history."""
        r, s, now = self.report, self.store, time.time()
        s.set_meta(_record_key(self.prep.sha256), json.dumps({
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
        s.set_meta("upstream_imports", json.dumps(history))


def _declare_text_embedder(store: MemoryStore, name: str, dim: int) -> None:
    """:meth:`MemoryStore.declare_embedder` without its own transaction."""
    have, have_dim = store.meta("embedder_name"), int(store.meta("embedder_dim") or 0)
    if have is not None and (have != name or have_dim != dim):
        raise StoreError(f"{store.location} already holds {have_dim}-d text vectors from {have!r}; cannot mix with "
                         f"{dim}-d ones from {name!r}")
    store.set_meta("embedder_name", name)
    store.set_meta("embedder_dim", dim)


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
    """Import an upstream ``VideoGraph`` pickle into the open ``store`` (see :mod:`m3_memory.upstream`).

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
    store.require_writable()
    _require_empty_unless(store, into_existing)
    data, sha256 = _read_pickle(pickle_path)
    done = _already_imported(store, str(pickle_path), sha256)
    if done is not None:
        return done
    prep = _prepare(pickle_path, data, sha256, store.config, limits or ImportLimits(),
                    store.embedder.dim if reembed else None)
    del data
    return _commit(store, prep, opts, t0)



def _fill_counts(store: MemoryStore, report: ImportReport, ids: list[int]) -> None:
    stats, eq, edges = store.node_stats(ids)
    report.nodes = {k: stats.get(k, (0, 0, 0))[0] for k in _KINDS}
    report.embeddings_kept = {k: stats.get(k, (0, 0, 0))[1] for k in ("face", "voice")}
    report.contents_kept = {k: stats.get(k, (0, 0, 0))[2] for k in ("face", "voice")}
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
