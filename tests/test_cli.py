"""The m3-memory command line: every subcommand through main([...]), and one real subprocess."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from m3_memory import MemoryStore
from m3_memory.cli import main

from .fixtures_upstream import build_upstream_pickle
from .store_helpers import kitchen_store

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def db(tmp_path) -> tuple[str, dict[str, int]]:
    store, ids = kitchen_store(tmp_path / "m.db")
    store.close()
    return str(tmp_path / "m.db"), ids


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_stats_table_and_json(db, capsys):
    path, _ = db
    rc, out, _ = run(capsys, "stats", "--db", path)
    assert rc == 0
    lines = dict(line.split(None, 1) for line in out.splitlines()[1:])
    assert lines["clips"] == "3" and lines["nodes"] == "face 2, voice 1, episodic 5, semantic 2"
    assert lines["last_clip"] == "2 (60-90 s)"
    rc, out, _ = run(capsys, "stats", "--db", path, "--json")
    st = json.loads(out)
    assert (rc, st["clips"], st["edges"], st["equivalences"], st["characters"]) == (0, 3, 9, 1, 2)


def test_characters_and_name(db, capsys):
    path, ids = db
    a, v, b = ids["alice_face"], ids["alice_voice"], ids["bob_face"]
    rc, out, _ = run(capsys, "characters", "--db", path, "--json")
    rows = {r["id"]: r for r in json.loads(out)}
    alice = next(r for r in rows.values() if f"<face_{a}>" in r["members"])
    bob = next(r for r in rows.values() if f"<face_{b}>" in r["members"])
    assert alice["members"] == [f"<face_{a}>", f"<voice_{v}>"] and alice["name"] is None
    assert (alice["n_memories"], bob["n_memories"]) == (4, 3)

    rc, out, _ = run(capsys, "name", str(alice["id"]), "Alice", "--db", path)
    assert rc == 0 and out.strip() == f"character {alice['id']} is now named 'Alice'"
    rc, out, _ = run(capsys, "characters", "--db", path)
    row = next(line for line in out.splitlines() if f"<face_{a}>" in line)
    assert row.split() == [str(alice["id"]), f"<face_{a}>", f"<voice_{v}>", "Alice", "4"]
    from m3_memory.store.corrections import edits

    with MemoryStore(path, readonly=True) as store:   # the audit log has the edit, never the name
        assert [(e["action"], e["character_id"], e["origin"]) for e in edits(store)] == [("name", alice["id"], "cli")]
        assert "Alice" not in json.dumps(edits(store))

    rc, _, err = run(capsys, "name", "999", "Nobody", "--db", path)
    assert rc == 2 and "unknown character 999" in err and "Traceback" not in err


def test_clip_shows_raw_and_translated(db, capsys):
    path, ids = db
    a, b = ids["alice_face"], ids["bob_face"]
    with MemoryStore(path, readonly=True) as store:
        ca, cb = store.characters().character_of(a), store.characters().character_of(b)
    rc, out, _ = run(capsys, "clip", "1", "--db", path)
    assert rc == 0 and out.splitlines()[0].startswith("clip 1  [30-60 s]")
    assert f"raw:        <face_{b}> hands <face_{a}> a red folder." in out
    assert f"translated: <character_{cb}> hands <character_{ca}> a red folder." in out
    rc, out, _ = run(capsys, "clip", "0", "--db", path, "--json")
    doc = json.loads(out)
    eq = next(m for m in doc["memories"] if m["id"] == ids["eq"])
    assert eq["text"].startswith("Equivalence") and eq["translated"] == ""
    rc, _, err = run(capsys, "clip", "42", "--db", path)
    assert rc == 2 and "no clip 42" in err


def test_search_clips_and_nodes(db, capsys):
    path, ids = db
    rc, out, _ = run(capsys, "search", "who handed over a red folder?", "--db", path, "--topk", "1",
                     "--threshold", "0", "--json")
    hits = json.loads(out)
    assert rc == 0 and [h["clip_id"] for h in hits] == [1]
    assert {m["id"] for m in hits[0]["memories"]} == {ids["m_folder"], ids["m_likes"]}
    rc, out, _ = run(capsys, "search", "car keys in the drawer", "--db", path, "--nodes", "--topk", "1")
    assert rc == 0 and out.split()[1:3] == ["CLIP_2", f"#{ids['m_keys']}"]
    # time bound: before clip 2 ends nothing about keys exists
    rc, out, _ = run(capsys, "search", "car keys in the drawer", "--db", path, "--nodes", "--before", "60",
                     "--json")
    assert rc == 0 and ids["m_keys"] not in {m["id"] for m in json.loads(out)}
    rc, out, _ = run(capsys, "search", "car keys in the drawer", "--db", path, "--threshold", "0.99")
    assert rc == 0 and out.strip() == "no match"


def test_import_pickle_and_export(tmp_path, capsys):
    build_upstream_pickle(tmp_path / "g.pkl")
    build_upstream_pickle(tmp_path / "g2.pkl", seed=1)   # another graph: re-importing g.pkl itself adds nothing
    path = str(tmp_path / "imported.db")
    rc, out, _ = run(capsys, "import-pickle", str(tmp_path / "g.pkl"), "--db", path, "--reembed")
    assert rc == 0
    assert "nodes:       face 5, voice 2, episodic 7, semantic 4" in out and "same grouping" in out
    assert "re-embedded" in out
    rc, _, err = run(capsys, "import-pickle", str(tmp_path / "g.pkl"), "--db", path)
    assert rc == 2 and "--into-existing" in err and "Traceback" not in err
    rc, out, _ = run(capsys, "import-pickle", str(tmp_path / "g2.pkl"), "--db", path, "--reembed",
                     "--into-existing", "--clip-seconds", "10", "--json")
    report = json.loads(out)
    assert rc == 0 and report["clip_ids"] == [5, 6, 7, 9] and report["time_offset"] == 150.0
    with MemoryStore(path, readonly=True) as store:
        assert store.conn.execute("SELECT start_time, end_time FROM clips WHERE id = 9").fetchone() == (190.0, 200.0)

    rc, out, _ = run(capsys, "export", str(tmp_path / "out.json"), "--db", path)
    assert rc == 0 and out.strip() == f"wrote {tmp_path / 'out.json'}: 8 clips, 36 nodes, 28 edges, " \
                                      "10 characters, 60 contents"
    doc = json.loads((tmp_path / "out.json").read_text())
    assert {(e["text_id"], e["entity_id"]): e["weight"] for e in doc["edges"]}[(5, 1)] == 3.0
    rc, out, _ = run(capsys, "export", "-", "--db", path, "--vectors")
    nodes = {n["id"]: n for n in json.loads(out)["nodes"]}
    assert rc == 0 and len(nodes[3]["vectors"][0]) == 384


def test_forget_needs_yes_when_not_interactive(db, capsys, monkeypatch):
    path, ids = db
    b = ids["bob_face"]
    with MemoryStore(path, readonly=True) as store:
        cb = store.characters().character_of(b)
        before = store.stats()["nodes"]
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    rc, _, err = run(capsys, "forget", str(cb), "--db", path)
    assert rc == 2 and "without --yes" in err
    monkeypatch.setattr(sys, "stdin", Tty("n\n"))
    rc, _, err = run(capsys, "forget", str(cb), "--db", path)
    assert rc == 2 and "not confirmed" in err
    with MemoryStore(path, readonly=True) as store:
        assert store.stats()["nodes"] == before

    monkeypatch.setattr(sys, "stdin", Tty("y\n"))
    rc, out, err = run(capsys, "forget", str(cb), "--db", path, "--json")
    rep = json.loads(out)
    assert rc == 0 and "Forget character" in err
    assert rep["entities"] == [b]
    assert set(rep["deleted_memories"]) == {ids["m_plant"], ids["m_keys"]}
    assert rep["redacted_memories"] == [ids["m_folder"]]
    with MemoryStore(path, readonly=True) as store:
        assert store.get_memories([ids["m_folder"]])[0].text == f"<redacted> hands <face_{ids['alice_face']}> " \
                                                                "a red folder."
    rc, _, err = run(capsys, "forget", str(cb), "--db", path, "--yes")
    assert rc == 2 and f"unknown character {cb}" in err


def test_forget_with_yes_prints_what_was_deleted(db, capsys):
    path, ids = db
    with MemoryStore(path, readonly=True) as store:
        ca = store.characters().character_of(ids["alice_face"])
    rc, out, _ = run(capsys, "forget", str(ca), "--db", path, "--yes")
    assert rc == 0 and out.splitlines()[0] == f"forgot character {ca}"
    assert f"deleted entities:  {ids['alice_face']} {ids['alice_voice']}" in out
    assert "deleted memories:  4" in out and "redacted memories: 1" in out
    from m3_memory.store.corrections import edits

    with MemoryStore(path, readonly=True) as store:
        log = edits(store)
    assert [(e["action"], e["character_id"], e["origin"]) for e in log] == [("forget", ca, "cli")]
    assert log[0]["detail"]["deleted_memories"] == 4 and "Alice" not in json.dumps(log)


def test_errors_are_one_line_with_status_2(tmp_path, capsys):
    rc, _, err = run(capsys, "stats", "--db", str(tmp_path / "missing.db"))
    assert rc == 2 and err.strip() == f"m3-memory: error: memory database not found: {tmp_path / 'missing.db'}"
    rc, _, err = run(capsys, "import-pickle", str(tmp_path / "missing.pkl"), "--db", str(tmp_path / "x.db"))
    assert rc == 2 and "pickle not found" in err
    (tmp_path / "bad.pkl").write_bytes(b"not a pickle at all")
    rc, _, err = run(capsys, "import-pickle", str(tmp_path / "bad.pkl"), "--db", str(tmp_path / "x.db"))
    assert rc == 2 and "not a readable VideoGraph pickle" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(SystemExit) as e:  # usage errors: argparse's message, status 2
        main(["frobnicate"])
    assert e.value.code == 2


def test_real_subprocess(db):
    path, _ = db
    proc = subprocess.run([sys.executable, "-m", "m3_memory.cli", "stats", "--db", path, "--json"],
                          capture_output=True, text=True, cwd=REPO_ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    st = json.loads(proc.stdout)
    assert st["nodes"] == {"face": 2, "voice": 1, "episodic": 5, "semantic": 2}
    proc = subprocess.run([sys.executable, "-m", "m3_memory.cli", "clip", "7", "--db", path],
                          capture_output=True, text=True, cwd=REPO_ROOT, timeout=120)
    assert proc.returncode == 2 and proc.stderr == "m3-memory: error: no clip 7 in " + path + "\n"
