"""Chapter 3 end matter (part B): 后续章节要用的负载记录, fallacy 3-4, 本章小结, 练习 3-8 … 3-10."""

from __future__ import annotations

from typing import Literal

from ...calculators import budget as bd
from ...cards import Block, Link, Params, Question, Table, View, card, choice, fixed
from ...charts.theme import color
from ...exercises import Slip
from ...outputs import out, outputs
from ...trace import given
from ...words import words_for
from ..shared import ch3_budget as cb

W = words_for(__name__)

SEC, GPU_H, NATS, TRY = "3.end", "GPU·h", "nats/token", W["module"]
CHINCHILLA = given(20, "(D/N)_{opt}", W["chinchilla.given"], W["chinchilla.given_2"])


@card(
    "tab-workload-records",
    title=W["tab_workload_records.title"],
    label="",
    section=SEC,
    kind="table",
    outputs=outputs(n_rows=out(W["tab_workload_records.n_rows"], tile=False, sym=W["tab_workload_records.sym"])),
    lead=W["tab_workload_records.lead"],
)
def tab_workload_records(p: Params) -> View:
    rows = [[r["load"], r["fields"], r["used"]] for r in cb.WORDS["records"]]
    return View(
        {"n_rows": given(len(rows), W["tab_workload_records.sym"], "", W["tab_workload_records.n_rows_2"])},
        notes=cb.notes("tab-workload-records"),
        tables=[
            Table(
                [
                    W["tab_workload_records.tables"],
                    W["tab_workload_records.tables_2"],
                    W["tab_workload_records.tables_3"],
                ],
                rows,
                links={0: "eg-3-1", 1: "fig-3-15", 2: "eg-3-4"},
                note=W["tab_workload_records.note"],
            )
        ],
    )


@card(
    "fallacy-compute-optimal",
    title=W["fallacy_compute_optimal.title"],
    label="",
    section=SEC,
    kind="table",
    aliases=("fallacy-3-4",),
    outputs=outputs(
        chinchilla_8b_btokens=out(
            W["fallacy_compute_optimal.chinchilla_8b_btokens"], unit="B token", digits=0, sym="D_{opt,8B}"
        ),
        qwen3_d_over_n=out(W["fallacy_compute_optimal.qwen3_d_over_n"], digits=0, approx=True, em=True),
        qwen3_x_chinchilla=out(
            W["fallacy_compute_optimal.qwen3_x_chinchilla"],
            unit=W["fallacy_compute_optimal.unit"],
            digits=0,
            prefix=W["fallacy_compute_optimal.prefix"],
        ),
    ),
    lead=W["fallacy_compute_optimal.lead"],
)
def fallacy_compute_optimal(p: Params) -> View:
    t = cb.llama_qwen(CHINCHILLA)
    return View(
        {
            "chinchilla_8b_btokens": t["chinchilla_8b_btokens"],
            "qwen3_d_over_n": t["row5_d_over_n"],
            "qwen3_x_chinchilla": t["row5_x_chinchilla"],
        },
        links_title=W["fallacy_compute_optimal.links_title"],
        links=[
            Link(*x)
            for x in (
                (W["fallacy_compute_optimal.links"], "/cards/tab-llama-qwen"),
                (W["fallacy_compute_optimal.links_2"], "/cards/fig-3-28"),
                (W["fallacy_compute_optimal.links_3"], "/cards/lifetime-cost"),
            )
        ],
        notes=cb.notes("fallacy-compute-optimal"),
    )


TAKEAWAYS = {t["id"]: t for t in cb.WORDS["takeaways"]}


class SummaryParams(Params):
    part: Literal["all", "backlog", "waiting", "standard"] = choice(
        "all",
        {"all": W["summaryparams.part.all"], **{k: t["title"] for k, t in TAKEAWAYS.items()}},
        label=W["summaryparams.part.label"],
    )


@card(
    "ch3-summary",
    title=W["ch3_summary.title"],
    label="",
    section=SEC,
    kind="diagram",
    params=SummaryParams,
    outputs=outputs(n_takeaways=out(W["ch3_summary.n_takeaways"], tile=False, sym=W["ch3_summary.sym"])),
    lead=W["ch3_summary.lead"],
)
def ch3_summary(p: SummaryParams) -> View:
    factors = [
        (W["ch3_summary"], "all"),
        (W["ch3_summary_2"], "backlog"),
        (W["ch3_summary_3"], "waiting"),
        (W["ch3_summary_4"], "standard"),
    ]
    return View(
        {"n_takeaways": given(len(TAKEAWAYS), W["ch3_summary.sym"], "", W["ch3_summary.n_takeaways_2"])},
        notes=cb.notes("ch3-summary"),
        blocks=[
            Block(
                "diagrams/ch3-summary.html",
                {
                    "factors": factors,
                    "selected": p.part,
                    "on": color("accent"),
                    "off": color("idle"),
                    "takeaways": list(TAKEAWAYS.values()),
                },
            )
        ],
    )


@card(
    "ex-3-8",
    title=W["ex_3_8.title"],
    label=W["ex_3_8.label"],
    section=SEC,
    kind="exercise",
    outputs=(
        EX38 := outputs(
            **{
                f"{x}_mult_{k}x": out(
                    W.f("ex_3_8.kw", k=k, upper=x.upper()),
                    unit="×",
                    digits=3,
                    tile=False,
                    sym=W.f("ex_3_8.sym", upper=x.upper()),
                )
                for k in (4, 9)
                for x in "nd"
            },
            resid_h1=out(W["ex_3_8.resid_h1"], unit=NATS, digits=4, signed=True, tile=False, sym="r_1"),
            resid_h2=out(W["ex_3_8.resid_h2"], unit=NATS, digits=4, signed=True, tile=False, sym="r_2"),
            holdout_rmse=out(W["ex_3_8.holdout_rmse"], unit=NATS, digits=4, tile=False, sym="RMSE"),
        )
    ),
    lead=W["ex_3_8.lead"],
)
def ex_3_8(p: Params) -> View:
    law = cb.LAW
    o = {
        f"{x}_mult_{k}x": bd.budget_outputs(
            given(k, "k", "", W.f("ex_3_8.given", k=k)), law.alpha, law.beta, 1e21, law.A, law.B
        )[f"{x}_mult"]
        for k in (4, 9)
        for x in "nd"
    } | {k: v for k, v in bd.holdout_outputs(law, cb.held_out()).items() if k in EX38}
    ex_fit = cb.fit_law(list(cb.EXAMPLE_FIT), True)
    ex_rmse = bd.holdout_outputs(ex_fit.law, cb.held_out())["holdout_rmse"]
    four = EX38["n_mult_4x"].fmt(o["n_mult_4x"], flags="n,c")
    return View(
        o,
        headline=W["ex_3_8.headline"],
        links_title=TRY,
        links=[
            Link(*x)
            for x in (
                (W["ex_3_8.links"], "/cards/budget-doubling?budget_mult=4"),
                (W["ex_3_8.links_2"], "/cards/budget-doubling?budget_mult=9"),
                (W["ex_3_8.links_3"], "/cards/eg-3-5"),
                (W["ex_3_8.links_4"], "/cards/eg-3-5?law=fit"),
            )
        ],
        questions=[
            Question(
                "derive_split",
                W["ex_3_8.questions"],
                kind="open",
                answer_text=W["ex_3_8.answer_text"],
            ),
            Question(
                "budget_4x",
                W["ex_3_8.questions_2"],
                kind="open",
                answer_text=W.f("ex_3_8.answer_text_2", four=four, four2=four),
            ),
            Question(
                "n_mult_9x",
                W["ex_3_8.questions_3"],
                unit="×",
                solution=[W["ex_3_8.solution"]],
            ),
            Question("d_mult_9x", W["ex_3_8.questions_4"], unit="×", solution=[W["ex_3_8.solution_2"]]),
            Question(
                "resid_h1",
                W["ex_3_8.questions_5"],
                unit=NATS,
                hint=W["ex_3_8.hint"],
                solution=[W["ex_3_8.solution_3"]],
            ),
            Question(
                "resid_h2",
                W["ex_3_8.questions_6"],
                unit=NATS,
                solution=[W["ex_3_8.solution_4"]],
            ),
            Question("holdout_rmse", W["ex_3_8.questions_7"], unit=NATS, solution=[W["ex_3_8.solution_5"]]),
            Question(
                "why_holdout",
                W["ex_3_8.questions_8"],
                kind="open",
                answer_text=W.f("ex_3_8.answer_text_3", fit_rmse=ex_fit.fit_rmse, ex_rmse=ex_rmse),
            ),
        ],
        notes=cb.notes("ex-3-8"),
    )


class Ex39Params(Params):
    data_mult: float = fixed(4, W["ex39params.data_mult.fixed"], "×", sym="k_D")
    expert_mult: float = fixed(2, W["ex39params.expert_mult.fixed"], "×", sym="k_E")


@card(
    "ex-3-9",
    title=W["ex_3_9.title"],
    label=W["ex_3_9.label"],
    section=SEC,
    kind="exercise",
    params=Ex39Params,
    outputs=(
        EX39 := outputs(
            **cb.ROW_OUT,
            train_compute_mult=out(W["ex_3_9.train_compute_mult"], unit="×", digits=3, tile=False),
            weight_capacity_mult=out(W["ex_3_9.weight_capacity_mult"], unit="×", digits=3, tile=False),
            expert_param_mult=out(W["ex_3_9.expert_param_mult"], unit="×", digits=3, tile=False),
            expert_train_flop_mult=out(W["ex_3_9.expert_train_flop_mult"], unit="×", digits=3, tile=False),
        )
    ),
    lead=W["ex_3_9.lead"],
)
def ex_3_9(p: Ex39Params) -> View:
    moe, anyway = cb.moe_dims("v4-flash"), W["ex_3_9"]
    o = {k: v for k, v in cb.llama_qwen(CHINCHILLA).items() if k in cb.ROW_OUT} | bd.data_vs_experts(
        cb.big(8e9, "N", 9, anyway), cb.big(36e12, "D", 12, anyway, " token"), p.data_mult, p.expert_mult, moe
    )
    base, doubled = (bd.moe_outputs(*moe[:3], k, moe[4], 1, 1, 1)["gflop_per_token"] for k in (moe[3], 2 * moe[3]))
    return View(
        o,
        headline=W["ex_3_9.headline"],
        links_title=TRY,
        links=[
            Link(*x)
            for x in (
                (W["ex_3_9.links"], "/cards/tab-llama-qwen"),
                (W["ex_3_9.links_2"], "/cards/moe-flops?routed=12"),
            )
        ],
        questions=[
            Question("row1_d_over_n", "(a)Llama 1 · 6.7B,1T token:D/N?"),
            Question("row2_d_over_n", W["ex_3_9.questions"], solution=[W["ex_3_9.solution"]]),
            Question("row5_d_over_n", W["ex_3_9.questions_2"]),
            Question("row1_six_nd_flop", W["ex_3_9.questions_3"], unit="FLOP"),
            Question("row5_six_nd_flop", W["ex_3_9.questions_4"], unit="FLOP"),
            Question(
                "train_compute_mult",
                W.f("ex_3_9.questions_5", data_mult=p.data_mult),
                unit="×",
                solution=[W["ex_3_9.solution_2"]],
            ),
            Question(
                "weight_capacity_mult",
                W["ex_3_9.questions_6"],
                unit="×",
                solution=[W["ex_3_9.solution_3"]],
            ),
            Question(
                "expert_capacity",
                W.f("ex_3_9.questions_7", expert_mult=p.expert_mult),
                kind="open",
                answer_text=W.f(
                    "ex_3_9.answer_text", fmt=EX39["expert_param_mult"].fmt(o["expert_param_mult"], flags="n,c")
                ),
            ),
            Question(
                "expert_train_flop_mult",
                W["ex_3_9.questions_8"],
                unit="×",
                hint=W["ex_3_9.hint"],
                slips=(Slip("total_vs_active", W["ex_3_9.slips"], p.expert_mult),),
                solution=[
                    W["ex_3_9.solution_4"],
                    W.f("ex_3_9.solution_5", base=base, doubled=doubled),
                ],
            ),
            Question(
                "both_double",
                W["ex_3_9.questions_9"],
                kind="open",
                answer_text=W["ex_3_9.answer_text_2"],
            ),
        ],
    )


class Ex310Params(Params):
    gpu_hours: float = fixed(1_022_362, W["ex310params.gpu_hours.fixed"], "GPU·h", sym="H")
    n_gpus_a: int = fixed(2048, W["ex310params.n_gpus_a.fixed"], W["ex310params.n_gpus_a.fixed_2"])
    n_gpus_b: int = fixed(1024, W["ex310params.n_gpus_b.fixed"], W["ex310params.n_gpus_a.fixed_2"])
    delta_train_gpu_h: float = fixed(100_000, W["ex310params.delta_train_gpu_h.fixed"], "H100 GPU·h", sym="ΔC_0")
    saving_gpu_s_per_task: float = fixed(0.72, W["ex310params.saving_gpu_s_per_task.fixed"], "GPU·s", sym="Δc")


@card(
    "ex-3-10",
    title=W["ex_3_10.title"],
    label=W["ex_3_10.label"],
    section=SEC,
    kind="exercise",
    params=Ex310Params,
    outputs=outputs(
        days_a=out(W["ex_3_10.days_a"], unit=W["ex_3_10.unit"], digits=2, tile=False),
        days_b=out(W["ex_3_10.days_b"], unit=W["ex_3_10.unit"], digits=2, tile=False),
        q_star_tasks=out(W["ex_3_10.q_star_tasks"], unit=W["ex_3_10.unit_2"], sci=True, sig=3, tile=False, sym="Q^*"),
        net_saving_2e8_gpu_h=out(W["ex_3_10.net_saving_2e8_gpu_h"], unit=GPU_H, digits=0, tile=False),
        net_saving_1e9_gpu_h=out(W["ex_3_10.net_saving_1e9_gpu_h"], unit=GPU_H, digits=0, tile=False),
        choose_small_2e8=out(W["ex_3_10.choose_small_2e8"], tile=False),
        choose_small_1e9=out(W["ex_3_10.choose_small_1e9"], tile=False),
        cost_gap_2e8_gpu_h=out(W["ex_3_10.cost_gap_2e8_gpu_h"], unit=GPU_H, digits=0, tile=False),
    ),
    lead=W["ex_3_10.lead"],
)
def ex_3_10(p: Ex310Params) -> View:
    l2, l9 = (
        bd.lifetime_outputs(
            p.delta_train_gpu_h, p.saving_gpu_s_per_task, cb.big(q, "Q", e, W.f("ex_3_10.big", w=w), W["ex_3_10.big_2"])
        )
        for q, e, w in ((2e8, 8, W["ex_3_10"]), (1e9, 9, W["ex_3_10_2"]))
    )
    o = {
        "days_a": bd.calendar_outputs(p.gpu_hours, p.n_gpus_a)["wall_days"],
        "days_b": bd.calendar_outputs(p.gpu_hours, p.n_gpus_b)["wall_days"],
        "q_star_tasks": l2["q_star_tasks"],
        "net_saving_2e8_gpu_h": l2["net_saving_gpu_h"],
        "net_saving_1e9_gpu_h": l9["net_saving_gpu_h"],
        "choose_small_2e8": l2["choose_small"],
        "choose_small_1e9": l9["choose_small"],
        "cost_gap_2e8_gpu_h": l2["cost_gap_gpu_h"],
    }
    yes_no = {"true": W["ex_3_10.true"], "false": W["ex_3_10.false"]}
    return View(
        o,
        headline=W["ex_3_10.headline"],
        links_title=TRY,
        links=[
            Link(*x)
            for x in (
                (W["ex_3_10.links"], "/cards/gpu-hours-calendar"),
                (W["ex_3_10.links_2"], "/cards/gpu-hours-calendar?n_gpus=1024"),
                (W["ex_3_10.links_3"], "/cards/lifetime-cost"),
                (W["ex_3_10.links_4"], "/cards/lifetime-cost?tasks=1000000000"),
            )
        ],
        questions=[
            Question(
                "days_a",
                W.f("ex_3_10.questions", gpu_hours=p.gpu_hours, n_gpus_a=p.n_gpus_a),
                unit=W["ex_3_10.unit"],
                units={W["units.hours"]: 1 / 24},
            ),
            Question(
                "days_b",
                W.f("ex_3_10.questions_2", n_gpus_b=p.n_gpus_b),
                unit=W["ex_3_10.unit"],
                units={W["units.hours"]: 1 / 24},
                solution=[W["ex_3_10.solution"]],
            ),
            Question(
                "q_star_tasks",
                W["ex_3_10.questions_3"],
                unit=W["ex_3_10.unit_2"],
                hint=W["ex_3_10.hint"],
            ),
            Question(
                "net_saving_2e8_gpu_h",
                W["ex_3_10.questions_4"],
                unit="GPU·h",
                hint=W["ex_3_10.hint_2"],
            ),
            Question(
                "choose_small_2e8",
                W["ex_3_10.questions_5"],
                kind="bool",
                options=yes_no,
                solution=[W["ex_3_10.solution_2"]],
            ),
            Question("net_saving_1e9_gpu_h", W["ex_3_10.questions_6"], unit="GPU·h"),
            Question(
                "choose_small_1e9",
                W["ex_3_10.questions_7"],
                kind="bool",
                options=yes_no,
                solution=[W["ex_3_10.solution_3"]],
            ),
        ],
        notes=cb.notes("ex-3-10"),
    )
