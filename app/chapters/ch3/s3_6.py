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
from ...format import sci
from ...outputs import out, outputs
from ...params_domain import gpu_choice, gpu_of, gpu_type
from ...trace import given
from ..shared import ch3_budget as cb

NATS, GPU_H, GPU_S, LAW, R = "nats/token", "GPU·h", "GPU·s", cb.LAW, sl.RECONSTRUCTED


class BudgetParams(Params):
    budget_mult: float = slider(2, ge=1, le=16, step=0.5, label="预算倍数 k(新预算 ÷ 原预算)", unit="×")
    alpha: float = slider(R.alpha, ge=0.05, le=1, step=0.01, label="α(参数项指数)", illustrative=True)
    beta: float = slider(R.beta, ge=0.05, le=1, step=0.01, label="β(数据项指数)", illustrative=True)
    budget_flop: float = slider(
        1e21, ge=1e18, le=1e25, step=1e18, label="原预算 C", unit="FLOP", log=True, illustrative=True
    )


@card(
    "budget-doubling",
    title="预算翻倍,新增计算分给谁",
    label="",
    section="3.6",
    kind="calculator",
    params=BudgetParams,
    badges=(("练习 3-8", "ex-3-8"),),
    outputs=outputs(
        n_mult=out("N_opt 增长 $k^{\\beta/(\\alpha+\\beta)}$", unit="×", digits=3, em=True, sym="N_{opt} 增长"),
        d_mult=out("D_opt 增长 $k^{\\alpha/(\\alpha+\\beta)}$", unit="×", digits=3, em=True, sym="D_{opt} 增长"),
        n_exponent=out("参数指数 β/(α+β)", digits=3),
        d_exponent=out("数据指数 α/(α+β)", digits=3),
        n_opt_params=out("原预算下 N_opt", unit="参数", sci=True, ill=True, sym="N_{opt}"),
        d_opt_tokens=out("原预算下 D_opt", unit="token", sci=True, ill=True, sym="D_{opt}"),
        n_opt_params_after=out("新预算下 N_opt", unit="参数", sci=True, ill=True, sym="N'_{opt}"),
        d_opt_tokens_after=out("新预算下 D_opt", unit="token", sci=True, tile=False, sym="D'_{opt}"),
    ),
    lead="总预算 C ≈ 6ND 固定时,多给参数就得少给数据。按 Scaling Law 求最优分配,预算变成 k 倍后,参数和数据各长几倍?",
)
def budget_doubling(p: BudgetParams) -> View:
    o = bd.budget_outputs(p.budget_mult, p.alpha, p.beta, p.budget_flop, LAW.A, LAW.B)
    fig = charts.split_figure(LAW, p.alpha, p.beta, p.budget_flop, p.budget_mult, o)
    return View(
        o,
        headline="预算 ×[[budget_mult|n]]:参数 ×[[n_mult|n]],数据 ×[[d_mult|n]]",
        notes=cb.notes("budget-doubling"),
        ctx={"c0": sci(p.budget_flop, 3), "c1": sci(p.budget_flop * p.budget_mult, 3)},
        figures=[Figure(fig, *cb.FIGURES["budget-doubling"], illustrative=True)],
    )


class HoldoutParams(Params):
    law: Literal["book", "fit"] = choice(
        "book", {"book": "书中数字反推的重建律(示意)", "fit": "用所选 run 自己拟合"}, label="系数来源"
    )
    fit_runs: list[str] = Field(
        list(cb.EXAMPLE_FIT),
        min_length=5,
        max_length=24,
        description="fit 模式下用来拟合的 run 名(CSV 的 run 列),每项一个",
        json_schema_extra={
            "control": "list",
            "step": None,
            "unit": "",
            "label": "拟合用的 run(fit 模式)",
            "item_ge": None,
            "item_le": None,
            "illustrative": False,
            "items": {"type": "string", "enum": [*sorted(cb.RUNS)]},
            "uniqueItems": True,
        },
    )
    tied: bool = toggle(True, label="拟合时令 α = β")

    @field_validator("fit_runs")
    @classmethod
    def _known(cls, v: list[str]) -> list[str]:
        if unknown := next((x for x in v if x not in cb.RUNS), None):
            raise ValueError(f"没有名为 “{unknown[:40]}” 的 run(见 datablations_c4_points.csv 的 run 列)")
        if len(set(v)) != len(v):
            raise ValueError("同一个 run 只能选一次")
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
            [r.run, "拟合", r.params, r.tokens, r.loss, sl.loss(fit.law, r.params, r.tokens), e]
            for r, e in zip(fitted, fit.residuals)
        ]
        if fit
        else []
    )
    rows += [
        [r.run, f"留出 H{j}", r.params, r.tokens, r.loss, o[f"pred_h{j}"], o[f"resid_h{j}"]]
        for j, r in enumerate(held, 1)
    ]
    return Table(
        ["run", "用途", "N", "D", "实测 L", "预测 L", "预测 − 实测"],
        rows,
        formats=["", "", N3, D_B, L4, L4, out(digits=4, signed=True)],
        title="拟合点与留出点" if fit else "留出点(书中的六个拟合点未能识别)",
        illustrative_cells=set() if fit else {(len(rows) - k, c) for k in (1, 2) for c in (5, 6)},
    )


@card(
    "eg-3-5",
    title="留出检验",
    label="例题 3-5",
    section="3.6",
    kind="chart",
    params=HoldoutParams,
    outputs=outputs(
        obs_h1=out("H1 实测(2.81B,55B token)", unit=NATS, digits=3),
        obs_h2=out("H2 实测(8.67B,178B token)", unit=NATS, digits=3),
        pred_h1=out("H1 预测", unit=NATS, digits=3, ill="book"),
        pred_h2=out("H2 预测", unit=NATS, digits=3, ill="book"),
        **{f"resid_h{i}": out(f"H{i} 预测 − 实测", digits=3, signed=True, ill="book") for i in (1, 2)},
        holdout_rmse=out("留出 RMSE", unit=NATS, digits=4, approx="book", em=True, ill="book", sym="RMSE"),
        fit_rmse=out("拟合点 RMSE([[n_fit_runs]] 个点)", unit=NATS, digits=4, em=True, tile="fit", sym="RMSE_{fit}"),
        n_fit_runs=out("拟合用的 run 数", tile=False, sym="n"),
        **{
            k: out(s, sig=6, stated=True, ill="book", sym=s)
            for k, s in zip(("E", "A", "B", "alpha", "beta"), sl.LAW_SYMBOLS)
        },
    ),
    lead="用 datablations 的 C4 小模型拟合 Scaling Law,再拿两个没参与拟合的更大模型检验:预测与实测差多少?"
    "也可以自己挑几个 run 重新拟合,比较拟合误差和留出误差。",
)
def eg_3_5(p: HoldoutParams) -> View:
    fit = cb.fit_law(p.fit_runs, p.tied) if p.law == "fit" else None
    law, held, pool = (fit.law if fit else LAW), cb.held_out(), cb.RUNS
    o = bd.holdout_outputs(law, held) | {
        "fit_rmse": fit.fit_rmse if fit else None,
        "n_fit_runs": given(
            len(p.fit_runs) if fit else 6, "n", "", "所选拟合 run 的个数" if fit else "书中的六个拟合点"
        ),
    }
    fitted = [pool[x] for x in p.fit_runs] if fit else []
    context = [r for r in pool.values() if r.epochs == 1 and not r.seed and r.run not in cb.HOLDOUTS]
    leak = "、".join(x for x in p.fit_runs if x in cb.HOLDOUTS or x in cb.SEED_RUNS) if fit else ""
    label = "重建律(示意)" if not fit else ("你的拟合(α = β)" if p.tied else "你的拟合(α、β 各自拟合)")
    picker = {
        "pool": POOL,
        "sel": list(p.fit_runs),
        "tied": p.tied,
        "fit_mode": bool(fit),
        "example": list(cb.EXAMPLE_FIT),
    }
    return View(
        o,
        headline="[[law_label]]:H1 [[resid_h1|n]],H2 [[resid_h2|n]],留出 RMSE [[holdout_rmse|n]]",
        ctx={"book": not fit, "fit": bool(fit), "law_label": label, "leak": leak},
        figures=[
            Figure(
                charts.holdout_figure(context, law, held, [o["pred_h1"], o["pred_h2"]], fitted),
                *cb.FIGURES["eg-3-5"],
                illustrative=not fit,
            ),
            Figure(
                charts.seed_strip([pool[x] for x in cb.SEED_RUNS], pool[cb.HOLDOUTS[0]], o["pred_h1"]),
                *cb.FIGURES[seed_words(o["resid_h1"], [pool[x] for x in (*cb.SEED_RUNS, cb.HOLDOUTS[0])])],
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
        return given(cb.BUDGETS["h800_bf16_tflops"], "Π", "TFLOP/s", "书中取值:H800 的 BF16 稠密峰值与 H100 相同")
    return gpu_of(GPU_IDS.get(gid, gid)).bf16_tflops or 0.0  # every choice here has a BF16 peak


class InterceptParams(Params):
    target_loss: float = slider(2.9, ge=2.5, le=3.5, step=0.01, label="目标损失 L*", unit="nats/token", sym="L^*")
    prompt_tokens: int = slider(512, ge=1, le=8192, step=1, label="每次输入 P", unit="token", log=True)
    gen_tokens: int = slider(128, ge=1, le=4096, step=1, label="每次输出 G", unit="token", log=True)
    gpu: gpu_type(["h100-sxm", "a100-sxm"]) = gpu_choice(  # type: ignore[valid-type]
        "h100-sxm", {"h100-sxm": "H100 SXM(989.4 TFLOP/s)", "a100-sxm": "A100 SXM(312 TFLOP/s)"}, label="加速器"
    )
    mfu_pct: float = slider(40, ge=5, le=100, step=1, label="MFU", unit="%")
    n_small: float = slider(1e8, ge=5e7, le=3e9, step=1e7, label="小模型 N", unit="参数", log=True, sym="N_{small}")
    n_large: float = slider(5e8, ge=5e7, le=3e9, step=1e7, label="大模型 N", unit="参数", log=True, sym="N_{large}")


@card(
    "fig-3-28",
    title="训练投入是截距,单次调用是斜率",
    label="图 3-28",
    section="3.6",
    kind="chart",
    params=InterceptParams,
    outputs=outputs(
        sustained_tflops=out("折算速率 峰值 × MFU", digits=2, sym="R"),
        d_small_btokens=out(
            "小模型([[n_small_sci]])所需训练 token", unit="B", digits=1, approx=True, ill=True, sym="D_{small}"
        ),
        d_large_btokens=out("大模型([[n_large_sci]])所需训练 token", unit="B", digits=2, ill=True, sym="D_{large}"),
        train_gpu_h_small=out("小模型训练 C₀", unit=GPU_H, digits=1, approx=True, ill=True),
        train_gpu_h_large=out("大模型训练 C₀", unit=GPU_H, digits=2, ill=True),
        delta_train_gpu_h=out("小模型多花 ΔC₀", unit=GPU_H, digits=1, ill=True, em=True),
        call_gpu_s_small=out("小模型每次调用", unit=GPU_S, sig=3),
        call_gpu_s_large=out("大模型每次调用", unit=GPU_S, sig=4),
        saving_gpu_s_per_call=out("每次调用省 Δc", unit=GPU_S, sig=3, approx=True, em=True),
        q_star_calls=out("交点 Q* = ΔC₀/Δc", unit="次调用", sci=True, none="无交点", ill=True, em=True, sym="Q^*"),
        beyond_chinchilla_models=out("Beyond Chinchilla-Optimal 的模型数", tile=False),
        beyond_chinchilla_max_tokens_per_param=out("150M 模型每参数训练 token 的上限", unit="token", tile=False),
        extrapolation_from_btokens=out("拟合数据的 D 上限(示意)", unit="B", tile=False),
    ),
    lead="同样达到目标损失,小模型要多训练(截距高),但每次调用更省(斜率低)。两条总成本线在 Q* 相交。",
)
def fig_3_28(p: InterceptParams) -> View:
    o = bd.intercept_outputs(
        LAW, peak_tflops(p.gpu) * 1e12, p.mfu_pct, p.n_small, p.n_large, p.target_loss, p.prompt_tokens, p.gen_tokens
    )
    bc, src = cb.BUDGETS["beyond_chinchilla"], "Beyond Chinchilla-Optimal(书中引用,arXiv:2401.00448)"
    o |= {
        "beyond_chinchilla_models": given(bc["models"], "模型数", "", src),
        "beyond_chinchilla_max_tokens_per_param": given(bc["max_tokens_per_param"], "D/N", "token", src),
        "extrapolation_from_btokens": given(178, "D_{max}", "×10⁹ token", "示意:例题 3-5 八个 C4 点中最大的 D"),
    }
    ok = o["train_gpu_h_small"] is not None and o["train_gpu_h_large"] is not None
    figs = (
        [
            Figure(
                charts.intercept_figure(o, p.n_small, p.n_large),
                *cb.FIGURES["fig-3-28" if o["q_star_calls"] else "fig-3-28.apart"],
                illustrative=True,
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
        Figure(iso, f"达到 L* = {p.target_loss:g} 所需的训练 token", cb.FIGURES["fig-3-28.iso"][1], illustrative=True)
    )
    return View(
        o,
        figures=figs,
        notes=cb.notes("" if ok else "fig-3-28.unreachable", "fig-3-28"),
        headline="目标损失 [[target_loss|n]] · P=[[prompt_tokens|n]] · G=[[gen_tokens|n]] · [[gpu_name]] [[mfu_pct]] MFU = "
        "[[sustained_tflops|n]] TFLOP/GPU·s",
        ctx={
            "gpu_name": GPU_NAMES.get(p.gpu, "自定义 GPU"),
            "n_small_sci": sci(p.n_small, 2),
            "n_large_sci": sci(p.n_large, 2),
        },
    )


class LifetimeParams(Params):
    delta_train_gpu_h: float = slider(
        100_000, ge=0, le=1e6, step=1000, label="小模型多训练 ΔC₀", unit="H100 GPU·h", sym="ΔC_0"
    )
    saving_gpu_s_per_task: float = slider(
        0.72, ge=0.01, le=10, step=0.01, label="每个成功任务省 Δc", unit=GPU_S, sym="Δc"
    )
    tasks: float = slider(2e8, ge=1e6, le=1e11, step=1e6, label="生命周期任务数 Q", unit="项", log=True)


@card(
    "lifetime-cost",
    title="Q* = ΔC₀ / Δc · 选哪个模型取决于未来调用量",
    label="",
    section="3.6",
    kind="calculator",
    params=LifetimeParams,
    badges=(("练习 3-10 后半", "ex-3-10"),),
    outputs=outputs(
        q_star_tasks=out("反转点 Q* = ΔC₀/Δc", unit="项", sci=True, sig=3, em=True, sym="Q^*"),
        serving_saved_gpu_h=out("服务省下 Q·Δc", unit=GPU_H, digits=0),
        net_saving_gpu_h=out("净节省 Q·Δc − ΔC₀", unit=GPU_H, digits=0, em=True),
        choose_small=out("选择", text={True: "选多训练的小模型", False: "留用大模型"}),
        cost_gap_gpu_h=out("总成本差 |净节省|", unit=GPU_H, digits=0),
    ),
    lead="小模型多花一笔训练,换来每个任务更省。任务量不到 Q* 时多花的训练收不回来,超过 Q* 才划算。",
)
def lifetime_cost(p: LifetimeParams) -> View:
    o = bd.lifetime_outputs(p.delta_train_gpu_h, p.saving_gpu_s_per_task, p.tasks)
    fig = charts.lifetime_figure(p.delta_train_gpu_h, p.saving_gpu_s_per_task, p.tasks, o["q_star_tasks"])
    return View(
        o,
        headline="Q = [[tasks_sci]] 项:[[choose_small]],总成本差 [[cost_gap_gpu_h]]",
        ctx={"tasks_sci": sci(p.tasks, 3)},
        figures=[Figure(fig, *cb.FIGURES["lifetime-cost"])],
        notes=cb.notes("lifetime-cost"),
    )


class LlamaQwenParams(Params):
    chinchilla_tokens_per_param: float = slider(
        20, ge=20, le=20, step=1, label="计算最优基准(固定)", unit="token/参数", sym="(D/N)_{opt}"
    )


LLAMA_OUT = outputs(
    chinchilla_8b_btokens=out("8B 的计算最优 token(20 token/参数)", unit="B", digits=0, sym="D_{opt,8B}"),
    row5_d_over_n=out("Qwen3 每参数 token", digits=0, approx=True, em=True),
    mmlu_gap_pts=out("MMLU:Llama 2 70B − Llama 3 8B", unit="分", digits=1),
    triviaqa_gap_pts=out("TriviaQA-Wiki:同上", unit="分", digits=1),
    **{k: d for k, d in cb.ROW_OUT.items() if k != "row5_d_over_n"},
    **{k: out(label, unit="分", digits=1, tile=False) for k, (_, label) in cb.QUALITY.items()},
)


@card(
    "tab-llama-qwen",
    title="从 Llama 到 Qwen:数据越给越多",
    label="",
    section="3.6",
    kind="table",
    params=LlamaQwenParams,
    outputs=LLAMA_OUT,
    lead="同为 7B–8B 级别,训练 token 从 1T 涨到 36T,每参数 token 数比 Chinchilla 的 20 高出一到两个数量级。",
)
def tab_llama_qwen(p: LlamaQwenParams) -> View:
    o, models, approx = (
        cb.llama_qwen(p.chinchilla_tokens_per_param),
        cb.BUDGETS["open_models"],
        ("", "", "约 ", "约 ", "约 "),
    )

    def cell(key: str, flags: str = "n") -> str:
        return LLAMA_OUT[key].fmt(o[key], flags=flags)

    rows = [
        [
            m["name"] + (f"({m['tag']})" if m["tag"] else ""),
            f"{a}{m['tokens'] / 1e12:g}T",
            a + cell(f"row{i}_d_over_n"),
            a + cell(f"row{i}_six_nd_flop"),
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
        headline="Chinchilla 基准:8B 模型约 [[chinchilla_8b_btokens|n]]B token;实际 1T–36T",
        tables=[
            Table(
                ["模型", "训练 token", "D/N", "6ND (FLOPs)", f"× Chinchilla({p.chinchilla_tokens_per_param:g})"],
                rows,
                title="D/N 与 6ND(N 按“模型”列的约数计)",
            )
        ],
        figures=[Figure(fig, *cb.FIGURES["tab-llama-qwen"])],
        notes=cb.notes("tab-llama-qwen"),
    )


class MoeParams(Params):
    model: Literal["v4-flash", "v4-pro"] = choice(
        "v4-flash", {k: cb.BUDGETS["moe"][k]["name"] for k in ("v4-flash", "v4-pro")}, label="预设"
    )
    moe_layers: int | None = slider(None, ge=1, le=128, step=1, label="MoE 层数 n_L(推断)", placeholder="按预设")
    hidden: int | None = slider(None, ge=1024, le=16384, step=1, label="隐藏维 h(推断)", placeholder="按预设")
    expert_ffn: int | None = slider(None, ge=256, le=8192, step=1, label="专家 FFN 宽 f(推断)", placeholder="按预设")
    routed: int = slider(6, ge=1, le=16, step=1, label="每 token 路由专家数", unit="个", sym="k_{routed}")
    shared: int = slider(1, ge=0, le=4, step=1, label="共享专家数", unit="个", sym="k_{shared}")
    tokens: float | None = slider(
        None, ge=1e12, le=1e14, step=1e11, label="训练 token", unit="token", log=True, placeholder="按预设", sym="D"
    )


@card(
    "moe-flops",
    title="MoE:总参数与激活参数、专家的训练运算量",
    label="",
    section="3.6",
    kind="calculator",
    params=MoeParams,
    outputs=outputs(
        gflop_per_token=out(
            "主干专家训练量 18·[[dims]]·([[routed|n]]+[[shared|n]])",
            unit="GFLOPs/token",
            digits=4,
            approx=True,
            em=True,
        ),
        total_flop=out("× 训练 token", unit="FLOPs", sci=True, sig=6, approx=True, em=True, sym="F_{total}"),
        total_params=out("总参数", unit="B", scale=1e9, digits=0),
        active_params=out("激活参数", unit="B", scale=1e9, digits=0, approx=True),
        train_tokens=out("训练 token", unit="T", scale=1e12, trim=True),
        active_frac_pct=out("激活 ÷ 总参数", digits=1),
    ),
    lead="MoE 模型要同时报总参数和每 token 激活的参数:前者决定放权重要多大容量,后者决定每个 token 的运算量。",
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
    fig = charts.moe_params_figure([presets[k] for k in ("deepseek-v3", "v4-flash", "v4-pro")])
    table = Table(
        ["模型", "总参数", "激活参数", "预训练 token", "专家训练量 (GFLOPs/token)"],
        cb.WORDS["moe"]["rows"],
        title="书中列出的三个 MoE 模型",
    )
    return View(
        o,
        headline="[[model_name]]:[[total_params]] 总参数 / 约 [[active_params]] 激活,[[train_tokens]] token",
        ctx={
            "model_name": m["name"],
            "dims": f"{n_l}·{h}·{f}",
            "preset_dims": f"{m['moe_layers']}·{m['hidden']}·{m['expert_ffn']}",
        },
        figures=[Figure(fig, *cb.FIGURES["moe-flops"])],
        tables=[table],
        notes=cb.notes("moe-flops"),
    )


class A100Params(Params):
    gpu_hours: float = slider(1, ge=1, le=1e9, step=1, label="报告的 GPU 小时", unit="GPU·h", log=True, sym="H")
    gpu: gpu_type(["h100-sxm", "h800", "a100-sxm"]) = gpu_choice("h100-sxm", GPU_NAMES, label="原始 GPU")  # type: ignore[valid-type]


@card(
    "fig-3-30",
    title="GPU 小时折算成 A100 等效(对数尺度)",
    label="图 3-30",
    section="3.6",
    kind="chart",
    params=A100Params,
    outputs=outputs(
        a100_equiv_ratio=out("[[gpu_name]] ÷ A100 峰值比", unit="×", digits=2, approx=True, em=True, sym="A100 等效比"),
        a100_equiv_gpu_h=out("[[gpu_hours|n]] [[gpu_name]] GPU·h 折合", unit="A100 GPU·h", sig=4, sym="H_{A100}"),
        qwen3_rl_gpu_h=out("Qwen3 8B 后训练 · RL 路线", unit=GPU_H, digits=0),
        qwen3_opd_gpu_h=out("Qwen3 8B 后训练 · OPD 路线", unit=GPU_H, digits=0),
        qwen3_rl_over_opd=out("RL ÷ OPD", unit="×", digits=2),
    ),
    lead="各家报告的训练 GPU 小时用的卡不同。按 BF16 稠密峰值之比折成 A100 等效,才能放在一把尺子上比投入规模。",
)
def fig_3_30(p: A100Params) -> View:
    b, a100, qsrc = cb.BUDGETS, gpu("a100-80gb-sxm"), "书中引用的 Qwen3 技术报告表 21"
    a100_peak = given(a100.bf16_tflops, "Π_{A100}", "TFLOP/s", f"{a100.name} 预设(data/gpus.json)")
    q = {k: given(v, f"H_{{{k.upper()}}}", GPU_H, qsrc) for k, v in b["qwen3_post_training_gpu_h"].items()}
    o = bd.a100_outputs(p.gpu_hours, peak_tflops(p.gpu), a100_peak, q["rl"], q["opd"])
    reports = b["gpu_hours_reports"]
    eq = [lt.a100_equivalent(r["gpu_hours"], peak_tflops(r["gpu"]), a100_peak) for r in reports]
    fig, summary = charts.a100_figure(
        reports, eq, GPU_NAMES, {"a100-sxm": "state", "h100-sxm": "decode", "h800": "prefill"}
    )
    return View(
        o,
        headline="H100/H800 ÷ A100 BF16 稠密峰值 = 989.4/312 ≈ [[h100_ratio]]",
        notes=cb.notes("fig-3-30"),
        ctx={
            "gpu_name": GPU_NAMES.get(p.gpu, "自定义 GPU"),
            "h100_ratio": f"{peak_tflops('h100-sxm') / a100_peak:.2f}",
        },
        figures=[Figure(fig, "图 3-30 · 报告的训练 GPU 小时,折成 A100 等效", summary)],
        tables=[
            Table(
                ["模型", "原始 GPU", "报告的 GPU 小时", "范围", "来源"],
                title="条形图数据(书中未列出,取自公开报告)",
                rows=[
                    [r["model"], GPU_NAMES[r["gpu"]], f"{r['gpu_hours']:,}", r["scope"], r["source"]] for r in reports
                ],
            )
        ],
    )


class CalendarParams(Params):
    gpu_hours: float = slider(1_022_362, ge=1e3, le=1e8, step=1, label="总 GPU 小时", unit="GPU·h", log=True, sym="H")
    n_gpus: int = slider(2048, ge=1, le=32768, step=1, label="同时训练的卡数", unit="张", log=True, sym="n")


@card(
    "gpu-hours-calendar",
    title="GPU 小时 ÷ 卡数 = 日历时间",
    label="",
    section="3.6",
    kind="calculator",
    params=CalendarParams,
    badges=(("练习 3-10 前半", "ex-3-10"),),
    outputs=outputs(
        wall_h=out("日历时间", unit="小时", digits=1),
        wall_days=out("日历时间", unit="天", digits=2, em=True, sym="T_{days}"),
        wall_weeks=out("约合", unit="周", digits=1, sym="T_{weeks}"),
    ),
    lead="GPU 小时是总工作量;除以同时运行的卡数,才是要等多少天。",
)
def gpu_hours_calendar(p: CalendarParams) -> View:
    return View(
        bd.calendar_outputs(p.gpu_hours, p.n_gpus),
        headline="[[gpu_hours]] ÷ [[n_gpus]]卡",
        notes=cb.notes("gpu-hours-calendar"),
    )
