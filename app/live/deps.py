"""Request plumbing shared by the live routes: field-named errors, size-capped JSON bodies, the
session lookup and the instructor's capability check (FastAPI ``Annotated`` dependencies)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar
from urllib.parse import parse_qsl

from fastapi import Depends, HTTPException, Request
from pydantic import BaseModel, ValidationError

from ..cards import REGISTRY, Card, resolve
from ..state import ParamError, parse_query
from .ids import normalise_code, token_matches
from .limits import MAX_BODY_BYTES
from .store import Session, get_store

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


def json_body(model: type[M], optional: bool = False) -> Callable[[Request], Any]:
    """A dependency that reads at most MAX_BODY_BYTES and validates them as ``model``."""

    async def read(request: Request) -> M:
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            raise fail(413, "body", f"请求体过大(上限 {MAX_BODY_BYTES // 1024} KB)", "too_large")
        raw = bytearray()
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY_BYTES:
                raise fail(413, "body", f"请求体过大(上限 {MAX_BODY_BYTES // 1024} KB)", "too_large")
        if optional and not raw.strip():
            return model()
        try:
            return model.model_validate_json(bytes(raw))
        except ValidationError as e:
            raise _from_validation(e) from None

    return read


async def live_session(code: str) -> Session:
    """The session named in the path (codes are case-insensitive), or 404."""
    norm = normalise_code(code)
    s = await get_store().get(norm) if norm else None
    if s is None:
        raise HTTPException(
            404,
            detail=[
                {
                    "loc": ["path", "code"],
                    "field": "code",
                    "type": "not_found",
                    "msg": f"没有课堂码为 {code[:12]} 的课堂(可能已结束或过期)",
                    "input": None,
                }
            ],
        )
    return s


LiveSession = Annotated[Session, Depends(live_session)]


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
