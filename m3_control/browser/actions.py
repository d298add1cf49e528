"""The browser's write actions (POST): name, merge, split, forget, and login/logout.

Each needs the write token (:mod:`.auth`), runs one store method (:mod:`m3_memory.store.corrections`,
:meth:`m3_memory.MemoryStore.forget_character`), is logged (python logging, and a row in the store's ``edits``
table: ids and counts, never a name) and answers with a redirect to the page that shows the result.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from m3_memory import MemoryStore
from m3_memory.store.corrections import name_character, record_edit

from .app import MAX_NAME_CHARS, browser, handled, limited, parse_int
from .auth import COOKIE, SESSION_S
from .errors import BrowserError

log = logging.getLogger(__name__)
T = TypeVar("T")


async def _form(request: Request) -> FormData:
    return await request.form(max_files=0, max_fields=10, max_part_size=16 * 1024)


async def _write(request: Request, form: FormData, action: str, fn: Callable[[MemoryStore, str], T]) -> T:
    """Check the write access, run ``fn(store, origin)`` on the page store and log it."""
    b = browser(request)
    who = b.access.require(request, str(form.get("csrf") or ""))
    origin = f"browser {request.client.host if request.client else '?'} {who}"

    def work() -> T:
        with b.lock:
            return fn(b.store, origin)

    result = await run_in_threadpool(work)
    log.info("write %s %s by %s -> %s", action, dict(request.path_params), origin, result)
    return result


def _see(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303)


@handled
async def name(request: Request) -> Response:
    form = await _form(request)
    new = limited(str(form.get("name") or ""), "name", MAX_NAME_CHARS)
    if not new:
        raise BrowserError(400, "No name", "Type the name to give this person.")
    cid = await _write(request, form, "name",
                       lambda s, origin: name_character(s, request.path_params["cid"], new, origin))
    return _see(f"/people/{cid}?done=named")


@handled
async def merge(request: Request) -> Response:
    form = await _form(request)
    other = parse_int(str(form.get("other") or ""), "other character")
    if other is None:
        raise BrowserError(400, "Nobody chosen", "Choose the character to merge with.")
    merged = await _write(request, form, "merge",
                          lambda s, origin: s.merge_characters(request.path_params["cid"], other, origin))
    return _see(f"/people/{merged}?done=merged")


@handled
async def split(request: Request) -> Response:
    form = await _form(request)
    after = await _write(request, form, "split",
                         lambda s, origin: s.split_link(request.path_params["memory_id"], origin))
    back = parse_int(str(form.get("character") or ""), "character")
    target = back if back in after else (after[0] if after else None)
    return _see(f"/people/{target}?done=split" if target is not None else "/people?done=split")


@handled
async def forget(request: Request) -> Response:
    form = await _form(request)
    cid = request.path_params["cid"]
    if str(form.get("confirm") or "") != str(cid):
        raise BrowserError(400, "Not confirmed", "Nothing was forgotten: confirm on the forget page first.")
    wait = browser(request).settings.forget_wait_s

    def work(store: MemoryStore, origin: str) -> dict[str, Any]:
        report = store.forget_character(cid, checkpoint_timeout_s=wait)
        record_edit(store, "forget", report.character_id, {
            "entities": report.entities, "deleted_memories": len(report.deleted_memories),
            "redacted_memories": len(report.redacted_memories), "deleted_turns": report.deleted_turns,
            "checkpointed": report.checkpointed}, origin)
        return dataclasses.asdict(report)

    report = await _write(request, form, "forget", work)
    return browser(request).render(request, "forgotten.html.j2", report=report, page="people")


@handled
async def login(request: Request) -> Response:
    b = browser(request)
    if request.method == "GET":
        return b.render(request, "login.html.j2", next=_local(request.query_params.get("next")), page="login")
    form = await _form(request)
    session = b.access.login(str(form.get("token") or ""))
    log.info("login from %s", request.client.host if request.client else "?")
    resp = _see(_local(str(form.get("next") or "")))
    resp.set_cookie(COOKIE, session, max_age=int(SESSION_S), httponly=True, samesite="strict", path="/")
    return resp


@handled
async def logout(request: Request) -> Response:
    browser(request).access.logout(request)
    resp = _see("/people")
    resp.delete_cookie(COOKIE, path="/")
    return resp


def _local(path: str | None) -> str:
    """Only a path on this server (no //host or scheme) is a place to go back to after login."""
    p = (path or "").strip()
    return p if p.startswith("/") and not p.startswith("//") and "\\" not in p and len(p) < 300 else "/people"


ACTION_ROUTES = [
    Route("/people/{cid:int}/name", name, methods=["POST"]),
    Route("/people/{cid:int}/merge", merge, methods=["POST"]),
    Route("/links/{memory_id:int}/split", split, methods=["POST"]),
    Route("/people/{cid:int}/forget", forget, methods=["POST"]),
    Route("/login", login, methods=["GET", "POST"]),
    Route("/logout", logout, methods=["POST"]),
]
