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
from ...words import words_for

W = words_for(__name__)

TP_OPTIONS: dict[int, str] = {
    1: W["tp_options.t"],
    2: W["tp_options.t_2"],
    4: W["tp_options.t_3"],
    8: W["tp_options.t_4"],
}
LINK_RULE = W["link_rule"]


def tp_choice(default: int = 1) -> Any:
    """The tensor-parallel degree: a select of 1, 2, 4, 8 (a JSON number), book symbol tp."""
    extra: dict[str, Any] = {
        "control": "select",
        "options": TP_OPTIONS,
        "label": W["tp_choice.extra.label"],
        "illustrative": False,
        "sym": "tp",
    }
    return Field(default, description=W["tp_choice.description"], json_schema_extra=extra)


def link_override() -> Any:
    """Optional interconnect bandwidth (GB/s, one direction); blank = the accelerator's own."""
    return slider(
        None,
        ge=1,
        le=2000,
        step=1,
        label=W["link_override.label"],
        unit="GB/s",
        placeholder=W["link_override.placeholder"],
        sym="β_{link}",
        help=W["link_override.help"],
    )


def require_link(tp: int, info: ValidationInfo) -> int:
    """The rule on ``tp`` (declared after ``gpu`` and ``link_gbps``): tp > 1 needs a link."""
    ref, link = info.data.get("gpu"), info.data.get("link_gbps")
    if tp > 1 and ref is not None and link is None and gpu(ref).interconnect_gbps is None:
        raise ValueError(W["require_link.valueerror"])
    return tp


# The degree's type carries the link rule, so a card declares ``gpu``, ``link_gbps`` and ``tp`` (in that
# order, the rule reads the two before it) and nothing more.
TpDegree = number_type(tuple(TP_OPTIONS), then=require_link)


def _source(ref: str) -> str:
    g = gpu(ref)
    return (W["source"] if ref.startswith(CUSTOM_GPU) else W.f("source_2", name=g.name)) + "(data/gpus.json)"


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
    return given(
        g.interconnect_gbps,
        "β_{link}",
        "GB/s",
        source=W.f(
            "preset_link_gbps.source", source=_source(ref), v=g.interconnect or W["preset_link_gbps.interconnect"]
        ),
    )


PEAK_SYMBOLS = {"bf16": "Π", "fp8": "Π_{FP8}", "fp4": "Π_{FP4}"}


def peaks_flops(ref: str) -> dict[str, float]:
    """The recorded dense peaks (FLOP/s) by compute format, each a traced input naming its source."""
    g = gpu(ref)
    return {
        f: given(t, PEAK_SYMBOLS[f], "TFLOP/s", source=_source(ref) + W["peaks_flops.source"]) * 1e12
        for f in PEAK_FIELDS
        if (t := g.peak_tflops(f)) is not None
    }
