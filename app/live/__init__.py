"""The live class (issues 16, 25): the projector leads, phones follow, the class predicts, votes and
sees its answers. Stateful, and kept apart from the pure card routes: its own routes, one storage
interface (SQLite by default, Redis for several processes), SSE fan-out through one hub per app (one
app per server process). Each app owns its live class (``app.state.live``), chosen from its settings."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter, FastAPI

from ..settings import Settings
from . import api, pages, sse, sweep_api

router = APIRouter()
router.include_router(api.router)
router.include_router(sweep_api.router)
router.include_router(sse.router)
router.include_router(pages.router)


def install(app: FastAPI, settings: Settings) -> None:
    """What the live class adds to an app besides its routes: its own store, hub and settings
    (``app.state.live``, the store chosen from ``settings`` on first use), 503 (not 500) when that
    store is away, the helper the card check route asks what to withhold and whether to count
    (``app.state.live_withheld``, bound to this app's live class), and with Redis a start-up check of
    its persistence (a warning in the log when a crash would lose the class)."""
    from .checks import withheld
    from .context import LiveContext
    from .errors import store_unavailable
    from .store import StoreUnavailable

    app.state.live = live = LiveContext(settings)
    app.add_exception_handler(StoreUnavailable, store_unavailable)
    app.state.live_withheld = partial(withheld, live)

    async def check_redis() -> None:
        """At start: how the given Redis persists, warned about when a crash would lose the class."""
        from .redis_store import RedisStore, check_persistence

        if isinstance(live.store, RedisStore):
            await check_persistence(live.store)

    if settings.redis_url:
        app.router.on_startup.append(check_redis)
