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
from ..shared import ch1 as shared
from ..shared.ch1 import MODEL_NAMES, StepParams, effective_rates, model, plain_out
from ..shared.tp import LINK_RULE, TpDegree, link_bytes_s, link_override, tp_choice

MODELS = {
    "manual": "按 N 手算(例题 1-1)",
    "deepseek-r1-distill-llama-70b": "DeepSeek-R1-Distill-Llama-70B",
    "qwen3-8b": "Qwen3-8B",
}


class Eg11Params(StepParams):
    """例题 1-1 plus a model choice: "manual" is the book's hand calculation with N; a preset or a
    reader's own config.json replaces N by the model's own per-step read and FLOPs."""

    model: model_type(MODELS) = model_choice("manual", MODELS, label="模型(可选)")  # type: ignore[valid-type]
    link_gbps: float | None = link_override()
    tp: TpDegree = tp_choice()
    cross_field_rules = (LINK_RULE,)


EG11 = outputs(
    m_w_gb=out("驻留量 M_W = b_W·N", sig=4, sym="M_W"),
    r_w_gb=out("每步读取 R_W = b_W·N", sig=4, sym="R_W"),
    f_gflop=out("每步运算 F ≈ 2BN", sig=4, sym="F"),
    bw_eff_tbps=out("可用带宽 β", sig=4, tile=False, sym="β"),
    peak_eff_tflops=out("可用算力 Π", sig=4, tile=False, sym="Π"),
    bw_eff_gbps=plain_out("可用带宽 β(GB/s)", digits=0, tile=False, sym="β"),
    peak_eff_gflops=out("可用算力 Π(GFLOP/s)", unit="GFLOP/s", digits=0, tile=False, sym="Π"),
    t_mem_ms=out("读取下界 R_W/β", digits=2, sym="T_{mem}"),
    t_compute_ms=out("计算下界 F/Π", sig=4, sym="T_{comp}"),
    t_step_ms=out("单步下界 T_step", digits=2, em=True, sym="T_{step}"),
    read_to_compute_ratio=out("读取 ÷ 计算", unit="×", digits=0, approx=True),
    compute_to_read_ratio=out("计算 ÷ 读取", unit="×", sig=2, approx=True, tile=False),  # the prose's 约 N 倍
    step_to_target_ratio=out("单步下界 ÷ 目标", unit="×", sig=2, approx=True, tile=False),
    per_output_ms=out("每输出分摊", sig=3),
    throughput_tok_s=out("理想吞吐", sig=3),
    b_star=out("转折点 B* = b_WΠ/(2β)", unit="请求", digits=0, approx=True, sym="B^*", axis=(0, "x")),
    intensity_flop_per_byte=out("算术强度 I = 2B/b_W", sig=4, tile=False, sym="I"),
    ridge_flop_per_byte=out("转折强度 Π/β", sig=4, tile=False),
    f_tok_gflop=out("每 token 运算 F/B", unit="GFLOP", sig=4, tile=False),
    bound=out("主导项", text={"memory": "读取(memory)", "compute": "计算(compute)"}),
    meets_target=out(
        "满足目标?", text={True: "满足(余量 [[target_margin_ms]])", False: "不满足(余量 [[target_margin_ms]])"}
    ),
    target_margin_ms=out("目标余量", digits=2, tile=False),
    m_w_per_gpu_gb=out("每卡驻留 M_W/tp", sig=4, tile="multi", sym="M_{W,gpu}"),
    r_w_per_gpu_gb=out("每卡每步读取 R_W/tp", sig=4, tile="multi", sym="R_{W,gpu}"),
    f_per_gpu_gflop=out("每卡每步运算 F/tp", sig=4, tile="multi", sym="F_{gpu}"),
    t_allreduce_ms=out("all-reduce 通信 T_AR(另加)", sig=4, tile="multi", sym="T_{AR}"),
    chart=data("图 1-11/1-12 的曲线:batch, t_mem_ms, t_compute_ms, t_step_ms, throughput_tok_s", type=dict),
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


MEASURED_ELSEWHERE = (
    "这里算的是下界,不是预测:真实引擎每一步都比它慢。书中 Qwen3-8B 在 RTX PRO 6000 上的实测与同一设置的下界"
    "(实测 / 下界)见图 1-13 / 1-14;vLLM、TensorRT-LLM 等在其他卡上的公开实测与各自的下界,见 /tools/fit 的“实测离下界有多远”。"
)


def tp_notes(p: Eg11Params) -> list[Note]:
    if p.tp == 1:
        return []
    out = [
        Note(
            "张量并行 tp = [[tp|n]]:每张卡存、读 1/tp 的权重,做 1/tp 的运算;每层两次 all-reduce(环形,每卡每请求收发 "
            "2·(tp−1)/tp × hidden × 2 B)走卡间互连,单独算成 T_AR = [[t_allreduce_ms]],加到下界上。"
        )
    ]
    if p.model == "manual":
        out.append(
            Note(
                "手算模式只有 N,没有层数和 hidden:all-reduce 一项按书中模型 DeepSeek-R1-Distill-Llama-70B 的 "
                "config.json(L = 80 层、hidden h = 8192)算。",
                "illustrative",
            )
        )
    return out


@card(
    "eg-1-1",
    title="单步生成计算器",
    label="例题 1-1 / 图 1-9 ~ 1-12 / 练习 1-3",
    section="1.3",
    kind="calculator",
    params=Eg11Params,
    aliases=("fig-1-9", "fig-1-11", "fig-1-12"),
    outputs=EG11,
    badges=(("练习 1-3", "ex-1-3"), ("图 1-10", "fig-1-10")),
    lead="一张 H100 SXM 能否让 70B 模型每 10 ms 生成一个新 token?读权重和做乘加各要多久,取较慢者。",
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
    head = (
        "N = [[params_billion]]"
        if mq is None
        else "[[model_name]]:每步读 [[r_w_gb]]、每 token [[f_tok_gflop]](由配置推导)"
    )
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
        headline=head + (" · tp = [[tp|n]]" if p.tp > 1 else "") + " · 目标 [[target_ms]]/步",
        ctx={"model_name": MODEL_NAMES.get(p.model, "自定义模型"), "multi": p.tp > 1},
        figures=[
            Figure(
                bounds if p.tp == 1 else with_comm_bound(bounds, c["t_allreduce_ms"], c["t_step_ms"]),
                "图 1-11 · 时间下界随 B 变化",
                "权重读取下界恒为 [[t_mem_ms]],计算下界随 B 线性增长,B=[[batch]] 时 [[t_compute_ms]];两者在 "
                "B*≈[[b_star|n]] 相交。当前单步下界 [[t_step_ms]],目标 [[target_ms]]。",
            ),
            Figure(
                throughput_vs_batch(grid, c["throughput_tok_s"], p.batch, o["throughput_tok_s"], o["b_star"]),
                "图 1-12 · 理想输出吞吐 B/T",
                "吞吐随 B 线性上升,越过 B*≈[[b_star|n]] 后变平;B=[[batch]] 时约 [[throughput_tok_s]]。",
            ),
        ],
        notes=shared.notes("eg-1-1") + tp_notes(p) + [Note(MEASURED_ELSEWHERE)],
    )
