"""The live class (issue 16): the projector leads, phones follow, the class predicts, votes and sees
its answers. Stateful, and kept apart from the pure card routes: its own routes, one storage
interface (SQLite by default, Redis for several processes), SSE fan-out through one hub per process."""

from __future__ import annotations

from fastapi import APIRouter

from . import api, pages, sse

router = APIRouter()
router.include_router(api.router)
router.include_router(sse.router)
router.include_router(pages.router)
