"""Chapter 3 end matter, part B: 练习 3-3, 练习 3-4 and the second fallacy (token 单价).
The numbers come from the 3.2 cards' own functions; the exercises link back to them with presets."""
from __future__ import annotations

from ...cards import Block, Link, Note, Params, Question, Stat, Table, View, card, slider
from .s3_2 import (FIRST_ROUND_S, ToolDagParams, TRACE_TOOLS_S, TRACE_TOTAL_S, amdahl_outputs, price_cut_outputs,
                   success_outputs, tool_outputs)


# =============================================================================================
# 练习 3-3
# =============================================================================================

class Ex33Params(Params):
    cost_old: float = slider(1, ge=0.1, le=10, step=0.1, label="旧方法每次成本 c₁", unit="单位")
    success_old_pct: float = slider(50, ge=0, le=100, step=1, label="旧方法成功率 p₁", unit="%")
    cost_new: float = slider(2, ge=0.1, le=10, step=0.1, label="新方法每次成本 c₂", unit="单位")
    success_new_pct: float = slider(80, ge=0, le=100, step=1, label="新方法成功率 p₂", unit="%")
    cost_new_cheaper: float = slider(1.5, ge=0.1, le=10, step=0.1, label="新方法降价后 c₂′", unit="单位")


def _q(params: dict) -> str:
    return "&".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())


@card("ex-3-3", title="成功率提高能否抵消单次成本增加", label="练习 3-3〔延伸〕", section="3.end", kind="exercise",
      params=Ex33Params,
      lead="旧方法每次 1 单位、成功 50%;新方法每次 2 单位、成功 80%。每个成功任务谁更便宜?新方法降到 1.5 单位后,成功率至少要多少?")
def ex_3_3(p: Ex33Params) -> View:
    a = success_outputs(p.cost_old, p.success_old_pct, p.cost_new, p.success_new_pct)
    b = success_outputs(p.cost_old, p.success_old_pct, p.cost_new_cheaper, p.success_new_pct)
    c_old, c_new = a["success_cost_old"], a["success_cost_new"]
    o = {"success_cost_old": c_old, "success_cost_new": c_new,
         "new_vs_old_pct": None if (c_old is None or c_new is None) else 100 * (c_new / c_old - 1),
         "breakeven_at_cost_new_pct": a["breakeven_success_new_pct"],
         "breakeven_at_cheaper_pct": b["breakeven_success_new_pct"],
         "success_cost_new_cheaper": b["success_cost_new"]}
    v = View(outputs=o, headline="先自己算,再展开答案;下面的链接把题目条件装进图 3-9,可以拖滑块验证。")
    f = lambda x, d=3: "—" if x is None else f"{x:.{d}g}"
    p1, p2 = p.success_old_pct / 100, p.success_new_pct / 100
    v.questions = [
        Question("success_cost_new", "先算旧方法每个成功任务的成本 c₁/p₁,再求新方法每个成功任务的成本。", "单位",
                 solution=[f"旧:$C_1 = c_1/p_1 = {p.cost_old:g} / {p1:g} = {f(c_old)}$ 单位",
                           f"新:$C_2 = c_2/p_2 = {p.cost_new:g} / {p2:g} = {f(c_new)}$ 单位"]),
        Question("new_vs_old_pct", "新方法比旧方法贵(+)或省(−)百分之几?", "%",
                 solution=[f"$C_2/C_1 - 1 = {f(c_new)}/{f(c_old)} - 1 = {f(o['new_vs_old_pct'])}\\%$",
                           "成功率提高 " + f"{p2 / p1:.2g}" + " 倍,单次成本却涨了 " + f"{p.cost_new / p.cost_old:.2g}" + " 倍:"
                           + ("成功率的提高抵不过成本的增加。" if (c_new or 0) > (c_old or 0) else "成功率的提高足以抵消成本增加。")]
                 if p1 > 0 else ["旧方法成功率为 0,比值无定义。"]),
        Question("breakeven_at_cheaper_pct", f"新方法降到 {p.cost_new_cheaper:g} 单位时,成功率至少多少才不比旧方法贵?", "%",
                 solution=[f"$p_2 \\ge p_1 \\cdot c_2'/c_1 = {p1:g} \\times {p.cost_new_cheaper:g} / {p.cost_old:g} = "
                           f"{f(o['breakeven_at_cheaper_pct'])}\\%$",
                           f"对照:仍是 {p.cost_new:g} 单位时需要 {f(o['breakeven_at_cost_new_pct'])}%"
                           + ("(只有完美的新方法才能持平)" if o["breakeven_at_cost_new_pct"] and abs(o["breakeven_at_cost_new_pct"] - 100) < 1e-9 else ""),
                           f"降价后在 {p.success_new_pct:g}% 时每个成功任务 {f(o['success_cost_new_cheaper'], 4)} 单位"]),
        Question("success_cost_new_cheaper", f"降价到 {p.cost_new_cheaper:g} 单位、成功率仍是 {p.success_new_pct:g}% 时,每个成功任务多少?", "单位",
                 solution=[f"${p.cost_new_cheaper:g} / {p2:g} = {f(o['success_cost_new_cheaper'], 4)}$ 单位,"
                           + ("低于" if (o['success_cost_new_cheaper'] or 0) < (c_old or 0) else "不低于") + f"旧方法的 {f(c_old)}"]),
        Question("breakeven_at_cost_new_pct", "多次采样时,生成、验证和失败尝试怎样计入总成本?", kind="open",
                 answer_text=("分子是所有尝试的全部花费:每一份采样的生成、每一次验证(打分、跑测试)、"
                              "以及没有通过的尝试用掉的工具与环境;分母只数最终通过检查的任务。"
                              "采样 n 份再选一份时,一个任务的成本是 n 份生成 + n 次验证,而不是被选中那一份的成本;"
                              "一批里一个都没通过,就只能报告花费和失败原因。")),
    ]
    presets = [
        ("原题:新方法 2 单位、80%", {"cost_old": p.cost_old, "success_old_pct": p.success_old_pct,
                                     "cost_new": p.cost_new, "success_new_pct": p.success_new_pct}),
        (f"降价到 {p.cost_new_cheaper:g} 单位、成功率取持平点",
         {"cost_old": p.cost_old, "success_old_pct": p.success_old_pct, "cost_new": p.cost_new_cheaper,
          "success_new_pct": round(o["breakeven_at_cheaper_pct"]) if o["breakeven_at_cheaper_pct"] is not None
          and o["breakeven_at_cheaper_pct"] <= 100 else p.success_new_pct}),
    ]
    v.links = [Link(f"{lab} ▸ 图 3-9", "/cards/fig-3-9?" + _q(q)) for lab, q in presets]
    v.links_title = "把题目条件装进图 3-9"
    v.notes = [Note("$C_{success} = c/p$;新方法更省 $\\Leftrightarrow p_2/p_1 > c_2/c_1$。", "formula")]
    return v


# =============================================================================================
# 练习 3-4
# =============================================================================================

class Ex34Params(Params):
    first_round_speedup: float = slider(4, ge=1, le=20, step=0.5, label="首轮模型加速", unit="×")
    tools_speedup: float = slider(2, ge=1, le=20, step=0.5, label="全部工具加速", unit="×")


SETUP = "model1_s=2&tool_a_s=6&tool_b_s=10&model2_s=3&state_gib=1&n_tasks=1"


@card("ex-3-4", title="工具并行与局部加速能省多少", label="练习 3-4〔核心〕", section="3.end", kind="exercise",
      params=Ex34Params,
      lead="模型 2 s → 两个独立工具 6 s、10 s → 模型 3 s:串行、并行各要多久,等工具时占 1 GiB 的状态面积多大?再把 76.510 s 实测任务的首轮或工具加速,看能省多少。")
def ex_3_4(p: Ex34Params) -> View:
    d = ToolDagParams()   # the 练习 3-4 setting is fig-3-11's default
    t, _, _ = tool_outputs(d.model1_s, d.tool_a_s, d.tool_b_s, d.model2_s, "parallel", d.state_gib, d.n_tasks)
    fr = amdahl_outputs(TRACE_TOTAL_S, FIRST_ROUND_S, p.first_round_speedup)
    tl = amdahl_outputs(TRACE_TOTAL_S, TRACE_TOOLS_S, p.tools_speedup)
    o = {"serial_s": t["serial_s"], "parallel_s": t["parallel_s"], "tool_work_s": t["tool_work_s"],
         "gib_s_serial": t["gib_s_serial"], "gib_s_parallel": t["gib_s_parallel"],
         "first_round_new_total_s": fr["new_total_s"], "first_round_saved_pct": fr["saved_pct"],
         "first_round_speedup_overall": fr["overall_speedup"], "first_round_cap_speedup": fr["cap_speedup"],
         "tools_new_total_s": tl["new_total_s"], "tools_saved_pct": tl["saved_pct"]}
    c10, _, _ = tool_outputs(d.model1_s, 10, d.tool_b_s, d.model2_s, "parallel", d.state_gib, d.n_tasks)
    sf, st = p.first_round_speedup, p.tools_speedup
    v = View(outputs=o, headline="先自己算,再展开答案;下面的链接把题目条件装进图 3-11 和例题 3-2,可以拖滑块验证。")
    v.questions = [
        Question("serial_s", "两个工具串行执行,总时间多少?", "s",
                 solution=[f"$2 + 6 + 10 + 3 = {o['serial_s']:g}$ s"]),
        Question("parallel_s", "两个工具并行执行,总时间多少?", "s",
                 solution=[f"$2 + \\max(6, 10) + 3 = {o['parallel_s']:g}$ s",
                           f"工具总工作量仍是 $6 + 10 = {o['tool_work_s']:g}$ s,只是不再排队"]),
        Question("gib_s_serial", "只在等工具时占 1 GiB,串行的状态面积是多少?", "GiB·s",
                 solution=[f"$1\\,\\text{{GiB}} \\times (6 + 10)\\,\\text{{s}} = {o['gib_s_serial']:g}$ GiB·s"]),
        Question("gib_s_parallel", "并行时的状态面积呢?", "GiB·s",
                 solution=[f"$1\\,\\text{{GiB}} \\times \\max(6, 10)\\,\\text{{s}} = {o['gib_s_parallel']:g}$ GiB·s",
                           f"若工具 A 换成 10 s 的编译:串行 {c10['serial_s']:g} s / {c10['gib_s_serial']:g} GiB·s,"
                           f"并行 {c10['parallel_s']:g} s / {c10['gib_s_parallel']:g} GiB·s;多个任务同时等待时按任务累加。"]),
        Question("first_round_new_total_s", f"把首轮模型调用加速到 {sf:g} 倍,任务总时间变成多少?", "s",
                 solution=[f"首轮 {FIRST_ROUND_S:.2f} s(由 47.5% 反推),其余 {TRACE_TOTAL_S - FIRST_ROUND_S:.2f} s",
                           f"${TRACE_TOTAL_S - FIRST_ROUND_S:.2f} + {FIRST_ROUND_S:.2f}/{sf:g} = {fr['new_total_s']:.2f}$ s"]),
        Question("first_round_saved_pct", "这样省下总时间的百分之几?", "%",
                 solution=[f"$({TRACE_TOTAL_S:.3f} - {fr['new_total_s']:.2f}) / {TRACE_TOTAL_S:.3f} = {fr['saved_pct']:.1f}\\%$",
                           f"整体加速 {fr['overall_speedup']:.3f}×,再快也不超过 $1/(1-f) = {fr['cap_speedup']:.3f}$×"]),
        Question("tools_new_total_s", f"把所有工具加速到 {st:g} 倍,任务总时间变成多少?", "s",
                 solution=[f"工具合计 {TRACE_TOOLS_S:.3f} s → {TRACE_TOOLS_S / st:.3f} s",
                           f"${TRACE_TOTAL_S:.3f} - {TRACE_TOOLS_S - TRACE_TOOLS_S / st:.3f} = {tl['new_total_s']:.3f}$ s"]),
        Question("tools_saved_pct", "这样省下百分之几?", "%", rel_tol=0.05, close_tol=0.2,
                 solution=[f"${TRACE_TOOLS_S - TRACE_TOOLS_S / st:.3f} / {TRACE_TOTAL_S:.3f} = {tl['saved_pct']:.2f}\\%$"]),
        Question("first_round_cap_speedup", "为什么局部加速倍数不能单独决定收益?", kind="open",
                 answer_text=(f"收益取决于被加速部分原来占多少时间。首轮约占 {fr['part_pct']:.1f}%,加速 {sf:g} 倍省下 "
                              f"{fr['saved_pct']:.1f}%,而且无论多快都不超过 {fr['cap_speedup']:.3f}×;工具只占约 "
                              f"{tl['part_pct']:.1f}%,加速 {st:g} 倍只省 {tl['saved_pct']:.2f}%。倍数乘在占比上才是收益,"
                              "所以先量出各部分的时间占比,再决定加速哪一段。")),
    ]
    v.links = [
        Link("练习 3-4 设定:工具并行 ▸ 图 3-11", f"/cards/fig-3-11?{SETUP}&mode=parallel"),
        Link("工具串行(B 等 A)▸ 图 3-11", f"/cards/fig-3-11?{SETUP}&mode=serial"),
        Link("工具 A 换成 10 s 编译 ▸ 图 3-11", f"/cards/fig-3-11?{SETUP.replace('tool_a_s=6', 'tool_a_s=10')}&mode=parallel"),
        Link(f"首轮加速 {sf:g}× ▸ 例题 3-2", f"/cards/eg-3-2?speedup={sf:g}"),
        Link(f"工具加速 {st:g}× ▸ 例题 3-2", f"/cards/eg-3-2?target=tools&speedup={st:g}"),
    ]
    v.links_title = "用卡片验证"
    v.notes = [Note("首轮 36.37 s 是由例题 3-2 的“约 47.5%”反推的,书中未印。", "illustrative")]
    return v


# =============================================================================================
# 谬误 2
# =============================================================================================

@card("fallacy-token-price", title="✗ token 单价降了,成功任务成本就降了", section="3.end", kind="table",
      aliases=("fallacy-3-2",),
      lead="单价只是每个 token 的价钱;每个成功任务要付的是所有尝试的全部花费。")
def fallacy_token_price(p: Params) -> View:
    pc = price_cut_outputs(0.1, 20, 50, 80)
    o = {"success_cost_ratio": pc["success_cost_ratio"]}
    v = View(outputs=o)
    v.tables.append(Table(["", "内容"], [
        ["误区", "token 单价降了,每个成功任务的成本自然跟着降"],
        ["纠正", "额外的思考 token、没通过检查的回答、工具与环境的开销都算进分子;分母只数合格的任务"],
        ["特例", "一个都没成功的一批没有成功成本可言,只能报告花了多少、失败在哪儿"],
    ]))
    v.stats.append(Stat("success_cost_ratio", "单价 ×0.1、token ×20、成功率 50%→80% 时,成功成本", o["success_cost_ratio"],
                        "×", sig=3, emphasis=True))
    v.blocks.append(Block("diagrams/fallacy-token-price.html", {"ratio": o["success_cost_ratio"]}))
    return v
