"""Chapter 3 end matter, part B: 练习 3-3, 练习 3-4 and the second fallacy (token 单价). The numbers come
from the calculators the 3.2 cards use; the exercises link back to those cards with presets."""

from __future__ import annotations

from urllib.parse import urlencode

from ...calculators import amdahl, cost, dag
from ...cards import Block, Link, Note, Params, Question, Table, View, card, slider
from ...outputs import out, outputs
from ..shared.ch3_load import (
    FIRST_ROUND_S,
    MEASURED,
    TOOL_SETUP,
    TRACE_TOOLS_S,
    TRACE_TOTAL_S,
    SuccessParams,
    book,
    quiet,
    say,
)

# === 练习 3-3 ========================================================================================


class Ex33Params(SuccessParams):
    cost_new_cheaper: float = slider(1.5, ge=0.1, le=10, step=0.1, label="新方法降价后 c₂′", unit="单位", sym="c_2'")


EX33 = outputs(
    success_cost_old=quiet("旧方法每个成功任务", unit="单位", digits=2, sym="C_1"),
    new_vs_old_pct=quiet("新比旧", digits=1, sym="C_2/C_1 − 1"),
    success_cost_new=quiet("新方法每个成功任务", unit="单位", digits=2, sym="C_2"),
    breakeven_at_cost_new_pct=quiet("c₂ 时的持平成功率", digits=1, sym="p_2^*"),
    breakeven_at_cheaper_pct=quiet("c₂′ 时的持平成功率", digits=1, sym="p_2^*"),
    success_cost_new_cheaper=quiet("降价后每个成功任务", unit="单位", digits=4, sym="C_2'"),
)


def fig39(c1: float, p1: float, c2: float, p2: float) -> str:
    return "/cards/fig-3-9?" + urlencode(
        {"cost_old": f"{c1:g}", "success_old_pct": f"{p1:g}", "cost_new": f"{c2:g}", "success_new_pct": f"{p2:g}"}
    )


@card(
    "ex-3-3",
    title="成功率提高能否抵消单次成本增加",
    label="练习 3-3〔延伸〕",
    section="3.end",
    kind="exercise",
    params=Ex33Params,
    outputs=EX33,
    lead="旧方法每次 1 单位、成功 50%;新方法每次 2 单位、成功 80%。每个成功任务谁更便宜?新方法降到 1.5 单位后,成功率至少要多少?",
)
def ex_3_3(p: Ex33Params) -> View:
    p1, p2 = p.success_old_pct / 100, p.success_new_pct / 100
    a, b = (
        cost.success_outputs(p.cost_old, p1, p.cost_new, p2),
        cost.success_outputs(p.cost_old, p1, p.cost_new_cheaper, p2),
    )
    c_old, c_new = a["success_cost_old"], a["success_cost_new"]
    o = {
        "success_cost_old": c_old,
        "success_cost_new": c_new,
        "new_vs_old_pct": None if c_old is None or c_new is None else 100 * (c_new / c_old - 1),
        "breakeven_at_cost_new_pct": a["breakeven_success_new_pct"],
        "breakeven_at_cheaper_pct": b["breakeven_success_new_pct"],
        "success_cost_new_cheaper": b["success_cost_new"],
    }
    be, be2 = o["breakeven_at_cheaper_pct"], o["breakeven_at_cost_new_pct"]
    ctx = {
        "ratios": f"成功率提高 {p2 / p1:.2g} 倍,单次成本却涨了 {p.cost_new / p.cost_old:.2g} 倍:"
        if p1 > 0
        else "旧方法成功率为 0,比值无定义。",
        "verdict": (
            ""
            if p1 <= 0
            else "成功率的提高抵不过成本的增加。"
            if (c_new or 0) > (c_old or 0)
            else "成功率的提高足以抵消成本增加。"
        ),
        "perfect": "(只有完美的新方法才能持平)" if be2 is not None and abs(be2 - 100) < 1e-9 else "",
        "lower": "低于" if (o["success_cost_new_cheaper"] or 0) < (c_old or 0) else "不低于",
    }
    setting = (p.cost_old, p.success_old_pct)
    return View(
        o,
        headline="先自己算,再展开答案;下面的链接把题目条件装进图 3-9,可以拖滑块验证。",
        ctx=ctx,
        questions=[
            Question(
                "success_cost_new",
                "先算旧方法每个成功任务的成本 c₁/p₁,再求新方法每个成功任务的成本。",
                "单位",
                solution=["旧方法:$C_1 = c_1/p_1$ = [[success_cost_old]]。"],
            ),
            Question("new_vs_old_pct", "新方法比旧方法贵(+)或省(−)百分之几?", "%", solution=["[[ratios]][[verdict]]"]),
            Question(
                "breakeven_at_cheaper_pct",
                f"新方法降到 {p.cost_new_cheaper:g} 单位时,成功率至少多少才不比旧方法贵?",
                "%",
                solution=[
                    "$p_2 \\ge p_1 \\cdot c_2'/c_1$。",
                    "对照:仍是 [[cost_new]] 时需要 [[breakeven_at_cost_new_pct]][[perfect]]。",
                    "降价后在 [[success_new_pct]] 时每个成功任务 [[success_cost_new_cheaper]]。",
                ],
            ),
            Question(
                "success_cost_new_cheaper",
                f"降价到 {p.cost_new_cheaper:g} 单位、成功率仍是 {p.success_new_pct:g}% 时,每个成功任务多少?",
                "单位",
                solution=["[[lower]]旧方法的 [[success_cost_old]]。"],
            ),
            Question(
                "breakeven_at_cost_new_pct",
                "多次采样时,生成、验证和失败尝试怎样计入总成本?",
                kind="open",
                answer_text=(
                    "分子是所有尝试的全部花费:每一份采样的生成、每一次验证(打分、跑测试)、"
                    "以及没有通过的尝试用掉的工具与环境;分母只数最终通过检查的任务。"
                    "采样 n 份再选一份时,一个任务的成本是 n 份生成 + n 次验证,而不是被选中那一份的成本;"
                    "一批里一个都没通过,就只能报告花费和失败原因。"
                ),
            ),
        ],
        links=[
            Link("原题:新方法 2 单位、80% ▸ 图 3-9", fig39(*setting, p.cost_new, p.success_new_pct)),
            Link(
                f"降价到 {p.cost_new_cheaper:g} 单位、成功率取持平点 ▸ 图 3-9",
                fig39(*setting, p.cost_new_cheaper, round(be) if be is not None and be <= 100 else p.success_new_pct),
            ),
        ],
        links_title="把题目条件装进图 3-9",
        notes=[Note("$C_{success} = c/p$;新方法更省 $\\Leftrightarrow p_2/p_1 > c_2/c_1$。", "formula")],
    )


# === 练习 3-4 ========================================================================================


class Ex34Params(Params):
    first_round_speedup: float = slider(4, ge=1, le=20, step=0.5, label="首轮模型加速", unit="×", sym="s_1")
    tools_speedup: float = slider(2, ge=1, le=20, step=0.5, label="全部工具加速", unit="×", sym="s_2")


EX34 = outputs(
    serial_s=quiet("串行总时间", sym="T_{ser}"),
    parallel_s=quiet("并行总时间", sym="T_{par}"),
    tool_work_s=quiet("工具总工作量"),
    gib_s_serial=quiet("状态面积 · 串行", unit="GiB·s"),
    gib_s_parallel=quiet("状态面积 · 并行", unit="GiB·s"),
    first_round_new_total_s=quiet("首轮加速后总时间", digits=2, sym="T_{new}"),
    first_round_saved_pct=quiet("首轮加速省下", digits=1),
    first_round_speedup_overall=quiet("整体加速", unit="×", digits=3),
    first_round_part_pct=quiet("首轮占比 f", digits=1, sym="f"),
    first_round_cap_speedup=quiet("Amdahl 上限", unit="×", digits=3, sym="S_{max}"),
    tools_saved_pct=quiet("工具加速省下", digits=2),
    tools_new_total_s=quiet("工具加速后总时间", digits=3, sym="T_{new}"),
    tools_part_pct=quiet("工具占比 f", digits=1, sym="f"),
)
SETUP = urlencode(TOOL_SETUP)


@card(
    "ex-3-4",
    title="工具并行与局部加速能省多少",
    label="练习 3-4〔核心〕",
    section="3.end",
    kind="exercise",
    params=Ex34Params,
    outputs=EX34,
    lead="模型 2 s → 两个独立工具 6 s、10 s → 模型 3 s:串行、并行各要多久,等工具时占 1 GiB 的状态面积多大?再把 76.510 s 实测任务的首轮或工具加速,看能省多少。",
)
def ex_3_4(p: Ex34Params) -> View:
    d = {
        k: book(v, s, u, "练习 3-4 题设")
        for (k, v), (s, u) in zip(
            TOOL_SETUP.items(), (("m_1", "s"), ("a", "s"), ("b", "s"), ("m_2", "s"), ("M", "GiB"), ("n", ""))
        )
    }
    t = dag.tool_wait_outputs(
        d["model1_s"], d["tool_a_s"], d["tool_b_s"], d["model2_s"], True, d["state_gib"], d["n_tasks"]
    )
    total = book(TRACE_TOTAL_S, "T", "s", MEASURED)
    fr = amdahl.part_outputs(total, book(FIRST_ROUND_S, "T_{first}", "s", "由 47.5% 反推"), p.first_round_speedup)
    tl = amdahl.part_outputs(total, book(TRACE_TOOLS_S, "T_{tools}", "s", MEASURED), p.tools_speedup)
    o = {
        **{k: t[k] for k in ("serial_s", "parallel_s", "tool_work_s", "gib_s_serial", "gib_s_parallel")},
        **{f"first_round_{k}": fr[k] for k in ("new_total_s", "saved_pct", "cap_speedup", "part_pct")},
        "first_round_speedup_overall": fr["overall_speedup"],
        **{f"tools_{k}": tl[k] for k in ("new_total_s", "saved_pct", "part_pct")},
    }
    c10 = dag.tool_wait_outputs(2, 10, 10, 3, True, 1, 1)
    sf, st = p.first_round_speedup, p.tools_speedup
    return View(
        o,
        headline="先自己算,再展开答案;下面的链接把题目条件装进图 3-11 和例题 3-2,可以拖滑块验证。",
        ctx={
            "c10": f"串行 {c10['serial_s']:g} s / {c10['gib_s_serial']:g} GiB·s,并行 {c10['parallel_s']:g} s / "
            f"{c10['gib_s_parallel']:g} GiB·s"
        },
        questions=[
            Question("serial_s", "两个工具串行执行,总时间多少?", "s"),
            Question(
                "parallel_s",
                "两个工具并行执行,总时间多少?",
                "s",
                solution=["工具总工作量仍是 [[tool_work_s]],只是不再排队。"],
            ),
            Question("gib_s_serial", "只在等工具时占 1 GiB,串行的状态面积是多少?", "GiB·s"),
            Question(
                "gib_s_parallel",
                "并行时的状态面积呢?",
                "GiB·s",
                solution=["若工具 A 换成 10 s 的编译:[[c10]];多个任务同时等待时按任务累加。"],
            ),
            Question(
                "first_round_new_total_s",
                f"把首轮模型调用加速到 {sf:g} 倍,任务总时间变成多少?",
                "s",
                solution=["首轮时间由例题 3-2 的“约 47.5%”反推(书中未印),其余部分不变。"],
            ),
            Question(
                "first_round_saved_pct",
                "这样省下总时间的百分之几?",
                "%",
                solution=[
                    "整体加速 [[first_round_speedup_overall]],再快也不超过 $1/(1-f)$ = [[first_round_cap_speedup]]。"
                ],
            ),
            Question("tools_new_total_s", f"把所有工具加速到 {st:g} 倍,任务总时间变成多少?", "s"),
            Question("tools_saved_pct", "这样省下百分之几?", "%"),
            Question(
                "first_round_cap_speedup",
                "为什么局部加速倍数不能单独决定收益?",
                kind="open",
                answer_text=say(
                    EX34,
                    o,
                    f"收益取决于被加速部分原来占多少时间。首轮约占 [[first_round_part_pct]],加速 {sf:g} 倍省下 [[first_round_saved_pct]],"
                    f"而且无论多快都不超过 [[first_round_cap_speedup]];工具只占约 [[tools_part_pct]],加速 {st:g} 倍只省 [[tools_saved_pct]]。"
                    "倍数乘在占比上才是收益,所以先量出各部分的时间占比,再决定加速哪一段。",
                ),
            ),
        ],
        links=[
            Link("练习 3-4 设定:工具并行 ▸ 图 3-11", f"/cards/fig-3-11?{SETUP}&mode=parallel"),
            Link("工具串行(B 等 A)▸ 图 3-11", f"/cards/fig-3-11?{SETUP}&mode=serial"),
            Link(
                "工具 A 换成 10 s 编译 ▸ 图 3-11",
                f"/cards/fig-3-11?{SETUP.replace('tool_a_s=6', 'tool_a_s=10')}&mode=parallel",
            ),
            Link(f"首轮加速 {sf:g}× ▸ 例题 3-2", f"/cards/eg-3-2?speedup={sf:g}"),
            Link(f"工具加速 {st:g}× ▸ 例题 3-2", f"/cards/eg-3-2?target=tools&speedup={st:g}"),
        ],
        links_title="用卡片验证",
        notes=[Note("首轮 36.37 s 是由例题 3-2 的“约 47.5%”反推的,书中未印。", "illustrative")],
    )


# === 谬误 2 ==========================================================================================

FALLACY2 = outputs(
    success_cost_ratio=out(
        "单价 ×0.1、token ×20、成功率 50%→80% 时,成功成本", unit="×", sig=3, em=True, sym="C_{new}/C_{old}"
    )
)


@card(
    "fallacy-token-price",
    title="✗ token 单价降了,成功任务成本就降了",
    section="3.end",
    kind="table",
    aliases=("fallacy-3-2",),
    outputs=FALLACY2,
    lead="单价只是每个 token 的价钱;每个成功任务要付的是所有尝试的全部花费。",
)
def fallacy_token_price(p: Params) -> View:
    src = "3.2.2 的例子"
    o = {
        "success_cost_ratio": cost.price_cut_outputs(
            book(0.1, "r_{price}", "×", src),
            book(20, "r_{token}", "×", src),
            book(0.5, "p_{old}", "", src),
            book(0.8, "p_{new}", "", src),
        )["success_cost_ratio"]
    }
    return View(
        o,
        blocks=[Block("diagrams/fallacy-token-price.html", {"ratio": say(FALLACY2, o, "[[success_cost_ratio|n]]")})],
        tables=[
            Table(
                ["", "内容"],
                [
                    ["误区", "token 单价降了,每个成功任务的成本自然跟着降"],
                    ["纠正", "额外的思考 token、没通过检查的回答、工具与环境的开销都算进分子;分母只数合格的任务"],
                    ["特例", "一个都没成功的一批没有成功成本可言,只能报告花了多少、失败在哪儿"],
                ],
            )
        ],
    )
