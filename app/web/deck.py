"""Lecture decks: ``/present/deck?c=fig-1-11&c=eg-1-1%3Fbatch%3D16&at=2`` walks an instructor's own
order of cards in the projector view. Each ``c`` is one step: a card id (or alias, or printed label)
optionally followed by ``?`` and that step's own query (URL-encoded as a whole); ``at`` is the step
shown (1-based). N/P walk the steps; moving a control rewrites this step's ``c`` in the address bar,
so the link is shareable and every step keeps its state. ``?cards=a,b,c`` is a short form for plain
ids, redirected to the ``c=`` form. A bad step answers a page naming it (404 unknown card, 422 bad
state). The page is a pure function of its URL, like every card page."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ..cards import REGISTRY, Card
from ..chapters import section_of
from ..labels import label_to_id
from ..render import fragment_html, render
from ..state import ParamError, parse_query, query_string
from ..words import words_for
from .responses import PAGE_CACHE, html

W = words_for(__name__)

router = APIRouter()
MAX_STEPS = 60  # a lecture, not a crawl
MAX_ENTRY_LEN = 6300  # one step: an id and its query (a pasted model config is the long case)


@dataclass
class Step:
    card: Card
    params: object
    raw: str  # the step as written in the URL (id?query)


class DeckError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def parse_steps(entries: list[str]) -> list[Step]:
    """Each entry ``id[?query]`` → its card and validated params; the first bad entry raises."""
    if not entries:
        raise DeckError(422, W["parse_steps.deckerror"])
    if len(entries) > MAX_STEPS:
        raise DeckError(422, W.f("parse_steps.deckerror_2", max_steps=MAX_STEPS, len=len(entries)))
    steps = []
    for n, entry in enumerate(entries, 1):
        if len(entry) > MAX_ENTRY_LEN:
            raise DeckError(422, W.f("parse_steps.deckerror_3", n=n, max_entry_len=MAX_ENTRY_LEN))
        name, _, query = entry.partition("?")
        cid = label_to_id(name.strip()) if name.strip() else None
        if cid is None:
            raise DeckError(404, W.f("parse_steps.deckerror_4", n=n, v=name[:60]))
        card = REGISTRY[cid]
        try:
            params = parse_query(card, parse_qsl(query, keep_blank_values=True))
        except ParamError as e:
            raise DeckError(
                422, W.f("parse_steps.deckerror_5", n=n, v=name[:60]) + ";".join(x["msg"] for x in e.errors)
            ) from None
        steps.append(Step(card, params, entry))
    return steps


def step_url(steps: list[Step], at: int) -> str:
    """The deck URL showing step ``at`` (1-based), every step in its canonical state."""
    pairs = [("c", s.card.id + query_string(s.card, s.params)) for s in steps] + [("at", str(at))]
    return "/present/deck?" + urlencode(pairs)


def _at(request: Request, n_steps: int) -> int:
    raw = request.query_params.get("at", "1")
    if not raw.isdigit() or not 1 <= int(raw) <= n_steps:
        raise DeckError(422, W.f("at.deckerror", n_steps=n_steps, v=raw[:20]))
    return int(raw)


def _error_page(e: DeckError) -> HTMLResponse:
    title = W["error_page"] if e.status == 404 else W["error_page_2"]
    return HTMLResponse(
        render("error.html", title=title, message=e.message),
        status_code=e.status,
        headers={"Cache-Control": "no-store"},
    )


@router.get("/present/deck", response_class=HTMLResponse, include_in_schema=False)
def deck(request: Request) -> Response:
    """One step of a lecture deck in the projector view."""
    short = request.query_params.get("cards")
    if short is not None and not request.query_params.getlist("c"):
        entries = [x for x in short.split(",") if x.strip()]
        try:
            steps = parse_steps(entries)
        except DeckError as e:
            return _error_page(e)
        return RedirectResponse(step_url(steps, 1), status_code=307)
    try:
        steps = parse_steps(request.query_params.getlist("c"))
        at = _at(request, len(steps))
    except DeckError as e:
        return _error_page(e)
    step = steps[at - 1]
    card, params = step.card, step.params
    frag = fragment_html(card, params)
    deck_ctx = {
        "at": at,
        "size": len(steps),
        "titles": [s.card.display_title for s in steps],
        "prev": step_url(steps, at - 1) if at > 1 else "",
        "next": step_url(steps, at + 1) if at < len(steps) else "",
    }
    body = render(
        "present.html",
        card=card,
        params=params,
        fragment=frag,
        errors=[],
        raw=None,
        embed=False,
        sec=section_of(card),
        prev=None,
        next=None,
        qs=query_string(card, params),
        solutions=True,
        answers_shown=False,
        deck=deck_ctx,
    )
    return html(body, PAGE_CACHE)
