"""The memory browser end to end in a real headless browser (Debian's chromium driven by Playwright).

A store memorized from real GRID talking-face clips (three people, each seen and heard twice: real face crops and
voice samples) is served by ``m3-memory serve`` as a subprocess with a write token and the real control loop (the
embedded model). In chromium: open people, play a voice sample, log in and rename a person, search with a time
bound, ask a question and read its trace, forget the person and find them gone from every page and from search.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import REPO_ROOT

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-background-networking"]
TOKEN = "e2e-write-token-4f1c9a7d2b"
CODES = ["bbaf2n", "brbk7n", "lbax4n", "bbaf2n", "brbk7n", "lbax4n"]   # clip k covers [3k, 3k + 3) s

if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium; .ci/run does it as root)", allow_module_level=True)
pytest.importorskip("playwright.sync_api")
pytest.importorskip("dlib")
pytest.importorskip("resemblyzer")
pytestmark = [pytest.mark.slow, pytest.mark.once]   # once: see .ci/run


@pytest.fixture(scope="module")
def grid_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from m3_memory import MemoryStore
    from m3_memory.memorize import Memorizer
    from m3_memory.perception.face_stage import FaceStage
    from m3_memory.perception.faces import DlibFaceBackend
    from m3_memory.perception.voice_stage import VoiceStage
    from m3_memory.perception.voices import ResemblyzerEmbedder, Transcriber, VoicePipeline

    from .media import grid_stream

    db = tmp_path_factory.mktemp("browser") / "memory.db"
    store = MemoryStore(db)
    mem = Memorizer(store, FaceStage(DlibFaceBackend()), VoiceStage(VoicePipeline(ResemblyzerEmbedder(),
                                                                                  Transcriber())), "embedded")
    for clip in grid_stream(CODES):
        assert not mem.process(clip).errors
    assert len(store.characters().members) == 3, "three people, each face joined to its voice"
    store.close()
    return db


def _first_line(stream, timeout_s: float) -> str:
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: lines.put(stream.readline()), daemon=True).start()
    try:
        return lines.get(timeout=timeout_s)
    except queue.Empty:
        return ""


@pytest.fixture(scope="module")
def server(grid_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``m3-memory serve DB --port 0 --write-token-file FILE``; yields its base URL."""
    import httpx

    tmp = tmp_path_factory.mktemp("server")
    token_file = tmp / "token.txt"
    token_file.write_text(TOKEN + "\n")
    log = (tmp / "server.log").open("w")
    env = {**os.environ, "PYTHONPATH": f"{REPO_ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    cmd = [sys.executable, "-m", "m3_memory.cli", "serve", str(grid_db), "--port", "0",
           "--write-token-file", str(token_file), "--max-rounds", "3"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True, env=env, cwd=tmp)
    try:
        line = _first_line(proc.stdout, 60)
        assert line.startswith("m3 memory browser: http://127.0.0.1:"), (line, (tmp / "server.log").read_text())
        url = line.split()[3]
        deadline = time.monotonic() + 30
        while True:   # the socket is bound before the line is printed; the app needs its lifespan start
            try:
                if httpx.get(url + "healthz", timeout=2).json()["ok"]:
                    break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.1)
        yield url
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def page(server: str) -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        pg = browser.new_page()
        pg.set_default_timeout(20_000)
        yield pg
        browser.close()


def _rows(page, selector: str) -> list[list[str]]:
    return page.eval_on_selector_all(selector, "rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))")


def test_people_voice_rename_search_ask_and_forget_in_a_real_browser(server, page):
    from playwright.sync_api import expect

    # people: three, each with face thumbnails that decoded and a voice sample
    page.goto(server + "people")
    expect(page.locator("tr.person")).to_have_count(3)
    assert page.eval_on_selector_all("img.face", "imgs => imgs.every(i => i.complete && i.naturalWidth > 20)")
    assert page.locator("tr.person img.face").count() >= 3 and page.locator("tr.person audio").count() == 3
    assert page.locator("#mode").count() == 0 and page.locator("#login").is_visible()

    # play the first person's voice sample: it loads, has a sensible length and plays
    first = page.locator("tr.person").first
    who = int(first.get_attribute("data-character"))
    page.locator("h1").click()   # a user gesture on the page, so it may play media
    audio = first.locator("audio")
    audio.evaluate("a => a.play()")
    page.wait_for_function("a => a.error === null && (a.currentTime > 0.5 || a.ended)", arg=audio.element_handle(),
                           timeout=15_000)
    duration = audio.evaluate("a => a.duration")
    assert 1.0 <= duration <= 3.05, duration

    # log in with the write token and rename that person
    page.click("#login")
    page.fill("input[name=token]", TOKEN)
    page.click("#login-form button")
    expect(page.locator("#mode")).to_have_text("corrections on")
    page.goto(f"{server}people/{who}")
    spoke = [r for r in _rows(page, "table.turns tr") if len(r) == 5 and r[1] == "spoke" and r[3]]
    assert len(spoke) == 2, "heard twice, in clips 0 and 3"
    assert [r[4] for r in spoke] == ["en", "en"], "each turn shows the language it was heard in (tiny.en: English)"
    said = [r[3] for r in spoke]
    page.fill("#rename input[name=name]", "Ada Lovelace")
    page.click("#rename button")
    expect(page.locator("#person-name")).to_have_text("Ada Lovelace")
    page.goto(server + "people")
    expect(page.locator(f"#person-{who} a.name")).to_have_text("Ada Lovelace")

    # search with a time bound: what she said, as known at 0:04 (clip 0 only) and at any time (clips 0 and 3)
    page.goto(server + "search")
    page.fill("#search-form input[name=q]", said[0])
    with page.expect_navigation():   # (a GET form: the hits are the next page's, not this one's)
        page.click("#search-form button")
    all_time = _rows(page, "#hits tr")[1:]
    assert "Ada Lovelace says" in all_time[0][5] and {r[3] for r in all_time[:2]} == {"clip 0", "clip 3"}
    scores = [float(r[0]) for r in all_time]
    assert scores == sorted(scores, reverse=True)
    page.fill("#search-form input[name=before]", "0:04")
    with page.expect_navigation():
        page.click("#search-form button")
    bounded = _rows(page, "#hits tr")[1:]
    assert bounded and {r[3] for r in bounded} == {"clip 0"} and "Ada Lovelace says" in bounded[0][5]

    # ask through the real control loop: the answer and its trace (rounds, the tool call and the turns it read)
    page.goto(server + "ask")
    page.fill("#ask-form input[name=q]", "How many times did Ada Lovelace speak?")
    # the first question waits for the model's load and prompt warm-up (~16 s on 2 idle cores, minutes on busy ones)
    page.click("#ask-button", timeout=600_000)
    answer = page.inner_text("#answer-text")
    assert "Ada Lovelace" in answer and re.search(r"\b(twice|2 times)\b", answer), answer
    rounds = _rows(page, "#trace table.trace tr")[1:]
    assert any(len(r) > 1 and r[1].startswith("tool") and ("times_spoke" in r[1] or "find=count_times" in r[1])
               for r in rounds), rounds
    assert "answer_source: model" in page.inner_text("#trace p.muted")
    assert page.locator("#trace table.provenance tr").count() >= 3, "derived from her two speech turns"

    # forget her: confirmation page, then gone from every page and from search
    page.goto(f"{server}people/{who}")
    media = page.eval_on_selector_all("img.face, audio.voice", "els => els.map(e => e.getAttribute('src'))")
    page.click("#forget")
    page.check("#understand")
    page.click("#forget-yes")
    expect(page.locator("#forgotten")).to_be_visible()
    assert page.request.get(f"{server}people/{who}").status == 404
    assert media and all(page.request.get(server + m.lstrip("/")).status == 404 for m in media)
    page.goto(server + "people")
    expect(page.locator("tr.person")).to_have_count(2)
    for url in ("people", "timeline", "clips/0", "clips/3"):
        page.goto(server + url)
        text = page.inner_text("main")
        assert "Ada Lovelace" not in text and not any(s in text for s in said), url
        assert page.locator(f'a[href="/people/{who}"]').count() == 0, url
    for q in [*said, "Ada Lovelace"]:
        page.goto(f"{server}search?q={q}")
        hits = " ".join(" ".join(r) for r in _rows(page, "#hits tr"))
        assert "Ada Lovelace" not in hits and not any(s in hits for s in said), q
    page.goto(f"{server}ask?q=How many times did Ada Lovelace speak?", timeout=120_000)
    answer = page.inner_text("#answer")
    assert "Ada Lovelace spoke" not in answer and not any(s in answer for s in said), answer
