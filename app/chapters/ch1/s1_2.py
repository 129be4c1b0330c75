"""Section 1.2 系统设计的关键数字: latency orders of magnitude, serial waits, Amdahl, the four
quantities, the GPU cheat sheet, weight bytes, the memory budget (图 1-7), link conversion, 练习 1-2."""
from __future__ import annotations

import math
import re
from typing import Literal

from ...calculators import amdahl, latency, memory, units
from ...calculators.model_config import shape_of, weight_bytes
from ...cards import Block, Figure, Note, Params, Question, Stat, Table, View, card, choice, slider
from ...params_domain import gpu_choice, gpu_type, model_choice, model_type
from ...charts import axis, bar, figure, gantt_trace, hline, layout, line, points, vline, with_refs
from ...data import gpu, gpu_options, model_config
from ...format import num

GB, GIB = units.GB, units.GIB

# ------------------------------------------------------------------------------------------------
# shared presets
# ------------------------------------------------------------------------------------------------

ModelId = model_type(["deepseek-r1-distill-llama-70b", "qwen3-8b"])   # or a reader's own config.json
MODEL_OPTIONS = {"deepseek-r1-distill-llama-70b": "DeepSeek-R1-Distill-Llama-70B",
                 "qwen3-8b": "Qwen3-8B"}
# Capacity cards may offer every preset, including the capacity-only RTX A6000.
GpuAll = gpu_type(["rtx-4090", "a100-80gb-sxm", "h100-sxm", "rtx-pro-6000", "rtx-a6000"])  # or custom:…
PrecisionId = Literal["w8-g128", "bf16"]
PRECISION_OPTIONS = {"w8-g128": "8 比特分组量化(每 128 个权重一个 BF16 scale)", "bf16": "BF16(每参数 2 字节)"}
PRECISION_SHORT = {"w8-g128": "8 比特", "bf16": "BF16"}


def _shape(model: str):
    return shape_of(model_config(model))


def _gpu_short(gid: str) -> str:
    return re.sub(r"\s*\(.*\)$", "", gpu(gid).name)


# ------------------------------------------------------------------------------------------------
# 1.2.1 图 1-6 (扩展) · 12 项操作
# ------------------------------------------------------------------------------------------------

OPS = latency.numbers_2009()
RowId = Literal[tuple(o.id for o in OPS)]  # type: ignore[valid-type]
ROW_OPTIONS = {o.id: f"{o.zh}({o.label})" for o in OPS}
CATEGORY_ZH = {"compute": "计算", "sync": "同步", "storage": "存储", "network": "网络"}


def fmt_ns(ns: float) -> str:
    """A duration in the nearest readable unit: 0.5 ns, 3 μs, 10 ms, 1.5 s."""
    def g(x: float) -> str:
        return num(x) if float(x).is_integer() else f"{x:.3g}"
    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "μs")):
        if ns >= scale:
            return f"{g(ns / scale)} {unit}"
    return f"{g(ns)} ns"


class LatencyParams(Params):
    row_a: RowId = choice("main-memory-reference", ROW_OPTIONS, label="比较行 A", illustrative=True)
    row_b: RowId = choice("disk-seek", ROW_OPTIONS, label="比较行 B", illustrative=True)


@card("fig-1-6", title="原幻灯片 12 项操作 · 对数刻度", label="图 1-6(扩展)", section="1.2", kind="chart",
      params=LatencyParams,
      lead="2009 年 Jeff Dean 列出的 12 项常见操作耗时,画在对数刻度上。选两行(或在下方行表里点 A / B),看慢的那一项是快的多少倍。")
def fig_1_6(p: LatencyParams) -> View:
    a, b = latency.op(p.row_a), latency.op(p.row_b)
    ratio = latency.ratio(a.ns, b.ns)
    slower, faster = (b, a) if b.ns >= a.ns else (a, b)
    o: dict = {"row_a_ns": a.ns, "row_b_ns": b.ns, "ratio": ratio, "slower": slower.id}
    for op in OPS:
        o[op.id.replace("-", "_") + "_ns"] = op.ns
    o["rows"] = [{"id": op.id, "label": op.label, "ns": op.ns, "category": op.category} for op in OPS]

    labels = [op.zh for op in OPS]
    traces = []
    for cat in ("compute", "sync", "storage", "network"):
        rows = [op for op in OPS if op.category == cat]
        sel = [op.id in (p.row_a, p.row_b) for op in rows]
        traces.append(bar([op.zh for op in rows], [op.ns for op in rows], CATEGORY_ZH[cat], cat,
                          horizontal=True, text=[fmt_ns(op.ns) for op in rows],
                          textposition="outside", cliponaxis=False,
                          hovertemplate="%{y}: %{text}<extra></extra>"))
        traces[-1]["marker"].update({"opacity": [1 if s else 0.45 for s in sel],
                                     "line": {"width": [2.5 if s else 0 for s in sel], "color": "#c2410c"}})
    ticks = [10.0 ** k for k in range(-1, 10)]
    ticktext = [fmt_ns(t) for t in ticks]
    ya = axis("", categoryorder="array", categoryarray=labels, autorange="reversed")
    lay = layout(axis("耗时(对数刻度)", log=True, range_=(-1, 9.3), ticks=ticks, ticktext=ticktext),
                 ya, height=440, margin=(190, 20, 16, 56), barmode="overlay")
    fig = figure(traces, with_refs(lay, vline(a.ns, "A", "accent", log=True), vline(b.ns, "B", "accent", log=True)))

    v = View(outputs=o, headline=f"{slower.zh} 是 {faster.zh} 的 {num(ratio, sig=None if ratio.is_integer() else 3)} 倍")
    v.stats.append(Stat("row_a_ns", f"A · {a.zh}", a.ns, text=fmt_ns(a.ns)))
    v.stats.append(Stat("row_b_ns", f"B · {b.zh}", b.ns, text=fmt_ns(b.ns)))
    v.stats.append(Stat("ratio", "慢 ÷ 快", ratio, unit="×", sig=None if ratio.is_integer() else 3, emphasis=True))
    v.figures.append(Figure(fig, "图 1-6(扩展)· 12 项操作耗时,对数刻度",
                            "横轴每格差 10 倍:从 L1 缓存访问 0.5 ns 到跨洋往返 150 ms,跨了 8 个多数量级。"
                            f"当前 A = {a.zh} {fmt_ns(a.ns)},B = {b.zh} {fmt_ns(b.ns)},相差 {num(ratio, sig=3)} 倍。"))
    v.blocks.append(Block("diagrams/fig-1-6.html", {
        "rows": [{"id": op.id, "zh": op.zh, "label": op.label, "t": fmt_ns(op.ns), "cat": op.category,
                  "cat_zh": CATEGORY_ZH[op.category], "a": op.id == p.row_a, "b": op.id == p.row_b} for op in OPS]}))
    v.notes = [
        Note("1 μs = 1000 ns,1 ms = 1000 μs;1 byte = 8 bit。KB/MB/GB/TB 为 10³/10⁶/10⁹/10¹² 字节,"
             "KiB/MiB/GiB 为 2¹⁰/2²⁰/2³⁰ 字节。Zippy 是 Google 当年的压缩库。"),
        Note("这是 2009 年的硬件,今天的具体数值已变,读它是为了数量级之间的关系。数值取自 LADIS 2009 主题演讲的幻灯片(书中未逐项印出)。", "book"),
        Note("每行归入哪种颜色(绿 = 计算,灰 = 同步,橙 = 存储,蓝 = 网络)是本页的划分;默认比较的两行也是本页选的。", "illustrative"),
    ]
    return v


# ------------------------------------------------------------------------------------------------
# 1.2.1 串行等待
# ------------------------------------------------------------------------------------------------

class SerialParams(Params):
    n_seeks: int = slider(20, ge=0, le=100, step=1, label="串行寻道次数", unit="次")
    seek_ms: float = slider(10, ge=0.1, le=20, step=0.1, label="每次寻道", unit="ms")
    compute_ms: float = slider(1, ge=0.1, le=100, step=0.1, label="计算时间", unit="ms")


@card("serial-wait", title="串行等待会累加:20 次寻道 vs 1 ms 计算", section="1.2", kind="calculator",
      params=SerialParams,
      lead="一次一次排队的等待会加起来。20 次各 10 ms 的磁盘寻道之后才算 1 ms,计算在时间线上只剩一条细缝。")
def serial_wait(p: SerialParams) -> View:
    s = latency.serial_wait(p.n_seeks, p.seek_ms / 1e3, p.compute_ms / 1e3)
    o = {"wait_ms": s.wait * 1e3, "total_ms": s.total * 1e3, "wait_pct": 100 * s.wait_frac,
         "wait_to_compute_ratio": s.wait_to_compute}
    starts = [i * p.seek_ms for i in range(p.n_seeks)]
    lane = "串行执行"
    traces = [
        gantt_trace(lane, starts, [t + p.seek_ms for t in starts], "磁盘寻道(等待)", "waiting"),
        gantt_trace(lane, [o["wait_ms"]], [o["total_ms"]], "计算", "compute"),
    ]
    for t in traces:
        t["width"] = 0.5
    lay = layout(axis("时间 (ms)", range_=(0, o["total_ms"] * 1.02)), axis(""), height=200,
                 margin=(80, 16, 16, 48), barmode="overlay")
    v = View(outputs=o, headline=f"{p.n_seeks} × {num(p.seek_ms)} ms 寻道 + {num(p.compute_ms)} ms 计算")
    v.stat("wait_ms", "串行等待 n·t", "ms")
    v.stat("total_ms", "总耗时", "ms", emphasis=True)
    v.stat("wait_pct", "等待占比", "%", digits=2)
    v.stat("wait_to_compute_ratio", "等待 ÷ 计算", "×")
    v.figures.append(Figure(figure(traces, lay), "串行时间线",
                            f"{p.n_seeks} 段寻道首尾相接共 {num(o['wait_ms'])} ms,随后计算 {num(p.compute_ms)} ms;"
                            f"等待占 {o['wait_pct']:.2f}%。", height=200))
    v.notes = [Note("$T = n \\cdot t_{seek} + t_{compute}$:串行步骤的时间相加;要缩短总时间,先减少等待次数或让等待重叠,而不是加快计算。", "formula")]
    return v


# ------------------------------------------------------------------------------------------------
# 1.2.1 Amdahl
# ------------------------------------------------------------------------------------------------

class AmdahlParams(Params):
    baseline_h: float = slider(100, ge=1, le=1000, step=1, label="原交付时间", unit="h")
    part_pct: float = slider(20, ge=0, le=100, step=1, label="编码占比 f", unit="%")
    part_speedup: float = slider(5, ge=1, le=100, step=0.5, label="编码提速 s", unit="×")


@card("amdahl-team", title="Amdahl 定律 · 同样的 AI 编程工具,为什么团队收益不同", section="1.2",
      kind="calculator", params=AmdahlParams,
      lead="一个工具让编码快 5 倍。编码只占两成的团队和占八成的团队,交付时间缩短得完全不同;点下方按钮在两个团队间切换。")
def amdahl_team(p: AmdahlParams) -> View:
    f, s = p.part_pct / 100, p.part_speedup
    part = p.baseline_h * f
    new_total = amdahl.new_time(p.baseline_h, part, s)
    lim = amdahl.limit(f)
    o = {"part_before_h": part, "part_after_h": part / s, "rest_h": p.baseline_h - part,
         "new_total_h": new_total, "speedup": p.baseline_h / new_total,
         "speedup_formula": amdahl.speedup(f, s), "speedup_limit": lim}

    cols = ["原来", "用工具后"]
    bars = figure([
        bar(cols, [o["rest_h"]] * 2, "其余环节(沟通、评审、审批…)", "waiting",
            text=[f"{num(o['rest_h'])} h"] * 2),
        bar(cols, [part, o["part_after_h"]], "编码", "compute",
            text=[f"{num(part)} h", f"{num(o['part_after_h'])} h"]),
    ], layout(axis(""), axis("交付时间 (h)", range_=(0, p.baseline_h * 1.08)), height=300, barmode="stack"))
    grid = sorted({round(10 ** (2 * i / 39), 4) for i in range(40)} | {float(s)})
    curve = [amdahl.speedup(f, x) for x in grid]
    refs = [hline(lim, f"上限 1/(1−f) = {lim:.2f}×", "target", dash="dash")] if math.isfinite(lim) else []
    ymax = (lim if math.isfinite(lim) else 100) * 1.15
    curve_fig = figure([
        line(grid, curve, f"f = {p.part_pct:g}% 时的整体加速比", "compute"),
        points([s], [o["speedup"]], f"当前 s = {s:g}", "accent", size=11),
    ], with_refs(layout(axis("编码提速 s(对数)", log=True, range_=(0, 2)), axis("整体加速比 (×)", range_=(0, ymax)),
                        height=300), *refs))

    v = View(outputs=o, headline=f"{num(p.baseline_h)} h → {num(new_total)} h")
    v.stat("part_before_h", "编码(原)", "h")
    v.stat("part_after_h", "编码(提速后)", "h")
    v.stat("rest_h", "其余环节(不变)", "h")
    v.stat("new_total_h", "新交付时间", "h", emphasis=True)
    v.stat("speedup", "整体加速比", "×", digits=2, emphasis=True)
    v.stat("speedup_formula", "按公式 1/((1−f)+f/s)", "×", digits=2)
    if math.isfinite(lim):
        v.stat("speedup_limit", "上限 1/(1−f)", "×", digits=2)
    else:
        v.stats.append(Stat("speedup_limit", "上限 1/(1−f)", lim, text="无上限"))
    v.figures = [
        Figure(bars, "交付时间:原来 vs 用工具后",
               f"编码从 {num(part)} h 缩到 {num(o['part_after_h'])} h,其余 {num(o['rest_h'])} h 不变,"
               f"总计 {num(new_total)} h。", height=300),
        Figure(curve_fig, "整体加速比随编码提速 s 的变化",
               f"编码占 {p.part_pct:g}% 时,s = {s:g} 得 {o['speedup']:.2f}×;s 再大也不超过 "
               + (f"{lim:.2f}×。" if math.isfinite(lim) else "——此时没有上限。"), height=300),
    ]
    v.blocks.append(Block("diagrams/amdahl-team.html", {"current": p.part_pct}))
    v.notes = [
        Note("$\\text{Speedup} = \\dfrac{1}{(1-f) + f/s}$,上限 $\\dfrac{1}{1-f}$(s → ∞)。", "formula"),
        Note("想再缩短交付,就要去改没被提速的那部分:沟通、评审、审批。局部提速要放回整件任务里衡量。"),
    ]
    return v


# ------------------------------------------------------------------------------------------------
# 1.2.2 四个量 / GPU 速查表
# ------------------------------------------------------------------------------------------------

QUANTITIES = [
    {"id": "capacity", "name": "容量", "unit": "byte", "role": "capacity", "check": "M \\le M_{\\text{cap}}",
     "text": "能同时放下多少:权重、上下文状态、运行时工作区要一起驻留。"},
    {"id": "compute", "name": "计算吞吐", "unit": "FLOP/s", "role": "compute", "check": "T_{\\text{compute}} = F/\\Pi",
     "text": "一次乘加记 2 FLOP;峰值只对某种输入精度、累加精度和稠密/稀疏条件成立。"},
    {"id": "bandwidth", "name": "带宽", "unit": "byte/s", "role": "read", "check": "T_{\\text{memory}} = R/\\beta",
     "text": "每秒能搬多少字节;估哪一段传输,就用那一段接口的带宽。"},
    {"id": "latency", "name": "延迟", "unit": "s", "role": "waiting", "check": "T \\approx t_0 + \\text{size}/\\beta",
     "text": "发起后要等多久;大块数据看 数据量 ÷ 带宽,零碎的串行小请求则常被启动与往返时间主导。"},
]


UTILIZATION = "MFU = F/(Π·T) ≤ 1; MBU = R/(β·T) ≤ 1"


@card("four-quantities", title="容量 / 计算吞吐 / 带宽 / 延迟", section="1.2", kind="diagram",
      lead="任务要存 M 字节、做 F 次浮点运算、读写 R 字节;硬件给出容量、算力、带宽。三类需求各比各的。")
def four_quantities(p: Params) -> View:
    o = {"quantities": [{k: q[k] for k in ("id", "name", "unit", "check")} for q in QUANTITIES],
         "utilization": UTILIZATION}
    v = View(outputs=o)
    v.blocks.append(Block("diagrams/four-quantities.html", {"quantities": QUANTITIES}))
    v.notes = [
        Note("按峰值 Π、β 算出的时间是物理下界,软件怎么排都不会更快。实测时间 T 与下界之比就是利用率:"
             "$\\text{MFU} = F/(\\Pi T)$,$\\text{MBU} = R/(\\beta T)$,都 ≤ 1(第 1.3.4 节用它们分析差距)。", "formula"),
        Note("M 与 R 分开记:同一份权重只存一次,却可能每步都要读一遍。"),
    ]
    return v


CHEAT_GPUS = ("rtx-4090", "a100-80gb-sxm", "h100-sxm")
CHEAT_METRICS = (("mem_gb", "显存容量", "GB"), ("bw_tbps", "显存带宽", "TB/s"),
                 ("bf16_tflops", "BF16 矩阵峰值", "TFLOP/s"), ("read_1gb_ms", "按带宽峰值读取 1 GB", "ms"))


@card("gpu-cheatsheet", title="GPU 资源速查表", section="1.2", kind="table",
      lead="三张常见 GPU 的容量、带宽、算力,以及按峰值带宽读 1 GB 要多久。条形按每一行的最大值归一。")
def gpu_cheatsheet(p: Params) -> View:
    vals: dict[str, dict[str, float]] = {}
    for gid in CHEAT_GPUS:
        g = gpu(gid)
        vals[gid] = {"mem_gb": g.mem_gb, "bw_tbps": g.bw_tbps, "bf16_tflops": g.bf16_tflops,
                     "read_1gb_ms": units.transfer_time(GB, g.bw_bytes_s) * 1e3}
    o: dict = {}
    for m, _, _ in CHEAT_METRICS:
        for gid in CHEAT_GPUS:
            o[f"{gid.replace('-', '_')}_{m}"] = vals[gid][m]
    bars = {m: {gid: vals[gid][m] / max(vals[x][m] for x in CHEAT_GPUS) for gid in CHEAT_GPUS}
            for m, _, _ in CHEAT_METRICS}
    o["bars"] = bars
    digits = {"mem_gb": 0, "bw_tbps": None, "bf16_tflops": None, "read_1gb_ms": 2}   # None: as printed (3.35, 312)
    rows = [{"name": "架构", "unit": "", "cells": [{"text": re.search(r"\((.*)\)", gpu(g).name).group(1), "frac": None}
                                                   for g in CHEAT_GPUS]}]
    for m, name, unit in CHEAT_METRICS:
        rows.append({"name": name, "unit": unit, "role": "read" if m in ("bw_tbps", "read_1gb_ms") else
                     ("compute" if m == "bf16_tflops" else "capacity"),
                     "cells": [{"text": num(vals[g][m], digits=digits[m]) if digits[m] is not None else f"{vals[g][m]:g}",
                                "frac": bars[m][g]} for g in CHEAT_GPUS]})
    v = View(outputs=o, headline="BF16 输入 · FP32 累加 · 稠密峰值 · 十进制 GB/TB")
    v.blocks.append(Block("diagrams/gpu-cheatsheet.html", {"gpus": [_gpu_short(g) for g in CHEAT_GPUS], "rows": rows}))
    v.notes = [
        Note("读写量不变而带宽翻倍,$R/\\beta$ 减半;计算量不变而算力翻倍,$F/\\Pi$ 减半。"),
        Note("读 1 GB 的时间 = $10^9\\ \\text{B} \\div \\beta$:H100 SXM 为 1 GB ÷ 3.35 TB/s ≈ 0.30 ms。", "formula"),
        Note("书中说条形“按各列最大值归一”;表中各行单位不同,本页按每个指标(每一行)在三张卡之间归一。"),
    ]
    return v


# ------------------------------------------------------------------------------------------------
# 1.2.3 参数存储量
# ------------------------------------------------------------------------------------------------

class WeightParams(Params):
    model: ModelId = model_choice("deepseek-r1-distill-llama-70b", MODEL_OPTIONS, label="模型")
    n_gpus: int = slider(2, ge=1, le=8, step=1, label="BF16 均分到几张卡", unit="张")
    gpu: GpuAll = gpu_choice("h100-sxm", gpu_options(compute_only=False), label="对照的卡")


@card("weight-bytes", title="参数存储量(M_W = N · b_W)", section="1.2", kind="calculator", params=WeightParams,
      lead="把参数个数换成字节,再和一张卡的显存比:BF16 放不下时,可以均分到几张卡,也可以量化到 8 比特。")
def weight_bytes_card(p: WeightParams) -> View:
    s = _shape(p.model)
    n = s.params_total
    bf16 = weight_bytes(s, "bf16")
    w8 = weight_bytes(s, "w8-g128")
    parts = memory.weight_parts(s, "w8-g128")
    g = gpu(p.gpu)
    cap = g.mem_bytes
    o = {"n_params": n, "n_params_billion": n / 1e9, "bf16_bytes": bf16, "bf16_gb": bf16 / GB,
         "bf16_gib": bf16 / GIB, "bf16_per_gpu_gb": bf16 / p.n_gpus / GB,
         "w8_g128_gb": w8 / GB, "w8_g128_gib": w8 / GIB, "w8_g128_bytes": w8,
         "w8_part_gb": parts["w8"] / GB, "scale_part_gb": parts["scales"] / GB,
         "bf16_kept_part_gb": parts["bf16_kept"] / GB,
         "bf16_fits_one_gpu": bf16 <= cap, "free_after_w8_gb": (cap - w8) / GB}

    xs = ["BF16", "8 比特分组量化"]
    cap_name = f"{_gpu_short(p.gpu)} {num(g.mem_gb)} GB"
    fig = figure([
        bar(xs, [o["bf16_gb"], 0], "BF16 权重(每参数 2 B)", "capacity"),
        bar(xs, [0, o["w8_part_gb"]], "块内线性权重 8 比特", "read", text=["", f"{o['w8_part_gb']:.2f}"]),
        bar(xs, [0, o["scale_part_gb"]], "每 128 个一个 BF16 scale", "storage"),
        bar(xs, [0, o["bf16_kept_part_gb"]], "保留 BF16:嵌入、LM head、norm", "capacity"),
    ], with_refs(layout(axis(""), axis("权重 (GB)", range_=(0, max(o["bf16_gb"], g.mem_gb) * 1.12)),
                        height=320, barmode="stack"),
                 hline(g.mem_gb, f"{cap_name}", "over", dash="dash")))
    fig["data"][3]["marker"]["pattern"] = {"shape": "/"}
    lay = fig["layout"]
    lay["xaxis"].update({"tickvals": xs, "ticktext": [f"{x}<br><b>{t:.2f} GB</b>" for x, t in
                                                      zip(xs, (o["bf16_gb"], o["w8_g128_gb"]))]})
    lay["margin"]["b"] = 64
    if p.n_gpus > 1:
        per = o["bf16_per_gpu_gb"]
        lay["shapes"].append({"type": "line", "xref": "x", "yref": "y", "x0": -0.4, "x1": 0.4, "y0": per, "y1": per,
                              "line": {"color": "#ffffff", "width": 2, "dash": "dot"}})
        lay["annotations"].append({"x": 0, "y": per, "xref": "x", "yref": "y", "showarrow": False, "yanchor": "top",
                                   "text": f"÷ {p.n_gpus}:每卡 {per:.2f} GB", "font": {"color": "#ffffff", "size": 13}})

    name = MODEL_OPTIONS.get(p.model, "自定义模型")
    v = View(outputs=o, headline=f"{name}:N = {n:,} 个参数")
    v.stats.append(Stat("n_params", "参数量 N", n, book=f"{n / 1e8:.2f} 亿"))
    v.stat("bf16_gb", "BF16 权重 2N", "GB", digits=2)
    v.stat("bf16_gib", "同上(二进制)", "GiB", digits=2)
    v.stat("bf16_per_gpu_gb", f"BF16 均分到 {p.n_gpus} 张卡,每张", "GB", digits=2)
    v.stats.append(Stat("bf16_fits_one_gpu", f"BF16 放进一张 {_gpu_short(p.gpu)}?", o["bf16_fits_one_gpu"],
                        text="放得下" if o["bf16_fits_one_gpu"] else f"放不下(超 {o['bf16_gb'] - g.mem_gb:.2f} GB)"))
    v.stat("w8_g128_gb", "8 比特分组量化后", "GB", digits=2, emphasis=True)
    v.stat("w8_g128_gib", "同上(二进制)", "GiB", digits=2)
    v.stat("free_after_w8_gb", f"{_gpu_short(p.gpu)} 放下 8 比特权重后剩余", "GB", digits=2)
    v.figures.append(Figure(fig, "两种权重格式 vs 一张卡的容量",
                            f"BF16 {o['bf16_gb']:.2f} GB;8 比特 {o['w8_g128_gb']:.2f} GB = {o['w8_part_gb']:.2f}(8 比特线性权重)"
                            f" + {o['scale_part_gb']:.2f}(scale)+ {o['bf16_kept_part_gb']:.2f}(保留 BF16 的参数);"
                            f"{cap_name}。"))
    v.notes = [
        Note(f"$M_W = N \\cdot b_W = {n:,} \\times 2\\ \\text{{B}} \\approx {o['bf16_gb']:.2f}\\ \\text{{GB}} "
             f"\\approx {o['bf16_gib']:.2f}\\ \\text{{GiB}}$(GB = 10⁹ B,GiB = 2³⁰ B)", "formula"),
        Note("8 比特分组量化:Transformer 块内的线性层权重各 1 字节,每 128 个共用一个 2 字节 scale;"
             "嵌入、LM head 和各层 norm 仍是 BF16。三项相加正好是书上的 73.73 GB。"),
        Note("这是存放的字节数(容量)。例题 1-1 为了手算,把每步读取取成 70 GB(N = 70×10⁹、每参数 1 字节),"
             "两个数用途不同,不要互换。"),
    ]
    return v


# ------------------------------------------------------------------------------------------------
# 1.2.3 图 1-7 · 显存预算计算器
# ------------------------------------------------------------------------------------------------

class BudgetParams(Params):
    model: ModelId = model_choice("deepseek-r1-distill-llama-70b", MODEL_OPTIONS, label="模型")
    precision: PrecisionId = choice("w8-g128", PRECISION_OPTIONS, label="权重格式")
    kv_tokens: int = slider(8192, ge=0, le=131072, step=1024, label="KV 缓存 token 数(所有请求合计,BF16)", unit="token")
    workspace_gib: float = slider(2, ge=0, le=16, step=0.5, label="每卡工作区", unit="GiB")
    n_gpus: int = slider(1, ge=1, le=8, step=1, label="卡数", unit="张")
    gpu: GpuAll = gpu_choice("h100-sxm", gpu_options(compute_only=False), label="卡型")


def budget_figure(cards: list[str], weights: list[float], kv: list[float], ws: list[float],
                  caps: list[float], ws_name: str = "工作区") -> dict:
    """One stacked bar per card (GB) with each card's capacity and the over-limit part marked."""
    n = len(cards)
    xs = list(range(1, n + 1))
    data = [
        bar(xs, weights, "权重", "capacity", text=[f"{w:.2f}" for w in weights], width=0.6),
        bar(xs, kv, "KV 状态", "storage", width=0.6),
        bar(xs, ws, ws_name, "waiting", width=0.6),
    ]
    for i, (x, c) in enumerate(zip(xs, caps)):
        data.append(line([x - 0.42, x + 0.42], [c, c], f"{cards[i]} 容量", "ink", dash="dash",
                         legendgroup="cap", showlegend=i == 0, hoverinfo="skip"))
    data[3]["name"] = "卡的容量"
    shapes, anns = [], []
    top = max(max(w + k + s for w, k, s in zip(weights, kv, ws)), max(caps))
    for x, w, k, s, c in zip(xs, weights, kv, ws, caps):
        tot = w + k + s
        if tot > c:
            shapes.append({"type": "rect", "xref": "x", "yref": "y", "x0": x - 0.3, "x1": x + 0.3, "y0": c, "y1": tot,
                           "fillcolor": "rgba(224,65,58,0.35)", "line": {"color": "#e0413a", "width": 2}})
            anns.append({"x": x, "y": tot, "xref": "x", "yref": "y", "text": f"超出 {tot - c:.2f} GB", "showarrow": False,
                         "yanchor": "bottom", "font": {"color": "#e0413a", "size": 13}})
        else:
            anns.append({"x": x, "y": c, "xref": "x", "yref": "y", "text": f"容量 {num(c)} GB", "showarrow": False,
                         "yanchor": "bottom", "font": {"size": 12}})
    pad = max(0.0, (3 - n) / 2)
    lay = layout(axis("", ticks=xs, ticktext=cards, range_=(0.5 - pad, n + 0.5 + pad)),
                 axis("显存 (GB)", range_=(0, top * 1.15)), height=340, barmode="stack")
    lay["shapes"], lay["annotations"] = shapes, anns
    return figure(data, lay)


@card("fig-1-7", title="显存预算计算器", label="图 1-7", section="1.2", kind="calculator", params=BudgetParams,
      lead="权重、KV 状态、运行时工作区要同时放在卡上:逐卡相加,再和容量比。默认是书里的例子——8 比特的 70B、8192 token 的 KV、2 GiB 工作区,放在一张 H100 上。")
def fig_1_7(p: BudgetParams) -> View:
    s = _shape(p.model)
    w = weight_bytes(s, p.precision)
    kv_tok = s.kv_bytes_per_token_bf16
    kv = memory.kv_bytes(p.kv_tokens, kv_tok)
    ws = units.gib_to_bytes(p.workspace_gib)
    g = gpu(p.gpu)
    b = memory.even_split(w, kv, ws, p.n_gpus, g.mem_bytes)
    o = {"weights_gb": w / GB, "kv_gb": kv / GB, "kv_gib": kv / GIB, "workspace_gb": ws / GB,
         "per_gpu_weights_gb": b.per_gpu_weights / GB, "per_gpu_kv_gb": b.per_gpu_kv / GB,
         "per_gpu_total_gb": b.per_gpu_total / GB, "capacity_gb": g.mem_gb, "headroom_gb": b.headroom / GB,
         "fits": b.fits, "max_kv_tokens": memory.max_kv_tokens(g.mem_bytes, w, ws, p.n_gpus, kv_tok)}
    multi = p.n_gpus > 1
    short = _gpu_short(p.gpu)
    cards = [f"{short} #{i + 1}" for i in range(p.n_gpus)] if multi else [short]
    n = p.n_gpus
    fig = budget_figure(cards, [o["per_gpu_weights_gb"]] * n, [o["per_gpu_kv_gb"]] * n, [o["workspace_gb"]] * n,
                        [g.mem_gb] * n)
    tight = b.fits and b.headroom < 0.05 * g.mem_bytes
    fit_text = ("刚好放下" if tight else "放得下") + f"(余 {o['headroom_gb']:.2f} GB)" if b.fits \
        else f"放不下(超 {-o['headroom_gb']:.2f} GB)"

    sum_line = (f"{o['per_gpu_weights_gb']:.2f} + {o['per_gpu_kv_gb']:.2f} + {o['workspace_gb']:.2f} = "
                f"{o['per_gpu_total_gb']:.2f} GB {'≤' if b.fits else '>'} {num(g.mem_gb)} GB")
    v = View(outputs=o, headline=("每卡 " if multi else "") + sum_line)
    v.stat("weights_gb", f"权重({PRECISION_SHORT[p.precision]})", "GB", digits=2)
    v.stat("kv_gb", f"KV({p.kv_tokens:,} token × {kv_tok // 1024} KiB)", "GB", digits=2)
    v.stat("kv_gib", "KV(二进制)", "GiB", digits=2)
    v.stat("workspace_gb", f"工作区 {p.workspace_gib:g} GiB", "GB", digits=2)
    if multi:
        v.stats.append(Stat("per_gpu_weights_gb", "每卡权重", o["per_gpu_weights_gb"], "GB", digits=2, illustrative=True))
        v.stats.append(Stat("per_gpu_kv_gb", "每卡 KV", o["per_gpu_kv_gb"], "GB", digits=2, illustrative=True))
    v.stats.append(Stat("per_gpu_total_gb", "每卡合计" if multi else "合计", o["per_gpu_total_gb"], "GB", digits=2,
                        emphasis=True, illustrative=multi))
    v.stat("capacity_gb", f"{short} 容量", "GB")
    v.stats.append(Stat("fits", "放得下吗?", b.fits, text=fit_text, emphasis=True))
    v.stats.append(Stat("max_kv_tokens", "KV 最多能放", o["max_kv_tokens"], "token", illustrative=multi))
    v.figures.append(Figure(fig, "图 1-7 · 逐卡显存预算",
                            f"{'每张卡' if multi else '这张卡'}上:权重 {o['per_gpu_weights_gb']:.2f} GB、KV {o['per_gpu_kv_gb']:.2f} GB、"
                            f"工作区 {o['workspace_gb']:.2f} GB,合计 {o['per_gpu_total_gb']:.2f} GB,容量 {num(g.mem_gb)} GB:{fit_text}。",
                            illustrative=multi, height=340))
    v.notes = [Note("$M_W + M_{\\text{state}} + M_{\\text{work}} \\le M_{\\text{cap}}$,多卡时逐卡核算。", "formula"),
               Note(f"KV 按 BF16 计:每 token {kv_tok:,} B = {kv_tok // 1024} KiB(与权重格式无关);"
                    "8192 token 即 2.5 GiB ≈ 2.68 GB。容量用厂商名义 GB(10⁹ B)。")]
    if multi:
        v.notes.append(Note("多卡时权重与 KV 在各卡间均分、每卡各留一份工作区——这是本页为演示设定的分配方式,"
                            "实际切分还受层边界、并行方式影响。", "illustrative"))
    if p.gpu == "rtx-a6000":
        v.notes.append(Note("RTX A6000 在本书中只用来核对容量(48 GB),书里没有给它的带宽和算力。"))
    return v


# ------------------------------------------------------------------------------------------------
# 1.2.3 链路换算
# ------------------------------------------------------------------------------------------------

class LinkParams(Params):
    link_gbit_s: float = slider(400, ge=1, le=1600, step=1, label="线路速率(ConnectX-7 为 400)", unit="Gbit/s")
    data_gb: float = slider(1, ge=0.001, le=1000, step=0.001, label="要传的数据量", unit="GB", log=True)
    startup_us: float = slider(0, ge=0, le=1000, step=1, label="每次传输的启动时间(扩展)", unit="μs", illustrative=True)
    efficiency_pct: float = slider(100, ge=1, le=100, step=1, label="应用实际拿到的带宽比例(扩展)", unit="%",
                                   illustrative=True)


def link_outputs(link_gbit_s: float, data_gb: float, startup_us: float = 0, efficiency_pct: float = 100) -> dict:
    rate = units.bits_to_bytes_rate(link_gbit_s * 1e9)
    eff = units.effective_rate(rate, efficiency_pct / 100)
    n = data_gb * GB
    return {"link_gbps": rate / GB, "effective_gbps": eff / GB,
            "transfer_ms": units.transfer_time(n, eff, startup_us * 1e-6) * 1e3,
            "ideal_transfer_ms": units.transfer_time(n, rate) * 1e3}


@card("link-conversion", title="链路换算 · bit/s 先除以 8", section="1.2", kind="calculator", params=LinkParams,
      lead="网卡标的是 bit/s,显存和模型大小用的是字节:先除以 8,再用 数据量 ÷ 带宽 估搬运时间。")
def link_conversion(p: LinkParams) -> View:
    o = link_outputs(p.link_gbit_s, p.data_gb, p.startup_us, p.efficiency_pct)
    ext = p.startup_us != 0 or p.efficiency_pct != 100
    v = View(outputs=o, headline=("ConnectX-7 · " if p.link_gbit_s == 400 else "") + f"{num(p.link_gbit_s)} Gbit/s")
    v.stat("link_gbps", f"{num(p.link_gbit_s)} Gbit/s ÷ 8", "GB/s", emphasis=True)
    v.stat("ideal_transfer_ms", f"理想时间:{num(p.data_gb)} GB ÷ 带宽", "ms", emphasis=True)
    v.stats.append(Stat("effective_gbps", "应用拿到的带宽", o["effective_gbps"], "GB/s",
                        illustrative=p.efficiency_pct != 100))
    v.stats.append(Stat("transfer_ms", "计入启动与折损后的时间", o["transfer_ms"], "ms", illustrative=ext))
    v.notes = [
        Note(f"${num(p.link_gbit_s)}\\ \\text{{Gbit/s}} \\div 8 = {num(o['link_gbps'])}\\ \\text{{GB/s}}$;"
             f"$t = {num(p.data_gb)}\\ \\text{{GB}} \\div {num(o['link_gbps'])}\\ \\text{{GB/s}} = "
             f"{num(o['ideal_transfer_ms'])}\\ \\text{{ms}}$", "formula"),
        Note("这是理想时间。每次传输还有启动开销,协议开销和同一链路上的其他流量也会让应用实际拿到的带宽变低;"
             "沿路径把这些逐段计入,估算才更准。"),
    ]
    if ext:
        v.notes.append(Note("启动时间和带宽比例是本页加的扩展参数,书中没有给出数值。", "illustrative"))
    return v


# ------------------------------------------------------------------------------------------------
# 练习 1-2
# ------------------------------------------------------------------------------------------------

class Ex12Params(Params):
    reserve_gb: float = slider(5, ge=0, le=20, step=0.5, label="每卡预留(状态 + 工作区)", unit="GB")
    link_gbit_s: float = slider(400, ge=1, le=1600, step=1, label="链路速率", unit="Gbit/s")
    data_gb: float = slider(1, ge=0.001, le=1000, step=0.001, label="传输数据量", unit="GB", log=True)


EX_MODEL = "deepseek-r1-distill-llama-70b"
GIB_IN_GB = GIB / GB


def _cmp(ok: bool) -> str:
    return "\\le" if ok else ">"


def _mark(ok: bool) -> str:
    return "✓" if ok else "✗"


@card("ex-1-2", title="不同权重精度下的显存需求与多卡分配", label="练习 1-2", section="1.2", kind="exercise",
      params=Ex12Params,
      lead="BF16 权重 141.11 GB、8 比特 73.73 GB;每卡先留出状态与工作区。单卡、两卡均分、一张 A6000 加一张 H100,各放得下哪种?最后换算一次链路。")
def ex_1_2(p: Ex12Params) -> View:
    s = _shape(EX_MODEL)
    W = {"bf16": weight_bytes(s, "bf16") / GB, "w8": weight_bytes(s, "w8-g128") / GB}
    h100, a6000 = gpu("h100-sxm"), gpu("rtx-a6000")
    cap, r = h100.mem_gb, p.reserve_gb
    o: dict = {"bf16_gb": W["bf16"], "w8_gb": W["w8"]}
    for k in ("bf16", "w8"):
        need = memory.need_with_reserve(W[k] * GB, 1, r * GB) / GB
        o[f"one_h100_{k}_need_gb"] = need
        o[f"one_h100_{k}_margin_gb"] = cap - need
        o[f"one_h100_{k}_fits"] = need <= cap
    for k in ("bf16", "w8"):
        per = memory.need_with_reserve(W[k] * GB, 2, r * GB) / GB
        o[f"two_h100_{k}_per_gpu_gb"] = per
        o[f"two_h100_{k}_margin_gb"] = cap - per
        o[f"two_h100_{k}_fits"] = per <= cap
    rooms = memory.weight_room([a6000.mem_bytes, h100.mem_bytes], r * GB)
    room = sum(rooms) / GB
    o["mixed_weight_room_gb"] = room
    for k in ("bf16", "w8"):
        o[f"mixed_{k}_margin_gb"] = room - W[k]
        o[f"mixed_{k}_fits"] = W[k] <= room and all(x > 0 for x in rooms)
    split = memory.proportional_split(W["w8"] * GB, rooms)
    o["mixed_w8_a6000_gb"], o["mixed_w8_h100_gb"] = split[0] / GB, split[1] / GB
    lk = link_outputs(p.link_gbit_s, p.data_gb)
    o["link_gbps"], o["transfer_ms"] = lk["link_gbps"], lk["ideal_transfer_ms"]

    ra, rh = rooms[0] / GB, rooms[1] / GB

    def cell_one(k: str) -> str:
        return f"{o[f'one_h100_{k}_need_gb']:.2f} / {num(cap)} GB {_mark(o[f'one_h100_{k}_fits'])}(余量 {o[f'one_h100_{k}_margin_gb']:.2f})"

    def cell_two(k: str) -> str:
        return (f"每卡 {o[f'two_h100_{k}_per_gpu_gb']:.2f} / {num(cap)} GB {_mark(o[f'two_h100_{k}_fits'])}"
                f"(余量 {o[f'two_h100_{k}_margin_gb']:.2f})")

    def cell_mixed(k: str) -> str:
        return f"需 {W[k]:.2f},可用 {num(room)} GB {_mark(o[f'mixed_{k}_fits'])}(余量 {o[f'mixed_{k}_margin_gb']:.2f})"

    grid = {
        "columns": ["方案", f"BF16({W['bf16']:.2f} GB)", f"8 比特({W['w8']:.2f} GB)"],
        "rows": [[("一张 H100 SXM(80 GB)", None), (cell_one("bf16"), o["one_h100_bf16_fits"]),
                  (cell_one("w8"), o["one_h100_w8_fits"])],
                 [("两张 H100 SXM 均分", None), (cell_two("bf16"), o["two_h100_bf16_fits"]),
                  (cell_two("w8"), o["two_h100_w8_fits"])],
                 [("RTX A6000(48 GB)+ H100 SXM(80 GB)", None), (cell_mixed("bf16"), o["mixed_bf16_fits"]),
                  (cell_mixed("w8"), o["mixed_w8_fits"])]],
        "reserve": num(r),
        # one feasible 8-bit allocation on the mixed pair (proportional to each card's room)
        "alloc": [{"name": "RTX A6000", "cap": a6000.mem_gb, "w": o["mixed_w8_a6000_gb"], "r": r},
                  {"name": "H100 SXM", "cap": h100.mem_gb, "w": o["mixed_w8_h100_gb"], "r": r}],
        "scale": max(a6000.mem_gb, h100.mem_gb, o["mixed_w8_h100_gb"] + r, o["mixed_w8_a6000_gb"] + r),
    }

    v = View(outputs=o, headline=f"BF16 {W['bf16']:.2f} GB · 8 比特 {W['w8']:.2f} GB · 每卡预留 {num(r)} GB")
    v.blocks.append(Block("diagrams/ex-1-2.html", grid))
    gib = {"GiB": GIB_IN_GB}
    v.questions = [
        Question("one_h100_bf16_fits", "一张 H100 SXM,BF16 权重加上预留,放得下吗?", kind="bool",
                 options={"true": "放得下", "false": "放不下"},
                 hint="需要 = 权重 + 每卡预留,和 80 GB 比。",
                 solution=[f"${W['bf16']:.2f} + {num(r, sig=3)} = {o['one_h100_bf16_need_gb']:.2f}\\ \\text{{GB}} "
                           f"{_cmp(o['one_h100_bf16_fits'])} {num(cap)}\\ \\text{{GB}}$,"
                           + ("放得下。" if o["one_h100_bf16_fits"] else f"差 {-o['one_h100_bf16_margin_gb']:.2f} GB,放不下。")]),
        Question("one_h100_w8_fits", "一张 H100 SXM,8 比特权重加上预留,放得下吗?", kind="bool",
                 options={"true": "放得下", "false": "放不下"},
                 solution=[f"${W['w8']:.2f} + {num(r, sig=3)} = {o['one_h100_w8_need_gb']:.2f}\\ \\text{{GB}} "
                           f"{_cmp(o['one_h100_w8_fits'])} {num(cap)}\\ \\text{{GB}}$,"
                           + (f"放得下,还余 {o['one_h100_w8_margin_gb']:.2f} GB。" if o["one_h100_w8_fits"] else "放不下。")]),
        Question("two_h100_bf16_per_gpu_gb", "两张 H100 均分 BF16 权重,每张卡需要多少显存(含预留)?", unit="GB",
                 units=gib, hint="每卡 = 权重 ÷ 2 + 预留。",
                 solution=[f"${W['bf16']:.2f} / 2 + {num(r, sig=3)} = {o['two_h100_bf16_per_gpu_gb']:.2f}\\ \\text{{GB}}$"
                           f"({'≤' if o['two_h100_bf16_fits'] else '>'} 80 GB,"
                           + ("放得下)" if o["two_h100_bf16_fits"] else "放不下)")]),
        Question("two_h100_bf16_fits", "两张 H100 均分时,BF16 放得下吗?", kind="bool",
                 options={"true": "放得下", "false": "放不下"},
                 solution=[f"每卡 {o['two_h100_bf16_per_gpu_gb']:.2f} GB,余量 {o['two_h100_bf16_margin_gb']:.2f} GB。"]),
        Question("two_h100_w8_per_gpu_gb", "两张 H100 均分 8 比特权重,每张卡需要多少显存(含预留)?", unit="GB",
                 units=gib,
                 solution=[f"${W['w8']:.2f} / 2 + {num(r, sig=3)} = {o['two_h100_w8_per_gpu_gb']:.2f}\\ \\text{{GB}}$,"
                           f"余量 {o['two_h100_w8_margin_gb']:.2f} GB。"]),
        Question("mixed_weight_room_gb", "一张 RTX A6000(48 GB)加一张 H100(80 GB),两卡留出预留后共有多少空间放权重?",
                 unit="GB", units=gib,
                 solution=[f"$({num(a6000.mem_gb)} - {num(r, sig=3)}) + ({num(cap)} - {num(r, sig=3)}) = "
                           f"{num(ra)} + {num(rh)} = {num(room)}\\ \\text{{GB}}$"]),
        Question("mixed_bf16_fits", "这一对卡能部署 BF16 权重吗?", kind="bool",
                 options={"true": "能", "false": "不能"},
                 solution=[f"需要 {W['bf16']:.2f} GB,可用 {num(room)} GB,余量 {o['mixed_bf16_margin_gb']:.2f} GB:"
                           + ("能。" if o["mixed_bf16_fits"] else "不能。")]),
        Question("mixed_w8_fits", "这一对卡能部署 8 比特权重吗?", kind="bool",
                 options={"true": "能", "false": "不能"},
                 solution=[f"需要 {W['w8']:.2f} GB,可用 {num(room)} GB,余量 {o['mixed_w8_margin_gb']:.2f} GB:"
                           + ("能。" if o["mixed_w8_fits"] else "不能。")]),
        Question("mixed_w8_a6000_gb", "给出 8 比特权重在两张卡上的一种分配。", kind="open", unit="GB",
                 answer_text=(f"只要 A6000 上不超过 {num(ra)} GB、H100 上不超过 {num(rh)} GB 都可以。"
                              f"例如按可用空间 {num(ra)} : {num(rh)} 的比例:A6000 放 {o['mixed_w8_a6000_gb']:.2f} GB,"
                              f"H100 放 {o['mixed_w8_h100_gb']:.2f} GB;也可以把 {W['w8']:.2f} GB 全放在 H100 上"
                              f"(余 {rh - W['w8']:.2f} GB)。实际切分按整层进行。"),
                 solution=[f"A6000:${W['w8']:.2f} \\times {num(ra)}/{num(room)} = {o['mixed_w8_a6000_gb']:.2f}$ GB",
                           f"H100:${W['w8']:.2f} \\times {num(rh)}/{num(room)} = {o['mixed_w8_h100_gb']:.2f}$ GB"]),
        Question("link_gbps", f"把 {num(p.link_gbit_s)} Gbit/s 换成 GB/s。", unit="GB/s", hint="1 字节 = 8 比特。",
                 solution=[f"${num(p.link_gbit_s)} \\div 8 = {num(o['link_gbps'])}\\ \\text{{GB/s}}$"]),
        Question("transfer_ms", f"按这个速率传 {num(p.data_gb)} GB,理想时间多少?", unit="ms", units={"s": 1000},
                 solution=[f"${num(p.data_gb)}\\ \\text{{GB}} \\div {num(o['link_gbps'])}\\ \\text{{GB/s}} = "
                           f"{num(o['transfer_ms'])}\\ \\text{{ms}}$(不含启动与协议开销)"]),
    ]
    v.notes = [
        Note("书中的分配只要求“一种”:按可用空间比例切只是其中之一;真实部署按整层切分。"),
        Note("GB 为十进制(10⁹ B);若按 GiB 作答,1 GiB ≈ 1.074 GB。"),
    ]
    return v
