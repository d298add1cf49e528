"""The web app: the shared parts (:mod:`.app`) and the routes (:mod:`.pages`, :mod:`.actions`) put together; a
module of its own so that the routes can import the shared parts without importing each other."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette

from .actions import ACTION_ROUTES
from .app import MAX_BODY_BYTES, Browser, BrowserSettings, http_error
from .pages import PAGE_ROUTES


def create_app(settings: BrowserSettings) -> Starlette:
    """The web app over ``settings.db``; the model of the ask page starts loading in the background."""
    from starlette.exceptions import HTTPException

    b = Browser(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        b.close()

    app = Starlette(routes=[*PAGE_ROUTES, *ACTION_ROUTES], max_body_size=MAX_BODY_BYTES, lifespan=lifespan,
                    exception_handlers={HTTPException: http_error, Exception: http_error})
    app.state.browser = b
    if settings.preload_model:
        b.ask.start_loading()
    return app
