"""Section 1.3, after 例题 1-1: 图 1-10 (chunked overlap), 练习 1-3, the Qwen3-8B measurement
(图 1-13/1-14), the data-movement table, 练习 1-4, the 26.5 ms vs 8.62 ms gap and the eager timeline."""

from __future__ import annotations

from urllib.parse import urlencode

from ...calculators import decode, roofline
from ...cards import Figure, Note, Params, Quoted, Table, View, card, slider
from ...charts import decode as charts
from ...charts.lanes import bound_vs_measured, revealed_lanes
from ...data import gpu_options
from ...format import compact
from ...outputs import data, out, outputs
from ...params_domain import gpu_choice, gpu_of
from ...trace import given, name
from ...words import words_for
from ..shared import ch1 as shared

W = words_for(__name__)

# ---- 图 1-10 · 分块读取与计算重叠 ----------------------------------------------------------------------------------


class ChunkParams(shared.StepParams):
    n_chunks: int = slider(
        8,
        ge=1,
        le=64,
        step=1,
        label=W["chunkparams.n_chunks.label"],
        unit=W["chunkparams.n_chunks.unit"],
        illustrative=True,
    )


FIG110 = outputs(
    batch_ms=out(W["fig110.batch_ms"], digits=2, em=True, sym="T_{step}"),
    per_output_ms=out(W["fig110.per_output_ms"], sig=3),
    throughput_tok_s=out(W["fig110.throughput_tok_s"], sig=3),
    compute_busy_pct=out(W["fig110.compute_busy_pct"], sig=2),
    chunk_read_ms=out(W["fig110.chunk_read_ms"], sig=4),
    chunk_compute_ms=out(W["fig110.chunk_compute_ms"], sig=3),
    pipeline_makespan_ms=out(W["fig110.pipeline_makespan_ms"], digits=2),
    b_star=out(W["fig110.b_star"], unit=W["fig110.unit"], digits=0, tile=False, sym="B^*"),
    throughput_b1_tok_s=out(W["fig110.throughput_b1_tok_s"], sig=3, tile=False),
    schedule=data(W["fig110.schedule"]),
)


@card(
    "fig-1-10",
    title=W["fig_1_10.title"],
    label=W["fig_1_10.label"],
    section="1.3",
    kind="animation",
    params=ChunkParams,
    shared_state="eg-1-1",
    badges=((W["fig_1_10.badges"], "eg-1-1"),),
    outputs=FIG110,
    lead=W["fig_1_10.lead"],
)
def fig_1_10(p: ChunkParams) -> View:
    s = shared.step_of(p)
    sched = roofline.chunk_schedule(s["t_mem_ms"], s["t_compute_ms"], p.n_chunks)
    o = roofline.chunk_outputs(s["t_mem_ms"], s["t_compute_ms"], p.n_chunks) | {
        "batch_ms": s["t_step_ms"],
        "per_output_ms": s["per_output_ms"],
        "throughput_tok_s": s["throughput_tok_s"],
        "b_star": s["b_star"],
        "throughput_b1_tok_s": shared.step_of(p, batch=1)["throughput_tok_s"],
    }
    lanes = [
        (W["fig_1_10"], [(a, b) for a, b, _, _ in sched], W["fig_1_10_2"], "read"),
        (W["fig_1_10_3"], [(c, d) for _, _, c, d in sched], W.f("fig_1_10_4", batch=p.batch), "compute"),
    ]
    fig = revealed_lanes(
        lanes,
        sched[-1][3],
        25,
        x_title=W["fig_1_10.x_title"],
        order=[W["fig_1_10_3"], W["fig_1_10"]],
        prefix="t (ms) = ",
    )
    state = W["fig_1_10_5"] if p.batch < s["b_star"] else W["fig_1_10_6"]
    return View(
        o,
        headline=W["fig_1_10.headline"],
        ctx={"state": state},
        figures=[
            Figure(
                fig,
                W["fig_1_10.figures"],
                illustrative=True,
                animated=True,
                summary=W["fig_1_10.summary"],
                draws=frozenset(
                    {
                        "batch_ms",
                        "chunk_compute_ms",
                        "chunk_read_ms",
                        "compute_busy_pct",
                        "per_output_ms",
                        "pipeline_makespan_ms",
                    }
                ),
            )
        ],
        notes=shared.notes("fig-1-10", batched=p.batch > 1),
    )


# ---- 练习 1-3 ----------------------------------------------------------------------------------------------

EX13_CASES = {
    "b1": (1, 1.0),
    "b16": (16, 1.0),
    "b64": (64, 1.0),
    "b1_half": (1, 0.5),
    "b16_half": (16, 0.5),
    "b64_half": (64, 0.5),
}
CASE_NAMES = {c: W.f("case_names.b", b=b, half=W["case_names"] if w != 1.0 else "") for c, (b, w) in EX13_CASES.items()}
METRICS = {
    "t_step_ms": (W["metrics.t_step_ms"], "T_{step}", "ms"),
    "t_mem_ms": (W["metrics.t_mem_ms"], "T_{mem}", "ms"),
    "t_compute_ms": (W["metrics.t_compute_ms"], "T_{comp}", "ms"),
    "per_output_ms": (W["fig110.per_output_ms"], "", "ms"),
    "throughput_tok_s": (W["fig110.throughput_tok_s"], "", "token/s"),
}
YES_NO = {True: W["yes_no.t"], False: W["yes_no.t_2"]}
BOUND_ZH = {"memory": W["bound_zh.memory"], "compute": W["bound_zh.compute"]}


class Ex13Params(Params):
    bw_eff_pct: float = slider(70, ge=10, le=100, step=5, label=W["ex13params.bw_eff_pct.label"], unit="%", sym="η_β")
    compute_eff_pct: float = slider(
        50, ge=10, le=100, step=5, label=W["ex13params.compute_eff_pct.label"], unit="%", sym="η_Π"
    )
    target_ms: float = slider(
        10, ge=1, le=100, step=1, label=W["ex13params.target_ms.label"], unit="ms", sym="T_{target}"
    )


EX13 = outputs(
    **{
        "t_step_ms_b1": out(W["ex13.t_step_ms_b1"], unit="ms", sig=4, sym="T_{step}"),
        "t_step_ms_b64_half": out(W["ex13.t_step_ms_b64_half"], unit="ms", sig=4, sym="T_{step}"),
        "b_star": out("B*", unit=W["fig110.unit"], digits=1, approx=True, sym="B^*"),
        "b_star_half": out(W["ex13.b_star_half"], unit=W["fig110.unit"], digits=1, approx=True, sym="B^*"),
        "bw_eff_tbps": out("β_eff", sig=4, tile=False, sym="β_{eff}"),
        "peak_eff_tflops": out("Π_eff", sig=4, tile=False, sym="Π_{eff}"),
        **{
            f"{m}_{c}": out(
                W.f("case_names.metric", case=CASE_NAMES[c], label=label), unit=unit, sig=4, tile=False, sym=sym
            )
            for m, (label, sym, unit) in METRICS.items()
            for c in EX13_CASES
            if f"{m}_{c}" not in ("t_step_ms_b1", "t_step_ms_b64_half")
        },
        **{f"fails_target_{c}": out(W.f("ex13.t", v=CASE_NAMES[c]), tile=False, text=YES_NO) for c in EX13_CASES},
        **{f"bound_{c}": out(W.f("ex13.t_2", v=CASE_NAMES[c]), tile=False, text=BOUND_ZH) for c in EX13_CASES},
    }
)


def ex13_outputs(p: Ex13Params) -> dict:
    """The six conditions of 练习 1-3 on an H100 SXM at the usable shares (例题 1-1's hand calculation)."""
    bw, peak = shared.rates("h100-sxm", p.bw_eff_pct, p.compute_eff_pct)
    o: dict = {"bw_eff_tbps": bw / 1e12, "peak_eff_tflops": peak / 1e12}
    for c, (batch, b_w) in EX13_CASES.items():
        b_w = shared.HAND_B_W if b_w == 1.0 else given(b_w, "b_W", "B", source=W["ex13_outputs.source"])
        s = roofline.step_outputs(
            shared.HAND_N_BILLION * 1e9,
            b_w,
            given(batch, "B", W["fig110.unit"], source=W["ex13_outputs.source_2"]),
            bw,
            peak,
            p.target_ms,
        )
        o |= {f"{k}_{c}": s[k] for k in (*METRICS, "bound")} | {f"fails_target_{c}": s["t_step_ms"] > p.target_ms}
        if c in ("b1", "b1_half"):
            o["b_star" + c[2:]] = s["b_star"]
    return o


@card(
    "ex-1-3",
    title=W["ex_1_3.title"],
    label=W["ex_1_3.label"],
    section="1.3",
    kind="exercise",
    params=Ex13Params,
    badges=((W["fig_1_10.badges"], "eg-1-1"),),
    outputs=EX13,
    lead=W["ex_1_3.lead"],
)
def ex_1_3(p: Ex13Params) -> View:
    o = ex13_outputs(p)
    base = {"bw_eff_pct": compact(p.bw_eff_pct), "compute_eff_pct": compact(p.compute_eff_pct)}
    links = [
        {
            "label": CASE_NAMES[c],
            "href": "/cards/eg-1-1?"
            + urlencode(
                base
                | {"batch": b}
                | ({"bytes_per_param": "0.5"} if w != 1.0 else {})
                | ({"target_ms": compact(p.target_ms)} if p.target_ms != 10 else {})
            ),
        }
        for c, (b, w) in EX13_CASES.items()
    ]

    def carried(c: str, k: str, m: str) -> Quoted:
        """A cell of case ``c``: its time per output and throughput are the step time divided out, so
        they tell that case's step time (and per-output time) while those are asked."""
        told = {"t_step": [], "per_out": [f"t_step_ms_{c}"], "thr": [f"t_step_ms_{c}", f"per_output_ms_{c}"]}[k]
        q = shared.shown(EX13, o, f"{m}_{c}", "n,c")
        return q.carrying(told, slots=[f"{m}_{c}"])

    rows = [
        {
            "case": CASE_NAMES[c],
            **{
                k: carried(c, k, m)
                for k, m in (("t_step", "t_step_ms"), ("per_out", "per_output_ms"), ("thr", "throughput_tok_s"))
            },
            "bound": shared.shown(EX13, o, f"bound_{c}"),
            "fails": shared.shown(EX13, o, f"fails_target_{c}"),
        }
        for c in EX13_CASES
    ]
    fail = {
        h: W["ex_1_3"].join(
            f"B = {b}" for c, (b, _) in EX13_CASES.items() if c.endswith("_half") == h and o[f"fails_target_{c}"]
        )
        for h in (False, True)
    }
    ctx = {
        "fails_full": W.f("ex_1_3.fails_full", v=fail[False]) if fail[False] else W["ex_1_3.fails_full_2"],
        "fails_half": W.f("ex_1_3.fails_half", v=fail[True]) if fail[True] else W["ex_1_3.fails_half_2"],
    }
    v = View(
        o,
        headline=W["ex_1_3.headline"],
        ctx=ctx,
        blocks=[shared.diagram("ex-1-3", links=links, rows=rows, target=p.target_ms)],
        notes=shared.notes("ex-1-3"),
    )
    v.questions = shared.questions("ex-1-3", v, p)
    return v


# ---- 图 1-13 / 1-14 · Qwen3-8B 实测 -------------------------------------------------------------------------


class MeasureParams(Params):
    batch: int = slider(1, ge=1, le=64, step=1, label=W["measureparams.batch.label"], unit=W["fig110.unit"], log=True)
    gpu: shared.GpuId = gpu_choice("rtx-pro-6000", gpu_options(), label=W["measureparams.gpu.label"])
    context_tokens: int = slider(
        2048, ge=128, le=32768, step=128, label=W["measureparams.context_tokens.label"], unit="token"
    )


FIG113 = outputs(
    f1_gflop=out(W["fig113.f1_gflop"], sig=4, sym="F_1"),
    r_w_gb=out(W["fig113.r_w_gb"], sig=4, sym="R_W"),
    r_state_gb=out(W["fig113.r_state_gb"], sig=3, sym="R_{state,1}"),
    tpot_compute_ms=out("B·F₁/Π", sig=3),
    tpot_memory_ms=out("(R_W + B·R_state)/β", digits=2),
    tpot_lb_ms=out(W["fig113.tpot_lb_ms"], digits=2, em=True, sym="T_{step}"),
    measured_tpot_ms=out(W["fig113.measured_tpot_ms"], digits=1, sym="TPOT"),
    measured_throughput_ratio=out(W["fig113.measured_throughput_ratio"], unit="×", sym="X"),
    ideal_throughput_ratio=out(W["fig113.ideal_throughput_ratio"], unit="×", tile=False),
    measured_tpot_ms_b1=out(W["fig113.measured_tpot_ms_b1"], unit="ms", digits=1, tile=False),
    measured_tpot_ms_b64=out(W["fig113.measured_tpot_ms_b64"], unit="ms", digits=1, tile=False),
    measured_throughput_ratio_b64=out(W["fig113.measured_throughput_ratio_b64"], unit="×", tile=False),
    tpot_lb_ms_b1=out(W["fig113.tpot_lb_ms_b1"], unit="ms", digits=2, tile=False),
    tpot_lb_ms_b64=out(W["fig113.tpot_lb_ms_b64"], unit="ms", digits=2, tile=False),
    measured_over_bound_pct=out(
        W["fig113.measured_over_bound_pct"], unit="%", digits=0, none=W["fig113.none"], sym="TPOT/T_{step}"
    ),
    chart=data(W["fig113.chart"], type=dict),
)
MEASURED_VS_BOUND = W["measured_vs_bound"]


@card(
    "fig-1-13",
    title=W["fig_1_13.title"],
    label=W["fig_1_13.label"],
    section="1.3",
    kind="chart",
    params=MeasureParams,
    aliases=("fig-1-14",),
    badges=((W["fig_1_13.badges"], "ex-1-4"),),
    outputs=FIG113,
    lead=W["fig_1_13.lead"],
)
def fig_1_13(p: MeasureParams) -> View:
    g = gpu_of(p.gpu)
    bw, peak = g.bw_bytes_s, g.flops
    q = decode.quick_numbers(shared.model(shared.QWEN3_8B), context=p.context_tokens)
    meas, _ = shared.measured()
    here = meas.get(p.batch, {})
    grid = list(range(1, 65))
    lb = [
        decode.tpot_bound(q.decode_flops, q.decode_weight_read_bytes, q.decode_kv_read_bytes, x, bw, peak).t_step * 1e3
        for x in grid
    ]
    o = decode.tpot_outputs(q, p.batch, bw, peak) | {
        "ideal_throughput_ratio": p.batch,
        "measured_tpot_ms": here.get("tpot_ms"),
        "measured_throughput_ratio": here.get("throughput_ratio"),
        "measured_tpot_ms_b1": meas[1]["tpot_ms"],
        "measured_tpot_ms_b64": meas[64]["tpot_ms"],
        "measured_throughput_ratio_b64": meas[64]["throughput_ratio"],
        **{
            f"tpot_lb_ms_b{n}": decode.tpot_outputs(
                q, given(n, "B", W["fig110.unit"], source=W["fig_1_13.source"]), bw, peak
            )["tpot_lb_ms"]
            for n in (1, 64)
        },
        "chart": {"batch": grid, "tpot_lb_ms": lb, "ideal_throughput_ratio": [float(x) for x in grid]},
    }
    o["measured_over_bound_pct"] = (
        name(100 * here["tpot_ms"] / o["tpot_lb_ms"], "TPOT/T_{step}", "%") if here.get("tpot_ms") else None
    )
    mb = sorted(meas)
    missing = W["fig_1_13"] if not here else ""
    ctx = {
        "gpu_name": g.name,
        "measured_note": missing,
        "ratio_note": missing or (W["fig_1_13.ratio_note"] if p.batch == 64 else ""),
    }
    notes = shared.notes("fig-1-13", moved=p.gpu != "rtx-pro-6000" or p.context_tokens != 2048)
    notes.append(Note(MEASURED_VS_BOUND))
    return View(
        o,
        headline=W["fig_1_13.headline"],
        ctx=ctx,
        notes=notes,
        figures=[
            Figure(
                charts.throughput_ratio(grid, mb, [meas[x]["throughput_ratio"] for x in mb], p.batch),
                W["fig_1_13.figures"],
                W["fig_1_13.figures_2"],
                draws=frozenset({"measured_throughput_ratio"}),
            ),
            Figure(
                charts.tpot(grid, lb, mb, [meas[x]["tpot_ms"] for x in mb], p.batch, o["tpot_lb_ms"]),
                W["fig_1_13.figures_3"],
                W["fig_1_13.figures_4"],
                draws=frozenset({"measured_throughput_ratio", "measured_tpot_ms", "tpot_lb_ms", "tpot_memory_ms"}),
            ),
        ],
    )


# ---- 搬什么 / 搬多少 / 搬几次 / 经过哪里 / 谁在等待 -----------------------------------------------------------------------

DATA_MOVEMENT = [
    (W["data_movement"], W["data_movement_2"], "weight-bytes", W["data_movement_3"]),
    (W["data_movement_4"], W["data_movement_5"], "eg-1-1", W["data_movement_6"]),
    (W["data_movement_7"], W["data_movement_8"], "fig-1-10", W["data_movement_9"]),
    (W["data_movement_10"], W["data_movement_11"], "gpu-cheatsheet", W["data_movement_12"]),
    (W["data_movement_13"], W["data_movement_14"], "tab-three-step", W["data_movement_15"]),
]


@card(
    "tab-data-movement",
    title=W["tab_data_movement.title"],
    section="1.3",
    kind="table",
    outputs=outputs(rows=data(W["tab_data_movement.rows"])),
    lead=W["tab_data_movement.lead"],
)
def tab_data_movement(p: Params) -> View:
    return View(
        {"rows": [{"question": a, "decided_by": b, "card": c} for a, b, c, _ in DATA_MOVEMENT]},
        tables=[
            Table(
                columns=[
                    W["tab_data_movement.columns"],
                    W["tab_data_movement.columns_2"],
                    W["tab_data_movement.columns_3"],
                ],
                rows=[[a, b, t] for a, b, _, t in DATA_MOVEMENT],
                links={i: c for i, (_, _, c, _) in enumerate(DATA_MOVEMENT)},
                illustrative_cells={(i, 2) for i in range(len(DATA_MOVEMENT))},
                note=W["tab_data_movement.note"],
            )
        ],
    )


# ---- 练习 1-4 ----------------------------------------------------------------------------------------------

EX14 = outputs(
    throughput_ratio_b64=out(W["ex14.throughput_ratio_b64"], unit="×", digits=0, book=W["ex14.book"]),
    ideal_throughput_ratio_b64=out(W["ex14.ideal_throughput_ratio_b64"], unit="×", digits=0),
    scaling_efficiency_pct=out(W["ex14.scaling_efficiency_pct"], sig=3, sym=W["ex14.sym"]),
    tpot_growth_pct=out(W["ex14.tpot_growth_pct"], sig=3),
    tpot_implied_throughput_ratio_b64=out(W["ex14.tpot_implied_throughput_ratio_b64"], unit="×", sig=3),
    tpot_lb_ratio_b64=out(W["ex14.tpot_lb_ratio_b64"], unit="×", sig=3, sym=W["ex14.sym_2"]),
    tpot_ratio_b64=out(W["ex14.tpot_ratio_b64"], unit="×", sig=4, tile=False),
    tpot_lb_ms_b1=out(W["ex14.tpot_lb_ms_b1"], unit="ms", digits=2, tile=False),
    tpot_lb_ms_b64=out(W["ex14.tpot_lb_ms_b64"], unit="ms", digits=2, tile=False),
    tpot_ms_b1=out(W["ex14.tpot_ms_b1"], unit="ms", digits=1, tile=False),
    tpot_ms_b64=out(W["ex14.tpot_ms_b64"], unit="ms", digits=1, tile=False),
    middle_levels_known=out(W["ex14.middle_levels_known"], tile=False),
)


def ex14_outputs() -> dict:
    """练习 1-4: the printed measurements against the shared-read model and the TPOT lower bound."""
    (meas, levels), g = shared.measured(), gpu_of("rtx-pro-6000")
    m1, m64 = meas[1], meas[64]
    q = decode.quick_numbers(shared.model(shared.QWEN3_8B))
    lb = {
        b: name(
            decode.tpot_outputs(
                q, given(b, "B", W["fig110.unit"], source=W["ex14_outputs.source"]), g.bw_bytes_s, g.flops
            )["tpot_lb_ms"],
            f"T_{{B={b}}}",
            "ms",
        )
        for b in (1, 64)
    }
    return decode.batching_check(
        m1["tpot_ms"],
        m64["tpot_ms"],
        m1["throughput_ratio"],
        m64["throughput_ratio"],
        lb[1],
        lb[64],
        given(64, "B", W["fig110.unit"], source=W["ex14_outputs.source"]),
    ) | {"middle_levels_known": len(meas) >= levels}


@card(
    "ex-1-4",
    title=W["ex_1_4.title"],
    label=W["fig_1_13.badges"],
    section="1.3",
    kind="exercise",
    badges=((W["fig_1_13.label"], "fig-1-13"),),
    outputs=EX14,
    lead=W["ex_1_4.lead"],
)
def ex_1_4(p: Params) -> View:
    o = ex14_outputs()
    na = W["ex_1_4"]
    v = View(
        o,
        headline=W["ex_1_4.headline"],
        tables=[
            Table(
                columns=[
                    W["ex_1_4.columns"],
                    "B",
                    W["ex_1_4.columns_2"],
                    W["ex_1_4.columns_3"],
                    W["ex14.tpot_growth_pct"],
                    W["ex_1_4.columns_4"],
                    W["ex_1_4.columns_5"],
                ],
                rows=[
                    [W["ex_1_4.rows"], 1, "1", o["tpot_ms_b1"], "0%", "1", o["tpot_lb_ms_b1"]],
                    [W["ex_1_4.rows_2"], na, na, na, na, "—", "—"],
                    [W["ex_1_4.rows_3"], na, na, na, na, "—", "—"],
                    [
                        W["ex_1_4.rows_4"],
                        64,
                        Quoted(W["ex_1_4.rows_5"], ["throughput_ratio_b64"]),  # the book's "约 31" answers q1
                        o["tpot_ms_b64"],
                        "+" + shared.shown(EX14, o, "tpot_growth_pct", "d1"),
                        shared.shown(EX14, o, "ideal_throughput_ratio_b64", "n"),
                        o["tpot_lb_ms_b64"],
                    ],
                ],
                formats=["", "", "", "tpot_ms_b1", "", "", "tpot_lb_ms_b1"],
                title=W["ex_1_4.title_2"],
            )
        ],
        notes=shared.notes("ex-1-4"),
    )
    v.questions = shared.questions("ex-1-4", v, p)
    return v


# ---- 从 26.5 ms 到 8.62 ms 下界 ------------------------------------------------------------------------------


class GapParams(Params):
    measured_tpot_ms: float = slider(
        26.5, ge=8.7, le=200, step=0.1, label=W["gapparams.measured_tpot_ms.label"], unit="ms"
    )


GAP = outputs(
    measured_tpot_ms=out(W["gap.measured_tpot_ms"], digits=1),
    lb_ms=out(W["gap.lb_ms"], digits=2, sym="T_{step}"),
    gap_ms=out(W["gap.gap_ms"], digits=2, em=True),
    ratio=out(W["gap.ratio"], unit="×", digits=2, sym=W["gap.sym"]),
    mbu_pct=out(W["gap.mbu_pct"], sig=3, sym="MBU"),
    mfu_pct=out(W["gap.mfu_pct"], sig=3, sym="MFU"),
)


@card(
    "gap-analysis",
    title=W["gap_analysis.title"],
    section="1.3",
    kind="calculator",
    params=GapParams,
    badges=((W["gap_analysis.badges"], "quick-bounds"),),
    outputs=GAP,
    lead=W["gap_analysis.lead"],
)
def gap_analysis(p: GapParams) -> View:
    g = gpu_of("rtx-pro-6000")
    bw, peak = g.bw_bytes_s, g.flops
    q = decode.quick_numbers(shared.model(shared.QWEN3_8B))
    o = decode.gap_outputs(
        q, bw, peak, p.measured_tpot_ms, given(1, "B", W["fig110.unit"], source=W["gap_analysis.source"])
    )
    fig = bound_vs_measured(
        o["lb_ms"],
        p.measured_tpot_ms,
        [
            W["gap_analysis.bound_vs_measured"] + shared.shown(GAP, o, "lb_ms"),
            W["gap_analysis.bound_vs_measured_2"] + shared.shown(GAP, o, "gap_ms"),
        ],
        W["gap_analysis.bound_vs_measured_3"] + shared.shown(GAP, o, "measured_tpot_ms", "c"),
    )
    return View(
        o,
        headline=W["gap_analysis.headline"],
        ctx={"ratio_book": W["gap_analysis.ratio_book"] if abs(p.measured_tpot_ms - 26.5) < 1e-9 else ""},
        figures=[
            Figure(
                fig,
                W["gap_analysis.figures"],
                W["gap_analysis.figures_2"],
                draws=frozenset({"gap_ms", "lb_ms", "measured_tpot_ms"}),
            )
        ],
        notes=shared.notes("gap-analysis"),
    )


# ---- eager 模式下,GPU 在等 CPU 提交 -----------------------------------------------------------------------------

LAUNCH = given(3.0, "t_{launch}", W["launch.given"], source=W["launch.source"])  # host launch time per kernel
KERNEL = given(1.0, "t_{kernel}", W["launch.given"], source=W["launch.source"])  # kernel run time


class EagerParams(Params):
    kernels: int = slider(
        6,
        ge=1,
        le=20,
        step=1,
        label=W["eagerparams.kernels.label"],
        unit=W["eagerparams.kernels.unit"],
        illustrative=True,
    )


EAGER = outputs(
    gpu_busy_frac=out(W["eager.gpu_busy_frac"], digits=2, ill=True),
    gpu_busy_pct=out(W["eager.gpu_busy_pct"], digits=0, tile=False),
    gpu_busy_units=out(W["eager.gpu_busy_units"], unit=W["launch.given"], tile=False),
    makespan_units=out(W["eager.makespan_units"], unit=W["launch.given"], tile=False),
    timeline=data(W["eager.timeline"]),
    units=out(W["eager.units"], tile=False),
)


@card(
    "eager-gpu-idle",
    title=W["eager_gpu_idle.title"],
    section="1.3",
    kind="animation",
    params=EagerParams,
    outputs=EAGER,
    lead=W["eager_gpu_idle.lead"],
)
def eager_gpu_idle(p: EagerParams) -> View:
    tl = decode.eager_timeline(p.kernels, LAUNCH, KERNEL)
    end = tl[-1][3]
    idle = [(prev[3], cur[2]) for prev, cur in zip([(0, 0, 0, 0.0), *tl], tl) if cur[2] > prev[3]]
    busy = decode.eager_busy_fraction(p.kernels, LAUNCH, KERNEL)
    o = {
        "gpu_busy_frac": busy,
        "gpu_busy_pct": 100 * busy,
        "gpu_busy_units": p.kernels * KERNEL,
        "makespan_units": roofline.pipeline_makespan(p.kernels, LAUNCH, KERNEL),
        "units": "arbitrary",
        "timeline": [
            {"kernel": k + 1, "cpu_start": a, "cpu_end": b, "gpu_start": c, "gpu_end": d}
            for k, (a, b, c, d) in enumerate(tl)
        ],
    }
    lanes = [
        (W["eager_gpu_idle"], [(a, b) for a, b, _, _ in tl], W["eager_gpu_idle_2"], "overhead"),
        (W["eager_gpu_idle_3"], [(c, d) for _, _, c, d in tl], "kernel", "compute"),
        (W["eager_gpu_idle_3"], idle, W["eager_gpu_idle_4"], "over"),
    ]
    fig = revealed_lanes(
        lanes,
        end,
        int(end) + 1 if end <= 40 else 41,
        x_title=W["eager_gpu_idle.x_title"],
        order=[W["eager_gpu_idle_3"], W["eager_gpu_idle"]],
        prefix="t = ",
        dim=[W["eager_gpu_idle_4"]],
    )
    return View(
        o,
        headline=W["eager_gpu_idle.headline"],
        ctx={"launch": LAUNCH, "kernel": KERNEL},
        figures=[
            Figure(
                fig,
                W["eager_gpu_idle.figures"],
                illustrative=True,
                animated=True,
                summary=W["eager_gpu_idle.summary"],
                draws=frozenset({"gpu_busy_frac"}),
            )
        ],
        notes=shared.notes("eager-gpu-idle"),
    )
