"""Section 1.3, after 例题 1-1: 图 1-10 (chunked overlap), 练习 1-3, the Qwen3-8B measurement
(图 1-13/1-14), the data-movement table, 练习 1-4, the 26.5 ms vs 8.62 ms gap and the eager timeline."""

from __future__ import annotations

from urllib.parse import urlencode

from ...calculators import decode, roofline
from ...cards import Figure, Note, Params, Table, View, card, slider
from ...charts import decode as charts
from ...charts.lanes import bound_vs_measured, revealed_lanes
from ...data import gpu_options
from ...outputs import data, out, outputs
from ...params_domain import gpu_choice, gpu_of
from ...trace import given, name
from ..shared import ch1 as shared

# ---- 图 1-10 · 分块读取与计算重叠 ----------------------------------------------------------------------------------


class ChunkParams(shared.StepParams):
    n_chunks: int = slider(8, ge=1, le=64, step=1, label="分块数 n", unit="块", illustrative=True)


FIG110 = outputs(
    batch_ms=out("整批耗时(下界)", digits=2, em=True, sym="T_{step}"),
    per_output_ms=out("每输出分摊", sig=3),
    throughput_tok_s=out("理想吞吐", sig=3),
    compute_busy_pct=out("计算单元忙碌占比", sig=2),
    chunk_read_ms=out("每块读取", sig=4),
    chunk_compute_ms=out("每块乘加", sig=3),
    pipeline_makespan_ms=out("流水线末块结束", digits=2),
    b_star=out("转折点 B*", unit="请求", digits=0, tile=False, sym="B^*"),
    throughput_b1_tok_s=out("B = 1 时的理想吞吐", sig=3, tile=False),
    schedule=data("每块的读取与乘加起止时间(ms)"),
)


@card(
    "fig-1-10",
    title="分块读取与计算重叠:一次读取,服务一整批",
    label="图 1-10",
    section="1.3",
    kind="animation",
    params=ChunkParams,
    shared_state="eg-1-1",
    badges=(("例题 1-1", "eg-1-1"),),
    outputs=FIG110,
    lead="权重分块到达显存接口,每到一块就对批内所有请求做乘加。按 ▶ 看两条流水线;在本节页面上拖动例题 1-1 的 B,这里跟着变。",
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
        ("显存读取", [(a, b) for a, b, _, _ in sched], "权重块读取", "read"),
        ("乘加计算", [(c, d) for _, _, c, d in sched], f"批内 {p.batch} 个请求的乘加", "compute"),
    ]
    fig = revealed_lanes(
        lanes, sched[-1][3], 25, x_title="时间 (ms)", order=["乘加计算", "显存读取"], prefix="t (ms) = "
    )
    state = (
        "绿块几乎看不见,计算单元大部分时间在等下一块数据"
        if p.batch < s["b_star"]
        else "绿块连成一片,读取反过来等计算:计算成为瓶颈"
    )
    return View(
        o,
        headline="B = [[batch|n]] · 权重分 [[n_chunks]] · B* ≈ [[b_star|n]]",
        ctx={"state": state},
        figures=[
            Figure(
                fig,
                "图 1-10 · 两条流水线:读取一块,计算一块",
                illustrative=True,
                animated=True,
                summary="每块读取 [[chunk_read_ms]],每块乘加 [[chunk_compute_ms]];B=[[batch|n]] 时[[state]]。整批下界 [[batch_ms]]。",
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
CASE_NAMES = {c: f"B = {b}" + (",读取减半" if w != 1.0 else "") for c, (b, w) in EX13_CASES.items()}
METRICS = {
    "t_step_ms": ("整批下界", "T_{step}", "ms"),
    "t_mem_ms": ("读取 R_W/β_eff", "T_{mem}", "ms"),
    "t_compute_ms": ("计算 F/Π_eff", "T_{comp}", "ms"),
    "per_output_ms": ("每输出分摊", "", "ms"),
    "throughput_tok_s": ("理想吞吐", "", "token/s"),
}
YES_NO = {True: "是", False: "否"}
BOUND_ZH = {"memory": "读取", "compute": "计算"}


class Ex13Params(Params):
    bw_eff_pct: float = slider(70, ge=10, le=100, step=5, label="带宽可用比例(3.35 TB/s 的)", unit="%", sym="η_β")
    compute_eff_pct: float = slider(
        50, ge=10, le=100, step=5, label="算力可用比例(989.4 TFLOP/s 的)", unit="%", sym="η_Π"
    )
    target_ms: float = slider(10, ge=1, le=100, step=1, label="每请求每步目标", unit="ms", sym="T_{target}")


EX13 = outputs(
    **{
        "t_step_ms_b1": out("B=1 整批下界", unit="ms", sig=4, sym="T_{step}"),
        "t_step_ms_b64_half": out("B=64 读取减半", unit="ms", sig=4, sym="T_{step}"),
        "b_star": out("B*", unit="请求", digits=1, approx=True, sym="B^*"),
        "b_star_half": out("B*(读取减半)", unit="请求", digits=1, approx=True, sym="B^*"),
        "bw_eff_tbps": out("β_eff", sig=4, tile=False, sym="β_{eff}"),
        "peak_eff_tflops": out("Π_eff", sig=4, tile=False, sym="Π_{eff}"),
        **{
            f"{m}_{c}": out(f"{CASE_NAMES[c]} · {label}", unit=unit, sig=4, tile=False, sym=sym)
            for m, (label, sym, unit) in METRICS.items()
            for c in EX13_CASES
            if f"{m}_{c}" not in ("t_step_ms_b1", "t_step_ms_b64_half")
        },
        **{f"fails_target_{c}": out(f"{CASE_NAMES[c]} 超过目标?", tile=False, text=YES_NO) for c in EX13_CASES},
        **{f"bound_{c}": out(f"{CASE_NAMES[c]} 主导项", tile=False, text=BOUND_ZH) for c in EX13_CASES},
    }
)


def ex13_outputs(p: Ex13Params) -> dict:
    """The six conditions of 练习 1-3 on an H100 SXM at the usable shares (例题 1-1's hand calculation)."""
    bw, peak = shared.rates("h100-sxm", p.bw_eff_pct, p.compute_eff_pct)
    o: dict = {"bw_eff_tbps": bw / 1e12, "peak_eff_tflops": peak / 1e12}
    for c, (batch, b_w) in EX13_CASES.items():
        b_w = shared.HAND_B_W if b_w == 1.0 else given(b_w, "b_W", "B", source="练习 1-3 题设(读取减半)")
        s = roofline.step_outputs(
            shared.HAND_N_BILLION * 1e9, b_w, given(batch, "B", "请求", source="练习 1-3 题设"), bw, peak, p.target_ms
        )
        o |= {f"{k}_{c}": s[k] for k in (*METRICS, "bound")} | {f"fails_target_{c}": s["t_step_ms"] > p.target_ms}
        if c in ("b1", "b1_half"):
            o["b_star" + c[2:]] = s["b_star"]
    return o


@card(
    "ex-1-3",
    title="带宽与 batch size 如何影响单步生成时限",
    label="练习 1-3",
    section="1.3",
    kind="exercise",
    params=Ex13Params,
    badges=(("例题 1-1", "eg-1-1"),),
    outputs=EX13,
    lead="有效带宽取标称 70%、有效算力取峰值 50%,B = 1、16、64,再把权重读取减半。每个条件都能一键装进例题 1-1 的计算器。",
)
def ex_1_3(p: Ex13Params) -> View:
    o = ex13_outputs(p)
    base = {"bw_eff_pct": f"{p.bw_eff_pct:g}", "compute_eff_pct": f"{p.compute_eff_pct:g}"}
    links = [
        {
            "label": CASE_NAMES[c],
            "href": "/cards/eg-1-1?"
            + urlencode(
                base
                | {"batch": b}
                | ({"bytes_per_param": "0.5"} if w != 1.0 else {})
                | ({"target_ms": f"{p.target_ms:g}"} if p.target_ms != 10 else {})
            ),
        }
        for c, (b, w) in EX13_CASES.items()
    ]
    rows = [
        {
            "case": CASE_NAMES[c],
            **{
                k: shared.shown(EX13, o, f"{m}_{c}", "n,c")
                for k, m in (("t_step", "t_step_ms"), ("per_out", "per_output_ms"), ("thr", "throughput_tok_s"))
            },
            "bound": shared.shown(EX13, o, f"bound_{c}"),
            "fails": shared.shown(EX13, o, f"fails_target_{c}"),
        }
        for c in EX13_CASES
    ]
    fail = {
        h: "、".join(
            f"B = {b}" for c, (b, _) in EX13_CASES.items() if c.endswith("_half") == h and o[f"fails_target_{c}"]
        )
        for h in (False, True)
    }
    ctx = {
        "fails_full": f"{fail[False]} 的整批下界都超过目标,全都不行。"
        if fail[False]
        else "三个 B 的下界都没有超过目标,下界本身判不了。",
        "fails_half": f"{fail[True]} 仍超过目标。" if fail[True] else "三个 B 都不再被下界排除。",
    }
    v = View(
        o,
        headline="β_eff = [[bw_eff_tbps]] · Π_eff = [[peak_eff_tflops]] · 目标 [[target_ms]]/步",
        ctx=ctx,
        blocks=[shared.diagram("ex-1-3", links=links, rows=rows, target=p.target_ms)],
        notes=shared.notes("ex-1-3"),
    )
    v.questions = shared.questions("ex-1-3", v, p)
    return v


# ---- 图 1-13 / 1-14 · Qwen3-8B 实测 -------------------------------------------------------------------------


class MeasureParams(Params):
    batch: int = slider(1, ge=1, le=64, step=1, label="同时请求数 B", unit="请求", log=True)
    gpu: shared.GpuId = gpu_choice("rtx-pro-6000", gpu_options(), label="下界所用加速器")
    context_tokens: int = slider(2048, ge=128, le=32768, step=128, label="上下文长度 S", unit="token")


FIG113 = outputs(
    f1_gflop=out("每请求每步运算 F₁", sig=4, sym="F_1"),
    r_w_gb=out("每步权重读取 R_W", sig=4, sym="R_W"),
    r_state_gb=out("每请求旧 KV 读取 R_state,1", sig=3, sym="R_{state,1}"),
    tpot_compute_ms=out("B·F₁/Π", sig=3),
    tpot_memory_ms=out("(R_W + B·R_state)/β", digits=2),
    tpot_lb_ms=out("TPOT 下界", digits=2, em=True, sym="T_{step}"),
    measured_tpot_ms=out("实测 TPOT[[measured_note]]", digits=1, sym="TPOT"),
    measured_throughput_ratio=out("实测吞吐比[[ratio_note]]", unit="×", sym="X"),
    ideal_throughput_ratio=out("理想吞吐比", unit="×", tile=False),
    measured_tpot_ms_b1=out("实测 TPOT(B=1)", unit="ms", digits=1, tile=False),
    measured_tpot_ms_b64=out("实测 TPOT(B=64)", unit="ms", digits=1, tile=False),
    measured_throughput_ratio_b64=out("实测吞吐比(B=64)", unit="×", tile=False),
    tpot_lb_ms_b1=out("TPOT 下界(B=1)", unit="ms", digits=2, tile=False),
    tpot_lb_ms_b64=out("TPOT 下界(B=64)", unit="ms", digits=2, tile=False),
    measured_over_bound_pct=out("实测 / 下界", unit="%", digits=0, none="—(此档无实测)", sym="TPOT/T_{step}"),
    chart=data("曲线:batch, tpot_lb_ms, ideal_throughput_ratio", type=dict),
)
MEASURED_VS_BOUND = (
    "实测 / 下界:书中实测的 TPOT 除以同一设置下的下界。下界不是预测——它只算读权重、读 KV 和做乘加的最短时间,"
    "实测总在它之上;比值说明引擎离这条线还有多远(调度、kernel 启动、注意力实现、采样与 CPU 开销都在这段差距里)。"
    "其他引擎、其他卡上的公开实测与各自的下界,见 /tools/fit 的“实测离下界有多远”。"
)


@card(
    "fig-1-13",
    title="同时请求数从 1 到 64",
    label="图 1-13 / 1-14",
    section="1.3",
    kind="chart",
    params=MeasureParams,
    aliases=("fig-1-14",),
    badges=(("练习 1-4", "ex-1-4"),),
    outputs=FIG113,
    lead="Qwen3-8B(BF16)在 RTX PRO 6000 上的实测:吞吐涨了约 31 倍,输出间隔也从 26.5 ms 涨到 40.5 ms。拖动 B 看下界怎么走。",
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
            f"tpot_lb_ms_b{n}": decode.tpot_outputs(q, given(n, "B", "请求", source="图 1-14 的两端"), bw, peak)[
                "tpot_lb_ms"
            ]
            for n in (1, 64)
        },
        "chart": {"batch": grid, "tpot_lb_ms": lb, "ideal_throughput_ratio": [float(x) for x in grid]},
    }
    o["measured_over_bound_pct"] = (
        name(100 * here["tpot_ms"] / o["tpot_lb_ms"], "TPOT/T_{step}", "%") if here.get("tpot_ms") else None
    )
    mb = sorted(meas)
    missing = "(书中未给出此档)" if not here else ""
    ctx = {
        "gpu_name": g.name,
        "measured_note": missing,
        "ratio_note": missing or ("(书中:约 31×)" if p.batch == 64 else ""),
    }
    notes = shared.notes("fig-1-13", moved=p.gpu != "rtx-pro-6000" or p.context_tokens != 2048)
    notes.append(Note(MEASURED_VS_BOUND))
    return View(
        o,
        headline="Qwen3-8B · BF16 · 下界按 [[gpu_name]] · 上下文 [[context_tokens]]",
        ctx=ctx,
        notes=notes,
        figures=[
            Figure(
                charts.throughput_ratio(grid, mb, [meas[x]["throughput_ratio"] for x in mb], p.batch),
                "图 1-13 · 吞吐(相对单请求)",
                "理想情况吞吐随 B 线性增长,到 64 为 64 倍;实测在 B=64 时约 [[measured_throughput_ratio_b64|n]] 倍。",
            ),
            Figure(
                charts.tpot(grid, lb, mb, [meas[x]["tpot_ms"] for x in mb], p.batch, o["tpot_lb_ms"]),
                "图 1-14 · 每输出间隔 TPOT",
                "实测 TPOT 从 B=1 的 [[measured_tpot_ms_b1]] 涨到 B=64 的 [[measured_tpot_ms_b64]];下界从 [[tpot_lb_ms_b1]] 涨到 "
                "[[tpot_lb_ms_b64]]。当前 B=[[batch|n]] 下界 [[tpot_lb_ms]]。",
            ),
        ],
    )


# ---- 搬什么 / 搬多少 / 搬几次 / 经过哪里 / 谁在等待 -----------------------------------------------------------------------

DATA_MOVEMENT = [
    ("搬什么", "模型结构决定需要哪些权重", "weight-bytes", "参数存储量 M_W = N·b_W"),
    ("搬多少", "位宽 × 参数量", "eg-1-1", "例题 1-1 · 单步生成计算器"),
    ("搬几次", "批内复用改变搬运次数", "fig-1-10", "图 1-10 · 分块读取与计算重叠"),
    ("经过哪里", "显存接口提供带宽", "gpu-cheatsheet", "GPU 资源速查表"),
    ("谁在等待", "执行依赖决定等待", "tab-three-step", "容量 / 工作量 / 依赖"),
]


@card(
    "tab-data-movement",
    title="搬什么 / 搬多少 / 搬几次 / 经过哪里 / 谁在等待",
    section="1.3",
    kind="table",
    outputs=outputs(rows=data("五个问题:question, decided_by, card")),
    lead="把一次执行拆成五个关于数据搬运的问题,每个问题由不同的因素决定。",
)
def tab_data_movement(p: Params) -> View:
    return View(
        {"rows": [{"question": a, "decided_by": b, "card": c} for a, b, c, _ in DATA_MOVEMENT]},
        tables=[
            Table(
                columns=["问题", "由什么决定", "可以在这张卡里算(点问题打开)"],
                rows=[[a, b, t] for a, b, _, t in DATA_MOVEMENT],
                links={i: c for i, (_, _, c, _) in enumerate(DATA_MOVEMENT)},
                illustrative_cells={(i, 2) for i in range(len(DATA_MOVEMENT))},
                note="第三列的对应卡片是本页的安排,书中没有给出。",
            )
        ],
    )


# ---- 练习 1-4 ----------------------------------------------------------------------------------------------

EX14 = outputs(
    throughput_ratio_b64=out("实测吞吐比 B=64", unit="×", digits=0, book="约 31×"),
    ideal_throughput_ratio_b64=out("共享读取模型预测", unit="×", digits=0),
    scaling_efficiency_pct=out(
        "扩展效率 [[throughput_ratio_b64|n]]/[[ideal_throughput_ratio_b64|n]]", sig=3, sym="扩展效率"
    ),
    tpot_growth_pct=out("TPOT 增长", sig=3),
    tpot_implied_throughput_ratio_b64=out("仅按 TPOT 推算的吞吐比", unit="×", sig=3),
    tpot_lb_ratio_b64=out("下界增长 [[tpot_lb_ms_b64|n]]/[[tpot_lb_ms_b1|n]]", unit="×", sig=3, sym="下界增长"),
    tpot_ratio_b64=out("TPOT 之比", unit="×", sig=4, tile=False),
    tpot_lb_ms_b1=out("TPOT 下界 B=1", unit="ms", digits=2, tile=False),
    tpot_lb_ms_b64=out("TPOT 下界 B=64", unit="ms", digits=2, tile=False),
    tpot_ms_b1=out("实测 TPOT B=1", unit="ms", digits=1, tile=False),
    tpot_ms_b64=out("实测 TPOT B=64", unit="ms", digits=1, tile=False),
    middle_levels_known=out("中间两档已知?", tile=False),
)


def ex14_outputs() -> dict:
    """练习 1-4: the printed measurements against the shared-read model and the TPOT lower bound."""
    (meas, levels), g = shared.measured(), gpu_of("rtx-pro-6000")
    m1, m64 = meas[1], meas[64]
    q = decode.quick_numbers(shared.model(shared.QWEN3_8B))
    lb = {
        b: name(
            decode.tpot_outputs(q, given(b, "B", "请求", source="练习 1-4 题设"), g.bw_bytes_s, g.flops)["tpot_lb_ms"],
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
        given(64, "B", "请求", source="练习 1-4 题设"),
    ) | {"middle_levels_known": len(meas) >= levels}


@card(
    "ex-1-4",
    title="用实测吞吐与输出间隔检验批处理模型",
    label="练习 1-4",
    section="1.3",
    kind="exercise",
    badges=(("图 1-13 / 1-14", "fig-1-13"),),
    outputs=EX14,
    lead="用图 1-13、1-14 的测量检验“并发只受共享权重读取限制”这个假设:预测和实测差在哪里,又该怎么测才能分清原因。",
)
def ex_1_4(p: Params) -> View:
    o = ex14_outputs()
    na = "书中未给出"
    v = View(
        o,
        headline="四档测量中书只印出 B = 1 与 B = 64,表格只能在这两档上填",
        tables=[
            Table(
                columns=[
                    "档位",
                    "B",
                    "吞吐比(实测)",
                    "TPOT (ms,实测)",
                    "TPOT 增长",
                    "共享读取模型的吞吐比",
                    "TPOT 下界 (ms)",
                ],
                rows=[
                    ["第 1 档", 1, "1", o["tpot_ms_b1"], "0%", "1", o["tpot_lb_ms_b1"]],
                    ["第 2 档", na, na, na, na, "—", "—"],
                    ["第 3 档", na, na, na, na, "—", "—"],
                    [
                        "第 4 档",
                        64,
                        "约 31",
                        o["tpot_ms_b64"],
                        "+" + shared.shown(EX14, o, "tpot_growth_pct", "d1"),
                        "64",
                        o["tpot_lb_ms_b64"],
                    ],
                ],
                formats=["", "", "", "tpot_ms_b1", "", "", "tpot_lb_ms_b1"],
                title="练习 1-4 的表(只能填两档)",
            )
        ],
        notes=shared.notes("ex-1-4"),
    )
    v.questions = shared.questions("ex-1-4", v, p)
    return v


# ---- 从 26.5 ms 到 8.62 ms 下界 ------------------------------------------------------------------------------


class GapParams(Params):
    measured_tpot_ms: float = slider(26.5, ge=8.7, le=200, step=0.1, label="实测每输出间隔 T", unit="ms")


GAP = outputs(
    measured_tpot_ms=out("实测", digits=1),
    lb_ms=out("下界 max(F/Π, R/β)", digits=2, sym="T_{step}"),
    gap_ms=out("差距", digits=2, em=True),
    ratio=out("实测 ÷ 下界[[ratio_book]]", unit="×", digits=2, sym="实测 ÷ 下界"),
    mbu_pct=out("MBU 带宽利用率", sig=3, sym="MBU"),
    mfu_pct=out("MFU 算力利用率", sig=3, sym="MFU"),
)


@card(
    "gap-analysis",
    title="从 26.5 ms 到 8.62 ms 下界:差距去哪了",
    section="1.3",
    kind="calculator",
    params=GapParams,
    badges=(("速查下界", "quick-bounds"),),
    outputs=GAP,
    lead="Qwen3-8B · batch 1 · RTX PRO 6000:先算出硬件允许的下界,再看实测差多远、差距可能来自哪里。",
)
def gap_analysis(p: GapParams) -> View:
    g = gpu_of("rtx-pro-6000")
    bw, peak = g.bw_bytes_s, g.flops
    q = decode.quick_numbers(shared.model(shared.QWEN3_8B))
    o = decode.gap_outputs(q, bw, peak, p.measured_tpot_ms, given(1, "B", "请求", source="书中条件:batch 1"))
    fig = bound_vs_measured(
        o["lb_ms"],
        p.measured_tpot_ms,
        ["下界 " + shared.shown(GAP, o, "lb_ms"), "差距 " + shared.shown(GAP, o, "gap_ms")],
        "实测 " + shared.shown(GAP, o, "measured_tpot_ms", "c"),
    )
    return View(
        o,
        headline="Qwen3-8B · batch 1 · RTX PRO 6000 · 上下文 2048",
        ctx={"ratio_book": "(书中:三倍)" if abs(p.measured_tpot_ms - 26.5) < 1e-9 else ""},
        figures=[
            Figure(
                fig,
                "实测与下界",
                "下界 [[lb_ms]],实测 [[measured_tpot_ms|c]],差 [[gap_ms]],约 [[ratio|n]] 倍。"
                "差距如何在两种来源间分配,书中没有给出,图中不拆分。",
            )
        ],
        notes=shared.notes("gap-analysis"),
    )


# ---- eager 模式下,GPU 在等 CPU 提交 -----------------------------------------------------------------------------

LAUNCH = given(3.0, "t_{launch}", "单位", source="示意值")  # host launch time per kernel
KERNEL = given(1.0, "t_{kernel}", "单位", source="示意值")  # kernel run time


class EagerParams(Params):
    kernels: int = slider(6, ge=1, le=20, step=1, label="kernel 个数 n", unit="个", illustrative=True)


EAGER = outputs(
    gpu_busy_frac=out("GPU 忙碌占比", digits=2, ill=True),
    gpu_busy_pct=out("GPU 忙碌占比(%)", digits=0, tile=False),
    gpu_busy_units=out("GPU 忙碌时间", unit="单位", tile=False),
    makespan_units=out("总时长", unit="单位", tile=False),
    timeline=data("每个 kernel 的 CPU 提交与 GPU 执行起止(任意单位)"),
    units=out("时间单位", tile=False),
)


@card(
    "eager-gpu-idle",
    title="eager 模式下,GPU 在等 CPU 提交",
    section="1.3",
    kind="animation",
    params=EagerParams,
    outputs=EAGER,
    lead="主机逐个提交 kernel,每次提交都比 kernel 本身更久:GPU 只好在两次 kernel 之间干等。按 ▶ 播放。",
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
        ("CPU 提交", [(a, b) for a, b, _, _ in tl], "Python → 驱动 → PCIe 提交", "overhead"),
        ("GPU 执行", [(c, d) for _, _, c, d in tl], "kernel", "compute"),
        ("GPU 执行", idle, "GPU 空转", "over"),
    ]
    fig = revealed_lanes(
        lanes,
        end,
        int(end) + 1 if end <= 40 else 41,
        x_title="时间(任意单位,示意)",
        order=["GPU 执行", "CPU 提交"],
        prefix="t = ",
        dim=["GPU 空转"],
    )
    return View(
        o,
        headline="[[kernels]] kernel · 提交 [[launch]] 单位 / 执行 [[kernel]] 单位(示意)",
        ctx={"launch": LAUNCH, "kernel": KERNEL},
        figures=[
            Figure(
                fig,
                "eager 模式的两条时间线",
                illustrative=True,
                animated=True,
                summary="CPU 依次提交 [[kernels]] kernel,每个 kernel 要等自己的提交结束才能开始;GPU 在 [[makespan_units|n]] "
                "个单位里只忙 [[gpu_busy_units|n]] 个,约 [[gpu_busy_pct]]。",
            )
        ],
        notes=shared.notes("eager-gpu-idle"),
    )
