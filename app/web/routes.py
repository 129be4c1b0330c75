"""Routes. Each looks a card up, validates the query with the card's Params, asks the engine for a
view and renders it. No math here."""
from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from pydantic import BaseModel

from ..cards import REGISTRY, Card, resolve
from ..chapters import CHAPTERS, cards_in, layout, neighbours, section, section_of
from .query import ParamError, parse_query
from .render import compute, figure_csv, fragment_bytes, outputs_json, query_string, render, view_context

router = APIRouter()
FRAGMENT_CACHE = "public, max-age=86400"
PAGE_CACHE = "public, max-age=300"


def html(body: str, status: int = 200, headers: dict | None = None) -> HTMLResponse:
    return HTMLResponse(body, status_code=status, headers=headers)


def not_found(what: str) -> HTMLResponse:
    return html(render("error.html", title="找不到", message=what), 404)


def _items(request: Request) -> list[tuple[str, str]]:
    return list(request.query_params.multi_items())


def _redirect_alias(request: Request, name: str, suffix: str = "") -> Response | None:
    cid = resolve(name)
    if cid is None or cid == name:
        return None
    q = request.url.query
    base = request.url.path.replace(f"/{name}", f"/{cid}", 1)
    return RedirectResponse(base + (f"?{q}" if q else ""), status_code=307)


# --------------------------------------------------------------------------- pages

@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def index() -> HTMLResponse:
    return html(render("index.html", cards_in=cards_in), headers={"Cache-Control": PAGE_CACHE})


@router.get("/ch/{n}", response_class=HTMLResponse, include_in_schema=False)
def chapter_page(n: int) -> HTMLResponse:
    ch = CHAPTERS.get(n)
    if not ch:
        return not_found(f"没有第 {n} 章")
    opener = ch.sections[0]
    return html(render("chapter.html", chapter=ch, opener=opener, parts=_parts(opener), cards_in=cards_in),
                headers={"Cache-Control": PAGE_CACHE})


@router.get("/ch/{n}/{slug}", response_class=HTMLResponse, include_in_schema=False)
def section_page(n: int, slug: str) -> HTMLResponse:
    sec = section(n, slug)
    if not sec:
        return not_found(f"没有 {n}/{slug} 这一节")
    if sec.key.endswith(".open"):
        return RedirectResponse(f"/ch/{n}", status_code=307)
    ch = CHAPTERS[n]
    i = ch.sections.index(sec)
    prev_s = ch.sections[i - 1] if i > 0 else None
    next_s = ch.sections[i + 1] if i + 1 < len(ch.sections) else None
    return html(render("section.html", chapter=ch, sec=sec, parts=_parts(sec), prev=prev_s, next=next_s),
                headers={"Cache-Control": PAGE_CACHE})


EAGER_CARDS = 2


def _parts(sec) -> list[dict[str, Any]]:
    """Prose and cards in reading order; the first few cards are rendered inline, the rest load
    when scrolled into view."""
    parts, n = [], 0
    for kind, x in layout(sec):
        if kind == "md":
            parts.append({"kind": "md", "text": x})
        else:
            c = REGISTRY[x]
            p = c.defaults()
            eager = n < EAGER_CARDS
            n += 1
            parts.append({"kind": "card", "card": c, "params": p, "eager": eager,
                          "fragment": fragment_bytes(c, p)[0].decode() if eager else ""})
    return parts


@router.get("/cards/{name}", response_class=HTMLResponse, include_in_schema=False)
def card_page(request: Request, name: str) -> Response:
    if (r := _redirect_alias(request, name)) is not None:
        return r
    card = REGISTRY.get(name)
    if card is None:
        return not_found(f"没有编号为 “{name}” 的卡片")
    embed = request.query_params.get("embed") in ("1", "true")
    solutions = request.query_params.get("solutions") != "off"
    status, errors = 200, []
    try:
        params = parse_query(card, _items(request))
    except ParamError as e:
        status, errors, params = 422, e.errors, card.defaults()
    frag = fragment_bytes(card, params, solutions=solutions)[0].decode()
    prev_c, next_c = neighbours(card.id)
    body = render("card_page.html", card=card, params=params, fragment=frag, errors=errors,
                  raw=dict(_items(request)), embed=embed, sec=section_of(card), prev=prev_c, next=next_c,
                  qs=query_string(card, params), solutions=solutions)
    headers = {"Cache-Control": PAGE_CACHE}
    if embed:
        headers["X-Frame-Embed"] = "1"   # the security middleware relaxes frame-ancestors for this view
    return html(body, status, headers)


@router.get("/present/{name}", response_class=HTMLResponse, include_in_schema=False)
def present_page(request: Request, name: str) -> Response:
    if (r := _redirect_alias(request, name)) is not None:
        return r
    card = REGISTRY.get(name)
    if card is None:
        return not_found(f"没有编号为 “{name}” 的卡片")
    status, errors = 200, []
    try:
        params = parse_query(card, _items(request))
    except ParamError as e:
        status, errors, params = 422, e.errors, card.defaults()
    frag = fragment_bytes(card, params)[0].decode()
    prev_c, next_c = neighbours(card.id)
    return html(render("present.html", card=card, params=params, fragment=frag, errors=errors,
                       raw=dict(_items(request)), prev=prev_c, next=next_c, qs=query_string(card, params),
                       sec=section_of(card), solutions=True), status)


@router.get("/cards/{name}/fragment", response_class=HTMLResponse, include_in_schema=False)
def card_fragment(request: Request, name: str) -> Response:
    if (r := _redirect_alias(request, name)) is not None:
        return r
    card = REGISTRY.get(name)
    if card is None:
        return not_found(f"没有编号为 “{name}” 的卡片")
    try:
        params = parse_query(card, _items(request))
    except ParamError as e:
        return html(render("_errors.html", card=card, errors=e.errors), 422)
    solutions = request.query_params.get("solutions") != "off"
    body, etag = fragment_bytes(card, params, solutions=solutions)
    headers = {"ETag": etag, "Cache-Control": FRAGMENT_CACHE, "Vary": "Accept-Encoding"}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="text/html; charset=utf-8", headers=headers)


@router.get("/cards/{name}/figure/{idx}.csv", include_in_schema=False)
def figure_data(request: Request, name: str, idx: int) -> Response:
    if (r := _redirect_alias(request, name)) is not None:
        return r
    card = REGISTRY.get(name)
    if card is None:
        return PlainTextResponse("no such card", 404)
    try:
        params = parse_query(card, _items(request))
    except ParamError as e:
        return JSONResponse({"detail": e.errors}, 422)
    view = compute(card, params)
    if not 0 <= idx < len(view.figures):
        return PlainTextResponse("no such figure", 404)
    return Response(figure_csv(view.figures[idx]), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{card.id}-fig{idx + 1}.csv"'})


# --------------------------------------------------------------------------- JSON API

class CardInfo(BaseModel):
    id: str
    title: str
    label: str
    section: str
    kind: str
    aliases: list[str]
    url: str
    api: str


class CardList(BaseModel):
    cards: list[CardInfo]


class CardResult(BaseModel):
    card: str
    params: dict[str, Any]
    outputs: dict[str, Any]
    questions: list[dict[str, Any]] | None = None


class ErrorItem(BaseModel):
    loc: list[str]
    field: str
    type: str
    msg: str
    input: str | None = None


class ErrorBody(BaseModel):
    detail: list[ErrorItem]


@router.get("/api/cards", response_model=CardList, tags=["cards"], summary="所有卡片")
def api_cards() -> dict:
    from ..chapters import reading_order
    order = reading_order()
    return {"cards": [
        {"id": c.id, "title": c.title, "label": c.label, "section": c.section, "kind": c.kind,
         "aliases": list(c.aliases), "url": f"/cards/{c.id}", "api": f"/api/cards/{c.id}"}
        for c in (REGISTRY[i] for i in order)]}


def card_json(card: Card, params) -> dict:
    view = compute(card, params)
    out: dict[str, Any] = {"card": card.id, "params": params.model_dump(mode="json"), "outputs": outputs_json(view)}
    if view.questions:
        out["questions"] = [{"key": q.key, "prompt": q.prompt, "unit": q.unit, "kind": q.kind} for q in view.questions]
    return out


def _openapi_params(card: Card) -> list[dict]:
    schema = card.params.model_json_schema()
    props = schema.get("properties", {})
    out = []
    for name, prop in props.items():
        p = {k: v for k, v in prop.items() if k not in ("title", "control", "step", "unit", "label", "log",
                                                     "illustrative", "placeholder", "options", "item_ge", "item_le")}
        param = {"name": name, "in": "query", "required": False, "schema": p,
                 "description": prop.get("description", "") + (f"(单位 {prop['unit']})" if prop.get("unit") else "")}
        if p.get("type") == "array":
            param.update({"style": "form", "explode": True})
        out.append(param)
    return out


def _api_endpoint(card: Card):
    def endpoint(request: Request) -> Response:
        try:
            params = parse_query(card, _items(request))
        except ParamError as e:
            return JSONResponse({"detail": e.errors}, 422)
        body = json.dumps(card_json(card, params), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return Response(body, media_type="application/json", headers={"Cache-Control": FRAGMENT_CACHE})
    endpoint.__name__ = "card_" + card.id.replace("-", "_")
    return endpoint


def register_card_routes(app: FastAPI) -> None:
    """One OpenAPI route per card so /docs documents every parameter; plus alias redirects."""
    for cid in sorted(REGISTRY):
        card = REGISTRY[cid]
        app.add_api_route(
            f"/api/cards/{cid}", _api_endpoint(card), methods=["GET"], tags=[f"第 {card.chapter} 章"],
            summary=card.display_title, response_model=CardResult,
            responses={422: {"model": ErrorBody, "description": "参数超出范围或格式不对"}},
            openapi_extra={"parameters": _openapi_params(card)})

    @app.get("/api/cards/{name}", include_in_schema=False)
    def api_alias(request: Request, name: str) -> Response:
        if (r := _redirect_alias(request, name)) is not None:
            return r
        return JSONResponse({"detail": [{"loc": ["path", "name"], "field": "name", "type": "not_found",
                                         "msg": f"没有编号为 {name} 的卡片"}]}, 404)


@router.get("/healthz", include_in_schema=False)
def healthz() -> PlainTextResponse:
    return PlainTextResponse("ok")


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> RedirectResponse:
    return RedirectResponse("/static/favicon.svg", status_code=301)
