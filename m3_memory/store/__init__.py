"""The store: every read and write of the memory and its vector index (no SQL outside this package). ``MemoryStore``
is the public API, on SQLite (a file: one robot) or PostgreSQL + pgvector (a ``postgresql://`` URL: several robots
sharing one memory; :mod:`m3_memory.store.pg`)."""

from pathlib import Path

from ..errors import StoreError
from .clip_writer import ClipWriter
from .memory_store import MemoryStore
from .pg import is_postgres_url, redact_url


def store_location(value: str | Path) -> str | Path:
    """A store as configured (``db_path``, ``--db``): a ``postgresql://`` URL as given, else a file path (``~``
    expanded)."""
    return value if is_postgres_url(value) else Path(value).expanduser()


def store_exists(value: str | Path) -> bool:
    """Is there a store to open read-only? A file must exist; a server is asked when the store is opened."""
    loc = store_location(value)
    return isinstance(loc, str) or loc.is_file()


__all__ = ["ClipWriter", "MemoryStore", "StoreError", "is_postgres_url", "redact_url", "store_exists",
           "store_location"]
