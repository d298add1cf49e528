"""Write access: the browser is read-only unless it was started with a write token.

A person logs in by pasting the token once (``/login``); the server then keeps a random session id in an
HttpOnly, SameSite=Strict cookie, and every write form carries that session's CSRF value. Scripts may send the
token itself in the ``X-M3-Write-Token`` header instead. Tokens are compared in constant time; repeated wrong
tokens are refused for a while. Sessions live in memory: restarting the server logs everyone out.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import threading
import time
from collections import deque
from pathlib import Path

from starlette.requests import Request

from .errors import BrowserError

COOKIE = "m3_browser_session"
HEADER = "x-m3-write-token"
TOKEN_ENV = "M3_BROWSER_TOKEN"
MIN_TOKEN_CHARS = 12
SESSION_S = 12 * 3600.0
MAX_FAILURES = 10           # wrong tokens per FAILURE_WINDOW_S before logins are refused
FAILURE_WINDOW_S = 300.0


def load_token(path: str | Path | None = None, env: str = TOKEN_ENV) -> str | None:
    """The write token from a file (its first word) or the environment; None: read-only. Short tokens refused."""
    if path:
        words = Path(path).read_text(encoding="utf-8").split()
        if not words:
            raise ValueError(f"write token file {path} is empty")
        value = words[0]
    else:
        value = os.environ.get(env, "").strip()
        if not value:
            return None
    if len(value) < MIN_TOKEN_CHARS:
        raise ValueError(f"the write token must have at least {MIN_TOKEN_CHARS} characters "
                         "(e.g. python -c 'import secrets; print(secrets.token_urlsafe(24))')")
    return value


class WriteAccess:
    def __init__(self, token: str | None) -> None:
        self.token = token
        self._sessions: dict[str, float] = {}
        self._failures: deque[float] = deque()
        self._key = secrets.token_bytes(32)
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.token is not None

    def login(self, presented: str) -> str:
        """A new session id for the right token; BrowserError otherwise."""
        if not self.enabled:
            raise BrowserError(403, "Read-only", "This server was started without a write token, so it only reads.")
        now = time.monotonic()
        with self._lock:
            while self._failures and now - self._failures[0] > FAILURE_WINDOW_S:
                self._failures.popleft()
            if len(self._failures) >= MAX_FAILURES:
                raise BrowserError(429, "Too many attempts", "Too many wrong tokens; wait a few minutes.")
            if not self._matches(presented):
                self._failures.append(now)
                raise BrowserError(401, "Wrong token", "That is not the write token this server was started with.")
            session = secrets.token_urlsafe(32)
            self._sessions = {s: t for s, t in self._sessions.items() if now - t < SESSION_S}
            self._sessions[session] = now
            return session

    def logout(self, request: Request) -> None:
        with self._lock:
            self._sessions.pop(request.cookies.get(COOKIE, ""), None)

    def _matches(self, presented: str) -> bool:
        assert self.token is not None
        return hmac.compare_digest(presented.strip().encode(), self.token.encode())

    def session(self, request: Request) -> str | None:
        """The request's valid session id, if logged in."""
        sid = request.cookies.get(COOKIE)
        if not sid:
            return None
        with self._lock:
            started = self._sessions.get(sid)
            if started is None or time.monotonic() - started > SESSION_S:
                self._sessions.pop(sid, None)
                return None
        return sid

    def csrf(self, session: str | None) -> str:
        return hmac.new(self._key, (session or "").encode(), hashlib.sha256).hexdigest() if session else ""

    def require(self, request: Request, form_csrf: str | None) -> str:
        """Who may write (for the log): a logged-in session with its CSRF value, or the token header."""
        if not self.enabled:
            raise BrowserError(403, "Read-only", "This server was started without a write token: corrections "
                                                 "(name, merge, split, forget) are disabled. Restart it with "
                                                 "--write-token-file FILE or M3_BROWSER_TOKEN set.")
        header = request.headers.get(HEADER)
        if header is not None:
            if not self._matches(header):
                raise BrowserError(401, "Wrong token", f"The {HEADER} header does not hold the write token.")
            return "token header"
        sid = self.session(request)
        if sid is None:
            raise BrowserError(401, "Login needed", "Log in with the write token first (Login, top right).")
        if not form_csrf or not hmac.compare_digest(form_csrf, self.csrf(sid)):
            raise BrowserError(403, "Form expired", "This form is from another session; reload the page and retry.")
        return f"session {sid[:6]}"
