"""The memory browser over HTTP (Starlette's test client, no real browser): pages, write access, corrections and
their log, and an error page (never a traceback) for every kind of bad input."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from m3_control.browser import BrowserSettings, create_app  # noqa: E402
from m3_memory import MemoryStore  # noqa: E402

from .people_helpers import meeting_store  # noqa: E402
from .store_helpers import ALICE_CROP, ALICE_WAV, named_store  # noqa: E402

TOKEN = "test-write-token-0123456789"


class Page(HTMLParser):
    """Rows of every table (cell texts), links, and form fields of an HTML page."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.links: list[str] = []
        self.inputs: dict[str, str] = {}
        self._cell: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "a" and a.get("href"):
            self.links.append(a["href"] or "")
        elif tag == "input" and a.get("name"):
            self.inputs[a["name"] or ""] = a.get("value") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.rows:
            self.rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _client(db: Path, token: str | None = TOKEN, **kw) -> TestClient:
    app = create_app(BrowserSettings(db, token, answerer="extractive", answerer_options={}, preload_model=False, **kw))
    return TestClient(app, raise_server_exceptions=True)


def _no_traceback(r) -> None:
    assert "Traceback" not in r.text and 'File "' not in r.text


def _login(c: TestClient) -> str:
    r = c.post("/login", data={"token": TOKEN, "next": "/people"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/people"
    assert "httponly" in r.headers["set-cookie"].lower() and "samesite=strict" in r.headers["set-cookie"].lower()
    return Page(c.get("/people/0").text).inputs["csrf"]


@pytest.fixture
def meeting(db_at) -> Iterator[tuple[Path | str, dict]]:
    store, ids = meeting_store(db_at("m.db"))
    store.close()
    yield db_at("m.db"), ids


@pytest.fixture
def named(db_at) -> Iterator[tuple[Path | str, dict]]:
    store, ids = named_store(db_at("n.db"))
    store.close()
    yield db_at("n.db"), ids


def test_people_page_lists_everyone_with_media_first_last_seen_and_how_often_heard(named):
    db, ids = named
    with _client(db, token=None) as c:
        page = Page(c.get("/people").text)
        rows = {r[0]: r for r in page.rows[1:]}
        alice = rows["Alice Liddell"]
        assert alice[3:6] == ["00:00", "00:10", "1"], "first seen, last seen, heard once"
        # her crop and her voice sample are served with their media types, never cached
        crop = [link for link in re.findall(r'src="(/media/\d+)"', c.get("/people").text)]
        bodies = {c.get(u).content: c.get(u).headers for u in crop}
        assert ALICE_CROP in bodies and bodies[ALICE_CROP]["content-type"] == "image/jpeg"
        assert ALICE_WAV in bodies and bodies[ALICE_WAV]["content-type"] == "audio/wav"
        assert all(h["cache-control"] == "no-store" for h in bodies.values())
        assert "read-only" in c.get("/people").text


def test_timeline_filters_by_time_window_and_person_and_shows_who_spoke(meeting):
    db, ids = meeting
    with _client(db) as c:
        everything = c.get("/timeline").text
        assert everything.count('class="clip"') == 3
        window = c.get("/timeline", params={"from": "0:31", "to": "59"}).text
        assert re.findall(r'data-clip="(\d+)"', window) == ["1"]
        store = MemoryStore(db, readonly=True)
        dee = store.characters().character_of(ids["dee"]["face"])
        store.close()
        only_dee = c.get("/timeline", params={"character": str(dee)}).text
        assert re.findall(r'data-clip="(\d+)"', only_dee) == ["1"], "Dee was only seen in clip 1"
        clip2 = Page(c.get("/clips/2").text)
        said = {r[0]: r[2] for r in clip2.rows if len(r) == 3 and r[0] != "who"}
        assert said["Ann"] == "“Thanks for the help.” · “Bye everyone.”"


def test_search_ranks_memories_with_scores_and_respects_the_time_bound(meeting):
    db, _ = meeting
    with _client(db) as c:
        rows = Page(c.get("/search", params={"q": "the coffee machine is broken"}).text).rows[1:]
        scores = [float(r[0]) for r in rows]
        assert scores == sorted(scores, reverse=True) and len(rows) == 10
        assert "coffee machine" in rows[0][5] and rows[0][3] in ("clip 0", "clip 1")
        bounded = Page(c.get("/search", params={"q": "the coffee machine is broken", "before": "0:30"}).text).rows[1:]
        assert bounded and {r[3] for r in bounded} == {"clip 0"}, "only clip 0 had ended by 0:30"
        clips = c.get("/search", params={"q": "technician", "mode": "clips", "topk": "2"}).text
        assert len(re.findall(r'class="clip hit" data-clip="(\d+)"', clips)) == 2


def test_read_only_server_refuses_every_write(named):
    db, ids = named
    with _client(db, token=None) as c:
        for url, data in (("/people/0/name", {"name": "X"}), ("/people/0/merge", {"other": "1"}),
                          (f"/links/{ids['eq_bob']}/split", {}), ("/people/0/forget", {"confirm": "0"})):
            r = c.post(url, data=data)
            assert r.status_code == 403 and "read-only" in r.text.lower(), url
            _no_traceback(r)
        assert c.get("/people/0/forget").status_code == 403
        assert 'id="readonly-note"' in c.get("/login").text
        assert c.post("/login", data={"token": TOKEN}).status_code == 403
    assert MemoryStore(db, readonly=True).conn.execute("SELECT count(*) FROM edits").fetchone()[0] == 0


def test_writes_need_the_token_a_session_and_its_form_value(named, caplog):
    db, ids = named
    with _client(db) as c:
        assert c.post("/people/0/name", data={"name": "X"}).status_code == 401   # not logged in
        assert c.post("/login", data={"token": "wrong-token-xxxxxxxx"}).status_code == 401
        csrf = _login(c)
        assert c.post("/people/0/name", data={"name": "X"}).status_code == 403, "no CSRF value: refused"
        assert c.post("/people/0/name", data={"name": "X", "csrf": "0" * 64}).status_code == 403
        # login redirects only to this server
        r = c.post("/login", data={"token": TOKEN, "next": "//evil.example/x"}, follow_redirects=False)
        assert r.headers["location"] == "/people"
        csrf = Page(c.get("/people/0").text).inputs["csrf"]   # that login started a new session
        bob = MemoryStore(db, readonly=True).characters().character_of(ids["bob_face"])
        with caplog.at_level(logging.INFO, logger="m3_control.browser"):
            r = c.post(f"/people/{bob}/name", data={"name": "Robert", "csrf": csrf}, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == f"/people/{bob}?done=named"
        assert any(rec.message.startswith("write name") for rec in caplog.records)
        assert Page(c.get(f"/people/{bob}").text).rows[1][1] == "Robert"
    # a script may send the token in a header instead of a session
    with _client(db) as c:
        r = c.post(f"/people/{bob}/name", data={"name": "Bobby"}, headers={"X-M3-Write-Token": TOKEN},
                   follow_redirects=False)
        assert r.status_code == 303
        assert c.post(f"/people/{bob}/name", data={"name": "B"}, headers={"X-M3-Write-Token": "nope"}
                      ).status_code == 401
    store = MemoryStore(db, readonly=True)
    assert store.character_names()[bob] == "Bobby"
    log = store.conn.execute("SELECT action, character_id, origin FROM edits ORDER BY id").fetchall()
    assert [(a, c) for a, c, _ in log] == [("name", bob), ("name", bob)]
    assert log[0][2].startswith("browser testclient session ") and log[1][2].endswith("token header")


def test_merge_split_and_forget_from_the_browser(named):
    db, ids = named
    with _client(db) as c:
        csrf = _login(c)
        store = MemoryStore(db, readonly=True)
        chars = store.characters()
        alice, bob, carol = (chars.character_of(ids[k]) for k in ("alice_face", "bob_face", "carol_face"))
        # merge Carol into Bob: one person, Carol's id an alias that redirects to the merged page
        r = c.post(f"/people/{carol}/merge", data={"other": str(bob), "csrf": csrf}, follow_redirects=False)
        merged = min(bob, carol)
        assert r.headers["location"] == f"/people/{merged}?done=merged"
        assert len(Page(c.get("/people").text).rows) == 1 + 2
        alias = max(bob, carol)
        assert c.get(f"/people/{alias}", follow_redirects=False).headers["location"] == f"/people/{merged}"
        # split the link again: the person page lists the links, each with its split form
        person = c.get(f"/people/{merged}").text
        link_ids = re.findall(r'action="/links/(\d+)/split"', person)
        user_link = next(int(i) for i in link_ids if int(i) != ids["eq_bob"])
        r = c.post(f"/links/{user_link}/split", data={"character": str(merged), "csrf": csrf}, follow_redirects=False)
        assert r.status_code == 303 and "done=split" in r.headers["location"]
        assert len(Page(c.get("/people").text).rows) == 1 + 3
        # forget Alice: the confirmation page first, then the form; she is gone from people, timeline and search
        confirm = Page(c.get(f"/people/{alice}/forget").text)
        assert confirm.inputs["confirm"] == str(alice)
        assert c.post(f"/people/{alice}/forget", data={"csrf": csrf}).status_code == 400, "not confirmed"
        media = re.findall(r'src="/media/(\d+)"', c.get(f"/people/{alice}").text)
        r = c.post(f"/people/{alice}/forget", data={"csrf": csrf, "confirm": str(alice)})
        assert r.status_code == 200 and 'id="forgotten"' in r.text
        assert c.get(f"/people/{alice}").status_code == 404
        assert all(c.get(f"/media/{m}").status_code == 404 for m in media) and media
        for url in ("/people", "/timeline", "/clips/0", "/search?q=Alice", "/search?q=good+morning"):
            text = c.get(url).text
            shown = " ".join(" ".join(r) for r in Page(text).rows)   # the tables: not the query typed in
            assert shown and not re.search(r"alice|liddell", shown, re.I), url
            assert f'href="/people/{alice}"' not in text, url
    actions = [r[0] for r in MemoryStore(db, readonly=True).conn.execute("SELECT action FROM edits ORDER BY id")]
    assert actions == ["merge", "split", "forget"]


def test_bad_input_gets_a_clear_error_page(named):
    db, ids = named
    with _client(db) as c:
        csrf = _login(c)
        cases = [
            (c.get("/people/999"), 404, "Character 999"), (c.get("/clips/77"), 404, "Clip 77"),
            (c.get("/media/12345"), 404, "Media 12345"), (c.get("/no/such/page"), 404, "no page"),
            (c.get("/search", params={"q": "x" * 501}), 413, "limit is 500"),
            (c.get("/ask", params={"q": "y" * 1001}), 413, "limit is 1000"),
            (c.get("/timeline", params={"from": "yesterday"}), 400, "not a time"),
            (c.get("/timeline", params={"from": "-5"}), 400, "not a time"),
            (c.get("/search", params={"q": "a", "topk": "100000"}), 400, "from 1 to 50"),
            (c.get("/search", params={"q": "a", "mode": "sql"}), 400, "memories or clips"),
            (c.post("/people/999/name", data={"name": "Z", "csrf": csrf}), 404, "nknown character 999"),
            (c.post("/people/0/name", data={"name": "n" * 201, "csrf": csrf}), 413, "limit is 200"),
            (c.post("/people/0/merge", data={"other": "abc", "csrf": csrf}), 400, "whole number"),
            (c.post(f"/links/{ids['m_hello']}/split", data={"csrf": csrf}), 400, "not a link"),
            (c.post("/people/0/name", content=b"name=" + b"z" * 100_000,
                    headers={"content-type": "application/x-www-form-urlencoded"}), 413, ""),
            (c.delete("/people"), 405, ""),
        ]
        for r, status, words in cases:
            assert r.status_code == status, (r.request.url, r.status_code, r.text[-400:])
            assert words in r.text, (r.request.url, words)
            assert 'id="error"' in r.text or status == 413
            _no_traceback(r)


class _RolledBack(Exception):
    """Raised inside another writer's transaction to roll it back."""


def test_a_locked_or_closed_database_gives_an_error_page_not_a_traceback(named):
    db, ids = named
    with _client(db, busy_timeout_ms=200) as c:
        csrf = _login(c)
        other = MemoryStore(db)   # another writer (e.g. memorization) holds the write lock
        try:
            with pytest.raises(_RolledBack), other.transaction():
                r = c.post("/people/0/name", data={"name": "Zed", "csrf": csrf})
                assert r.status_code == 503 and "locked by another writer" in r.text
                _no_traceback(r)
                assert c.get("/people").status_code == 200, "reading goes on while a writer holds the lock"
                raise _RolledBack
        finally:
            other.close()
        c.app.state.browser.store.close()
        for url in ("/people", "/timeline", "/search?q=folder", "/media/1"):
            r = c.get(url)
            assert r.status_code == 503 and "closed" in r.text, url
            _no_traceback(r)


def test_pages_read_the_live_store_while_another_process_writes(meeting):
    db, _ = meeting
    with _client(db) as c:
        assert c.get("/timeline").text.count('class="clip"') == 3
        writer = MemoryStore(db)
        with writer.begin_clip(3, 90.0, 120.0) as w:
            w.add_memory("A delivery van parks outside the window.")
        writer.close()
        assert c.get("/timeline").text.count('class="clip"') == 4
        rows = Page(c.get("/search", params={"q": "delivery van"}).text).rows
        assert rows[1][3] == "clip 3"


def test_serve_command_refuses_bad_start_up_with_one_line(tmp_path, capsys):
    from m3_memory.cli import main

    assert main(["serve", str(tmp_path / "missing.db")]) == 2
    assert "memory database not found" in capsys.readouterr().err
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not an SQLite database" * 100)
    assert main(["serve", str(junk), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("m3-memory serve: error:") and "Traceback" not in err and len(err.splitlines()) == 1
    store, _ = meeting_store(tmp_path / "m.db")
    store.close()
    short = tmp_path / "token.txt"
    short.write_text("abc\n")
    assert main(["serve", str(tmp_path / "m.db"), "--write-token-file", str(short)]) == 2
    assert "at least 12 characters" in capsys.readouterr().err
    assert main(["serve", str(tmp_path / "m.db"), "--answerer-options", "[1, 2]"]) == 2
    assert "JSON object" in capsys.readouterr().err


def test_timeline_shows_where_the_robot_was_when_the_clip_has_a_pose(meeting):
    import math

    from m3_memory.poses import Place, Pose
    from m3_memory.store.where import save_places

    db, _ = meeting
    writer = MemoryStore(db)
    save_places(writer, [Place("kitchen", 2.0, 3.0, 1.5, "map")])
    with writer.begin_clip(3, 90.0, 120.0) as w:
        w.clip_pose = Pose(105.0, 2.5, 3.5, math.pi / 2, frame="map")
        w.add_memory("A kettle whistles.")
    with writer.begin_clip(4, 120.0, 150.0) as w:
        w.clip_pose = Pose(135.0, 10.0, -4.0, 0.0, frame="map")
        w.add_memory("A door closes.")
    writer.close()
    with _client(db) as c:
        text = c.get("/timeline", params={"from": "1:30"}).text
        poses = re.findall(r'<p class="pose">([^<]*)</p>', text)
        assert poses == ["where: the kitchen (x 2.50, y 3.50, yaw 90°, frame map)",
                         "where: x 10.0, y -4.0 (x 10.00, y -4.00, yaw 0°, frame map)"]
        assert '<p class="pose">' not in c.get("/clips/0").text, "no pose recorded: none shown"


def test_people_page_is_paginated_on_a_large_household(tmp_path):
    from m3_memory import MemoryStore

    from .store_helpers import unit

    rng = np.random.default_rng(4)
    with MemoryStore(tmp_path / "big.db") as store:
        for clip in range(5):
            with store.begin_clip(clip, clip * 30.0, clip * 30.0 + 30.0) as w:
                for _ in range(50):
                    w.add_entity("face", unit(rng, 1, 128))
    with _client(tmp_path / "big.db", token=None) as c:
        first = c.get("/people")
        assert first.status_code == 200 and "250 people, page 1 of 3" in first.text
        assert len(Page(first.text).rows) == 1 + 100 and "/people?page=2" in Page(first.text).links
        last = c.get("/people?page=3")
        ids = [int(m) for m in re.findall(r'id="person-(\d+)"', last.text)]
        assert len(ids) == 50 and "/people?page=2" in Page(last.text).links and "/people?page=4" not in last.text
        seen = {int(m) for p in (1, 2, 3) for m in re.findall(r'id="person-(\d+)"', c.get(f"/people?page={p}").text)}
        assert len(seen) == 250                                  # every person on exactly one page
        bad = c.get("/people?page=zero")
        assert bad.status_code == 400 and "Traceback" not in bad.text
