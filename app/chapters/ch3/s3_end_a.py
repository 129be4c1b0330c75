"""Chapter 3 end matter, part A: 练习 3-2 and the first fallacy. Both take their numbers from 例题 3-1's
computation (``shared.ch3_load.book_run``) and 图 3-3's occupancy (``queueing.wait_outputs``)."""

from __future__ import annotations

from urllib.parse import urlencode

from ...calculators import queueing as qu
from ...calculators.units import GIB
from ...cards import Block, Figure, Note, Params, Question, View, card, choice, fixed, number_type, slider
from ...charts.backlog import backlog_figure, queue_spark
from ...outputs import out, outputs
from ...trace import given
from ..shared.ch3_load import MU_BOOK, book, book_run, quiet, say

MU_CHOICES = {2795.66: "2,795.66(书中取值)", 2796: "2,796(题面取整)"}


class Ex32Params(Params):
    mu_per_card: number_type(MU_CHOICES) = choice(2795.66, MU_CHOICES, label="每卡处理率", help="每卡 decode 步/s")  # type: ignore[valid-type]
    burst_s: float = slider(30, ge=10, le=120, step=5, label="突发持续", unit="s", sym="τ_b")
    arrival_rate_per_s: float = fixed(2, "进入工具等待的速率", "个/s", sym="λ")
    state_gib: float = fixed(1, "每个等待任务的状态", "GiB", sym="M_0")


EX32 = outputs(
    burst_demand_steps_s=out("突发强度 4·(0.1·255 + 0.9·2047)", digits=1, sym="λw"),
    growth_2cards_steps_s=out("两卡时积压每秒增加", digits=2, sym="λw − μ"),
    backlog_2cards_steps=out("两卡:[[burst_s]] 末积压", unit="步", digits=1, em=True, sym="Q_2"),
    drain_2cards_s=out("两卡:排空时间", digits=2, sym="T_{drain,2}"),
    backlog_3cards_steps=out("三卡:积压", unit="步", digits=0, sym="Q_3"),
    util_3cards_pct=out("三卡:利用率", digits=1, sym="ρ_3"),
    occupancy_10s_gib=out("τ = 10 s:平均占用", sig=4, sym="M̄_{10}"),
    occupancy_30s_gib=out("τ = 30 s:平均占用", sig=4, sym="M̄_{30}"),
    drain_3cards_s=quiet("三卡:排空时间", digits=0, sym="T_{drain,3}"),
    waiting_tasks_10s=quiet("τ = 10 s:平均在等", unit="个", sig=4, sym="L_{10}"),
    waiting_tasks_30s=quiet("τ = 30 s:平均在等", unit="个", sig=4, sym="L_{30}"),
)


def link(preset: str, burst: float, mu: float) -> str:
    """例题 3-1 at a preset plus what differs from it."""
    q = {
        "preset": preset,
        **({"duration_s": f"{burst:g}"} if burst != 30 else {}),
        **({"mu_per_card": f"{float(mu):g}"} if float(mu) != MU_BOOK else {}),
    }
    return "/cards/eg-3-1?" + urlencode(q)


def bursts(burst_s: float, mu_choice: float) -> tuple[tuple, tuple]:
    """练习 3-2's burst as 例题 3-1 preset ③ (2 cards) and ④ (3 cards) at the chosen per-card μ."""
    mu = given(float(mu_choice), "μ_1", "步/s", "选择:每卡处理率")
    return (book_run("burst30_2cards", mu, duration_s=burst_s), book_run("burst30_3cards", mu, duration_s=burst_s))


@card(
    "ex-3-2",
    title="突发请求与工具等待如何增加积压和状态占用",
    label="练习 3-2〔核心〕",
    section="3.end",
    kind="exercise",
    params=Ex32Params,
    outputs=EX32,
    lead="第二分钟那样的强度(每秒 7,471.2 步)只持续 30 秒,decode 用两张或三张卡,初始队列为空:求积压曲线和停止到达后的排空时间。"
    "再算每秒 2 个任务进入工具等待、每个等 10 s 占 1 GiB 时,平均有几个任务在等、占多少;等待改成 30 s 再算。",
)
def ex_3_2(p: Ex32Params) -> View:
    (o2, run2, m2), (o3, _, _) = bursts(p.burst_s, p.mu_per_card)
    w = {
        tau: qu.wait_outputs(p.arrival_rate_per_s, book(tau, "τ", "s", "练习 3-2 题设"), p.state_gib * GIB, 40)
        for tau in (10, 30)
    }
    o = {
        "burst_demand_steps_s": o2["demand_after_steps_s"],
        "growth_2cards_steps_s": o2["demand_after_steps_s"] - o2["capacity_steps_s"],
        "backlog_2cards_steps": o2["backlog_end_steps"],
        "drain_2cards_s": o2["drain_s"],
        "backlog_3cards_steps": o3["backlog_end_steps"],
        "drain_3cards_s": o3["drain_s"],
        "util_3cards_pct": o3["util_after_pct"],
        **{f"waiting_tasks_{tau}s": w[tau]["mean_waiting_tasks"] for tau in w},
        **{f"occupancy_{tau}s_gib": w[tau]["mean_occupancy_gib"] for tau in w},
    }
    (alt, _, _), _ = bursts(p.burst_s, 2796 if p.mu_per_card == 2795.66 else 2795.66)
    ctx = {
        "mu": f"{float(p.mu_per_card):,.2f}",
        "cap2": f"{o2['capacity_steps_s']:,.2f}",
        "alt_mu": f"{alt['mu_per_card']:,.2f}",
        "alt": f"{alt['backlog_end_steps']:,.1f} 步、排空 {alt['drain_s']:.2f} s",
    }
    return View(
        o,
        headline="突发 [[burst_s]] · 每秒 [[burst_demand_steps_s|n]] 步 · 每卡 [[mu]] 步/s",
        ctx=ctx,
        blocks=[
            Block(
                "diagrams/ex-3-2.html",
                {
                    "eg_2": link("burst30_2cards", p.burst_s, p.mu_per_card),
                    "eg_3": link("burst30_3cards", p.burst_s, p.mu_per_card),
                    "fig_10": "/cards/fig-3-3?wait_s=10",
                    "fig_30": "/cards/fig-3-3?wait_s=30",
                    "burst": p.burst_s,
                    "demand": say(EX32, o, "[[burst_demand_steps_s|n]]"),
                },
            )
        ],
        figures=[
            Figure(
                backlog_figure(run2, qu.class_a_steps(m2, run2), o2["capacity_steps_s"], height=300),
                f"两张卡:{p.burst_s:g} s 突发的积压曲线(例题 3-1 预设 ③)",
                "积压以每秒 [[growth_2cards_steps_s|n]] 步直线上升,[[burst_s]] 末 [[backlog_2cards_steps]],之后以每秒 [[cap2]] 步直线下降,"
                "[[drain_2cards_s]] 排空。",
                animated=True,
            )
        ],
        questions=[
            Question(
                key="backlog_2cards_steps",
                prompt=f"两张卡时,{p.burst_s:g} s 末积压多少 decode 步?",
                unit="步",
                hint="每秒到达 7,471.2 步,两卡每秒做 2 × 2,795.66 步;队列从空开始。",
                solution=[
                    "两卡处理率 μ = 2 × [[mu]] = [[cap2]] 步/s;每秒净增 [[growth_2cards_steps_s]],积压是一条直线 Q(t) = (λw − μ)·t。"
                ],
            ),
            Question(
                key="drain_2cards_s",
                prompt="停止到达后,两张卡要多久排空?",
                unit="s",
                hint="没有新到达时,积压按处理率直线下降。",
                solution=["整段曲线先直线升 [[burst_s]],再直线降 [[drain_2cards_s]]。"],
            ),
            Question(
                key="backlog_3cards_steps",
                prompt="换成三张卡,积压多少?",
                unit="步",
                hint="先比较需求和三卡处理率。",
                solution=[
                    "三卡处理率高于需求 [[burst_demand_steps_s]],利用率 [[util_3cards_pct]]:队列一直是空的,排空时间 [[drain_3cards_s]]。"
                ],
            ),
            Question(
                key="waiting_tasks_10s",
                prompt="每秒 2 个任务进入工具等待、每个等 10 s:平均有几个任务在等?",
                unit="个",
                hint="Little 定律:λ·τ。",
            ),
            Question(
                key="occupancy_10s_gib", prompt="这些等待任务平均占多少状态?", unit="GiB", hint="每个占 1 GiB:λ·M₀·τ。"
            ),
            Question(key="waiting_tasks_30s", prompt="等待改成 30 s:平均有几个任务在等?", unit="个"),
            Question(
                key="occupancy_30s_gib",
                prompt="等待 30 s 时平均占多少状态?",
                unit="GiB",
                solution=["状态本身没变大,只是被占得更久。"],
            ),
        ],
        notes=[
            Note("题面把每卡写成约 2,796 步/s;答案用书中取值 2,795.66。按 [[alt_mu]] 算,两卡积压 [[alt]]。", "book"),
            Note(
                "$Q_{k+1} = \\max(0, Q_k + A_k - \\mu\\Delta t)$,平均占用 $\\approx \\lambda M_0 \\tau$:两处都是例题 3-1 和图 3-3 的同一套计算。",
                "formula",
            ),
        ],
    )


FALLACY1 = outputs(
    backlog_end_steps_display=out("例题 3-1 ②:第二分钟末积压", unit="步", em=True, sym="Q_{disp}"),
    util_avg_pct=quiet("平均利用率", digits=1),
    util_after_pct=quiet("第二分钟利用率", digits=1),
)


@card(
    "fallacy-average-load",
    title="平均请求率和长度相同,负载就相同",
    label="✗",
    section="3.end",
    kind="table",
    aliases=("fallacy-3-1",),
    outputs=FALLACY1,
    lead="平均数只描述两分钟的总量,不描述哪一秒来了什么。",
)
def fallacy_average_load(p: Params) -> View:
    eg, run, _ = book_run("skewed")
    o = {k: eg[k] for k in FALLACY1}
    return View(
        o,
        blocks=[
            Block(
                "diagrams/fallacy-average-load.html",
                {
                    "text": say(
                        FALLACY1,
                        o,
                        "例题 3-1 的偏斜到达平均只用到处理能力的 [[util_avg_pct]],第二分钟却到了 [[util_after_pct]],",
                    ),
                    "backlog": say(FALLACY1, o, "[[backlog_end_steps_display|n]]"),
                    "link": "/cards/eg-3-1?preset=skewed",
                },
            )
        ],
        figures=[
            Figure(
                queue_spark(run),
                "例题 3-1 ② 的积压 Q(t)",
                "平均利用率只有 [[util_avg_pct]],第二分钟却到 [[util_after_pct]],积压在 120 s 时达到 [[backlog_end_steps_display]]。",
            )
        ],
    )
