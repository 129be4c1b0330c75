"""The live class (issues 16, 25): the projector leads, phones follow, the class predicts, votes and
sees its answers. Stateful, and kept apart from the pure card routes: its own routes, one storage
interface (SQLite by default, Redis for several processes), SSE fan-out through one hub per process."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI

from . import api, pages, sse, sweep_api

router = APIRouter()
router.include_router(api.router)
router.include_router(sweep_api.router)
router.include_router(sse.router)
router.include_router(pages.router)


def install(app: FastAPI) -> None:
    """What the live class adds to an app besides its routes: 503 (not 500) when its store is away,
    and the helper the card check route asks what to withhold (``app.state.live_withheld``)."""
    from .checks import withheld
    from .errors import store_unavailable
    from .store import StoreUnavailable

    app.add_exception_handler(StoreUnavailable, store_unavailable)
    app.state.live_withheld = withheld
