"""Chapter 3 end matter (part B): 后续章节要用的负载记录, fallacy 3-4, 本章小结, 练习 3-8 … 3-10."""

from __future__ import annotations

from typing import Literal

from ...calculators import budget as bd
from ...cards import Block, Link, Params, Question, Table, View, card, choice, fixed
from ...charts.theme import color
from ...exercises import Slip
from ...outputs import out, outputs
from ...trace import given
from ..shared import ch3_budget as cb

SEC, GPU_H, NATS, TRY = "3.end", "GPU·h", "nats/token", "动手试一试"
CHINCHILLA = given(20, "(D/N)_{opt}", "token/参数", "书中取值:Chinchilla 每参数约 20 token")


@card(
    "tab-workload-records",
    title="后续章节要用的负载记录",
    label="",
    section=SEC,
    kind="table",
    outputs=outputs(n_rows=out("负载种类", tile=False, sym="行数")),
    lead="本章讲的每种负载,都要留下哪些字段,后面的章节才能拿来估算资源?",
)
def tab_workload_records(p: Params) -> View:
    rows = [[r["load"], r["fields"], r["used"]] for r in cb.WORDS["records"]]
    return View(
        {"n_rows": given(len(rows), "行数", "", "表中列出的负载种类")},
        notes=cb.notes("tab-workload-records"),
        tables=[
            Table(
                ["负载", "必须保留的字段", "后续在哪里用"],
                rows,
                links={0: "eg-3-1", 1: "fig-3-15", 2: "eg-3-4"},
                note="点负载名可以回到用到这些字段的卡片:到达与积压(例题 3-1)、EC/KV(图 3-15)、生成与保留样本(例题 3-4)。",
            )
        ],
    )


@card(
    "fallacy-compute-optimal",
    title="✗ Scaling Law 的计算最优规模就是该用的规模",
    label="",
    section=SEC,
    kind="table",
    aliases=("fallacy-3-4",),
    outputs=outputs(
        chinchilla_8b_btokens=out("计算最优:8B × 20 token/参数", unit="B token", digits=0, sym="D_{opt,8B}"),
        qwen3_d_over_n=out("Qwen3 约 8B 实际每参数 token", digits=0, approx=True, em=True),
        qwen3_x_chinchilla=out("超出计算最优基准", unit="倍", digits=0, prefix="约 "),
    ),
    lead="计算最优只回答“训练预算固定、推理不要钱”时怎么分配。模型要长期上线服务,答案就变了。",
)
def fallacy_compute_optimal(p: Params) -> View:
    t = cb.llama_qwen(CHINCHILLA)
    return View(
        {
            "chinchilla_8b_btokens": t["chinchilla_8b_btokens"],
            "qwen3_d_over_n": t["row5_d_over_n"],
            "qwen3_x_chinchilla": t["row5_x_chinchilla"],
        },
        links_title="相关卡片",
        links=[
            Link(*x)
            for x in (
                ("从 Llama 到 Qwen:每参数 token 表", "/cards/tab-llama-qwen"),
                ("图 3-28 · 训练是截距,调用是斜率", "/cards/fig-3-28"),
                ("Q* = ΔC₀ / Δc 计算器", "/cards/lifetime-cost"),
            )
        ],
        notes=cb.notes("fallacy-compute-optimal"),
    )


TAKEAWAYS = {t["id"]: t for t in cb.WORDS["takeaways"]}


class SummaryParams(Params):
    part: Literal["all", "backlog", "waiting", "standard"] = choice(
        "all", {"all": "全部", **{k: t["title"] for k, t in TAKEAWAYS.items()}}, label="突出显示"
    )


@card(
    "ch3-summary",
    title="本章小结 · 负载 = 工作量 × 到达时间 × 依赖 × 完成标准",
    label="",
    section=SEC,
    kind="diagram",
    params=SummaryParams,
    outputs=outputs(n_takeaways=out("结论条数", tile=False, sym="条数")),
    lead="同样的工作量,什么时候到、依赖谁、做到什么程度才算完成,决定了它要占多少资源。点一个因子或一条结论,看对应的卡片。",
)
def ch3_summary(p: SummaryParams) -> View:
    factors = [("工作量", "all"), ("到达时间", "backlog"), ("依赖", "waiting"), ("完成标准", "standard")]
    return View(
        {"n_takeaways": given(len(TAKEAWAYS), "条数", "", "本章小结列出的结论")},
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
    title="在参数与数据之间分配预算",
    label="练习 3-8〔延伸〕",
    section=SEC,
    kind="exercise",
    outputs=(
        EX38 := outputs(
            **{
                f"{x}_mult_{k}x": out(
                    f"预算 ×{k}:{x.upper()}_opt 增长", unit="×", digits=3, tile=False, sym=f"{x.upper()}_{{opt}} 增长"
                )
                for k in (4, 9)
                for x in "nd"
            },
            resid_h1=out("H1 预测 − 实测", unit=NATS, digits=4, signed=True, tile=False, sym="r_1"),
            resid_h2=out("H2 预测 − 实测", unit=NATS, digits=4, signed=True, tile=False, sym="r_2"),
            holdout_rmse=out("留出 RMSE", unit=NATS, digits=4, tile=False, sym="RMSE"),
        )
    ),
    lead="从 L = E + A/N^α + B/D^β 和 C = 6ND 推出最优分配,再用留出点检验拟合。",
)
def ex_3_8(p: Params) -> View:
    law = cb.LAW
    o = {
        f"{x}_mult_{k}x": bd.budget_outputs(
            given(k, "k", "", f"题设:预算 ×{k}"), law.alpha, law.beta, 1e21, law.A, law.B
        )[f"{x}_mult"]
        for k in (4, 9)
        for x in "nd"
    } | {k: v for k, v in bd.holdout_outputs(law, cb.held_out()).items() if k in EX38}
    ex_fit = cb.fit_law(list(cb.EXAMPLE_FIT), True)
    ex_rmse = bd.holdout_outputs(ex_fit.law, cb.held_out())["holdout_rmse"]
    four = EX38["n_mult_4x"].fmt(o["n_mult_4x"], flags="n,c")
    return View(
        o,
        headline="练习 3-8 · 参数与数据怎样分预算",
        links_title=TRY,
        links=[
            Link(*x)
            for x in (
                ("预算 ×4(预算翻倍卡)", "/cards/budget-doubling?budget_mult=4"),
                ("预算 ×9", "/cards/budget-doubling?budget_mult=9"),
                ("例题 3-5 · 留出检验", "/cards/eg-3-5"),
                ("例题 3-5 · 用示例六个 run 自己拟合", "/cards/eg-3-5?law=fit"),
            )
        ],
        questions=[
            Question(
                "derive_split",
                "(a)由 L 与 C = 6ND 推导 N_opt、D_opt 随 C 的增长。",
                kind="open",
                answer_text="把 D = C/(6N) 代入 L,对 N 求导并令其为零:αA/N^α = βB/D^β。解得 N_opt = (αA/βB)^{1/(α+β)}·(C/6)^{β/(α+β)},"
                "D_opt = C/(6N_opt) ∝ C^{α/(α+β)}。两个指数之和为 1:新增预算按 β : α 的比例分给参数和数据。",
            ),
            Question(
                "budget_4x",
                "(b)取 α = β,预算增至 4 倍时,N_opt 与 D_opt 各增至几倍?",
                kind="open",
                answer_text=f"α = β 时两个指数都是 1/2:N_opt ×4^(1/2) = ×{four},D_opt 同样 ×{four};两者相乘正好是预算的 4 倍。",
            ),
            Question(
                "n_mult_9x",
                "(b)预算增至 9 倍,N_opt 增至几倍?",
                unit="×",
                solution=["α = β 时指数是 1/2,增长倍数就是预算倍数开平方。"],
            ),
            Question(
                "d_mult_9x", "(b)预算增至 9 倍,D_opt 增至几倍?", unit="×", solution=["数据的指数 α/(α+β) 同样是 1/2。"]
            ),
            Question(
                "resid_h1",
                "(c)留出点 H1(2.81B,55B token,实测 2.574)的误差 预测 − 实测?",
                unit=NATS,
                hint="用例题 3-5 的律预测,书中印的是 +0.009。",
                solution=["所用的律是按书中数字反推的重建律(示意);书中印的是 +0.009。"],
            ),
            Question(
                "resid_h2",
                "(c)留出点 H2(8.67B,178B token,实测 2.337)的误差?",
                unit=NATS,
                solution=["书中印的是 +0.026:两个预测都略偏高。"],
            ),
            Question("holdout_rmse", "(c)两个留出点的 RMSE?", unit=NATS, solution=["书中印的是 ≈0.0193。"]),
            Question(
                "why_holdout",
                "(c)为什么拟合点上的误差不能代替留出误差?",
                kind="open",
                answer_text="系数正是按拟合点求出来的,拟合点误差小只说明曲线贴住了这些数据;参数越多越容易贴得更紧。外推到更大的模型是否可信,"
                f"只能看没参与拟合的点。在例题 3-5 里用示例六个 run 拟合:拟合点 RMSE 约 {ex_fit.fit_rmse:.3f},留出 RMSE 却约 "
                f"{ex_rmse:.3f}。再加上换种子的波动,还要多 seed 重复才能分清趋势和偶然。",
            ),
        ],
        notes=cb.notes("ex-3-8"),
    )


class Ex39Params(Params):
    data_mult: float = fixed(4, "数据倍数", "×", sym="k_D")
    expert_mult: float = fixed(2, "总专家数倍数", "×", sym="k_E")


@card(
    "ex-3-9",
    title="加数据或加专家改变哪些资源",
    label="练习 3-9〔延伸〕",
    section=SEC,
    kind="exercise",
    params=Ex39Params,
    outputs=(
        EX39 := outputs(
            **cb.ROW_OUT,
            train_compute_mult=out("训练计算 6N·(k_D·D) ÷ 6ND", unit="×", digits=3, tile=False),
            weight_capacity_mult=out("纯权重容量(∝ N)", unit="×", digits=3, tile=False),
            expert_param_mult=out("路由专家的参数容量", unit="×", digits=3, tile=False),
            expert_train_flop_mult=out("每 token 专家训练运算", unit="×", digits=3, tile=False),
        )
    ),
    lead="重算 Llama/Qwen 表;再看加数据、加专家分别改变训练计算还是权重容量。",
)
def ex_3_9(p: Ex39Params) -> View:
    moe, anyway = cb.moe_dims("v4-flash"), "任取:比值与 N、D 无关"
    o = {k: v for k, v in cb.llama_qwen(CHINCHILLA).items() if k in cb.ROW_OUT} | bd.data_vs_experts(
        cb.big(8e9, "N", 9, anyway), cb.big(36e12, "D", 12, anyway, " token"), p.data_mult, p.expert_mult, moe
    )
    base, doubled = (bd.moe_outputs(*moe[:3], k, moe[4], 1, 1, 1)["gflop_per_token"] for k in (moe[3], 2 * moe[3]))
    return View(
        o,
        headline="练习 3-9 · 加数据改变训练计算,加专家改变权重容量",
        links_title=TRY,
        links=[
            Link(*x)
            for x in (
                ("从 Llama 到 Qwen 表", "/cards/tab-llama-qwen"),
                ("MoE 运算量:选中数 12 + 1", "/cards/moe-flops?routed=12"),
            )
        ],
        questions=[
            Question("row1_d_over_n", "(a)Llama 1 · 6.7B,1T token:D/N?"),
            Question("row2_d_over_n", "(a)Llama 2 · 约 7B,2T:D/N?", solution=["N 按约数 7B 计。"]),
            Question("row5_d_over_n", "(a)Qwen3 · 约 8B,约 36T:D/N?"),
            Question("row1_six_nd_flop", "(a)Llama 1 的 6ND?", unit="FLOP"),
            Question("row5_six_nd_flop", "(a)Qwen3 的 6ND?", unit="FLOP"),
            Question(
                "train_compute_mult",
                f"(b)参数不变、数据增至 {p.data_mult:g} 倍:训练计算变为几倍?",
                unit="×",
                solution=["训练计算 6ND 与 D 成正比。"],
            ),
            Question(
                "weight_capacity_mult",
                "(b)上线后纯权重所需容量变为几倍?",
                unit="×",
                solution=["权重大小只取决于 N,不随训练 token 变化。"],
            ),
            Question(
                "expert_capacity",
                f"(c)MoE 总专家数 ×{p.expert_mult:g}、每 token 选中数不变:路由专家的参数容量变为几倍?",
                kind="open",
                answer_text=f"专家参数 = 专家数 × 每个专家的参数,所以容量 ×{EX39['expert_param_mult'].fmt(o['expert_param_mult'], flags='n,c')}:"
                "显存、存储和权重同步量都跟着涨。",
            ),
            Question(
                "expert_train_flop_mult",
                "(c)每 token 的专家训练运算变为几倍?",
                unit="×",
                hint="18·n_L·h·f·(选中数):公式里没有总专家数。",
                slips=(
                    Slip("total_vs_active", "把总专家数当成了每 token 选中的专家:运算只随选中数变。", p.expert_mult),
                ),
                solution=[
                    "选中数不变,$18 n_L h f (k_{routed} + k_{shared})$ 不变。",
                    f"对比:若选中数翻倍(12 + 1),V4-Flash 从 {base:.2f} 涨到 {doubled:.2f} GFLOPs/token。",
                ],
            ),
            Question(
                "both_double",
                "(c)参数容量和专家训练计算能否都按两倍估?",
                kind="open",
                answer_text="不能。参数容量(显存、存储、权重同步量)随总专家数翻倍;每 token 的专家运算只由选中的专家数决定,不变。"
                "总训练运算也基本不变,但路由更分散,每个专家分到的 token 变少,通信与负载均衡会变难。",
            ),
        ],
    )


class Ex310Params(Params):
    gpu_hours: float = fixed(1_022_362, "A100 GPU 小时", "GPU·h", sym="H")
    n_gpus_a: int = fixed(2048, "卡数 a", "张")
    n_gpus_b: int = fixed(1024, "卡数 b", "张")
    delta_train_gpu_h: float = fixed(100_000, "小模型多训练", "H100 GPU·h", sym="ΔC_0")
    saving_gpu_s_per_task: float = fixed(0.72, "每个成功任务省", "GPU·s", sym="Δc")


@card(
    "ex-3-10",
    title="训练完成时间与累计服务成本",
    label="练习 3-10〔延伸〕",
    section=SEC,
    kind="exercise",
    params=Ex310Params,
    outputs=outputs(
        days_a=out("卡数 a 时的日历天数", unit="天", digits=2, tile=False),
        days_b=out("卡数 b 时的日历天数", unit="天", digits=2, tile=False),
        q_star_tasks=out("反转点 Q*", unit="项", sci=True, sig=3, tile=False, sym="Q^*"),
        net_saving_2e8_gpu_h=out("两亿项的净节省", unit=GPU_H, digits=0, tile=False),
        net_saving_1e9_gpu_h=out("十亿项的净节省", unit=GPU_H, digits=0, tile=False),
        choose_small_2e8=out("两亿项选小模型", tile=False),
        choose_small_1e9=out("十亿项选小模型", tile=False),
        cost_gap_2e8_gpu_h=out("两亿项的总成本差", unit=GPU_H, digits=0, tile=False),
    ),
    lead="GPU 小时换成日历天数;再看任务量多大时,多训练的小模型才划算。",
)
def ex_3_10(p: Ex310Params) -> View:
    l2, l9 = (
        bd.lifetime_outputs(p.delta_train_gpu_h, p.saving_gpu_s_per_task, cb.big(q, "Q", e, f"题设:{w}项", " 项"))
        for q, e, w in ((2e8, 8, "两亿"), (1e9, 9, "十亿"))
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
    yes_no = {"true": "选小模型", "false": "留用大模型"}
    return View(
        o,
        headline="练习 3-10 · 日历时间与生命周期成本",
        links_title=TRY,
        links=[
            Link(*x)
            for x in (
                ("GPU 小时 ÷ 卡数:2048 张", "/cards/gpu-hours-calendar"),
                ("GPU 小时 ÷ 卡数:1024 张", "/cards/gpu-hours-calendar?n_gpus=1024"),
                ("Q* 计算器:两亿项", "/cards/lifetime-cost"),
                ("Q* 计算器:十亿项", "/cards/lifetime-cost?tasks=1000000000"),
            )
        ],
        questions=[
            Question(
                "days_a",
                f"(a){p.gpu_hours:,.0f} A100 GPU 小时用 {p.n_gpus_a:,} 张卡持续训练,需几天?",
                unit="天",
                units={"小时": 1 / 24},
            ),
            Question(
                "days_b",
                f"(a)改用 {p.n_gpus_b:,} 张卡,需几天?",
                unit="天",
                units={"小时": 1 / 24},
                solution=["卡数减半,时间翻倍。"],
            ),
            Question(
                "q_star_tasks",
                "(b)任务量到多少时选择反转?",
                unit="项",
                hint="Q* = ΔC₀/Δc:先把 GPU 小时换成 GPU 秒(× 3600)。",
            ),
            Question(
                "net_saving_2e8_gpu_h",
                "(b)两亿项任务时,小模型的净节省 Q·Δc − ΔC₀ 是多少 GPU 小时?(负数表示更贵)",
                unit="GPU·h",
                hint="先算服务省下的 Q·Δc(GPU 秒 ÷ 3600 换成 GPU 小时),再减去多花的训练 ΔC₀。",
            ),
            Question(
                "choose_small_2e8",
                "(b)两亿项时选小模型吗?",
                kind="bool",
                options=yes_no,
                solution=["净节省为负,多花的训练收不回来:留用大模型,总成本少 [[cost_gap_2e8_gpu_h]]。"],
            ),
            Question("net_saving_1e9_gpu_h", "(b)十亿项任务时的净节省?", unit="GPU·h"),
            Question(
                "choose_small_1e9",
                "(b)十亿项时选小模型吗?",
                kind="bool",
                options=yes_no,
                solution=["净节省 [[net_saving_1e9_gpu_h]] > 0:选多训练的小模型。"],
            ),
        ],
        notes=cb.notes("ex-3-10"),
    )
