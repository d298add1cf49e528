"""The restricted unpickler: an upstream ``VideoGraph`` pickle into attribute-only stand-ins, nothing else
executed; and the errors and :class:`ImportLimits` of an import (package docstring: :mod:`m3_memory.upstream`)."""

from __future__ import annotations

import contextlib
import importlib
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..store import StoreError

UPSTREAM_MODULES = ("videograph", "mmagent.videograph")


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
