"""Pages: the book (chapters, sections), a card alone, the projector view, the jump box and the
glossary. Every page is a pure function of its URL and is rendered once per URL."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response

from ..cards import REGISTRY, Card
from ..chapters import CHAPTERS, cards_in, layout, neighbours, section, section_of
from ..labels import label_to_id, search
from ..text import markdown
from ..text.glossary import Scope
from .cache import LRU
from .lookup import CardRef, query_items
from .query import ParamError, parse_query
from .render import env, fragment_bytes, query_string, render

router = APIRouter()
_pages: LRU[tuple[str, int, dict]] = LRU(2048)  # (path, raw query) → (body, status, headers)
PAGE_CACHE = "public, max-age=300"
EAGER_CARDS = 2


def cached_page(request: Request, make: Callable[[], tuple[str, int, dict]]) -> HTMLResponse:
    """Render a page once per URL; later requests for the same URL reuse the bytes."""
    body, status, headers = _pages.get((request.url.path, request.url.query), make)
    return HTMLResponse(body, status_code=status, headers=headers)


def not_found(what: str) -> HTMLResponse:
    return HTMLResponse(render("error.html", title="找不到", message=what), 404)


def solutions_allowed(request: Request) -> bool:
    """Instructors hide solutions with ?solutions=off on any exercise link (or for the whole
    deployment with AIINFRA_SOLUTIONS=off)."""
    return request.query_params.get("solutions") != "off" and request.app.state.settings.solutions != "off"


@router.get("/jump", response_class=HTMLResponse, include_in_schema=False)
def jump(q: str = "") -> Response:
    """The jump box: a printed label or title words go straight to the card."""
    q = q[:100]
    cid = label_to_id(q)
    if cid:
        return RedirectResponse(f"/cards/{cid}", status_code=303)
    hits = search(q)
    if len(hits) == 1:
        return RedirectResponse(f"/cards/{hits[0]}", status_code=303)
    return HTMLResponse(render("search.html", q=q, hits=hits), 200 if hits else 404)


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def index(request: Request) -> HTMLResponse:
    return cached_page(request, lambda: (render("index.html", cards_in=cards_in), 200, {"Cache-Control": PAGE_CACHE}))


@router.get("/ch/{n}", response_class=HTMLResponse, include_in_schema=False)
def chapter_page(request: Request, n: int) -> HTMLResponse:
    ch = CHAPTERS.get(n)
    if not ch:
        return not_found(f"没有第 {n} 章")
    opener = ch.sections[0]
    return cached_page(
        request,
        lambda: (
            render("chapter.html", chapter=ch, opener=opener, parts=_parts(opener), cards_in=cards_in),
            200,
            {"Cache-Control": PAGE_CACHE},
        ),
    )


@router.get("/ch/{n}/{slug}", response_class=HTMLResponse, include_in_schema=False)
def section_page(request: Request, n: int, slug: str) -> Response:
    sec = section(n, slug)
    if not sec:
        return not_found(f"没有 {n}/{slug} 这一节")
    if sec.key.endswith(".open"):
        return RedirectResponse(f"/ch/{n}", status_code=307)
    ch = CHAPTERS[n]
    i = ch.sections.index(sec)
    prev_s = ch.sections[i - 1] if i > 0 else None
    next_s = ch.sections[i + 1] if i + 1 < len(ch.sections) else None
    return cached_page(
        request,
        lambda: (
            render("section.html", chapter=ch, sec=sec, parts=_parts(sec), prev=prev_s, next=next_s),
            200,
            {"Cache-Control": PAGE_CACHE},
        ),
    )


def _parts(sec: Any) -> list[dict[str, Any]]:
    """Prose and cards in reading order; the first few cards are rendered inline, the rest load
    when scrolled into view."""
    parts: list[dict[str, Any]] = []
    n = 0
    for kind, x in layout(sec):
        if kind == "md":
            parts.append({"kind": "md", "text": x})
            continue
        c = REGISTRY[x]
        p = c.defaults()
        eager = n < EAGER_CARDS
        n += 1
        parts.append(
            {
                "kind": "card",
                "card": c,
                "params": p,
                "eager": eager,
                "fragment": fragment_bytes(c, p)[0].decode() if eager else "",
            }
        )
    return parts


@router.get("/cards/{name}", response_class=HTMLResponse, include_in_schema=False)
def card_page(request: Request, card: CardRef) -> Response:
    return cached_page(request, lambda: _card_page(request, card))


@router.get("/present/{name}", response_class=HTMLResponse, include_in_schema=False)
def present_page(request: Request, card: CardRef) -> Response:
    return cached_page(request, lambda: _card_page(request, card, "present.html"))


def _card_page(request: Request, card: Card, template: str = "card_page.html") -> tuple[str, int, dict]:
    """A card alone (``card_page.html``, or the projector view ``present.html``) in the URL's state;
    a rejected query shows the messages beside the controls and the defaults' result."""
    embed = template == "card_page.html" and request.query_params.get("embed") in ("1", "true")
    solutions = solutions_allowed(request)
    status, errors = 200, []
    try:
        params = parse_query(card, query_items(request))
    except ParamError as e:
        status, errors, params = 422, e.errors, card.defaults()
    frag = fragment_bytes(card, params, solutions=solutions)[0].decode()
    prev_c, next_c = neighbours(card.id)
    body = render(
        template,
        card=card,
        params=params,
        fragment=frag,
        errors=errors,
        raw=dict(query_items(request)),
        embed=embed,
        sec=section_of(card),
        prev=prev_c,
        next=next_c,
        qs=query_string(card, params),
        solutions=solutions,
    )
    headers = {"Cache-Control": PAGE_CACHE}
    if embed:
        headers["X-Frame-Embed"] = "1"  # the security middleware relaxes frame-ancestors for this view
    return body, status, headers


# --------------------------------------------------------------------------- glossary


def marked_in_prose(sec_key: str) -> set[str]:
    """The glossary terms a section's prose marks (and so anchors), exactly as its page renders."""
    from ..chapters import prose

    scope_of = cast(Callable[[str, bool], Scope], env.globals["glossary_scope"])  # Jinja types globals as object
    scope = scope_of("p", True)
    for part in prose(sec_key).split("\n\n"):
        env.filters["gloss"](markdown(part), scope)
    return scope.seen


def glossary_entries() -> list[dict[str, str]]:
    """Every glossary term with its definition and a link to where its section introduces it."""
    from ..chapters.glossary import TERMS

    out = []
    for t in TERMS:
        ch = CHAPTERS[int(t.section.split(".")[0])]
        sec = next(s for s in ch.sections if s.key == t.section)
        in_prose = t.slug in marked_in_prose(sec.key)
        out.append(
            {
                "slug": t.slug,
                "term": t.term,
                "definition": t.definition,
                "section": sec.number or sec.title,
                "section_title": sec.title,
                "url": sec.url + (f"#term-{t.slug}" if in_prose else ""),
            }
        )
    return out


@router.get("/glossary", response_class=HTMLResponse, include_in_schema=False)
def glossary_page(request: Request) -> HTMLResponse:
    """术语表: every term the two chapters introduce, defined, with links back into the sections."""
    return cached_page(
        request, lambda: (render("glossary.html", entries=glossary_entries()), 200, {"Cache-Control": PAGE_CACHE})
    )


@router.get("/glossary.json", tags=["术语"], summary="术语表")
def glossary_json() -> JSONResponse:
    return JSONResponse({"terms": glossary_entries()}, headers={"Cache-Control": PAGE_CACHE})


@router.get("/healthz", include_in_schema=False)
def healthz() -> PlainTextResponse:
    return PlainTextResponse("ok")


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> RedirectResponse:
    return RedirectResponse("/static/favicon.svg", status_code=301)
