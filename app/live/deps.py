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

from .. import answers
from ..cards import REGISTRY, Card, resolve
from ..errors import error_item
from ..state import ParamError, parse_query
from ..words import words_for
from .address import client_address
from .address import network as network_around
from .context import LiveContext
from .credentials import Keys, Participant
from .ids import normalise_code, token_matches
from .limits import BODY_READ_TIMEOUT_S, MAX_ANSWER, MAX_BODY_BYTES, MAX_QUESTIONS
from .store import Session, Store

W = words_for(__name__)

M = TypeVar("M", bound=BaseModel)

_KIND = {
    "missing": W["kind.missing"],
    "string_too_long": W["kind.string_too_long"],
    "string_too_short": W["kind.string_too_short"],
    "string_pattern_mismatch": W["kind.string_pattern_mismatch"],
    "extra_forbidden": W["kind.extra_forbidden"],
    "float_parsing": W["kind.float_parsing"],
    "string_type": W["kind.string_type"],
    "int_parsing": W["kind.int_parsing"],
    "bool_type": W["kind.bool_type"],
    "model_type": W["kind.model_type"],
    "json_invalid": W["kind.json_invalid"],
    "finite_number": W["kind.finite_number"],
}


def fail(status: int, field: str, msg: str, kind: str = "value_error", headers: dict | None = None) -> HTTPException:
    """An error in the app's one shape: ``{"detail": [{"loc", "field", "type", "msg", "input"}]}``."""
    return HTTPException(
        status,
        detail=[error_item(field, f"{field}:{msg}", kind)],
        headers=headers,
    )


def _from_validation(e: ValidationError) -> HTTPException:
    items = []
    for err in e.errors():
        loc = [str(x) for x in err.get("loc", ())]
        field = loc[0] if loc else "body"  # the bodies are flat: the first step names the field
        text = _KIND.get(err.get("type", ""), err.get("msg", W["from_validation.get"]))
        items.append(error_item(field, f"{field}:{text}", err.get("type", "value_error"), ["body", *loc]))
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
            raise fail(415, "content-type", W["json_body.read.fail"], "unsupported_media_type")
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            raise fail(413, "body", W.f("json_body.read.fail_2", v=MAX_BODY_BYTES // 1024), "too_large")
        raw = bytearray()
        try:
            async with asyncio.timeout(BODY_READ_TIMEOUT_S):
                async for chunk in request.stream():
                    raw += chunk
                    if len(raw) > MAX_BODY_BYTES:
                        raise fail(413, "body", W.f("json_body.read.fail_3", v=MAX_BODY_BYTES // 1024), "too_large")
        except TimeoutError:
            raise fail(
                408, "body", W.f("json_body.read.fail_4", body_read_timeout_s=BODY_READ_TIMEOUT_S), "timeout"
            ) from None
        try:
            return model.model_validate_json(bytes(raw))
        except ValidationError as e:
            raise _from_validation(e) from None

    return read


def gone(code: str) -> HTTPException:
    return HTTPException(
        404,
        detail=[error_item("code", W.f("gone.msg", v=code[:12]), "not_found", ["path", "code"])],
    )


def ended(code: str) -> HTTPException:
    return HTTPException(
        410,
        detail=[error_item("code", W.f("ended.msg", code=code), "ended", ["path", "code"])],
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
    """A number a phone sent (an answer, a prediction): typed text is read as the page's answers are
    ("1,024", "4.02×10²²", "７３．７": app/answers.py), 1024 as is; else a 422 naming ``value`` and
    saying what was not understood."""
    if isinstance(value, bool):
        raise fail(422, "value", W["kind.float_parsing"], "float_parsing")
    if isinstance(value, str):
        read = answers.read(value)
        if read.error or read.unit:  # a unit is read by the caller that knows the question's
            raise fail(422, "value", read.error or W["kind.float_parsing"], "float_parsing")
        value = read.value
    try:
        number = float(value)
    except ValueError:
        raise fail(422, "value", W["kind.float_parsing"], "float_parsing") from None
    if not math.isfinite(number):
        raise fail(422, "value", W["kind.finite_number"], "finite_number")
    if abs(number) > MAX_ANSWER:
        raise fail(422, "value", W.f("number_answer.fail", max_answer=MAX_ANSWER), "less_than_equal")
    return number


def path_number(value: str, field: str, top: int, what: str) -> int:
    """A number from the path (a question's, a sweep's): 1…``top``, else a 422 naming ``field`` (never an
    overflow in the store)."""
    if not (value.isascii() and value.isdigit() and len(value) <= 6 and 1 <= int(value) <= top):
        raise HTTPException(
            422,
            detail=[
                error_item(
                    field,
                    W.f("path_number.msg", field=field, what=what, top=top),
                    "out_of_range",
                    ["path", field],
                    value[:24],
                )
            ],
        )
    return int(value)


def qid_param(
    qid: Annotated[
        str, Path(description=W.f("module.description", max_questions=MAX_QUESTIONS), json_schema_extra=QID_SCHEMA)
    ],
) -> int:
    """A question number from the path: 1…MAX_QUESTIONS, else 422 naming ``qid``."""
    return path_number(qid, "qid", MAX_QUESTIONS, W["qid_param.path_number"])


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
        why = W["participant_of"] if not credential else W["participant_of_2"]
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
                W["check_token.fail"],
                "unauthorized",
                {"WWW-Authenticate": "Bearer"},
            )
        return False
    if not token_matches(tok, session.token_hash):
        raise fail(403, "authorization", W["check_token.fail_2"], "forbidden")
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
        raise fail(422, field, W.f("card_state.fail", v=card_name[:40]), "unknown_card")
    card: Card = REGISTRY[cid]
    try:
        return card, parse_query(card, parse_qsl(query, keep_blank_values=True))
    except ParamError as e:
        raise HTTPException(422, detail=e.errors) from None
