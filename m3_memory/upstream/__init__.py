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

Modules, each importing only those before it: :mod:`.unpickle` (the restricted unpickler, the errors and
:class:`ImportLimits`) <- :mod:`.plan` (the planner, :class:`ImportReport`) <- :mod:`.write` (the one
transaction, :func:`import_videograph`) <- :mod:`.publish` (the new database file, :func:`import_pickle_file`).
"""

from .plan import ImportReport
from .publish import import_pickle_file
from .unpickle import (
    ForbiddenGlobalError,
    ImportCapError,
    ImportLimits,
    PickleImportError,
    RestrictedUnpickler,
    UpstreamNode,
    UpstreamVideoGraph,
    load_videograph,
)
from .write import DEFAULT_TEXT_EMBEDDER, import_videograph

__all__ = ["DEFAULT_TEXT_EMBEDDER", "ForbiddenGlobalError", "ImportCapError", "ImportLimits", "ImportReport",
           "PickleImportError", "RestrictedUnpickler", "UpstreamNode", "UpstreamVideoGraph", "import_pickle_file",
           "import_videograph", "load_videograph"]
