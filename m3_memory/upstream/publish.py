"""A new database file built in a temporary file and published atomically once complete (fsync, link or
rename), stale temporary files and orphan journals handled: :func:`import_pickle_file` (package docstring:
:mod:`m3_memory.upstream`)."""

from __future__ import annotations

import glob
import os
import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from ..config import StoreConfig
from ..embedders import TextEmbedder, make_embedder
from ..processes import process_exists
from ..store import MemoryStore
from .plan import ImportReport, _prepare, _read_pickle
from .unpickle import ImportLimits, PickleImportError
from .write import DEFAULT_TEXT_EMBEDDER, _commit, _Options, import_videograph

# ---------------------------------------------------------------------------------------------- new database file
_TEMP_RE = re.compile(r"\.import-(\d+)-[0-9a-f]+\.tmp(-wal|-shm|-journal)?$")


def _remove_db_files(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _remove_stale_temps(db: Path) -> None:
    """Temporary databases left by importers that were killed (their process is gone)."""
    for p in db.parent.glob(f".{glob.escape(db.name)}.import-*.tmp*"):
        m = _TEMP_RE.search(p.name)
        if m and not process_exists(int(m.group(1))):
            p.unlink(missing_ok=True)


def _refuse_orphan_journal(db: Path) -> None:
    # SQLite would apply a leftover WAL / hot journal of a deleted database to the new file of the same name
    for suffix in ("-wal", "-journal"):
        p = Path(f"{db}{suffix}")
        if p.exists() and p.stat().st_size > 0:
            raise PickleImportError(f"{p} exists without its database {db}; restore the database or remove {p} "
                                    "before importing (a new database of that name would read it)")


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError:  # e.g. a directory on a file system that cannot fsync one
        pass
    finally:
        os.close(fd)


def _publish(tmp: Path, db: Path) -> None:
    """Make the complete temporary database ``db`` in one atomic step, never replacing a database that
    appeared meanwhile: a hard link (fails if ``db`` exists), else ``os.replace``."""
    _fsync(tmp)
    try:
        os.link(tmp, db)
    except FileExistsError:
        raise PickleImportError(f"{db} was created by someone else during the import; it was left as it is and "
                                "nothing was imported") from None
    except OSError:  # no hard links on this file system
        if db.exists():
            raise PickleImportError(f"{db} was created by someone else during the import; it was left as it is "
                                    "and nothing was imported") from None
        os.replace(tmp, db)
    _fsync(db.parent)


def _text_embedder(spec: TextEmbedder | dict | str | None) -> TextEmbedder:
    return spec if hasattr(spec, "embed") else make_embedder(spec)  # type: ignore[arg-type,return-value]


def import_pickle_file(pickle_path: str | Path, db_path: str | Path, *, clip_seconds: float = 30.0,
                       reembed: bool = False, embedder_name: str = DEFAULT_TEXT_EMBEDDER,
                       into_existing: bool = False, progress: Callable[[int, int], None] | None = None,
                       limits: ImportLimits | None = None, config: StoreConfig | dict | None = None,
                       embedder: TextEmbedder | dict | str | None = None) -> ImportReport:
    """Import a pickle into the database FILE ``db_path``, all or nothing whatever happens to this process.

    An existing database gets the import as ONE transaction (:func:`import_videograph`). A new one is built
    in a temporary file next to it (``.<name>.import-<pid>-<random>.tmp``; those of killed importers are
    removed) and only once complete and fsynced does it become ``db_path``, in one atomic step: ``db_path``
    never exists half-written. Nothing is created when the pickle is refused (caps, bad pickle).
    """
    db = Path(db_path)
    _remove_stale_temps(db)
    if db.exists():
        with MemoryStore(db, config=config, embedder=embedder) as store:
            return import_videograph(pickle_path, store, clip_seconds=clip_seconds, reembed=reembed,
                                     embedder_name=embedder_name, into_existing=into_existing, progress=progress,
                                     limits=limits)
    t0 = time.perf_counter()
    opts = _Options(clip_seconds, reembed, embedder_name, into_existing, progress)
    opts.check()
    _refuse_orphan_journal(db)
    data, sha256 = _read_pickle(pickle_path)
    cfg = config if isinstance(config, StoreConfig) else StoreConfig.from_dict(config)
    emb = _text_embedder(embedder) if reembed else embedder
    prep = _prepare(pickle_path, data, sha256, cfg, limits or ImportLimits(),
                    emb.dim if reembed else None)  # type: ignore[union-attr]
    del data
    db.parent.mkdir(parents=True, exist_ok=True)
    tmp = db.parent / f".{db.name}.import-{os.getpid()}-{secrets.token_hex(4)}.tmp"
    try:
        store = MemoryStore(tmp, config=cfg, embedder=emb)
        try:
            report = _commit(store, prep, opts, t0)
            store.fold_wal()  # one self-contained file
        finally:
            store.close()
        _publish(tmp, db)
    finally:
        _remove_db_files(tmp)  # the partial file after an error; else only a second name of the database
    return report
