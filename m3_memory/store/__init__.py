"""The store: every read and write of the memory's SQLite file and its vector index (no SQL outside this
package). ``MemoryStore`` is the public API; a second storage engine implements what this package does."""

from ..errors import StoreError
from .clip_writer import ClipWriter
from .memory_store import MemoryStore

__all__ = ["ClipWriter", "MemoryStore", "StoreError"]
