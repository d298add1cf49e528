"""A test store built once per session and copied for each test that asks for the same one.

Hundreds of query tests read the same small meetings (tests/people_helpers.py), and writing one through the real
store (embedding every memory) costs 0.1-0.5 s where a copy costs milliseconds. :func:`built_once` builds a store
the first time a key is asked for and gives every later caller a copy of its own, so tests stay independent:

- SQLite: the built file (closed, so its write-ahead log is checkpointed into it) is copied to the test's path;
- PostgreSQL: the built database is a template, and the test's database is made again from it
  (``CREATE DATABASE ... TEMPLATE``, a file copy on the server).

The key must name everything the build depends on; the build must not depend on anything else.
"""

from __future__ import annotations

import atexit
import copy
import hashlib
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from m3_memory import MemoryStore

_FOLDER: Path | None = None
_EXTRAS: dict[str, Any] = {}    # what a build returned beside its store, by cache name


def _folder() -> Path:
    global _FOLDER
    if _FOLDER is None:
        _FOLDER = Path(tempfile.mkdtemp(prefix="m3_test_stores_"))
        atexit.register(shutil.rmtree, _FOLDER, True)
    return _FOLDER


def built_once(path: Path | str, key: str, build: Callable[[Path | str], tuple[MemoryStore, Any]],
               ) -> tuple[MemoryStore, Any]:
    """``build(location)`` -> (store, extra), made once per key and session; a copy of it opened at ``path``
    (a SQLite file path or a PostgreSQL URL of a database made for this test), with the build's extra."""
    digest = hashlib.sha1(key.encode()).hexdigest()[:16]
    if isinstance(path, str) and path.startswith("postgresql"):
        return _postgres_copy(path, f"tpl_{digest}", build)
    name = f"{digest}.db"
    source = _folder() / name
    if name not in _EXTRAS:
        store, _EXTRAS[name] = build(source)
        store.close()
    shutil.copyfile(source, path)
    return MemoryStore(path), copy.deepcopy(_EXTRAS[name])


def _postgres_copy(url: str, template: str, build: Callable[[Path | str], tuple[MemoryStore, Any]],
                   ) -> tuple[MemoryStore, Any]:
    import psycopg

    from m3_memory.store.pg.server import _database

    parts = urlsplit(url)
    target = parts.path.lstrip("/")
    server = urlunsplit(parts._replace(path="/postgres"))
    if template not in _EXTRAS:
        with psycopg.connect(server, autocommit=True) as c:   # one left by an earlier session on M3_TEST_PG_URL
            c.execute(f'DROP DATABASE IF EXISTS "{template}"')
        store, _EXTRAS[template] = build(_database(server, template, lambda: urlunsplit(
            parts._replace(path=f"/{template}"))))
        store.close()
    with psycopg.connect(server, autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{target}"')
        c.execute(f'CREATE DATABASE "{target}" TEMPLATE "{template}"')
    return MemoryStore(url), copy.deepcopy(_EXTRAS[template])
