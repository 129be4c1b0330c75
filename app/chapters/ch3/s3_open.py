"""Chapter 3 opener: 平均数相同,负载不一定相同 — two lanes, 480 requests in two minutes.

Both lanes run through 例题 3-1's simulation (``s3_1.eg31_outputs`` → ``queueing.run_two_class``)."""
from __future__ import annotations

import bisect

from ...calculators import queueing as qu
from ...cards import Figure, Note, Params, View, card, slider
from ...charts import animate, axis, bar, figure, layout, line
from .s3_1 import LI, LO, MU_BOOK, Eg31Params, eg31_outputs, frame_indices, thin

LANE_U, LANE_S = "均匀混合", "前 9:1、后 1:9"


class IntroParams(Params):
    rate_req_s: float = slider(4, ge=1, le=8, step=0.5, label="平均到达率", unit="条/s")
    n_cards: int = slider(2, ge=1, le=4, step=1, label="decode 卡数")
    mu_per_card: float = slider(MU_BOOK, ge=1000, le=6000, step=0.01, label="每卡 decode 处理率", unit="步/s")
    share_li_first_pct: float = slider(90, ge=0, le=100, step=10, label="第一分钟长输入占比(偏斜道)", unit="%")
    share_li_second_pct: float = slider(10, ge=0, le=100, step=10, label="第二分钟长输入占比(偏斜道)", unit="%")


def lanes(p: IntroParams) -> tuple[dict, qu.BacklogRun, dict, qu.BacklogRun]:
    """Both lanes as 例题 3-1 settings: uniform = preset ①, skewed = preset ② with the page's shares."""
    common = dict(rate_req_s=p.rate_req_s, n_cards=p.n_cards, mu_per_card=p.mu_per_card)
    ou, ru = eg31_outputs(Eg31Params(preset="uniform", **common))
    os_, rs = eg31_outputs(Eg31Params(preset="skewed", share_li_before_pct=p.share_li_first_pct,
                                      share_li_after_pct=p.share_li_second_pct, **common))
    return ou, ru, os_, rs


def _thin_t(run: qu.BacklogRun) -> list[float]:
    return [run.times[i] for i in thin(len(run.times), 150)]


def _thin_q(run: qu.BacklogRun) -> list[float]:
    return [run.queue[i] for i in thin(len(run.queue), 150)]


def _at(run: qu.BacklogRun, t: float) -> float:
    """Q of a run at time t (the last recursion point at or before t; 0 after it drained)."""
    q = 0.0
    for tt, qq in zip(run.times, run.queue):
        if tt > t + 1e-9:
            break
        q = qq
    return q


def _demand_pct(run: qu.BacklogRun, t: float) -> float:
    """Demand of the interval containing t, as % of capacity (0 after arrivals stop)."""
    acc = 0.0
    for a, d in zip(run.arrivals, run.interval_s):
        if acc <= t < acc + d:
            return 100 * a / d / run.capacity
        acc += d
    return 0.0


@card("intro-two-minutes", title="平均数相同,负载不一定相同", section="3.open",
      kind="animation", params=IntroParams, aliases=("ch3-intro",),
      lead="两分钟里都到达 480 条请求,平均到达率和平均长度都一样。上道始终把长输入、长输出各半混合;下道第一分钟 9:1、第二分钟 1:9。"
           "柱高是 decode 需求占两张 RTX PRO 6000 处理能力的百分比,虚线 = 100%。按 ▶ 播放这两分钟。")
def intro_two_minutes(p: IntroParams) -> View:
    ou, ru, os_, rs = lanes(p)
    cap = ou["capacity_steps_s"]
    s1, s2 = p.share_li_first_pct / 100, p.share_li_second_pct / 100
    o = {
        "capacity_steps_s": cap,
        "total_requests": ou["total_requests"], "total_requests_skewed": os_["total_requests"],
        "mean_input_tokens": 0.5 * LI.input_tokens + 0.5 * LO.input_tokens,
        "mean_input_tokens_skewed": (s1 + s2) / 2 * LI.input_tokens + (1 - (s1 + s2) / 2) * LO.input_tokens,
        "mean_output_tokens": 0.5 * LI.output_tokens + 0.5 * LO.output_tokens,
        "uniform_demand_steps_s": ou["avg_demand_steps_s"], "uniform_util_pct": ou["util_avg_pct"],
        "first_min_demand_steps_s": os_["demand_before_steps_s"], "first_min_util_pct": os_["util_before_pct"],
        "second_min_demand_steps_s": os_["demand_after_steps_s"], "second_min_util_pct": os_["util_after_pct"],
        "uniform_backlog_end_steps": ou["backlog_end_steps"],
        "backlog_end_steps_display": os_["backlog_end_steps_display"],
        "backlog_wan": os_["backlog_end_steps_display"] // 10_000,
        "skewed_drain_s": os_["drain_s"],
    }
    o = {k: (int(v) if isinstance(v, float) and v.is_integer() else v) for k, v in o.items()}

    def lane_bars(run: qu.BacklogRun, name: str, yax: str, legend: bool) -> list[dict]:
        xs, under, over = [], [], []
        t = 0.0
        for a, d in zip(run.arrivals, run.interval_s):
            pct = 100 * a / d / cap
            xs.append(t + d / 2)
            under.append(min(pct, 100.0))
            over.append(max(pct - 100.0, 0.0))
            t += d
        return [bar(xs, under, "decode 需求(≤ 100%)", "decode", yaxis=yax, showlegend=legend, width=1.0,
                    legendgroup="d"),
                bar(xs, over, "超出处理能力的部分", "backlog", yaxis=yax, showlegend=legend, width=1.0,
                    legendgroup="o")]

    end_t = max(rs.times[-1], ru.times[-1], 140.0)
    ymax = max(100.0, o["second_min_util_pct"], o["first_min_util_pct"], o["uniform_util_pct"]) * 1.18
    qmax = max(rs.peak, ru.peak, 1.0) * 1.2
    data = (lane_bars(ru, LANE_U, "y", True) + lane_bars(rs, LANE_S, "y2", False) + [
        line(_thin_t(ru), _thin_q(ru), "积压 Q(t)", "backlog", yaxis="y4", width=2.5, showlegend=False, legendgroup="q"),
        line(_thin_t(rs), _thin_q(rs), "积压 Q(t)", "backlog", yaxis="y3", width=3, legendgroup="q"),
        line([end_t, end_t], [0, ymax * 0.92], "游标", "ink", yaxis="y", mode="lines+text", width=1.5, dash="dot",
             text=["", ""], textposition="top right", showlegend=False),
        line([end_t, end_t], [0, ymax * 0.92], "游标", "ink", yaxis="y2", mode="lines+text", width=1.5, dash="dot",
             text=["", ""], textposition="top right", showlegend=False),
    ])
    lay = layout(axis("", range_=(0, end_t + 2), showticklabels=False, anchor="y"),
                 axis(f"{LANE_U}<br>需求 / 能力 (%)", domain=[0.56, 1.0], range_=(0, ymax)),
                 height=440, margin=(72, 64, 24, 48), barmode="stack", bargap=0)
    lay["xaxis"]["matches"] = "x2"
    lay["xaxis2"] = axis("时间 (s):到达在 120 s 停止", range_=(0, end_t + 2), anchor="y2")
    lay["yaxis2"] = axis(f"{LANE_S}<br>需求 / 能力 (%)", domain=[0.0, 0.44], range_=(0, ymax), anchor="x2")
    lay["yaxis3"] = axis("积压 Q(步)", overlaying="y2", side="right", range_=(0, qmax), showgrid=False, anchor="x2")
    lay["yaxis4"] = axis("Q(步)", overlaying="y", side="right", range_=(0, qmax), showgrid=False)
    for yref in ("y", "y2"):
        lay.setdefault("shapes", []).append({"type": "line", "xref": "paper", "yref": yref, "x0": 0, "x1": 1,
                                             "y0": 100, "y1": 100, "line": {"color": "#e0413a", "dash": "dash", "width": 1.5}})
        lay.setdefault("annotations", []).append({"x": 0.01, "xref": "paper", "y": 100, "yref": yref, "yanchor": "bottom",
                                                  "xanchor": "left", "showarrow": False,
                                                  "text": f"100% = {cap:,.0f} 步/s", "font": {"size": 12, "color": "#e0413a"}})
    # traces 0..3 bars, 4 uniform Q, 5 skewed Q, 6/7 cursors
    for trace in data[:4]:
        trace["xaxis"] = "x" if trace["yaxis"] == "y" else "x2"
    data[4]["xaxis"], data[5]["xaxis"], data[6]["xaxis"], data[7]["xaxis"] = "x", "x2", "x", "x2"
    fig = figure(data, lay)

    times = [float(t) for t in range(0, int(end_t) + 1)]
    uq_t, uq_v = data[4]["x"], data[4]["y"]
    sq_t, sq_v = data[5]["x"], data[5]["y"]
    fr, labels = [], []
    for i in frame_indices(len(times), 48):
        t = times[i]
        qu_t, qs_t = _at(ru, t), _at(rs, t)
        du, ds = _demand_pct(ru, t), _demand_pct(rs, t)
        ku = bisect.bisect_right(uq_t, t + 1e-9)
        ks = bisect.bisect_right(sq_t, t + 1e-9)
        fr.append({"data": [
            {"x": uq_t[:ku], "y": uq_v[:ku]},
            {"x": sq_t[:ks], "y": sq_v[:ks]},
            {"x": [t, t], "text": ["", f"{du:.1f}% · Q={qu.floor_steps(qu_t):,}"]},
            {"x": [t, t], "text": ["", f"{ds:.1f}% · Q={qu.floor_steps(qs_t):,}"]},
        ], "traces": [4, 5, 6, 7]})
        labels.append(f"{t:.0f}")
    data[6]["text"], data[7]["text"] = fr[-1]["data"][2]["text"], fr[-1]["data"][3]["text"]
    animate(fig, fr, labels, duration=150, prefix="t = ")

    v = View(outputs=o, headline=f"平均每秒 {p.rate_req_s:g} 条 · {p.n_cards} 张卡 · 虚线 100% = {cap:,.2f} 步/s")
    v.stat("total_requests", "每道请求数", "条")
    v.stat("mean_input_tokens", "平均输入长度", "token")
    v.stat("mean_output_tokens", "平均输出长度", "token")
    v.stat("capacity_steps_s", "100% 线", "步/s", digits=0, approx=True)
    v.stat("uniform_util_pct", f"{LANE_U}", "%", digits=1)
    v.stat("first_min_util_pct", "偏斜道第一分钟", "%", digits=1)
    v.stat("second_min_util_pct", "偏斜道第二分钟", "%", digits=1)
    v.stat("uniform_backlog_end_steps", f"{LANE_U}:120 s 时积压", "步", digits=0)
    v.stat("backlog_end_steps_display", "偏斜道:120 s 时积压 ⌊Q⌋", "步", emphasis=True,
           book=f"{o['backlog_wan']} 万")
    v.stat("skewed_drain_s", "偏斜道再排空", "s", digits=2)
    v.figures.append(Figure(fig, "两道请求流:同样的平均数,不同的负载",
                            f"上道每秒需求 {o['uniform_demand_steps_s']:,.0f} 步,占处理能力 {o['uniform_util_pct']:.1f}%,从不排队;"
                            f"下道第一分钟 {o['first_min_util_pct']:.1f}%,第二分钟 {o['second_min_util_pct']:.1f}%,"
                            f"到 120 s 积压 {o['backlog_end_steps_display']:,} 步(约 {o['backlog_wan']} 万),再过 {o['skewed_drain_s']:.2f} s 才排空。",
                            animated=True))
    v.notes = [
        Note("三段是:上道、下道第一分钟、下道第二分钟。三段的平均到达率都是每秒 4 条,只差长输入(8192→256)与长输出(1024→2048)的占比。"),
        Note("每秒的柱子是页面的画法:到达按流体计,每秒 4 条按占比拆成两类。积压用例题 3-1 的同一个递推算出。"),
    ]
    return v
