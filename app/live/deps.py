"""Request plumbing shared by the live routes: field-named errors, size-capped JSON bodies (JSON
only: 415 otherwise), the class lookup (404 unknown, 410 ended), the instructor's capability check,
the client's address and the participant credential (FastAPI ``Annotated`` dependencies), and the
app's own live class (``LiveDep``, ``StoreDep``: what ``create_app`` put on ``app.state.live``)."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Annotated, Any, TypeVar
from urllib.parse import parse_qsl

from fastapi import Depends, HTTPException, Path, Request
from pydantic import BaseModel, ValidationError
from starlette.requests import HTTPConnection

from ..cards import REGISTRY, Card, resolve
from ..state import ParamError, parse_query
from .address import client_address
from .address import network as network_around
from .context import LiveContext
from .credentials import Keys, Participant
from .ids import normalise_code, token_matches
from .limits import BODY_READ_TIMEOUT_S, MAX_ANSWER, MAX_BODY_BYTES, MAX_QUESTIONS
from .store import Session, Store

M = TypeVar("M", bound=BaseModel)

_KIND = {
    "missing": "缺少",
    "string_too_long": "过长",
    "string_too_short": "过短",
    "string_pattern_mismatch": "格式不对",
    "extra_forbidden": "不认识的字段",
    "float_parsing": "须为数字",
    "string_type": "须为文本",
    "int_parsing": "须为整数",
    "bool_type": "须为 true 或 false",
    "model_type": "须为 JSON 对象",
    "json_invalid": "不是有效的 JSON",
    "finite_number": "须为有限数",
}


def fail(status: int, field: str, msg: str, kind: str = "value_error", headers: dict | None = None) -> HTTPException:
    """An error in the app's one shape: ``{"detail": [{"loc", "field", "type", "msg", "input"}]}``."""
    return HTTPException(
        status,
        detail=[{"loc": ["body", field], "field": field, "type": kind, "msg": f"{field}:{msg}", "input": None}],
        headers=headers,
    )


def _from_validation(e: ValidationError) -> HTTPException:
    items = []
    for err in e.errors():
        loc = [str(x) for x in err.get("loc", ())]
        field = loc[0] if loc else "body"  # the bodies are flat: the first step names the field
        text = _KIND.get(err.get("type", ""), err.get("msg", "取值无效"))
        items.append(
            {
                "loc": ["body", *loc],
                "field": field,
                "type": err.get("type", "value_error"),
                "msg": f"{field}:{text}",
                "input": None,
            }
        )
    return HTTPException(422, detail=items)


def is_json(content_type: str) -> bool:
    """``application/json`` (any parameters, any case): what every live JSON route takes."""
    return content_type.split(";", 1)[0].strip().lower() == "application/json"


def json_body(model: type[M]) -> Callable[[Request], Any]:
    """A dependency that takes only ``application/json`` (415 otherwise: a form or ``text/plain``
    post from another site cannot join or answer for a visitor's browser), reads at most
    MAX_BODY_BYTES within BODY_READ_TIMEOUT_S and validates them as ``model``."""

    async def read(request: Request) -> M:
        if not is_json(request.headers.get("content-type", "")):
            raise fail(415, "content-type", "须为 application/json", "unsupported_media_type")
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            raise fail(413, "body", f"请求体过大(上限 {MAX_BODY_BYTES // 1024} KB)", "too_large")
        raw = bytearray()
        try:
            async with asyncio.timeout(BODY_READ_TIMEOUT_S):
                async for chunk in request.stream():
                    raw += chunk
                    if len(raw) > MAX_BODY_BYTES:
                        raise fail(413, "body", f"请求体过大(上限 {MAX_BODY_BYTES // 1024} KB)", "too_large")
        except TimeoutError:
            raise fail(408, "body", f"请求体 {BODY_READ_TIMEOUT_S:g} 秒内未收完", "timeout") from None
        try:
            return model.model_validate_json(bytes(raw))
        except ValidationError as e:
            raise _from_validation(e) from None

    return read


def gone(code: str) -> HTTPException:
    return HTTPException(
        404,
        detail=[
            {
                "loc": ["path", "code"],
                "field": "code",
                "type": "not_found",
                "msg": f"code:没有课堂码为 {code[:12]} 的课堂(可能已结束或过期)",
                "input": None,
            }
        ],
    )


def ended(code: str) -> HTTPException:
    return HTTPException(
        410,
        detail=[
            {
                "loc": ["path", "code"],
                "field": "code",
                "type": "ended",
                "msg": f"code:课堂 {code} 已结束(老师已下课)",
                "input": None,
            }
        ],
    )


def live_of(conn: HTTPConnection) -> LiveContext:
    """The live class of the app serving ``conn`` (its settings, store and hub)."""
    return conn.app.state.live


async def live_dep(conn: HTTPConnection) -> LiveContext:
    """:func:`live_of` as a dependency (a coroutine: FastAPI runs a plain function in a thread)."""
    return live_of(conn)


async def store_of(conn: HTTPConnection) -> Store:
    """The store of the app serving ``conn``."""
    return live_of(conn).store


LiveDep = Annotated[LiveContext, Depends(live_dep)]
StoreDep = Annotated[Store, Depends(store_of)]


async def find_session(store: Store, code: str) -> Session | None:
    """The class called ``code`` in ``store`` (codes are case-insensitive), or None."""
    norm = normalise_code(code)
    return await store.get(norm) if norm else None


async def any_session(code: str, store: StoreDep) -> Session:
    """The class named in the path, ended or not (codes are case-insensitive), or 404."""
    s = await find_session(store, code)
    if s is None:
        raise gone(code)
    return s


async def live_session(code: str, store: StoreDep) -> Session:
    """The class named in the path while it runs: 404 unknown, 410 once ended (下课)."""
    s = await any_session(code, store)
    if s.ended is not None:
        raise ended(s.code)
    return s


LiveSession = Annotated[Session, Depends(live_session)]
AnySession = Annotated[Session, Depends(any_session)]


QID_SCHEMA = {"type": "integer", "minimum": 1, "maximum": MAX_QUESTIONS}


def number_answer(value: Any) -> float:
    """A number a phone sent (an answer, a prediction): "1,024" and 1024 alike; else a 422 naming ``value``."""
    if isinstance(value, bool):
        raise fail(422, "value", "须为数字", "float_parsing")
    try:
        number = float(value.replace(",", "")) if isinstance(value, str) else float(value)
    except ValueError:
        raise fail(422, "value", "须为数字", "float_parsing") from None
    if not math.isfinite(number):
        raise fail(422, "value", "须为有限数", "finite_number")
    if abs(number) > MAX_ANSWER:
        raise fail(422, "value", f"绝对值须不超过 {MAX_ANSWER:g}", "less_than_equal")
    return number


def path_number(value: str, field: str, top: int, what: str) -> int:
    """A number from the path (a question's, a sweep's): 1…``top``, else a 422 naming ``field`` (never an
    overflow in the store)."""
    if not (value.isascii() and value.isdigit() and len(value) <= 6 and 1 <= int(value) <= top):
        raise HTTPException(
            422,
            detail=[
                {
                    "loc": ["path", field],
                    "field": field,
                    "type": "out_of_range",
                    "msg": f"{field}:{what}须为 1 到 {top} 的整数",
                    "input": value[:24],
                }
            ],
        )
    return int(value)


def qid_param(qid: Annotated[str, Path(description=f"题号(1…{MAX_QUESTIONS})", json_schema_extra=QID_SCHEMA)]) -> int:
    """A question number from the path: 1…MAX_QUESTIONS, else 422 naming ``qid``."""
    return path_number(qid, "qid", MAX_QUESTIONS, "题号")


def address(conn: HTTPConnection) -> str:
    """The client's counted address (see app/live/address.py), in clear: hash it before storing."""
    return client_address(conn, live_of(conn).settings.trusted_proxies)


def network(conn: HTTPConnection) -> str:
    """The network around the client's counted address (IPv4 /24, IPv6 /48), in clear: hash it too."""
    return network_around(address(conn))


def participant_of(k: Keys, s: Session, credential: str | None, field: str = "participant") -> Participant:
    """The participant a credential names, if it was issued for this very class; 403 otherwise
    (missing, forged, altered, or another class's): such a request counts for nothing."""
    p = k.open(credential) if credential else None
    if p is None or p.code != s.code or p.epoch != k.epoch(s.code, s.token_hash):
        why = "缺少参与凭证,请先加入课堂" if not credential else "参与凭证无效或不属于这个课堂,请重新加入"
        raise fail(403, field, why, "forbidden")
    return p


def bearer(request: Request) -> str | None:
    scheme, _, tok = request.headers.get("authorization", "").partition(" ")
    return tok.strip() if scheme.lower() == "bearer" and tok.strip() else None


def check_token(request: Request, session: Session, required: bool = True) -> bool:
    """True with a valid token; 401 without one (when ``required``), 403 with a wrong one."""
    tok = bearer(request)
    if tok is None:
        if required:
            raise fail(
                401,
                "authorization",
                "需要教师令牌(Authorization: Bearer …)",
                "unauthorized",
                {"WWW-Authenticate": "Bearer"},
            )
        return False
    if not token_matches(tok, session.token_hash):
        raise fail(403, "authorization", "教师令牌不对", "forbidden")
    return True


async def instructor(request: Request, session: LiveSession) -> Session:
    check_token(request, session)
    return session


Instructor = Annotated[Session, Depends(instructor)]


def card_state(card_name: str, query: str, field: str = "card"):
    """A card and its validated params from an id/alias and a query string, or 422 (the query
    gives the very messages the card routes give)."""
    cid = resolve(card_name)
    if cid is None:
        raise fail(422, field, f"没有编号为 “{card_name[:40]}” 的卡片", "unknown_card")
    card: Card = REGISTRY[cid]
    try:
        return card, parse_query(card, parse_qsl(query, keep_blank_values=True))
    except ParamError as e:
        raise HTTPException(422, detail=e.errors) from None
