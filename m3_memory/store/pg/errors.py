"""Where the store is (a PostgreSQL URL or not, shown without its password) and psycopg's errors as the ``sqlite3``
classes the store and its callers handle."""

from __future__ import annotations

import sqlite3
from urllib.parse import urlsplit, urlunsplit


def is_postgres_url(location: object) -> bool:
    return isinstance(location, str) and location.split(":", 1)[0] in ("postgresql", "postgres")


def redact_url(url: str) -> str:
    """The URL without its password (for messages and logs)."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def sqlite_error(e: Exception, sql: str) -> sqlite3.Error:
    import psycopg

    msg = f"PostgreSQL: {str(e).strip()} (in: {' '.join(sql.split())[:200]})"
    if isinstance(e, psycopg.errors.LockNotAvailable):   # lock_timeout (the store's busy timeout) ran out
        return sqlite3.OperationalError(f"database is locked: another writer holds the store's write lock ({msg})")
    if isinstance(e, psycopg.IntegrityError):
        return sqlite3.IntegrityError(msg)
    if isinstance(e, (psycopg.OperationalError, psycopg.InterfaceError)):
        return sqlite3.OperationalError(msg)
    if isinstance(e, psycopg.ProgrammingError):
        return sqlite3.ProgrammingError(msg)
    return sqlite3.DatabaseError(msg)
