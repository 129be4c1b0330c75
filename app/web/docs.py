"""``/docs``: Swagger UI served from ``static/vendor/swagger-ui/`` (npm ``swagger-ui-dist``, copied at
set-up) and started by a same-origin script, so it works offline and under the strict CSP (FastAPI's
default page loads Swagger UI from a CDN and starts it with an inline script). ``/redoc`` is off."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from ..render import render

router = APIRouter()


@router.get("/docs", response_class=HTMLResponse, include_in_schema=False)
def docs() -> HTMLResponse:
    """Every card's operation, from ``/openapi.json``."""
    return HTMLResponse(render("docs.html", spec="/openapi.json"), headers={"Cache-Control": "public, max-age=300"})
