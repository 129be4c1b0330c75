"""The one way a route finds its card and its state. A card URL names three things, looked up in
this order: the card (an id; an alias or printed label redirects to the canonical id, keeping the
query; anything else is a 404), its state (the query validated by the card's Params; a rejected
query is a field-named 422) and how it is shown (the view flags). ``StateRef`` gives a route all
three (:class:`CardState`), ``CardRef`` the card alone. Each is one dependency: FastAPI's work per
dependency is a few per cent of a new state, so a card URL is looked up by one. The dependencies
are coroutines: they run on the event loop (a sync dependency costs a thread hop each). The
exception handlers here answer in the route's own language: JSON under ``/api/``, a plain line for
figure data, an HTML page or fragment elsewhere."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated
from urllib.parse import unquote

from fastapi import Depends, FastAPI, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response

from ..cards import REGISTRY, Card, Params, resolve
from ..errors import error_item, error_response
from ..labels import label_to_id
from ..render import Reading, render
from ..state import ParamError, parse_query
from ..words import words_for

W = words_for(__name__)


class AliasRedirect(Exception):
    def __init__(self, url: str):
        self.url = url


class CardMissing(Exception):
    def __init__(self, name: str):
        self.name = name


class StateRejected(Exception):
    def __init__(self, card: Card, errors: list[dict]):
        self.card, self.errors = card, errors


def query_items(request: Request) -> list[tuple[str, str]]:
    """The query's key/value pairs in order (repeated keys kept: list parameters)."""
    return list(request.query_params.multi_items())


def _swap_name(path: str, name: str, cid: str) -> str:
    """Replace the card segment of ``path`` (which may be percent-encoded) with ``cid``."""
    parts = path.split("/")
    for i, seg in enumerate(parts):
        if unquote(seg) == name:
            parts[i] = cid
            break
    return "/".join(parts)


def card_named(name: str, request: Request) -> Card:
    """The card a path names: by id, else redirected from an alias or printed label."""
    card = REGISTRY.get(name)
    if card is not None:
        return card
    cid = resolve(name) or label_to_id(name)
    if cid is not None and cid != name:
        q = request.url.query
        raise AliasRedirect(_swap_name(request.url.path, name, cid) + (f"?{q}" if q else ""))
    raise CardMissing(name)


def state_of(card: Card, request: Request) -> Params:
    """The card's state from the query (unknown keys ignored, known ones validated)."""
    try:
        return parse_query(card, [(k, v) for k, v in query_items(request) if k != "key"])
    except ParamError as e:
        raise StateRejected(card, e.errors) from None


def reading_of(request: Request) -> Reading:
    """How the URL asks the card to be shown: ``solutions=off`` (or the deployment's setting) hides
    worked solutions; each ``hide=<output>`` holds that output's value back (a live question's);
    ``answers=shown`` shows every answer, ``reveal=<output>`` the ones a reader has tried; ``prose=1``
    adds the values a page's prose quotes from the card."""
    q = request.query_params
    solutions = q.get("solutions") != "off" and request.app.state.settings.solutions != "off"
    return Reading(
        solutions=solutions,
        hide=frozenset(q.getlist("hide")),
        answers_shown=q.get("answers") == "shown",
        revealed=frozenset(q.getlist("reveal")),
        prose=q.get("prose") == "1",
    )


@dataclass(frozen=True)
class CardState:
    """What a card URL names: the card, its state and how it is shown."""

    card: Card
    params: Params
    reading: Reading


async def _card(name: str, request: Request) -> Card:
    return card_named(name, request)


async def _card_state(name: str, request: Request) -> CardState:
    card = card_named(name, request)
    return CardState(card, state_of(card, request), reading_of(request))


CardRef = Annotated[Card, Depends(_card)]
StateRef = Annotated[CardState, Depends(_card_state)]


def _speaks_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _figure_data(request: Request) -> bool:
    return "/figure/" in request.url.path


async def _redirect(request: Request, exc: AliasRedirect) -> Response:
    return RedirectResponse(exc.url, status_code=307)


async def _missing(request: Request, exc: CardMissing) -> Response:
    if _speaks_json(request):
        return error_response(
            404, [error_item("name", W.f("missing.msg", name=exc.name), "not_found", ["path", "name"])]
        )
    if _figure_data(request):
        return PlainTextResponse("no such card", 404)
    return HTMLResponse(
        render("error.html", title=W["missing.title"], message=W.f("missing.message", name=exc.name)), 404
    )


def install(app: FastAPI) -> None:
    """Register the handlers that turn lookups into redirects, 404s and 422s."""
    app.add_exception_handler(AliasRedirect, _redirect)  # type: ignore[arg-type]
    app.add_exception_handler(CardMissing, _missing)  # type: ignore[arg-type]
