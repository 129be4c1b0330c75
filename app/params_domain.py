"""Domain parameter types for cards: a GPU (a preset or a reader's own ``custom:GB,TB/s,TFLOP/s``)
and a model (a preset or a reader's own ``config.json``, ``cfg:…``). They live here, not in the
generic engine; chapter modules import them.

``gpu_of`` / ``shape_of_model`` return the facts as traced inputs, so a derivation says where a
number came from ("H100 SXM 预设") rather than printing a bare constant.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Annotated, Any

from pydantic import AfterValidator, Field, WithJsonSchema

from .calculators.model_config import ConfigError, ModelShape, shape_of
from .data import CUSTOM_GPU, CUSTOM_MODEL, GPU_LIMITS, Gpu, gpu, model_config, parse_custom_gpu
from .format import compact
from .numpattern import decimal_range
from .trace import leaf
from .words import words_for

W = words_for(__name__)


def _check_gpu(v: str, allowed: tuple[str, ...]) -> str:
    if v in allowed:
        return v
    if v.startswith(CUSTOM_GPU):
        parse_custom_gpu(v)
        return v
    raise ValueError(
        W["check_gpu.valueerror"] + W["check_gpu.valueerror_2"].join(allowed) + W["check_gpu.valueerror_3"]
    )


def _check_model(v: str, allowed: tuple[str, ...]) -> str:
    if v in allowed:
        return v
    if v.startswith(CUSTOM_MODEL):
        if not re.fullmatch(r"cfg:[A-Za-z0-9_-]{8,6000}", v):
            raise ValueError(W["check_model.valueerror"])
        try:
            shape_of(model_config(v))
        except (ConfigError, KeyError, TypeError) as e:
            raise ValueError(W.f("check_model.valueerror_2", e=e)) from None
        return v
    raise ValueError(
        W["check_gpu.valueerror"] + W["check_gpu.valueerror_2"].join(allowed) + W["check_model.valueerror_3"]
    )


def gpu_type(ids: Sequence[str]) -> Any:
    """A GPU parameter type: one of ``ids`` or a reader's own card ``custom:mem,bw,tflops``; the
    schema's pattern carries the bounds of each part (``data.GPU_LIMITS``)."""
    allowed = tuple(ids)
    parts = ",".join(decimal_range(lo, hi) for lo, hi in GPU_LIMITS.values())
    assert all(re.fullmatch(r"[a-z0-9-]+", a) for a in allowed), allowed  # literal in a regex
    pattern = "^(?:" + "|".join(allowed) + f"|custom:{parts})$"
    return Annotated[
        str,
        AfterValidator(lambda v: _check_gpu(v, allowed)),
        WithJsonSchema(
            {
                "type": "string",
                "pattern": pattern,
                "maxLength": 200,
                "description": W["gpu_type.description"]
                + W["check_gpu.valueerror_2"].join(f"{compact(lo)}–{compact(hi)}" for lo, hi in GPU_LIMITS.values())
                + W["gpu_type.description_2"],
            }
        ),
    ]


MODEL_CONFIG_FORMAT = "model-config"  # JSON Schema format of a cfg: value (a compressed config.json)


def model_type(ids: Sequence[str]) -> Any:
    """A model parameter type: one of ``ids`` or a reader's own ``config.json`` (``cfg:…``). That a
    ``cfg:`` value decodes to a readable config is beyond a pattern: the schema names it as the
    format ``model-config``."""
    allowed = tuple(ids)
    return Annotated[
        str,
        AfterValidator(lambda v: _check_model(v, allowed)),
        WithJsonSchema(
            {
                "anyOf": [
                    {"type": "string", "enum": list(allowed)},
                    {
                        "type": "string",
                        "format": MODEL_CONFIG_FORMAT,
                        "pattern": "^cfg:[A-Za-z0-9_-]{8,6000}$",
                        "description": W["model_type.description"],
                    },
                ]
            }
        ),
    ]


def gpu_choice(
    default: str, options: dict[str, str], *, label: str = W["module"], help: str = "", illustrative: bool = False
) -> Any:
    """A GPU select with a “自定义” entry (memory GB, bandwidth TB/s, dense BF16 TFLOP/s)."""
    extra: dict[str, Any] = {
        "control": "select",
        "options": options,
        "label": label,
        "custom": "gpu",
        "illustrative": illustrative,
    }
    return Field(default, description=help or label, json_schema_extra=extra)


def model_choice(default: str, options: dict[str, str], *, label: str = W["module_2"], help: str = "") -> Any:
    """A model select with a “自定义” entry: paste or upload a Hugging Face config.json."""
    extra: dict[str, Any] = {"control": "select", "options": options, "label": label, "custom": "model"}
    return Field(default, description=help or label, json_schema_extra=extra)


GPU_SYMBOLS = {"mem_gb": ("M", "GB"), "bw_tbps": ("β", "TB/s"), "bf16_tflops": ("Π", "TFLOP/s")}


@lru_cache(maxsize=256)
def gpu_of(ref: str) -> Gpu:
    """The GPU's numbers as traced inputs (memory M, bandwidth β, BF16 peak Π) naming their source
    (made once per GPU: a frozen record of immutable traced numbers)."""
    g = gpu(ref)
    src = (W["gpu_of"] if ref.startswith(CUSTOM_GPU) else W.f("gpu_of_2", name=g.name)) + "(data/gpus.json)"
    upd = {
        f: leaf(getattr(g, f), sym, unit, src) for f, (sym, unit) in GPU_SYMBOLS.items() if getattr(g, f) is not None
    }
    return dataclasses.replace(g, **upd)


_SHAPE_SYMBOLS = {
    "n_layers": "L",
    "hidden": "h",
    "n_heads": "n_h",
    "n_kv_heads": "n_{kv}",
    "head_dim": "d_h",
    "vocab": "V",
    "embedding_params": "N_{emb}",
    "lm_head_params": "N_{head}",
    "linear_params": "N_{lin}",
    "active_linear_params": "N_{lin,act}",
    "other_params": "N_{norm}",
    "kv_bytes_per_token_bf16": "kv",
    "kv_window_bytes_per_token": "kv_{win}",
    "sliding_window": "W",
    "n_sliding_layers": "L_{win}",
}


@lru_cache(maxsize=128)
def shape_of_model(ref: str, name: str = "") -> ModelShape:
    """A model's shape with its counts as traced inputs (source: its config.json). Cached: a config
    is counted once per process (the shape is frozen; traced inputs cost nothing when not tracing)."""
    s = shape_of(model_config(ref))
    src = W.f("shape_of_model", v=name or ("自定义 config.json" if ref.startswith(CUSTOM_MODEL) else ref))
    upd = {
        f: leaf(getattr(s, f), sym, "B" if "bytes" in f else "", src)
        for f, sym in _SHAPE_SYMBOLS.items()
        if isinstance(getattr(s, f), int) and not isinstance(getattr(s, f), bool)
    }
    return dataclasses.replace(s, **upd)
