"""Chapter 3 opener: 平均数相同,负载不一定相同 — two lanes, 480 requests in two minutes. Both lanes
run through 例题 3-1's computation (``queueing.two_class_outputs``, one backlog simulation)."""

from __future__ import annotations

from ...calculators import queueing as qu
from ...cards import Figure, Note, Params, View, card, slider
from ...charts.backlog import two_lanes
from ...outputs import out, outputs
from ...words import words_for
from ..shared.ch3_load import MU_BOOK, book, book_card, mix, quiet

W = words_for(__name__)

LANES = (W["lanes"], W["lanes_2"])


class IntroParams(Params):
    rate_req_s: float = slider(
        4, ge=1, le=8, step=0.5, label=W["introparams.rate_req_s.label"], unit=W["introparams.rate_req_s.unit"], sym="λ"
    )
    n_cards: int = slider(2, ge=1, le=4, step=1, label=W["introparams.n_cards.label"], sym="n")
    mu_per_card: float = slider(
        MU_BOOK,
        ge=1000,
        le=6000,
        step=0.01,
        label=W["introparams.mu_per_card.label"],
        unit=W["introparams.mu_per_card.unit"],
        sym="μ_1",
    )
    share_li_first_pct: float = slider(
        90, ge=0, le=100, step=10, label=W["introparams.share_li_first_pct.label"], unit="%", sym="s_1"
    )
    share_li_second_pct: float = slider(
        10, ge=0, le=100, step=10, label=W["introparams.share_li_second_pct.label"], unit="%", sym="s_2"
    )


INTRO = outputs(
    total_requests=out(W["intro.total_requests"], unit=W["intro.unit"], sym="N"),
    mean_input_tokens=out(W["intro.mean_input_tokens"], sym="P̄"),
    mean_output_tokens=out(W["intro.mean_output_tokens"], sym="Ḡ"),
    capacity_steps_s=out(W["intro.capacity_steps_s"], digits=0, approx=True, sym="μ"),
    uniform_util_pct=out(LANES[0], digits=1, sym="ρ_u"),
    first_min_util_pct=out(W["intro.first_min_util_pct"], digits=1, sym="ρ_1"),
    second_min_util_pct=out(W["intro.second_min_util_pct"], digits=1, sym="ρ_2"),
    uniform_backlog_end_steps=out(W.f("intro.uniform_backlog_end_steps", v=LANES[0]), digits=0, sym="Q_u"),
    backlog_end_steps_display=out(
        W["intro.backlog_end_steps_display"], unit=W["intro.unit_2"], em=True, book=W["intro.book"], sym="Q_{disp}"
    ),
    skewed_drain_s=out(W["intro.skewed_drain_s"], digits=2, sym="T_{drain}"),
    total_requests_skewed=quiet(W["intro.total_requests_skewed"], unit=W["intro.unit"]),
    mean_input_tokens_skewed=quiet(W["intro.mean_input_tokens_skewed"], unit="token", sym="P̄_s"),
    uniform_demand_steps_s=quiet(W["intro.uniform_demand_steps_s"], digits=0, sym="λw_u"),
    first_min_demand_steps_s=quiet(W["intro.first_min_demand_steps_s"], digits=1, sym="λw_1"),
    second_min_demand_steps_s=quiet(W["intro.second_min_demand_steps_s"], digits=1, sym="λw_2"),
    backlog_wan=quiet(W["intro.backlog_wan"], unit=W["intro.unit_3"]),
)


@card(
    "intro-two-minutes",
    title=W["intro_two_minutes.title"],
    section="3.open",
    kind="animation",
    params=IntroParams,
    aliases=("ch3-intro",),
    outputs=INTRO,
    lead=W["intro_two_minutes.lead"],
)
def intro_two_minutes(p: IntroParams) -> View:
    t, split = book(120, "T", "s", W["intro_two_minutes.book"]), book(60, "t_s", "s", W["intro_two_minutes.book_2"])
    half = book(50, "s_u", "%", W["intro_two_minutes.book_3"])
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
        headline=W["intro_two_minutes.headline"],
        figures=[
            Figure(
                fig,
                W["intro_two_minutes.figures"],
                W["intro_two_minutes.figures_2"],
                animated=True,
                draws=frozenset(
                    {
                        "backlog_end_steps_display",
                        "capacity_steps_s",
                        "first_min_util_pct",
                        "second_min_util_pct",
                        "total_requests",
                        "uniform_backlog_end_steps",
                        "uniform_util_pct",
                    }
                ),
            )
        ],
        notes=[
            Note(W["intro_two_minutes.notes"]),
            Note(W["intro_two_minutes.notes_2"]),
        ],
    )
