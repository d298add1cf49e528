"""m3_memory: M3-Agent's entity-centric long-term memory graph in SQLite, searched with faiss. No ROS imports."""

from .config import StoreConfig
from .embedders import EmbeddingError, make_embedder
from .store import ClipWriter, MemoryStore, StoreError
from .store.records import ClipHit, Entity, ForgetReport, InsertResult, Memory

__all__ = [
    "ClipHit", "ClipWriter", "EmbeddingError", "Entity", "ForgetReport", "InsertResult", "Memory", "MemoryStore",
    "StoreConfig", "StoreError", "make_embedder",
]
