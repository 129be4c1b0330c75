"""What a live route answers when the store cannot (Redis down or hung, SQLite locked): 503 with the
app's one error shape and a Retry-After, within STORE_TIMEOUT_S, never a 500 or a reset connection.
Pages get the same as a short HTML page."""

from __future__ import annotations

import logging

from fastapi import Request
from fastapi.responses import HTMLResponse, Response

from ..errors import error_item, error_response
from ..render import render
from ..words import words_for
from .limits import STORE_RETRY_AFTER_S
from .store import StoreUnavailable

W = words_for(__name__)

log = logging.getLogger("aiinfra.live")
MESSAGE = W["message"]


async def store_unavailable(request: Request, exc: Exception) -> Response:
    log.warning("live store unavailable on %s %s: %s", request.method, request.url.path, exc)
    headers = {"Retry-After": str(STORE_RETRY_AFTER_S), "Cache-Control": "no-store"}
    if request.url.path.startswith("/api/"):
        item = error_item("store", f"store:{MESSAGE}", "unavailable", ["store"])
        return error_response(503, [item], headers=headers)
    html = render("live/join.html", message=MESSAGE + W["store_unavailable.message"], code="")
    return HTMLResponse(html, status_code=503, headers=headers)


__all__ = ["StoreUnavailable", "store_unavailable"]
