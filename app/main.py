"""The ASGI app: ``uvicorn app.main:app``."""
from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.middleware.gzip import GZipMiddleware

from .chapters import load_all
from .web.render import STATIC
from .web.routes import register_card_routes, router
from .web.security import SecurityHeaders

load_all()


class CachedStatic(StaticFiles):
    """Static assets: fingerprinted URLs (?v=hash) are immutable for a year."""

    async def get_response(self, path, scope):
        resp = await super().get_response(path, scope)
        qs = scope.get("query_string", b"")
        resp.headers["Cache-Control"] = ("public, max-age=31536000, immutable" if b"v=" in qs
                                         else "public, max-age=300")
        return resp


def create_app() -> FastAPI:
    app = FastAPI(title="AI Infra 图解 API", version="1.0",
                  description="每张卡片一个路由:参数即书中滑块,输出键与卡片目录一致。")
    app.include_router(router)
    register_card_routes(app)
    app.mount("/static", CachedStatic(directory=str(STATIC)), name="static")
    app.add_middleware(GZipMiddleware, minimum_size=800)
    app.add_middleware(SecurityHeaders)
    return app


app = create_app()
