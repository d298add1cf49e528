"""The store's refusal, in a module of its own so that the modules the store delegates to (corrections, forget)
can raise it without importing the store."""


class StoreError(RuntimeError):
    """A request the store refuses (bad input, read-only store, model mismatch)."""
