"""Errors the browser shows as a page: a status, a title and a sentence the user can act on, never a traceback."""

from __future__ import annotations

import logging
import sqlite3

from starlette.exceptions import HTTPException

from m3_memory import EmbeddingError, StoreError
from m3_memory.errors import ReadOnlyStoreError, UnknownCharacterError

log = logging.getLogger(__name__)

_HTTP_TITLES = {400: "Bad request", 401: "Login needed", 403: "Not allowed", 404: "Not found",
                405: "Method not allowed", 413: "Too large", 429: "Too many attempts"}


class BrowserError(Exception):
    """A request the browser answers with an error page."""

    def __init__(self, status: int, title: str, detail: str) -> None:
        super().__init__(f"{status} {title}: {detail}")
        self.status, self.title, self.detail = status, title, detail


def not_found(what: str) -> BrowserError:
    return BrowserError(404, "Not found", f"{what} is not in the memory (it may have been forgotten).")


def classify(exc: BaseException) -> BrowserError:
    """Any exception of a request -> the error page to show (unexpected ones are logged with their traceback)."""
    if isinstance(exc, BrowserError):
        return exc
    if isinstance(exc, HTTPException):
        detail = exc.detail if exc.status_code != 404 else "There is no page at this address."
        return BrowserError(exc.status_code, _HTTP_TITLES.get(exc.status_code, "Error"), str(detail))
    if isinstance(exc, ReadOnlyStoreError):
        return BrowserError(403, "Read-only", "The memory is open read-only; corrections are disabled.")
    if isinstance(exc, UnknownCharacterError):
        text = str(exc)
        return BrowserError(404, "Not found", f"{text[:1].upper()}{text[1:]} (it may have been forgotten).")
    if isinstance(exc, StoreError):
        return BrowserError(400, "Refused", str(exc))
    if isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc)):
        return BrowserError(503, "Memory busy", "The memory database is locked by another writer (memorization or "
                                                "another correction). Nothing was changed; try again in a moment.")
    if isinstance(exc, sqlite3.ProgrammingError) and "closed" in str(exc):
        return BrowserError(503, "Memory closed", "The memory database is closed (the server is stopping). "
                                                  "Restart m3-memory serve.")
    if isinstance(exc, sqlite3.DatabaseError):
        return BrowserError(503, "Memory unreadable", f"The memory database cannot be read: {exc}.")
    if isinstance(exc, EmbeddingError):
        return BrowserError(503, "Search unavailable", f"The text embedder failed: {exc}.")
    if isinstance(exc, OSError):
        return BrowserError(503, "Memory unavailable", f"The memory database cannot be opened: {exc}.")
    log.error("unexpected error", exc_info=exc)
    return BrowserError(500, "Internal error", "Something unexpected went wrong; the details are in the server log.")
