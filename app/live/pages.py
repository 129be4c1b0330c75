"""Live-class pages: join, follow (students' phones), control (the projector), the QR code and the
card stage both views swap in. The stage is a pure function of its URL."""

from __future__ import annotations

import segno
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup

from ..cards import REGISTRY
from ..chapters import neighbours
from ..render import fragment_html, render
from .deps import card_state, live_session
from .ids import normalise_code
from .limits import NICK_MAX
from .store import Session, get_store

router = APIRouter(include_in_schema=False)
NO_STORE = {"Cache-Control": "no-store"}
STAGE_CACHE = "public, max-age=86400"


def follow_url(request: Request, code: str) -> str:
    """The students' link on the request's own host (what the QR code holds)."""
    return f"{str(request.base_url).rstrip('/')}/live/{code}"


def qr_svg(url: str) -> Markup:
    """The follow link as an inline SVG QR code, drawn here by segno (no network)."""
    svg = segno.make(url, error="m").svg_inline(
        scale=1, omitsize=True, border=2, dark="#000", light="#fff", svgclass="qr", title="扫码加入课堂"
    )
    return Markup(svg)


def stage_html(card_id: str, query: str) -> str:
    """The card shell (controls + result fragment) in the given state, and its neighbours."""
    card, params = card_state(card_id, query)
    prev_c, next_c = neighbours(card.id)
    frag = fragment_html(card, params)
    return render("live/_stage.html", card=card, params=params, fragment=frag, prev=prev_c or "", next=next_c or "")


def not_found(message: str, status: int = 404) -> HTMLResponse:
    return HTMLResponse(render("live/join.html", message=message, code=""), status_code=status, headers=NO_STORE)


async def _session_or_none(code: str) -> Session | None:
    norm = normalise_code(code)
    return await get_store().get(norm) if norm else None


@router.get("/live", response_class=HTMLResponse)
def join_page(code: str = "") -> Response:
    """Type a join code (or scan the QR on the projector)."""
    if code:
        norm = normalise_code(code)
        if norm:
            return RedirectResponse(f"/live/{norm}", status_code=303)
        return HTMLResponse(
            render("live/join.html", message="课堂码是 6 位字母或数字", code=code[:12]), 422, headers=NO_STORE
        )
    return HTMLResponse(render("live/join.html", message="", code=""), headers=NO_STORE)


@router.get("/live/card/{name}", response_class=HTMLResponse)
def stage(name: str, request: Request) -> Response:
    try:
        body = stage_html(name, request.url.query)
    except HTTPException as e:  # unknown card or rejected query: the card routes' messages
        return HTMLResponse(render("_errors.html", card=REGISTRY.get(name), errors=e.detail), status_code=e.status_code)
    return HTMLResponse(body, headers={"Cache-Control": STAGE_CACHE})


@router.get("/live/{code}", response_class=HTMLResponse)
async def follow_page(code: str, request: Request) -> Response:
    s = await _session_or_none(code)
    if s is None:
        return not_found(f"没有课堂码为 “{code[:12]}” 的课堂:可能已结束或过期。请核对课堂码。")
    if s.code != code:
        return RedirectResponse(f"/live/{s.code}", status_code=307)
    data = {"code": s.code, "state": s.event(), "nick_max": NICK_MAX}
    body = render("live/follow.html", session=s, stage=Markup(stage_html(s.card, s.query)), data=data)
    return HTMLResponse(body, headers=NO_STORE)


@router.get("/live/{code}/control", response_class=HTMLResponse)
async def control_page(code: str, request: Request) -> Response:
    """The projector: presenter view + class panel. The token travels in the URL fragment (never
    sent to the server); the page script reads it and sends it as a Bearer header."""
    s = await _session_or_none(code)
    if s is None:
        return not_found(f"没有课堂码为 “{code[:12]}” 的课堂:可能已结束或过期。")
    url = follow_url(request, s.code)
    data = {"code": s.code, "state": s.event(), "follow_url": url}
    body = render(
        "live/control.html",
        session=s,
        stage=Markup(stage_html(s.card, s.query)),
        data=data,
        follow_url=url,
        qr=qr_svg(url),
    )
    return HTMLResponse(body, headers=NO_STORE)


@router.get("/live/{code}/qr.svg")
async def qr(code: str, request: Request) -> Response:
    import io

    s = await live_session(code)
    buf = io.BytesIO()
    segno.make(follow_url(request, s.code), error="m").save(buf, kind="svg", scale=8, border=2, title="扫码加入课堂")
    return Response(buf.getvalue(), media_type="image/svg+xml", headers=NO_STORE)
