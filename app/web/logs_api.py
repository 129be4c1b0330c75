"""/tools/log and its API (issue 41): a pasted log parsed in memory (``calculators.logparse``), its figures
beside their bounds (``calculators.reconcile``), in the page's words (``chapters.tools.log``). No math here.

* ``POST /api/logs/parse`` ``{"text": …}`` → the formats and fields found;
* ``POST /api/logs/reconcile`` ``{"text": …}`` or ``{"fields": {…}}``, plus ``settings`` → each row with its
  bound, share, derivation, card and verdict, and the result's address;
* ``GET /tools/log`` the page; with fields in its query, the result; ``POST /tools/log`` (the page's form)
  answers 303 to that address, which holds numbers and settings only.

The log is never stored, echoed or logged: a bad paste answers with what was expected, not with what was
sent. Bodies over ``limits.MAX_BODY`` are refused with 413 before they are read (the one size limit)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, Field, ValidationError

from ..calculators import logparse, reconcile
from ..chapters.tools import log as page
from ..charts.logs import floor_chart, share_bars
from ..data import encode_config
from ..errors import ErrorBody, error_item, error_response
from ..render import render
from ..words import localize, localize_deep, words_for
from .limits import MAX_BODY
from .responses import NO_STORE, PAGE_CACHE, html

W = words_for(__name__)

router = APIRouter(tags=[W["router.tags"]])


class ParseBody(BaseModel):
    text: str = Field(max_length=MAX_BODY, description=W["parsebody.text.description"])


class ReconcileBody(BaseModel):
    text: str | None = Field(None, max_length=MAX_BODY, description=W["reconcilebody.text.description"])
    fields: dict[str, float | int | str] | None = Field(None, description=W["reconcilebody.fields.description"])
    settings: page.LogSettings = Field(default_factory=page.LogSettings)


def _error(kind: str, status: int = 422, where: str = "text", **values: Any) -> JSONResponse:
    msg = page.error_text(kind, **values)
    return error_response(status, [error_item(where, msg, kind)])


class FoundFormat(BaseModel):
    format: str = Field(
        description="vllm_startup · vllm_bench · sglang_startup · sglang_bench · llama_bench · llama_batched_bench · mlperf"
    )
    fields: dict[str, float | int | str]
    rows: list[dict[str, float | int | str]] = Field(description=W["foundformat.rows.description"])


class ParseResult(BaseModel):
    formats: list[str]
    fields: dict[str, float | int | str] = Field(description=W["parseresult.fields.description"])
    found: list[FoundFormat]


class RowResult(BaseModel):
    key: str
    item: str
    kind: str = Field(description=W["rowresult.kind.description"])
    measured: float
    bound: float | None
    unit: str
    pct: float | None = Field(description=W["rowresult.pct.description"])
    measured_text: str
    bound_text: str
    pct_text: str
    card: str
    card_url: str
    verdict: str
    derivation: str


class ReconcileResult(BaseModel):
    rows: list[RowResult]
    missing: list[str]
    batch: float | None
    batch_note: str
    context: int | None
    chart: dict | None = Field(description=W["reconcileresult.chart.description"])
    fields: dict[str, float | int | str]
    address: str = Field(description=W["reconcileresult.address.description"])


REFUSED: dict[int | str, dict[str, Any]] = {
    422: {
        "model": ErrorBody,
        "description": W["refused.description"],
    },
    413: {"model": ErrorBody, "description": W["refused.description_2"]},
}


def _parse(text: str) -> logparse.Parsed:
    if not text.strip():
        raise logparse.LogError("empty")
    return logparse.parse(text)


def _error_of(e: logparse.LogError) -> tuple[str, dict]:
    return e.kind, ({"what": e.detail} if e.kind == "truncated" else {})


def address(fields: dict[str, logparse.Value], settings: page.LogSettings, formats: tuple[str, ...]) -> str:
    """The result's address: the parsed numbers and the settings that differ from the defaults."""
    q: list[tuple[str, str]] = [("fmt", f) for f in formats]
    q += [(k, page.encode_value(v)) for k, v in fields.items()]
    for k in page.SETTING_KEYS:
        v = getattr(settings, k)
        if v is not None and v != getattr(page.DEFAULTS, k):
            q.append((f"s_{k}", str(v)))
    return "/tools/log?" + urlencode(q)


class Unreconcilable(ValueError):
    """The figures or settings are beyond what the bounds can be computed for (a 422, never a 500)."""


def result(fields: dict[str, logparse.Value], st: page.LogSettings) -> dict[str, Any]:
    try:
        rec = reconcile.reconcile(fields, page.setup(st, fields))
        return {
            "rows": [page.row_view(r) for r in rec.rows],
            "missing": [page.WORDS["missing"][m] for m in rec.missing],
            "batch": rec.batch,
            "batch_note": page.batch_note(rec),
            "context": rec.context,
            "chart": chart(rec),
        }
    except (ValueError, OverflowError, ZeroDivisionError) as e:
        raise Unreconcilable from e


def chart(rec: reconcile.Reconciled) -> dict | None:
    names = localize_deep(dict(page.WORDS["chart"]))
    if rec.curve is not None:
        c = rec.curve
        ms = [1e3 * x for x in c.floor_s]
        pts = [(b, 1e3 * s) for b, s, _ in c.points]
        return floor_chart(c.batches, ms, [1e3 * x for x in c.read_s], [1e3 * x for x in c.compute_s], pts, names)
    rows = [r for r in rec.rows if r.pct is not None]
    if not rows:
        return None
    items = [str(localize(page.row_view(r)["item"])) for r in rows]
    return share_bars(items, [100 * (r.pct or 0) for r in rows], {**names, "x": names["bars_x"]})


# Kept out of /openapi.json: a schema-valid body can still be refused for its content (no format found), which
# the schema cannot say and the property tests (tests/api/test_schemathesis.py) would count as a failure;
# docs/lab-log.md documents both operations. The response models still check every answer.
@router.post(
    "/api/logs/parse",
    response_model=ParseResult,
    responses=REFUSED,
    summary=W["api_logs_parse.summary"],
    include_in_schema=False,
)
async def parse_log(body: ParseBody, response: Response) -> Any:
    """The formats found and their fields (base units: s, bytes, tokens, tokens/s)."""
    try:
        p = _parse(body.text)
    except logparse.LogError as e:
        kind, values = _error_of(e)
        return _error(kind, **values)
    found = [{"format": f.format, "fields": f.fields, "rows": list(f.rows)} for f in p.found]
    response.headers["Cache-Control"] = NO_STORE
    return {"formats": list(p.formats), "fields": p.fields, "found": found}


@router.post(
    "/api/logs/reconcile",
    response_model=ReconcileResult,
    responses=REFUSED,
    summary=W["api_logs_reconcile.summary"],
    include_in_schema=False,
)
async def reconcile_log(body: ReconcileBody, response: Response) -> Any:
    """Each measured figure beside its bound, with the share reached, a derivation, a verdict and a card."""
    if body.fields is not None:
        fields = {}
        for k, v in body.fields.items():
            try:
                fields[k] = page.field_value(k, str(v))
            except ValueError:
                return _error("bad_field", where="fields", field=k[:48])
        formats: tuple[str, ...] = ()
    elif body.text is not None:
        try:
            p = _parse(body.text)
        except logparse.LogError as e:
            kind, values = _error_of(e)
            return _error(kind, **values)
        fields, formats = p.fields, p.formats
    else:
        return _error("empty")
    try:
        out = result(fields, body.settings)
    except Unreconcilable:
        return _error("out_of_range", where="fields")
    response.headers["Cache-Control"] = NO_STORE
    return out | {"fields": fields, "address": address(fields, body.settings, formats)}


def _settings_from(items: list[tuple[str, str]]) -> page.LogSettings:
    raw = {k[2:]: v for k, v in items if k.startswith("s_") and k[2:] in page.SETTING_KEYS and v != ""}
    return page.LogSettings(**raw)


def _page(status: int = 200, **ctx: Any) -> Response:
    base = {
        "w": page.WORDS,
        "fill": page.fill,
        "models": page.MODELS,
        "gpus": page.GPU_OPTIONS,
        "weights": page.WEIGHT_CHOICES,
        "kv_formats": list(page.KV_FORMATS),
        "settings": page.DEFAULTS,
        "errors": [],
        "res": None,
    }
    keep = status == 200 and ctx.get("res") is None  # a reader's figures are never kept by a cache
    return html(render("log.html", **(base | ctx)), PAGE_CACHE if keep else NO_STORE, status)


def _messages(e: ValidationError) -> list[str]:
    return [page.error_text("bad_setting", field=".".join(map(str, x["loc"])), msg=x["msg"]) for x in e.errors()]


@router.get("/tools/log", include_in_schema=False)
async def log_page(request: Request) -> Response:
    items = list(request.query_params.multi_items())
    try:
        st = _settings_from(items)
    except ValidationError as e:
        return _page(422, errors=_messages(e))
    formats = tuple(v for k, v in items if k == "fmt" and v in page.FORMAT_NAMES)
    fields: dict[str, logparse.Value] = {}
    for k, v in items:
        if k == "fmt" or k.startswith("s_"):
            continue
        try:
            fields[k] = page.field_value(k, v)
        except ValueError:
            return _page(422, errors=[page.error_text("bad_field", field=k[:48])], settings=st)
    if not fields:
        return _page(settings=st)
    try:
        res = result(fields, st)
    except Unreconcilable:
        return _page(422, errors=[page.error_text("out_of_range")], settings=st)
    fv = [{"name": k, "text": page.parsed_view(logparse.Parsed((), {k: v}))[0]["text"]} for k, v in fields.items()]
    return _page(settings=st, res=res, fields=fv, formats=page.formats_text(formats))


@router.post("/tools/log", include_in_schema=False)
async def log_form(request: Request) -> Response:
    """The page's form (urlencoded): parse, then 303 to the result's address."""
    raw = (await request.body()).decode("utf-8", errors="replace")
    try:
        form = dict(parse_qsl(raw, keep_blank_values=True, max_num_fields=32))
    except ValueError:
        return _page(422, errors=[page.error_text("bad_setting", field="body", msg=W["log_form.msg"])])
    text = form.pop("log", "")
    config = form.pop("config", "").strip()
    items = [(f"s_{k}", v) for k, v in form.items() if k in page.SETTING_KEYS]
    try:
        if config:
            items = [x for x in items if x[0] != "s_model"] + [("s_model", encode_config(json.loads(config)))]
        st = _settings_from(items)
    except (ValueError, ValidationError) as e:
        msgs = (
            _messages(e)
            if isinstance(e, ValidationError)
            else [page.error_text("bad_setting", field="config", msg=W["log_form.msg_2"])]
        )
        return _page(422, errors=msgs)
    try:
        p = _parse(text)
    except logparse.LogError as e:
        kind, values = _error_of(e)
        return _page(422, errors=[page.error_text(kind, **values)], settings=st)
    return RedirectResponse(address(p.fields, st, p.formats), status_code=303)
