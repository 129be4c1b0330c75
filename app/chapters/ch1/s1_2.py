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
from ...outputs import data, out, outputs
from ...params_domain import gpu_choice, gpu_of, gpu_type, model_choice, model_type
from ...trace import given, name
from ..shared import ch1 as shared
from ..shared.ch1 import CONTENT

ModelId = model_type([shared.LLAMA_70B, shared.QWEN3_8B])  # or a reader's own config.json
GpuAll = gpu_type(
    ["rtx-4090", "a100-80gb-sxm", "h100-sxm", "rtx-pro-6000", "rtx-a6000"]
)  # capacity cards: every preset
PRECISION_OPTIONS = {
    "w8-g128": "8 比特分组量化(每 128 个权重一个 BF16 scale)",
    "bf16": "BF16(每参数 2 字节)",
    "stored": "检查点自己的存储格式(按 config.json 的 quantization_config)",
}
PRECISION_SHORT = {"w8-g128": "8 比特", "bf16": "BF16", "stored": "存储格式"}


def gpu_short(gid: str) -> str:
    return re.sub(r"\s*\(.*\)$", "", gpu_of(gid).name)


# ---- 1.2.1 图 1-6 (扩展) · 串行等待 · Amdahl --------------------------------------------------------------------

LADIS = "LADIS 2009 幻灯片(data/latency_numbers_2009.json)"
OPS = latency.numbers_2009(read_json("latency_numbers_2009.json")["rows"])
ROW_OPTIONS = {o.id: f"{o.zh}({o.label})" for o in OPS}
RowId = Literal[tuple(ROW_OPTIONS)]  # type: ignore[valid-type]
OP_KEYS = {op.id: op.id.replace("-", "_") + "_ns" for op in OPS}


class LatencyParams(Params):
    row_a: RowId = choice("main-memory-reference", ROW_OPTIONS, label="比较行 A", illustrative=True)  # type: ignore[valid-type]
    row_b: RowId = choice("disk-seek", ROW_OPTIONS, label="比较行 B", illustrative=True)  # type: ignore[valid-type]


FIG16 = outputs(
    row_a_ns=shared.shown_out("A · [[a_name]]", lat_charts.fmt_ns, unit="ns", sym="t_A"),
    row_b_ns=shared.shown_out("B · [[b_name]]", lat_charts.fmt_ns, unit="ns", sym="t_B"),
    ratio=out("慢 ÷ 快", unit="×", sig=3, em=True),
    slower=out("较慢的一行", tile=False),
    **{k: shared.shown_out(o.zh, lat_charts.fmt_ns, unit="ns", tile=False) for o, k in zip(OPS, OP_KEYS.values())},
    rows=data("12 行:id, label, ns, category"),
)


@card(
    "fig-1-6",
    title="原幻灯片 12 项操作 · 对数刻度",
    label="图 1-6(扩展)",
    section="1.2",
    kind="chart",
    params=LatencyParams,
    outputs=FIG16,
    lead="2009 年 Jeff Dean 列出的 12 项常见操作耗时,画在对数刻度上。选两行(或在下方行表里点 A / B),看慢的那一项是快的多少倍。",
)
def fig_1_6(p: LatencyParams) -> View:
    a, b = latency.op(OPS, p.row_a), latency.op(OPS, p.row_b)
    ta, tb = given(a.ns, "t_A", "ns", source=f"{a.zh}:{LADIS}"), given(b.ns, "t_B", "ns", source=f"{b.zh}:{LADIS}")
    slower, faster = (b, a) if b.ns >= a.ns else (a, b)
    o = {
        "row_a_ns": ta,
        "row_b_ns": tb,
        "ratio": latency.ratio(ta, tb),
        "slower": slower.id,
        **{k: given(op.ns, op.zh, "ns", source=LADIS) for op, k in zip(OPS, OP_KEYS.values())},
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
        headline="[[slower_name]] 是 [[faster_name]] 的 [[ratio|n]] 倍",
        ctx={"a_name": a.zh, "b_name": b.zh, "slower_name": slower.zh, "faster_name": faster.zh},
        figures=[
            Figure(
                lat_charts.latency_bars(OPS, a, b),
                "图 1-6(扩展)· 12 项操作耗时,对数刻度",
                "横轴每格差 10 倍:从 L1 缓存访问 0.5 ns 到跨洋往返 150 ms,跨了 8 个多数量级。"
                "当前 A = [[a_name]] [[row_a_ns]],B = [[b_name]] [[row_b_ns]],相差 [[ratio|n]] 倍。",
            )
        ],
        blocks=[shared.diagram("fig-1-6", rows=rows)],
        notes=shared.notes("fig-1-6"),
    )


class SerialParams(Params):
    n_seeks: int = slider(20, ge=0, le=100, step=1, label="串行寻道次数 n", unit="次")
    seek_ms: float = slider(10, ge=0.1, le=20, step=0.1, label="每次寻道", unit="ms", sym="t_{seek}")
    compute_ms: float = slider(1, ge=0.1, le=100, step=0.1, label="计算时间", unit="ms", sym="t_{compute}")


@card(
    "serial-wait",
    title="串行等待会累加:20 次寻道 vs 1 ms 计算",
    section="1.2",
    kind="calculator",
    params=SerialParams,
    outputs=outputs(
        wait_ms=out("串行等待 n·t"),
        total_ms=out("总耗时", em=True, sym="T"),
        wait_pct=out("等待占比", digits=2),
        wait_to_compute_ratio=out("等待 ÷ 计算", unit="×"),
    ),
    lead="一次一次排队的等待会加起来。20 次各 10 ms 的磁盘寻道之后才算 1 ms,计算在时间线上只剩一条细缝。",
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
        headline="[[n_seeks|n]] × [[seek_ms]] 寻道 + [[compute_ms]] 计算",
        figures=[
            Figure(
                lat_charts.serial_timeline(p.n_seeks, p.seek_ms, o["wait_ms"], o["total_ms"]),
                "串行时间线",
                "[[n_seeks|n]] 段寻道首尾相接共 [[wait_ms]],随后计算 [[compute_ms]];等待占 [[wait_pct]]。",
                height=200,
            )
        ],
        notes=shared.notes("serial-wait"),
    )


class AmdahlParams(Params):
    baseline_h: float = slider(100, ge=1, le=1000, step=1, label="原交付时间 T", unit="h")
    part_pct: float = slider(20, ge=0, le=100, step=1, label="编码占比 f", unit="%")
    part_speedup: float = slider(5, ge=1, le=100, step=0.5, label="编码提速 s", unit="×")


AMDAHL = outputs(
    part_before_h=out("编码(原)"),
    part_after_h=out("编码(提速后)"),
    rest_h=out("其余环节(不变)"),
    new_total_h=out("新交付时间", em=True, sym="T'"),
    speedup=out("整体加速比", unit="×", digits=2, em=True),
    speedup_formula=out("按公式 1/((1−f)+f/s)", unit="×", digits=2, sym="S"),
    speedup_limit=shared.shown_out(
        "上限 1/(1−f)", lambda v: None if math.isfinite(v) else "无上限", unit="×", digits=2
    ),
)


@card(
    "amdahl-team",
    title="Amdahl 定律 · 同样的 AI 编程工具,为什么团队收益不同",
    section="1.2",
    kind="calculator",
    params=AmdahlParams,
    outputs=AMDAHL,
    lead="一个工具让编码快 5 倍。编码只占两成的团队和占八成的团队,交付时间缩短得完全不同;点下方按钮在两个团队间切换。",
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
        f"f = {p.part_pct:g}% 时的整体加速比",
        s,
        o["speedup"],
        lim if finite else None,
        "上限 1/(1−f) = " + shared.shown(AMDAHL, o, "speedup_limit"),
    )
    return View(
        o,
        headline="[[baseline_h]] → [[new_total_h]]",
        figures=[
            Figure(
                delivery_bars(o["rest_h"], o["part_before_h"], o["part_after_h"], txt, p.baseline_h * 1.08),
                "交付时间:原来 vs 用工具后",
                "编码从 [[part_before_h]] 缩到 [[part_after_h]],其余 [[rest_h]] 不变,总计 [[new_total_h]]。",
                height=300,
            ),
            Figure(
                curve,
                "整体加速比随编码提速 s 的变化",
                "编码占 [[part_pct]] 时,s = [[part_speedup|n]] 得 [[speedup]];"
                + ("s 再大也不超过 [[speedup_limit]]。" if finite else "s 再大也不超过——此时没有上限。"),
                height=300,
            ),
        ],
        blocks=[shared.diagram("amdahl-team", current=p.part_pct)],
        notes=shared.notes("amdahl-team"),
    )


# ---- 1.2.2 四个量 / GPU 速查表 ---------------------------------------------------------------------------------

UTILIZATION = "MFU = F/(Π·T) ≤ 1; MBU = R/(β·T) ≤ 1"


@card(
    "four-quantities",
    title="容量 / 计算吞吐 / 带宽 / 延迟",
    section="1.2",
    kind="diagram",
    outputs=outputs(quantities=data("四个量:id, name, unit, check"), utilization=out("利用率的定义", tile=False)),
    lead="任务要存 M 字节、做 F 次浮点运算、读写 R 字节;硬件给出容量、算力、带宽。三类需求各比各的。",
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
    "mem_gb": ("显存容量", "GB", "capacity", "n"),
    "bw_tbps": ("显存带宽", "TB/s", "read", "n,c"),
    "bf16_tflops": ("BF16 矩阵峰值", "TFLOP/s", "compute", "n,c"),
    "read_1gb_ms": ("按带宽峰值读取 1 GB", "ms", "read", "n"),
}
CHEAT = outputs(
    **{
        f"{g.replace('-', '_')}_{m}": out(
            f"{gpu_short(g)} · {name}", digits={"mem_gb": 0, "read_1gb_ms": 2}.get(m), tile=False
        )
        for m, (name, _, _, _) in CHEAT_METRICS.items()
        for g in CHEAT_GPUS
    },
    bars=data("每行按三张卡的最大值归一的条长", type=dict),
)
ONE_GB = given(1, "D", "GB", source="书中:读 1 GB")


@card(
    "gpu-cheatsheet",
    title="GPU 资源速查表",
    section="1.2",
    kind="table",
    outputs=CHEAT,
    lead="三张常见 GPU 的容量、带宽、算力,以及按峰值带宽读 1 GB 要多久。条形按每一行的最大值归一。",
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
            "name": "架构",
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
        headline="BF16 输入 · FP32 累加 · 稠密峰值 · 十进制 GB/TB",
        blocks=[shared.diagram("gpu-cheatsheet", gpus=[gpu_short(g) for g in CHEAT_GPUS], rows=rows)],
        notes=shared.notes("gpu-cheatsheet"),
    )


# ---- 1.2.3 参数存储量 · 图 1-7 显存预算 ----------------------------------------------------------------------------


class WeightParams(Params):
    model: ModelId = model_choice(shared.LLAMA_70B, shared.MODEL_NAMES, label="模型")  # type: ignore[valid-type]
    n_gpus: int = slider(2, ge=1, le=8, step=1, label="BF16 均分到几张卡 n", unit="张")
    gpu: GpuAll = gpu_choice("h100-sxm", gpu_options(compute_only=False), label="对照的卡")  # type: ignore[valid-type]


WEIGHTS = outputs(
    n_params=out("参数量 N([[n_params_yi]])", sym="N"),
    bf16_gb=out("BF16 权重 2N", digits=2, sym="M_W"),
    bf16_gib=out("同上(二进制)", digits=2),
    bf16_per_gpu_gb=out("BF16 均分到 [[n_gpus]]卡,每张", digits=2, sym="W_{BF16}/n"),
    bf16_fits_one_gpu=out(
        "BF16 放进一张 [[gpu_short]]?", text={True: "放得下", False: "放不下(超 [[bf16_over_gb|n]] GB)"}
    ),
    w8_g128_gb=out("8 比特分组量化后", digits=2, em=True, sym="M_W"),
    w8_g128_gib=out("同上(二进制)", digits=2),
    free_after_w8_gb=out("[[gpu_short]] 放下 8 比特权重后剩余", digits=2, sym="M − M_W"),
    n_params_billion=out("参数量(十亿)", unit="×10⁹", digits=3, tile=False),
    n_params_yi=out("参数量(亿)", unit="亿", digits=2, tile=False),
    bf16_bytes=out("BF16 字节数", tile=False),
    w8_g128_bytes=out("8 比特字节数", tile=False),
    w8_part_gb=out("块内线性权重 8 比特", digits=2, tile=False),
    scale_part_gb=out("scale", digits=2, tile=False),
    bf16_kept_part_gb=out("保留 BF16 的参数", digits=2, tile=False),
    bf16_over_gb=out("BF16 超出容量", digits=2, tile=False),
    w8_per_gpu_gb=out("8 比特均分到 [[n_gpus]]卡,每张", digits=2, tile="multi", sym="W_8/n"),
)


@card(
    "weight-bytes",
    title="参数存储量(M_W = N · b_W)",
    section="1.2",
    kind="calculator",
    params=WeightParams,
    outputs=WEIGHTS,
    lead="把参数个数换成字节,再和一张卡的显存比:BF16 放不下时,可以均分到几张卡,也可以量化到 8 比特。",
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
    cap_name = f"{gpu_short(p.gpu)} {g.mem_gb:g} GB"
    per = (
        (o["bf16_per_gpu_gb"], f"÷ {p.n_gpus}:每卡 " + shared.shown(WEIGHTS, o, "bf16_per_gpu_gb"))
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
        headline="[[model_name]]:N = [[n_params|n]] 个参数",
        ctx={
            "model_name": shared.MODEL_NAMES.get(p.model, "自定义模型"),
            "gpu_short": gpu_short(p.gpu),
            "cap_name": cap_name,
            "multi": p.n_gpus > 1,
        },
        figures=[
            Figure(
                fig,
                "两种权重格式 vs 一张卡的容量",
                "BF16 [[bf16_gb]];8 比特 [[w8_g128_gb]] = [[w8_part_gb|n]](8 比特线性权重)"
                " + [[scale_part_gb|n]](scale)+ [[bf16_kept_part_gb|n]](保留 BF16 的参数);[[cap_name]]。",
            )
        ],
        notes=shared.notes("weight-bytes"),
    )


class BudgetParams(Params):
    model: ModelId = model_choice(shared.LLAMA_70B, shared.MODEL_NAMES, label="模型")  # type: ignore[valid-type]
    precision: Literal["w8-g128", "bf16", "stored"] = choice("w8-g128", PRECISION_OPTIONS, label="权重格式")
    kv_tokens: int = slider(
        8192, ge=0, le=131072, step=1024, label="KV 缓存 token 数(所有请求合计,BF16) S", unit="token"
    )
    workspace_gib: float = slider(2, ge=0, le=16, step=0.5, label="每卡工作区", unit="GiB", sym="M_{work}")
    n_gpus: int = slider(1, ge=1, le=8, step=1, label="卡数 n", unit="张")
    gpu: GpuAll = gpu_choice("h100-sxm", gpu_options(compute_only=False), label="卡型")  # type: ignore[valid-type]


BUDGET = outputs(
    weights_gb=out("权重([[precision_short]])", digits=2, sym="M_W"),
    kv_gb=out("KV([[kv_tokens|n]] token × [[kv_per_token_kib]])", digits=2, sym="M_{state}"),
    kv_gib=out("KV(二进制)", digits=2),
    workspace_gb=out("工作区 [[workspace_gib]]", digits=2, sym="M_{work}"),
    per_gpu_weights_gb=out("每卡权重", digits=2, tile="multi", ill=True),
    per_gpu_kv_gb=out("每卡 KV", digits=2, tile="multi", ill=True),
    per_gpu_total_gb=out("[[total_word]]", digits=2, em=True, ill="multi", sym="M"),
    capacity_gb=out("[[gpu_short]] 容量", sym="M_{cap}"),
    fits=out(
        "放得下吗?", em=True, text={True: "[[fit_word]](余 [[headroom_gb|n]] GB)", False: "放不下(超 [[over_gb|n]] GB)"}
    ),
    max_kv_tokens=out("KV 最多能放", unit="token", ill="multi"),
    headroom_gb=out("余量", digits=2, tile=False),
    over_gb=out("超出", digits=2, tile=False),
    kv_per_token_kib=out("每 token KV", digits=0, tile=False),
    kv_per_token_bytes=out("每 token KV(字节)", tile=False, sym="kv"),
    kv_heads_per_gpu=out("每卡 KV 头数 ⌈n_kv/n⌉", unit="个", tile="multi_gqa", sym="n_{kv,gpu}"),
    kv_replicated=out("KV 在卡间复制?", tile="multi", text={True: "[[replication]]", False: "否:每卡存不同的 KV 头"}),
)


def kv_split_notes(s: Any, n: int, heads: int, replicated: bool) -> list[Note]:
    """What the KV split over n cards looks like when it is not an even 1/n: replicated heads, uneven heads, MLA."""
    if n == 1:
        return []
    if s.mla:
        return [Note("MLA 只缓存压缩潜向量,没有 KV 头可分:[[n_gpus]] 张卡每张都存整份 KV。", "warn")]
    if replicated:
        return [
            Note(
                "卡数 n = [[n_gpus]] 超过 KV 头数 [[n_kv]]:头不够分,每个 KV 头复制到几张卡上,每卡仍存 1 个头,"
                "每卡 KV 是整份的 1/[[n_kv]],不再随 n 减少。",
                "warn",
            )
        ]
    if s.n_kv_heads % n:
        return [
            Note(
                "KV 按整头分:[[n_kv]] 个头分到 [[n_gpus]] 张卡,最满的卡存 ⌈n_kv/n⌉ = [[kv_heads_per_gpu]] 个头,"
                "按它核算。"
            )
        ]
    return []


@card(
    "fig-1-7",
    title="显存预算计算器",
    label="图 1-7",
    section="1.2",
    kind="calculator",
    params=BudgetParams,
    outputs=BUDGET,
    lead="权重、KV 状态、运行时工作区要同时放在卡上:逐卡相加,再和容量比。默认是书里的例子——8 比特的 70B、8192 token 的 KV、2 GiB 工作区,放在一张 H100 上。",
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
        "total_word": "每卡合计" if multi else "合计",
        "per_card": "每卡 " if multi else "",
        "card_word": "每张卡" if multi else "这张卡",
        "fit_word": "刚好放下" if o["fits"] and o["headroom_gb"] < 0.05 * o["capacity_gb"] else "放得下",
        "multi_gqa": multi and not s.mla,
        "n_kv": s.n_kv_heads,
        "replication": "是:MLA 潜向量每卡一份" if s.mla else "是:KV 头不够分,复制到多张卡",
    }
    fig = card_budgets(
        [f"{short} #{i + 1}" for i in range(p.n_gpus)] if multi else [short],
        o["per_gpu_weights_gb"],
        o["per_gpu_kv_gb"],
        o["workspace_gb"],
        o["capacity_gb"],
        {
            "weights": shared.shown(BUDGET, o, "per_gpu_weights_gb", "n"),
            "over": "超出 " + shared.shown(BUDGET, o, "over_gb"),
            "capacity": "容量 " + shared.shown(BUDGET, o, "capacity_gb"),
        },
    )
    fit = "[[fit_word]](余 [[headroom_gb|n]] GB)" if o["fits"] else "放不下(超 [[over_gb|n]] GB)"
    return View(
        o,
        headline="[[per_card]][[per_gpu_weights_gb|n]] + [[per_gpu_kv_gb|n]] + [[workspace_gb|n]] = [[per_gpu_total_gb]] "
        "[[cmp]] [[capacity_gb]]",
        ctx=ctx,
        figures=[
            Figure(
                fig,
                "图 1-7 · 逐卡显存预算",
                "[[card_word]]上:权重 [[per_gpu_weights_gb]]、KV [[per_gpu_kv_gb]]、工作区 [[workspace_gb]],"
                "合计 [[per_gpu_total_gb]],容量 [[capacity_gb]]:" + fit + "。",
                illustrative=multi,
                height=340,
            )
        ],
        notes=shared.notes("fig-1-7", multi=multi, a6000=p.gpu == "rtx-a6000")
        + kv_split_notes(s, p.n_gpus, kv.heads_per_gpu, kv.replicated),
    )


# ---- 1.2.3 链路换算 · 练习 1-2 ---------------------------------------------------------------------------------


class LinkParams(Params):
    link_gbit_s: float = slider(400, ge=1, le=1600, step=1, label="线路速率(ConnectX-7 为 400) R", unit="Gbit/s")
    data_gb: float = slider(1, ge=0.001, le=1000, step=0.001, label="要传的数据量 D", unit="GB", log=True)
    startup_us: float = slider(
        0, ge=0, le=1000, step=1, label="每次传输的启动时间(扩展) t_0", unit="μs", illustrative=True
    )
    efficiency_pct: float = slider(
        100, ge=1, le=100, step=1, label="应用实际拿到的带宽比例(扩展)", unit="%", illustrative=True, sym="η"
    )


LINK = outputs(
    link_gbps=out("[[link_gbit_s]] ÷ 8", em=True, sym="β"),
    ideal_transfer_ms=out("理想时间:[[data_gb]] ÷ 带宽", em=True, sym="t"),
    effective_gbps=out("应用拿到的带宽", ill="eff_changed", sym="β_{app}"),
    transfer_ms=out("计入启动与折损后的时间", ill="extended"),
)


@card(
    "link-conversion",
    title="链路换算 · bit/s 先除以 8",
    section="1.2",
    kind="calculator",
    params=LinkParams,
    outputs=LINK,
    lead="网卡标的是 bit/s,显存和模型大小用的是字节:先除以 8,再用 数据量 ÷ 带宽 估搬运时间。",
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
    reserve_gb: float = slider(5, ge=0, le=20, step=0.5, label="每卡预留(状态 + 工作区) r", unit="GB")
    link_gbit_s: float = slider(400, ge=1, le=1600, step=1, label="链路速率 R", unit="Gbit/s")
    data_gb: float = slider(1, ge=0.001, le=1000, step=0.001, label="传输数据量 D", unit="GB", log=True)


EX12_CASES = {"bf16": "BF16", "w8": "8 比特"}
EX12 = outputs(
    bf16_gb=out("BF16 权重", digits=2, tile=False, sym="W_{BF16}"),
    w8_gb=out("8 比特权重", digits=2, tile=False, sym="W_8"),
    **{
        f"one_h100_{k}_{m}": out(f"一张 H100 · {zh} · {label}", digits=2, tile=False, text=text)
        for k, zh in EX12_CASES.items()
        for m, label, text in (
            ("need_gb", "需要", None),
            ("margin_gb", "余量", None),
            ("fits", "放得下?", {True: "放得下", False: "放不下"}),
        )
    },
    **{
        f"two_h100_{k}_{m}": out(f"两张 H100 均分 · {zh} · {label}", digits=2, tile=False, text=text)
        for k, zh in EX12_CASES.items()
        for m, label, text in (
            ("per_gpu_gb", "每卡需要", None),
            ("margin_gb", "余量", None),
            ("fits", "放得下?", {True: "放得下", False: "放不下"}),
        )
    },
    mixed_weight_room_gb=out("A6000 + H100 放权重的空间", digits=2, tile=False),
    **{
        f"mixed_{k}_{m}": out(f"A6000 + H100 · {zh} · {label}", digits=2, tile=False, text=text)
        for k, zh in EX12_CASES.items()
        for m, label, text in (("margin_gb", "余量", None), ("fits", "能部署?", {True: "能", False: "不能"}))
    },
    mixed_w8_a6000_gb=out("A6000 放 8 比特权重", digits=2, tile=False),
    mixed_w8_h100_gb=out("H100 放 8 比特权重", digits=2, tile=False),
    a6000_room_gb=out("A6000 可放权重", digits=2, tile=False),
    h100_room_gb=out("H100 可放权重", digits=2, tile=False),
    h100_w8_left_gb=out("8 比特全放 H100 后剩余", digits=2, tile=False),
    h100_gb=out("H100 容量", tile=False),
    link_gbps=out("链路带宽", tile=False, sym="β"),
    transfer_ms=out("理想传输时间", tile=False, sym="t"),
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
            "one_h100": f"[[one_h100_{k}_need_gb|n]] / [[h100_gb]] {mark}(余量 [[one_h100_{k}_margin_gb|n]])",
            "two_h100": f"每卡 [[two_h100_{k}_per_gpu_gb|n]] / [[h100_gb]] {mark}(余量 [[two_h100_{k}_margin_gb|n]])",
            "mixed": f"需 [[{k}_gb|n]],可用 [[mixed_weight_room_gb|n,c]] GB {mark}(余量 [[mixed_{k}_margin_gb|n]])",
        }[setup]
        return shared.filled("ex-1-2", v, p, text), ok

    setups = {
        "one_h100": "一张 H100 SXM(80 GB)",
        "two_h100": "两张 H100 SXM 均分",
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
        "columns": ["方案", *(shared.filled("ex-1-2", v, p, f"{zh}([[{k}_gb]])") for k, zh in EX12_CASES.items())],
        "rows": [[(name, None), cell("bf16", k), cell("w8", k)] for k, name in setups.items()],
        "reserve": f"{p.reserve_gb:g}",
        "alloc": alloc,
        "scale": max(*(a["cap"] for a in alloc), *(a["w"] + a["r"] for a in alloc)),
    }


@card(
    "ex-1-2",
    title="不同权重精度下的显存需求与多卡分配",
    label="练习 1-2",
    section="1.2",
    kind="exercise",
    params=Ex12Params,
    outputs=EX12,
    lead="BF16 权重 141.11 GB、8 比特 73.73 GB;每卡先留出状态与工作区。单卡、两卡均分、一张 A6000 加一张 H100,各放得下哪种?最后换算一次链路。",
)
def ex_1_2(p: Ex12Params) -> View:
    o = ex12_outputs(p)
    v = View(o, headline="BF16 [[bf16_gb]] · 8 比特 [[w8_gb]] · 每卡预留 [[reserve_gb]]", notes=shared.notes("ex-1-2"))
    v.blocks.append(shared.diagram("ex-1-2", **ex12_grid(v, p)))
    v.questions = shared.questions("ex-1-2", v, p)
    return v
