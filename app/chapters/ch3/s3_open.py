"""Chapter 3 opener: 平均数相同,负载不一定相同 — two lanes, 480 requests in two minutes. Both lanes
run through 例题 3-1's computation (``queueing.two_class_outputs``, one backlog simulation)."""

from __future__ import annotations

from ...calculators import queueing as qu
from ...cards import Figure, Note, Params, View, card, slider
from ...charts.backlog import two_lanes
from ...outputs import out, outputs
from ..shared.ch3_load import MU_BOOK, book, book_card, mix, quiet

LANES = ("均匀混合", "前 9:1、后 1:9")


class IntroParams(Params):
    rate_req_s: float = slider(4, ge=1, le=8, step=0.5, label="平均到达率", unit="条/s", sym="λ")
    n_cards: int = slider(2, ge=1, le=4, step=1, label="decode 卡数", sym="n")
    mu_per_card: float = slider(
        MU_BOOK, ge=1000, le=6000, step=0.01, label="每卡 decode 处理率", unit="步/s", sym="μ_1"
    )
    share_li_first_pct: float = slider(
        90, ge=0, le=100, step=10, label="第一分钟长输入占比(偏斜道)", unit="%", sym="s_1"
    )
    share_li_second_pct: float = slider(
        10, ge=0, le=100, step=10, label="第二分钟长输入占比(偏斜道)", unit="%", sym="s_2"
    )


INTRO = outputs(
    total_requests=out("每道请求数", unit="条", sym="N"),
    mean_input_tokens=out("平均输入长度", sym="P̄"),
    mean_output_tokens=out("平均输出长度", sym="Ḡ"),
    capacity_steps_s=out("100% 线", digits=0, approx=True, sym="μ"),
    uniform_util_pct=out(LANES[0], digits=1, sym="ρ_u"),
    first_min_util_pct=out("偏斜道第一分钟", digits=1, sym="ρ_1"),
    second_min_util_pct=out("偏斜道第二分钟", digits=1, sym="ρ_2"),
    uniform_backlog_end_steps=out(f"{LANES[0]}:120 s 时积压", digits=0, sym="Q_u"),
    backlog_end_steps_display=out("偏斜道:120 s 时积压 ⌊Q⌋", unit="步", em=True, book="11 万", sym="Q_{disp}"),
    skewed_drain_s=out("偏斜道再排空", digits=2, sym="T_{drain}"),
    total_requests_skewed=quiet("偏斜道请求数", unit="条"),
    mean_input_tokens_skewed=quiet("偏斜道平均输入长度", unit="token", sym="P̄_s"),
    uniform_demand_steps_s=quiet("上道每秒需求", digits=0, sym="λw_u"),
    first_min_demand_steps_s=quiet("偏斜道第一分钟需求", digits=1, sym="λw_1"),
    second_min_demand_steps_s=quiet("偏斜道第二分钟需求", digits=1, sym="λw_2"),
    backlog_wan=quiet("积压(万步)", unit="万"),
)


@card(
    "intro-two-minutes",
    title="平均数相同,负载不一定相同",
    section="3.open",
    kind="animation",
    params=IntroParams,
    aliases=("ch3-intro",),
    outputs=INTRO,
    lead="两分钟里都到达 480 条请求,平均到达率和平均长度都一样。上道始终把长输入、长输出各半混合;下道第一分钟 9:1、第二分钟 1:9。"
    "柱高是 decode 需求占两张 RTX PRO 6000 处理能力的百分比,虚线 = 100%。按 ▶ 播放这两分钟。",
)
def intro_two_minutes(p: IntroParams) -> View:
    t, split = book(120, "T", "s", "开篇:两分钟"), book(60, "t_s", "s", "开篇:第二分钟开始")
    half = book(50, "s_u", "%", "上道:两类各半")
    ou, ru = qu.two_class_outputs(mix(p.rate_req_s, t, split, half, half), book_card(), p.n_cards, p.mu_per_card)
    m = mix(p.rate_req_s, t, split, p.share_li_first_pct, p.share_li_second_pct)
    os_, rs = qu.two_class_outputs(m, book_card(), p.n_cards, p.mu_per_card)
    s_mean = (m.share_before + m.share_after) / 2
    a, b = m.a, m.b
    o = {
        "capacity_steps_s": ou["capacity_steps_s"],
        "total_requests": ou["total_requests"],
        "total_requests_skewed": os_["total_requests"],
        "mean_input_tokens": (a.input_tokens + b.input_tokens) / 2,
        "mean_input_tokens_skewed": s_mean * a.input_tokens + (1 - s_mean) * b.input_tokens,
        "mean_output_tokens": (a.output_tokens + b.output_tokens) / 2,
        "uniform_demand_steps_s": ou["avg_demand_steps_s"],
        "uniform_util_pct": ou["util_avg_pct"],
        "first_min_demand_steps_s": os_["demand_before_steps_s"],
        "first_min_util_pct": os_["util_before_pct"],
        "second_min_demand_steps_s": os_["demand_after_steps_s"],
        "second_min_util_pct": os_["util_after_pct"],
        "uniform_backlog_end_steps": ou["backlog_end_steps"],
        "backlog_end_steps_display": os_["backlog_end_steps_display"],
        "backlog_wan": os_["backlog_end_steps_display"] // 10_000,
        "skewed_drain_s": os_["drain_s"],
    }
    fig = two_lanes(
        ru, rs, o["capacity_steps_s"], LANES, (o["second_min_util_pct"], o["first_min_util_pct"], o["uniform_util_pct"])
    )
    return View(
        o,
        headline="平均每秒 [[rate_req_s|n]] 条 · [[n_cards|n]] 张卡 · 虚线 100% = [[capacity_steps_s|d2]]",
        figures=[
            Figure(
                fig,
                "两道请求流:同样的平均数,不同的负载",
                "上道每秒需求 [[uniform_demand_steps_s|n]] 步,占处理能力 [[uniform_util_pct]],从不排队;下道第一分钟 "
                "[[first_min_util_pct]],第二分钟 [[second_min_util_pct]],到 120 s 积压 [[backlog_end_steps_display]](约 "
                "[[backlog_wan|n]] 万),再过 [[skewed_drain_s]] 才排空。",
                animated=True,
            )
        ],
        notes=[
            Note(
                "三段是:上道、下道第一分钟、下道第二分钟。三段的平均到达率都是每秒 4 条,只差长输入(8192→256)与长输出(1024→2048)的占比。"
            ),
            Note("每秒的柱子是页面的画法:到达按流体计,每秒 4 条按占比拆成两类。积压用例题 3-1 的同一个递推算出。"),
        ],
    )
