"""Chapter 1 opener: 读权重 vs 矩阵计算 (one decode step of a 70 GB model on an H100 SXM)."""

from __future__ import annotations

from ...calculators import roofline
from ...cards import Figure, Params, View, card, toggle
from ...charts import COLORS, ROLE_LABELS
from ...charts.roofline import read_vs_compute
from ...outputs import out, outputs
from ...params_domain import gpu_of
from ...trace import given, name
from ...words import words_for
from ..shared import ch1 as shared
from ..shared.ch1 import HAND, HAND_B_W, HAND_N_BILLION, diagram, shown

W = words_for(__name__)

HAND_BATCH = given(1, "B", W["hand_batch.given"], source=HAND)


class HeroParams(Params):
    double_compute: bool = toggle(False, label=W["heroparams.double_compute.label"])
    double_bandwidth: bool = toggle(False, label=W["heroparams.double_bandwidth.label"])
    halve_weights: bool = toggle(False, label=W["heroparams.halve_weights.label"])


HERO = outputs(
    t_read_ms=out(W["hero.t_read_ms"], digits=2, sym="T_{read}"),
    t_compute_ms=out(W["hero.t_compute_ms"], digits=4, sym="T_{comp}"),
    t_step_ms=out(W["hero.t_step_ms"], digits=2, em=True, sym="T_{step}"),
    read_to_compute_ratio=out(W["hero.read_to_compute_ratio"], unit="×", digits=0),
    speedup_vs_baseline=out(W["hero.speedup_vs_baseline"], unit="×", digits=3),
    bound=out(W["hero.bound"], text={"memory": W["hero.memory"], "compute": W["hero.compute"]}),
    weights_gb=out(W["hero.weights_gb"], digits=2, tile=False, sym="R_W"),
    flop_gflop=out(W["hero.flop_gflop"], digits=1, tile=False, sym="F"),
    bw_tbps=out(W["hero.bw_tbps"], digits=3, tile=False),
    peak_tflops=out(W["hero.peak_tflops"], digits=1, tile=False),
    t_step_compute_x2_ms=out(W["hero.t_step_compute_x2_ms"], digits=2, tile=False),
    t_step_bw_x2_ms=out(W["hero.t_step_bw_x2_ms"], digits=2, tile=False),
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
        "q": W["questions.q"],
        "role": "capacity",
        "tex": "$M_W + M_{state} + M_{work} \\le M_{cap}$",
        "text": W["questions.text"],
        "link": ("fig-1-7", W["questions.link"]),
    },
    {
        "q": W["questions.q_2"],
        "role": "read",
        "tex": "$T = \\max(F/\\Pi,\\ R/\\beta)$",
        "text": W["questions.text_2"],
        "link": ("eg-1-1", W["questions.link_2"]),
    },
    {
        "q": W["questions.q_3"],
        "role": "compute",
        "tex": "$S = \\dfrac{1}{(1-p) + p/s}$",
        "text": W["questions.text_3"],
        "link": ("amdahl-team", W["questions.link_3"]),
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
    title=W["hero_read_vs_compute.title"],
    section="1.open",
    kind="calculator",
    params=HeroParams,
    outputs=HERO,
    lead=W["hero_read_vs_compute.lead"],
)
def hero_read_vs_compute(p: HeroParams) -> View:
    o = hero_step(p.double_compute, p.double_bandwidth, p.halve_weights)
    base = name(hero_step()["t_step_ms"], W["hero_read_vs_compute.name"], "ms")
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
        W["hero_read_vs_compute.read_vs_compute"] + shown(HERO, o, "t_step_ms"),
        base * 1.12,
    )
    changed = [
        t
        for t, on in (
            (W["heroparams.double_compute.label"], p.double_compute),
            (W["heroparams.double_bandwidth.label"], p.double_bandwidth),
            (W["hero_read_vs_compute"], p.halve_weights),
        )
        if on
    ]
    return View(
        o,
        headline=W["hero_read_vs_compute.headline"],
        ctx={
            "changed": " + ".join(changed) or W["hero_read_vs_compute.changed"],
            "book_note": "" if p.double_compute else W["hero_read_vs_compute.book_note"],
        },
        figures=[
            Figure(
                fig,
                W["hero_read_vs_compute.figures"],
                W["hero_read_vs_compute.figures_2"],
                height=230,
                draws=frozenset(
                    {"read_to_compute_ratio", "speedup_vs_baseline", "t_compute_ms", "t_read_ms", "t_step_ms"}
                ),
            )
        ],
        blocks=[
            diagram(
                "hero-read-vs-compute", questions=QUESTIONS, legend=[(COLORS[r], label) for r, label in ROLE_LABELS[1]]
            )
        ],
        notes=shared.notes("hero-read-vs-compute"),
    )
