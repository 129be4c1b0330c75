"""Section 3.1 从单次请求到持续到达的负载: 图 3-1 … 3-3, 练习 3-1, the metrics table, p95,
例题 3-1 (the backlog recursion) and the vLLM replay.

The one backlog simulation is ``queueing.run_two_class``; :func:`eg31_outputs` wraps it for 例题 3-1
and is what the intro strip, 练习 3-2 and the first fallacy call.
"""
from __future__ import annotations

import bisect
import math
from typing import Literal

from ...calculators import latency_metrics as lm
from ...calculators import model_config as mc
from ...calculators import queueing as qu
from ...calculators import roofline
from ...cards import Figure, Note, Params, Question, Stat, Table, View, card, choice, fixed, number_type, slider
from ...charts import animate, axis, bar, color, figure, gantt_trace, hline, layout, line, points, r, vline, with_refs
from ...data import gpu, model_config, read_json

# ---------------------------------------------------------------------------------------------
# Shared constants of chapter 3 part A (from data, never typed in as results)
# ---------------------------------------------------------------------------------------------

QWEN = mc.shape_of(model_config("qwen3-8b"))
KV_BYTES = QWEN.kv_bytes_per_token_bf16                          # 147,456 B = 144 KiB
KV_KIB = KV_BYTES / 1024
WEIGHT_GB = round(mc.decode_weight_read_bytes(QWEN, 2) / 1e9, 2)  # 15.14 GB as the book rounds it
PRO = gpu("rtx-pro-6000")
BW_TBPS = PRO.bw_tbps                                              # 1.792
PEAK_TFLOPS = PRO.bf16_tflops                                      # 503.8
MU_BOOK = 2795.66        # decode steps/s per card, the book's stated value ("书中取值"); formula gives 2,795.63
LI = qu.RequestClass(8192, 256)     # 例题 3-1 long-input class
LO = qu.RequestClass(1024, 2048)    # 例题 3-1 long-output class

MIB = 2**20
GIB = 2**30


def frame_indices(n: int, max_frames: int = 48) -> list[int]:
    """≤ max_frames indices into a series of n points, evenly spread, first and last included."""
    if n <= max_frames:
        return list(range(n))
    step = (n - 1) / (max_frames - 1)
    return sorted({round(i * step) for i in range(max_frames)})


def thin(n: int, keep: int = 200, must: tuple[int, ...] = ()) -> list[int]:
    """Indices of ≤ ~keep points of an n-point series (for plotting), keeping ``must``."""
    if n <= keep:
        return list(range(n))
    step = math.ceil(n / keep)
    return sorted(set(range(0, n, step)) | {n - 1} | {i for i in must if 0 <= i < n})


def fmt_int(x: float) -> str:
    return f"{x:,.0f}"


# ---------------------------------------------------------------------------------------------
# 例题 3-1 · the backlog recursion
# ---------------------------------------------------------------------------------------------

PRESETS: dict[str, dict[str, float]] = {
    "uniform": {"duration_s": 120, "split_s": 60, "share_li_before_pct": 50, "share_li_after_pct": 50, "n_cards": 2},
    "skewed": {"duration_s": 120, "split_s": 60, "share_li_before_pct": 90, "share_li_after_pct": 10, "n_cards": 2},
    "burst30_2cards": {"duration_s": 30, "split_s": 0, "share_li_before_pct": 10, "share_li_after_pct": 10, "n_cards": 2},
    "burst30_3cards": {"duration_s": 30, "split_s": 0, "share_li_before_pct": 10, "share_li_after_pct": 10, "n_cards": 3},
}
PRESET_LABELS = {"uniform": "① 均匀混合", "skewed": "② 前 9:1、后 1:9", "burst30_2cards": "③ 1:9 突发 30 s · 2 卡",
                 "burst30_3cards": "④ 1:9 突发 30 s · 3 卡"}
Preset = Literal["uniform", "skewed", "burst30_2cards", "burst30_3cards"]


class Eg31Params(Params):
    preset: Preset = choice("skewed", PRESET_LABELS, label="预设")
    rate_req_s: float = slider(4, ge=0.5, le=16, step=0.5, label="到达率 λ", unit="条/s")
    duration_s: float | None = slider(None, ge=10, le=300, step=10, label="到达时长", unit="s", placeholder="按预设")
    split_s: float | None = slider(None, ge=0, le=300, step=10, label="切换时刻", unit="s", placeholder="按预设")
    share_li_before_pct: float | None = slider(None, ge=0, le=100, step=10, label="切换前长输入占比", unit="%",
                                               placeholder="按预设")
    share_li_after_pct: float | None = slider(None, ge=0, le=100, step=10, label="切换后长输入占比", unit="%",
                                              placeholder="按预设")
    n_cards: int | None = slider(None, ge=1, le=8, step=1, label="decode 卡数", placeholder="按预设")
    mu_source: Literal["book", "bandwidth"] = choice("book", {"book": "书中取值 2,795.66", "bandwidth": "按带宽公式推算"},
                                                     label="每卡处理率 μ 来源")
    mu_per_card: float = slider(MU_BOOK, ge=1000, le=6000, step=0.01, label="每卡 μ(书中取值)", unit="步/s")
    li_input_tokens: int = slider(LI.input_tokens, ge=256, le=32768, step=256, label="长输入类 P", unit="token")
    li_output_tokens: int = slider(LI.output_tokens, ge=2, le=4096, step=1, label="长输入类 G", unit="token")
    lo_input_tokens: int = slider(LO.input_tokens, ge=256, le=32768, step=256, label="长输出类 P", unit="token")
    lo_output_tokens: int = slider(LO.output_tokens, ge=2, le=8192, step=1, label="长输出类 G", unit="token")
    batch_seqs: int = slider(64, ge=1, le=256, step=1, label="每步序列数", unit="条")
    weight_gb: float = fixed(WEIGHT_GB, "每步读权重", "GB")
    kv_kib_per_token: float = fixed(KV_KIB, "每 token KV", "KiB")
    bandwidth_tbps: float = fixed(BW_TBPS, "显存带宽", "TB/s")
    dt_s: float = slider(1, ge=0.1, le=10, step=0.1, label="递推步长 Δt", unit="s")


def eg31_scenario(p: Eg31Params) -> dict[str, float]:
    """The scenario fields: the preset's, overridden by any field given explicitly."""
    s = dict(PRESETS[p.preset])
    for k in s:
        v = getattr(p, k)
        if v is not None:
            s[k] = v
    s["split_s"] = min(s["split_s"], s["duration_s"])
    return s


def eg31_outputs(p: Eg31Params) -> tuple[dict, qu.BacklogRun]:
    """例题 3-1's outputs (catalog keys) and the recursion's trajectory; reused by the intro strip,
    练习 3-2 and the first fallacy."""
    sc = eg31_scenario(p)
    li = qu.RequestClass(p.li_input_tokens, p.li_output_tokens)
    lo = qu.RequestClass(p.lo_input_tokens, p.lo_output_tokens)
    dur, split, cards = sc["duration_s"], sc["split_s"], int(sc["n_cards"])
    s_b, s_a = sc["share_li_before_pct"] / 100, sc["share_li_after_pct"] / 100
    lam = p.rate_req_s
    n_li = lam * (split * s_b + (dur - split) * s_a)
    n_lo = lam * dur - n_li
    total_steps = n_li * li.decode_steps + n_lo * lo.decode_steps
    c_bar = qu.mean_decode_context([(n_li, li), (n_lo, lo)])
    kv_bytes = p.kv_kib_per_token * 1024
    step_bytes = qu.decode_step_bytes(p.weight_gb * 1e9, p.batch_seqs, c_bar, kv_bytes)
    bw = p.bandwidth_tbps * 1e12
    mu_bw = qu.decode_rate_bandwidth(p.batch_seqs, step_bytes, bw)
    mu = p.mu_per_card if p.mu_source == "book" else mu_bw
    cap = cards * mu
    d_before = qu.mix_demand(lam, s_b, li.decode_steps, lo.decode_steps)
    d_after = qu.mix_demand(lam, s_a, li.decode_steps, lo.decode_steps)
    run = qu.run_two_class(lam, dur, split, s_b, s_a, li.decode_steps, lo.decode_steps, cap, p.dt_s)
    o = {
        "preset": p.preset, "duration_s": dur, "split_s": split, "n_cards": cards,
        "share_li_before_pct": sc["share_li_before_pct"], "share_li_after_pct": sc["share_li_after_pct"],
        "total_requests": _num(lam * dur), "long_input_requests": _num(n_li), "long_output_requests": _num(n_lo),
        "decode_steps_long_input": li.decode_steps, "decode_steps_long_output": lo.decode_steps,
        "total_decode_steps": _num(total_steps), "avg_demand_steps_s": total_steps / dur,
        "demand_before_steps_s": d_before, "demand_after_steps_s": d_after,
        "mean_ctx_tokens": c_bar, "step_read_write_gb": step_bytes / 1e9, "step_ms": step_bytes / bw * 1e3,
        "mu_bw_per_card": mu_bw, "mu_per_card": mu, "mu_per_card_rounded": round(mu),
        "capacity_steps_s": cap,
        "util_avg_pct": 100 * total_steps / dur / cap, "util_before_pct": 100 * d_before / cap,
        "util_after_pct": 100 * d_after / cap,
        "backlog_end_steps": run.backlog_end, "backlog_end_steps_display": run.backlog_end_display,
        "backlog_fluid_steps": qu.fluid_backlog(d_after, cap, dur - split),
        "peak_backlog_steps": run.peak, "drain_s": run.drain_s, "completion_s": run.completion_s,
        "min_time_one_card_s": total_steps / mu, "min_time_all_cards_s": total_steps / cap,
        "queue_series": [round(q, 3) for q in run.queue], "arrival_series": [round(a, 3) for a in run.arrivals],
    }
    return o, run


def _num(x: float) -> float | int:
    """Counts print as integers when they are whole."""
    return int(round(x)) if abs(x - round(x)) < 1e-9 else x


def backlog_figure(run: qu.BacklogRun, *, li_share_of: list[float] | None, capacity: float, title_y: str = "到达的 decode 步(步/s)",
                   height: int = 340, duration: int = 150) -> tuple[dict, list[int]]:
    """Bars = arrivals per second (stacked long-input / long-output), dashed μ, Q(t) on the right axis;
    ▶ frames move a cursor along Q. ``li_share_of[k]`` = long-input steps in interval k."""
    n = len(run.arrivals)
    # bin the bars so that at most ~150 are drawn
    per = max(1, math.ceil(n / 150))
    xs, ws, y_li, y_lo = [], [], [], []
    t = 0.0
    for b in range(0, n, per):
        seg = range(b, min(n, b + per))
        width = sum(run.interval_s[k] for k in seg)
        a = sum(run.arrivals[k] for k in seg)
        li = sum(li_share_of[k] for k in seg) if li_share_of else 0.0
        xs.append(t + width / 2)
        ws.append(width)
        y_li.append(li / width)
        y_lo.append((a - li) / width)
        t += width
    peak_i = run.queue.index(run.peak) if run.peak in run.queue else len(run.queue) - 1
    fi = frame_indices(len(run.queue), 48)
    idx = thin(len(run.queue), 120, (peak_i, *fi))
    qt = r([run.times[i] for i in idx])
    qv = r([run.queue[i] for i in idx])
    q_line = line(qt, qv, "积压 Q(t)", "backlog", yaxis="y2", width=3)
    cur = points([qt[-1]], [qv[-1]], "当前", "ink", size=10, yaxis="y2", mode="markers+text",
                 text=[f"t={qt[-1]:.0f} s · Q={qu.floor_steps(qv[-1]):,}"], textposition="top left",
                 showlegend=False)
    data = [
        bar(xs, y_li, "长输入类(decode 步)", "decode", width=ws,
            marker={"color": "rgba(47,127,216,0.35)", "line": {"width": 0},
                    "pattern": {"shape": "/", "fgcolor": color("decode"), "size": 6, "solidity": 0.3}}),
        bar(xs, y_lo, "长输出类(decode 步)", "decode", width=ws, opacity=0.9),
        q_line, cur,
    ]
    xmax = max(run.times[-1], run.arrival_end) * 1.03 + 1
    qmax = max(run.peak, 1.0)
    ymax = max(max((a + b for a, b in zip(y_li, y_lo)), default=0), capacity) * 1.15
    lay = layout(axis("时间 (s)", range_=(0, xmax)), axis(title_y, range_=(0, ymax)), height=height,
                 margin=(64, 64, 48, 48), barmode="stack", bargap=0)
    lay["yaxis2"] = axis("积压 Q(步)", overlaying="y", side="right", range_=(0, qmax * 1.2), showgrid=False,
                         rangemode="tozero")
    with_refs(lay, hline(capacity, f"μ = {capacity:,.0f} 步/s", "backlog", dash="dash"))
    lay["annotations"][-1].update({"x": 0.01, "xanchor": "left"})
    if run.peak > 0:
        tp = run.times[peak_i]
        lay["annotations"].append({"x": r(tp), "y": r(run.peak), "xref": "x", "yref": "y2", "text": "(λw−μ)τ",
                                   "showarrow": True, "arrowhead": 2, "ax": -80, "ay": 0,
                                   "font": {"color": color("backlog"), "size": 13}})
        lay["annotations"].append({"x": r((tp + run.completion_s) / 2), "y": r(run.peak / 2), "xref": "x", "yref": "y2",
                                   "text": "÷ μ", "showarrow": False, "xanchor": "left",
                                   "font": {"color": color("backlog"), "size": 13}})
    fig = figure(data, lay)
    pos = {j: k for k, j in enumerate(idx)}
    frames, labels = [], []
    for i in fi:
        k = pos[i] + 1
        frames.append({"data": [
            {"x": qt[:k], "y": qv[:k]},
            {"x": [qt[k - 1]], "y": [qv[k - 1]],
             "text": [f"t={run.times[i]:.0f} s · Q={qu.floor_steps(run.queue[i]):,}"]},
        ], "traces": [2, 3]})
        labels.append(f"{run.times[i]:.0f}")
    animate(fig, frames, labels, duration=duration, prefix="t = ")
    return fig, fi


def eg31_figure(p: Eg31Params, o: dict, run: qu.BacklogRun, height: int = 340) -> dict:
    """例题 3-1's ▶ chart for a setting (also drawn by 练习 3-2)."""
    sc = eg31_scenario(p)
    lam, split = p.rate_req_s, sc["split_s"]
    li_steps = qu.decode_calls(p.li_output_tokens)
    li_part = []
    t = 0.0
    for d in run.interval_s:
        before = max(0.0, min(t + d, split) - t)
        li_part.append(lam * li_steps * (before * sc["share_li_before_pct"] + (d - before) * sc["share_li_after_pct"]) / 100)
        t += d
    fig, _ = backlog_figure(run, li_share_of=li_part, capacity=o["capacity_steps_s"], height=height)
    return fig


@card("eg-3-1", title="平均处理能力够,为什么还积压", label="例题 3-1", section="3.1", kind="animation",
      params=Eg31Params, badges=(("练习 3-2 ③④", "ex-3-2"),), template="diagrams/eg-3-1.html",
      lead="两类请求每秒到 4 条,持续两分钟:长输入 8192→256、长输出 1024→2048。两张 RTX PRO 6000 每秒最多做约 5,591 个 decode 步。"
           "按 ▶ 逐秒递推积压 $Q_{k+1}=\\max(0, Q_k + A_k - \\mu\\Delta t)$;预设 ①② 是书中两种到达方式,③④ 对应练习 3-2。")
def eg_3_1(p: Eg31Params) -> View:
    o, run = eg31_outputs(p)
    fig = eg31_figure(p, o, run)
    w_gb = p.weight_gb
    kv_gb = o["step_read_write_gb"] - w_gb
    mu_fig = figure([
        bar(["一步 decode"], [w_gb], f"共享权重 {w_gb:.2f} GB", "decode", horizontal=True, text=[f"权重 {w_gb:.2f} GB"]),
        bar(["一步 decode"], [kv_gb], f"{p.batch_seqs} 条序列的 KV 读写 {kv_gb:.2f} GB", "state", horizontal=True,
            text=[f"KV {kv_gb:.2f} GB"]),
    ], layout(axis("每步读写字节 (GB)"), axis(""), height=170, barmode="stack", margin=(90, 16, 16, 44)))

    v = View(outputs=o, headline=f"{PRESET_LABELS[p.preset]} · {o['n_cards']} 张卡 · μ = {o['capacity_steps_s']:,.2f} 步/s")
    v.stat("total_requests", "请求数", "条")
    v.stat("total_decode_steps", "decode 总步数 Σ(G−1)", "步")
    v.stat("avg_demand_steps_s", "平均需求", "步/s", digits=0)
    v.stat("capacity_steps_s", f"{o['n_cards']} 卡处理率 μ", "步/s", digits=0, approx=True)
    v.stat("demand_before_steps_s", "切换前需求", "步/s", digits=1)
    v.stat("demand_after_steps_s", "切换后需求", "步/s", digits=1)
    v.stat("util_avg_pct", "平均利用率", "%", digits=1)
    v.stat("util_after_pct", "切换后利用率", "%", digits=1)
    v.stat("backlog_end_steps_display", "停止到达时积压 ⌊Q⌋", "步", emphasis=True)
    v.stat("drain_s", "排空时间 Q/μ", "s", digits=2)
    v.stat("completion_s", "全部做完", "s", digits=2)
    v.stat("min_time_one_card_s", "单卡做完全部 decode 至少", "s", digits=1)
    v.stat("mean_ctx_tokens", "按步加权的平均旧 KV", "token", digits=2, book="约 2,742")
    v.stat("step_read_write_gb", "每步读写", "GB", digits=2)
    v.stat("step_ms", "每步耗时(带宽下界)", "ms", digits=2)
    v.stat("mu_bw_per_card", "带宽公式的每卡 μ", "步/s", digits=2)
    v.stat("mu_per_card", "采用的每卡 μ", "步/s", digits=2, book="约 2,796")
    v.figures = [
        Figure(fig, "例题 3-1 · 每秒到达的 decode 工作与积压 Q(t)",
               f"切换前需求 {o['demand_before_steps_s']:,.1f} 步/s、切换后 {o['demand_after_steps_s']:,.1f} 步/s,处理率 "
               f"{o['capacity_steps_s']:,.2f} 步/s。到达结束({o['duration_s']:g} s)时积压 {o['backlog_end_steps_display']:,} 步,"
               f"再过 {o['drain_s']:.2f} s 排空。", animated=True),
        Figure(mu_fig, "μ 从哪来 · 一步 decode 的读写",
               f"权重 {w_gb:.2f} GB + {p.batch_seqs} 条序列 KV {kv_gb:.2f} GB = {o['step_read_write_gb']:.2f} GB,"
               f"在 {p.bandwidth_tbps:g} TB/s 下 {o['step_ms']:.2f} ms,每卡每秒约 {o['mu_bw_per_card']:,.2f} 步。"),
    ]
    v.notes = [
        Note("$Q_{k+1} = \\max(0,\\ Q_k + A_k - \\mu\\Delta t)$;突发时积压 $(\\lambda w - \\mu)\\tau$,排空需 $(\\lambda w-\\mu)\\tau/\\mu$。", "formula"),
        Note("到达按“流体”计:每秒的 4 条请求按占比拆成两类,一条请求的 G−1 步 decode 都记在它到达的那一秒。"),
        Note(f"积压显示取下整:递推得 {o['backlog_end_steps']:,.1f} 步,书中印 {o['backlog_end_steps_display']:,} 步(四舍五入会多 1)。"),
        Note(f"每卡 μ:带宽公式 $64/({o['step_ms']:.3f}\\,\\text{{ms}})$ 得 {o['mu_bw_per_card']:,.2f} 步/s,书中取 2,795.66;"
             "两者差 0.001%,页面默认用书中取值,可在“μ 来源”切到公式值。", "book"),
        Note("每步字节按“读旧 KV + 写一个新 token”:$W + 64(\\bar c + 1)\\cdot 144\\,\\text{KiB}$,$\\bar c$ 取未四舍五入的按步加权平均。"),
        Note("这里只算 decode;prefill 的算力另算,实测吞吐只会更低。", "warn"),
    ]
    if p.preset.startswith("burst"):
        v.notes.append(Note("预设 ③④ 是本页对练习 3-2 的读法:只有 1:9 那一段持续 30 s,初始队列为空。", "illustrative"))
    if run.truncated:
        v.notes.append(Note("排空过程太长,曲线只列出前面一段,终点按 Q/μ 算出。", "warn"))
    return v


# ---------------------------------------------------------------------------------------------
# 图 3-1 · one prefill, then decode after decode
# ---------------------------------------------------------------------------------------------


class Fig31Params(Params):
    restored_tokens: int = slider(0, ge=0, le=32768, step=1, label="恢复的上下文 S", unit="token")
    input_tokens: int = slider(LI.input_tokens, ge=1, le=32768, step=1, label="新输入 P", unit="token")
    output_tokens: int = slider(LI.output_tokens, ge=1, le=4096, step=1, label="返回 G", unit="token")
    batch: int = slider(1, ge=1, le=256, step=1, label="批大小 B", unit="条")
    peak_tflops: float = fixed(PEAK_TFLOPS, "BF16 峰值 Π", "TFLOP/s")
    bandwidth_tbps: float = fixed(BW_TBPS, "显存带宽 β", "TB/s")
    weight_bytes_per_param: float = fixed(2, "每参数字节 b_W", "B")
    kv_kib_per_token: float = fixed(KV_KIB, "每 token KV", "KiB")


def fig31_outputs(p: Fig31Params) -> dict:
    S, P, G, B = p.restored_tokens, p.input_tokens, p.output_tokens, p.batch
    kv = p.kv_kib_per_token * 1024
    n_dec = qu.decode_calls(G)
    ridge = roofline.b_star(p.weight_bytes_per_param, p.bandwidth_tbps * 1e12, p.peak_tflops * 1e12)
    ctx_sum = qu.decode_context_sum(S, P, G)
    return {
        "prefill_calls": 1, "decode_calls": n_dec, "total_calls": 1 + n_dec,
        "first_decode_ctx_tokens": qu.decode_context(S, P, 0) if n_dec else None,
        "last_decode_ctx_tokens": qu.decode_context(S, P, n_dec - 1) if n_dec else None,
        "final_kv_tokens": qu.final_kv_tokens(S, P, G), "final_text_tokens": qu.final_text_tokens(S, P, G),
        "prefill_rows_per_weight_read": B * P, "decode_rows_per_weight_read": B, "ridge_rows": ridge,
        "prefill_bound": "compute" if B * P >= ridge else "bandwidth",
        "decode_bound": "compute" if B >= ridge else "bandwidth",
        "decode_kv_read_tokens": B * ctx_sum, "decode_kv_read_gb": B * ctx_sum * kv / 1e9,
        "final_kv_mib": B * qu.final_kv_tokens(S, P, G) * kv / MIB,
    }


BOUND_ZH = {"compute": "受算力限制", "bandwidth": "受带宽限制"}


@card("fig-3-1", title="一次 prefill,接着逐个 decode", label="图 3-1", section="3.1", kind="animation",
      params=Fig31Params,
      lead="一条请求:恢复 S 个上下文 token、处理 P 个新输入、返回 G 个 token,共 1 次 prefill + (G−1) 次 decode。"
           "按 ▶ 逐次点亮调用,看上下文和 KV 怎样一格格长上去。默认值借用例题 3-1 的长输入类。")
def fig_3_1(p: Fig31Params) -> View:
    o = fig31_outputs(p)
    S, P, G, B = p.restored_tokens, p.input_tokens, p.output_tokens, p.batch
    n_dec = o["decode_calls"]
    # --- timeline blocks: prefill wide, then decodes (first 20 … last 20 when there are more than 40)
    PW, GAP = 6.0, 2.5
    shown = list(range(n_dec)) if n_dec <= 40 else list(range(20)) + list(range(n_dec - 20, n_dec))
    starts, x = [], PW + 0.4
    for i, j in enumerate(shown):
        if n_dec > 40 and i == 20:
            x += GAP
        starts.append(x)
        x += 1.0
    ends = [s + 0.85 for s in starts]
    xmax = max(x, PW + 2) + 0.5
    kv_after = [qu.final_kv_tokens(S, P, 1)] + [qu.decode_context(S, P, j) + 1 for j in shown]
    kv_max = o["final_kv_tokens"]

    def kv_text(tokens: int) -> str:
        return f"KV {B * tokens:,} token · {B * tokens * p.kv_kib_per_token / 1024:,.1f} MiB"

    tl = [
        gantt_trace("调用", [0], [PW], f"prefill(P = {P:,} token)", "prefill", text=["prefill"]),
        gantt_trace("调用", starts, ends, "decode(待执行)", "decode", opacity=0.25, showlegend=False),
        gantt_trace("调用", starts, ends, f"decode × {n_dec:,}", "decode"),
        bar(["KV"], [B * kv_max], "驻留 KV", "state", horizontal=True, text=[kv_text(kv_max)],
            xaxis="x2", yaxis="y2"),
    ]
    lay = layout(axis("", range_=(0, xmax), showticklabels=False),
                 axis("", domain=[0.42, 1.0]), height=300, margin=(56, 16, 40, 40), barmode="overlay")
    lay["xaxis2"] = axis("", anchor="y2", range_=(0, B * kv_max * 1.05), showticklabels=False)
    lay["yaxis2"] = axis("", domain=[0.0, 0.22], anchor="x2")
    if n_dec > 40:
        lay.setdefault("annotations", []).append({"x": starts[20] - GAP / 2, "y": "调用", "xref": "x", "yref": "y",
                                                  "text": f"… 中间 {n_dec - 40:,} 次 …", "showarrow": False,
                                                  "yshift": -30, "font": {"size": 12}})
    tl_fig = figure(tl, lay)
    frames, labels = [], []
    rs_, re_ = r(starts), r(ends)
    widths = r([e - s for s, e in zip(starts, ends)])
    for k in range(len(shown) + 1):
        kvk = kv_after[k]
        frames.append({"data": [
            {"base": rs_[:k], "x": widths[:k], "y": ["调用"] * k, "customdata": re_[:k]},
            {"x": [B * kvk], "text": [kv_text(kvk)]},
        ], "traces": [2, 3]})
        labels.append("prefill" if k == 0 else f"d{shown[k - 1]}")
    animate(tl_fig, frames, labels, duration=120, prefix="调用 ")

    # --- staircase of context at the start of each call
    calls = list(range(n_dec + 1))
    ctx = [S] + [qu.decode_context(S, P, j) for j in range(n_dec)]
    idx = thin(len(calls), 200)
    st_fig = figure([
        line([calls[i] for i in idx], [ctx[i] for i in idx], "调用开始时已有的上下文", "state", shape="hv",
             fill="tozeroy", fillcolor="rgba(138,92,245,0.18)"),
    ], layout(axis("调用序号(0 = prefill,之后第 j+1 个是 decode j)"), axis("上下文 (token)", rangemode="tozero"),
              height=260, legend=False))
    ridge = o["ridge_rows"]
    rows_fig = figure([
        bar(["prefill", "decode"], [o["prefill_rows_per_weight_read"], o["decode_rows_per_weight_read"]],
            "每读一遍权重参与乘加的行数", ["prefill", "decode"],
            text=[f"{o['prefill_rows_per_weight_read']:,}", f"{o['decode_rows_per_weight_read']:,}"]),
    ], with_refs(layout(axis(""), axis("行数(对数)", log=True), height=260, legend=False),
                 hline(ridge, f"转折点 ≈ {ridge:.1f} 行", "ink", dash="dash", log=True)))

    v = View(outputs=o, headline=f"S = {S:,} · P = {P:,} · G = {G:,} · B = {B}")
    v.stat("total_calls", "调用次数", "次")
    v.stat("decode_calls", "其中 decode", "次")
    if n_dec:
        v.stat("first_decode_ctx_tokens", "decode 0 开始时上下文 S+P", "token")
        v.stat("last_decode_ctx_tokens", f"decode {n_dec - 1} 开始时上下文", "token")
    else:
        v.stats.append(Stat("first_decode_ctx_tokens", "decode 0 开始时上下文", None, text="—(G = 1,没有 decode)"))
    v.stat("final_kv_tokens", "结束时 KV(S+P+G−1)", "token")
    v.stat("final_text_tokens", "结束时文本长度(S+P+G)", "token")
    v.stat("final_kv_mib", "结束时驻留 KV(整批)", "MiB", digits=1)
    v.stat("decode_kv_read_gb", "所有 decode 读旧 KV", "GB", digits=1)
    v.stat("ridge_rows", "转折点 b_WΠ/(2β)", "行", digits=1)
    v.stats.append(Stat("prefill_bound", "prefill", o["prefill_bound"], text=BOUND_ZH[o["prefill_bound"]]))
    v.stats.append(Stat("decode_bound", "decode", o["decode_bound"], text=BOUND_ZH[o["decode_bound"]]))
    v.figures = [
        Figure(tl_fig, "图 3-1 · 调用时间线与驻留 KV",
               f"1 次 prefill 处理 {P:,} 个新 token,接着 {n_dec:,} 次 decode 各生成 1 个;结束时每条请求 KV {o['final_kv_tokens']:,} token,"
               f"整批 {o['final_kv_mib']:,.1f} MiB。", animated=True),
        Figure(st_fig, "每次调用开始时的上下文",
               f"prefill 开始时已有 {S:,} token;decode j 开始时已有 S+P+j,从 {S + P:,} 涨到 {S + P + max(n_dec - 1, 0):,}。"),
        Figure(rows_fig, "每读一遍权重做多少行乘加",
               f"prefill {o['prefill_rows_per_weight_read']:,} 行,decode {B} 行;转折点约 {ridge:.1f} 行。"
               f"prefill {BOUND_ZH[o['prefill_bound']]},decode {BOUND_ZH[o['decode_bound']]}。"),
    ]
    v.notes = [
        Note("第 $j$ 次 decode($j$ 从 0 计)开始时已有 $S+P+j$ 个 token 的上下文;最后一个返回的 token 不再送回模型,所以 KV 比文本少 1。", "formula"),
        Note("时间线上的块宽只是示意:prefill 一次处理 P 个 token,画得宽;decode 每次只处理 1 个。G−1 > 40 时只画前 20 次和后 20 次。"),
        Note("转折点就是第 1 章的 $B^* = b_W\\Pi/(2\\beta)$,这里按 BF16 权重($b_W$ = 2 B)和 RTX PRO 6000 计算。"),
        Note("书中这张图没有印数字;默认值借用例题 3-1 的长输入类(S = 0、P = 8192、G = 256)和低并发 B = 1。", "illustrative"),
    ]
    return v


# ---------------------------------------------------------------------------------------------
# 练习 3-1 · same total output, different request count
# ---------------------------------------------------------------------------------------------

N_REQUESTS = (1, 2, 4, 8, 16, 32, 64, 128)


class Ex31Params(Params):
    n_requests: number_type(N_REQUESTS) = choice(8, {k: f"{k} 条" for k in N_REQUESTS},
                              label="请求数 n")
    total_output_tokens: int = fixed(1024, "总输出", "token")
    input_tokens: int = slider(1024, ge=128, le=8192, step=128, label="每条输入 P", unit="token")
    weight_gb: float = fixed(WEIGHT_GB, "每轮读权重", "GB")
    kv_kib_per_token: float = fixed(KV_KIB, "每 token KV", "KiB")
    bandwidth_tbps: float = fixed(BW_TBPS, "显存带宽", "TB/s")


def ex31_column(n: int, total: int, P: int, w_bytes: float, kv: float, bw: float) -> dict:
    """One column of 练习 3-1: n synchronous requests of total/n output tokens each."""
    G = total // n
    rounds = qu.decode_calls(G)
    c_bar = qu.decode_context_sum(0, P, G) / rounds if rounds else 0.0
    decode_bytes = rounds * qu.decode_step_bytes(w_bytes, n, c_bar, kv) if rounds else 0.0
    return {
        "output_per_request": G, "prefill_count": n, "prefill_batches": 1, "prefill_tokens": n * P,
        "decode_steps_total": n * rounds, "decode_rounds": rounds, "weight_read_rounds": 1 + rounds,
        "end_context_tokens": qu.final_text_tokens(0, P, G), "end_kv_tokens_per_request": qu.final_kv_tokens(0, P, G),
        "end_kv_mib_total": n * qu.final_kv_tokens(0, P, G) * kv / MIB,
        "weight_read_gb": (1 + rounds) * w_bytes / 1e9, "decode_lb_s": decode_bytes / bw,
    }


def ex31_outputs(p: Ex31Params) -> dict:
    n = int(p.n_requests)
    args = (p.total_output_tokens, p.input_tokens, p.weight_gb * 1e9, p.kv_kib_per_token * 1024, p.bandwidth_tbps * 1e12)
    cur, ref = ex31_column(n, *args), ex31_column(1, *args)
    o = {"total_output_tokens": p.total_output_tokens, "input_tokens": p.input_tokens, "n_requests": n}
    o.update(cur)
    o.update({f"ref_{k}": v for k, v in ref.items()})
    o["weight_read_ratio"] = ref["weight_read_rounds"] / cur["weight_read_rounds"]
    return o


@card("ex-3-1", title="总输出相同,请求数不同", label="练习 3-1", section="3.1", kind="calculator", params=Ex31Params,
      lead="同样 1,024 个输出 token:一条请求独自生成,还是 n 条请求各生成 1024/n 个?每条输入 1,024。"
           "假设各条同步生成、每步共享一次权重读取,prefill 也合成一批。本卡也是章末练习 3-1〔延伸〕。")
def ex_3_1(p: Ex31Params) -> View:
    o = ex31_outputs(p)
    n = o["n_requests"]
    cats = ["prefill 批次", "decode 轮数", "权重读取轮数"]
    ref_vals = [o["ref_prefill_batches"], o["ref_decode_rounds"], o["ref_weight_read_rounds"]]
    cur_vals = [o["prefill_batches"], o["decode_rounds"], o["weight_read_rounds"]]
    f1 = figure([
        bar(cats, ref_vals, "1 条请求", "idle", text=[f"{x:,}" for x in ref_vals]),
        bar(cats, cur_vals, f"{n} 条请求", "decode", text=[f"{x:,}" for x in cur_vals]),
    ], layout(axis(""), axis("次数(对数)", log=True), height=280, barmode="group"))
    f2 = figure([
        bar(["1 条", f"{n} 条"], [o["ref_end_kv_mib_total"], o["end_kv_mib_total"]], "结束时驻留 KV", "state",
            text=[f"{o['ref_end_kv_mib_total']:,.1f} MiB", f"{o['end_kv_mib_total']:,.1f} MiB"]),
    ], layout(axis(""), axis("KV (MiB)"), height=240, legend=False))

    cols = ["", "1 条请求", f"{n} 条请求"]
    rows_spec = [
        ("每条输出 G", "output_per_request"), ("prefill 次数(请求数)", "prefill_count"),
        ("prefill 批次", "prefill_batches"), ("prefill 的输入 token", "prefill_tokens"),
        ("decode 总步数 n·(G−1)", "decode_steps_total"), ("decode 轮数 G−1", "decode_rounds"),
        ("共享权重读取轮数 1+(G−1)", "weight_read_rounds"), ("结束时文本长度 P+G", "end_context_tokens"),
        ("结束时每条 KV P+G−1", "end_kv_tokens_per_request"), ("结束时全部 KV (MiB)", "end_kv_mib_total"),
        ("读权重总量 (GB)", "weight_read_gb"), ("decode 带宽下界 (s) 推算", "decode_lb_s"),
    ]

    def cell(key: str, val: float) -> str | int:
        if key in ("end_kv_mib_total", "weight_read_gb"):
            return f"{val:,.1f}"
        if key == "decode_lb_s":
            return f"{val:.3f}"
        return val

    rows = [[lbl, cell(k, o[f"ref_{k}"]), cell(k, o[k])] for lbl, k in rows_spec]
    v = View(outputs=o, headline=f"总输出 {o['total_output_tokens']:,} token · 每条输入 {o['input_tokens']:,} · n = {n}")
    v.stat("prefill_count", "prefill 次数", "次")
    v.stat("decode_steps_total", "decode 总步数", "步")
    v.stat("decode_rounds", "decode 轮数", "轮")
    v.stat("weight_read_rounds", "共享权重读取", "轮")
    v.stat("weight_read_ratio", "读取轮数少了", "×", digits=0)
    v.stat("end_context_tokens", "结束时每条上下文", "token")
    v.stat("end_kv_mib_total", "结束时全部 KV", "MiB", digits=1)
    v.stat("decode_lb_s", "decode 带宽下界(推算)", "s", digits=3)
    v.tables.append(Table(columns=cols, rows=rows, title="两种做法逐项对比",
                          note="“decode 带宽下界”只算 decode 轮:每轮读一遍权重,每条请求读 P+j 个旧 KV、写 1 个新 token;仅带宽下界,不含 prefill。"))
    v.figures = [
        Figure(f1, "调用与权重读取(对数)",
               f"1 条请求要 {o['ref_decode_rounds']:,} 轮 decode、读 {o['ref_weight_read_rounds']:,} 遍权重;{n} 条同步时只要 "
               f"{o['decode_rounds']:,} 轮、{o['weight_read_rounds']:,} 遍。"),
        Figure(f2, "结束时驻留的 KV",
               f"1 条请求 {o['ref_end_kv_mib_total']:,.1f} MiB,{n} 条共 {o['end_kv_mib_total']:,.1f} MiB。"),
    ]
    G, rG = o["output_per_request"], o["ref_output_per_request"]
    v.questions = [
        Question(key="prefill_count", prompt=f"{n} 条请求一共做几次 prefill?(1 条请求时是 {o['ref_prefill_count']} 次)",
                 unit="次", hint="每条请求各有一次 prefill;同步时它们能合成一批,但次数不变。",
                 solution=[f"每条请求 1 次 prefill,共 {o['prefill_count']} 次;合成 {o['prefill_batches']} 批一起算,"
                           f"处理 {o['prefill_tokens']:,} 个输入 token(1 条请求只处理 {o['ref_prefill_tokens']:,} 个)。"]),
        Question(key="decode_steps_total", prompt=f"{n} 条请求的 decode 总步数是多少?", unit="步",
                 hint="每条请求 G−1 次 decode。",
                 solution=[f"每条输出 G = {G},decode {G - 1} 次;共 ${n} \\times {G - 1} = {o['decode_steps_total']:,}$ 步。",
                           f"1 条请求:G = {rG},decode ${rG - 1:,}$ 步。"]),
        Question(key="end_context_tokens", prompt="结束时每条请求的上下文(文本)长度是多少 token?", unit="token",
                 hint="文本长度 P+G;KV 里比它少 1。",
                 solution=[f"$P + G = {o['input_tokens']:,} + {G} = {o['end_context_tokens']:,}$ token,KV 中 {o['end_kv_tokens_per_request']:,} 个。",
                           f"1 条请求:${o['input_tokens']:,} + {rG:,} = {o['ref_end_context_tokens']:,}$(KV {o['ref_end_kv_tokens_per_request']:,})。"]),
        Question(key="weight_read_rounds", prompt=f"{n} 条同步生成时共享的权重读取一共几轮?", unit="轮",
                 hint="prefill 一轮,之后每轮 decode 一轮。",
                 solution=[f"$1 + (G-1) = 1 + {G - 1} = {o['weight_read_rounds']:,}$ 轮;1 条请求要 ${o['ref_weight_read_rounds']:,}$ 轮,"
                           f"相差 {o['weight_read_ratio']:g} 倍。"]),
        Question(key="decode_lb_s", kind="open", prompt="总输出一样,为什么还不足以判断多久做完?",
                 answer_text=(f"顺序执行的 decode 轮数差了 {o['weight_read_ratio']:g} 倍({o['ref_decode_rounds']:,} 对 {o['decode_rounds']:,}),"
                              f"批量时权重也少读同样倍数;但 {n} 条请求要 prefill {o['prefill_tokens']:,} 个 token,结束时共驻留 "
                              f"{o['end_kv_mib_total']:,.1f} MiB KV(1 条时 {o['ref_end_kv_mib_total']:,.1f} MiB)。完成时间取决于有几轮必须依次执行、"
                              "每轮读多少字节,而不只是输出 token 的总数。")),
    ]
    v.notes = [
        Note("文本长度是 $P+G$,KV 里是 $P+G-1$:最后一个返回的 token 没再送回模型。本卡两个都给。"),
        Note("“decode 带宽下界”是本页推算的数(书中没有印),只算带宽,不含 prefill。"),
    ]
    return v


# ---------------------------------------------------------------------------------------------
# 图 3-2 · shortening one segment changes only the metrics that contain it
# ---------------------------------------------------------------------------------------------


class Fig32Params(Params):
    queue_ms: float = slider(300, ge=0, le=5000, step=10, label="排队", unit="ms", illustrative=True)
    prefill_ms: float = slider(150, ge=10, le=5000, step=10, label="prefill", unit="ms", illustrative=True)
    inter_token_ms: float = slider(25, ge=5, le=200, step=1, label="token 间隔", unit="ms", illustrative=True)
    output_tokens: int = slider(200, ge=2, le=4096, step=1, label="输出 G", unit="token", illustrative=True)
    thinking_tokens: int = slider(0, ge=0, le=4000, step=10, label="首个有用输出前的思考 token", unit="token",
                                  illustrative=True)
    audio_delay_ms: float = slider(0, ge=0, le=1000, step=10, label="语音解码 + 设备缓冲", unit="ms", illustrative=True)


@card("fig-3-2", title="缩短哪一段,只改变包含它的指标", label="图 3-2", section="3.1", kind="calculator",
      params=Fig32Params,
      lead="一条请求的时间线上有三个事件:到达 $t_a$、首个 token $t_1$、最后一个 token $t_G$。拖动“排队”:"
           "TTFT 和完整请求时间一起变,token 间隔不动。数值都是示意。")
def fig_3_2(p: Fig32Params) -> View:
    tl = lm.request_timeline(p.queue_ms / 1e3, p.prefill_ms / 1e3, p.inter_token_ms / 1e3, p.output_tokens,
                             p.thinking_tokens, p.audio_delay_ms / 1e3)
    o = {"ttft_ms": tl.ttft * 1e3, "request_ms": tl.request * 1e3, "token_ms": tl.token * 1e3,
         "first_useful_ms": tl.t_first_useful * 1e3, "first_audible_ms": tl.t_first_audible * 1e3}
    ms = lambda s: s * 1e3  # noqa: E731
    t1, tg = ms(tl.t_1), ms(tl.t_G)
    lane = "请求"
    data = [
        gantt_trace(lane, [0], [p.queue_ms], "等待 / 排队", "idle", text=["排队"]),
        gantt_trace(lane, [p.queue_ms], [t1], "prefill", "prefill", text=["prefill"]),
        gantt_trace(lane, [t1], [tg], f"decode({p.output_tokens - 1} 个间隔)", "decode", text=["decode"]),
    ]
    if p.thinking_tokens:
        data.append(gantt_trace(lane, [t1], [min(ms(tl.t_first_useful), tg)], "内部思考 token", "decode", opacity=0.45,
                                marker={"color": color("decode"), "pattern": {"shape": "x", "fgcolor": "#ffffff"}}))
    data += [
        gantt_trace("TTFT", [0], [o["ttft_ms"]], "T_TTFT = t₁ − t_a", "ink", text=[f"TTFT {o['ttft_ms']:,.0f} ms"],
                    opacity=0.75, width=0.35),
        gantt_trace("完整请求", [0], [o["request_ms"]], "T_request = t_G − t_a", "ink",
                    text=[f"完整请求 {o['request_ms']:,.0f} ms"], opacity=0.55, width=0.35),
        gantt_trace("token 间隔", [t1], [t1 + p.inter_token_ms], "T_token = (t_G − t₁)/(G−1)", "decode",
                    text=[f"{o['token_ms']:,.1f} ms"], width=0.35, textposition="outside"),
    ]
    if p.thinking_tokens or p.audio_delay_ms:
        data.append(gantt_trace("首个有用 / 可听", [0], [o["first_audible_ms"]], "首个有用输出 / 首个声音", "accent",
                                text=[f"{o['first_audible_ms']:,.0f} ms"], opacity=0.6, width=0.35))
    lay = layout(axis("时间 (ms,自到达起)", range_=(0, max(tg, o["first_audible_ms"]) * 1.05)),
                 axis("", autorange="reversed"), height=300, margin=(96, 16, 24, 48), barmode="overlay")
    with_refs(lay, vline(0, "t_a", "ink"), vline(t1, "t₁", "ink"), vline(tg, "t_G", "ink"))
    v = View(outputs=o, headline=f"排队 {p.queue_ms:g} ms · prefill {p.prefill_ms:g} ms · 间隔 {p.inter_token_ms:g} ms · G = {p.output_tokens}")
    v.stat("ttft_ms", "TTFT = t₁ − t_a", "ms", digits=0, illustrative=True)
    v.stat("request_ms", "完整请求 = t_G − t_a", "ms", digits=0, illustrative=True)
    v.stat("token_ms", "token 间隔 = (t_G − t₁)/(G−1)", "ms", sig=3, illustrative=True)
    v.stat("first_useful_ms", "首个有用输出", "ms", digits=0, illustrative=True)
    v.stat("first_audible_ms", "首个声音", "ms", digits=0, illustrative=True)
    v.figures = [Figure(figure(data, lay), "图 3-2 · 三个事件与三种时间",
                        f"排队 {p.queue_ms:g} ms + prefill {p.prefill_ms:g} ms 得 TTFT {o['ttft_ms']:,.0f} ms;"
                        f"再加 {p.output_tokens - 1} 个 {p.inter_token_ms:g} ms 间隔,完整请求 {o['request_ms']:,.0f} ms。",
                        illustrative=True)]
    v.notes = [
        Note("$T_{TTFT} = t_1 - t_a$,$T_{request} = t_G - t_a$,$T_{token} = (t_G - t_1)/(G-1)$:间隔数是 G−1,不是 G。", "formula"),
        Note("排队只出现在 TTFT 和完整请求里;token 间隔只看 $t_1$ 之后,改排队它不动。reasoning 模型另记首个有用输出,语音再加解码与设备缓冲。"),
        Note("书中注明这张图的数值为示意。", "illustrative"),
    ]
    return v


# ---------------------------------------------------------------------------------------------
# The metrics table
# ---------------------------------------------------------------------------------------------

METRIC_ROWS = [
    ("多快开始有回应?", "TTFT;reasoning 模型另记首个有用输出", "fig-3-2"),
    ("输出是否连贯不断?", "逐 token(或逐块)的间隔,以及它的分布", "p95-nearest-rank"),
    ("多久把事情办完?", "完整请求时间;多步任务看完整任务时间", "fig-3-2"),
    ("每秒能完成多少合格任务?", "在质量和时限要求之内的有效吞吐(goodput)", "p95-nearest-rank"),
    ("拿到一个成功结果要花多少?", "所有尝试的模型、工具、环境开销 ÷ 成功任务数", "fig-3-9"),
    ("等待时还占着什么?", "状态属于哪个请求、哪个模型版本,多大、放在哪、驻留多久", "fig-3-3"),
]


@card("metrics-table", title="要回答的问题 / 需要的指标或记录", section="3.1", kind="table", aliases=("tab-metrics",),
      lead="先说清楚什么算“完成”,再决定记录什么。点问题可跳到算它的卡片。")
def metrics_table(p: Params) -> View:
    rows = [[q, m] for q, m, _ in METRIC_ROWS]
    v = View(outputs={"n_rows": len(rows), "rows": rows})
    v.tables.append(Table(columns=["要回答的问题", "需要的指标或记录"], rows=rows,
                          links={i: cid for i, (_, _, cid) in enumerate(METRIC_ROWS)}))
    return v


# ---------------------------------------------------------------------------------------------
# p95 by nearest rank
# ---------------------------------------------------------------------------------------------

# (queue ms, prefill ms, decode s) per request: invented for the page (示意)
P95_SAMPLE = [
    (12, 180, 6.1), (15, 950, 1.2), (18, 210, 9.8), (20, 1900, 1.5), (22, 160, 14.2), (25, 240, 7.7),
    (30, 2100, 1.1), (35, 190, 11.9), (40, 230, 8.4), (45, 1750, 1.4), (50, 170, 12.6), (60, 260, 6.9),
    (70, 2300, 1.3), (80, 200, 10.4), (95, 220, 7.1), (120, 1850, 1.6), (150, 250, 13.5), (400, 210, 9.2),
    (1800, 190, 8.8), (2400, 2000, 1.2),
]


class P95Params(Params):
    n: int = slider(20, ge=1, le=100000, step=1, label="观测数 n", log=True)
    q_pct: int = slider(95, ge=50, le=99, step=1, label="分位数 q", unit="%")


def p95_columns(n: int) -> dict[str, list[float]]:
    rows = P95_SAMPLE[:n]
    ttft = [q + pf for q, pf, _ in rows]
    return {"queue_ms": [q for q, _, _ in rows], "ttft_ms": ttft,
            "request_s": [round(t / 1000 + d, 3) for t, (_, _, d) in zip(ttft, rows)]}


@card("p95-nearest-rank", title="p95:最近秩法", section="3.1", kind="calculator", params=P95Params, aliases=("p95",),
      lead="n 个观测从小到大排,取第 ⌈0.95n⌉ 个。排队、首响应、完整请求要各自排序:三个 p95 可能来自三条不同的请求。")
def p95_nearest_rank(p: P95Params) -> View:
    rank = lm.nearest_rank(p.q_pct, p.n)
    o: dict = {"rank": rank}
    v = View(outputs=o, headline=f"n = {p.n:,} · q = {p.q_pct}% · 取第 {rank:,} 个")
    v.stat("rank", f"秩 ⌈{p.q_pct}·n/100⌉", "", emphasis=True)
    v.notes = [Note("秩用整数算:$(q\\cdot n + 99)\\ \\mathrm{div}\\ 100$,避免浮点乘积贴近整数时差 1。", "formula")]
    if p.n > len(P95_SAMPLE):
        v.notes.append(Note(f"示意样本只有 {len(P95_SAMPLE)} 条;n 更大时只给出秩。"))
        return v
    cols = p95_columns(p.n)
    names = {"queue_ms": ("排队", "ms"), "ttft_ms": ("首响应 TTFT", "ms"), "request_s": ("完整请求", "s")}
    traces, annotations = [], []
    for ci, (key, vals) in enumerate(cols.items()):
        val, i0 = lm.nearest_rank_pick(vals, p.q_pct)
        o[f"p95_{key}"] = val
        o[f"p95_{key}_request_id"] = i0 + 1
        o[f"max_{key}"] = max(vals)
        ranked = lm.sorted_with_ids(vals)
        ax = "" if ci == 0 else str(ci + 1)
        xs = list(range(1, len(vals) + 1))
        traces.append(points(xs, [x for x, _ in ranked], names[key][0], ["idle", "prefill", "decode"][ci], size=8,
                             xaxis=f"x{ax}", yaxis=f"y{ax}", text=[f"#{j + 1}" for _, j in ranked],
                             hovertemplate="第 %{x} 位 · 请求 %{text} · %{y}<extra></extra>"))
        traces.append(points([rank], [val], f"p{p.q_pct}", "backlog", size=16, symbol="circle-open",
                             xaxis=f"x{ax}", yaxis=f"y{ax}", showlegend=ci == 0, mode="markers+text",
                             text=[f"请求 {i0 + 1}"], textposition="middle left"))
    lay = layout(axis("秩", domain=[0, 0.28]), axis("排队 (ms)"), height=300, margin=(56, 16, 24, 44))
    lay["xaxis2"] = axis("秩", domain=[0.36, 0.64], anchor="y2")
    lay["yaxis2"] = axis("TTFT (ms)", anchor="x2")
    lay["xaxis3"] = axis("秩", domain=[0.72, 1.0], anchor="y3")
    lay["yaxis3"] = axis("完整请求 (s)", anchor="x3")
    v.stat("p95_queue_ms", f"排队 p{p.q_pct}", "ms", illustrative=True)
    v.stat("p95_ttft_ms", f"TTFT p{p.q_pct}", "ms", illustrative=True)
    v.stat("p95_request_s", f"完整请求 p{p.q_pct}", "s", illustrative=True)
    v.stats += [Stat(f"p95_{k}_request_id", f"{names[k][0]} 的 p{p.q_pct} 来自", o[f"p95_{k}_request_id"],
                     text=f"请求 {o[f'p95_{k}_request_id']}", illustrative=True) for k in cols]
    v.stat("max_ttft_ms", "TTFT 最大值", "ms", illustrative=True)
    v.figures.append(Figure(figure(traces, lay), f"各列分别排序后的第 {rank} 位",
                            f"排队 p{p.q_pct} = {o['p95_queue_ms']:,} ms(请求 {o['p95_queue_ms_request_id']}),"
                            f"TTFT p{p.q_pct} = {o['p95_ttft_ms']:,} ms(请求 {o['p95_ttft_ms_request_id']}),"
                            f"完整请求 p{p.q_pct} = {o['p95_request_s']} s(请求 {o['p95_request_s_request_id']})。",
                            illustrative=True))
    rows = [[i + 1, q, pf, d, t, rq] for i, ((q, pf, d), t, rq) in
            enumerate(zip(P95_SAMPLE[:p.n], cols["ttft_ms"], cols["request_s"]))]
    ill = {(i, c) for i in range(len(rows)) for c in range(1, 6)}
    v.tables.append(Table(columns=["请求", "排队 ms", "prefill ms", "decode s", "TTFT ms", "完整请求 s"], rows=rows,
                          title="示意样本(TTFT = 排队 + prefill;完整请求 = TTFT + decode)", illustrative_cells=ill))
    return v


# ---------------------------------------------------------------------------------------------
# 图 3-3 · waiting state occupies capacity
# ---------------------------------------------------------------------------------------------


class Fig33Params(Params):
    arrival_rate_per_s: float = slider(2, ge=0.5, le=10, step=0.5, label="进入等待的速率 λ", unit="个/s")
    wait_s: float = slider(10, ge=1, le=60, step=1, label="每个等待 τ", unit="s")
    state_gib: float = slider(1, ge=0.25, le=8, step=0.25, label="每个任务占用 M₀", unit="GiB")
    horizon_s: float = slider(40, ge=10, le=120, step=10, label="模拟时长", unit="s", illustrative=True)


def fig33_outputs(lam: float, tau: float, m0_gib: float, horizon: float) -> dict:
    return {
        "mean_waiting_tasks": qu.mean_in_wait(lam, tau),
        "mean_occupancy_gib": qu.mean_occupancy(lam, m0_gib * GIB, tau) / GIB,
        "area_per_task_gib_s": qu.occupancy_area_one(m0_gib * GIB, tau) / GIB,
        "area_horizon_gib_s": qu.occupancy_area(lam, m0_gib * GIB, tau, horizon) / GIB,
        "steady_from_s": tau,
    }


@card("fig-3-3", title="状态没变大,但这段时间别人用不了", label="图 3-3", section="3.1", kind="animation",
      params=Fig33Params, badges=(("练习 3-2 后半", "ex-3-2"),),
      lead="一个任务等待 τ 秒、一直占着 M₀ 的状态:状态没长,可面积 M₀·τ 这段容量别人用不上。"
           "任务以 λ 个/秒进入等待,总占用 M(t) 爬到 λ·M₀·τ 后持平。按 ▶ 看任务一个个进来。")
def fig_3_3(p: Fig33Params) -> View:
    lam, tau, m0, H = p.arrival_rate_per_s, p.wait_s, p.state_gib, p.horizon_s
    o = fig33_outputs(lam, tau, m0, H)
    arr = qu.arrival_times(lam, H)
    brk = sorted({0.0, H} | set(arr) | {t + tau for t in arr if t + tau < H})
    if len(brk) > 400:
        brk = [H * i / 399 for i in range(400)]
    mt = [qu.occupancy_at(t, lam, m0, tau) for t in brk]
    plateau = o["mean_occupancy_gib"]
    top_x = [0, 0, tau, tau, 0]
    top_y = [0, m0, m0, 0, 0]
    data = [
        line(top_x, top_y, f"一个任务:M₀·τ = {o['area_per_task_gib_s']:g} GiB·s", "state", fill="toself",
             fillcolor="rgba(138,92,245,0.25)", xaxis="x", yaxis="y"),
        line(brk, mt, "M(t):正在等待的任务占用", "state", shape="hv", fill="tozeroy", fillcolor="rgba(138,92,245,0.18)",
             xaxis="x2", yaxis="y2"),
        line([0, H], [plateau, plateau], f"λ·M₀·τ = {plateau:g} GiB", "ink", dash="dash", width=1.5,
             xaxis="x2", yaxis="y2"),
    ]
    lay = layout(axis("", range_=(0, H), showticklabels=False), axis("GiB", domain=[0.72, 1.0], range_=(0, m0 * 1.4)),
                 height=380, margin=(56, 16, 24, 48))
    lay["xaxis2"] = axis("时间 (s)", range_=(0, H), anchor="y2")
    lay["yaxis2"] = axis("占用 M(t) (GiB)", domain=[0.0, 0.6], anchor="x2",
                         range_=(0, max(max(mt, default=0), plateau, m0) * 1.15))
    fig = figure(data, lay)
    frames, labels = [], []
    n_fr = 40
    rb, rm = r(brk), r(mt)
    for i in range(n_fr + 1):
        t = H * i / n_fr
        k = bisect.bisect_right(brk, t + 1e-9)
        frames.append({"data": [{"x": rb[:k] + [r(t)], "y": rm[:k] + [rm[k - 1]]}], "traces": [1]})
        labels.append(f"{t:.0f}")
    animate(fig, frames, labels, duration=150, prefix="t = ")

    v = View(outputs=o, headline=f"λ = {lam:g} 个/s · τ = {tau:g} s · M₀ = {m0:g} GiB")
    v.stat("mean_waiting_tasks", "同时在等的任务 λ·τ", "个", sig=4)
    v.stat("mean_occupancy_gib", "平均占用 λ·M₀·τ", "GiB", sig=4, emphasis=True)
    v.stat("area_per_task_gib_s", "一个任务的面积 M₀·τ", "GiB·s", sig=4)
    v.stat("area_horizon_gib_s", f"0–{H:g} s 内的面积 ∫M dt", "GiB·s", sig=6, illustrative=True)
    v.stat("steady_from_s", "从此持平", "s", sig=4)
    v.figures.append(Figure(fig, "图 3-3 · 一个任务的占用面积,和许多任务叠起来的 M(t)",
                            f"每个任务占 {m0:g} GiB、等 {tau:g} s;每秒进来 {lam:g} 个,{tau:g} s 后 M(t) 稳在约 {plateau:g} GiB。"
                            f"0–{H:g} s 的面积 {o['area_horizon_gib_s']:,.1f} GiB·s。", animated=True))
    v.notes = [
        Note("$A_M = \\int M(t)\\,dt$(单位 byte·s,页面用 GiB·s);稳定时等待中的平均占用 $\\approx \\lambda \\cdot M_0 \\cdot \\tau$。", "formula"),
        Note("模拟时长和“第 k 个任务在 k/λ 秒到”的到达方式是本页的选择;平均占用公式对任何稳定的到达方式都成立。", "illustrative"),
        Note("默认 λ = 2 个/s、τ = 10 s、M₀ = 1 GiB 取自练习 3-2 后半;把 τ 改成 30 s 再看。"),
    ]
    return v


# ---------------------------------------------------------------------------------------------
# 真实回放 · vLLM replay of 例题 3-1 on one card
# ---------------------------------------------------------------------------------------------


class ReplayParams(Params):
    kv_pool_gib: float = fixed(24, "vLLM KV 池", "GiB")
    max_seqs: int = fixed(64, "最多并发序列", "条")
    mu_per_card: float = fixed(MU_BOOK, "每卡 decode 处理率", "步/s")


REPLAY_ROWS = [("完整请求 p95", "request_p95_s", "s", "约 "), ("TTFT p95", "ttft_p95_s", "s", ""),
               ("初次调度等待 p95", "first_sched_wait_p95_s", "s", ""), ("最后完成时刻", "last_finish_s", "s", ""),
               ("抢占事件", "preemptions", "次", ""), ("KV 池峰值", "kv_pool_peak_pct", "%", "")]


@card("real-replay", title="KV 池满了,空着的算力也接不了新请求", label="真实回放", section="3.1", kind="table",
      params=ReplayParams,
      lead="把例题 3-1 的两种到达方式放到一张 RTX PRO 6000 上用 vLLM 实测:Qwen3-8B、vLLM 0.23、KV 池 24 GiB、最多 64 条序列、关闭前缀缓存。")
def real_replay(p: ReplayParams) -> View:
    data = read_json("real-replay.json")["mixes"]
    u, s = data["uniform"], data["skewed"]
    eg, _ = eg31_outputs(Eg31Params(preset="uniform"))
    o: dict = {}
    for _, key, _, _ in REPLAY_ROWS:
        o[f"{key}_uniform"], o[f"{key}_skewed"] = u[key], s[key]
    o["ttft_p95_diff_s"] = s["ttft_p95_s"] - u["ttft_p95_s"]
    o["mu_per_card_rounded"] = round(p.mu_per_card)
    o["avg_demand_steps_s"] = eg["avg_demand_steps_s"]
    o["total_decode_steps"] = eg["total_decode_steps"]
    o["total_requests"] = eg["total_requests"]
    o["arrival_window_s"] = eg["duration_s"]
    o["max_seqs"] = p.max_seqs
    o["min_time_one_card_s"] = eg["total_decode_steps"] / p.mu_per_card
    o["kv_pool_tokens"] = p.kv_pool_gib * GIB / KV_BYTES
    o["max_resident_long_input"] = math.floor(o["kv_pool_tokens"] / qu.final_kv_tokens(0, LI.input_tokens, LI.output_tokens))
    o["max_resident_long_output"] = math.floor(o["kv_pool_tokens"] / qu.final_kv_tokens(0, LO.input_tokens, LO.output_tokens))

    def fmt(v: float, unit: str, pre: str) -> str:
        return f"{pre}{v:,g}{'' if unit == '次' else ' ' + unit if unit != '%' else '%'}"

    rows = [[lbl, fmt(u[k], unit, pre), fmt(s[k], unit, pre)] for lbl, k, unit, pre in REPLAY_ROWS]
    v = View(outputs=o, headline="Qwen3-8B · vLLM 0.23 · 1 × RTX PRO 6000 · KV 池 24 GiB · 64 序列 · 前缀缓存关")
    v.tables.append(Table(columns=["实测", u["label"], s["label"]], rows=rows, title="两种到达方式的实测结果"))
    v.stat("mu_per_card_rounded", "单卡 decode 上限", "步/s", approx=True)
    v.stat("avg_demand_steps_s", "均匀混合的平均需求", "步/s")
    v.stat("total_decode_steps", f"{o['total_requests']} 条请求的 decode 总步数", "步")
    v.stat("min_time_one_card_s", "单卡做完至少", "s", digits=1, book="至少 197.6 s")
    v.stat("ttft_p95_diff_s", "两种方式 TTFT p95 相差", "s", digits=1, approx=True)
    v.stat("kv_pool_tokens", "KV 池能装的 token(推算)", "token", digits=1)
    v.stat("max_resident_long_input", "满长时能驻留的长输入请求(推算)", "条")
    v.stat("max_resident_long_output", "满长时能驻留的长输出请求(推算)", "条")
    v.figures.append(Figure(figure([
        bar(["单卡上限", "平均需求"], [p.mu_per_card, o["avg_demand_steps_s"]], "decode 步/s", ["decode", "backlog"],
            text=[f"约 {o['mu_per_card_rounded']:,}", f"{o['avg_demand_steps_s']:,.0f}"], horizontal=True),
    ], layout(axis("decode 步/s"), axis(""), height=170, legend=False, margin=(80, 16, 16, 44))),
        "一张卡对平均需求",
        f"单卡最多约 {o['mu_per_card_rounded']:,} 步/s,低于均匀混合的 {o['avg_demand_steps_s']:,.0f} 步/s;"
        f"{o['total_decode_steps']:,} 步至少 {o['min_time_one_card_s']:.1f} s,而请求 {o['arrival_window_s']:g} s 内就全到了。"))
    v.notes = [
        Note("表中是实测数据,照书中给出。两次都大量积压,带宽下界就能预见:单卡还要兼做 prefill。", "book"),
        Note(f"推算(书中未印):24 GiB 的 KV 池约装 {o['kv_pool_tokens']:,.1f} 个 token;按满长算,只能同时驻留 "
             f"{o['max_resident_long_input']} 条长输入请求(每条 8,447 token)或 {o['max_resident_long_output']} 条长输出请求"
             "(每条 3,071 token)。卡住的是 KV 池,不是 64 条序列的上限。这里忽略了 vLLM 按 16 token 分块的粒度。"),
        Note("两次 KV 池都到过 100%:输入、输出长度在哪个时段出现,决定了状态何时释放、新请求何时被接纳,所以整批完成时间接近,TTFT 却差约 16 s。"),
    ]
    return v
