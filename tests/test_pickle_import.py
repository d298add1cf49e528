"""Import of upstream VideoGraph pickles: everything comes across, nothing foreign is executed; all or nothing
(kill -9 at any moment), idempotent, and every cap checked before anything is written."""

from __future__ import annotations

import collections
import io
import json
import os
import pickle
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from m3_memory import MemoryStore, StoreConfig, StoreError, upstream
from m3_memory.cli import main
from m3_memory.upstream import (
    ForbiddenGlobalError,
    PickleImportError,
    RestrictedUnpickler,
    import_videograph,
    load_videograph,
)

from .fixtures_upstream import (
    GROWN_TEXT,
    TEXT_DIM,
    Expected,
    build_bomb_pickle,
    build_large_pickle,
    build_malicious_pickle,
    build_upstream_pickle,
)

ROOT = Path(__file__).resolve().parents[1]


class LookupEmbedder:
    """Stands in for text-embedding-3-large: returns the pickle's own vector for a memory text."""

    name = "openai:text-embedding-3-large"
    dim = TEXT_DIM

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        self.table = table

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.table[t] for t in texts]).astype(np.float32)


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)


def _snapshot(store: MemoryStore) -> dict:
    q = store.conn.execute
    return {t: q(f"SELECT * FROM {t} ORDER BY 1").fetchall()
            for t in ("meta", "clips", "nodes", "edges", "embeddings", "contents", "character_names")}


def _check_graph(store: MemoryStore, exp: Expected, cap_face: int = 10, cap_contents: int = 20) -> None:
    q = store.conn.execute
    # clips: one per upstream clip with memories or entities, at clip * 30 s
    assert q("SELECT id, start_time, end_time FROM clips ORDER BY id").fetchall() == [
        (c, c * 30.0, c * 30.0 + 30.0) for c in exp.clips]
    # entities keep their ids, kinds and clips; embeddings capped, the kept ones are the pickle's rows
    ents = {e.id: e for e in store.entities()}
    assert set(ents) == set(exp.entities)
    for uid, want in exp.entities.items():
        e = ents[uid]
        assert (e.kind, e.clip_id, e.start_time) == (want["kind"], exp.entity_clip[uid], exp.entity_clip[uid] * 30.0)
        got = store.entity_embeddings(uid)
        orig = _unit(want["embeddings"])
        assert got.shape == (min(len(orig), cap_face if e.kind == "face" else 20), orig.shape[1])
        if len(orig) <= got.shape[0]:
            np.testing.assert_allclose(got, orig, atol=1e-6)
        else:  # every kept row is one of the originals
            assert (np.abs(got @ orig.T - 1.0) < 1e-5).any(axis=1).all()
        contents = store.entity_contents(uid)
        kind = "face_jpeg_b64" if e.kind == "face" else "voice_asr"
        assert {c["kind"] for c in contents} == {kind}
        assert all(c["data"] is None for c in contents)
        assert [c["text"] for c in contents] == want["contents"][-cap_contents:]
    # text nodes: verbatim text, clip, time span and the pickle's vector
    for uid, want in exp.texts.items():
        row = q("SELECT type, text, clip_id, start_time, end_time, is_equivalence FROM nodes WHERE id = ?",
                (uid,)).fetchone()
        c = want["clip"]
        assert row == (want["kind"], want["text"], c, c * 30.0, c * 30.0 + 30.0,
                       int(want["text"].startswith("Equivalence")))
        vec = store.entity_embeddings(uid)  # one row for a text node
        np.testing.assert_allclose(vec, want["vector"][None, :], atol=1e-6)
    # edges: text -> entity only, with upstream's weights; a text node's weight is its edge weight
    assert {(t, e): w for t, e, w in q("SELECT text_id, entity_id, weight FROM edges")} == exp.edges
    assert q("SELECT weight FROM nodes WHERE id = 5").fetchone()[0] == 3.0
    assert q("SELECT weight FROM nodes WHERE id = 6").fetchone()[0] == 2.0
    # characters: the same grouping as upstream's character_mappings; ids = smallest upstream entity id
    members = store.character_members()
    assert sorted(map(sorted, members.values())) == sorted(map(sorted, exp.character_groups))
    assert members[0] == ["<voice_0>", "<face_1>"] and members[2] == ["<face_2>", "<voice_10>"]
    assert store.translate("<voice_10> asks where the car keys are.") == "<character_2> asks where the car keys are."
    assert int(store.meta("next_character_seed")) == exp.next_node_id


@pytest.mark.parametrize(("protocol", "module", "numpy_arrays"), [
    (4, "videograph", False),
    (4, "mmagent.videograph", True),
    (2, "videograph", True),
    (5, "videograph", True),
    (0, "mmagent.videograph", False),
])
def test_everything_comes_across(tmp_path, protocol, module, numpy_arrays):
    exp = build_upstream_pickle(tmp_path / "g.pkl", protocol=protocol, module=module, numpy_arrays=numpy_arrays)
    assert "videograph" not in sys.modules and "mmagent.videograph" not in sys.modules
    store = MemoryStore(tmp_path / "m.db")
    report = import_videograph(tmp_path / "g.pkl", store)
    _check_graph(store, exp)
    assert report.nodes == {"face": 5, "voice": 2, "episodic": 7, "semantic": 4}
    assert report.upstream_nodes == {"voice": 2, "img": 5, "episodic": 7, "semantic": 4}
    assert (report.edges, report.upstream_edges, report.clips, report.equivalences) == (14, 28, 4, 2)
    assert report.clip_ids == [0, 1, 2, 4]
    assert report.embeddings_in == {"voice": 3, "face": 21} and report.embeddings_kept == {"face": 19, "voice": 3}
    assert report.contents_in == {"voice": 3, "face": 32} and report.contents_kept == {"face": 27, "voice": 3}
    assert (report.text_embedder, report.text_dim, report.reembedded) == ("openai:text-embedding-3-large", 3072,
                                                                          False)
    assert report.characters_match is True
    assert report.characters_ours[0] == ["<voice_0>", "<face_1>"]
    assert ["<face_1>", "<voice_0>"] in report.characters_upstream
    assert report.skipped == [] and report.upstream_next_node_id == 18
    assert "same grouping" in report.summary()
    assert store.stats()["embedder"] == "openai:text-embedding-3-large"


def test_store_caps_apply_and_are_reported(tmp_path):
    exp = build_upstream_pickle(tmp_path / "g.pkl")
    store = MemoryStore(tmp_path / "m.db", config=StoreConfig(max_face_embeddings=2, max_contents_per_entity=2))
    report = import_videograph(tmp_path / "g.pkl", store)
    _check_graph(store, exp, cap_face=2, cap_contents=2)
    assert report.embeddings_kept["face"] == 2 + 2 + 2 + 2 + 1
    assert report.contents_kept["face"] == 2 + 2 + 2 + 1 + 1


def test_pickled_vectors_are_searchable_with_the_same_model(tmp_path):
    exp = build_upstream_pickle(tmp_path / "g.pkl")
    with MemoryStore(tmp_path / "m.db") as store:
        import_videograph(tmp_path / "g.pkl", store)
    table = {t["text"]: t["vector"] for t in exp.texts.values()}
    table["where are the keys"] = exp.texts[14]["vector"]
    store = MemoryStore(tmp_path / "m.db", embedder=LookupEmbedder(table), readonly=True)
    hits = store.search_clips("<face_2> hands <face_1> a red folder.", topk=1)
    assert [h.clip_id for h in hits] == [1] and hits[0].score == pytest.approx(1.0, abs=1e-5)
    hits = store.search_clips("where are the keys", topk=2)
    assert [h.clip_id for h in hits] == [2]  # random 3072-d vectors: only the exact one is above 0.5
    assert [m.id for m in hits[0].memories] == [11, 12, 13, 14]
    assert store.search_nodes("where are the keys", topk=1)[0].id == 14


def test_reembed_gives_an_offline_searchable_store(tmp_path):
    build_upstream_pickle(tmp_path / "g.pkl")
    store = MemoryStore(tmp_path / "m.db")
    report = import_videograph(tmp_path / "g.pkl", store, reembed=True)
    assert report.reembedded and report.text_embedder == store.embedder.name and report.text_dim == 384
    assert store.stats()["embedder_dim"] == 384
    hits = store.search_clips("Who put the car keys into the drawer?", topk=1, threshold=0.0)
    assert hits[0].clip_id == 2
    hits = store.search_clips("a red folder was handed over", topk=1, threshold=0.0)
    assert hits[0].clip_id == 1
    assert store.search_nodes("prefers black coffee, no sugar", topk=1)[0].id == 6
    # entity tags still resolve to characters after re-embedding
    assert store.translate(store.get_memories([8])[0].text) == "<character_2> hands <character_0> a red folder."


@pytest.mark.parametrize("protocol", [2, 4])
def test_forbidden_global_is_refused_and_nothing_runs(tmp_path, protocol):
    marker = tmp_path / "pwned"
    build_malicious_pickle(tmp_path / "evil.pkl", f"touch {marker}", protocol=protocol)
    store = MemoryStore(tmp_path / "m.db")
    before = _snapshot(store)
    with pytest.raises(ForbiddenGlobalError, match=r"refusing to load the global (posix|nt|os)\.system"):
        import_videograph(tmp_path / "evil.pkl", store)
    assert not marker.exists()
    assert _snapshot(store) == before
    assert isinstance(ForbiddenGlobalError("x"), (pickle.UnpicklingError, StoreError))


def test_getattr_escape_is_refused(tmp_path):
    # protocol 2 spelling of getattr(object, "__subclasses__"): only getattr(VideoGraph, "Node") may pass
    path = tmp_path / "sneaky.pkl"
    path.write_bytes(b"\x80\x02c__builtin__\ngetattr\nc__builtin__\nobject\nX\x0e\x00\x00\x00__subclasses__"
                     b"\x86R)R.")
    with pytest.raises(ForbiddenGlobalError, match="getattr"):
        load_videograph(path)
    path.write_bytes(pickle.dumps({"x": 1}))
    with pytest.raises(PickleImportError, match="not an upstream VideoGraph"):
        load_videograph(path)
    path.write_bytes(b"definitely not a pickle")
    with pytest.raises(PickleImportError, match="not a readable VideoGraph pickle"):
        load_videograph(path)


@pytest.mark.parametrize("protocol", range(6))
def test_plain_types_and_numpy_load_at_every_protocol(protocol):
    data = {"set": {1, 2}, "frozen": frozenset({3}), "bytes": b"\x00\xff", "empty": b"", "ba": bytearray(b"xy"),
            "c": 1 + 2j, "od": collections.OrderedDict(a=1), "dd": collections.defaultdict(list, {1: [2]}),
            "f32": np.float32(1.5), "i64": np.int64(7), "obj": np.array([1, "a"], dtype=object),
            "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)), "none": np.zeros((0, 512))}
    got = RestrictedUnpickler(io.BytesIO(pickle.dumps(data, protocol=protocol))).load()
    assert {k: v for k, v in got.items() if not isinstance(v, np.ndarray)} == {
        k: v for k, v in data.items() if not isinstance(v, np.ndarray)}
    for k in ("obj", "fortran", "none"):
        assert got[k].dtype == data[k].dtype and got[k].shape == data[k].shape and (got[k] == data[k]).all()
    # numpy 1.x spelling of the reconstruct function
    old = pickle.dumps(np.arange(3.0), protocol=2).replace(b"numpy._core.multiarray", b"numpy.core.multiarray")
    assert RestrictedUnpickler(io.BytesIO(old)).load().tolist() == [0.0, 1.0, 2.0]


def test_allocation_bombs_are_refused():
    with pytest.raises(ForbiddenGlobalError, match="bytearray"):
        RestrictedUnpickler(io.BytesIO(b"c__builtin__\nbytearray\n(I1000000000000\ntR.")).load()
    with pytest.raises(ForbiddenGlobalError, match="_reconstruct"):
        RestrictedUnpickler(io.BytesIO(b"cnumpy.core.multiarray\n_reconstruct\n(cnumpy\nndarray\n"
                                       b"(I1000000000000\ntVb\ntR.")).load()


def test_pickle_cannot_modify_the_stand_in_classes(tmp_path):
    # protocol 0: BUILD with slot state on the class object itself = setattr(VideoGraph, "nodes", 1)
    path = tmp_path / "polluting.pkl"
    path.write_bytes(b"cvideograph\nVideoGraph\n(N(dVnodes\nI1\nstb.")
    with pytest.raises(PickleImportError):
        load_videograph(path)
    assert "nodes" not in upstream.UpstreamVideoGraph.__dict__
    with pytest.raises(ForbiddenGlobalError, match="refusing to set attribute 'x'"):
        upstream.UpstreamNode.x = 1  # the stand-ins are sealed, whatever path a pickle finds to them
    # protocols 0/1 build instances through copyreg._reconstructor: only for the stand-ins
    path.write_bytes(b"ccopy_reg\n_reconstructor\n(c__builtin__\nset\nc__builtin__\nobject\nNtR.")
    with pytest.raises(ForbiddenGlobalError, match="_reconstructor"):
        load_videograph(path)


def test_non_empty_store_needs_into_existing_which_appends(tmp_path):
    exp = build_upstream_pickle(tmp_path / "g.pkl")
    build_upstream_pickle(tmp_path / "other.pkl", seed=1)  # the same layout, another video
    store = MemoryStore(tmp_path / "m.db")
    import_videograph(tmp_path / "g.pkl", store)
    before = _snapshot(store)
    with pytest.raises(PickleImportError, match="into_existing"):
        import_videograph(tmp_path / "other.pkl", store)
    assert _snapshot(store) == before

    report = import_videograph(tmp_path / "other.pkl", store, into_existing=True)
    assert (report.node_id_offset, report.clip_id_offset, report.time_offset) == (18, 5, 150.0)
    assert report.clip_ids == [5, 6, 7, 9]
    assert store.conn.execute("SELECT start_time FROM clips WHERE id = 5").fetchone()[0] == 150.0
    assert store.get_memories([8 + 18])[0].text == "<face_20> hands <face_19> a red folder."
    assert store.get_memories([8 + 18])[0].clip_id == 6
    edges = dict(((t, e), w) for t, e, w in store.conn.execute("SELECT text_id, entity_id, weight FROM edges"))
    assert edges[(5 + 18, 1 + 18)] == 3.0 and len(edges) == 2 * len(exp.edges)
    members = store.character_members()
    assert members[18] == ["<voice_18>", "<face_19>"] and members[0] == ["<voice_0>", "<face_1>"]
    assert report.characters_match is True and len(report.characters_ours) == 5
    assert report.already_present == 0 and report.added == 18


def test_mixing_text_models_is_refused_before_writing(tmp_path):
    build_upstream_pickle(tmp_path / "g.pkl")
    build_upstream_pickle(tmp_path / "other.pkl", seed=1)
    store = MemoryStore(tmp_path / "m.db")
    import_videograph(tmp_path / "g.pkl", store, reembed=True)
    before = _snapshot(store)
    with pytest.raises(StoreError, match="cannot mix"):
        import_videograph(tmp_path / "other.pkl", store, into_existing=True)
    assert _snapshot(store) == before


def test_bad_nodes_are_skipped_with_reasons(tmp_path, monkeypatch):
    build_upstream_pickle(tmp_path / "g.pkl", numpy_arrays=True)
    # doctor the graph read by our own loader: a NaN text vector, a face without a usable embedding and a
    # text-text edge (never created upstream)
    graph = load_videograph(tmp_path / "g.pkl")
    graph.nodes[9].embeddings = [np.full(TEXT_DIM, np.nan)]
    graph.nodes[15].embeddings = [np.zeros(512)]
    graph.edges[(3, 4)] = graph.edges[(4, 3)] = 1.0
    # the planner looks the loader up in its own module
    monkeypatch.setattr(upstream.plan, "load_videograph", lambda _path: graph)
    store = MemoryStore(tmp_path / "m.db")
    report = import_videograph(tmp_path / "g.pkl", store)
    reasons = dict(report.skipped)
    assert "unusable text embedding" in reasons["node 9"]
    assert "without a usable embedding" in reasons["node 15"]
    assert reasons["edge 3-4"] == "joins two text nodes"
    assert store.get_memories([9]) == [] and 15 not in {e.id for e in store.entities()}
    assert report.nodes == {"face": 4, "voice": 2, "episodic": 7, "semantic": 3}
    # with reembed the text node survives (its pickled vector is not needed)
    store2 = MemoryStore(tmp_path / "m2.db")
    report2 = import_videograph(tmp_path / "g.pkl", store2, reembed=True)
    assert "node 9" not in dict(report2.skipped) and store2.get_memories([9])[0].kind == "semantic"


# ---------------------------------------------------------------------------------------------- all or nothing
_TABLES = ("clips", "nodes", "edges", "embeddings", "contents")


def _counts(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in _TABLES}
    finally:
        conn.close()


def _wal_over(folder: Path, nbytes: int) -> bool:
    """A WAL (of the target or of an importer's temporary database) has grown past ``nbytes``: mid-write."""
    for p in folder.glob("*m.db*-wal"):
        try:
            if p.stat().st_size > nbytes:
                return True
        except FileNotFoundError:
            pass
    return False


def _kill_when(proc: subprocess.Popen, ready: Callable[[], bool], timeout: float = 60.0) -> None:
    """Poll ``ready`` and SIGKILL ``proc`` as soon as it holds; the import must not have finished by then."""
    deadline = time.monotonic() + timeout
    try:
        while not ready():
            if proc.poll() is not None:
                out, err = proc.communicate()
                pytest.fail(f"the import ended (rc {proc.returncode}) before it was mid-way: {out[-300:]} {err[-500:]}")
            if time.monotonic() > deadline:
                pytest.fail("the import never got mid-way")
            time.sleep(0.002)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def _cli(*argv: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "m3_memory.cli", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_kill_9_mid_import_into_a_new_database_leaves_no_database(tmp_path):
    """The real CLI, killed while it writes (its WAL growing): the target is absent (or complete), never partial;
    the re-run cleans up the killed run's temporary file and imports everything."""
    full = build_large_pickle(tmp_path / "big.pkl", clips=300, texts_per_clip=80)
    db = tmp_path / "m.db"
    proc = _cli("import-pickle", str(tmp_path / "big.pkl"), "--db", str(db))
    _kill_when(proc, lambda: _wal_over(tmp_path, 1_000_000))
    assert not db.exists() or _counts(db)["nodes"] == sum(full.values())

    proc = _cli("import-pickle", str(tmp_path / "big.pkl"), "--db", str(db), "--json")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert _counts(db) == {"clips": 300, "nodes": sum(full.values()), "edges": full["episodic"],
                           "embeddings": 2 * full["face"] + full["episodic"], "contents": full["face"]}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.pkl", "m.db"]  # no temporary files left
    assert json.loads(out)["added"] == sum(full.values())


_DRIVER = """
import sys, time
from m3_memory import MemoryStore
from m3_memory.upstream import import_videograph

def progress(i, n):
    print(i, n, flush=True)
    if i == n // 3:
        time.sleep(120)  # a third of the clips written: wait here to be killed

import_videograph(sys.argv[1], MemoryStore(sys.argv[2]), into_existing=True, progress=progress)
"""


def test_kill_9_mid_import_into_an_existing_database_leaves_it_untouched(tmp_path):
    """An import appending to a store, killed with a third of its clips written: the store is exactly as before
    (one transaction, not one per clip), intact, and a re-run appends everything once."""
    build_large_pickle(tmp_path / "small.pkl", clips=3, texts_per_clip=5, name="small")
    full = build_large_pickle(tmp_path / "big.pkl", clips=60, texts_per_clip=50)
    db = tmp_path / "m.db"
    with MemoryStore(db) as store:
        import_videograph(tmp_path / "small.pkl", store)
        before = _snapshot(store)
    counts = _counts(db)
    proc = subprocess.Popen([sys.executable, "-c", _DRIVER, str(tmp_path / "big.pkl"), str(db)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    _kill_when(proc, lambda: proc.stdout.readline().split() == ["20", "60"])
    assert _counts(db) == counts
    with MemoryStore(db) as store:
        assert _snapshot(store) == before
        report = import_videograph(tmp_path / "big.pkl", store, into_existing=True)
        assert report.nodes == full and report.clips == 60
    assert _counts(db)["nodes"] == counts["nodes"] + sum(full.values())


# ---------------------------------------------------------------------------------------------- idempotent
def test_reimport_adds_nothing(tmp_path, capsys):
    """The same file again: "already imported, 0 added", nothing written (API and CLI). The same graph in
    other bytes (pickled again): 0 added, by the per-node keys. A grown pickle of the same run: only its new
    nodes, tied to the entities already in the store."""
    build_upstream_pickle(tmp_path / "g.pkl")
    build_upstream_pickle(tmp_path / "again.pkl", protocol=2, numpy_arrays=True)  # other bytes, same graph
    exp = build_upstream_pickle(tmp_path / "grown.pkl", grown=True)
    db = tmp_path / "m.db"
    with MemoryStore(db) as store:
        first = import_videograph(tmp_path / "g.pkl", store)
        before = _snapshot(store)
        report = import_videograph(tmp_path / "g.pkl", store, into_existing=True)
        assert _snapshot(store) == before
        assert report.already_imported and report.added == 0 and report.clip_ids == []
        assert "already imported, 0 added" in report.summary()
    record = json.loads(before["meta"][[k for k, _ in before["meta"]].index(f"import:{first.sha256}")][1])
    assert record["added"]["episodic"] == 7 and record["uids"] == [[0, 17]] and record["graph"]

    assert main(["import-pickle", str(tmp_path / "g.pkl"), "--db", str(db), "--into-existing"]) == 0
    assert "already imported, 0 added" in capsys.readouterr().out
    with MemoryStore(db) as store:
        assert _snapshot(store) == before
        report = import_videograph(tmp_path / "again.pkl", store, into_existing=True)
        assert not report.already_imported and report.added == 0 and report.already_present == 18
        after = _snapshot(store)
        assert {t: rows for t, rows in after.items() if t != "meta"} == {
            t: rows for t, rows in before.items() if t != "meta"}

        report = import_videograph(tmp_path / "grown.pkl", store, into_existing=True)
        assert report.nodes == {"face": 1, "voice": 0, "episodic": 1, "semantic": 0}
        assert report.already_present == 18 and report.node_id_offset == 18
        face = 18 + 18
        text = store.get_memories([19 + 18])[0]
        assert text.text == GROWN_TEXT.replace("<face_18>", f"<face_{face}>")  # <face_1>: the one already there
        assert dict(store.conn.execute("SELECT entity_id, weight FROM edges WHERE text_id = ?", (text.id,))) == {
            face: 1.0, 1: 1.0}
        assert store.conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == len(exp.entities) + len(exp.texts)
        assert report.characters_match is True
        # and again, nothing
        assert import_videograph(tmp_path / "grown.pkl", store, into_existing=True).already_imported


def test_nodes_deleted_since_an_import_stay_deleted(tmp_path):
    """A grown pickle does not bring back a person deleted from the store: its memories about them are skipped."""
    build_upstream_pickle(tmp_path / "g.pkl")
    build_upstream_pickle(tmp_path / "grown.pkl", grown=True)
    with MemoryStore(tmp_path / "m.db") as store:
        import_videograph(tmp_path / "g.pkl", store)
        with store.transaction():
            store.conn.execute("DELETE FROM nodes WHERE id IN (0, 1)")  # Alice's voice and face
        report = import_videograph(tmp_path / "grown.pkl", store, into_existing=True)
        assert report.nodes == {"face": 1, "voice": 0, "episodic": 0, "semantic": 0}
        assert "deleted from the store" in dict(report.skipped)["node 19"]
        assert not store.get_memories([0, 1])


# ---------------------------------------------------------------------------------------------- caps
def _db_files(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in folder.iterdir() if p.name.startswith(("m.db", ".m.db"))}


def test_over_cap_pickle_is_refused_before_writing_anything(tmp_path, capsys):
    """A ~1 MB pickle that unpickles into 60 MB of contents (one string referenced 60 times): refused by
    max_total_bytes with the cap and the value named, before any write: the existing store's files, sizes and
    rows are unchanged, and no new database (nor temporary file) is created."""
    expands_to = build_bomb_pickle(tmp_path / "bomb.pkl", faces=3, content_chars=1_000_000)
    assert (tmp_path / "bomb.pkl").stat().st_size < 1_100_000 and expands_to == 60_000_000
    build_upstream_pickle(tmp_path / "g.pkl")
    with MemoryStore(tmp_path / "m.db") as store:
        import_videograph(tmp_path / "g.pkl", store)
        before = _snapshot(store)
    files = _db_files(tmp_path)

    rc = main(["import-pickle", str(tmp_path / "bomb.pkl"), "--db", str(tmp_path / "m.db"), "--into-existing",
               "--max-bytes", "50000000"])
    err = capsys.readouterr().err
    assert rc == 2 and "max_total_bytes = 50,000,000" in err and "nothing was written" in err, err
    assert len(err.strip().splitlines()) == 1
    assert _db_files(tmp_path) == files
    with MemoryStore(tmp_path / "m.db", readonly=True) as store:
        assert _snapshot(store) == before

    rc = main(["import-pickle", str(tmp_path / "bomb.pkl"), "--db", str(tmp_path / "new.db"), "--max-bytes",
               "50000000"])
    assert rc == 2 and "max_total_bytes" in capsys.readouterr().err
    assert not [p for p in tmp_path.iterdir() if "new.db" in p.name]


@pytest.mark.parametrize(("cap", "limit", "value"), [
    ("max_nodes", 17, 18),
    ("max_edges", 20, 28),
    ("max_embeddings_per_node", 11, 12),          # face 2
    ("max_embedding_dim", 3000, 3072),            # the text vectors
    ("max_text_chars", 30, len("<face_1> pours a cup of coffee in the kitchen.")),
    ("max_content_chars", 80, 84),                # a base64 face crop
    ("max_total_bytes", 100_000, None),
])
def test_each_cap_is_named_and_checked_before_writing(tmp_path, cap, limit, value):
    build_upstream_pickle(tmp_path / "g.pkl")
    limits = upstream.ImportLimits.with_caps(**{cap: limit})
    store = MemoryStore(tmp_path / "m.db")
    before = _snapshot(store)
    with pytest.raises(upstream.ImportCapError) as e:
        import_videograph(tmp_path / "g.pkl", store, limits=limits)
    assert e.value.cap == cap and e.value.limit == limit and e.value.value > limit
    assert value is None or e.value.value == value
    assert f"{e.value.value:,}, over the cap {cap} = {limit:,}" in str(e.value)
    assert _snapshot(store) == before


def test_default_caps_refuse_an_oversized_content(tmp_path):
    build_bomb_pickle(tmp_path / "big.pkl", faces=1, content_chars=9_000_000, refs_per_face=1)
    store = MemoryStore(tmp_path / "m.db")
    before = _snapshot(store)
    with pytest.raises(StoreError, match=r"9,000,000, over the cap max_content_chars = 8,000,000"):
        import_videograph(tmp_path / "big.pkl", store)
    assert _snapshot(store) == before
