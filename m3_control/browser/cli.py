"""``m3-browser`` / ``m3-memory serve``: start the memory browser on a memory database.

    m3-memory serve memory.db                                  read-only, http://127.0.0.1:8765/
    m3-memory serve memory.db --write-token-file token.txt     corrections after a login with that token
    M3_BROWSER_TOKEN=... m3-memory serve memory.db --port 0    (0: any free port; the URL is printed)

The first line on stdout is ``m3 memory browser: http://HOST:PORT/ (read-only|corrections with token)``.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import logging
import os
import socket
import sys
from collections.abc import Sequence

from m3_memory.store import store_exists, store_location

from .ask import DEFAULT_ANSWERER, DEFAULT_ROUNDS

PROG = "m3-memory serve"
DEFAULT_PORT = 8765


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="Browse, correct and delete what the memory keeps (web app).")
    p.add_argument("db", nargs="?", metavar="DB", default=None, help="memory database (default: --db or $M3_MEMORY_DB)")
    p.add_argument("--db", dest="db_opt", metavar="PATH", default=os.environ.get("M3_MEMORY_DB"),
                   help=argparse.SUPPRESS)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free port)")
    p.add_argument("--write-token-file", metavar="FILE", default=None,
                   help="enable corrections (name, merge, split, forget) for whoever logs in with the token in FILE "
                        "(default: $M3_BROWSER_TOKEN; neither: read-only)")
    p.add_argument("--answerer", default=DEFAULT_ANSWERER, help="ask page's answerer: m3 (default) or extractive")
    p.add_argument("--answerer-options", metavar="JSON", default=None,
                   help="options of the answerer as a JSON object (default: the embedded model, as in "
                        "config/default.yaml)")
    p.add_argument("--max-rounds", type=int, default=DEFAULT_ROUNDS, help="reasoning rounds per question")
    p.add_argument("--no-preload", action="store_true", help="load the ask page's model at the first question")
    p.add_argument("--access-log", action="store_true",
                   help="log every request line (off by default: search texts may name people)")
    return p


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    args = build_parser(prog).parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    db = args.db or args.db_opt
    try:
        import uvicorn

        from .app import BrowserSettings
        from .auth import load_token
        from .server import create_app

        if not db:
            raise ValueError("no database given: m3-memory serve DB (or set M3_MEMORY_DB)")
        if not store_exists(db):
            raise ValueError(f"memory database not found: {db}")
        token = load_token(args.write_token_file)
        options = json.loads(args.answerer_options) if args.answerer_options else None
        if options is not None and not isinstance(options, dict):
            raise ValueError("--answerer-options must be a JSON object")
        app = create_app(BrowserSettings(store_location(db), token, args.answerer, options, args.max_rounds,
                                         preload_model=not args.no_preload))
        family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
        # proto IPPROTO_TCP: asyncio sets TCP_NODELAY only on sockets that say they are TCP (with proto 0, Nagle's
        # algorithm and the client's delayed ACK add ~40 ms to every small response)
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host, args.port))
        # listen before the address is printed: a client that reads it connects at once and waits in the backlog
        # while uvicorn starts (and preloads the model), rather than being refused
        sock.listen(2048)
    except (ValueError, OSError, ImportError) as e:
        sys.stderr.write(f"{prog}: error: {e}\n")
        return 2
    except Exception as e:   # e.g. an unreadable database or schema: one line, as the other CLIs
        sys.stderr.write(f"{prog}: error: {type(e).__name__}: {e}\n")
        return 2
    if not _loopback(args.host):
        sys.stderr.write(f"{prog}: warning: listening on {args.host}, reachable from other machines over plain "
                         "HTTP; anyone there can read the memory (and, with the token, change it)\n")
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"m3 memory browser: http://{shown}:{port}/ ({'corrections with token' if token else 'read-only'})",
          flush=True)
    config = uvicorn.Config(app, log_level="info", access_log=args.access_log, lifespan="on")
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn stops cleanly on SIGINT/SIGTERM, then raises the signal again
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(prog="m3-browser"))
