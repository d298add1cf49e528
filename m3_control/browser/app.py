"""The memory browser's Starlette application: settings, shared state, templates, error pages.

One :class:`Browser` per server holds the page store (one SQLite connection, read-only unless a write token was
given; requests take turns on it, each page is a few milliseconds), the write access (:mod:`.auth`) and the ask
service (:mod:`.ask`, its own connection and model). Routes live in :mod:`.pages` (reading) and :mod:`.actions`
(corrections, login). Every failure becomes an error page with a status and a sentence (:mod:`.errors`).
"""

from __future__ import annotations

import functools
import logging
import math
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from m3_memory import MemoryStore, StoreConfig
from m3_memory.store import store_exists
from m3_memory.store.browse import StatedNames
from m3_memory.timeline import Timeline

from ..evaluation.report import TEMPLATES as REPORT_TEMPLATES
from .ask import DEFAULT_ANSWERER, DEFAULT_ROUNDS, AskService
from .auth import WriteAccess
from .errors import BrowserError, classify

log = logging.getLogger(__name__)
HERE = Path(__file__).resolve().parent
MAX_QUERY_CHARS = 500
MAX_NAME_CHARS = 200
MAX_BODY_BYTES = 64 * 1024   # forms are small: a name, an id, a token


@dataclass
class BrowserSettings:
    db: Path | str        # a SQLite file or a postgresql:// URL
    write_token: str | None = None          # None: read-only
    answerer: str = DEFAULT_ANSWERER        # make_answerer name, as the control node's `answerer` parameter
    answerer_options: dict[str, Any] | None = None   # None: the embedded default (ask.DEFAULT_OPTIONS)
    max_rounds: int = DEFAULT_ROUNDS
    preload_model: bool = True              # load the ask page's model in the background at start-up
    busy_timeout_ms: int = 3000             # a write waits this long for the memorization's write lock
    forget_wait_s: float = 5.0              # WAL checkpoint retries of a forget (see m3_memory.store.forget)


def mmss(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "-"
    s = max(0, int(round(seconds)))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"


@jinja2.pass_context
def _when(context: Any, seconds: float | None) -> str:
    """A stream time as pages show it: the wall clock on a live robot's memory (the page's ``timeline``), else
    [h:]mm:ss into the recording."""
    timeline: Timeline | None = context.get("timeline")
    if timeline is None or not timeline.is_wall or seconds is None or not math.isfinite(seconds):
        return mmss(seconds)
    return timeline.say(seconds, timeline.now())


def _environment() -> jinja2.Environment:
    loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(HERE / "templates"),
                                  jinja2.FileSystemLoader(REPORT_TEMPLATES)])   # trace.html.j2: the report's tables
    env = jinja2.Environment(loader=loader, autoescape=True, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters["mmss"] = _when
    return env


class Browser:
    def __init__(self, settings: BrowserSettings) -> None:
        self.settings = settings
        if not store_exists(settings.db):
            raise FileNotFoundError(f"memory database not found: {settings.db}")
        self.config = StoreConfig(busy_timeout_ms=settings.busy_timeout_ms)
        self.access = WriteAccess(settings.write_token)
        self.store = MemoryStore(settings.db, config=self.config, readonly=not self.access.enabled)
        self.lock = threading.RLock()
        self.stated_names = StatedNames()   # cache across requests, emptied by any write
        self.ask = AskService(settings.db, self.config, self.store.embedder, settings.answerer,
                              settings.answerer_options, settings.max_rounds)
        self.templates = Jinja2Templates(env=_environment())

    def render(self, request: Request, name: str, status: int = 200, **context: Any) -> Response:
        session = self.access.session(request)
        base = {"writable": self.access.enabled, "logged_in": session is not None,
                "csrf": self.access.csrf(session), "timeline": self.timeline(),
                "db": Path(self.settings.db).name if self.store.engine == "sqlite" else self.store.location}
        return self.templates.TemplateResponse(request, name, {**base, **context}, status_code=status)

    def timeline(self) -> Timeline:
        """The memory's clock (read per page: the memorization node sets it on a robot's first ROS-time stamp);
        stream time when the database cannot be read (the error page still renders)."""
        try:
            with self.lock:
                return self.store.timeline()
        except Exception as e:   # sqlite3.Error on a locked or closed database
            log.debug("timeline unreadable: %s", e)
            return Timeline()

    def error_page(self, request: Request, err: BrowserError) -> Response:
        return self.render(request, "error.html.j2", status=err.status, error=err)

    def close(self) -> None:
        self.ask.close()
        with self.lock:
            self.store.close()


def browser(request: Request) -> Browser:
    return request.app.state.browser


Handler = Callable[[Request], Awaitable[Response]]


def handled(fn: Handler) -> Handler:
    """Any exception of a route -> its error page (logged; a traceback only in the log, for unexpected ones)."""

    @functools.wraps(fn)
    async def wrapper(request: Request) -> Response:
        try:
            return await fn(request)
        except Exception as e:
            err = classify(e)
            if err.status < 500:
                log.info("%s %s -> %d %s", request.method, request.url.path, err.status, err.detail)
            return browser(request).error_page(request, err)

    return wrapper


async def http_error(request: Request, exc: Exception) -> Response:
    return browser(request).error_page(request, classify(exc))


def parse_time(value: str | None, name: str, timeline: Timeline | None = None) -> float | None:
    """Stream time from a form/query field: seconds ("90", "90.5") or [h:]mm:ss ("1:30"); on a live robot's memory
    also a wall time ("9:01", "3pm": m3_memory.timeline); "" -> None."""
    text = (value or "").strip()
    if not text:
        return None
    if len(text) > 20:
        raise BrowserError(400, "Bad time", f"{name}: {text[:20]}... is not a time")
    if timeline is not None and timeline.is_wall:
        try:
            return timeline.read(text, timeline.now())
        except ValueError as e:
            raise BrowserError(400, "Bad time", f"{name}: {e}") from None
    try:
        parts = [float(p) for p in text.split(":")]
    except ValueError:
        raise BrowserError(400, "Bad time", f"{name}: {text!r} is not a time (write seconds, or m:ss)") from None
    if len(parts) > 3 or any(not math.isfinite(p) or p < 0 for p in parts):
        raise BrowserError(400, "Bad time", f"{name}: {text!r} is not a time (write seconds, or m:ss)")
    total = 0.0
    for p in parts:
        total = total * 60 + p
    return total


def parse_int(value: str | None, name: str, default: int | None = None, lo: int = 0, hi: int = 10**9) -> int | None:
    text = (value or "").strip()
    if not text:
        return default
    if len(text) > 12 or not text.lstrip("-").isdigit() or not lo <= int(text) <= hi:
        raise BrowserError(400, "Bad number", f"{name} must be a whole number from {lo} to {hi}, not {text[:12]!r}")
    return int(text)


def limited(value: str | None, name: str, limit: int) -> str:
    text = " ".join((value or "").split())
    if len(text) > limit:
        raise BrowserError(413, "Too long", f"The {name} has {len(text)} characters; the limit is {limit}.")
    return text
