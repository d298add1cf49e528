"""Chat-model backends for the reasoning loop (one interface: ``complete(messages) -> str``)."""

from .base import ChatBackend, ChatError
from .factory import make_backend

__all__ = ["ChatBackend", "ChatError", "make_backend"]
