"""The ASGI app, built by ``create_app(settings)``: ``uvicorn --factory app.main:create_app``."""

from __future__ import annotations

import os

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from starlette.middleware.gzip import GZipMiddleware

from .chapters import load_all
from .errors import error_item, error_response
from .live import install as install_live
from .live import router as live_router
from .live.serving import keep_credentials_out_of_logs
from .render import STATIC, env
from .settings import Settings, from_environment
from .web import card_views, logs_api, lookup
from .web.api import register_card_routes
from .web.deck import router as deck_router
from .web.docs import router as docs_router
from .web.edge import MIN_COMPRESS, EdgeCache
from .web.gpus_api import router as gpus_router
from .web.language import Editions
from .web.limits import BodyLimit
from .web.models_api import router as models_router
from .web.pages import router as pages_router
from .web.security import SecurityHeaders
from .web.tools import router as tools_router
from .web.urls import cache_key
from .words import words_for

W = words_for(__name__)

load_all()


class CachedStatic(StaticFiles):
    """Static assets: fingerprinted URLs (?v=hash) are immutable for a year; a client that takes
    brotli or gzip gets the file compressed at set-up (``scripts/precompress.py``) while that copy
    is newer than the file."""

    async def get_response(self, path, scope):
        resp = await self._precompressed(path, scope) or await super().get_response(path, scope)
        qs = scope.get("query_string", b"")
        resp.headers["Cache-Control"] = "public, max-age=31536000, immutable" if b"v=" in qs else "public, max-age=300"
        return resp

    async def _precompressed(self, path, scope):
        from starlette.responses import FileResponse

        from .web.edge import negotiate

        enc = negotiate(dict(scope.get("headers") or []).get(b"accept-encoding", b""))
        if enc == "identity":
            return None
        from starlette.concurrency import run_in_threadpool

        full, stat = await run_in_threadpool(self.lookup_path, path)
        if full is None or stat is None:
            return None
        packed = full + (".br" if enc == "br" else ".gz")
        try:
            if os.stat(packed).st_mtime < stat.st_mtime:
                return None  # an edited file: its old compressed copy is never served
        except OSError:
            return None
        import mimetypes

        media = mimetypes.guess_type(full)[0] or "application/octet-stream"
        return FileResponse(packed, media_type=media, headers={"Content-Encoding": enc, "Vary": "Accept-Encoding"})


async def validation_error(request: Request, exc: RequestValidationError) -> Response:
    """Malformed request bodies: 422 in the same shape as parameter errors (field-named)."""
    items = []
    for e in exc.errors():
        loc = [str(x) for x in e.get("loc", ())]
        field = loc[-1] if loc else "body"
        msg = f"{'.'.join(loc[1:]) or 'body'}:{e.get('msg', W['validation_error.msg'])}"
        items.append(error_item(field, msg, str(e.get("type", "value_error")), loc))
    return error_response(422, items)


async def http_error(request: Request, exc) -> Response:
    """Bodies that cannot even be parsed (bad bytes) are malformed input too: 422, not 400."""
    from fastapi.exception_handlers import http_exception_handler

    if exc.status_code == 400:
        return error_response(422, [error_item("body", W["http_error.msg"], "json_invalid", ["body"])])
    return await http_exception_handler(request, exc)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The app for ``settings`` (default: this process's environment, read once)."""
    settings = settings or from_environment()
    load_all()
    app = FastAPI(
        title=W["create_app.title"],
        version="1.0",
        description=W["create_app.description"],
        docs_url=None,
        redoc_url=None,
    )  # /docs is served offline by app/web/docs.py; no /redoc
    app.state.settings = settings
    env.auto_reload = settings.reload
    keep_credentials_out_of_logs()  # the event stream's credential travels in its URL
    app.include_router(deck_router)  # before /present/{name}
    card_views.install(app)
    app.include_router(pages_router)
    app.include_router(docs_router)
    app.include_router(models_router)
    app.include_router(gpus_router)
    app.include_router(live_router)
    install_live(app, settings)  # its own store (app.state.live), 503s, what the check route withholds
    app.include_router(logs_api.router)  # /tools/log (issue 41), before /tools/{slug}
    app.include_router(tools_router)
    if settings.bench:
        from .web.bench import router as bench_router

        app.include_router(bench_router)
    register_card_routes(app)
    app.mount("/static", CachedStatic(directory=str(STATIC)), name="static")
    lookup.install(app)
    # Starlette types a handler as taking any Exception; this one is registered for its own class only
    app.add_exception_handler(RequestValidationError, validation_error)  # type: ignore[arg-type]
    from starlette.exceptions import HTTPException as StarletteHTTPException

    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_middleware(Editions)  # /en/… in English; innermost, so the edge keeps each edition's bytes
    app.add_middleware(BodyLimit)  # 413 for bodies over 1 MB, read before answering
    app.add_middleware(SecurityHeaders)
    # outermost: the HTTP cache, which compresses what it keeps; what it passes by goes through GZip
    app.add_middleware(EdgeCache, max_bytes=settings.edge_mb * 1_000_000, key=cache_key, passthrough=gzipped)
    if settings.warm:
        warm()
    return app


def gzipped(app):
    """Starlette's GZip in front of ``app``, for the answers the edge cache passes by: the live class,
    checks, POSTs (it never compresses ``text/event-stream``; static files come precompressed)."""
    return GZipMiddleware(app, minimum_size=MIN_COMPRESS)


def warm() -> None:
    """Render every card once at its defaults: templates compile, maths typesets and the glossary's
    patterns run here, at start-up, not in the first reader's request (a class opening a section
    at once would otherwise queue behind every first render). ``AIINFRA_WARM=0`` skips it."""
    from .cards import REGISTRY
    from .render import fragment_html

    for card in REGISTRY.values():
        fragment_html(card, card.defaults())
