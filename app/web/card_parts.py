"""The parts of a card a page loads by itself: its result fragment (what htmx swaps in as a
slider moves), its derivations (what a tile expands into) and the data of each figure. All are
pure functions of their URL: cached, ``Cache-Control`` public, the fragment with a weak ETag."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response

from .cache import LRU
from .lookup import CardRef, StateRef, state_of
from .pages import solutions_allowed
from .render import compute, explain_bytes, figure_csv, figure_rows, fragment_bytes, render

router = APIRouter(include_in_schema=False)
_by_url: LRU[tuple[bytes, str]] = LRU(8192)  # (card, raw query, solutions) → (fragment bytes, ETag)
FRAGMENT_CACHE = "public, max-age=86400"


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """``If-None-Match`` by the weak comparison (RFC 9110 13.1.2): ``*``, or any listed tag equal to
    ours once ``W/`` is dropped."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    ours = etag.removeprefix("W/")
    return any(t.strip().removeprefix("W/") == ours for t in if_none_match.split(","))


@router.get("/cards/{name}/fragment", response_class=HTMLResponse)
def card_fragment(request: Request, card: CardRef) -> Response:
    solutions = solutions_allowed(request)
    key = (card.id, request.url.query, solutions)
    hit = _by_url.peek(key)
    if hit is None:  # a URL seen before skips parsing too: fragments are pure functions of the URL
        params = state_of(card, request)
        hit = _by_url.get(key, lambda: fragment_bytes(card, params, solutions=solutions))
    body, etag = hit
    etag = "W/" + etag  # weak: the gzip and identity bytes of one fragment are the same representation
    headers = {"ETag": etag, "Cache-Control": FRAGMENT_CACHE, "Vary": "Accept-Encoding"}
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="text/html; charset=utf-8", headers=headers)


@router.get("/cards/{name}/explain", response_class=HTMLResponse)
def card_explain(card: CardRef, params: StateRef) -> Response:
    """Every derivation of the card in the URL's state: what a tile expands into (loaded on
    demand, so dragging a slider never pays for it)."""
    return Response(
        explain_bytes(card, params), media_type="text/html; charset=utf-8", headers={"Cache-Control": FRAGMENT_CACHE}
    )


@router.get("/cards/{name}/figure/{idx}.{ext}")
def figure_data(card: CardRef, params: StateRef, idx: int, ext: str) -> Response:
    """The data of figure ``idx`` exactly as plotted: ``.csv`` to download, ``.html`` for the
    table alternative that opens under the chart."""
    view = compute(card, params)
    if not 0 <= idx < len(view.figures) or ext not in ("csv", "html"):
        return PlainTextResponse("no such figure", 404)
    if ext == "html":
        cols, rows = figure_rows(view.figures[idx])
        return HTMLResponse(
            render("_figtable.html", cols=cols, rows=rows, title=view.figures[idx].title),
            headers={"Cache-Control": FRAGMENT_CACHE},
        )
    return Response(
        figure_csv(view.figures[idx]),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{card.id}-fig{idx + 1}.csv"'},
    )
