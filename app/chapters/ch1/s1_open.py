"""Chapter 1 opener: 读权重 vs 矩阵计算 (one decode step of a 70 GB model on an H100 SXM)."""
from __future__ import annotations

from ...calculators import roofline
from ...cards import Block, Figure, Note, Params, Stat, View, card, toggle
from ...charts import COLORS, ROLE_LABELS, axis, bar, figure, layout, vline, with_refs
from ...data import gpu

# 例题 1-1's hand-calculation simplification, printed as the opener's givens:
# N = 70×10⁹ parameters at 1 byte each (70 GB read per step), one request (B = 1).
HAND_N = 70e9
HAND_BYTES_PER_PARAM = 1.0
HAND_BATCH = 1
GPU_ID = "h100-sxm"


class HeroParams(Params):
    double_compute: bool = toggle(False, label="算力 ×2")
    double_bandwidth: bool = toggle(False, label="带宽 ×2")
    halve_weights: bool = toggle(False, label="权重字节 ×½")


def hero_outputs(double_compute: bool, double_bandwidth: bool, halve_weights: bool) -> dict:
    """The opener's numbers for one toggle setting (catalog keys)."""
    g = gpu(GPU_ID)
    bw = g.bw_bytes_s * (2 if double_bandwidth else 1)
    peak = g.flops * (2 if double_compute else 1)
    b_w = HAND_BYTES_PER_PARAM * (0.5 if halve_weights else 1)
    s = roofline.decode_step(HAND_N, b_w, HAND_BATCH, bw, peak)
    base = roofline.decode_step(HAND_N, HAND_BYTES_PER_PARAM, HAND_BATCH, g.bw_bytes_s, g.flops)
    return {
        "weights_gb": s.read_bytes / 1e9, "flop_gflop": s.flops / 1e9,
        "bw_tbps": bw / 1e12, "peak_tflops": peak / 1e12,
        "t_read_ms": s.t_mem * 1e3, "t_compute_ms": s.t_compute * 1e3, "t_step_ms": s.t_step * 1e3,
        "bound": s.bound, "read_to_compute_ratio": s.t_mem / s.t_compute,
        "speedup_vs_baseline": base.t_step / s.t_step,
    }


QUESTIONS = [
    {"q": "放得下吗?", "role": "capacity",
     "tex": "$M_W + M_{state} + M_{work} \\le M_{cap}$",
     "text": "权重、KV 等状态和临时工作区加起来不能超过显存;用多张卡时,每张卡各算一遍。",
     "link": ("fig-1-7", "图 1-7 显存预算")},
    {"q": "要等多久?", "role": "read",
     "tex": "$T = \\max(F/\\Pi,\\ R/\\beta)$",
     "text": "算要多久、读要多久,两者取较慢的那个作为下界。",
     "link": ("eg-1-1", "例题 1-1")},
    {"q": "加资源值不值?", "role": "compute",
     "tex": "$S = \\dfrac{1}{(1-p) + p/s}$",
     "text": "先用 Amdahl 看被加速的部分原本占多少(p),再看离硬件极限还差多远。",
     "link": ("amdahl-team", "Amdahl 定律")},
]


@card("hero-read-vs-compute", title="读权重 vs 矩阵计算", section="1.open", kind="calculator",
      params=HeroParams,
      lead="H100 SXM 上的 70B 模型每生成一个 token:先把 70 GB 权重读一遍,再做 140 GFLOP 乘加。"
           "试试三个开关,看哪一个真正让这一步变快。")
def hero_read_vs_compute(p: HeroParams) -> View:
    o = hero_outputs(p.double_compute, p.double_bandwidth, p.halve_weights)
    base = hero_outputs(False, False, False)
    xmax = base["t_read_ms"] * 1.12
    fig = figure([
        bar(["矩阵计算", "读权重"], [o["t_compute_ms"], o["t_read_ms"]], "下界", ["compute", "read"],
            horizontal=True, text=[f"{o['t_compute_ms']:.4f} ms", f"{o['t_read_ms']:.2f} ms"],
            textposition="outside", cliponaxis=False, width=0.55,
            hovertemplate="%{y}: %{x:.4f} ms<extra></extra>"),
    ], with_refs(layout(axis("时间下界 (ms)", range_=(0, xmax)), axis(""), height=230, legend=False,
                        margin=(80, 24, 36, 48),
                        annotations=[{"x": 0, "y": 1.02, "xref": "paper", "yref": "paper", "xanchor": "left",
                                      "yanchor": "bottom", "showarrow": False,
                                      "text": f"<b>{o['read_to_compute_ratio']:.0f}×</b> 读取 ÷ 计算",
                                      "font": {"size": 18, "color": COLORS["read"]}}]),
                 vline(o["t_step_ms"], f"单步下界 {o['t_step_ms']:.2f} ms", "over")))

    changed = [t for t, on in (("算力 ×2", p.double_compute), ("带宽 ×2", p.double_bandwidth),
                               ("权重 ×½", p.halve_weights)) if on]
    v = View(outputs=o, headline=("基线:" if not changed else " + ".join(changed) + ":")
             + f"读 {o['weights_gb']:g} GB ÷ {o['bw_tbps']:g} TB/s,算 {o['flop_gflop']:g} GFLOP ÷ {o['peak_tflops']:g} TFLOP/s")
    v.stat("t_read_ms", "读权重 R/β", "ms", digits=2)
    v.stat("t_compute_ms", "矩阵计算 F/Π", "ms", digits=4, book="正文 ≈0.14" if not p.double_compute else "")
    v.stat("t_step_ms", "单步下界 max(·)", "ms", digits=2, emphasis=True)
    v.stat("read_to_compute_ratio", "读取 ÷ 计算", "×", digits=0)
    v.stat("speedup_vs_baseline", "比基线快", "×", digits=3)
    v.stats.append(Stat("bound", "主导项", o["bound"],
                        text="读取(memory)" if o["bound"] == "memory" else "计算(compute)"))
    v.figures.append(Figure(
        fig, "单步生成的两个下界",
        f"读权重 {o['t_read_ms']:.2f} ms,矩阵计算 {o['t_compute_ms']:.4f} ms,读取是计算的 "
        f"{o['read_to_compute_ratio']:.0f} 倍;单步下界 {o['t_step_ms']:.2f} ms。", height=230))
    v.blocks.append(Block("diagrams/hero-read-vs-compute.html", {
        "questions": QUESTIONS,
        "legend": [(COLORS[r], label) for r, label in ROLE_LABELS[1]],
    }))
    v.notes.append(Note("算力翻倍时两条下界里只有较短的那条变短,单步仍是 "
                        f"{hero_outputs(True, False, False)['t_step_ms']:.2f} ms;带宽翻倍或权重减半都能降到 "
                        f"{hero_outputs(False, True, False)['t_step_ms']:.2f} ms。"))
    v.notes.append(Note("这里按例题 1-1 的手算简化:$N = 70\\times10^9$ 个参数、每个 1 字节、一次只服务一个请求($B=1$)。", "formula"))
    return v
