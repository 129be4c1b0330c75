"""Routes. Each looks a card up, validates the query with the card's Params, asks the engine for a
view and renders it. No math here."""
from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from .. import exercises

from ..cards import REGISTRY, Card, resolve
from ..labels import label_to_id, search
from ..text import markdown
from ..chapters import CHAPTERS, cards_in, layout, neighbours, section, section_of
from .query import ParamError, parse_query, validate
from .render import (LRU, cached_json, compute, explain_bytes, figure_csv, figure_rows, fragment_bytes, outputs_json,
                     query_string, render, view_context)
from ..cards import explain

router = APIRouter()
_by_url = LRU(8192)   # (card, raw query, solutions) → (fragment bytes, ETag)
_pages = LRU(2048)    # (path, raw query) → (body, status, headers): pages are pure functions of the URL too


def cached_page(request: Request, make) -> HTMLResponse:
    """Render a page once per URL; later requests for the same URL reuse the bytes."""
    body, status, headers = _pages.get((request.url.path, request.url.query), make)
    return HTMLResponse(body, status_code=status, headers=headers)
FRAGMENT_CACHE = "public, max-age=86400"
PAGE_CACHE = "public, max-age=300"


def html(body: str, status: int = 200, headers: dict | None = None) -> HTMLResponse:
    return HTMLResponse(body, status_code=status, headers=headers)


def not_found(what: str) -> HTMLResponse:
    return html(render("error.html", title="找不到", message=what), 404)


def _items(request: Request) -> list[tuple[str, str]]:
    return list(request.query_params.multi_items())


def _redirect_alias(request: Request, name: str, suffix: str = "") -> Response | None:
    cid = resolve(name) or label_to_id(name)
    if cid is None or cid == name:
        return None
    q = request.url.query
    base = _swap_name(request.url.path, name, cid)
    return RedirectResponse(base + (f"?{q}" if q else ""), status_code=307)


def _swap_name(path: str, name: str, cid: str) -> str:
    """Replace the card segment of ``path`` (which may be percent-encoded) with ``cid``."""
    from urllib.parse import quote, unquote
    parts = path.split("/")
    for i, seg in enumerate(parts):
        if unquote(seg) == name:
            parts[i] = cid
            break
    return "/".join(parts)


# --------------------------------------------------------------------------- pages


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
    return html(render("search.html", q=q, hits=hits), 200 if hits else 404)

def marked_in_prose(sec_key: str) -> set[str]:
    """The glossary terms a section's prose marks (and so anchors), exactly as its page renders."""
    from ..chapters import prose
    from .render import env
    scope = env.globals["glossary_scope"]("p", True)
    for part in prose(sec_key).split("\n\n"):
        env.filters["gloss"](markdown(part), scope)
    return scope.seen


def glossary_entries() -> list[dict[str, str]]:
    """Every glossary term with its definition and a link to where its section introduces it."""
    from ..chapters import CHAPTERS
    from ..chapters.glossary import TERMS
    out = []
    for t in TERMS:
        ch = CHAPTERS[int(t.section.split(".")[0])]
        sec = next(s for s in ch.sections if s.key == t.section)
        in_prose = t.slug in marked_in_prose(sec.key)
        out.append({"slug": t.slug, "term": t.term, "definition": t.definition, "section": sec.number or sec.title,
                    "section_title": sec.title, "url": sec.url + (f"#term-{t.slug}" if in_prose else "")})
    return out


@router.get("/glossary", response_class=HTMLResponse, include_in_schema=False)
def glossary_page(request: Request) -> HTMLResponse:
    """术语表: every term the two chapters introduce, defined, with links back into the sections."""
    return cached_page(request, lambda: (render("glossary.html", entries=glossary_entries()), 200,
                                         {"Cache-Control": PAGE_CACHE}))


@router.get("/glossary.json", tags=["术语"], summary="术语表")
def glossary_json() -> JSONResponse:
    return JSONResponse({"terms": glossary_entries()}, headers={"Cache-Control": PAGE_CACHE})


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def index(request: Request) -> HTMLResponse:
    return cached_page(request, lambda: (render("index.html", cards_in=cards_in), 200, {"Cache-Control": PAGE_CACHE}))


@router.get("/ch/{n}", response_class=HTMLResponse, include_in_schema=False)
def chapter_page(request: Request, n: int) -> HTMLResponse:
    ch = CHAPTERS.get(n)
    if not ch:
        return not_found(f"没有第 {n} 章")
    opener = ch.sections[0]
    return cached_page(request, lambda: (render("chapter.html", chapter=ch, opener=opener, parts=_parts(opener),
                                                cards_in=cards_in), 200, {"Cache-Control": PAGE_CACHE}))


@router.get("/ch/{n}/{slug}", response_class=HTMLResponse, include_in_schema=False)
def section_page(request: Request, n: int, slug: str) -> HTMLResponse:
    sec = section(n, slug)
    if not sec:
        return not_found(f"没有 {n}/{slug} 这一节")
    if sec.key.endswith(".open"):
        return RedirectResponse(f"/ch/{n}", status_code=307)
    ch = CHAPTERS[n]
    i = ch.sections.index(sec)
    prev_s = ch.sections[i - 1] if i > 0 else None
    next_s = ch.sections[i + 1] if i + 1 < len(ch.sections) else None
    return cached_page(request, lambda: (render("section.html", chapter=ch, sec=sec, parts=_parts(sec), prev=prev_s,
                                                next=next_s), 200, {"Cache-Control": PAGE_CACHE}))


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
    return cached_page(request, lambda: _card_page(request, card))


def _card_page(request: Request, card: Card, template: str = "card_page.html") -> tuple[str, int, dict]:
    """A card alone (``card_page.html``, or the projector view ``present.html``) in the URL's state;
    a rejected query shows the messages beside the controls and the defaults' result."""
    embed = template == "card_page.html" and request.query_params.get("embed") in ("1", "true")
    solutions = solutions_allowed(request)
    status, errors = 200, []
    try:
        params = parse_query(card, _items(request))
    except ParamError as e:
        status, errors, params = 422, e.errors, card.defaults()
    frag = fragment_bytes(card, params, solutions=solutions)[0].decode()
    prev_c, next_c = neighbours(card.id)
    body = render(template, card=card, params=params, fragment=frag, errors=errors,
                  raw=dict(_items(request)), embed=embed, sec=section_of(card), prev=prev_c, next=next_c,
                  qs=query_string(card, params), solutions=solutions)
    headers = {"Cache-Control": PAGE_CACHE}
    if embed:
        headers["X-Frame-Embed"] = "1"   # the security middleware relaxes frame-ancestors for this view
    return body, status, headers


@router.get("/present/{name}", response_class=HTMLResponse, include_in_schema=False)
def present_page(request: Request, name: str) -> Response:
    if (r := _redirect_alias(request, name)) is not None:
        return r
    card = REGISTRY.get(name)
    if card is None:
        return not_found(f"没有编号为 “{name}” 的卡片")
    return cached_page(request, lambda: _card_page(request, card, "present.html"))


@router.get("/cards/{name}/fragment", response_class=HTMLResponse, include_in_schema=False)
def card_fragment(request: Request, name: str) -> Response:
    if (r := _redirect_alias(request, name)) is not None:
        return r
    card = REGISTRY.get(name)
    if card is None:
        return not_found(f"没有编号为 “{name}” 的卡片")
    solutions = solutions_allowed(request)
    key = (card.id, request.url.query, solutions)
    hit = _by_url.data.get(key)
    if hit is None:   # a URL seen before skips parsing too: fragments are pure functions of the URL
        try:
            params = parse_query(card, _items(request))
        except ParamError as e:
            return html(render("_errors.html", card=card, errors=e.errors), 422)
        hit = _by_url.get(key, lambda: fragment_bytes(card, params, solutions=solutions))
    body, etag = hit
    etag = "W/" + etag   # weak: the gzip and identity bytes of one fragment are the same representation
    headers = {"ETag": etag, "Cache-Control": FRAGMENT_CACHE, "Vary": "Accept-Encoding"}
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="text/html; charset=utf-8", headers=headers)


@router.get("/cards/{name}/explain", response_class=HTMLResponse, include_in_schema=False)
def card_explain(request: Request, name: str) -> Response:
    """Every derivation of the card in the URL's state: what a tile expands into (loaded on
    demand, so dragging a slider never pays for it)."""
    if (r := _redirect_alias(request, name)) is not None:
        return r
    card = REGISTRY.get(name)
    if card is None:
        return not_found(f"没有编号为 “{name}” 的卡片")
    try:
        params = parse_query(card, [(k, v) for k, v in _items(request) if k != "key"])
    except ParamError as e:
        return html(render("_errors.html", card=card, errors=e.errors), 422)
    return Response(explain_bytes(card, params), media_type="text/html; charset=utf-8",
                    headers={"Cache-Control": FRAGMENT_CACHE})


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """``If-None-Match`` by the weak comparison (RFC 9110 13.1.2): ``*``, or any listed tag equal to
    ours once ``W/`` is dropped."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    ours = etag.removeprefix("W/")
    return any(t.strip().removeprefix("W/") == ours for t in if_none_match.split(","))


@router.get("/cards/{name}/figure/{idx}.{ext}", include_in_schema=False)
def figure_data(request: Request, name: str, idx: int, ext: str) -> Response:
    """The data of figure ``idx`` exactly as plotted: ``.csv`` to download, ``.html`` for the
    table alternative that opens under the chart."""
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
    if not 0 <= idx < len(view.figures) or ext not in ("csv", "html"):
        return PlainTextResponse("no such figure", 404)
    if ext == "html":
        cols, rows = figure_rows(view.figures[idx])
        return html(render("_figtable.html", cols=cols, rows=rows, title=view.figures[idx].title),
                    headers={"Cache-Control": FRAGMENT_CACHE})
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
    view, ders = explain(card, params)
    out: dict[str, Any] = {"card": card.id, "params": params.model_dump(mode="json"), "outputs": outputs_json(view),
                           "derivations": {k: d.as_json() for k, d in ders.items()}}
    if view.questions:
        out["questions"] = [{"key": q.key, "prompt": q.prompt, "unit": q.unit, "kind": q.kind} for q in view.questions]
    return out


def _openapi_params(card: Card) -> list[dict]:
    schema = card.params.model_json_schema()
    props = schema.get("properties", {})
    out = []
    for name, prop in props.items():
        if "anyOf" in prop:   # optional override: absent = preset; on the wire it is just a number
            inner = [x for x in prop["anyOf"] if x.get("type") != "null"]
            if len(inner) == 1:
                prop = {**{k: v for k, v in prop.items() if k != "anyOf"}, **inner[0]}
                prop.pop("default", None)
        p = {k: v for k, v in prop.items() if k not in ("title", "control", "step", "unit", "label", "log",
                                                     "illustrative", "placeholder", "options", "item_ge", "item_le",
                                                     "custom")}
        param = {"name": name, "in": "query", "required": False, "schema": p,
                 "description": prop.get("description", "") + (f"(单位 {prop['unit']})" if prop.get("unit") else "")}
        if p.get("type") == "array":
            param.update({"style": "form", "explode": True})
        out.append(param)
    return out


CROSS_FIELD = "跨字段规则(schema 无法表达,违反时 422):"


def _api_description(card: Card) -> str:
    """The operation's description: the card's lead, and the rules between fields a schema cannot
    state (``Params.cross_field_rules``)."""
    rules = card.params.cross_field_rules
    return card.lead + (("\n\n" + CROSS_FIELD + ";".join(rules)) if rules else "")


def _api_endpoint(card: Card):
    def endpoint(request: Request) -> Response:
        try:
            params = parse_query(card, _items(request))
        except ParamError as e:
            return JSONResponse({"detail": e.errors}, 422)
        body = cached_json(card, params, lambda: json.dumps(card_json(card, params), ensure_ascii=False,
                                                            separators=(",", ":"), allow_nan=False).encode())
        return Response(body, media_type="application/json", headers={"Cache-Control": FRAGMENT_CACHE})
    endpoint.__name__ = "card_" + card.id.replace("-", "_")
    return endpoint


def check_body_model(card: Card) -> type[BaseModel]:
    """The POST body for a card with questions, typed by them so the schema says exactly what is
    accepted: ``answers`` keyed by the numeric/yes-no question keys (of every state the card can
    ask), ``units`` by their units."""
    from typing import Literal, Optional
    from pydantic import create_model
    ans, units = {}, {}
    for q in exercises.questions_of(card).values():
        if q.kind == "open":
            continue
        typ = float if q.kind == "numeric" else (bool if q.kind == "bool" else str)
        ans[q.key] = (Optional[typ], Field(None, description=q.prompt[:80]))
        if q.units:
            units[q.key] = (Optional[Literal[tuple([q.unit, *q.units])]], None)
    strict = ConfigDict(extra="forbid", strict=True)
    name = card.id.replace("-", "_")
    Answers = create_model(f"Answers_{name}", __config__=strict, **ans)
    Units = create_model(f"Units_{name}", __config__=strict, **units)
    return create_model(
        f"Check_{name}", __config__=strict,
        params=(dict[str, Any], Field(default_factory=dict, description="卡片参数(与查询参数同名)")),
        answers=(Answers, Field(..., description="题目键 → 读者的答案")),
        units=(Units, Field(default_factory=Units, description="题目键 → 读者所选单位")),
        reveal=(bool, Field(False, description="同时返回标准答案(教师关闭解答时无效)")))


class Verdict(BaseModel):
    verdict: str
    text: str
    hint: str | None = None
    expected: float | bool | str | None = None


class CheckResult(BaseModel):
    card: str
    results: dict[str, Verdict]
    solutions: bool


def solutions_allowed(request: Request) -> bool:
    """Instructors hide solutions with ?solutions=off on any exercise link (or for the whole
    deployment with AIINFRA_SOLUTIONS=off)."""
    import os
    return request.query_params.get("solutions") != "off" and os.environ.get("AIINFRA_SOLUTIONS") != "off"


def _check_endpoint(card: Card):
    Body = check_body_model(card)

    def endpoint(request: Request, body: Body) -> Response:  # type: ignore[valid-type]
        answers = {k: v for k, v in body.answers.model_dump().items() if v is not None}
        units = {k: v for k, v in body.units.model_dump().items() if v is not None}
        try:
            params = validate(card, {k: v for k, v in body.params.items()})
        except ParamError as e:
            return JSONResponse({"detail": [{**x, "loc": ["body", "params", x["field"]]} for x in e.errors]}, 422)
        view = compute(card, params)
        qs = {q.key: q for q in view.questions}
        reveal = body.reveal and solutions_allowed(request)
        results = {}
        for k, v in answers.items():
            q = qs.get(k)
            if q is None:      # the question set changed with the parameters
                continue
            expected = view.outputs.get(q.key)
            r = exercises.check(q, expected, v, units.get(k))
            r["text"] = exercises.VERDICT_TEXT.get(r["verdict"], r["verdict"])
            if reveal:
                r["expected"] = expected
            results[k] = r
        return JSONResponse({"card": card.id, "results": results, "solutions": solutions_allowed(request)},
                            headers={"Cache-Control": "no-store"})
    endpoint.__annotations__["body"] = Body
    endpoint.__name__ = "check_" + card.id.replace("-", "_")
    return endpoint


def register_card_routes(app: FastAPI) -> None:
    """One OpenAPI route per card so /docs documents every parameter; plus alias redirects."""
    for cid in sorted(REGISTRY):
        card = REGISTRY[cid]
        app.add_api_route(
            f"/api/cards/{cid}", _api_endpoint(card), methods=["GET"], tags=[f"第 {card.chapter} 章"],
            summary=card.display_title, description=_api_description(card), response_model=CardResult,
            responses={422: {"model": ErrorBody, "description": "参数超出范围或格式不对"}},
            openapi_extra={"parameters": _openapi_params(card)})
        if exercises.questions_of(card):   # checkable whatever its kind (练习 3-1 is a calculator)
            app.add_api_route(
                f"/api/cards/{cid}/check", _check_endpoint(card), methods=["POST"], tags=["练习"],
                summary=f"检查 {card.display_title} 的答案", response_model=CheckResult,
                responses={422: {"model": ErrorBody, "description": "请求体格式不对"}})

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
