"""Chapter 3 end matter, part A: 练习 3-2 and the first fallacy. Both take their numbers from 例题 3-1's
computation (``shared.ch3_load.book_run``) and 图 3-3's occupancy (``queueing.wait_outputs``)."""

from __future__ import annotations

from urllib.parse import urlencode

from ...calculators import queueing as qu
from ...calculators.units import GIB
from ...cards import Block, Figure, Note, Params, Question, View, card, choice, fixed, number_type, slider
from ...charts.backlog import backlog_figure, queue_spark
from ...format import compact, num
from ...outputs import out, outputs
from ...trace import given
from ...words import words_for
from ..shared.ch3_load import MU_BOOK, book, book_run, quiet, say

W = words_for(__name__)

MU_CHOICES = {2795.66: W["mu_choices.t"], 2796: W["mu_choices.t_2"]}


class Ex32Params(Params):
    mu_per_card: number_type(MU_CHOICES) = choice(  # type: ignore[valid-type]
        2795.66, MU_CHOICES, label=W["ex32params.mu_per_card.label"], help=W["ex32params.mu_per_card.help"]
    )
    burst_s: float = slider(30, ge=10, le=120, step=5, label=W["ex32params.burst_s.label"], unit="s", sym="τ_b")
    arrival_rate_per_s: float = fixed(
        2, W["ex32params.arrival_rate_per_s.fixed"], W["ex32params.arrival_rate_per_s.fixed_2"], sym="λ"
    )
    state_gib: float = fixed(1, W["ex32params.state_gib.fixed"], "GiB", sym="M_0")


EX32 = outputs(
    burst_demand_steps_s=out(W["ex32.burst_demand_steps_s"], digits=1, sym="λw"),
    growth_2cards_steps_s=out(W["ex32.growth_2cards_steps_s"], digits=2, sym="λw − μ"),
    backlog_2cards_steps=out(W["ex32.backlog_2cards_steps"], unit=W["ex32.unit"], digits=1, em=True, sym="Q_2"),
    drain_2cards_s=out(W["ex32.drain_2cards_s"], digits=2, sym="T_{drain,2}"),
    backlog_3cards_steps=out(W["ex32.backlog_3cards_steps"], unit=W["ex32.unit"], digits=0, sym="Q_3"),
    util_3cards_pct=out(W["ex32.util_3cards_pct"], digits=1, sym="ρ_3"),
    occupancy_10s_gib=out(W["ex32.occupancy_10s_gib"], sig=4, sym="M̄_{10}"),
    occupancy_30s_gib=out(W["ex32.occupancy_30s_gib"], sig=4, sym="M̄_{30}"),
    drain_3cards_s=quiet(W["ex32.drain_3cards_s"], digits=0, sym="T_{drain,3}"),
    alt_backlog_2cards_steps=quiet(W["ex32.alt_backlog_2cards_steps"], unit=W["ex32.unit"], digits=1, sym="Q_2'"),
    alt_drain_2cards_s=quiet(W["ex32.alt_drain_2cards_s"], digits=2, sym="T_{drain,2}'"),
    waiting_tasks_10s=quiet(W["ex32.waiting_tasks_10s"], unit=W["ex32.unit_2"], sig=4, sym="L_{10}"),
    waiting_tasks_30s=quiet(W["ex32.waiting_tasks_30s"], unit=W["ex32.unit_2"], sig=4, sym="L_{30}"),
)


def link(preset: str, burst: float, mu: float) -> str:
    """例题 3-1 at a preset plus what differs from it."""
    q = {
        "preset": preset,
        **({"duration_s": compact(burst)} if burst != 30 else {}),
        **({"mu_per_card": compact(float(mu))} if float(mu) != MU_BOOK else {}),
    }
    return "/cards/eg-3-1?" + urlencode(q)


def bursts(burst_s: float, mu_choice: float) -> tuple[tuple, tuple]:
    """练习 3-2's burst as 例题 3-1 preset ③ (2 cards) and ④ (3 cards) at the chosen per-card μ."""
    mu = given(float(mu_choice), "μ_1", W["bursts.given"], W["bursts.given_2"])
    return (book_run("burst30_2cards", mu, duration_s=burst_s), book_run("burst30_3cards", mu, duration_s=burst_s))


@card(
    "ex-3-2",
    title=W["ex_3_2.title"],
    label=W["ex_3_2.label"],
    section="3.end",
    kind="exercise",
    params=Ex32Params,
    outputs=EX32,
    lead=W["ex_3_2.lead"],
)
def ex_3_2(p: Ex32Params) -> View:
    (o2, run2, m2), (o3, _, _) = bursts(p.burst_s, p.mu_per_card)
    w = {
        tau: qu.wait_outputs(p.arrival_rate_per_s, book(tau, "τ", "s", W["ex_3_2.book"]), p.state_gib * GIB, 40)
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
    o |= {"alt_backlog_2cards_steps": alt["backlog_end_steps"], "alt_drain_2cards_s": alt["drain_s"]}
    ctx = {
        "mu": num(float(p.mu_per_card), 2),
        "cap2": num(o2["capacity_steps_s"], 2),
        "alt_mu": num(alt["mu_per_card"], 2),
    }
    return View(
        o,
        headline=W["ex_3_2.headline"],
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
                W.f("ex_3_2.figures", burst_s=p.burst_s),
                W["ex_3_2.figures_2"],
                animated=True,
                answers=frozenset({"backlog_2cards_steps"}),  # the curve ends at the backlog asked for
                draws=frozenset(
                    {
                        "backlog_2cards_steps",
                        "growth_2cards_steps_s",
                        "occupancy_10s_gib",
                        "occupancy_30s_gib",
                        "waiting_tasks_10s",
                        "waiting_tasks_30s",
                    }
                ),
            )
        ],
        questions=[
            Question(
                key="backlog_2cards_steps",
                prompt=W.f("ex_3_2.prompt", burst_s=p.burst_s),
                unit=W["ex32.unit"],
                hint=W["ex_3_2.hint"],
                solution=[W["ex_3_2.solution"]],
                tells=frozenset({"alt_backlog_2cards_steps"}),  # 56,376.0 at the other rounding: 正确 too
            ),
            Question(
                key="drain_2cards_s",
                prompt=W["ex_3_2.prompt_2"],
                unit="s",
                hint=W["ex_3_2.hint_2"],
                solution=[W["ex_3_2.solution_2"]],
                tells=frozenset({"alt_drain_2cards_s"}),
            ),
            Question(
                key="backlog_3cards_steps",
                prompt=W["ex_3_2.prompt_3"],
                unit=W["ex32.unit"],
                hint=W["ex_3_2.hint_3"],
                solution=[W["ex_3_2.solution_3"]],
            ),
            Question(
                key="waiting_tasks_10s",
                prompt=W["ex_3_2.prompt_4"],
                unit=W["ex32.unit_2"],
                hint=W["ex_3_2.hint_4"],
            ),
            Question(key="occupancy_10s_gib", prompt=W["ex_3_2.prompt_5"], unit="GiB", hint=W["ex_3_2.hint_5"]),
            Question(key="waiting_tasks_30s", prompt=W["ex_3_2.prompt_6"], unit=W["ex32.unit_2"]),
            Question(
                key="occupancy_30s_gib",
                prompt=W["ex_3_2.prompt_7"],
                unit="GiB",
                solution=[W["ex_3_2.solution_4"]],
            ),
        ],
        notes=[
            Note(W["ex_3_2.notes"], "book"),
            Note(
                W["ex_3_2.notes_2"],
                "formula",
            ),
        ],
    )


FALLACY1 = outputs(
    backlog_end_steps_display=out(
        W["fallacy1.backlog_end_steps_display"], unit=W["ex32.unit"], em=True, sym="Q_{disp}"
    ),
    util_avg_pct=quiet(W["fallacy1.util_avg_pct"], digits=1),
    util_after_pct=quiet(W["fallacy1.util_after_pct"], digits=1),
)


@card(
    "fallacy-average-load",
    title=W["fallacy_average_load.title"],
    label="✗",
    section="3.end",
    kind="table",
    aliases=("fallacy-3-1",),
    outputs=FALLACY1,
    lead=W["fallacy_average_load.lead"],
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
                        W["fallacy_average_load.text"],
                    ),
                    "backlog": say(FALLACY1, o, "[[backlog_end_steps_display|n]]"),
                    "link": "/cards/eg-3-1?preset=skewed",
                },
            )
        ],
        figures=[
            Figure(
                queue_spark(run),
                W["fallacy_average_load.figures"],
                W["fallacy_average_load.figures_2"],
                draws=frozenset({"backlog_end_steps_display"}),
            )
        ],
    )
