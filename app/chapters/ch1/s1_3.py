"""Section 1.3 用几个数字估算一次模型执行: 例题 1-1 (图 1-9 ~ 1-12, 练习 1-3)."""

from __future__ import annotations

from typing import Any

from ...calculators import parallel, roofline
from ...calculators.model_config import decode_flops, decode_weight_read_bytes
from ...cards import Figure, Note, View, card
from ...charts.fit import with_comm_bound
from ...charts.roofline import bounds_vs_batch, throughput_vs_batch
from ...outputs import data, out, outputs
from ...params_domain import model_choice, model_type
from ...trace import name
from ...words import words_for
from ..shared import ch1 as shared
from ..shared.ch1 import MODEL_NAMES, StepParams, effective_rates, model, plain_out
from ..shared.tp import LINK_RULE, TpDegree, link_bytes_s, link_override, tp_choice

W = words_for(__name__)

MODELS = {
    "manual": W["models.manual"],
    "deepseek-r1-distill-llama-70b": "DeepSeek-R1-Distill-Llama-70B",
    "qwen3-8b": "Qwen3-8B",
}


class Eg11Params(StepParams):
    """例题 1-1 plus a model choice: "manual" is the book's hand calculation with N; a preset or a
    reader's own config.json replaces N by the model's own per-step read and FLOPs."""

    model: model_type(MODELS) = model_choice("manual", MODELS, label=W["eg11params.model.label"])  # type: ignore[valid-type]
    link_gbps: float | None = link_override()
    tp: TpDegree = tp_choice()
    cross_field_rules = (LINK_RULE,)


EG11 = outputs(
    m_w_gb=out(W["eg11.m_w_gb"], sig=4, sym="M_W"),
    r_w_gb=out(W["eg11.r_w_gb"], sig=4, sym="R_W"),
    f_gflop=out(W["eg11.f_gflop"], sig=4, sym="F"),
    bw_eff_tbps=out(W["eg11.bw_eff_tbps"], sig=4, tile=False, sym="β"),
    peak_eff_tflops=out(W["eg11.peak_eff_tflops"], sig=4, tile=False, sym="Π"),
    bw_eff_gbps=plain_out(W["eg11.bw_eff_gbps"], digits=0, tile=False, sym="β"),
    peak_eff_gflops=out(W["eg11.peak_eff_gflops"], unit="GFLOP/s", digits=0, tile=False, sym="Π"),
    t_mem_ms=out(W["eg11.t_mem_ms"], digits=2, sym="T_{mem}"),
    t_compute_ms=out(W["eg11.t_compute_ms"], sig=4, sym="T_{comp}"),
    t_step_ms=out(W["eg11.t_step_ms"], digits=2, em=True, sym="T_{step}"),
    read_to_compute_ratio=out(W["eg11.read_to_compute_ratio"], unit="×", digits=0, approx=True),
    compute_to_read_ratio=out(
        W["eg11.compute_to_read_ratio"], unit="×", sig=2, approx=True, tile=False
    ),  # the prose's 约 N 倍
    step_to_target_ratio=out(W["eg11.step_to_target_ratio"], unit="×", sig=2, approx=True, tile=False),
    per_output_ms=out(W["eg11.per_output_ms"], sig=3),
    throughput_tok_s=out(W["eg11.throughput_tok_s"], sig=3),
    b_star=out(W["eg11.b_star"], unit=W["eg11.unit"], digits=0, approx=True, sym="B^*", axis=(0, "x")),
    intensity_flop_per_byte=out(W["eg11.intensity_flop_per_byte"], sig=4, tile=False, sym="I"),
    ridge_flop_per_byte=out(W["eg11.ridge_flop_per_byte"], sig=4, tile=False),
    f_tok_gflop=out(W["eg11.f_tok_gflop"], unit="GFLOP", sig=4, tile=False),
    bound=out(W["eg11.bound"], text={"memory": W["eg11.memory"], "compute": W["eg11.compute"]}),
    meets_target=out(W["eg11.meets_target"], text={True: W["eg11.t"], False: W["eg11.t_2"]}),
    target_margin_ms=out(W["eg11.target_margin_ms"], digits=2, tile=False),
    m_w_per_gpu_gb=out(W["eg11.m_w_per_gpu_gb"], sig=4, tile="multi", sym="M_{W,gpu}"),
    r_w_per_gpu_gb=out(W["eg11.r_w_per_gpu_gb"], sig=4, tile="multi", sym="R_{W,gpu}"),
    f_per_gpu_gflop=out(W["eg11.f_per_gpu_gflop"], sig=4, tile="multi", sym="F_{gpu}"),
    t_allreduce_ms=out(W["eg11.t_allreduce_ms"], sig=4, tile="multi", sym="T_{AR}"),
    chart=data(W["eg11.chart"], type=dict),
)


def model_step_quantities(ref: str, b_w: float) -> tuple[float, float, float]:
    """(resident bytes, bytes read per decode step, FLOPs per token without attention) of a model
    config at ``b_w`` bytes per parameter."""
    s = model(ref)
    return b_w * s.params_total, decode_weight_read_bytes(s, b_w), decode_flops(s, 0)


def tp_terms(p: Eg11Params, mq: tuple[float, float, float] | None, bw: float, peak: float) -> dict[str, Any]:
    """tp ranks: each holds and reads 1/tp of the weights and does 1/tp of the FLOPs; the all-reduce
    (ring, twice per layer) is its own term of the step bound. "manual" has no L or h: the book's model
    (DeepSeek-R1-Distill-Llama-70B) gives them. At tp = 1 the book's step outputs stand as they are."""
    n = p.params_billion * 1e9
    resident, read, flops = (
        (p.bytes_per_param * n, name(p.bytes_per_param * n, "R_W", "B"), name(2 * p.batch * n, "F", "FLOP"))
        if mq is None
        else (mq[0], name(mq[1], "R_W", "B"), name(p.batch * mq[2], "F", "FLOP"))
    )
    s = model(shared.LLAMA_70B if p.model == "manual" else p.model)
    t_ar = parallel.allreduce_time(p.batch, s, p.tp, link_bytes_s(p.gpu, p.link_gbps))
    r_gpu, f_gpu = name(read / p.tp, "R_{W,gpu}", "B"), name(flops / p.tp, "F_{gpu}", "FLOP")
    o = {
        "m_w_per_gpu_gb": resident / p.tp / 1e9,
        "r_w_per_gpu_gb": r_gpu / 1e9,
        "f_per_gpu_gflop": f_gpu / 1e9,
        "t_allreduce_ms": t_ar * 1e3,
    }
    if p.tp == 1:
        return o
    st = parallel.tp_step(r_gpu, f_gpu, bw, peak, t_ar)
    t = st.t_step
    return o | {
        "t_mem_ms": st.t_mem * 1e3,
        "t_compute_ms": st.t_compute * 1e3,
        "t_step_ms": t * 1e3,
        "bound": st.bound,
        "per_output_ms": t * 1e3 / p.batch,
        "throughput_tok_s": p.batch / t,
        "meets_target": t * 1e3 <= p.target_ms,
        "target_margin_ms": p.target_ms - t * 1e3,
    }


MEASURED_ELSEWHERE = W["measured_elsewhere"]


def tp_notes(p: Eg11Params) -> list[Note]:
    if p.tp == 1:
        return []
    out = [Note(W["tp_notes.note"])]
    if p.model == "manual":
        out.append(
            Note(
                W["tp_notes.note_2"],
                "illustrative",
            )
        )
    return out


@card(
    "eg-1-1",
    title=W["eg_1_1.title"],
    label=W["eg_1_1.label"],
    section="1.3",
    kind="calculator",
    params=Eg11Params,
    aliases=("fig-1-9", "fig-1-11", "fig-1-12"),
    outputs=EG11,
    badges=((W["eg_1_1.badges"], "ex-1-3"), (W["eg_1_1.badges_2"], "fig-1-10")),
    lead=W["eg_1_1.lead"],
)
def eg_1_1(p: Eg11Params) -> View:
    bw, peak = effective_rates(p)
    mq = None if p.model == "manual" else model_step_quantities(p.model, p.bytes_per_param)
    o = roofline.step_outputs(p.params_billion * 1e9, p.bytes_per_param, p.batch, bw, peak, p.target_ms, mq)
    o |= {"bw_eff_gbps": bw / 1e9, "peak_eff_gflops": peak / 1e9, "f_tok_gflop": o["f_gflop"] / p.batch}
    o |= tp_terms(p, mq, bw, peak)
    o |= {
        "compute_to_read_ratio": o["t_compute_ms"] / o["t_mem_ms"],
        "step_to_target_ratio": o["t_step_ms"] / p.target_ms,
    }
    grid = roofline.batch_grid(o["b_star"], p.batch)
    c = roofline.batch_curves(grid, o["t_mem_ms"], o["f_tok_gflop"] * 1e9 / p.tp, peak)
    c = o["chart"] = c if p.tp == 1 else parallel.with_comm(c, o["t_allreduce_ms"] / p.batch)
    head = "N = [[params_billion]]" if mq is None else W["eg_1_1"]
    # 图 1-11 at tp = 1: its bounds are straight lines on log–log axes (flat, ∝ B, their max kinked at B*), so
    # they need no point at the current B and moving B moves the marker alone (one trace to redraw)
    lines, lc = grid, c
    if p.tp == 1:
        lines = roofline.batch_grid(o["b_star"], None)
        lc = roofline.batch_curves(lines, o["t_mem_ms"], o["f_tok_gflop"] * 1e9, peak)
    bounds = bounds_vs_batch(
        lines, lc["t_mem_ms"], lc["t_compute_ms"], p.batch, o["t_step_ms"], o["b_star"], p.target_ms
    )
    return View(
        o,
        headline=W.f(
            "eg_1_1.headline_joined", head=head, tp=" · tp = [[tp|n]]" if p.tp > 1 else "", b=W["eg_1_1.headline"]
        ),
        ctx={"model_name": MODEL_NAMES.get(p.model, W["eg_1_1.model_name"]), "multi": p.tp > 1},
        figures=[
            Figure(
                bounds if p.tp == 1 else with_comm_bound(bounds, c["t_allreduce_ms"], c["t_step_ms"]),
                W["eg_1_1.figures"],
                W["eg_1_1.figures_2"],
                draws=frozenset(
                    {
                        "b_star",
                        "f_gflop",
                        "m_w_gb",
                        "per_output_ms",
                        "r_w_gb",
                        "read_to_compute_ratio",
                        "t_allreduce_ms",
                        "t_compute_ms",
                        "t_mem_ms",
                        "t_step_ms",
                    }
                ),
            ),
            Figure(
                throughput_vs_batch(grid, c["throughput_tok_s"], p.batch, o["throughput_tok_s"], o["b_star"]),
                W["eg_1_1.figures_3"],
                W["eg_1_1.figures_4"],
                draws=frozenset({"b_star", "f_gflop", "m_w_gb", "r_w_gb", "read_to_compute_ratio", "throughput_tok_s"}),
            ),
        ],
        notes=shared.notes("eg-1-1") + tp_notes(p) + [Note(MEASURED_ELSEWHERE)],
    )
