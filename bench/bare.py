"""The bare limit for ``make bench``: a minimal FastAPI app whose one ``async def`` route returns
precomputed bytes of a card fragment's size (``BARE_SIZE``), with no middleware. The app's own
fragment route is measured against this, with the same workers and clients, so the ratio shows what
the app's stack costs. Run: ``BARE_SIZE=10500 uvicorn bench.bare:app --workers 2``."""

from __future__ import annotations

import os

from fastapi import FastAPI
from fastapi.responses import Response

SIZE = max(1, min(int(os.environ.get("BARE_SIZE", "10500")), 2_000_000))
BODY = (b"<p>" + b"x" * SIZE)[:SIZE]

app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)


@app.get("/bare")
async def bare() -> Response:
    return Response(BODY, media_type="text/html; charset=utf-8")


@app.get("/healthz")
async def healthz() -> Response:
    return Response(b"ok", media_type="text/plain")
