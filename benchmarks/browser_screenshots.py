"""Screenshots of the memory browser's pages on the bundled demo scene (for docs/browser.md).

    python benchmarks/browser_screenshots.py [--bag rosbags/demo/grid_scene] [--out docs/browser]

The demo bag is memorized into a fresh store by the node's Memorizer (benchmarks/reasoning_bench.py: real faces,
voice samples, transcripts), one person is named, and the browser (real control loop, write token) is opened in
Debian's headless chromium through Playwright; one PNG per page is written to ``--out``.
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))
from reasoning_bench import memorize  # noqa: E402

TOKEN = "screenshot-token-0123456789"


def serve(db: Path) -> str:
    import uvicorn

    from m3_control.browser import BrowserSettings, create_app

    app = create_app(BrowserSettings(db, TOKEN))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    app.state.browser.ask.start_loading().join()
    return f"http://127.0.0.1:{sock.getsockname()[1]}/"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bag", type=Path, default=ROOT / "rosbags" / "demo" / "grid_scene")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "browser")
    a = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from m3_memory import MemoryStore

    a.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="m3shots") as tmp:
        db = Path(tmp) / "memory.db"
        print("memorizing", a.bag, memorize(a.bag, db)["nodes"], flush=True)
        store = MemoryStore(db)
        first = min(store.characters().members)
        store.set_character_name(first, "Anna")
        store.close()
        url = serve(db)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                         args=["--headless", "--no-sandbox", "--disable-background-networking"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(120_000)
            page.goto(url + "login")
            page.fill("input[name=token]", TOKEN)
            page.click("#login-form button")
            shots = {
                "people": "people",
                "person": f"people/{first}",
                "timeline": "timeline?from=0:25&to=1:05",
                "search": "search?q=lay+blue+at+x+four+now&before=1:01",
                "ask": "ask?q=How+many+times+did+Anna+speak%3F",
                "ask_search": "ask?q=What+did+someone+say+about+red+and+the+letter+k%3F&before=0:31",
                "forget": f"people/{first}/forget",
            }
            for name, path in shots.items():
                page.goto(url + path)
                page.screenshot(path=str(a.out / f"{name}.png"), full_page=True)
                print("wrote", a.out / f"{name}.png", flush=True)
            browser.close()


if __name__ == "__main__":
    main()
