"""Live-class pages: join, follow (students' phones), control (the projector), the QR code and the
card stage both views swap in. The stage is a pure function of its URL.

Hidden means absent: while a question is open (not yet revealed) the stage of its card is rendered
with the asked output held (``hide=<key>``) and without worked solutions, on the follower page, the
control page and every stage load either makes; the SSE events never carry the value. The card engine
holds it by declaration, not by searching the page: its tile, every slot and quoted text
(:class:`~app.cards.Quoted`) and table cell of that output read "?", its derivation shows no result, and
each figure that declares it draws it (``Figure.draws``) is not drawn (app/render/card.py ``Shown``)."""

from __future__ import annotations

from pathlib import Path

import segno
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup

from ..cards import REGISTRY
from ..chapters import neighbours
from ..render import Reading, fragment_html, render
from ..words import catalogue, current_lang, localize, prefixed, words_for
from .deps import StoreDep, any_session, card_state, find_session
from .ids import normalise_code
from .limits import ENDED_KEEP_S, NICK_MAX
from .store import Session, in_edition

W = words_for(__name__)

router = APIRouter(include_in_schema=False)
NO_STORE = {"Cache-Control": "no-store"}
STAGE_CACHE = "public, max-age=86400"
MAX_HIDE = 4  # outputs one stage URL may mask


JS_WORDS = catalogue(Path(__file__).with_name("live_js"))  # live_js.zh.toml / live_js.en.toml


def live_js_words() -> dict[str, str]:
    """static/live.js's words (``live_js.<lang>.toml``) in the edition served: the live pages embed
    them once as ``<script type="application/json" id="live-words">``; the script reads no other."""
    return {k: str(localize(JS_WORDS[k])) for k in sorted(JS_WORDS.keys())}


def follow_url(request: Request, code: str) -> str:
    """The students' link on the request's own host, in the edition being served (what the QR code holds:
    an English projector's QR opens the English phone page; each phone may still switch)."""
    return str(request.base_url).rstrip("/") + prefixed(f"/live/{code}", current_lang())


def qr_svg(url: str, cls: str = "qr") -> Markup:
    """The follow link as an inline SVG QR code, drawn here by segno (no network)."""
    svg = segno.make(url, error="m").svg_inline(
        scale=1, omitsize=True, border=2, dark="#000", light="#fff", svgclass=cls, title=W["qr_svg.title"]
    )
    return Markup(svg)


def masked(s: Session) -> tuple[tuple[str, ...], bool]:
    """What the stage of ``s``'s current card must leave out: the asked output while its question
    is not revealed, the predicted output while a sweep on that card is not (and then no worked
    solutions either)."""
    hide = set()
    q, sw = s.question, s.sweep
    if q and q.get("status") != "revealed" and q.get("card") == s.card:
        hide.add(q["key"])
    if sw and sw.get("status") != "revealed" and sw.get("card") == s.card:
        hide.add(sw["predict"])
    return tuple(sorted(hide)), not hide


def stage_html(
    card_id: str, query: str, hide: tuple[str, ...] = (), solutions: bool = True, answers_shown: bool = False
) -> str:
    """The card shell (controls + result fragment) in the given state, and its neighbours;
    ``answers_shown``: the instructor's own screen shows the card's practice answers (the
    presenter's ``answers=shown``; what is held back with ``hide`` stays held back)."""
    card, params = card_state(card_id, query)
    prev_c, next_c = neighbours(card.id)
    reading = Reading(solutions=solutions, hide=frozenset(hide), answers_shown=answers_shown)
    frag = fragment_html(card, params, reading)
    return render(
        "live/_stage.html",
        card=card,
        params=params,
        fragment=frag,
        prev=prev_c or "",
        next=next_c or "",
        hide=" ".join(hide),
        solutions=solutions,
        answers_shown=answers_shown,
    )


def session_stage(s: Session) -> Markup:
    hide, solutions = masked(s)
    return Markup(stage_html(s.card, s.query, hide, solutions))


def not_found(message: str, status: int = 404) -> HTMLResponse:
    return HTMLResponse(render("live/join.html", message=message, code=""), status_code=status, headers=NO_STORE)


def ended_page(s: Session, control: bool, status: int = 410) -> HTMLResponse:
    """课堂已结束 and its summary (410: the class is gone, this page says how it went; 200 where a page
    that saw the class end asks for it, :func:`ended_view`)."""
    body = render(
        "live/ended.html",
        session=s,
        summary=in_edition(s.summary or {}),
        control=control,
        data={"code": s.code},
        keep_hours=ENDED_KEEP_S // 3600,
        live_js_words=live_js_words(),
    )
    return HTMLResponse(body, status_code=status, headers=NO_STORE)


@router.get("/live", response_class=HTMLResponse)
def join_page(code: str = "") -> Response:
    """Type a join code (or scan the QR on the projector)."""
    if code:
        norm = normalise_code(code)
        if norm:
            return RedirectResponse(f"/live/{norm}", status_code=303)
        return HTMLResponse(
            render("live/join.html", message=W["join_page.message"], code=code[:12]), 422, headers=NO_STORE
        )
    return HTMLResponse(render("live/join.html", message="", code=""), headers=NO_STORE)


@router.get("/live/card/{name}", response_class=HTMLResponse)
def stage(name: str, request: Request) -> Response:
    """A stage; ``hide=<output>`` (repeatable) masks an output, ``solutions=off`` leaves out the
    worked solutions (what the views ask for while a question or a sweep is open), ``answers=shown``
    shows the card's practice answers (the control view's 显示答案)."""
    items = request.query_params.multi_items()
    hide = tuple(sorted({v[:100] for k, v in items if k == "hide" and v}))[:MAX_HIDE]
    solutions = not any(k == "solutions" and v == "off" for k, v in items)
    shown = any(k == "answers" and v == "shown" for k, v in items)
    flags = ("hide", "solutions", "answers")
    query = "&".join(f"{k}={v}" for k, v in _raw_pairs(request.url.query) if k not in flags)
    try:
        body = stage_html(name, query, hide, solutions, shown)
    except HTTPException as e:  # unknown card or rejected query: the card routes' messages
        return HTMLResponse(render("_errors.html", card=REGISTRY.get(name), errors=e.detail), status_code=e.status_code)
    return HTMLResponse(body, headers={"Cache-Control": STAGE_CACHE})


def _raw_pairs(query: str) -> list[tuple[str, str]]:
    """The query's pairs as sent (still percent-encoded), in order."""
    out = []
    for part in query.split("&"):
        if part:
            k, _, v = part.partition("=")
            out.append((k, v))
    return out


@router.get("/live/{code}", response_class=HTMLResponse)
async def follow_page(code: str, request: Request, store: StoreDep) -> Response:
    s = await find_session(store, code)
    if s is None:
        return not_found(W.f("follow_page.not_found", v=code[:12]))
    if s.code != code:
        return RedirectResponse(f"/live/{s.code}", status_code=307)
    if s.ended is not None:
        return ended_page(s, control=False)
    data = {"code": s.code, "state": in_edition(s.event()), "nick_max": NICK_MAX}
    body = render("live/follow.html", session=s, stage=session_stage(s), data=data, live_js_words=live_js_words())
    return HTMLResponse(body, headers=NO_STORE)


@router.get("/live/{code}/ended", response_class=HTMLResponse)
async def ended_view(code: str, store: StoreDep, view: str = "") -> Response:
    """Where a phone (or, with ``view=control``, the projector) goes when its class ends (下课): the
    summary with 200, so the page that watched the class end logs no 410 as an error (issue 39); a
    class still running sends the visitor back to it (303), an unknown one is 404."""
    s = await find_session(store, code)
    if s is None:
        return not_found(W.f("ended_view.not_found", v=code[:12]))
    control = view == "control"
    if s.ended is None:
        return RedirectResponse(f"/live/{s.code}/control" if control else f"/live/{s.code}", status_code=303)
    return ended_page(s, control=control, status=200)


@router.get("/live/{code}/control", response_class=HTMLResponse)
async def control_page(code: str, request: Request, store: StoreDep) -> Response:
    """The projector: presenter view + class panel. The token travels in the URL fragment (never
    sent to the server); the page script reads it and sends it as a Bearer header."""
    s = await find_session(store, code)
    if s is None:
        return not_found(W.f("control_page.not_found", v=code[:12]))
    if s.ended is not None:
        return ended_page(s, control=True)
    url = follow_url(request, s.code)
    data = {"code": s.code, "state": in_edition(s.event()), "follow_url": url}
    body = render(
        "live/control.html",
        session=s,
        stage=session_stage(s),
        data=data,
        follow_url=url,
        qr=qr_svg(url),
        qr_big=qr_svg(url, "qr qr-big"),
        live_js_words=live_js_words(),
    )
    return HTMLResponse(body, headers=NO_STORE)


@router.get("/live/{code}/qr.svg")
async def qr(code: str, request: Request, store: StoreDep) -> Response:
    import io

    s = await any_session(code, store)
    buf = io.BytesIO()
    segno.make(follow_url(request, s.code), error="m").save(
        buf, kind="svg", scale=8, border=2, title=str(localize(W["qr_svg.title"]))
    )
    return Response(buf.getvalue(), media_type="image/svg+xml", headers=NO_STORE)
