"""Chapter 1 opener: 读权重 vs 矩阵计算 (one decode step of a 70 GB model on an H100 SXM)."""

from __future__ import annotations

from ...calculators import roofline
from ...cards import Figure, Params, View, card, toggle
from ...charts import COLORS, ROLE_LABELS
from ...charts.roofline import read_vs_compute
from ...outputs import out, outputs
from ...params_domain import gpu_of
from ...trace import given, name
from ..shared import ch1 as shared
from ..shared.ch1 import HAND, HAND_B_W, HAND_N_BILLION, diagram, shown

HAND_BATCH = given(1, "B", "请求", source=HAND)


class HeroParams(Params):
    double_compute: bool = toggle(False, label="算力 ×2")
    double_bandwidth: bool = toggle(False, label="带宽 ×2")
    halve_weights: bool = toggle(False, label="权重字节 ×½")


HERO = outputs(
    t_read_ms=out("读权重 R/β", digits=2, sym="T_{read}"),
    t_compute_ms=out("矩阵计算 F/Π[[book_note]]", digits=4, sym="T_{comp}"),
    t_step_ms=out("单步下界 max(·)", digits=2, em=True, sym="T_{step}"),
    read_to_compute_ratio=out("读取 ÷ 计算", unit="×", digits=0),
    speedup_vs_baseline=out("比基线快", unit="×", digits=3),
    bound=out("主导项", text={"memory": "读取(memory)", "compute": "计算(compute)"}),
    weights_gb=out("每步读取 R_W", digits=2, tile=False, sym="R_W"),
    flop_gflop=out("每步运算 F", digits=1, tile=False, sym="F"),
    bw_tbps=out("带宽 β", digits=3, tile=False),
    peak_tflops=out("算力 Π", digits=1, tile=False),
    t_step_compute_x2_ms=out("算力 ×2 时的单步下界", digits=2, tile=False),
    t_step_bw_x2_ms=out("带宽 ×2 时的单步下界", digits=2, tile=False),
)
KEYS = {
    "weights_gb": "r_w_gb",
    "flop_gflop": "f_gflop",
    "bw_tbps": "bw_eff_tbps",
    "peak_tflops": "peak_eff_tflops",
    "t_read_ms": "t_mem_ms",
    "t_compute_ms": "t_compute_ms",
    "t_step_ms": "t_step_ms",
    "bound": "bound",
    "read_to_compute_ratio": "read_to_compute_ratio",
}

QUESTIONS = [
    {
        "q": "放得下吗?",
        "role": "capacity",
        "tex": "$M_W + M_{state} + M_{work} \\le M_{cap}$",
        "text": "权重、KV 等状态和临时工作区加起来不能超过显存;用多张卡时,每张卡各算一遍。",
        "link": ("fig-1-7", "图 1-7 显存预算"),
    },
    {
        "q": "要等多久?",
        "role": "read",
        "tex": "$T = \\max(F/\\Pi,\\ R/\\beta)$",
        "text": "算要多久、读要多久,两者取较慢的那个作为下界。",
        "link": ("eg-1-1", "例题 1-1"),
    },
    {
        "q": "加资源值不值?",
        "role": "compute",
        "tex": "$S = \\dfrac{1}{(1-p) + p/s}$",
        "text": "先用 Amdahl 看被加速的部分原本占多少(p),再看离硬件极限还差多远。",
        "link": ("amdahl-team", "Amdahl 定律"),
    },
]


def hero_step(double_compute: bool = False, double_bandwidth: bool = False, halve_weights: bool = False) -> dict:
    """例题 1-1's hand calculation on an H100 SXM with the opener's three switches."""
    g = gpu_of("h100-sxm")
    bw, peak = g.bw_bytes_s, g.flops
    s = roofline.step_outputs(
        HAND_N_BILLION * 1e9,
        0.5 * HAND_B_W if halve_weights else HAND_B_W,
        HAND_BATCH,
        2 * bw if double_bandwidth else bw,
        2 * peak if double_compute else peak,
        10,
    )
    return {k: s[v] for k, v in KEYS.items()}


@card(
    "hero-read-vs-compute",
    title="读权重 vs 矩阵计算",
    section="1.open",
    kind="calculator",
    params=HeroParams,
    outputs=HERO,
    lead="H100 SXM 上的 70B 模型每生成一个 token:先把 70 GB 权重读一遍,再做 140 GFLOP 乘加。"
    "试试三个开关,看哪一个真正让这一步变快。",
)
def hero_read_vs_compute(p: HeroParams) -> View:
    o = hero_step(p.double_compute, p.double_bandwidth, p.halve_weights)
    base = name(hero_step()["t_step_ms"], "T_{基线}", "ms")
    o |= {
        "speedup_vs_baseline": base / o["t_step_ms"],
        "t_step_compute_x2_ms": hero_step(double_compute=True)["t_step_ms"],
        "t_step_bw_x2_ms": hero_step(double_bandwidth=True)["t_step_ms"],
    }
    fig = read_vs_compute(
        o["t_compute_ms"],
        o["t_read_ms"],
        [shown(HERO, o, "t_compute_ms"), shown(HERO, o, "t_read_ms")],
        shown(HERO, o, "read_to_compute_ratio"),
        o["t_step_ms"],
        "单步下界 " + shown(HERO, o, "t_step_ms"),
        base * 1.12,
    )
    changed = [
        t
        for t, on in (("算力 ×2", p.double_compute), ("带宽 ×2", p.double_bandwidth), ("权重 ×½", p.halve_weights))
        if on
    ]
    return View(
        o,
        headline="[[changed]]:读 [[weights_gb|c]] ÷ [[bw_tbps|c]],算 [[flop_gflop|c]] ÷ [[peak_tflops|c]]",
        ctx={"changed": " + ".join(changed) or "基线", "book_note": "" if p.double_compute else "(正文 ≈0.14)"},
        figures=[
            Figure(
                fig,
                "单步生成的两个下界",
                "读权重 [[t_read_ms]],矩阵计算 [[t_compute_ms]],读取是计算的 "
                "[[read_to_compute_ratio|n]] 倍;单步下界 [[t_step_ms]]。",
                height=230,
            )
        ],
        blocks=[
            diagram(
                "hero-read-vs-compute", questions=QUESTIONS, legend=[(COLORS[r], label) for r, label in ROLE_LABELS[1]]
            )
        ],
        notes=shared.notes("hero-read-vs-compute"),
    )
