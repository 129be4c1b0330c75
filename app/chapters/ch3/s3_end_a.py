"""Chapter 3 end matter, part A: 练习 3-2 and the first fallacy. Both take their numbers from 例题 3-1's
simulation (``s3_1.eg31_outputs``) and 图 3-3's occupancy (``s3_1.fig33_outputs``); nothing is re-derived."""
from __future__ import annotations

from typing import Literal
from urllib.parse import urlencode

from ...cards import Block, Figure, Note, Params, Question, View, card, choice, number_type, slider
from ...charts import axis, figure, layout, line
from .s3_1 import MU_BOOK, Eg31Params, eg31_figure, eg31_outputs, fig33_outputs, fixed

MU_CHOICES = {2795.66: "2,795.66(书中取值)", 2796: "2,796(题面取整)"}


class Ex32Params(Params):
    mu_per_card: number_type(MU_CHOICES) = choice(2795.66, MU_CHOICES, label="每卡处理率", help="每卡 decode 步/s")
    burst_s: float = slider(30, ge=10, le=120, step=5, label="突发持续", unit="s")
    arrival_rate_per_s: float = fixed(2, "进入工具等待的速率", "个/s")
    state_gib: float = fixed(1, "每个等待任务的状态", "GiB")


def burst_setting(p: Ex32Params, cards: int) -> Eg31Params:
    """练习 3-2's burst as 例题 3-1 preset ③ (2 cards) or ④ (3 cards)."""
    preset = "burst30_2cards" if cards == 2 else "burst30_3cards"
    return Eg31Params(preset=preset, duration_s=p.burst_s, mu_per_card=float(p.mu_per_card))


def link_query(s: Eg31Params) -> str:
    """The 例题 3-1 URL query for a setting: the preset plus what differs from it."""
    q = {"preset": s.preset}
    if s.duration_s is not None and s.duration_s != 30:
        q["duration_s"] = f"{s.duration_s:g}"
    if s.mu_per_card != MU_BOOK:
        q["mu_per_card"] = f"{s.mu_per_card:g}"
    return "?" + urlencode(q)


@card("ex-3-2", title="突发请求与工具等待如何增加积压和状态占用", label="练习 3-2〔核心〕", section="3.end",
      kind="exercise", params=Ex32Params,
      lead="第二分钟那样的强度(每秒 7,471.2 步)只持续 30 秒,decode 用两张或三张卡,初始队列为空:求积压曲线和停止到达后的排空时间。"
           "再算每秒 2 个任务进入工具等待、每个等 10 s 占 1 GiB 时,平均有几个任务在等、占多少;等待改成 30 s 再算。")
def ex_3_2(p: Ex32Params) -> View:
    s2, s3 = burst_setting(p, 2), burst_setting(p, 3)
    o2, run2 = eg31_outputs(s2)
    o3, _ = eg31_outputs(s3)
    w10 = fig33_outputs(p.arrival_rate_per_s, 10, p.state_gib, 40)
    w30 = fig33_outputs(p.arrival_rate_per_s, 30, p.state_gib, 40)
    o = {
        "burst_demand_steps_s": o2["demand_after_steps_s"],
        "growth_2cards_steps_s": o2["demand_after_steps_s"] - o2["capacity_steps_s"],
        "backlog_2cards_steps": o2["backlog_end_steps"], "drain_2cards_s": o2["drain_s"],
        "backlog_3cards_steps": o3["backlog_end_steps"], "drain_3cards_s": o3["drain_s"],
        "util_3cards_pct": o3["util_after_pct"],
        "waiting_tasks_10s": w10["mean_waiting_tasks"], "occupancy_10s_gib": w10["mean_occupancy_gib"],
        "waiting_tasks_30s": w30["mean_waiting_tasks"], "occupancy_30s_gib": w30["mean_occupancy_gib"],
    }
    mu, T = float(p.mu_per_card), p.burst_s
    cap2, cap3 = o2["capacity_steps_s"], o3["capacity_steps_s"]
    lam = p.arrival_rate_per_s

    v = View(outputs=o, headline=f"突发 {T:g} s · 每秒 {o['burst_demand_steps_s']:,.1f} 步 · 每卡 {mu:,.2f} 步/s")
    v.blocks.append(Block("diagrams/ex-3-2.html", {
        "eg_2": "/cards/eg-3-1" + link_query(s2), "eg_3": "/cards/eg-3-1" + link_query(s3),
        "fig_10": "/cards/fig-3-3?wait_s=10", "fig_30": "/cards/fig-3-3?wait_s=30", "burst": T,
        "demand": o["burst_demand_steps_s"],
    }))
    v.stat("burst_demand_steps_s", "突发强度 4·(0.1·255 + 0.9·2047)", "步/s", digits=1)
    v.stat("growth_2cards_steps_s", "两卡时积压每秒增加", "步/s", digits=2)
    v.stat("backlog_2cards_steps", f"两卡:{T:g} s 末积压", "步", digits=1, emphasis=True)
    v.stat("drain_2cards_s", "两卡:排空时间", "s", digits=2)
    v.stat("backlog_3cards_steps", "三卡:积压", "步", digits=0)
    v.stat("util_3cards_pct", "三卡:利用率", "%", digits=1)
    v.stat("occupancy_10s_gib", "τ = 10 s:平均占用", "GiB", sig=4)
    v.stat("occupancy_30s_gib", "τ = 30 s:平均占用", "GiB", sig=4)
    v.figures.append(Figure(eg31_figure(s2, o2, run2, height=300), f"两张卡:{T:g} s 突发的积压曲线(例题 3-1 预设 ③)",
                            f"积压以每秒 {o['growth_2cards_steps_s']:,.2f} 步直线上升,{T:g} s 末 {o['backlog_2cards_steps']:,.1f} 步,"
                            f"之后以每秒 {cap2:,.2f} 步直线下降,{o['drain_2cards_s']:.2f} s 排空。", animated=True))
    g = o["growth_2cards_steps_s"]
    v.questions = [
        Question(key="backlog_2cards_steps", prompt=f"两张卡时,{T:g} s 末积压多少 decode 步?", unit="步",
                 hint="每秒到达 7,471.2 步,两卡每秒做 2 × 2,795.66 步;队列从空开始。",
                 solution=[f"两卡处理率 $\\mu = 2 \\times {mu:,.2f} = {cap2:,.2f}$ 步/s。",
                           f"每秒净增 ${o['burst_demand_steps_s']:,.1f} - {cap2:,.2f} = {g:,.2f}$ 步,积压是一条直线 $Q(t) = {g:,.2f}\\,t$。",
                           f"$Q({T:g}) = {g:,.2f} \\times {T:g} = {o['backlog_2cards_steps']:,.1f}$ 步。"]),
        Question(key="drain_2cards_s", prompt="停止到达后,两张卡要多久排空?", unit="s",
                 hint="没有新到达时,积压按处理率直线下降。",
                 solution=[f"$Q/\\mu = {o['backlog_2cards_steps']:,.1f} / {cap2:,.2f} = {o['drain_2cards_s']:.2f}$ s;"
                           f"整段曲线先直线升 {T:g} s,再直线降 {o['drain_2cards_s']:.2f} s。"]),
        Question(key="backlog_3cards_steps", prompt="换成三张卡,积压多少?", unit="步",
                 hint="先比较需求和三卡处理率。",
                 solution=[f"三卡 $\\mu = 3 \\times {mu:,.2f} = {cap3:,.2f}$ 步/s,高于需求 {o['burst_demand_steps_s']:,.1f} 步/s,"
                           f"利用率 {o['util_3cards_pct']:.1f}%。",
                           f"队列一直是空的:积压 {o['backlog_3cards_steps']:,.0f} 步,排空时间 {o['drain_3cards_s']:.0f} s。"]),
        Question(key="waiting_tasks_10s", prompt="每秒 2 个任务进入工具等待、每个等 10 s:平均有几个任务在等?", unit="个",
                 hint="Little 定律:λ·τ。",
                 solution=[f"$\\lambda\\tau = {lam:g} \\times 10 = {o['waiting_tasks_10s']:g}$ 个。"]),
        Question(key="occupancy_10s_gib", prompt="这些等待任务平均占多少状态?", unit="GiB",
                 hint="每个占 1 GiB:λ·M₀·τ。",
                 solution=[f"$\\lambda M_0 \\tau = {lam:g} \\times {p.state_gib:g} \\times 10 = {o['occupancy_10s_gib']:g}$ GiB。"]),
        Question(key="waiting_tasks_30s", prompt="等待改成 30 s:平均有几个任务在等?", unit="个",
                 solution=[f"$\\lambda\\tau = {lam:g} \\times 30 = {o['waiting_tasks_30s']:g}$ 个。"]),
        Question(key="occupancy_30s_gib", prompt="等待 30 s 时平均占多少状态?", unit="GiB",
                 solution=[f"$\\lambda M_0 \\tau = {lam:g} \\times {p.state_gib:g} \\times 30 = {o['occupancy_30s_gib']:g}$ GiB:"
                           "状态本身没变大,只是被占得更久。"]),
    ]
    alt = Ex32Params(mu_per_card=2796 if p.mu_per_card == 2795.66 else 2795.66, burst_s=p.burst_s)
    oa, _ = eg31_outputs(burst_setting(alt, 2))
    v.notes = [
        Note(f"题面把每卡写成约 2,796 步/s;答案用书中取值 2,795.66。按 {float(alt.mu_per_card):,.2f} 算,两卡积压 "
             f"{oa['backlog_end_steps']:,.1f} 步、排空 {oa['drain_s']:.2f} s。", "book"),
        Note("$Q_{k+1} = \\max(0, Q_k + A_k - \\mu\\Delta t)$,平均占用 $\\approx \\lambda M_0 \\tau$:两处都是例题 3-1 和图 3-3 的同一套计算。", "formula"),
    ]
    return v


@card("fallacy-average-load", title="平均请求率和长度相同,负载就相同", label="✗", section="3.end", kind="table",
      aliases=("fallacy-3-1",),
      lead="平均数只描述两分钟的总量,不描述哪一秒来了什么。")
def fallacy_average_load(p: Params) -> View:
    o2, run = eg31_outputs(Eg31Params(preset="skewed"))
    o = {"backlog_end_steps_display": o2["backlog_end_steps_display"]}
    v = View(outputs=o)
    v.blocks.append(Block("diagrams/fallacy-average-load.html", {
        "backlog": o2["backlog_end_steps_display"], "util_avg": o2["util_avg_pct"], "util_after": o2["util_after_pct"],
        "link": "/cards/eg-3-1?preset=skewed"}))
    v.stat("backlog_end_steps_display", "例题 3-1 ②:第二分钟末积压", "步", emphasis=True)
    spark = figure([line(run.times, run.queue, "积压 Q(t)", "backlog", fill="tozeroy", fillcolor="rgba(224,65,58,0.15)")],
                   layout(axis("时间 (s)"), axis("积压 (步)"), height=200, legend=False, margin=(64, 16, 12, 40)))
    v.figures.append(Figure(spark, "例题 3-1 ② 的积压 Q(t)",
                            f"平均利用率只有 {o2['util_avg_pct']:.1f}%,第二分钟却到 {o2['util_after_pct']:.1f}%,"
                            f"积压在 120 s 时达到 {o['backlog_end_steps_display']:,} 步。"))
    return v
