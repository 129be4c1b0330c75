"""The fragment lane: what a dragged slider asks for (``GET /cards/{id}/fragment?…``) is answered
straight from the ASGI call, without the router, the dependency machinery or a thread hop: the same
three steps the route takes (validate the query with the card's Params, render or reuse the
fragment for that state, send it with its weak ETag), so a never-seen state costs its rendering
and little else. Anything else (an alias, an unknown card, a rejected query, a conditional
request) goes on to the route, which answers it as always."""

from __future__ import annotations

from urllib.parse import parse_qsl

from ..cards import REGISTRY
from .query import ParamError, parse_query
from .render import fragment_bytes

FRAGMENT_CACHE = b"public, max-age=86400"
PREFIX, SUFFIX = "/cards/", "/fragment"


class FragmentLane:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "")
        if (
            scope["type"] != "http"
            or scope["method"] != "GET"
            or not path.startswith(PREFIX)
            or not path.endswith(SUFFIX)
        ):
            return await self.app(scope, receive, send)
        card = REGISTRY.get(path[len(PREFIX) : -len(SUFFIX)])
        headers = dict(scope.get("headers") or [])
        if card is None or b"if-none-match" in headers:
            return await self.app(scope, receive, send)
        items = query_items(scope.get("query_string", b""))
        try:
            params = parse_query(card, items)
        except ParamError:
            return await self.app(scope, receive, send)
        solutions = dict(items).get("solutions") != "off" and scope["app"].state.settings.solutions != "off"
        body, etag = fragment_bytes(card, params, solutions=solutions)
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/html; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"etag", b"W/" + etag.encode()),
                    (b"cache-control", FRAGMENT_CACHE),
                    (b"vary", b"Accept-Encoding"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def query_items(raw: bytes) -> list[tuple[str, str]]:
    """The query's pairs as Starlette decodes ``request.query_params`` (parse_qsl, blanks kept), so
    the lane and the route agree. A query without escapes (``%``, ``+``), as sliders send, is split
    directly: the same pairs without parse_qsl's per-pair unquoting."""
    qs = raw.decode("latin-1")
    if "%" in qs or "+" in qs:
        return parse_qsl(qs, keep_blank_values=True)
    return [(name, value) for name, _, value in (pair.partition("=") for pair in qs.split("&") if pair)]
