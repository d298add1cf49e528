"""Two robots writing one PostgreSQL memory at the same time (issue 29): a clip takes the store's write lock only
to log and commit, or earlier when it decides something the other robot must not decide at the same moment (a new
person). These tests hold one robot's clip open while the other writes, with deadlines, no sleeps."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from m3_memory import MemoryStore
from m3_memory.errors import ClipConflictError

from .store_helpers import near, unit

DEADLINE_S = 20.0


def _waiting_for_the_write_lock(reader: MemoryStore, deadline: float) -> bool:
    """True once another session of the database waits for an advisory lock (the store's write lock)."""
    while time.monotonic() < deadline:
        n = reader.conn.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                                ).fetchone()[0]
        if n:
            return True
        time.sleep(0.02)
    return False


def _texts(store: MemoryStore) -> list[str]:
    return [r[0] for r in store.conn.execute("SELECT text FROM nodes WHERE text IS NOT NULL ORDER BY id")]


def _in_thread(fn) -> tuple[threading.Thread, dict]:
    out: dict = {}

    def run() -> None:
        try:
            out["value"] = fn()
        except Exception as e:   # reported by the test
            out["error"] = f"{type(e).__name__}: {e}"

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, out


def test_a_robot_writes_whole_clips_while_another_robots_clip_is_open_and_each_follows_the_other(pg_server):
    url = pg_server.database(f"conc_open_{int(time.time() * 1000) % 10**9}")
    rng = np.random.default_rng(1)
    person = unit(rng, 1, 64)
    one, two = MemoryStore(url, robot="robot1"), MemoryStore(url, robot="robot2")
    with one.begin_clip(0, 0.0, 30.0) as w:
        face = w.add_entity("face", near(person, rng))
        fact = w.add_memory(f"<face_{face}> likes green tea.", "semantic").node_id
    with one.begin_clip(1, 30.0, 60.0) as open_clip:   # robot1's clip stays open while robot2 writes two clips
        open_clip.update_entity(face, near(person, rng))
        mine = open_clip.add_memory(f"<face_{face}> waves at robot1.").node_id

        def robot2_writes() -> list[int]:
            ids = []
            for k in range(2):
                with two.begin_clip(k, 30.0 * k, 30.0 * k + 30) as w:
                    nid, _ = w.match_entity("face", near(person, rng))
                    w.update_entity(nid, near(person, rng))
                    ids.append(w.add_memory(f"<face_{nid}> reads a book in robot2's clip {k}.").node_id)
                    ids.append(w.add_memory(f"<face_{nid}> enjoys jazz records.", "semantic").node_id)
            return ids

        t, out = _in_thread(robot2_writes)
        t.join(DEADLINE_S)
        assert not t.is_alive() and "error" not in out, out   # old code: robot2 waited for robot1's clip, then
        theirs = out["value"]                                 # gave up ("database is locked")
    assert len({mine, fact, *theirs}) == 6, "no id given twice"
    reader = MemoryStore(url, readonly=True)
    assert {f"<face_{face}> waves at robot1.", f"<face_{face}> enjoys jazz records."} <= set(_texts(reader))
    # robot1 follows what robot2 committed while robot1's clip was open: the same fact again reinforces robot2's
    with one.begin_clip(2, 60.0, 90.0) as w:
        again = w.add_memory(f"<face_{face}> enjoys jazz records.", "semantic")
    assert again.action == "reinforced" and theirs[1] in again.reinforced
    one.close()
    two.close()
    reader.close()


def test_two_robots_meeting_a_new_person_at_the_same_time_make_one_face_node(pg_server):
    url = pg_server.database(f"conc_new_{int(time.time() * 1000) % 10**9}")
    rng = np.random.default_rng(2)
    person = unit(rng, 1, 64)
    one, two = MemoryStore(url, robot="robot1"), MemoryStore(url, robot="robot2")
    watcher = MemoryStore(url, readonly=True)
    with one.begin_clip(0, 0.0, 30.0) as w:
        nid, _ = w.match_entity("face", near(person, rng))
        assert nid is None
        first = w.add_entity("face", near(person, rng))   # robot1 decided "a new person" under the lock

        def robot2_meets() -> int:
            with two.begin_clip(0, 0.0, 30.0) as w2:
                got, _ = w2.match_entity("face", near(person, rng))
                return got if got is not None else w2.add_entity("face", near(person, rng))

        t, out = _in_thread(robot2_meets)
        assert _waiting_for_the_write_lock(watcher, time.monotonic() + DEADLINE_S), "robot2 decides after robot1"
    t.join(DEADLINE_S)
    assert not t.is_alive() and "error" not in out, out
    assert out["value"] == first and len(watcher.entities("face")) == 1   # old behaviour here: two nodes
    for s in (one, two, watcher):
        s.close()


def test_a_clip_open_while_someone_is_forgotten_elsewhere_is_refused_whole_and_written_again(pg_server):
    url = pg_server.database(f"conc_forget_{int(time.time() * 1000) % 10**9}")
    rng = np.random.default_rng(3)
    one, admin = MemoryStore(url, robot="robot1"), MemoryStore(url, robot="robot2")
    with one.begin_clip(0, 0.0, 30.0) as w:
        a = w.add_entity("face", unit(rng, 1, 64))
        b = w.add_entity("face", unit(rng, 1, 64))
        w.add_memory(f"<face_{a}> and <face_{b}> talk.")
    with pytest.raises(ClipConflictError, match="write it again"), one.begin_clip(1, 30.0, 60.0) as w:
        w.add_memory(f"<face_{b}> sits down.")
        admin.forget_character(admin.characters().character_of(a))   # elsewhere, while the clip is open
    reader = MemoryStore(url, readonly=True)
    assert not [t for t in _texts(reader) if "sits down" in t], "nothing of the refused clip is stored"
    with one.begin_clip(1, 30.0, 60.0) as w:   # written again: it commits
        w.add_memory(f"<face_{b}> sits down.")
    assert _texts(reader).count(f"<face_{b}> sits down.") == 1
    for s in (one, admin, reader):
        s.close()
