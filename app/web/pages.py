"""Pages of the book: the table of contents, chapters, sections, the jump box and the glossary. Every
page is a pure function of its URL (the edge cache keeps it). A card alone and the projector view are
card representations (``card_views.py``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response

from ..cards import REGISTRY
from ..chapters import CHAPTERS, Section, cards_in, layout, section
from ..labels import label_to_id, search
from ..render import Reading, fragment_html, render
from ..render.env import gloss, glossary_scope
from ..text import markdown
from ..words import current_lang, localize, words_for
from .responses import PAGE_CACHE, html

W = words_for(__name__)

router = APIRouter()
EAGER_CARDS = 2  # the first cards of a section arrive with the page; the rest load as they scroll in


def not_found(what: str) -> HTMLResponse:
    return HTMLResponse(render("error.html", title=W["not_found.title"], message=what), 404)


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
def index() -> Response:
    return html(render("index.html", cards_in=cards_in), PAGE_CACHE)


@router.get("/ch/{n}", response_class=HTMLResponse, include_in_schema=False)
def chapter_page(n: int) -> Response:
    ch = CHAPTERS.get(n)
    if not ch:
        return not_found(W.f("chapter_page.not_found", n=n))
    opener = ch.sections[0]
    body = render("chapter.html", chapter=ch, opener=opener, parts=_parts(opener), cards_in=cards_in)
    return html(body, PAGE_CACHE)


@router.get("/ch/{n}/{slug}", response_class=HTMLResponse, include_in_schema=False)
def section_page(n: int, slug: str) -> Response:
    sec = section(n, slug)
    if not sec:
        return not_found(W.f("section_page.not_found", n=n, slug=slug))
    if sec.key.endswith(".open"):
        return RedirectResponse(f"/ch/{n}", status_code=307)
    ch = CHAPTERS[n]
    i = ch.sections.index(sec)
    prev_s = ch.sections[i - 1] if i > 0 else None
    next_s = ch.sections[i + 1] if i + 1 < len(ch.sections) else None
    return html(render("section.html", chapter=ch, sec=sec, parts=_parts(sec), prev=prev_s, next=next_s), PAGE_CACHE)


QUOTED = Reading(prose=True)  # a page whose prose quotes its cards


def _parts(sec: Section) -> list[dict[str, Any]]:
    """Prose and cards in reading order; the first few cards are rendered inline (with the values
    the prose quotes from them), the rest load when scrolled into view."""
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
                "fragment": fragment_html(c, p, QUOTED) if eager else "",
            }
        )
    return parts


# --------------------------------------------------------------------------- glossary


def marked_in_prose(sec_key: str) -> set[str]:
    """The glossary terms a section's prose marks (and so anchors), exactly as its page renders."""
    from ..chapters import prose

    scope = glossary_scope("p", True)
    for part in prose(sec_key).split("\n\n"):
        gloss(markdown(part), scope)
    return scope.seen


def glossary_entries() -> list[dict[str, Any]]:
    """Every glossary term with its definition and a link to where its section introduces it."""
    from ..chapters.glossary import names, terms_in

    out = []
    for t in terms_in(current_lang()):
        ch = CHAPTERS[int(t.section.split(".")[0])]
        sec = next(s for s in ch.sections if s.key == t.section)
        in_prose = t.slug in marked_in_prose(sec.key)
        out.append(
            {
                "slug": t.slug,
                "term": str(t.term),
                "names": names(t.slug),
                "definition": str(t.definition),
                "section": str(localize(sec.number or sec.title)),
                "section_title": str(localize(sec.title)),
                "url": sec.url + (f"#term-{t.slug}" if in_prose else ""),
            }
        )
    return out


@router.get("/glossary", response_class=HTMLResponse, include_in_schema=False)
def glossary_page() -> Response:
    """术语表: every term the two chapters introduce, defined, with links back into the sections."""
    return html(render("glossary.html", entries=glossary_entries()), PAGE_CACHE)


@router.get("/glossary.json", tags=[W["glossary_json.tags"]], summary=W["glossary_json.summary"])
def glossary_json() -> JSONResponse:
    return JSONResponse({"terms": glossary_entries()}, headers={"Cache-Control": PAGE_CACHE})


@router.get("/healthz", include_in_schema=False)
async def healthz() -> PlainTextResponse:
    return PlainTextResponse("ok")


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> RedirectResponse:
    return RedirectResponse("/static/favicon.svg", status_code=301)
