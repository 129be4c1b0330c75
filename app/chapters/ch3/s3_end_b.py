"""Chapter 3 end matter, part B: 练习 3-3, 练习 3-4 and the second fallacy (token 单价). The numbers come
from the calculators the 3.2 cards use; the exercises link back to those cards with presets."""

from __future__ import annotations

from urllib.parse import urlencode

from ...calculators import amdahl, cost, dag
from ...cards import Block, Link, Note, Params, Question, Table, View, card, slider
from ...format import compact
from ...outputs import out, outputs
from ...words import words_for
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

W = words_for(__name__)

# === 练习 3-3 ========================================================================================


class Ex33Params(SuccessParams):
    cost_new_cheaper: float = slider(
        1.5,
        ge=0.1,
        le=10,
        step=0.1,
        label=W["ex33params.cost_new_cheaper.label"],
        unit=W["ex33params.cost_new_cheaper.unit"],
        sym="c_2'",
    )


EX33 = outputs(
    success_cost_old=quiet(W["ex33.success_cost_old"], unit=W["ex33params.cost_new_cheaper.unit"], digits=2, sym="C_1"),
    new_vs_old_pct=quiet(W["ex33.new_vs_old_pct"], digits=1, sym="C_2/C_1 − 1"),
    success_cost_new=quiet(W["ex33.success_cost_new"], unit=W["ex33params.cost_new_cheaper.unit"], digits=2, sym="C_2"),
    breakeven_at_cost_new_pct=quiet(W["ex33.breakeven_at_cost_new_pct"], digits=1, sym="p_2^*"),
    breakeven_at_cheaper_pct=quiet(W["ex33.breakeven_at_cheaper_pct"], digits=1, sym="p_2^*"),
    success_cost_new_cheaper=quiet(
        W["ex33.success_cost_new_cheaper"], unit=W["ex33params.cost_new_cheaper.unit"], digits=4, sym="C_2'"
    ),
)


def fig39(c1: float, p1: float, c2: float, p2: float) -> str:
    return "/cards/fig-3-9?" + urlencode(
        {
            "cost_old": compact(c1),
            "success_old_pct": compact(p1),
            "cost_new": compact(c2),
            "success_new_pct": compact(p2),
        }
    )


@card(
    "ex-3-3",
    title=W["ex_3_3.title"],
    label=W["ex_3_3.label"],
    section="3.end",
    kind="exercise",
    params=Ex33Params,
    outputs=EX33,
    lead=W["ex_3_3.lead"],
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
        "ratios": W.f("ex_3_3.ratios", v=p2 / p1, v2=p.cost_new / p.cost_old) if p1 > 0 else W["ex_3_3.ratios_2"],
        "verdict": ("" if p1 <= 0 else W["ex_3_3.verdict"] if (c_new or 0) > (c_old or 0) else W["ex_3_3.verdict_2"]),
        "perfect": W["ex_3_3.perfect"] if be2 is not None and abs(be2 - 100) < 1e-9 else "",
        "lower": W["ex_3_3.lower"] if (o["success_cost_new_cheaper"] or 0) < (c_old or 0) else W["ex_3_3.lower_2"],
    }
    setting = (p.cost_old, p.success_old_pct)
    return View(
        o,
        headline=W["ex_3_3.headline"],
        ctx=ctx,
        questions=[
            Question(
                "success_cost_new",
                W["ex_3_3.questions"],
                W["ex33params.cost_new_cheaper.unit"],
                solution=[W["ex_3_3.solution"]],
            ),
            Question("new_vs_old_pct", W["ex_3_3.questions_2"], "%", solution=["[[ratios]][[verdict]]"]),
            Question(
                "breakeven_at_cheaper_pct",
                W.f("ex_3_3.questions_3", cost_new_cheaper=p.cost_new_cheaper),
                "%",
                solution=[
                    W["ex_3_3.solution_2"],
                    W["ex_3_3.solution_3"],
                    W["ex_3_3.solution_4"],
                ],
            ),
            Question(
                "success_cost_new_cheaper",
                W.f("ex_3_3.questions_4", cost_new_cheaper=p.cost_new_cheaper, success_new_pct=p.success_new_pct),
                W["ex33params.cost_new_cheaper.unit"],
                solution=[W["ex_3_3.solution_5"]],
            ),
            Question(
                "breakeven_at_cost_new_pct",
                W["ex_3_3.questions_5"],
                kind="open",
                answer_text=(W["ex_3_3.answer_text"]),
            ),
        ],
        links=[
            Link(W["ex_3_3.links"], fig39(*setting, p.cost_new, p.success_new_pct)),
            Link(
                W.f("ex_3_3.links_2", cost_new_cheaper=p.cost_new_cheaper),
                fig39(*setting, p.cost_new_cheaper, round(be) if be is not None and be <= 100 else p.success_new_pct),
            ),
        ],
        links_title=W["ex_3_3.links_title"],
        notes=[Note(W["ex_3_3.notes"], "formula")],
    )


# === 练习 3-4 ========================================================================================


class Ex34Params(Params):
    first_round_speedup: float = slider(
        4, ge=1, le=20, step=0.5, label=W["ex34params.first_round_speedup.label"], unit="×", sym="s_1"
    )
    tools_speedup: float = slider(
        2, ge=1, le=20, step=0.5, label=W["ex34params.tools_speedup.label"], unit="×", sym="s_2"
    )


EX34 = outputs(
    serial_s=quiet(W["ex34.serial_s"], sym="T_{ser}"),
    parallel_s=quiet(W["ex34.parallel_s"], sym="T_{par}"),
    tool_work_s=quiet(W["ex34.tool_work_s"]),
    gib_s_serial=quiet(W["ex34.gib_s_serial"], unit="GiB·s"),
    gib_s_parallel=quiet(W["ex34.gib_s_parallel"], unit="GiB·s"),
    first_round_new_total_s=quiet(W["ex34.first_round_new_total_s"], digits=2, sym="T_{new}"),
    first_round_saved_pct=quiet(W["ex34.first_round_saved_pct"], digits=1),
    first_round_speedup_overall=quiet(W["ex34.first_round_speedup_overall"], unit="×", digits=3),
    first_round_part_pct=quiet(W["ex34.first_round_part_pct"], digits=1, sym="f"),
    first_round_cap_speedup=quiet(W["ex34.first_round_cap_speedup"], unit="×", digits=3, sym="S_{max}"),
    tools_saved_pct=quiet(W["ex34.tools_saved_pct"], digits=2),
    tools_new_total_s=quiet(W["ex34.tools_new_total_s"], digits=3, sym="T_{new}"),
    tools_part_pct=quiet(W["ex34.tools_part_pct"], digits=1, sym="f"),
)
SETUP = urlencode(TOOL_SETUP)


@card(
    "ex-3-4",
    title=W["ex_3_4.title"],
    label=W["ex_3_4.label"],
    section="3.end",
    kind="exercise",
    params=Ex34Params,
    outputs=EX34,
    lead=W["ex_3_4.lead"],
)
def ex_3_4(p: Ex34Params) -> View:
    d = {
        k: book(v, s, u, W["ex_3_4.book"])
        for (k, v), (s, u) in zip(
            TOOL_SETUP.items(), (("m_1", "s"), ("a", "s"), ("b", "s"), ("m_2", "s"), ("M", "GiB"), ("n", ""))
        )
    }
    t = dag.tool_wait_outputs(
        d["model1_s"], d["tool_a_s"], d["tool_b_s"], d["model2_s"], True, d["state_gib"], d["n_tasks"]
    )
    total = book(TRACE_TOTAL_S, "T", "s", MEASURED)
    fr = amdahl.part_outputs(total, book(FIRST_ROUND_S, "T_{first}", "s", W["ex_3_4.book_2"]), p.first_round_speedup)
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
        headline=W["ex_3_4.headline"],
        ctx={
            "c10": W.f(
                "ex_3_4.c10", v=c10["serial_s"], v2=c10["gib_s_serial"], v3=c10["parallel_s"], v4=c10["gib_s_parallel"]
            )
        },
        questions=[
            Question("serial_s", W["ex_3_4.questions"], "s"),
            Question(
                "parallel_s",
                W["ex_3_4.questions_2"],
                "s",
                solution=[W["ex_3_4.solution"]],
            ),
            Question("gib_s_serial", W["ex_3_4.questions_3"], "GiB·s"),
            Question(
                "gib_s_parallel",
                W["ex_3_4.questions_4"],
                "GiB·s",
                solution=[W["ex_3_4.solution_2"]],
            ),
            Question(
                "first_round_new_total_s",
                W.f("ex_3_4.questions_5", sf=sf),
                "s",
                solution=[W["ex_3_4.solution_3"]],
            ),
            Question(
                "first_round_saved_pct",
                W["ex_3_4.questions_6"],
                "%",
                solution=[W["ex_3_4.solution_4"]],
            ),
            Question("tools_new_total_s", W.f("ex_3_4.questions_7", st=st), "s", tolerance=5e-5),
            Question("tools_saved_pct", W["ex_3_4.questions_8"], "%"),
            Question(
                "first_round_cap_speedup",
                W["ex_3_4.questions_9"],
                kind="open",
                answer_text=W.f("ex_3_4.answer_text", sf=sf, st=st),  # its slots filled as shown (held: "?")
            ),
        ],
        links=[
            Link(W["ex_3_4.links"], f"/cards/fig-3-11?{SETUP}&mode=parallel"),
            Link(W["ex_3_4.links_2"], f"/cards/fig-3-11?{SETUP}&mode=serial"),
            Link(
                W["ex_3_4.links_3"],
                f"/cards/fig-3-11?{SETUP.replace('tool_a_s=6', 'tool_a_s=10')}&mode=parallel",
            ),
            Link(W.f("ex_3_4.links_4", sf=sf), f"/cards/eg-3-2?speedup={compact(sf)}"),
            Link(W.f("ex_3_4.links_5", st=st), f"/cards/eg-3-2?target=tools&speedup={compact(st)}"),
        ],
        links_title=W["ex_3_4.links_title"],
        notes=[Note(W["ex_3_4.notes"], "illustrative", when="defaults")],
    )


# === 谬误 2 ==========================================================================================

FALLACY2 = outputs(
    success_cost_ratio=out(W["fallacy2.success_cost_ratio"], unit="×", sig=3, em=True, sym="C_{new}/C_{old}")
)


@card(
    "fallacy-token-price",
    title=W["fallacy_token_price.title"],
    section="3.end",
    kind="table",
    aliases=("fallacy-3-2",),
    outputs=FALLACY2,
    lead=W["fallacy_token_price.lead"],
)
def fallacy_token_price(p: Params) -> View:
    src = W["fallacy_token_price"]
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
                ["", W["fallacy_token_price.tables"]],
                [
                    [W["fallacy_token_price.tables_2"], W["fallacy_token_price.tables_3"]],
                    [W["fallacy_token_price.tables_4"], W["fallacy_token_price.tables_5"]],
                    [W["fallacy_token_price.tables_6"], W["fallacy_token_price.tables_7"]],
                ],
            )
        ],
    )
