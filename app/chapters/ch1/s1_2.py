"""Section 1.2 系统设计的关键数字: latency orders of magnitude, serial waits, Amdahl, the four
quantities, the GPU cheat sheet, weight bytes, the memory budget (图 1-7), link conversion, 练习 1-2."""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from ...calculators import amdahl, latency, memory, parallel, units
from ...calculators.units import GB, GIB
from ...cards import Figure, Note, Params, View, card, choice, slider
from ...charts import latency as lat_charts
from ...charts.memory_budget import card_budgets, weight_formats
from ...charts.scaling import delivery_bars, speedup_curve
from ...data import gpu_options, read_json
from ...format import compact
from ...outputs import data, out, outputs
from ...params_domain import gpu_choice, gpu_of, gpu_type, model_choice, model_type
from ...trace import given, name
from ...words import words_for
from ..shared import ch1 as shared
from ..shared.ch1 import CONTENT

W = words_for(__name__)

ModelId = model_type([shared.LLAMA_70B, shared.QWEN3_8B])  # or a reader's own config.json
GpuAll = gpu_type(
    ["rtx-4090", "a100-80gb-sxm", "h100-sxm", "rtx-pro-6000", "rtx-a6000"]
)  # capacity cards: every preset
PRECISION_OPTIONS = {
    "w8-g128": W["precision_options.w8_g128"],
    "bf16": W["precision_options.bf16"],
    "stored": W["precision_options.stored"],
}
PRECISION_SHORT = {"w8-g128": W["precision_short.w8_g128"], "bf16": "BF16", "stored": W["precision_short.stored"]}


def gpu_short(gid: str) -> str:
    return re.sub(r"\s*\(.*\)$", "", gpu_of(gid).name)


# ---- 1.2.1 图 1-6 (扩展) · 串行等待 · Amdahl --------------------------------------------------------------------

LADIS = W["ladis"]
OPS = latency.numbers_2009(read_json("latency_numbers_2009.json")["rows"])
ROW_OPTIONS = {o.id: W.f("row_option", zh=o.zh, label=o.label) for o in OPS}
RowId = Literal[tuple(ROW_OPTIONS)]  # type: ignore[valid-type]
OP_KEYS = {op.id: op.id.replace("-", "_") + "_ns" for op in OPS}


class LatencyParams(Params):
    row_a: RowId = choice("main-memory-reference", ROW_OPTIONS, label=W["latencyparams.row_a.label"], illustrative=True)  # type: ignore[valid-type]
    row_b: RowId = choice("disk-seek", ROW_OPTIONS, label=W["latencyparams.row_b.label"], illustrative=True)  # type: ignore[valid-type]


FIG16 = outputs(
    row_a_ns=shared.shown_out("A · [[a_name]]", lat_charts.fmt_ns, unit="ns", sym="t_A"),
    row_b_ns=shared.shown_out("B · [[b_name]]", lat_charts.fmt_ns, unit="ns", sym="t_B"),
    ratio=out(W["fig16.ratio"], unit="×", sig=3, em=True),
    slower=out(W["fig16.slower"], tile=False),
    **{
        k: shared.shown_out(lat_charts.op_name(o), lat_charts.fmt_ns, unit="ns", tile=False)
        for o, k in zip(OPS, OP_KEYS.values())
    },
    rows=data(W["fig16.rows"]),
)


@card(
    "fig-1-6",
    title=W["fig_1_6.title"],
    label=W["fig_1_6.label"],
    section="1.2",
    kind="chart",
    params=LatencyParams,
    outputs=FIG16,
    lead=W["fig_1_6.lead"],
)
def fig_1_6(p: LatencyParams) -> View:
    a, b = latency.op(OPS, p.row_a), latency.op(OPS, p.row_b)
    ta = given(a.ns, "t_A", "ns", source=W.f("op_source", name=lat_charts.op_name(a), src=LADIS))
    tb = given(b.ns, "t_B", "ns", source=W.f("op_source", name=lat_charts.op_name(b), src=LADIS))
    slower, faster = (b, a) if b.ns >= a.ns else (a, b)
    o = {
        "row_a_ns": ta,
        "row_b_ns": tb,
        "ratio": latency.ratio(ta, tb),
        "slower": slower.id,
        **{k: given(op.ns, lat_charts.op_name(op), "ns", source=LADIS) for op, k in zip(OPS, OP_KEYS.values())},
        "rows": [{"id": op.id, "label": op.label, "ns": op.ns, "category": op.category} for op in OPS],
    }
    rows = [
        {
            "id": op.id,
            "zh": op.zh,
            "label": op.label,
            "t": lat_charts.fmt_ns(op.ns),
            "cat": op.category,
            "cat_zh": lat_charts.CATEGORY_ZH[op.category],
            "a": op.id == p.row_a,
            "b": op.id == p.row_b,
        }
        for op in OPS
    ]
    return View(
        o,
        headline=W["fig_1_6.headline"],
        ctx={
            "a_name": lat_charts.op_name(a),
            "b_name": lat_charts.op_name(b),
            "slower_name": lat_charts.op_name(slower),
            "faster_name": lat_charts.op_name(faster),
        },
        figures=[
            Figure(
                lat_charts.latency_bars(OPS, a, b),
                W["fig_1_6.figures"],
                W["fig_1_6.figures_2"],
                draws=frozenset({"ratio", "row_a_ns", "row_b_ns"}),
            )
        ],
        blocks=[shared.diagram("fig-1-6", rows=rows)],
        notes=shared.notes("fig-1-6"),
    )


class SerialParams(Params):
    n_seeks: int = slider(
        20, ge=0, le=100, step=1, label=W["serialparams.n_seeks.label"], unit=W["serialparams.n_seeks.unit"]
    )
    seek_ms: float = slider(
        10, ge=0.1, le=20, step=0.1, label=W["serialparams.seek_ms.label"], unit="ms", sym="t_{seek}"
    )
    compute_ms: float = slider(
        1, ge=0.1, le=100, step=0.1, label=W["serialparams.compute_ms.label"], unit="ms", sym="t_{compute}"
    )


@card(
    "serial-wait",
    title=W["serial_wait.title"],
    section="1.2",
    kind="calculator",
    params=SerialParams,
    outputs=outputs(
        wait_ms=out(W["serial_wait.wait_ms"]),
        total_ms=out(W["serial_wait.total_ms"], em=True, sym="T"),
        wait_pct=out(W["serial_wait.wait_pct"], digits=2),
        wait_to_compute_ratio=out(W["serial_wait.wait_to_compute_ratio"], unit="×"),
    ),
    lead=W["serial_wait.lead"],
)
def serial_wait(p: SerialParams) -> View:
    s = latency.serial_wait(p.n_seeks, p.seek_ms / 1e3, p.compute_ms / 1e3)
    o = {
        "wait_ms": s.wait * 1e3,
        "total_ms": s.total * 1e3,
        "wait_pct": 100 * s.wait_frac,
        "wait_to_compute_ratio": s.wait_to_compute,
    }
    return View(
        o,
        headline=W["serial_wait.headline"],
        figures=[
            Figure(
                lat_charts.serial_timeline(p.n_seeks, p.seek_ms, o["wait_ms"], o["total_ms"]),
                W["serial_wait.figures"],
                W["serial_wait.figures_2"],
                height=200,
                draws=frozenset({"total_ms", "wait_ms", "wait_to_compute_ratio"}),
            )
        ],
        notes=shared.notes("serial-wait"),
    )


class AmdahlParams(Params):
    baseline_h: float = slider(100, ge=1, le=1000, step=1, label=W["amdahlparams.baseline_h.label"], unit="h")
    part_pct: float = slider(20, ge=0, le=100, step=1, label=W["amdahlparams.part_pct.label"], unit="%")
    part_speedup: float = slider(5, ge=1, le=100, step=0.5, label=W["amdahlparams.part_speedup.label"], unit="×")


AMDAHL = outputs(
    part_before_h=out(W["amdahl.part_before_h"]),
    part_after_h=out(W["amdahl.part_after_h"]),
    rest_h=out(W["amdahl.rest_h"]),
    new_total_h=out(W["amdahl.new_total_h"], em=True, sym="T'"),
    speedup=out(W["amdahl.speedup"], unit="×", digits=2, em=True),
    speedup_formula=out(W["amdahl.speedup_formula"], unit="×", digits=2, sym="S"),
    speedup_limit=shared.shown_out(
        W["amdahl.speedup_limit"],
        lambda v: None if math.isfinite(v) else W["amdahl.speedup_limit_2"],
        unit="×",
        digits=2,
    ),
)


@card(
    "amdahl-team",
    title=W["amdahl_team.title"],
    section="1.2",
    kind="calculator",
    params=AmdahlParams,
    outputs=AMDAHL,
    lead=W["amdahl_team.lead"],
)
def amdahl_team(p: AmdahlParams) -> View:
    f, s = p.part_pct / 100, p.part_speedup
    o = amdahl.team_outputs(p.baseline_h, p.part_pct, s)
    lim = o["speedup_limit"]
    txt = [shared.shown(AMDAHL, o, k) for k in ("rest_h", "part_before_h", "part_after_h")]
    grid = sorted({round(10 ** (2 * i / 39), 4) for i in range(40)} | {float(s)})
    finite = math.isfinite(lim)
    curve = speedup_curve(
        grid,
        [amdahl.speedup(f, x) for x in grid],
        W.f("amdahl_team.speedup_curve", part_pct=p.part_pct),
        s,
        o["speedup"],
        lim if finite else None,
        W.f("amdahl_team.limit_joined", a=W["amdahl_team.speedup_curve_2"], v=shared.shown(AMDAHL, o, "speedup_limit")),
    )
    return View(
        o,
        headline="[[baseline_h]] → [[new_total_h]]",
        figures=[
            Figure(
                delivery_bars(o["rest_h"], o["part_before_h"], o["part_after_h"], txt, p.baseline_h * 1.08),
                W["amdahl_team.figures"],
                W["amdahl_team.figures_2"],
                height=300,
                draws=frozenset({"new_total_h", "part_after_h", "part_before_h", "rest_h"}),
            ),
            Figure(
                curve,
                W["amdahl_team.figures_3"],
                W.f(
                    "amdahl_team.figures_joined",
                    a=W["amdahl_team.figures_4"],
                    b=W["amdahl_team.figures_5"] if finite else W["amdahl_team.figures_6"],
                ),
                height=300,
                draws=frozenset(
                    {
                        "new_total_h",
                        "part_after_h",
                        "part_before_h",
                        "rest_h",
                        "speedup",
                        "speedup_formula",
                        "speedup_limit",
                    }
                ),
            ),
        ],
        blocks=[shared.diagram("amdahl-team", current=p.part_pct)],
        notes=shared.notes("amdahl-team"),
    )


# ---- 1.2.2 四个量 / GPU 速查表 ---------------------------------------------------------------------------------

UTILIZATION = "MFU = F/(Π·T) ≤ 1; MBU = R/(β·T) ≤ 1"


@card(
    "four-quantities",
    title=W["four_quantities.title"],
    section="1.2",
    kind="diagram",
    outputs=outputs(
        quantities=data(W["four_quantities.quantities"]), utilization=out(W["four_quantities.utilization"], tile=False)
    ),
    lead=W["four_quantities.lead"],
)
def four_quantities(p: Params) -> View:
    qs = CONTENT["quantities"]
    return View(
        {"quantities": [{k: q[k] for k in ("id", "name", "unit", "check")} for q in qs], "utilization": UTILIZATION},
        blocks=[shared.diagram("four-quantities", quantities=qs)],
        notes=shared.notes("four-quantities"),
    )


CHEAT_GPUS = ("rtx-4090", "a100-80gb-sxm", "h100-sxm")
CHEAT_METRICS = {
    "mem_gb": (W["cheat_metrics.mem_gb"], "GB", "capacity", "n"),
    "bw_tbps": (W["cheat_metrics.bw_tbps"], "TB/s", "read", "n,c"),
    "bf16_tflops": (W["cheat_metrics.bf16_tflops"], "TFLOP/s", "compute", "n,c"),
    "read_1gb_ms": (W["cheat_metrics.read_1gb_ms"], "ms", "read", "n"),
}
CHEAT = outputs(
    **{
        f"{g.replace('-', '_')}_{m}": out(
            W.f("cheat.label", gpu=gpu_short(g), name=name), digits={"mem_gb": 0, "read_1gb_ms": 2}.get(m), tile=False
        )
        for m, (name, _, _, _) in CHEAT_METRICS.items()
        for g in CHEAT_GPUS
    },
    bars=data(W["cheat.bars"], type=dict),
)
ONE_GB = given(1, "D", "GB", source=W["one_gb.source"])


@card(
    "gpu-cheatsheet",
    title=W["gpu_cheatsheet.title"],
    section="1.2",
    kind="table",
    outputs=CHEAT,
    lead=W["gpu_cheatsheet.lead"],
)
def gpu_cheatsheet(p: Params) -> View:
    o: dict = {}
    for gid in CHEAT_GPUS:
        g, k = gpu_of(gid), gid.replace("-", "_")
        o |= {
            f"{k}_mem_gb": g.mem_gb,
            f"{k}_bw_tbps": g.bw_tbps,
            f"{k}_bf16_tflops": g.bf16_tflops,
            f"{k}_read_1gb_ms": units.transfer_time(ONE_GB * GB, g.bw_bytes_s) * 1e3,
        }
    key = {(m, g): f"{g.replace('-', '_')}_{m}" for m in CHEAT_METRICS for g in CHEAT_GPUS}
    bars = {m: {g: o[key[m, g]] / max(o[key[m, x]] for x in CHEAT_GPUS) for g in CHEAT_GPUS} for m in CHEAT_METRICS}
    rows = [
        {
            "name": W["gpu_cheatsheet.name"],
            "unit": "",
            "cells": [
                {"text": re.search(r"\((.*)\)", gpu_of(g).name).group(1), "frac": None}  # type: ignore[union-attr]
                for g in CHEAT_GPUS
            ],
        }
    ]
    rows += [
        {
            "name": name,
            "unit": unit,
            "role": role,
            "cells": [{"text": shared.shown(CHEAT, o, key[m, g], flags), "frac": bars[m][g]} for g in CHEAT_GPUS],
        }
        for m, (name, unit, role, flags) in CHEAT_METRICS.items()
    ]
    return View(
        o | {"bars": bars},
        headline=W["gpu_cheatsheet.headline"],
        blocks=[shared.diagram("gpu-cheatsheet", gpus=[gpu_short(g) for g in CHEAT_GPUS], rows=rows)],
        notes=shared.notes("gpu-cheatsheet"),
    )


# ---- 1.2.3 参数存储量 · 图 1-7 显存预算 ----------------------------------------------------------------------------


class WeightParams(Params):
    model: ModelId = model_choice(shared.LLAMA_70B, shared.MODEL_NAMES, label=W["weightparams.model.label"])  # type: ignore[valid-type]
    n_gpus: int = slider(
        2, ge=1, le=8, step=1, label=W["weightparams.n_gpus.label"], unit=W["weightparams.n_gpus.unit"]
    )
    gpu: GpuAll = gpu_choice("h100-sxm", gpu_options(compute_only=False), label=W["weightparams.gpu.label"])  # type: ignore[valid-type]


WEIGHTS = outputs(
    n_params=out(W["weights.n_params"], sym="N"),
    bf16_gb=out(W["weights.bf16_gb"], digits=2, sym="M_W"),
    bf16_gib=out(W["weights.bf16_gib"], digits=2),
    bf16_per_gpu_gb=out(W["weights.bf16_per_gpu_gb"], digits=2, sym="W_{BF16}/n"),
    bf16_fits_one_gpu=out(W["weights.bf16_fits_one_gpu"], text={True: W["weights.t"], False: W["weights.t_2"]}),
    w8_g128_gb=out(W["weights.w8_g128_gb"], digits=2, em=True, sym="M_W"),
    w8_g128_gib=out(W["weights.bf16_gib"], digits=2),
    free_after_w8_gb=out(W["weights.free_after_w8_gb"], digits=2, sym="M − M_W"),
    n_params_billion=out(W["weights.n_params_billion"], unit="×10⁹", digits=3, tile=False),
    n_params_yi=out(W["weights.n_params_yi"], unit=W["weights.unit"], digits=2, tile=False),
    bf16_bytes=out(W["weights.bf16_bytes"], tile=False),
    w8_g128_bytes=out(W["weights.w8_g128_bytes"], tile=False),
    w8_part_gb=out(W["weights.w8_part_gb"], digits=2, tile=False),
    scale_part_gb=out("scale", digits=2, tile=False),
    bf16_kept_part_gb=out(W["weights.bf16_kept_part_gb"], digits=2, tile=False),
    bf16_over_gb=out(W["weights.bf16_over_gb"], digits=2, tile=False),
    w8_per_gpu_gb=out(W["weights.w8_per_gpu_gb"], digits=2, tile="multi", sym="W_8/n"),
)


@card(
    "weight-bytes",
    title=W["weight_bytes.title"],
    section="1.2",
    kind="calculator",
    params=WeightParams,
    outputs=WEIGHTS,
    lead=W["weight_bytes.lead"],
)
def weight_bytes_card(p: WeightParams) -> View:
    s, g = shared.model(p.model), gpu_of(p.gpu)
    w8 = shared.stored_weights(s, "w8-g128")
    o = memory.weight_outputs(
        name(s.params_total, "N", ""),
        shared.stored_weights(s, "bf16"),
        w8,
        memory.weight_parts(s, "w8-g128"),
        g.mem_gb,
        p.n_gpus,
    )
    o["w8_per_gpu_gb"] = w8 / p.n_gpus / GB  # tensor parallel over n cards: every matrix split, 1/n each
    cap_name = f"{gpu_short(p.gpu)} {compact(g.mem_gb, unit='GB')}"
    per = (
        (o["bf16_per_gpu_gb"], W.f("weight_bytes_card", n_gpus=p.n_gpus) + shared.shown(WEIGHTS, o, "bf16_per_gpu_gb"))
        if p.n_gpus > 1
        else None
    )
    fig = weight_formats(
        o["bf16_gb"],
        [o["w8_part_gb"], o["scale_part_gb"], o["bf16_kept_part_gb"]],
        [shared.shown(WEIGHTS, o, k) for k in ("bf16_gb", "w8_g128_gb")],
        shared.shown(WEIGHTS, o, "w8_part_gb", "n"),
        g.mem_gb,
        cap_name,
        per,
    )
    return View(
        o,
        headline=W["weight_bytes_card.headline"],
        ctx={
            "model_name": shared.MODEL_NAMES.get(p.model, W["weight_bytes_card.model_name"]),
            "gpu_short": gpu_short(p.gpu),
            "cap_name": cap_name,
            "multi": p.n_gpus > 1,
        },
        figures=[
            Figure(
                fig,
                W["weight_bytes_card.figures"],
                W["weight_bytes_card.figures_2"],
                draws=frozenset({"bf16_gb", "bf16_per_gpu_gb", "w8_g128_gb"}),
            )
        ],
        notes=shared.notes("weight-bytes"),
    )


class BudgetParams(Params):
    model: ModelId = model_choice(shared.LLAMA_70B, shared.MODEL_NAMES, label=W["weightparams.model.label"])  # type: ignore[valid-type]
    precision: Literal["w8-g128", "bf16", "stored"] = choice(
        "w8-g128", PRECISION_OPTIONS, label=W["budgetparams.precision.label"]
    )
    kv_tokens: int = slider(8192, ge=0, le=131072, step=1024, label=W["budgetparams.kv_tokens.label"], unit="token")
    workspace_gib: float = slider(
        2, ge=0, le=16, step=0.5, label=W["budgetparams.workspace_gib.label"], unit="GiB", sym="M_{work}"
    )
    n_gpus: int = slider(
        1, ge=1, le=8, step=1, label=W["budgetparams.n_gpus.label"], unit=W["weightparams.n_gpus.unit"]
    )
    gpu: GpuAll = gpu_choice("h100-sxm", gpu_options(compute_only=False), label=W["budgetparams.gpu.label"])  # type: ignore[valid-type]


BUDGET = outputs(
    weights_gb=out(W["budget.weights_gb"], digits=2, sym="M_W"),
    kv_gb=out("KV([[kv_tokens|n]] token × [[kv_per_token_kib]])", digits=2, sym="M_{state}"),
    kv_gib=out(W["budget.kv_gib"], digits=2),
    workspace_gb=out(W["budget.workspace_gb"], digits=2, sym="M_{work}"),
    per_gpu_weights_gb=out(W["budget.per_gpu_weights_gb"], digits=2, tile="multi", ill=True),
    per_gpu_kv_gb=out(W["budget.per_gpu_kv_gb"], digits=2, tile="multi", ill=True),
    per_gpu_total_gb=out("[[total_word]]", digits=2, em=True, ill="multi", sym="M"),
    capacity_gb=out(W["budget.capacity_gb"], sym="M_{cap}"),
    fits=out(W["budget.fits"], em=True, text={True: W["budget.t"], False: W["budget.t_2"]}),
    max_kv_tokens=out(W["budget.max_kv_tokens"], unit="token", ill="multi"),
    headroom_gb=out(W["budget.headroom_gb"], digits=2, tile=False),
    over_gb=out(W["budget.over_gb"], digits=2, tile=False),
    kv_per_token_kib=out(W["budget.kv_per_token_kib"], digits=0, tile=False),
    kv_per_token_bytes=out(W["budget.kv_per_token_bytes"], tile=False, sym="kv"),
    kv_heads_per_gpu=out(W["budget.kv_heads_per_gpu"], unit=W["budget.unit"], tile="multi_gqa", sym="n_{kv,gpu}"),
    kv_replicated=out(W["budget.kv_replicated"], tile="multi", text={True: "[[replication]]", False: W["budget.t_3"]}),
)


def kv_split_notes(s: Any, n: int, heads: int, replicated: bool) -> list[Note]:
    """What the KV split over n cards looks like when it is not an even 1/n: replicated heads, uneven heads, MLA."""
    if n == 1:
        return []
    if s.mla:
        return [Note(W["kv_split_notes.note"], "warn")]
    if replicated:
        return [
            Note(
                W["kv_split_notes.note_2"],
                "warn",
            )
        ]
    if s.n_kv_heads % n:
        return [Note(W["kv_split_notes.note_3"])]
    return []


@card(
    "fig-1-7",
    title=W["fig_1_7.title"],
    label=W["fig_1_7.label"],
    section="1.2",
    kind="calculator",
    params=BudgetParams,
    outputs=BUDGET,
    lead=W["fig_1_7.lead"],
)
def fig_1_7(p: BudgetParams) -> View:
    s = shared.model(p.model)
    weights, cap = shared.stored_weights(s, p.precision), gpu_of(p.gpu).mem_gb
    o = memory.budget_outputs(weights, s.kv_bytes_per_token_bf16, p.kv_tokens, p.workspace_gib, p.n_gpus, cap)
    kv = parallel.kv_per_gpu(s, "bf16", p.n_gpus)
    o |= {"kv_heads_per_gpu": kv.heads_per_gpu, "kv_replicated": kv.replicated}
    if p.n_gpus > 1:  # the KV split follows the KV heads (tensor parallel), not an even 1/n
        o |= parallel.budget_per_gpu(
            weights,
            name(p.kv_tokens * s.kv_bytes_per_token_bf16, "M_{state}", "B"),
            parallel.kv_share(s, p.n_gpus),
            p.workspace_gib * GIB,
            p.n_gpus,
            cap * GB,
            s.kv_bytes_per_token_bf16,
        )
    multi, short = p.n_gpus > 1, gpu_short(p.gpu)
    ctx = {
        "multi": multi,
        "gpu_short": short,
        "precision_short": PRECISION_SHORT[p.precision],
        "cmp": "≤" if o["fits"] else ">",
        "total_word": W["fig_1_7.total_word"] if multi else W["fig_1_7.total_word_2"],
        "per_card": W["fig_1_7.per_card"] if multi else "",
        "card_word": W["fig_1_7.card_word"] if multi else W["fig_1_7.card_word_2"],
        "fit_word": W["fig_1_7.fit_word"]
        if o["fits"] and o["headroom_gb"] < 0.05 * o["capacity_gb"]
        else W["weights.t"],
        "multi_gqa": multi and not s.mla,
        "n_kv": s.n_kv_heads,
        "replication": W["fig_1_7.replication"] if s.mla else W["fig_1_7.replication_2"],
    }
    fig = card_budgets(
        [f"{short} #{i + 1}" for i in range(p.n_gpus)] if multi else [short],
        o["per_gpu_weights_gb"],
        o["per_gpu_kv_gb"],
        o["workspace_gb"],
        o["capacity_gb"],
        {
            "weights": shared.shown(BUDGET, o, "per_gpu_weights_gb", "n"),
            "over": W.f("fig_1_7.over_joined", a=W["fig_1_7.over"], v=shared.shown(BUDGET, o, "over_gb")),
            "capacity": W.f("fig_1_7.over_joined", a=W["fig_1_7.capacity"], v=shared.shown(BUDGET, o, "capacity_gb")),
        },
    )
    fit = W["budget.t"] if o["fits"] else W["budget.t_2"]
    return View(
        o,
        headline="[[per_card]][[per_gpu_weights_gb|n]] + [[per_gpu_kv_gb|n]] + [[workspace_gb|n]] = [[per_gpu_total_gb]] "
        "[[cmp]] [[capacity_gb]]",
        ctx=ctx,
        figures=[
            Figure(
                fig,
                W["fig_1_7.figures"],
                W.f("fig_1_7.figures_joined", a=W["fig_1_7.figures_2"], b=fit, c=W["fig_1_7.figures_3"]),
                illustrative=multi,
                height=340,
                draws=frozenset(
                    {
                        "capacity_gb",
                        "kv_gb",
                        "kv_gib",
                        "kv_heads_per_gpu",
                        "per_gpu_kv_gb",
                        "per_gpu_total_gb",
                        "per_gpu_weights_gb",
                        "weights_gb",
                        "workspace_gb",
                    }
                ),
            )
        ],
        notes=shared.notes("fig-1-7", multi=multi, a6000=p.gpu == "rtx-a6000")
        + kv_split_notes(s, p.n_gpus, kv.heads_per_gpu, kv.replicated),
    )


# ---- 1.2.3 链路换算 · 练习 1-2 ---------------------------------------------------------------------------------


class LinkParams(Params):
    link_gbit_s: float = slider(400, ge=1, le=1600, step=1, label=W["linkparams.link_gbit_s.label"], unit="Gbit/s")
    data_gb: float = slider(1, ge=0.001, le=1000, step=0.001, label=W["linkparams.data_gb.label"], unit="GB", log=True)
    startup_us: float = slider(
        0, ge=0, le=1000, step=1, label=W["linkparams.startup_us.label"], unit="μs", illustrative=True
    )
    efficiency_pct: float = slider(
        100, ge=1, le=100, step=1, label=W["linkparams.efficiency_pct.label"], unit="%", illustrative=True, sym="η"
    )


LINK = outputs(
    link_gbps=out("[[link_gbit_s]] ÷ 8", em=True, sym="β"),
    ideal_transfer_ms=out(W["link.ideal_transfer_ms"], em=True, sym="t"),
    effective_gbps=out(W["link.effective_gbps"], ill="eff_changed", sym="β_{app}"),
    transfer_ms=out(W["link.transfer_ms"], ill="extended"),
)


@card(
    "link-conversion",
    title=W["link_conversion.title"],
    section="1.2",
    kind="calculator",
    params=LinkParams,
    outputs=LINK,
    lead=W["link_conversion.lead"],
)
def link_conversion(p: LinkParams) -> View:
    o = units.link_times(p.link_gbit_s, p.data_gb, p.startup_us, p.efficiency_pct)
    ext = p.startup_us != 0 or p.efficiency_pct != 100
    return View(
        o,
        headline="[[nic]][[link_gbit_s]]",
        notes=shared.notes("link-conversion", extended=ext),
        ctx={
            "nic": "ConnectX-7 · " if p.link_gbit_s == 400 else "",
            "eff_changed": p.efficiency_pct != 100,
            "extended": ext,
        },
    )


class Ex12Params(Params):
    reserve_gb: float = slider(5, ge=0, le=20, step=0.5, label=W["ex12params.reserve_gb.label"], unit="GB")
    link_gbit_s: float = slider(400, ge=1, le=1600, step=1, label=W["ex12params.link_gbit_s.label"], unit="Gbit/s")
    data_gb: float = slider(1, ge=0.001, le=1000, step=0.001, label=W["ex12params.data_gb.label"], unit="GB", log=True)


EX12_CASES = {"bf16": "BF16", "w8": W["precision_short.w8_g128"]}
EX12 = outputs(
    bf16_gb=out(W["ex12.bf16_gb"], digits=2, tile=False, sym="W_{BF16}"),
    w8_gb=out(W["ex12.w8_gb"], digits=2, tile=False, sym="W_8"),
    **{
        f"one_h100_{k}_{m}": out(W.f("ex12.kw", zh=zh, label=label), digits=2, tile=False, text=text)
        for k, zh in EX12_CASES.items()
        for m, label, text in (
            ("need_gb", W["ex12.kw_2"], None),
            ("margin_gb", W["budget.headroom_gb"], None),
            ("fits", W["ex12.kw_3"], {True: W["weights.t"], False: W["ex12.t"]}),
        )
    },
    **{
        f"two_h100_{k}_{m}": out(W.f("ex12.kw_4", zh=zh, label=label), digits=2, tile=False, text=text)
        for k, zh in EX12_CASES.items()
        for m, label, text in (
            ("per_gpu_gb", W["ex12.kw_5"], None),
            ("margin_gb", W["budget.headroom_gb"], None),
            ("fits", W["ex12.kw_3"], {True: W["weights.t"], False: W["ex12.t"]}),
        )
    },
    mixed_weight_room_gb=out(W["ex12.mixed_weight_room_gb"], digits=2, tile=False),
    **{
        f"mixed_{k}_{m}": out(W.f("ex12.mixed", zh=zh, label=label), digits=2, tile=False, text=text)
        for k, zh in EX12_CASES.items()
        for m, label, text in (
            ("margin_gb", W["budget.headroom_gb"], None),
            ("fits", W["ex12.kw_6"], {True: W["ex12.t_2"], False: W["ex12.t_3"]}),
        )
    },
    mixed_w8_a6000_gb=out(W["ex12.mixed_w8_a6000_gb"], digits=2, tile=False),
    mixed_w8_h100_gb=out(W["ex12.mixed_w8_h100_gb"], digits=2, tile=False),
    a6000_room_gb=out(W["ex12.a6000_room_gb"], digits=2, tile=False),
    h100_room_gb=out(W["ex12.h100_room_gb"], digits=2, tile=False),
    h100_w8_left_gb=out(W["ex12.h100_w8_left_gb"], digits=2, tile=False),
    h100_gb=out(W["ex12.h100_gb"], tile=False),
    link_gbps=out(W["ex12.link_gbps"], tile=False, sym="β"),
    transfer_ms=out(W["ex12.transfer_ms"], tile=False, sym="t"),
)


def ex12_outputs(p: Ex12Params) -> dict:
    """练习 1-2: the 70B's two weight formats on one H100, two H100 (even split) and A6000 + H100, each card keeping r."""
    s = shared.model(shared.LLAMA_70B)
    w = {"bf16": shared.stored_weights(s, "bf16"), "w8": shared.stored_weights(s, "w8-g128")}
    o = memory.placement_outputs(w, gpu_of("h100-sxm").mem_gb * GB, gpu_of("rtx-a6000").mem_gb * GB, p.reserve_gb * GB)
    lk = units.link_times(p.link_gbit_s, p.data_gb)
    return o | {"link_gbps": lk["link_gbps"], "transfer_ms": lk["ideal_transfer_ms"]}


def ex12_grid(v: View, p: Ex12Params) -> dict:
    """The answer grid (BF16 / 8 比特 on three set-ups) and one feasible 8-bit split, as the diagram shows them."""
    o = v.outputs

    def cell(k: str, setup: str) -> tuple[str, bool]:
        ok, mark = o[f"{setup}_{k}_fits"], "✓" if o[f"{setup}_{k}_fits"] else "✗"
        text = {
            "one_h100": W.f("ex12_grid.cell.one_h100", k=k, mark=mark, k2=k),
            "two_h100": W.f("ex12_grid.cell.two_h100", k=k, mark=mark, k2=k),
            "mixed": W.f("ex12_grid.cell.mixed", k=k, mark=mark, k2=k),
        }[setup]
        # the mark and the margin answer "fits?"; the margin (capacity − need) also tells the need per
        # GPU and the room available that the questions ask for
        told = [f"{setup}_{k}_fits", f"{setup}_{k}_per_gpu_gb", *(["mixed_weight_room_gb"] if setup == "mixed" else [])]
        q = shared.filled("ex-1-2", v, p, text)
        return q.carrying(told[:1], mark).carrying(told, slots=[f"{setup}_{k}_margin_gb"]), ok

    setups = {
        "one_h100": W["ex12_grid.one_h100"],
        "two_h100": W["ex12_grid.two_h100"],
        "mixed": "RTX A6000(48 GB)+ H100 SXM(80 GB)",
    }
    alloc = [
        {"name": name, "cap": gpu_of(gid).mem_gb, "w": o[key], "r": p.reserve_gb, "w_text": shared.shown(EX12, o, key)}
        for name, gid, key in (
            ("RTX A6000", "rtx-a6000", "mixed_w8_a6000_gb"),
            ("H100 SXM", "h100-sxm", "mixed_w8_h100_gb"),
        )
    ]
    return {
        "columns": [
            W["ex12_grid.columns"],
            *(shared.filled("ex-1-2", v, p, W.f("ex12.case_head", name=zh, output=k)) for k, zh in EX12_CASES.items()),
        ],
        "rows": [[(name, None), cell("bf16", k), cell("w8", k)] for k, name in setups.items()],
        "reserve": compact(p.reserve_gb),
        "alloc": alloc,
        "scale": max(*(a["cap"] for a in alloc), *(a["w"] + a["r"] for a in alloc)),
    }


@card(
    "ex-1-2",
    title=W["ex_1_2.title"],
    label=W["ex_1_2.label"],
    section="1.2",
    kind="exercise",
    params=Ex12Params,
    outputs=EX12,
    lead=W["ex_1_2.lead"],
)
def ex_1_2(p: Ex12Params) -> View:
    o = ex12_outputs(p)
    v = View(o, headline=W["ex_1_2.headline"], notes=shared.notes("ex-1-2"))
    v.blocks.append(shared.diagram("ex-1-2", **ex12_grid(v, p)))
    v.questions = shared.questions("ex-1-2", v, p)
    return v
