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
from ..errors import ErrorBody
from .model_report import steps
from .model_schema import CROSS_FIELD_RULES, config_schema, schema_error

CROSS_FIELD = "跨字段规则(schema 无法表达,违反时 422):"

MAX_BODY = 1_000_000  # bytes (1 MB); a config.json is a few KB

router = APIRouter(tags=["模型配置"])


class DerivedModel(BaseModel):
    architecture: str = Field(description="架构简称,如「MoE 256 选 8 + 1 共享专家 + MLA」")
    model_type: str
    n_layers: int
    hidden_size: int
    vocab_size: int
    tied_embeddings: bool
    params_total: int = Field(description="总参数(所有专家;不含视觉塔、MTP 模块)")
    params_active: int = Field(description="每 token 经过的参数(MoE:top-k 路由专家 + 共享专家),含输入嵌入表")
    params_active_excl_embedding: int = Field(
        description="同上但不含输入嵌入表(发布方的口径:gpt-oss 模型卡的 5.1B、Qwen 的 A3B);共享嵌入时等于 params_active"
    )
    params_vision: int = Field(
        description="多模态 config 的视觉塔参数(vLLM 会加载它;不计入 params_total;认不出的视觉塔为 0 并在 defaults_used 里说明)"
    )
    mtp_layers: int = Field(description="checkpoint 里的 MTP(多 token 预测)层数:不计入参数,vLLM 只在开投机解码时加载")
    params_mtp: int = Field(
        description="MTP 层的参数(每层按最后一个解码层 + eh_proj 2h→h + 两个 RMSNorm 计);不计入 params_total"
    )
    text_model_of: str | None = Field(description="多模态 config 时它的 model_type:只算 text_config 的语言模型")
    weight_bytes: int = Field(
        description="权重按 checkpoint 的存储(quantization_config:缩放因子、打包、保持 16 位的模块都算上)"
    )
    weight_format: str = Field(description="checkpoint 的存储格式与规则")
    weight_format_source: str = Field(
        description="存储格式取自哪个文件:config.json 的 quantization_config,或 hf_quant_config.json(NVIDIA ModelOpt)"
    )
    weight_bytes_bf16: int = Field(description="全部参数按 BF16(2 B)的字节")
    kv_bytes_per_token: int = Field(description="BF16 KV 缓存每 token,所有注意力层都按保留全部 token 的最坏情况")
    kv_bytes_per_token_full_layers: int = Field(
        description="只算全注意力层(滑动窗口 / 分块注意力层最多保留 sliding_window 个 token)"
    )
    state_bytes_per_sequence: int = Field(
        description="线性注意力层每条序列的固定状态(卷积 + 递推),与上下文无关;没有则 0"
    )
    sliding_window: int | None
    n_sliding_layers: int
    n_linear_attention_layers: int = Field(
        description="线性注意力(Gated DeltaNet)或 Mamba-2 层数:它们没有逐 token 的 KV,只有每条序列的固定状态"
    )
    kv_bytes_by_context: dict[str, int] = Field(
        description="一个序列在给定上下文长度时的 KV 字节(窗口层封顶),加上固定状态"
    )
    n_experts: int
    experts_per_token: int
    weight_read_bytes_per_token: int = Field(description="BF16 解码一步读的权重:激活权重,嵌入表只读一行(共享时整张)")
    flops_per_token: int = Field(description="每 token 2×(激活矩阵 + LM 头),不含注意力")
    defaults_used: dict[str, int | bool | str | list | None] = Field(
        description="config.json 没写、按该 model_type 的 transformers 默认值取的字段"
    )
    steps: list[str] = Field(description="推导步骤,数字已代入")


class PresetModel(BaseModel):
    id: str
    architecture: str
    model_type: str
    params_total: int
    params_active: int
    params_active_excl_embedding: int
    kv_bytes_per_token: int
    weight_bytes: int = Field(description="权重按 checkpoint 的存储")
    state_bytes_per_sequence: int = Field(description="线性注意力层每条序列的固定状态;没有则 0")
    api: str


class PresetList(BaseModel):
    models: list[PresetModel]


def _error(kind: str, msg: str, field: str = "body") -> JSONResponse:
    loc = ["body"] if field == "body" else ["body", field]
    return JSONResponse(
        {"detail": [{"loc": loc, "field": field, "type": kind, "msg": msg, "input": None}]},
        status_code=422,
        headers={"Cache-Control": "no-store"},
    )


def _reject_constant(name: str):
    raise ValueError(name)


async def _read_limited(request: Request) -> bytes | JSONResponse:
    cl = request.headers.get("content-length")
    if cl is not None:
        if not cl.strip().isdigit():
            return _error("content_length_invalid", f"body:Content-Length 不是整数({cl[:20]!r})")
        if int(cl) > MAX_BODY:
            return _error(
                "body_too_large",
                f"body:请求体 {int(cl):,} 字节,超过上限 {MAX_BODY:,} 字节(1 MB);config.json 通常只有几 KB",
            )
    buf = bytearray()
    async for chunk in request.stream():
        buf += chunk
        if len(buf) > MAX_BODY:
            return _error("body_too_large", f"body:请求体超过上限 {MAX_BODY:,} 字节(1 MB);config.json 通常只有几 KB")
    return bytes(buf)


@router.post(
    "/api/models/derive",
    response_model=DerivedModel,
    summary="从 config.json 推导参数量、KV、读写与 FLOPs",
    description=CROSS_FIELD + ";".join(CROSS_FIELD_RULES),
    responses={
        422: {"model": ErrorBody, "description": "请求体不是 JSON 对象,或 config.json 缺字段/架构不支持"},
        413: {"model": ErrorBody, "description": "请求体超过 1 MB"},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "Hugging Face 的 config.json(JSON 对象);NVIDIA ModelOpt 的 checkpoint 可把 hf_quant_config.json 的内容放在键 hf_quant_config 下一起发",
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
        return _error("json_invalid", "body:请求体不是有效的 JSON")
    if not isinstance(cfg, dict):
        return _error("type_error", f"body:请求体应为 JSON 对象(config.json),收到 {type(cfg).__name__}")
    try:
        a = analyze(cfg)
        out = {**derived(a), "steps": steps(a)}
    except ConfigError as e:
        return _error("config_error", f"{e.field or 'body'}:{e}", e.field or "body")
    bad = schema_error(cfg)  # the published schema holds too (types of fields this family ignores)
    if bad is not None:
        return _error("schema_error", bad[1], bad[0])
    return JSONResponse(DerivedModel(**out).model_dump(mode="json"), headers={"Cache-Control": "no-store"})


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


@router.get("/api/models", response_model=PresetList, summary="可推导的预置模型")
def list_models() -> dict:
    return {"models": list(_presets())}
