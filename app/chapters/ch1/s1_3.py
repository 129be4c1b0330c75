"""Section 1.3 用几个数字估算一次模型执行: 例题 1-1 and the cards around it."""
from __future__ import annotations

import math
from typing import Literal

from ...calculators import roofline
from ...calculators.model_config import decode_flops, decode_weight_read_bytes, shape_of
from ...cards import (Block, Figure, Note, Params, Stat, Table, View, card, choice, gpu_choice, gpu_type,
                      model_choice, model_type, slider)
from ...charts import animate, axis, figure, gantt_trace, layout, line, points, vline, hline, with_refs
from ...data import compute_gpu_ids, gpu, gpu_options, model_config

GpuId = gpu_type(compute_gpu_ids())          # a preset, or a reader's own card (custom:GB,TB/s,TFLOP/s)
MODELS = {"manual": "按 N 手算(例题 1-1)", "deepseek-r1-distill-llama-70b": "DeepSeek-R1-Distill-Llama-70B",
          "qwen3-8b": "Qwen3-8B"}
ModelRef = model_type(MODELS)


class StepParams(Params):
    """例题 1-1's nine quantities (shared by 图 1-10)."""

    gpu: GpuId = gpu_choice("h100-sxm", gpu_options(), label="加速器")
    params_billion: float = slider(70, ge=1, le=1000, step=1, label="参数量 N", unit="×10⁹")
    bytes_per_param: float = slider(1, ge=0.25, le=2, step=0.25, label="每参数字节 b_W", unit="B")
    batch: int = slider(1, ge=1, le=512, step=1, label="批大小 B", unit="请求", log=True)
    bw_tbps: float | None = slider(None, ge=0.1, le=10, step=0.001, label="带宽 β(覆盖)", unit="TB/s",
                                   placeholder="按加速器")
    peak_tflops: float | None = slider(None, ge=10, le=5000, step=0.1, label="算力 Π(覆盖)",
                                       unit="TFLOP/s", placeholder="按加速器")
    bw_eff_pct: float = slider(100, ge=10, le=100, step=5, label="带宽可用比例", unit="%")
    compute_eff_pct: float = slider(100, ge=10, le=100, step=5, label="算力可用比例", unit="%")
    target_ms: float = slider(10, ge=1, le=100, step=1, label="每步目标", unit="ms")


class Eg11Params(StepParams):
    """例题 1-1 plus a model choice: "manual" is the book's hand calculation with N; a preset or a
    reader's own config.json replaces N by the model's own per-step read and FLOPs."""

    model: ModelRef = model_choice("manual", MODELS, label="模型(可选)")


def model_step_quantities(ref: str, b_w: float) -> tuple[float, float, float]:
    """(resident bytes, bytes read per decode step, FLOPs per token without attention) of a model
    config at ``b_w`` bytes per parameter."""
    s = shape_of(model_config(ref))
    return b_w * s.params_total, decode_weight_read_bytes(s, b_w), decode_flops(s, 0)


def effective_rates(p: StepParams) -> tuple[float, float]:
    """β and Π actually used (B/s, FLOP/s): the override or the GPU's, times the usable share."""
    g = gpu(p.gpu)
    bw = (p.bw_tbps if p.bw_tbps is not None else g.bw_tbps) * 1e12 * p.bw_eff_pct / 100
    peak = (p.peak_tflops if p.peak_tflops is not None else g.bf16_tflops) * 1e12 * p.compute_eff_pct / 100
    return bw, peak


def step_outputs(n: float, b_w: float, batch: int, bw: float, peak: float, target_ms: float,
                 model: tuple[float, float, float] | None = None) -> dict:
    """例题 1-1's outputs (catalog keys) for one setting; reused by 练习 1-3 and 图 1-10.
    ``model`` = (resident, read, FLOPs/token) from a config replaces the N-based hand calculation."""
    if model is None:
        s = roofline.decode_step(n, b_w, batch, bw, peak)
        bs = roofline.b_star(b_w, bw, peak)
        resident = b_w * n
    else:
        resident, read, f_tok = model
        s = roofline.step_bound(batch * f_tok, read, bw, peak)
        bs = read * peak / (f_tok * bw)          # B where B·F/Π = R/β
    t_step_ms = s.t_step * 1e3
    return {
        "m_w_gb": resident / 1e9, "r_w_gb": s.read_bytes / 1e9, "f_gflop": s.flops / 1e9,
        "bw_eff_tbps": bw / 1e12, "peak_eff_tflops": peak / 1e12,
        "t_mem_ms": s.t_mem * 1e3, "t_compute_ms": s.t_compute * 1e3, "t_step_ms": t_step_ms,
        "bound": s.bound, "read_to_compute_ratio": s.t_mem / s.t_compute,
        "per_output_ms": t_step_ms / batch, "throughput_tok_s": batch / s.t_step,
        "b_star": bs, "intensity_flop_per_byte": 2 * batch / b_w, "ridge_flop_per_byte": peak / bw,
        "meets_target": t_step_ms <= target_ms, "target_margin_ms": target_ms - t_step_ms,
    }


def batch_grid(b_star: float, current: int, lo: int = 1, hi: int = 512, n: int = 40) -> list[float]:
    """Log-spaced B values that include ⌊B*⌋, ⌈B*⌉ and the current B, so the kink sits where it is."""
    pts = {round(lo * (hi / lo) ** (i / (n - 1)), 3) for i in range(n)}
    pts |= {float(current)}
    if lo <= b_star <= hi:
        pts |= {b_star, float(math.floor(b_star)), float(math.ceil(b_star))}
    return sorted(x for x in pts if lo <= x <= hi)


@card("eg-1-1", title="单步生成计算器", label="例题 1-1 / 图 1-9 ~ 1-12 / 练习 1-3", section="1.3",
      kind="calculator", params=Eg11Params, aliases=("fig-1-9", "fig-1-11", "fig-1-12"),
      badges=(("练习 1-3", "ex-1-3"), ("图 1-10", "fig-1-10")),
      lead="一张 H100 SXM 能否让 70B 模型每 10 ms 生成一个新 token?读权重和做乘加各要多久,取较慢者。")
def eg_1_1(p: Eg11Params) -> View:
    n = p.params_billion * 1e9
    bw, peak = effective_rates(p)
    mq = None if p.model == "manual" else model_step_quantities(p.model, p.bytes_per_param)
    o = step_outputs(n, p.bytes_per_param, p.batch, bw, peak, p.target_ms, mq)
    f_tok = o["f_gflop"] * 1e9 / p.batch
    grid = batch_grid(o["b_star"], p.batch)
    t_mem = [o["t_mem_ms"]] * len(grid)
    t_cmp = [b * f_tok / peak * 1e3 for b in grid]
    t_max = [max(a, c) for a, c in zip(t_mem, t_cmp)]
    thr = [b / (t / 1e3) for b, t in zip(grid, t_max)]
    o["chart"] = {"batch": grid, "t_mem_ms": t_mem, "t_compute_ms": t_cmp, "t_step_ms": t_max,
                  "throughput_tok_s": thr}

    bs = o["b_star"]
    xa = axis("批大小 B(请求数,对数)", log=True, range_=(0, math.log10(512)))
    # explicit y ranges: a batch change then leaves the layout untouched and the client can take
    # Plotly's fast path (only the traces move)
    lo, hi = min(t_mem + t_cmp), max(t_mem + t_cmp + [p.target_ms])
    y_left = (math.log10(lo) - 0.15, math.log10(hi) + 0.15)
    y_right = (0, max(thr) * 1.08)
    left = figure([
        line(grid, t_mem, "权重读取 R_W/β", "read"),
        line(grid, t_cmp, "计算 F/Π", "compute"),
        line(grid, t_max, "下界 max", "ink", dash="dash", width=2),
        points([p.batch], [o["t_step_ms"]], f"当前 B={p.batch}", "accent", size=11),
    ], with_refs(layout(xa, axis("时间下界 (ms,对数)", log=True, range_=y_left), height=320),
                 vline(bs, f"B*≈{bs:.0f}", log=True),
                 hline(p.target_ms, f"目标 {p.target_ms:g} ms", "target", log=True)))
    right = figure([
        line(grid, thr, "理想吞吐 B/T", "compute"),
        points([p.batch], [o["throughput_tok_s"]], f"当前 B={p.batch}", "accent", size=11),
    ], with_refs(layout(dict(xa), axis("输出吞吐 (token/s)", range_=y_right), height=320),
                  vline(bs, f"B*≈{bs:.0f}", log=True)))

    head = (f"N = {p.params_billion:g}×10⁹" if mq is None else
            f"{MODELS.get(p.model, '自定义模型')}:每步读 {o['r_w_gb']:.4g} GB、每 token {f_tok / 1e9:.4g} GFLOP(由配置推导)")
    v = View(outputs=o, headline=f"{head} · 目标 {p.target_ms:g} ms/步")
    v.stat("m_w_gb", "驻留量 M_W = b_W·N", "GB", sig=4)
    v.stat("r_w_gb", "每步读取 R_W = b_W·N", "GB", sig=4)
    v.stat("f_gflop", "每步运算 F ≈ 2BN", "GFLOP", sig=4)
    v.stat("t_mem_ms", "读取下界 R_W/β", "ms", digits=2)
    v.stat("t_compute_ms", "计算下界 F/Π", "ms", sig=4)
    v.stat("t_step_ms", "单步下界 T_step", "ms", digits=2, emphasis=True)
    v.stat("read_to_compute_ratio", "读取 ÷ 计算", "×", digits=0, approx=True)
    v.stat("per_output_ms", "每输出分摊", "ms", sig=3)
    v.stat("throughput_tok_s", "理想吞吐", "token/s", sig=3)
    v.stat("b_star", "转折点 B* = b_WΠ/(2β)", "请求", digits=0, approx=True)
    v.stats.append(Stat("bound", "主导项", o["bound"], text="读取(memory)" if o["bound"] == "memory" else "计算(compute)"))
    v.stats.append(Stat("meets_target", "满足目标?", o["meets_target"],
                        text=("满足" if o["meets_target"] else "不满足") + f"(余量 {o['target_margin_ms']:.2f} ms)"))
    v.figures = [
        Figure(left, "图 1-11 · 时间下界随 B 变化",
               f"权重读取下界恒为 {o['t_mem_ms']:.2f} ms,计算下界随 B 线性增长,B={p.batch} 时 {o['t_compute_ms']:.4g} ms;"
               f"两者在 B*≈{bs:.0f} 相交。当前单步下界 {o['t_step_ms']:.2f} ms,目标 {p.target_ms:g} ms。"),
        Figure(right, "图 1-12 · 理想输出吞吐 B/T",
               f"吞吐随 B 线性上升,越过 B*≈{bs:.0f} 后变平;B={p.batch} 时约 {o['throughput_tok_s']:.3g} token/s。"),
    ]
    v.notes = [
        Note("$T_{step} \\ge \\max(F/\\Pi,\\ R_W/\\beta)$;$B^* = b_W\\Pi/(2\\beta)$ 时算术强度 $I = 2B/b_W$ 追上 $\\Pi/\\beta$。", "formula"),
        Note("“每输出分摊”是整批耗时 ÷ 输出数,用来换算吞吐;批内每个请求仍要等整批跑完,单请求延迟并没有缩短。"),
    ]
    return v
