"""Tensor parallel as a card parameter: the degree ``tp`` (1, 2, 4, 8), an optional interconnect override
for accelerators without a recorded link (a reader's own ``custom:`` card), the rule between them, and
the accelerator's link and dense peaks as traced inputs. Shared by the planner and the chapter-1 cards."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import Field, ValidationInfo

from ...cards import number_type, slider
from ...data import CUSTOM_GPU, PEAK_FIELDS, gpu
from ...trace import given

TP_OPTIONS: dict[int, str] = {1: "1(单卡)", 2: "2 张卡", 4: "4 张卡", 8: "8 张卡"}
LINK_RULE = "tp > 1 时加速器须有互连带宽:预设里收录的,或 link_gbps(互连带宽覆盖)"


def tp_choice(default: int = 1) -> Any:
    """The tensor-parallel degree: a select of 1, 2, 4, 8 (a JSON number), book symbol tp."""
    extra: dict[str, Any] = {
        "control": "select",
        "options": TP_OPTIONS,
        "label": "张量并行 tp",
        "illustrative": False,
        "sym": "tp",
    }
    return Field(default, description="张量并行度 tp:模型切到几张卡上(1 = 不切)", json_schema_extra=extra)


def link_override() -> Any:
    """Optional interconnect bandwidth (GB/s, one direction); blank = the accelerator's own."""
    return slider(
        None,
        ge=1,
        le=2000,
        step=1,
        label="互连带宽 β_link(覆盖)",
        unit="GB/s",
        placeholder="按加速器",
        sym="β_{link}",
        help="每卡单向的卡间互连带宽;不填则用加速器预设的值(自定义加速器在 tp > 1 时必须填)",
    )


def require_link(tp: int, info: ValidationInfo) -> int:
    """The rule on ``tp`` (declared after ``gpu`` and ``link_gbps``): tp > 1 needs a link."""
    ref, link = info.data.get("gpu"), info.data.get("link_gbps")
    if tp > 1 and ref is not None and link is None and gpu(ref).interconnect_gbps is None:
        raise ValueError("tp > 1 要走卡间互连,但该加速器没有收录互连带宽;请在“互连带宽 β_link(覆盖)”里填写")
    return tp


# The degree's type carries the link rule, so a card declares ``gpu``, ``link_gbps`` and ``tp`` (in that
# order, the rule reads the two before it) and nothing more.
TpDegree = number_type(tuple(TP_OPTIONS), then=require_link)


def _source(ref: str) -> str:
    g = gpu(ref)
    return ("自定义 GPU" if ref.startswith(CUSTOM_GPU) else f"{g.name} 预设") + "(data/gpus.json)"


def link_bytes_s(ref: str, override_gbps: float | None) -> float | None:
    """β_link in B/s: the override (a traced slider) or the preset's one-direction link, None if neither."""
    if override_gbps is not None:
        return override_gbps * 1e9
    link = _preset_link_gbps(ref)
    return None if link is None else link * 1e9


@lru_cache(maxsize=256)
def _preset_link_gbps(ref: str) -> float | None:
    """The preset's one-direction link (GB/s) as a traced input, made once per accelerator: an input
    leaf is immutable, so one is shared as a module-level preset's is."""
    g = gpu(ref)
    if g.interconnect_gbps is None:
        return None
    return given(g.interconnect_gbps, "β_{link}", "GB/s", source=f"{_source(ref)}:{g.interconnect or '互连'},单向")


PEAK_SYMBOLS = {"bf16": "Π", "fp8": "Π_{FP8}", "fp4": "Π_{FP4}"}


def peaks_flops(ref: str) -> dict[str, float]:
    """The recorded dense peaks (FLOP/s) by compute format, each a traced input naming its source."""
    g = gpu(ref)
    return {
        f: given(t, PEAK_SYMBOLS[f], "TFLOP/s", source=_source(ref) + ",稠密") * 1e12
        for f in PEAK_FIELDS
        if (t := g.peak_tflops(f)) is not None
    }
