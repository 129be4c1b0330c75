"""Bench-only routes (mounted only when AIINFRA_BENCH=1): the app's own stack — the same server
stack returning precomputed bytes of a given size, with the same headers a fragment gets."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

router = APIRouter(include_in_schema=False)
_BODIES: dict[int, bytes] = {}


@router.get("/bench/ceiling")
def ceiling(size: int = 20000) -> Response:
    size = max(1, min(size, 2_000_000))
    body = _BODIES.get(size)
    if body is None:
        body = _BODIES[size] = (b"<p>" + b"x" * size)[:size]
    return Response(
        body,
        media_type="text/html; charset=utf-8",
        headers={"Cache-Control": "private, max-age=0"},  # GZip, in front of what the edge passes by, adds Vary
    )  # past the edge cache
