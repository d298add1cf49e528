"""The store's refusal, in a module of its own so that the modules the store delegates to (corrections, forget)
can raise it without importing the store."""


class StoreError(RuntimeError):
    """A request the store refuses (bad input, read-only store, model mismatch)."""


class ReadOnlyStoreError(StoreError):
    """A write to a store opened read-only."""


class UnknownCharacterError(StoreError):
    """A character id the store does not know (never was, or forgotten)."""


class ClipConflictError(StoreError):
    """A clip written while a person or memory it may name was deleted (forget, split, merge, by another process):
    nothing of it was stored; writing it again (from its recording) is safe."""
