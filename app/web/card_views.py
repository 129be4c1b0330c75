"""Every representation of a card, one route each, all by the same steps: the card from the path, its
state from the query and how it is shown (``StateRef``: one lookup, :mod:`.lookup`), then compute and
render. The page alone (``/cards/{id}``) and the projector view (``/present/{id}``), the result
fragment htmx swaps in, the derivations a tile expands into, and each figure's data as CSV or a table.
(The JSON answer is one typed operation per card: ``api.py``.) A rejected state is a field-named 422:
on a page, the messages beside the controls and the defaults' result. Routes are coroutines: rendering
is CPU work that a thread would not speed up, and each hop to a thread costs more than most renders."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import PlainTextResponse, Response

from ..cards import Card, Params, run
from ..chapters import neighbours, section_of
from ..errors import error_response
from ..render import Reading, explain_html, figure_csv, figure_rows, fragment_html, render
from ..state import query_string
from .lookup import StateRef, StateRejected, query_items, reading_of
from .responses import PAGE_CACHE, html, public

router = APIRouter(include_in_schema=False)


def page(
    request: Request, card: Card, params: Params, reading: Reading, errors: list[dict] | None = None, status: int = 200
) -> Response:
    """A card alone (``card_page.html``) or its projector view (``present.html``) in a state."""
    present = request.url.path.startswith("/present/")
    embed = not present and request.query_params.get("embed") in ("1", "true")
    prev_c, next_c = neighbours(card.id)
    body = render(
        "present.html" if present else "card_page.html",
        card=card,
        params=params,
        fragment=fragment_html(card, params, reading),
        errors=errors or [],
        raw=dict(query_items(request)),
        embed=embed,
        sec=section_of(card),
        prev=prev_c,
        next=next_c,
        qs=query_string(card, params),
        solutions=reading.solutions,
        answers_shown=reading.answers_shown,
    )
    extra = {"X-Frame-Embed": "1"} if embed else {}  # the security middleware relaxes framing for this view
    return html(body, PAGE_CACHE, status, extra)


@router.get("/cards/{name}")
async def card_page(request: Request, at: StateRef) -> Response:
    return page(request, at.card, at.params, at.reading)


@router.get("/present/{name}")
async def present_page(request: Request, at: StateRef) -> Response:
    return page(request, at.card, at.params, at.reading)


@router.get("/cards/{name}/fragment")
async def card_fragment(at: StateRef) -> Response:
    """The card's result at this state: what a slider's move swaps in. ``X-Card-Query`` names the state
    canonically (only what differs from the defaults): the address bar and the card's links take it."""
    card, params = at.card, at.params
    return html(fragment_html(card, params, at.reading), headers={"X-Card-Query": query_string(card, params)[1:]})


@router.get("/cards/{name}/explain")
async def card_explain(at: StateRef) -> Response:
    """Every derivation of the card in the URL's state: what a tile expands into (loaded on
    demand, so dragging a slider never pays for it)."""
    return html(explain_html(at.card, at.params, at.reading))


@router.get("/cards/{name}/figure/{idx}.{ext}")
async def figure_data(at: StateRef, idx: int, ext: str) -> Response:
    """The data of figure ``idx`` exactly as plotted: ``.csv`` to download, ``.html`` for the
    table alternative that opens under the chart."""
    card = at.card
    view = run(card, at.params)
    if not 0 <= idx < len(view.figures) or ext not in ("csv", "html"):
        return PlainTextResponse("no such figure", 404)
    f = view.figures[idx]
    if ext == "html":
        cols, rows = figure_rows(f)
        return html(render("_figtable.html", cols=cols, rows=rows, title=f.title))
    name = f"{card.id}-fig{idx + 1}.csv"
    return public(
        figure_csv(f), "text/csv; charset=utf-8", headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


async def _rejected(request: Request, exc: StateRejected) -> Response:
    """A rejected state in the route's own language: JSON under /api/ and for figure data, the whole
    page with the messages beside its controls for a card page, the messages alone for a fragment."""
    path = request.url.path
    if path.startswith("/api/") or "/figure/" in path:
        return error_response(422, exc.errors)
    if path.count("/") == 2:  # /cards/{id} or /present/{id}: the page itself
        return page(request, exc.card, exc.card.defaults(), reading_of(request), exc.errors, 422)
    return html(render("_errors.html", card=exc.card, errors=exc.errors), "no-store", 422)


def install(app: FastAPI) -> None:
    """The card views and the answer to a rejected state."""
    app.include_router(router)
    app.add_exception_handler(StateRejected, _rejected)  # type: ignore[arg-type]
