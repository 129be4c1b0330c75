"""How long a public answer may be kept (``Cache-Control``), written once. Every card representation
is a pure function of its URL; the edge cache (``edge.py``) adds the ETag, answers ``If-None-Match``
and compresses."""

from __future__ import annotations

from fastapi.responses import Response

CARD_CACHE = "public, max-age=86400"  # a card state's fragment, JSON, derivations, figure data
PAGE_CACHE = "public, max-age=300"  # a page: the book's prose may be revised
NO_STORE = "no-store"  # answers that depend on more than the URL (checks, the live class)


def public(
    body: str | bytes, media_type: str, cache: str = CARD_CACHE, status: int = 200, headers: dict | None = None
) -> Response:
    """A public answer of ``media_type`` that any cache may keep for as long as ``cache`` says."""
    return Response(
        body, status_code=status, media_type=media_type, headers={"Cache-Control": cache, **(headers or {})}
    )


def html(body: str, cache: str = CARD_CACHE, status: int = 200, headers: dict | None = None) -> Response:
    return public(body, "text/html; charset=utf-8", cache, status, headers)
