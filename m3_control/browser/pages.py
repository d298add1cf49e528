"""The browser's pages (GET, read-only): people, a person, timeline, a clip, search, ask, media files."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from m3_memory import MemoryStore
from m3_memory.store import browse as queries
from m3_memory.store.browse import Naming

from ..evaluation.report import trace_view
from .app import HERE, MAX_QUERY_CHARS, browser, handled, limited, parse_int, parse_time
from .ask import MAX_QUESTION_CHARS
from .errors import BrowserError, not_found

T = TypeVar("T")
PAGE_PEOPLE = 100   # people per page (each row shows face crops and a voice sample)
PAGE_CLIPS = 30           # clips per timeline page
MAX_TOPK = 50


async def read(request: Request, fn: Callable[[MemoryStore, Naming], T]) -> tuple[T, dict[str, Any]]:
    """``fn(store, naming)`` on the page store (in a worker thread, one request at a time) and the header counts."""
    b = browser(request)

    def work() -> tuple[T, dict[str, Any]]:
        with b.lock:
            naming = Naming(b.store, b.stated_names)
            return fn(b.store, naming), queries.overview(b.store)

    return await run_in_threadpool(work)


@handled
async def home(request: Request) -> Response:
    return RedirectResponse("/people", status_code=303)


@handled
async def people_page(request: Request) -> Response:
    page = parse_int(request.query_params.get("page"), "page", default=1, lo=1, hi=100_000) or 1
    cards, ov = await read(request, queries.people)
    pages = max(1, -(-len(cards) // PAGE_PEOPLE))
    return browser(request).render(request, "people.html.j2", cards=cards[(page - 1) * PAGE_PEOPLE:page * PAGE_PEOPLE],
                                   total=len(cards), current=page, pages=pages, overview=ov, page="people",
                                   done=request.query_params.get("done", "")[:40])


@handled
async def person_page(request: Request) -> Response:
    cid = request.path_params["cid"]
    view, ov = await read(request, lambda s, n: queries.person(s, n, cid))
    if view is None:
        raise not_found(f"Character {cid}")
    if view.card.id != cid:   # an alias of a merged character: its page is the merged one
        return RedirectResponse(f"/people/{view.card.id}", status_code=303)
    return browser(request).render(request, "person.html.j2", p=view, overview=ov, page="people",
                                   done=request.query_params.get("done", "")[:40])


@handled
async def forget_confirm(request: Request) -> Response:
    b = browser(request)
    if not b.access.enabled:
        raise BrowserError(403, "Read-only", "This server was started without a write token: it cannot forget.")
    cid = request.path_params["cid"]
    view, ov = await read(request, lambda s, n: queries.person(s, n, cid, limit=0))
    if view is None:
        raise not_found(f"Character {cid}")
    return b.render(request, "forget.html.j2", p=view, overview=ov, page="people")


@handled
async def timeline_page(request: Request) -> Response:
    qp = request.query_params
    timeline = browser(request).timeline()
    t1, t2 = parse_time(qp.get("from"), "from", timeline), parse_time(qp.get("to"), "to", timeline)
    character = parse_int(qp.get("character"), "character")
    page = parse_int(qp.get("page"), "page", default=1, lo=1, hi=100_000) or 1

    def fn(store: MemoryStore, naming: Naming) -> tuple[queries.TimelinePage, list[tuple[int, str]]]:
        tl = queries.timeline(store, naming, t1, t2, character, (page - 1) * PAGE_CLIPS, PAGE_CLIPS)
        everyone = sorted(((cid, naming.label(cid)) for cid in naming.chars.members), key=lambda x: x[0])
        return tl, everyone

    (tl, everyone), ov = await read(request, fn)
    pages = max(1, -(-tl.total // PAGE_CLIPS))
    return browser(request).render(request, "timeline.html.j2", tl=tl, everyone=everyone, overview=ov,
                                   page="timeline", current=page, pages=pages, character=character,
                                   t1=qp.get("from", "")[:20], t2=qp.get("to", "")[:20])


@handled
async def clip_page(request: Request) -> Response:
    clip_id = request.path_params["clip_id"]
    view, ov = await read(request, lambda s, n: queries.clip(s, n, clip_id))
    if view is None:
        raise not_found(f"Clip {clip_id}")
    return browser(request).render(request, "clip.html.j2", c=view, overview=ov, page="timeline")


@handled
async def search_page(request: Request) -> Response:
    qp = request.query_params
    q = limited(qp.get("q"), "search text", MAX_QUERY_CHARS)
    before = parse_time(qp.get("before"), "before", browser(request).timeline())
    mode = qp.get("mode", "memories")
    if mode not in ("memories", "clips"):
        raise BrowserError(400, "Bad mode", "mode must be memories or clips")
    topk = parse_int(qp.get("topk"), "topk", default=10, lo=1, hi=MAX_TOPK) or 10

    def fn(store: MemoryStore, naming: Naming) -> list[Any]:
        if not q:
            return []
        if mode == "clips":
            return queries.search_clips(store, naming, q, before, topk)
        return queries.search_memories(store, naming, q, before, topk)

    hits, ov = await read(request, fn)
    return browser(request).render(request, "search.html.j2", q=q, before=qp.get("before", "")[:20], mode=mode,
                                   topk=topk, hits=hits, overview=ov, page="search")


@handled
async def ask_page(request: Request) -> Response:
    qp = request.query_params
    q = limited(qp.get("q"), "question", MAX_QUESTION_CHARS)
    before = parse_time(qp.get("before"), "before", browser(request).timeline())
    b = browser(request)
    asked = await run_in_threadpool(b.ask.ask, q, before) if q else None

    def fn(store: MemoryStore, naming: Naming) -> list[queries.MemoryRow]:
        """The memories the answer cites, as the other pages show them (names, links to people and clips)."""
        ids = asked.answer.cited_memory_ids if asked is not None else []
        return [queries.MemoryRow(m.id, m.kind, m.clip_id, m.start_time, m.end_time, naming.parts(m.text), m.weight)
                for m in store.get_memories(ids)]

    cited, ov = await read(request, fn)
    trace = trace_view(asked.answer.trace) if asked is not None else None
    return b.render(request, "ask.html.j2", q=q, before=qp.get("before", "")[:20], asked=asked, cited=cited,
                    trace=trace, model_state=b.ask.state, overview=ov, page="ask")


@handled
async def media_file(request: Request) -> Response:
    content_id = request.path_params["content_id"]
    b = browser(request)

    def work() -> tuple[bytes, str] | None:
        with b.lock:
            return queries.media(b.store, content_id)

    found = await run_in_threadpool(work)
    if found is None:
        raise not_found(f"Media {content_id}")
    data, media_type = found
    # never cached: a forgotten person's face or voice must not come back from a browser cache
    return Response(data, media_type=media_type, headers={"Cache-Control": "no-store"})


@handled
async def health(request: Request) -> Response:
    b = browser(request)
    _, ov = await read(request, lambda s, n: None)
    return JSONResponse({"ok": True, "db": str(b.settings.db), "writable": b.access.enabled,
                         "model": b.ask.state, **ov})


PAGE_ROUTES = [
    Route("/", home),
    Route("/people", people_page),
    Route("/people/{cid:int}", person_page),
    Route("/people/{cid:int}/forget", forget_confirm, methods=["GET"]),
    Route("/timeline", timeline_page),
    Route("/clips/{clip_id:int}", clip_page),
    Route("/search", search_page),
    Route("/ask", ask_page),
    Route("/media/{content_id:int}", media_file),
    Route("/healthz", health),
    Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
]
