"""Tool pages outside the chapters (``/tools/{slug}``): an intro in our own words, then the tool's card,
rendered eagerly in the query's state (a rejected query shows its messages beside the controls). No math here."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response

from ..cards import REGISTRY, Card
from ..chapters.tools import TOOLS, tool_intro
from ..render import Reading, fragment_html, render
from ..state import ParamError, parse_query
from ..words import words_for
from .pages import not_found
from .responses import PAGE_CACHE, html

W = words_for(__name__)

router = APIRouter()


def tool_card(slug: str) -> Card | None:
    """The card of tool page ``slug`` (one lookup for the route), None when there is no such page."""
    cid = TOOLS.get(slug)
    return REGISTRY.get(cid) if cid else None


ToolCard = Annotated[Card | None, Depends(tool_card)]


@router.get("/tools/{slug}", response_class=HTMLResponse, include_in_schema=False)
def tool_page(request: Request, slug: str, card: ToolCard) -> Response:
    if card is None:
        return not_found(W.f("tool_page.not_found", slug=slug))
    items = list(request.query_params.multi_items())
    status, errors = 200, []
    try:
        params = parse_query(card, items)
    except ParamError as e:
        status, errors, params = 422, e.errors, card.defaults()
    body = render(
        "tool.html",
        card=card,
        params=params,
        fragment=fragment_html(card, params, Reading(prose=True)),  # its intro quotes the card
        errors=errors,
        raw=dict(items),
        intro=tool_intro(slug),
        request_path=f"/tools/{slug}",
    )
    return html(body, PAGE_CACHE, status)
