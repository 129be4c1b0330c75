"""``/api/models``: the model-config calculator as an API. ``POST /api/models/derive`` takes a
Hugging Face ``config.json`` object and returns ``model_config.derive`` (parameter counts, KV bytes
per token, decode read and FLOPs, the derivation steps); ``GET /api/models`` lists the presets in
``data/models/`` the calculator can read. Bad input is a 422 in the app's field-named error shape."""

from __future__ import annotations

import json
from functools import lru_cache

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from ..calculators.model_config import ConfigError, analyze, derive, derived
from ..data import model_config, model_ids
from ..errors import ErrorBody, error_item, error_response
from ..words import localize_deep, words_for
from .model_report import steps
from .model_schema import CROSS_FIELD_RULES, config_schema, schema_error

W = words_for(__name__)

CROSS_FIELD = W["cross_field"]

MAX_BODY = 1_000_000  # bytes (1 MB); a config.json is a few KB

router = APIRouter(tags=[W["router.tags"]])


class DerivedModel(BaseModel):
    architecture: str = Field(description=W["derivedmodel.architecture.description"])
    model_type: str
    n_layers: int
    hidden_size: int
    vocab_size: int
    tied_embeddings: bool
    params_total: int = Field(description=W["derivedmodel.params_total.description"])
    params_active: int = Field(description=W["derivedmodel.params_active.description"])
    params_active_excl_embedding: int = Field(description=W["derivedmodel.params_active_excl_embedding.description"])
    params_vision: int = Field(description=W["derivedmodel.params_vision.description"])
    mtp_layers: int = Field(description=W["derivedmodel.mtp_layers.description"])
    params_mtp: int = Field(description=W["derivedmodel.params_mtp.description"])
    text_model_of: str | None = Field(description=W["derivedmodel.text_model_of.description"])
    weight_bytes: int = Field(description=W["derivedmodel.weight_bytes.description"])
    weight_format: str = Field(description=W["derivedmodel.weight_format.description"])
    weight_format_source: str = Field(description=W["derivedmodel.weight_format_source.description"])
    weight_bytes_bf16: int = Field(description=W["derivedmodel.weight_bytes_bf16.description"])
    kv_bytes_per_token: int = Field(description=W["derivedmodel.kv_bytes_per_token.description"])
    kv_bytes_per_token_full_layers: int = Field(
        description=W["derivedmodel.kv_bytes_per_token_full_layers.description"]
    )
    state_bytes_per_sequence: int = Field(description=W["derivedmodel.state_bytes_per_sequence.description"])
    sliding_window: int | None
    n_sliding_layers: int
    n_linear_attention_layers: int = Field(description=W["derivedmodel.n_linear_attention_layers.description"])
    kv_bytes_by_context: dict[str, int] = Field(description=W["derivedmodel.kv_bytes_by_context.description"])
    n_experts: int
    experts_per_token: int
    weight_read_bytes_per_token: int = Field(description=W["derivedmodel.weight_read_bytes_per_token.description"])
    flops_per_token: int = Field(description=W["derivedmodel.flops_per_token.description"])
    defaults_used: dict[str, int | bool | str | list | None] = Field(
        description=W["derivedmodel.defaults_used.description"]
    )
    steps: list[str] = Field(description=W["derivedmodel.steps.description"])


class PresetModel(BaseModel):
    id: str
    architecture: str
    model_type: str
    params_total: int
    params_active: int
    params_active_excl_embedding: int
    kv_bytes_per_token: int
    weight_bytes: int = Field(description=W["presetmodel.weight_bytes.description"])
    state_bytes_per_sequence: int = Field(description=W["presetmodel.state_bytes_per_sequence.description"])
    api: str


class PresetList(BaseModel):
    models: list[PresetModel]


def _error(kind: str, msg: str, field: str = "body") -> JSONResponse:
    loc = ["body"] if field == "body" else ["body", field]
    return error_response(422, [error_item(field, msg, kind, loc)], headers={"Cache-Control": "no-store"})


def _reject_constant(name: str):
    raise ValueError(name)


async def _read_limited(request: Request) -> bytes | JSONResponse:
    cl = request.headers.get("content-length")
    if cl is not None:
        if not cl.strip().isdigit():
            return _error("content_length_invalid", W.f("read_limited.error", v=cl[:20]))
        if int(cl) > MAX_BODY:
            return _error(
                "body_too_large",
                W.f("read_limited.error_2", int=int(cl), max_body=MAX_BODY),
            )
    buf = bytearray()
    async for chunk in request.stream():
        buf += chunk
        if len(buf) > MAX_BODY:
            return _error("body_too_large", W.f("read_limited.error_3", max_body=MAX_BODY))
    return bytes(buf)


@router.post(
    "/api/models/derive",
    response_model=DerivedModel,
    summary=W["api_models_derive.summary"],
    description=CROSS_FIELD + ";".join(CROSS_FIELD_RULES),
    responses={
        422: {"model": ErrorBody, "description": W["api_models_derive.description"]},
        413: {"model": ErrorBody, "description": W["api_models_derive.description_2"]},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": W["api_models_derive.description_3"],
            "content": {"application/json": {"schema": config_schema()}},
        }
    },
)
async def derive_config(request: Request):
    raw = await _read_limited(request)
    if isinstance(raw, JSONResponse):
        return raw
    try:
        cfg = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return _error("json_invalid", W["derive_config.error"])
    if not isinstance(cfg, dict):
        return _error("type_error", W.f("derive_config.error_2", name=type(cfg).__name__))
    try:
        a = analyze(cfg)
        out = {**derived(a), "steps": steps(a)}
    except ConfigError as e:
        return _error("config_error", f"{e.field or 'body'}:{e}", e.field or "body")
    bad = schema_error(cfg)  # the published schema holds too (types of fields this family ignores)
    if bad is not None:
        return _error("schema_error", bad[1], bad[0])
    body = DerivedModel(**localize_deep(out)).model_dump(mode="json")  # words in the edition asked (lang=en)
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


@lru_cache(maxsize=1)
def _presets() -> tuple[dict, ...]:
    out = []
    for mid in model_ids():
        try:
            d = derive(model_config(mid))
        except ConfigError:
            continue  # not a decoder config.json (vision tower, DiT, …)
        out.append(
            {
                "id": mid,
                "architecture": d["architecture"],
                "model_type": d["model_type"],
                "params_total": d["params_total"],
                "params_active": d["params_active"],
                "params_active_excl_embedding": d["params_active_excl_embedding"],
                "kv_bytes_per_token": d["kv_bytes_per_token"],
                "weight_bytes": d["weight_bytes"],
                "state_bytes_per_sequence": d["state_bytes_per_sequence"],
                "api": "/api/models/derive",
            }
        )
    return tuple(out)


@router.get("/api/models", response_model=PresetList, summary=W["api_models.summary"])
def list_models() -> dict:
    return localize_deep({"models": list(_presets())})
