"""Section 3.6 从负载需求到训练与服务预算: budget split, 例题 3-5 hold-out check, 图 3-28 intercept vs slope,
lifetime cost, Llama→Qwen tokens per parameter, MoE FLOPs, 图 3-30 A100-equivalent GPU-hours, calendar time."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from ...calculators import budget as bd
from ...calculators import lifetime as lt
from ...calculators import scaling_law as sl
from ...cards import Block, Figure, Params, Table, View, card, choice, slider, toggle
from ...charts import budget as charts
from ...data import gpu
from ...format import compact, decimals, num, sci
from ...outputs import out, outputs
from ...params_domain import gpu_choice, gpu_of, gpu_type
from ...trace import given
from ...words import localize, words_for
from ..shared import ch3_budget as cb

W = words_for(__name__)

NATS, GPU_H, GPU_S, LAW, R = "nats/token", "GPU·h", "GPU·s", cb.LAW, sl.RECONSTRUCTED


class BudgetParams(Params):
    budget_mult: float = slider(2, ge=1, le=16, step=0.5, label=W["budgetparams.budget_mult.label"], unit="×")
    alpha: float = slider(R.alpha, ge=0.05, le=1, step=0.01, label=W["budgetparams.alpha.label"], illustrative=True)
    beta: float = slider(R.beta, ge=0.05, le=1, step=0.01, label=W["budgetparams.beta.label"], illustrative=True)
    budget_flop: float = slider(
        1e21,
        ge=1e18,
        le=1e25,
        step=1e18,
        label=W["budgetparams.budget_flop.label"],
        unit="FLOP",
        log=True,
        illustrative=True,
    )


@card(
    "budget-doubling",
    title=W["budget_doubling.title"],
    label="",
    section="3.6",
    kind="calculator",
    params=BudgetParams,
    badges=((W["budget_doubling.badges"], "ex-3-8"),),
    outputs=outputs(
        n_mult=out(W["budget_doubling.n_mult"], unit="×", digits=3, em=True, sym=W["budget_doubling.sym"]),
        d_mult=out(W["budget_doubling.d_mult"], unit="×", digits=3, em=True, sym=W["budget_doubling.sym_2"]),
        n_exponent=out(W["budget_doubling.n_exponent"], digits=3),
        d_exponent=out(W["budget_doubling.d_exponent"], digits=3),
        n_opt_params=out(
            W["budget_doubling.n_opt_params"], unit=W["budget_doubling.unit"], sci=True, ill=True, sym="N_{opt}"
        ),
        d_opt_tokens=out(W["budget_doubling.d_opt_tokens"], unit="token", sci=True, ill=True, sym="D_{opt}"),
        n_opt_params_after=out(
            W["budget_doubling.n_opt_params_after"], unit=W["budget_doubling.unit"], sci=True, ill=True, sym="N'_{opt}"
        ),
        d_opt_tokens_after=out(
            W["budget_doubling.d_opt_tokens_after"], unit="token", sci=True, tile=False, sym="D'_{opt}"
        ),
    ),
    lead=W["budget_doubling.lead"],
)
def budget_doubling(p: BudgetParams) -> View:
    o = bd.budget_outputs(p.budget_mult, p.alpha, p.beta, p.budget_flop, LAW.A, LAW.B)
    fig = charts.split_figure(LAW, p.alpha, p.beta, p.budget_flop, p.budget_mult, o)
    return View(
        o,
        headline=W["budget_doubling.headline"],
        notes=cb.notes("budget-doubling"),
        ctx={"c0": sci(p.budget_flop, 3), "c1": sci(p.budget_flop * p.budget_mult, 3)},
        figures=[
            Figure(
                fig,
                *cb.FIGURES["budget-doubling"],
                illustrative=True,
                draws=frozenset({"d_opt_tokens", "n_opt_params", "n_opt_params_after"}),
            )
        ],
    )


class HoldoutParams(Params):
    law: Literal["book", "fit"] = choice(
        "book",
        {"book": W["holdoutparams.law.book"], "fit": W["holdoutparams.law.fit"]},
        label=W["holdoutparams.law.label"],
    )
    fit_runs: list[str] = Field(
        list(cb.EXAMPLE_FIT),
        min_length=5,
        max_length=24,
        description=W["holdoutparams.fit_runs.description"],
        json_schema_extra={
            "control": "list",
            "step": None,
            "unit": "",
            "label": W["holdoutparams.fit_runs.label"],
            "item_ge": None,
            "item_le": None,
            "illustrative": False,
            "items": {"type": "string", "enum": [*sorted(cb.RUNS)]},
            "uniqueItems": True,
        },
    )
    tied: bool = toggle(True, label=W["holdoutparams.tied.label"])

    @field_validator("fit_runs")
    @classmethod
    def _known(cls, v: list[str]) -> list[str]:
        if unknown := next((x for x in v if x not in cb.RUNS), None):
            raise ValueError(W.f("holdoutparams.known.valueerror", v=unknown[:40]))
        if len(set(v)) != len(v):
            raise ValueError(W["holdoutparams.known.valueerror_2"])
        return v


N3, D_B, L3, L4 = out(sci=True, sig=3), out(unit="B", scale=1e9, trim=True), out(digits=3), out(digits=4)

POOL = [
    {
        "run": r.run,
        "n": N3.fmt(r.params),
        "d": D_B.fmt(r.tokens),
        "loss": L3.fmt(r.loss, unit=False),
    }  # picker: C4 runs < 2×10⁹
    for r in sorted(cb.RUNS.values(), key=lambda r: (r.params, r.tokens))
    if r.epochs == 1 and not r.seed and r.params < 2e9
]


def _holdout_table(fit: sl.FitResult | None, fitted: list[sl.Run], held: list[sl.Run], o: dict) -> Table:
    rows = (
        [
            [r.run, W["holdout_table"], r.params, r.tokens, r.loss, sl.loss(fit.law, r.params, r.tokens), e]
            for r, e in zip(fitted, fit.residuals)
        ]
        if fit
        else []
    )
    rows += [
        [r.run, W.f("holdout_table_2", j=j), r.params, r.tokens, r.loss, o[f"pred_h{j}"], o[f"resid_h{j}"]]
        for j, r in enumerate(held, 1)
    ]
    return Table(
        [
            "run",
            W["holdout_table.table"],
            "N",
            "D",
            W["holdout_table.table_2"],
            W["holdout_table.table_3"],
            W["holdout_table.table_4"],
        ],
        rows,
        formats=["", "", N3, D_B, L4, L4, out(digits=4, signed=True)],
        title=W["holdout_table.title"] if fit else W["holdout_table.title_2"],
        illustrative_cells=set() if fit else {(len(rows) - k, c) for k in (1, 2) for c in (5, 6)},
    )


@card(
    "eg-3-5",
    title=W["eg_3_5.title"],
    label=W["eg_3_5.label"],
    section="3.6",
    kind="chart",
    params=HoldoutParams,
    outputs=outputs(
        obs_h1=out(W["eg_3_5.obs_h1"], unit=NATS, digits=3),
        obs_h2=out(W["eg_3_5.obs_h2"], unit=NATS, digits=3),
        pred_h1=out(W["eg_3_5.pred_h1"], unit=NATS, digits=3, ill="book"),
        pred_h2=out(W["eg_3_5.pred_h2"], unit=NATS, digits=3, ill="book"),
        **{f"resid_h{i}": out(W.f("eg_3_5.kw", i=i), digits=3, signed=True, ill="book") for i in (1, 2)},
        holdout_rmse=out(W["eg_3_5.holdout_rmse"], unit=NATS, digits=4, approx="book", em=True, ill="book", sym="RMSE"),
        fit_rmse=out(W["eg_3_5.fit_rmse"], unit=NATS, digits=4, em=True, tile="fit", sym="RMSE_{fit}"),
        n_fit_runs=out(W["eg_3_5.n_fit_runs"], tile=False, sym="n"),
        **{
            k: out(s, sig=6, stated=True, ill="book", sym=s)
            for k, s in zip(("E", "A", "B", "alpha", "beta"), sl.LAW_SYMBOLS)
        },
    ),
    lead=W["eg_3_5.lead"],
)
def eg_3_5(p: HoldoutParams) -> View:
    fit = cb.fit_law(p.fit_runs, p.tied) if p.law == "fit" else None
    law, held, pool = (fit.law if fit else LAW), cb.held_out(), cb.RUNS
    o = bd.holdout_outputs(law, held) | {
        "fit_rmse": fit.fit_rmse if fit else None,
        "n_fit_runs": given(
            len(p.fit_runs) if fit else 6, "n", "", W["eg_3_5.n_fit_runs_2"] if fit else W["eg_3_5.n_fit_runs_3"]
        ),
    }
    fitted = [pool[x] for x in p.fit_runs] if fit else []
    context = [r for r in pool.values() if r.epochs == 1 and not r.seed and r.run not in cb.HOLDOUTS]
    leak = localize(W["eg_3_5"]).join(x for x in p.fit_runs if x in cb.HOLDOUTS or x in cb.SEED_RUNS) if fit else ""
    label = W["eg_3_5_2"] if not fit else (W["eg_3_5_3"] if p.tied else W["eg_3_5_4"])
    picker = {
        "pool": POOL,
        "sel": list(p.fit_runs),
        "tied": p.tied,
        "fit_mode": bool(fit),
        "example": list(cb.EXAMPLE_FIT),
    }
    return View(
        o,
        headline=W["eg_3_5.headline"],
        ctx={"book": not fit, "fit": bool(fit), "law_label": label, "leak": leak},
        figures=[
            Figure(
                charts.holdout_figure(context, law, held, [o["pred_h1"], o["pred_h2"]], fitted),
                *cb.FIGURES["eg-3-5"],
                illustrative=not fit,
                draws=frozenset({"obs_h1", "obs_h2", "pred_h1", "pred_h2"}),
            ),
            Figure(
                charts.seed_strip([pool[x] for x in cb.SEED_RUNS], pool[cb.HOLDOUTS[0]], o["pred_h1"]),
                *cb.FIGURES[seed_words(o["resid_h1"], [pool[x] for x in (*cb.SEED_RUNS, cb.HOLDOUTS[0])])],
                draws=frozenset({"obs_h1", "pred_h1"}),
            ),
        ],
        tables=[_holdout_table(fit, fitted, held, o)],
        blocks=[Block("diagrams/eg-3-5.html", picker)],
        notes=cb.notes("eg-3-5", "eg-3-5.fit" if fit else "eg-3-5.book", "eg-3-5.leak" if leak else "", "eg-3-5.end"),
    )


def seed_words(resid: float, reruns: list) -> str:
    """Which words the seed strip's summary uses: H1's error beside the spread of the same configuration
    under other seeds (the held-out run among them) — of one order (within 3×), far above, or far below."""
    spread = max(r.loss for r in reruns) - min(r.loss for r in reruns)
    ratio = abs(resid) / spread
    return "eg-3-5.seeds.far" if ratio > 3 else "eg-3-5.seeds.near" if ratio < 1 / 3 else "eg-3-5.seeds"


GPU_IDS = {"h100-sxm": "h100-sxm", "a100-sxm": "a100-80gb-sxm"}
GPU_NAMES = {"h100-sxm": "H100 SXM", "h800": "H800", "a100-sxm": "A100 SXM"}


def peak_tflops(gid: str) -> float:
    """BF16 dense peak Π (TFLOP/s) of a preset or a reader's own card; H800 as the book states it."""
    if gid == "h800":
        return given(cb.BUDGETS["h800_bf16_tflops"], "Π", "TFLOP/s", W["peak_tflops.given"])
    return gpu_of(GPU_IDS.get(gid, gid)).bf16_tflops or 0.0  # every choice here has a BF16 peak


class InterceptParams(Params):
    target_loss: float = slider(
        2.9, ge=2.5, le=3.5, step=0.01, label=W["interceptparams.target_loss.label"], unit="nats/token", sym="L^*"
    )
    prompt_tokens: int = slider(
        512, ge=1, le=8192, step=1, label=W["interceptparams.prompt_tokens.label"], unit="token", log=True
    )
    gen_tokens: int = slider(
        128, ge=1, le=4096, step=1, label=W["interceptparams.gen_tokens.label"], unit="token", log=True
    )
    gpu: gpu_type(["h100-sxm", "a100-sxm"]) = gpu_choice(  # type: ignore[valid-type]
        "h100-sxm",
        {"h100-sxm": "H100 SXM(989.4 TFLOP/s)", "a100-sxm": "A100 SXM(312 TFLOP/s)"},
        label=W["interceptparams.gpu.label"],
    )
    mfu_pct: float = slider(40, ge=5, le=100, step=1, label="MFU", unit="%")
    n_small: float = slider(
        1e8,
        ge=5e7,
        le=3e9,
        step=1e7,
        label=W["interceptparams.n_small.label"],
        unit=W["budget_doubling.unit"],
        log=True,
        sym="N_{small}",
    )
    n_large: float = slider(
        5e8,
        ge=5e7,
        le=3e9,
        step=1e7,
        label=W["interceptparams.n_large.label"],
        unit=W["budget_doubling.unit"],
        log=True,
        sym="N_{large}",
    )


@card(
    "fig-3-28",
    title=W["fig_3_28.title"],
    label=W["fig_3_28.label"],
    section="3.6",
    kind="chart",
    params=InterceptParams,
    outputs=outputs(
        sustained_tflops=out(W["fig_3_28.sustained_tflops"], digits=2, sym="R"),
        d_small_btokens=out(W["fig_3_28.d_small_btokens"], unit="B", digits=1, approx=True, ill=True, sym="D_{small}"),
        d_large_btokens=out(W["fig_3_28.d_large_btokens"], unit="B", digits=2, ill=True, sym="D_{large}"),
        train_gpu_h_small=out(W["fig_3_28.train_gpu_h_small"], unit=GPU_H, digits=1, approx=True, ill=True),
        train_gpu_h_large=out(W["fig_3_28.train_gpu_h_large"], unit=GPU_H, digits=2, ill=True),
        delta_train_gpu_h=out(W["fig_3_28.delta_train_gpu_h"], unit=GPU_H, digits=1, ill=True, em=True),
        call_gpu_s_small=out(W["fig_3_28.call_gpu_s_small"], unit=GPU_S, sig=3),
        call_gpu_s_large=out(W["fig_3_28.call_gpu_s_large"], unit=GPU_S, sig=4),
        saving_gpu_s_per_call=out(W["fig_3_28.saving_gpu_s_per_call"], unit=GPU_S, sig=3, approx=True, em=True),
        q_star_calls=out(
            W["fig_3_28.q_star_calls"],
            unit=W["fig_3_28.unit"],
            sci=True,
            none=W["fig_3_28.none"],
            ill=True,
            em=True,
            sym="Q^*",
        ),
        beyond_chinchilla_models=out(W["fig_3_28.beyond_chinchilla_models"], tile=False),
        beyond_chinchilla_max_tokens_per_param=out(
            W["fig_3_28.beyond_chinchilla_max_tokens_per_param"], unit="token", tile=False
        ),
        extrapolation_from_btokens=out(W["fig_3_28.extrapolation_from_btokens"], unit="B", tile=False),
    ),
    lead=W["fig_3_28.lead"],
)
def fig_3_28(p: InterceptParams) -> View:
    o = bd.intercept_outputs(
        LAW, peak_tflops(p.gpu) * 1e12, p.mfu_pct, p.n_small, p.n_large, p.target_loss, p.prompt_tokens, p.gen_tokens
    )
    bc, src = cb.BUDGETS["beyond_chinchilla"], W["fig_3_28"]
    o |= {
        "beyond_chinchilla_models": given(bc["models"], W["fig_3_28.beyond_chinchilla_models_2"], "", src),
        "beyond_chinchilla_max_tokens_per_param": given(bc["max_tokens_per_param"], "D/N", "token", src),
        "extrapolation_from_btokens": given(178, "D_{max}", "×10⁹ token", W["fig_3_28.extrapolation_from_btokens_2"]),
    }
    ok = o["train_gpu_h_small"] is not None and o["train_gpu_h_large"] is not None
    figs = (
        [
            Figure(
                charts.intercept_figure(o, p.n_small, p.n_large),
                *cb.FIGURES["fig-3-28" if o["q_star_calls"] else "fig-3-28.apart"],
                illustrative=True,
                draws=frozenset({"q_star_calls", "train_gpu_h_large", "train_gpu_h_small"}),
            )
        ]
        if ok
        else []
    )
    iso = charts.iso_loss_figure(
        LAW,
        p.target_loss,
        [(p.n_small, o["d_small_btokens"]), (p.n_large, o["d_large_btokens"])],
        o["extrapolation_from_btokens"],
    )
    figs.append(
        Figure(
            iso,
            W.f("fig_3_28.figure", target_loss=p.target_loss),
            cb.FIGURES["fig-3-28.iso"][1],
            illustrative=True,
            draws=frozenset({"d_large_btokens", "d_small_btokens"}),
        )
    )
    return View(
        o,
        figures=figs,
        notes=cb.notes("" if ok else "fig-3-28.unreachable", "fig-3-28"),
        headline=W["fig_3_28.headline"],
        ctx={
            "gpu_name": GPU_NAMES.get(p.gpu, W["fig_3_28.gpu_name"]),
            "n_small_sci": sci(p.n_small, 2),
            "n_large_sci": sci(p.n_large, 2),
        },
    )


class LifetimeParams(Params):
    delta_train_gpu_h: float = slider(
        100_000,
        ge=0,
        le=1e6,
        step=1000,
        label=W["lifetimeparams.delta_train_gpu_h.label"],
        unit="H100 GPU·h",
        sym="ΔC_0",
    )
    saving_gpu_s_per_task: float = slider(
        0.72, ge=0.01, le=10, step=0.01, label=W["lifetimeparams.saving_gpu_s_per_task.label"], unit=GPU_S, sym="Δc"
    )
    tasks: float = slider(
        2e8,
        ge=1e6,
        le=1e11,
        step=1e6,
        label=W["lifetimeparams.tasks.label"],
        unit=W["lifetimeparams.tasks.unit"],
        log=True,
    )


@card(
    "lifetime-cost",
    title=W["lifetime_cost.title"],
    label="",
    section="3.6",
    kind="calculator",
    params=LifetimeParams,
    badges=((W["lifetime_cost.badges"], "ex-3-10"),),
    outputs=outputs(
        q_star_tasks=out(
            W["lifetime_cost.q_star_tasks"], unit=W["lifetimeparams.tasks.unit"], sci=True, sig=3, em=True, sym="Q^*"
        ),
        serving_saved_gpu_h=out(W["lifetime_cost.serving_saved_gpu_h"], unit=GPU_H, digits=0),
        net_saving_gpu_h=out(W["lifetime_cost.net_saving_gpu_h"], unit=GPU_H, digits=0, em=True),
        choose_small=out(
            W["lifetime_cost.choose_small"], text={True: W["lifetime_cost.t"], False: W["lifetime_cost.t_2"]}
        ),
        cost_gap_gpu_h=out(W["lifetime_cost.cost_gap_gpu_h"], unit=GPU_H, digits=0),
    ),
    lead=W["lifetime_cost.lead"],
)
def lifetime_cost(p: LifetimeParams) -> View:
    o = bd.lifetime_outputs(p.delta_train_gpu_h, p.saving_gpu_s_per_task, p.tasks)
    fig = charts.lifetime_figure(p.delta_train_gpu_h, p.saving_gpu_s_per_task, p.tasks, o["q_star_tasks"])
    return View(
        o,
        headline=W["lifetime_cost.headline"],
        ctx={"tasks_sci": sci(p.tasks, 3)},
        figures=[
            Figure(
                fig,
                *cb.FIGURES["lifetime-cost"],
                draws=frozenset({"cost_gap_gpu_h", "net_saving_gpu_h", "q_star_tasks", "serving_saved_gpu_h"}),
            )
        ],
        notes=cb.notes("lifetime-cost"),
    )


class LlamaQwenParams(Params):
    chinchilla_tokens_per_param: float = slider(
        20,
        ge=20,
        le=20,
        step=1,
        label=W["llamaqwenparams.chinchilla_tokens_per_param.label"],
        unit=W["llamaqwenparams.chinchilla_tokens_per_param.unit"],
        sym="(D/N)_{opt}",
    )


LLAMA_OUT = outputs(
    chinchilla_8b_btokens=out(W["llama_out.chinchilla_8b_btokens"], unit="B", digits=0, sym="D_{opt,8B}"),
    row5_d_over_n=out(W["llama_out.row5_d_over_n"], digits=0, approx=True, em=True),
    mmlu_gap_pts=out("MMLU:Llama 2 70B − Llama 3 8B", unit=W["llama_out.unit"], digits=1),
    triviaqa_gap_pts=out(W["llama_out.triviaqa_gap_pts"], unit=W["llama_out.unit"], digits=1),
    **{k: d for k, d in cb.ROW_OUT.items() if k != "row5_d_over_n"},
    **{k: out(label, unit=W["llama_out.unit"], digits=1, tile=False) for k, (_, label) in cb.QUALITY.items()},
)


def _model_name(m: dict) -> str:
    """A model's row name from the budget data (``Llama 2 · 约 7B``, tag ``系列披露``) as words of this
    catalogue, so the English edition writes ``~`` and the tag in English."""
    approx = W["tab_llama_qwen"]
    name, sep, size = m["name"].partition(approx)
    named = W.f("tab_llama_qwen.model", name=name, approx=approx if sep else "", size=size)
    if not m["tag"]:
        return named
    tag = W["tab_llama_qwen.tag"] if m["tag"] == W["tab_llama_qwen.tag"] else m["tag"]
    return W.f("tab_llama_qwen.tagged", name=named, tag=tag)


@card(
    "tab-llama-qwen",
    title=W["tab_llama_qwen.title"],
    label="",
    section="3.6",
    kind="table",
    params=LlamaQwenParams,
    outputs=LLAMA_OUT,
    lead=W["tab_llama_qwen.lead"],
)
def tab_llama_qwen(p: LlamaQwenParams) -> View:
    o, models, approx = (
        cb.llama_qwen(p.chinchilla_tokens_per_param),
        cb.BUDGETS["open_models"],
        ("", "", W["tab_llama_qwen"], W["tab_llama_qwen"], W["tab_llama_qwen"]),
    )

    def cell(key: str, flags: str = "n") -> str:
        return LLAMA_OUT[key].fmt(o[key], flags=flags)

    rows = [
        [
            _model_name(m),
            W.f("tab_llama_qwen.approx", a=a, v=f"{compact(m['tokens'] / 1e12)}T"),
            W.f("tab_llama_qwen.approx", a=a, v=cell(f"row{i}_d_over_n")),
            W.f("tab_llama_qwen.approx", a=a, v=cell(f"row{i}_six_nd_flop")),
            cell(f"row{i}_x_chinchilla", "u"),
        ]
        for i, (m, a) in enumerate(zip(models, approx), 1)
    ]
    dn = [f"row{i}_d_over_n" for i in range(1, 6)]
    fig = charts.tokens_per_param_figure(
        cb.SHORT, [o[k] for k in dn], [cell(k) for k in dn], p.chinchilla_tokens_per_param
    )
    return View(
        o,
        headline=W["tab_llama_qwen.headline"],
        tables=[
            Table(
                [
                    W["tab_llama_qwen.tables"],
                    W["tab_llama_qwen.tables_2"],
                    "D/N",
                    "6ND (FLOPs)",
                    f"× Chinchilla({compact(p.chinchilla_tokens_per_param)})",
                ],
                rows,
                title=W["tab_llama_qwen.title_2"],
                keys={
                    (i - 1, c): frozenset({f"row{i}_{k}"})
                    for i in range(1, len(rows) + 1)
                    for c, k in ((2, "d_over_n"), (3, "six_nd_flop"), (4, "x_chinchilla"))
                },
            )
        ],
        figures=[Figure(fig, *cb.FIGURES["tab-llama-qwen"], draws=frozenset({"mmlu_gap_pts", "row5_d_over_n"}))],
        notes=cb.notes("tab-llama-qwen"),
    )


class MoeParams(Params):
    model: Literal["v4-flash", "v4-pro"] = choice(
        "v4-flash", {k: cb.BUDGETS["moe"][k]["name"] for k in ("v4-flash", "v4-pro")}, label=W["moeparams.model.label"]
    )
    moe_layers: int | None = slider(
        None,
        ge=1,
        le=128,
        step=1,
        label=W["moeparams.moe_layers.label"],
        placeholder=W["moeparams.moe_layers.placeholder"],
    )
    hidden: int | None = slider(
        None,
        ge=1024,
        le=16384,
        step=1,
        label=W["moeparams.hidden.label"],
        placeholder=W["moeparams.moe_layers.placeholder"],
    )
    expert_ffn: int | None = slider(
        None,
        ge=256,
        le=8192,
        step=1,
        label=W["moeparams.expert_ffn.label"],
        placeholder=W["moeparams.moe_layers.placeholder"],
    )
    routed: int = slider(
        6, ge=1, le=16, step=1, label=W["moeparams.routed.label"], unit=W["moeparams.routed.unit"], sym="k_{routed}"
    )
    shared: int = slider(
        1, ge=0, le=4, step=1, label=W["moeparams.shared.label"], unit=W["moeparams.routed.unit"], sym="k_{shared}"
    )
    tokens: float | None = slider(
        None,
        ge=1e12,
        le=1e14,
        step=1e11,
        label=W["tab_llama_qwen.tables_2"],
        unit="token",
        log=True,
        placeholder=W["moeparams.moe_layers.placeholder"],
        sym="D",
    )


MOE_ROWS = ("deepseek-v3", "v4-flash", "v4-pro")  # the book's MoE table (budget.toml ``moe.rows``), in order


@card(
    "moe-flops",
    title=W["moe_flops.title"],
    label="",
    section="3.6",
    kind="calculator",
    params=MoeParams,
    outputs=outputs(
        gflop_per_token=out(
            W["moe_flops.gflop_per_token"],
            unit="GFLOPs/token",
            digits=4,
            approx=True,
            em=True,
        ),
        total_flop=out(W["moe_flops.total_flop"], unit="FLOPs", sci=True, sig=6, approx=True, em=True, sym="F_{total}"),
        total_params=out(W["moe_flops.total_params"], unit="B", scale=1e9, digits=0),
        active_params=out(W["moe_flops.active_params"], unit="B", scale=1e9, digits=0, approx=True),
        train_tokens=out(W["tab_llama_qwen.tables_2"], unit="T", scale=1e12, trim=True),
        active_frac_pct=out(W["moe_flops.active_frac_pct"], digits=1),
    ),
    lead=W["moe_flops.lead"],
)
def moe_flops(p: MoeParams) -> View:
    presets, (n_l, h, f, _, _) = cb.BUDGETS["moe"], cb.moe_dims(p.model)
    m, n_l, h, f = presets[p.model], p.moe_layers or n_l, p.hidden or h, p.expert_ffn or f
    o = bd.moe_outputs(
        n_l,
        h,
        f,
        p.routed,
        p.shared,
        p.tokens or cb.big(m["tokens"], "D", 12, cb.BOOK, " token"),
        cb.big(m["total_params"], "N_{total}", 9, cb.BOOK),
        cb.big(m["active_params"], "N_{active}", 9, cb.BOOK),
    )
    fig = charts.moe_params_figure([presets[k] for k in MOE_ROWS])
    table = Table(
        [
            W["tab_llama_qwen.tables"],
            W["moe_flops.total_params"],
            W["moe_flops.active_params"],
            W["moe_flops.table"],
            W["moe_flops.table_2"],
        ],
        cb.WORDS["moe"]["rows"],
        title=W["moe_flops.title_2"],
        # the chosen model's row prints the book's values of its outputs
        keys={
            (MOE_ROWS.index(p.model), c): frozenset({k})
            for c, k in enumerate(("total_params", "active_params", "train_tokens", "gflop_per_token"), 1)
        },
    )
    return View(
        o,
        headline=W["moe_flops.headline"],
        ctx={
            "model_name": m["name"],
            "dims": f"{n_l}·{h}·{f}",
            "preset_dims": f"{m['moe_layers']}·{m['hidden']}·{m['expert_ffn']}",
        },
        figures=[
            Figure(fig, *cb.FIGURES["moe-flops"], draws=frozenset({"active_params", "total_params", "train_tokens"}))
        ],
        tables=[table],
        notes=cb.notes("moe-flops"),
    )


class A100Params(Params):
    gpu_hours: float = slider(
        1, ge=1, le=1e9, step=1, label=W["a100params.gpu_hours.label"], unit="GPU·h", log=True, sym="H"
    )
    gpu: gpu_type(["h100-sxm", "h800", "a100-sxm"]) = gpu_choice("h100-sxm", GPU_NAMES, label=W["a100params.gpu.label"])  # type: ignore[valid-type]


# a report's scope in the data (budget JSON, written in Chinese) as a word of this catalogue, so the
# English edition says it in English
SCOPES = {str(w): w for w in (W["scope.pretrain"], W["scope.pretrain_only"], W["scope.model_card"])}


@card(
    "fig-3-30",
    title=W["fig_3_30.title"],
    label=W["fig_3_30.label"],
    section="3.6",
    kind="chart",
    params=A100Params,
    outputs=outputs(
        a100_equiv_ratio=out(
            W["fig_3_30.a100_equiv_ratio"], unit="×", digits=2, approx=True, em=True, sym=W["fig_3_30.sym"]
        ),
        a100_equiv_gpu_h=out(W["fig_3_30.a100_equiv_gpu_h"], unit="A100 GPU·h", sig=4, sym="H_{A100}"),
        qwen3_rl_gpu_h=out(W["fig_3_30.qwen3_rl_gpu_h"], unit=GPU_H, digits=0),
        qwen3_opd_gpu_h=out(W["fig_3_30.qwen3_opd_gpu_h"], unit=GPU_H, digits=0),
        qwen3_rl_over_opd=out("RL ÷ OPD", unit="×", digits=2),
    ),
    lead=W["fig_3_30.lead"],
)
def fig_3_30(p: A100Params) -> View:
    b, a100, qsrc = cb.BUDGETS, gpu("a100-80gb-sxm"), W["fig_3_30"]
    a100_peak = given(a100.bf16_tflops, "Π_{A100}", "TFLOP/s", W.f("fig_3_30.given", name=a100.name))
    q = {k: given(v, f"H_{{{k.upper()}}}", GPU_H, qsrc) for k, v in b["qwen3_post_training_gpu_h"].items()}
    o = bd.a100_outputs(p.gpu_hours, peak_tflops(p.gpu), a100_peak, q["rl"], q["opd"])
    reports = [r | {"scope": SCOPES.get(r["scope"], r["scope"])} for r in b["gpu_hours_reports"]]
    eq = [lt.a100_equivalent(r["gpu_hours"], peak_tflops(r["gpu"]), a100_peak) for r in reports]
    fig, summary = charts.a100_figure(
        reports, eq, GPU_NAMES, {"a100-sxm": "state", "h100-sxm": "decode", "h800": "prefill"}
    )
    return View(
        o,
        # on an H100/H800 the ratio is the card's own output (a slot of it, held with it)
        headline=W["fig_3_30.headline"] if p.gpu == "a100-sxm" else W["fig_3_30.headline_h100"],
        notes=cb.notes("fig-3-30"),
        ctx={
            "gpu_name": GPU_NAMES.get(p.gpu, W["fig_3_28.gpu_name"]),
            "h100_ratio": decimals(peak_tflops("h100-sxm") / a100_peak, 2),
        },
        figures=[Figure(fig, W["fig_3_30.figures"], summary, draws=frozenset())],
        tables=[
            Table(
                [
                    W["tab_llama_qwen.tables"],
                    W["a100params.gpu.label"],
                    W["a100params.gpu_hours.label"],
                    W["fig_3_30.tables"],
                    W["fig_3_30.tables_2"],
                ],
                title=W["fig_3_30.title_2"],
                rows=[[r["model"], GPU_NAMES[r["gpu"]], num(r["gpu_hours"]), r["scope"], r["source"]] for r in reports],
            )
        ],
    )


class CalendarParams(Params):
    gpu_hours: float = slider(
        1_022_362, ge=1e3, le=1e8, step=1, label=W["calendarparams.gpu_hours.label"], unit="GPU·h", log=True, sym="H"
    )
    n_gpus: int = slider(
        2048,
        ge=1,
        le=32768,
        step=1,
        label=W["calendarparams.n_gpus.label"],
        unit=W["calendarparams.n_gpus.unit"],
        log=True,
        sym="n",
    )


@card(
    "gpu-hours-calendar",
    title=W["gpu_hours_calendar.title"],
    label="",
    section="3.6",
    kind="calculator",
    params=CalendarParams,
    badges=((W["gpu_hours_calendar.badges"], "ex-3-10"),),
    outputs=outputs(
        wall_h=out(W["gpu_hours_calendar.wall_h"], unit=W["gpu_hours_calendar.unit"], digits=1),
        wall_days=out(
            W["gpu_hours_calendar.wall_h"], unit=W["gpu_hours_calendar.unit_2"], digits=2, em=True, sym="T_{days}"
        ),
        wall_weeks=out(
            W["gpu_hours_calendar.wall_weeks"], unit=W["gpu_hours_calendar.unit_3"], digits=1, sym="T_{weeks}"
        ),
    ),
    lead=W["gpu_hours_calendar.lead"],
)
def gpu_hours_calendar(p: CalendarParams) -> View:
    return View(
        bd.calendar_outputs(p.gpu_hours, p.n_gpus),
        headline=W["gpu_hours_calendar.headline"],
        notes=cb.notes("gpu-hours-calendar"),
    )
