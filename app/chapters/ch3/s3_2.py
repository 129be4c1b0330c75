"""Section 3.2 多轮交互与 Agent 任务: prefix reuse, cost per successful task, the agent trace,
Amdahl, tool dependencies and branch state, and the CED layer split."""

from __future__ import annotations

from typing import Any, Literal

from ...calculators import agent, amdahl, cost, dag, prefix
from ...calculators.units import KIB
from ...cards import Block, Figure, Note, Params, Table, View, card, choice, fixed, slider
from ...charts import agent as ch
from ...format import compact, decimals
from ...outputs import out, outputs
from ...trace import given
from ...words import words_for
from ..shared import ch3_load as ld
from ..shared.ch3_load import SuccessParams, quiet, say

W = words_for(__name__)


def kv_param() -> Any:
    return fixed(ld.KV_KIB, W["kv_param.fixed"], "KiB", sym="c_{KV}")


# === 3.2.1 prefix-edit and prefix-cache-4round =====================================================

EDITS = {
    "append": W["edits.append"],
    "replace_summary": W["edits.replace_summary"],
    "template_change": W["edits.template_change"],
}


class PrefixEditParams(Params):
    context_tokens: int = slider(
        2000, ge=500, le=32000, step=100, label=W["prefixeditparams.context_tokens.label"], unit="token", sym="n"
    )
    edit: Literal["append", "replace_summary", "template_change"] = choice(
        "append", EDITS, label=W["prefixeditparams.edit.label"]
    )
    append_tokens: int = slider(
        200,
        ge=0,
        le=4000,
        step=10,
        label=W["prefixeditparams.append_tokens.label"],
        unit="token",
        illustrative=True,
        sym="a",
    )
    replace_start: int = slider(
        600,
        ge=0,
        le=32000,
        step=10,
        label=W["prefixeditparams.replace_start.label"],
        unit=W["prefixeditparams.replace_start.unit"],
        illustrative=True,
        sym="t_0",
    )
    replace_end: int = slider(
        1400,
        ge=0,
        le=32000,
        step=10,
        label=W["prefixeditparams.replace_end.label"],
        unit=W["prefixeditparams.replace_start.unit"],
        illustrative=True,
        sym="t_1",
    )
    summary_tokens: int = slider(
        150,
        ge=0,
        le=2000,
        step=10,
        label=W["prefixeditparams.summary_tokens.label"],
        unit="token",
        illustrative=True,
        sym="s",
    )
    template_pos: int = slider(
        40,
        ge=0,
        le=32000,
        step=10,
        label=W["prefixeditparams.template_pos.label"],
        unit=W["prefixeditparams.replace_start.unit"],
        illustrative=True,
        sym="t_0",
    )
    template_delta_tokens: int = slider(
        0,
        ge=-500,
        le=500,
        step=10,
        label=W["prefixeditparams.template_delta_tokens.label"],
        unit="token",
        illustrative=True,
        sym="Δ",
    )
    block_tokens: Literal["1", "16", "32"] = choice(
        "1",
        {"1": W["prefixeditparams.block_tokens.1"], "16": "16(vLLM)", "32": "32"},
        label=W["prefixeditparams.block_tokens.label"],
        illustrative=True,
    )
    kv_kib_per_token: float = kv_param()


PREFIX_EDIT = outputs(
    reused_tokens=out(W["prefix_edit.reused_tokens"], digits=0, em=True, sym="K"),
    recompute_tokens=out(W["prefix_edit.recompute_tokens"], digits=0, em=True, sym="P"),
    new_context_tokens=out(W["prefix_edit.new_context_tokens"], digits=0, sym="I"),
    reuse_pct=out(W["prefix_edit.reuse_pct"], digits=1),
    recompute_kv_mib=out(W["prefix_edit.recompute_kv_mib"], digits=1),
    resident_kv_mib=out(W["prefix_edit.resident_kv_mib"], digits=1),
)


@card(
    "prefix-edit",
    title=W["prefix_edit.title"],
    section="3.2",
    kind="diagram",
    params=PrefixEditParams,
    outputs=PREFIX_EDIT,
    lead=W["prefix_edit.lead"],
)
def prefix_edit(p: PrefixEditParams) -> View:
    n = p.context_tokens
    e = (
        prefix.edit_append(n, p.append_tokens)
        if p.edit == "append"
        else prefix.edit_template(n, p.template_pos, p.template_delta_tokens)
        if p.edit == "template_change"
        else prefix.edit_replace(n, p.replace_start, p.replace_end, p.summary_tokens)
    )
    o = prefix.edit_outputs(e, n, int(p.block_tokens), p.kv_kib_per_token * KIB)
    start = max(0, min(p.replace_start, n))
    clickable = {"replace_summary": "replace_start", "template_change": "template_pos"}.get(p.edit)
    bars = ch.edit_bars(
        p.edit,
        n,
        e.new_length,
        o["reused_tokens"],
        e.first_change,
        (start, max(start, min(p.replace_end, n))),
        clickable,
    )
    notes = [
        Note(
            W["prefix_edit.note"],
            "formula",
        ),
        Note(
            W["prefix_edit.note_2"],
            "illustrative",
        ),
    ]
    if int(p.block_tokens) > 1:
        notes.append(Note(W.f("prefix_edit.note_3", block_tokens=p.block_tokens)))
    return View(
        o,
        headline=W["prefix_edit.headline"],
        notes=notes,
        ctx={"edit_label": EDITS[p.edit], "first": min(e.first_change, n)},
        blocks=[
            Block(
                "diagrams/prefix-edit.html",
                {**bars, "edits": EDITS, "edit": p.edit, "n": n, "new_len": e.new_length, "k": o["reused_tokens"]},
            )
        ],
    )


ROUNDS = [(700, 0, False), (1443, 1392, True), (1480, 1440, False), (1674, 1648, False)]  # (I_i, K_i, from the book?)
# Totals and round 2 are the book's recomputed values; rounds 1, 3, 4 are this page's 示意 split (whole 16-token hit blocks).


class FourRoundParams(Params):
    round_index: int = slider(2, ge=1, le=4, step=1, label=W["fourroundparams.round_index.label"], sym="i")
    kv_kib_per_token: float = kv_param()


FOUR = outputs(
    total_input_tokens=out(W["four.total_input_tokens"], sym="ΣI"),
    total_hit_tokens=out(W["four.total_hit_tokens"], sym="ΣK"),
    total_miss_tokens=out(W["four.total_miss_tokens"], sym="ΣP"),
    total_hit_pct=out(W["four.total_hit_pct"], digits=1),
    input_tokens=out(W["four.input_tokens"], ill="ill", sym="I"),
    hit_tokens=out(W["four.hit_tokens"], ill="ill", sym="K"),
    new_tokens=out(W["four.new_tokens"], ill="ill", em=True, sym="P"),
    hit_pct=out(W["four.hit_pct"], digits=1, ill="ill"),
    attn_pairs_pct=out(W["four.attn_pairs_pct"], digits=1, ill="ill"),
    resident_kv_mib=out(W["four.resident_kv_mib"], digits=1, ill="ill"),
    recompute_kv_mib=out(W["four.recompute_kv_mib"], digits=1, ill="ill"),
    restored_tokens=quiet(W["four.restored_tokens"], sym="S"),
    proj_rows_cached=quiet(W["four.proj_rows_cached"], unit=W["four.unit"]),
    proj_rows_full=quiet(W["four.proj_rows_full"], unit=W["four.unit"]),
    attn_pairs_cached=quiet(W["four.attn_pairs_cached"], unit=W["four.unit_2"]),
    attn_pairs_full=quiet(W["four.attn_pairs_full"], unit=W["four.unit_2"]),
)


@card(
    "prefix-cache-4round",
    title=W["prefix_cache_4round.title"],
    section="3.2",
    kind="chart",
    params=FourRoundParams,
    outputs=FOUR,
    lead=W["prefix_cache_4round.lead"],
)
def prefix_cache_4round(p: FourRoundParams) -> View:
    src = [W["prefix_cache_4round"] if not bk else W["prefix_cache_4round_2"] for *_, bk in ROUNDS]
    inputs, hits = (
        [
            given(
                r[j],
                f"{sym}_{i}",
                "token",
                W.f(
                    "prefix_cache_4round.source",
                    what=s,
                    split=W["prefix_cache_4round.given"] if s == W["prefix_cache_4round"] else "",
                ),
            )
            for i, (r, s) in enumerate(zip(ROUNDS, src), 1)
        ]
        for j, sym in ((0, "I"), (1, "K"))
    )
    o = prefix.round_outputs(inputs, hits, p.round_index - 1, p.kv_kib_per_token * KIB)
    misses = [a - b for a, b in zip(inputs, hits)]
    xs = [
        W.f("prefix_cache_4round_3", n=n) + ("" if bk else W["prefix_cache_4round_4"])
        for n, (*_, bk) in enumerate(ROUNDS, 1)
    ]
    ill = not ROUNDS[p.round_index - 1][2]
    return View(
        o,
        headline=W["prefix_cache_4round.headline"],
        ctx={"ill": ill},
        figures=[
            Figure(
                ch.hit_bars(xs, hits, misses, inputs, p.round_index - 1),
                W["prefix_cache_4round.figures"],
                W["prefix_cache_4round.figures_2"],
                illustrative=True,
                draws=frozenset({"hit_tokens", "input_tokens", "new_tokens"}),
            ),
            Figure(
                ch.reuse_savings(
                    (o["proj_rows_cached"], o["proj_rows_full"]), (o["attn_pairs_cached"], o["attn_pairs_full"])
                ),
                W.f("prefix_cache_4round.figures_3", round_index=p.round_index),
                W["prefix_cache_4round.figures_4"],
                illustrative=ill,
                draws=frozenset({"input_tokens", "new_tokens"}),
            ),
        ],
        tables=[
            Table(
                [
                    W["prefix_cache_4round.tables"],
                    W["prefix_cache_4round.tables_2"],
                    W["prefix_cache_4round.tables_3"],
                    W["prefix_cache_4round.tables_4"],
                    W["prefix_cache_4round.tables_5"],
                ],
                [
                    [W.f("prefix_cache_4round.tables_6", n=n), a, b, a - b, s]
                    for n, ((a, b, _), s) in enumerate(zip(ROUNDS, src), 1)
                ]
                + [
                    [
                        W["prefix_cache_4round.tables_7"],
                        o["total_input_tokens"],
                        o["total_hit_tokens"],
                        o["total_miss_tokens"],
                        W["prefix_cache_4round_2"],
                    ]
                ],
                illustrative_cells={(r, c) for r in (0, 2, 3) for c in (1, 2, 3)},
                keys={
                    (len(ROUNDS), c): frozenset({k})
                    for c, k in enumerate(("total_input_tokens", "total_hit_tokens", "total_miss_tokens"), 1)
                },
            )
        ],
        notes=[
            Note(W["prefix_cache_4round.notes"], "formula"),
            Note(
                W["prefix_cache_4round.notes_2"],
                "illustrative",
            ),
        ],
    )


# === 3.2.2 fig-3-9, price-cut-paradox, math-experiment-note ========================================


class SuccessCostParams(SuccessParams):
    attempts: int = fixed(100, W["successcostparams.attempts.fixed"], W["successcostparams.attempts.fixed_2"], sym="n")


FIG39 = outputs(
    total_cost_old=out(W["fig39.total_cost_old"], unit=W["fig39.unit"], sig=4),
    total_cost_new=out(W["fig39.total_cost_new"], unit=W["fig39.unit"], sig=4),
    successes_old=out(W["fig39.successes_old"], unit=W["fig39.unit_2"]),
    successes_new=out(W["fig39.successes_new"], unit=W["fig39.unit_2"]),
    success_cost_old=out(W["fig39.success_cost_old"], unit=W["fig39.unit"], digits=2, em=True, sym="C_1"),
    success_cost_new=out(W["fig39.success_cost_new"], unit=W["fig39.unit"], digits=2, em=True, sym="C_2"),
    success_ratio=out(W["fig39.success_ratio"], unit="×", digits=2),
    cost_ratio=out(W["fig39.cost_ratio"], unit="×", digits=2),
    new_cheaper=out(W["fig39.new_cheaper"], text={True: W["fig39.t"], False: W["fig39.t_2"], None: "—"}),
    breakeven_success_new_pct=out(W["fig39.breakeven_success_new_pct"], digits=1, sym="p_2^*"),
)


@card(
    "fig-3-9",
    title=W["fig_3_9.title"],
    label=W["fig_3_9.label"],
    section="3.2",
    kind="calculator",
    params=SuccessCostParams,
    outputs=FIG39,
    badges=((W["fig_3_9.badges"], "ex-3-3"),),
    lead=W["fig_3_9.lead"],
)
def fig_3_9(p: SuccessCostParams) -> View:
    o = cost.success_outputs(p.cost_old, p.success_old_pct / 100, p.cost_new, p.success_new_pct / 100, p.attempts)
    be = o["breakeven_success_new_pct"]
    # the outputs both figures draw: a live question on one holds both back
    drawn = frozenset(
        {
            "breakeven_success_new_pct",
            "cost_ratio",
            "success_cost_new",
            "success_cost_old",
            "success_ratio",
            "successes_new",
            "successes_old",
            "total_cost_new",
            "total_cost_old",
        }
    )
    reach = be is not None and be <= 100 + 1e-9
    return View(
        o,
        headline=W["fig_3_9.headline"],
        ctx={
            "be_note": W["fig_3_9.be_note"] if be is None else "" if reach else W["fig_3_9.be_note_2"],
            **{
                f"none_{i}": "" if o[f"success_cost_{k}"] is not None else W["fig_3_9.t"]
                for i, k in ((1, "old"), (2, "new"))
            },
            "be_sum": say(FIG39, o, W["fig_3_9.be_sum"]) if reach else W["fig_3_9.be_sum_2"],
        },
        figures=[
            Figure(
                ch.dot_grids((o["successes_old"], o["successes_new"]), (o["total_cost_old"], o["total_cost_new"])),
                W["fig_3_9.figures"],
                W["fig_3_9.figures_2"],
                draws=drawn,
            ),
            Figure(
                ch.success_curve(p.cost_new, p.success_new_pct, o["success_cost_new"], o["success_cost_old"], be),
                W["fig_3_9.figures_3"],
                W["fig_3_9.figures_4"],
                draws=drawn,
            ),
        ],
        notes=[
            Note(
                W["fig_3_9.notes"],
                "formula",
            ),
            Note(W["fig_3_9.notes_2"]),
        ],
    )


class PriceCutParams(Params):
    price_ratio: float = slider(
        0.1, ge=0.01, le=2, step=0.01, label=W["pricecutparams.price_ratio.label"], unit="×", sym="r_{price}"
    )
    token_ratio: float = slider(
        20, ge=0.5, le=50, step=0.5, label=W["pricecutparams.token_ratio.label"], unit="×", sym="r_{token}"
    )
    success_old_pct: float = slider(
        50, ge=1, le=100, step=1, label=W["pricecutparams.success_old_pct.label"], unit="%", sym="p_{old}"
    )
    success_new_pct: float = slider(
        80, ge=1, le=100, step=1, label=W["pricecutparams.success_new_pct.label"], unit="%", sym="p_{new}"
    )


PRICE_CUT = outputs(
    attempt_cost_ratio=out(W["price_cut.attempt_cost_ratio"], unit="×", sig=3),
    success_ratio=out(W["price_cut.success_ratio"], unit="×", sig=3),
    success_cost_ratio=out(W["price_cut.success_cost_ratio"], unit="×", sig=3, em=True, sym="C_{new}/C_{old}"),
)


@card(
    "price-cut-paradox",
    title=W["price_cut_paradox.title"],
    section="3.2",
    kind="calculator",
    params=PriceCutParams,
    outputs=PRICE_CUT,
    lead=W["price_cut_paradox.lead"],
)
def price_cut_paradox(p: PriceCutParams) -> View:
    o = cost.price_cut_outputs(p.price_ratio, p.token_ratio, p.success_old_pct / 100, p.success_new_pct / 100)
    steps = [
        (W["price_cut_paradox"], 1.0),
        (W.f("price_cut_paradox_2", price_ratio=p.price_ratio), p.price_ratio),
        (f"token ×{compact(p.token_ratio)}", p.token_ratio),
        (
            W.f("price_cut_paradox_3", success_old_pct=p.success_old_pct, success_new_pct=p.success_new_pct),
            p.success_old_pct / p.success_new_pct,
        ),
    ]
    return View(
        o,
        headline="[[price_ratio|n]] × [[token_ratio|n]] × [[p_old]]/[[p_new]] = [[success_cost_ratio|n,c]]",
        ctx={"p_old": compact(p.success_old_pct / 100), "p_new": compact(p.success_new_pct / 100)},
        figures=[
            Figure(
                ch.waterfall(steps),
                W["price_cut_paradox.figures"],
                W["price_cut_paradox.figures_2"],
                draws=frozenset({"attempt_cost_ratio", "success_cost_ratio"}),
            )
        ],
        notes=[
            Note(
                W["price_cut_paradox.notes"],
                "formula",
            ),
            Note(W["price_cut_paradox.notes_2"]),
        ],
    )


MATH_NOTE = {
    "problems": (W["math_note.problems"], W["math_note.problems_2"], "n", 4),
    "cap_before_tokens": (W["math_note.cap_before_tokens"], "token", "L_0", 1024),
    "cap_after_tokens": (W["math_note.cap_after_tokens"], "token", "L_1", 4096),
    "rounds": (W["math_note.rounds"], W["math_note.rounds_2"], "r", 2),
    "passed": (W["math_note.passed"], W["math_note.passed_2"], "k", 0),
}
MATH = outputs(
    **{k: out(lab, unit=u, em=k == "passed", sym=sym) for k, (lab, u, sym, _) in MATH_NOTE.items()},
    cap_ratio=out(W["math.cap_ratio"], unit="×", digits=0),
    success_cost=out(W["math.success_cost"], text=lambda v: W["math.text"]),
)


@card(
    "math-experiment-note",
    title=W["math_experiment_note.title"],
    section="3.2",
    kind="table",
    outputs=MATH,
    lead=W["math_experiment_note.lead"],
)
def math_experiment_note(p: Params) -> View:
    o: dict = {k: given(v, sym, u, W["math_experiment_note.o.given"]) for k, (_, u, sym, v) in MATH_NOTE.items()}
    o.update(
        cap_ratio=o["cap_after_tokens"] / o["cap_before_tokens"], success_cost=cost.batch_success_cost(1.0, o["passed"])
    )
    rows = [
        [lab, say(MATH, o, t)]
        for lab, t in (
            (W["math_experiment_note"], W["math_experiment_note_2"]),
            (W["math_experiment_note_3"], "[[cap_before_tokens|n]] → [[cap_after_tokens]]"),
            (W["math_experiment_note_4"], "[[rounds]]"),
            (W["math_experiment_note_5"], "[[passed]]"),
        )
    ]
    return View(
        o,
        blocks=[Block("diagrams/math-experiment-note.html", {})],
        tables=[
            Table(
                [W["math_experiment_note.tables"], W["math_experiment_note.tables_2"]],
                [*rows, [W["math_experiment_note.tables_3"], W["math_experiment_note.tables_4"]]],
                title=W["math_experiment_note.title_2"],
            ),
            Table(
                [
                    W["math_experiment_note.tables_5"],
                    W["math_experiment_note.tables_6"],
                    W["math_experiment_note.tables_7"],
                ],
                [
                    [
                        W["math_experiment_note.tables_8"],
                        W["math_experiment_note.tables_9"],
                        W["math_experiment_note.tables_10"],
                    ],
                    [
                        W["math_experiment_note.tables_11"],
                        W["math_experiment_note.tables_12"],
                        W["math_experiment_note.tables_13"],
                    ],
                ],
                title=W["math_experiment_note.title_3"],
            ),
        ],
    )


# === 3.2.3 agent-trace, agent-thinking-table and eg-3-2 (Amdahl) ===================================

TRACE_ROUNDS = ld.AGENT[
    "rounds_illustrative"
]  # (outcome, model s, tools s, control s): 示意, columns sum to the totals
TRACE = outputs(
    total_s=out(W["trace.total_s"], digits=3, em=True, sym="T"),
    model_s=out(W["trace.model_s"], digits=3, sym="T_{model}"),
    tools_s=out(W["trace.tools_s"], digits=3, sym="T_{tools}"),
    control_s=out(W["trace.control_s"], digits=3, sym="T_{ctl}"),
    rounds=out(W["trace.rounds"], unit=W["math_note.rounds_2"]),
    model_pct=out(W["trace.model_pct"], digits=1),
    tools_pct=out(W["trace.tools_pct"], digits=2),
    **{
        f"round_{k}_s_sum": quiet(W.f("trace.kw", lab=lab), unit="s", digits=3, sym=f"Σ{k[0]}")
        for k, lab in (("model", W["trace.kw_2"]), ("tool", W["trace.kw_3"]), ("control", W["trace.kw_4"]))
    },
)


@card(
    "agent-trace",
    title=W["agent_trace.title"],
    section="3.2",
    kind="animation",
    outputs=TRACE,
    lead=W["agent_trace.lead"],
)
def agent_trace(p: Params) -> View:
    parts = [
        tuple(given(x, f"{w}_{i}", "s", W["agent_trace.given"]) for x, w in zip(r[1:], ("m", "t", "c")))
        for i, r in enumerate(TRACE_ROUNDS, 1)
    ]
    totals = [
        given(v, s, "s", ld.MEASURED)
        for v, s in ((ld.TRACE_TOTAL_S, "T"), (ld.TRACE_MODEL_S, "T_{model}"), (ld.TRACE_TOOLS_S, "T_{tools}"))
    ]
    o = {
        **agent.trace_outputs(totals[0], totals[1], totals[2], parts),
        "rounds": given(len(TRACE_ROUNDS), "n", W["math_note.rounds_2"], ld.MEASURED),
    }
    spans = agent.round_spans([tuple(r[1:]) for r in TRACE_ROUNDS])
    s = [
        say(TRACE, o, f"[[{k}]]")
        for k in (
            "total_s",
            "model_s",
            "tools_s",
            "control_s",
            "round_model_s_sum",
            "round_tool_s_sum",
            "round_control_s_sum",
        )
    ]
    rows = [
        [
            W.f("agent_trace", n=n),
            what,
            W.f("agent_trace.time", t=decimals(m, 3, "s"), note=W["agent_trace_2"] if n == 1 else ""),
            decimals(t, 3, "s"),
            decimals(c, 3, "s"),
        ]
        for n, (what, m, t, c) in enumerate(TRACE_ROUNDS, 1)
    ] + [[W["prefix_cache_4round.tables_7"], "", *s[4:]]]
    return View(
        o,
        headline=W["agent_trace.headline"],
        figures=[
            Figure(
                ch.trace_timeline(spans, [r[0] for r in TRACE_ROUNDS], ld.TRACE_TOTAL_S),
                W["agent_trace.figures"],
                W["agent_trace.figures_2"],
                illustrative=True,
                animated=True,
                draws=frozenset({"rounds", "total_s"}),
            )
        ],
        tables=[
            Table(
                [W["agent_trace.tables"], W["agent_trace.tables_2"]],
                [
                    [lab, x]
                    for lab, x in zip(
                        (W["trace.total_s"], W["trace.model_s"], W["trace.tools_s"], W["trace.control_s"]), s
                    )
                ],
                title=W["agent_trace.title_2"],
            ),
            Table(
                [
                    W["prefix_cache_4round.tables"],
                    W["agent_trace.tables_3"],
                    W["trace.kw_2"],
                    W["trace.kw_3"],
                    W["trace.kw_4"],
                ],
                rows,
                title=W["agent_trace.title_3"],
                illustrative_cells={(r, c) for r in range(4) for c in (2, 3, 4)},
            ),
        ],
        notes=[
            Note(
                W["agent_trace.notes"],
                "illustrative",
            ),
            Note(W["agent_trace.notes_2"]),
        ],
    )


THINKING = ld.AGENT["thinking"]
THINK = outputs(
    off_rounds_sum=out(
        W["think.off_rounds_sum"],
        unit=W["math_note.rounds_2"],
        sym="n_{off}",
    ),
    off_cache_hit_pct=out(W["think.off_cache_hit_pct"], digits=1, approx=True),
    check_pass_pct_off=out(W["think.check_pass_pct_off"], unit="%", digits=1),
    alias_pass_pct_on=out(W["think.alias_pass_pct_on"], unit="%", digits=1),
    alias_fail_on=out(W["think.alias_fail_on"], unit=W["think.unit"], em=True),
    ms_per_output_token_off=quiet(W["think.ms_per_output_token_off"], unit="ms", digits=1),
    ms_per_output_token_on=quiet(W["think.ms_per_output_token_on"], unit="ms", digits=1),
    **{
        k: quiet(k, unit="s" if "time_s" in k else "", digits=3 if "time_s" in k else None)
        for k in THINKING
        if k != "off_cache_hit_pct"
    },
)


@card(
    "agent-thinking-table",
    title=W["agent_thinking_table.title"],
    section="3.2",
    kind="table",
    aliases=("tab-agent-thinking",),
    outputs=THINK,
    lead=W["agent_thinking_table.lead"],
)
def agent_thinking_table(p: Params) -> View:
    o = {
        k: given(v, k, "%" if k.endswith("pct") else "s" if "time_s" in k else "", W["agent_thinking_table.given"])
        for k, v in THINKING.items()
    }
    o.update(agent.thinking_outputs(o))
    rows = [
        [lab, *(say(THINK, o, t.format(m=m)) for m in ("off", "on"))]
        for lab, t in (
            (W["agent_thinking_table"], "[[model_rounds_{m}|n]]"),
            (W["agent_thinking_table_2"], "[[output_tokens_{m}|n]]"),
            (W["agent_thinking_table_3"], "[[model_time_s_{m}]]"),
            (W["agent_thinking_table_4"], "[[tool_time_s_{m}]]"),
            (W["agent_thinking_table_5"], "[[check_pass_{m}|n]]/[[check_total_{m}|n]]"),
            (W["agent_thinking_table_6"], "[[alias_pass_{m}|n]]/[[alias_total_{m}|n]]"),
            (W["agent_thinking_table_7"], "[[ms_per_output_token_{m}]]"),
        )
    ]
    keys = [
        (f"{c}_pass_{m}", f"{c}_total_{m}")
        for c, m in (("check", "off"), ("check", "on"), ("alias", "off"), ("alias", "on"))
    ]
    fig = ch.pass_bars(
        [
            W["agent_thinking_table.pass_bars"],
            W["agent_thinking_table.pass_bars_2"],
            W["agent_thinking_table.pass_bars_3"],
            W["agent_thinking_table.pass_bars_4"],
        ],
        [o[a] for a, _ in keys],
        [o[b] for _, b in keys],
    )
    return View(
        o,
        tables=[
            Table(
                [
                    W["agent_thinking_table.tables"],
                    W["agent_thinking_table.tables_2"],
                    W["agent_thinking_table.tables_3"],
                ],
                rows,
                title=W["agent_thinking_table.title_2"],
            )
        ],
        figures=[
            Figure(
                fig,
                W["agent_thinking_table.figures"],
                W["agent_thinking_table.figures_2"],
                draws=frozenset({"alias_fail_on", "off_rounds_sum"}),
            )
        ],
        notes=[
            Note(W["agent_thinking_table.notes"]),
            Note(W["agent_thinking_table.notes_2"], "warn"),
        ],
    )


TARGETS = {"first_round": W["targets.first_round"], "tools": W["targets.tools"]}


class AmdahlParams(Params):
    target: Literal["first_round", "tools"] = choice("first_round", TARGETS, label=W["amdahlparams.target.label"])
    speedup: float = slider(2, ge=1, le=20, step=0.5, label=W["amdahlparams.speedup.label"], unit="×")
    total_s: float = fixed(ld.TRACE_TOTAL_S, W["amdahlparams.total_s.fixed"], "s", sym="T")
    first_round_s: float = fixed(ld.FIRST_ROUND_S, W["amdahlparams.first_round_s.fixed"], "s", sym="T_{first}")
    tools_s: float = fixed(ld.TRACE_TOOLS_S, W["amdahlparams.tools_s.fixed"], "s", sym="T_{tools}")


EG32 = outputs(
    part_s=out(W["eg32.part_s"], digits=3),
    part_pct=out(W["eg32.part_pct"], sig=3, approx="is_first", sym="f"),
    rest_s=out(W["eg32.rest_s"], sig=3, approx="is_first"),
    new_total_s=out(W["eg32.new_total_s"], sig=4, em=True, sym="T_{new}"),
    saved_s=out(W["eg32.saved_s"], digits=3),
    saved_pct=out(W["eg32.saved_pct"], sig=3, em=True),
    overall_speedup=out(W["eg32.overall_speedup"], unit="×", digits=3, sym="S"),
    cap_speedup=out(W["eg32.cap_speedup"], unit="×", digits=3, sym="S_{max}"),
)


@card(
    "eg-3-2",
    title=W["eg_3_2.title"],
    label=W["eg_3_2.label"],
    section="3.2",
    kind="calculator",
    params=AmdahlParams,
    outputs=EG32,
    badges=((W["eg_3_2.badges"], "ex-3-4"),),
    lead=W["eg_3_2.lead"],
)
def eg_3_2(p: AmdahlParams) -> View:
    first = p.target == "first_round"
    part = p.first_round_s if first else p.tools_s
    o = amdahl.part_outputs(p.total_s, part, p.speedup)
    role, label = ("decode" if first else "tools"), TARGETS[p.target]
    ctx = {
        "is_first": first,
        "target_label": label + (W["eg_3_2.target_label"] if first else ""),
        "total": decimals(p.total_s, 3, "s"),
        "part_new": decimals(part / p.speedup, 3, "s"),
        "target": label,
    }
    return View(
        o,
        headline="[[target]] × [[speedup|n]]:[[total]] → [[new_total_s|d2]]",
        ctx=ctx,
        figures=[
            Figure(
                ch.speedup_bars(label, role, part, p.speedup, o["rest_s"], p.total_s),
                W["eg_3_2.figures"],
                W["eg_3_2.figures_2"],
                draws=frozenset({"part_s", "rest_s", "saved_s"}),
            ),
            Figure(
                ch.speedup_curve(
                    amdahl.speedup, part / p.total_s, p.speedup, o["overall_speedup"], o["cap_speedup"], role
                ),
                W["eg_3_2.figures_3"],
                W["eg_3_2.figures_4"],
                draws=frozenset({"cap_speedup", "overall_speedup"}),
            ),
        ],
        notes=[
            Note(W["eg_3_2.notes"], "formula"),
            Note(W["eg_3_2.notes_2"], when="defaults"),
            Note(W["eg_3_2.notes_3"]),
        ],
    )


# === 3.2.4 fig-3-11 (tool dependency), fig-3-13 (branches), fig-3-14 (CED) =========================

MODES = {"parallel": W["modes.parallel"], "serial": W["modes.serial"]}


class ToolDagParams(Params):
    model1_s: float = slider(2, ge=0.5, le=30, step=0.5, label=W["tooldagparams.model1_s.label"], unit="s", sym="m_1")
    tool_a_s: float = slider(6, ge=0, le=60, step=0.5, label=W["tooldagparams.tool_a_s.label"], unit="s", sym="a")
    tool_b_s: float = slider(10, ge=0, le=60, step=0.5, label=W["tooldagparams.tool_b_s.label"], unit="s", sym="b")
    model2_s: float = slider(3, ge=0.5, le=30, step=0.5, label=W["tooldagparams.model2_s.label"], unit="s", sym="m_2")
    mode: Literal["parallel", "serial"] = choice("parallel", MODES, label=W["tooldagparams.mode.label"])
    state_gib: float = slider(1, ge=0.25, le=8, step=0.25, label=W["tooldagparams.state_gib.label"], unit="GiB")
    n_tasks: int = slider(
        1, ge=1, le=100, step=1, label=W["tooldagparams.n_tasks.label"], unit=W["fig39.unit_2"], sym="n"
    )


FIG311 = outputs(
    serial_s=out(W["fig311.serial_s"], sym="T_{ser}"),
    parallel_s=out(W["fig311.parallel_s"], sym="T_{par}"),
    critical_path_s=out(W["fig311.critical_path_s"], em=True),
    saved_s=out(W["fig311.saved_s"]),
    tool_work_s=out(W["fig311.tool_work_s"]),
    wait_s=out(W["fig311.wait_s"]),
    gib_s_serial=out(W["fig311.gib_s_serial"], unit="GiB·s"),
    gib_s_parallel=out(W["fig311.gib_s_parallel"], unit="GiB·s"),
    gib_s=out(W["fig311.gib_s"], unit="GiB·s", em=True),
    peak_gib=out(W["fig311.peak_gib"]),
)


@card(
    "fig-3-11",
    title=W["fig_3_11.title"],
    label=W["fig_3_11.label"],
    section="3.2",
    kind="animation",
    params=ToolDagParams,
    outputs=FIG311,
    aliases=("fig-3-12",),
    badges=((W["fig_3_11.badges"], "ex-3-4"),),
    lead=W["fig_3_11.lead"],
)
def fig_3_11(p: ToolDagParams) -> View:
    m1, a, b, m2 = p.model1_s, p.tool_a_s, p.tool_b_s, p.model2_s
    o = dag.tool_wait_outputs(m1, a, b, m2, p.mode == "parallel", p.state_gib, p.n_tasks)
    sel = dag.model_tools_model(m1, a, b, m2, dependent=p.mode == "serial")
    dur = {"model1": m1, "tool_a": a, "tool_b": b, "model2": m2}
    fig = ch.serial_parallel(m1, a, b, m2, o["peak_gib"], (o["gib_s_serial"], o["gib_s_parallel"]), p.mode == "serial")
    return View(
        o,
        headline=W["fig_3_11.headline"],
        ctx={"mode_label": W["fig_3_11.mode_label"] if p.mode == "parallel" else W["fig_3_11.mode_label_2"]},
        blocks=[
            Block(
                "diagrams/fig-3-11.html",
                {**ch.dag_layout(sel, dur, p.mode == "serial"), "mode": p.mode, "modes": MODES},
            )
        ],
        figures=[
            Figure(
                fig,
                W["fig_3_11.figures"],
                W["fig_3_11.figures_2"],
                animated=True,
                draws=frozenset(
                    {
                        "critical_path_s",
                        "gib_s",
                        "gib_s_parallel",
                        "gib_s_serial",
                        "parallel_s",
                        "peak_gib",
                        "saved_s",
                        "serial_s",
                        "tool_work_s",
                        "wait_s",
                    }
                ),
            )
        ],
        notes=[
            Note(W["fig_3_11.notes"], "formula"),
            Note(W["fig_3_11.notes_2"]),
            Note(W["fig_3_11.notes_3"]),
        ],
    )


class BranchParams(Params):
    h0_tokens: int = slider(
        2000,
        ge=0,
        le=32000,
        step=100,
        label=W["branchparams.h0_tokens.label"],
        unit="token",
        illustrative=True,
        sym="H_0",
    )
    n_branches: int = slider(3, ge=1, le=16, step=1, label=W["branchparams.n_branches.label"], illustrative=True)
    branch_tokens: int = slider(
        500, ge=0, le=8000, step=50, label=W["branchparams.branch_tokens.label"], unit="token", illustrative=True
    )
    kv_kib_per_token: float = kv_param()
    running_branches: int | None = slider(
        None,
        ge=0,
        le=16,
        step=1,
        label=W["branchparams.running_branches.label"],
        placeholder=W["branchparams.running_branches.placeholder"],
        sym="r",
    )


FIG313 = outputs(
    shared_tokens=out(W["fig313.shared_tokens"], ill=True),
    shared_mib=out(W["fig313.shared_mib"], digits=1, em=True, ill=True),
    unshared_tokens=out(W["fig313.unshared_tokens"], ill=True),
    unshared_mib=out(W["fig313.unshared_mib"], digits=1, ill=True),
    saved_mib=out(W["fig313.saved_mib"], digits=1, ill=True),
    serial_peak_mib=out(W["fig313.serial_peak_mib"], digits=1, ill=True),
    resident_now_mib=out(W["fig313.resident_now_mib"], digits=1, ill=True),
    running_branches_now=quiet(W["fig313.running_branches_now"], unit=W["fig313.unit"]),
)


@card(
    "fig-3-13",
    title=W["fig_3_13.title"],
    label=W["fig_3_13.label"],
    section="3.2",
    kind="diagram",
    params=BranchParams,
    outputs=FIG313,
    lead=W["fig_3_13.lead"],
)
def fig_3_13(p: BranchParams) -> View:
    running = p.n_branches if p.running_branches is None else min(p.running_branches, p.n_branches)
    o = prefix.branch_outputs(p.h0_tokens, p.n_branches, p.branch_tokens, running, p.kv_kib_per_token * KIB)
    tree = ch.branch_tree(p.h0_tokens, p.branch_tokens, p.n_branches, running)
    return View(
        o,
        headline=W["fig_3_13.headline"],
        blocks=[
            Block(
                "diagrams/fig-3-13.html",
                {
                    **tree,
                    "h0": p.h0_tokens,
                    "h": p.branch_tokens,
                    "running": running,
                    "k": p.n_branches,
                    "shared": say(FIG313, o, "[[shared_mib]]"),
                    "now": say(FIG313, o, "[[resident_now_mib]]"),
                },
            )
        ],
        notes=[
            Note(
                W.f("fig_3_13.notes", kv_kib_per_token=p.kv_kib_per_token),
                "formula",
            ),
            Note(W["fig_3_13.notes_2"], "illustrative"),
            Note(W["fig_3_13.notes_3"]),
        ],
    )


class CedParams(Params):
    input_tokens: int = slider(
        8192,
        ge=1,
        le=131072,
        step=1,
        label=W["cedparams.input_tokens.label"],
        unit="token",
        log=True,
        illustrative=True,
    )
    output_tokens: int = slider(
        256, ge=1, le=8192, step=1, label=W["cedparams.output_tokens.label"], unit="token", illustrative=True
    )
    encoder_layers: int = fixed(20, W["cedparams.encoder_layers.fixed"], sym="L_{enc}")
    decoder_layers: int = fixed(20, W["cedparams.decoder_layers.fixed"], sym="L_{dec}")
    resend_tokens: int = fixed(128, W["cedparams.resend_tokens.fixed"], "token", sym="P_{re}")


FIG314 = outputs(
    prompt_work_decoder_only=out(W["fig314.prompt_work_decoder_only"], unit=W["fig314.unit"], ill=True, sym="W_{dec}"),
    prompt_work_ced=out(
        "CED [[encoder_layers|n]]P + [[decoder_layers|n]]·min(P,[[resend_tokens|n]])",
        unit=W["fig314.unit"],
        ill=True,
        sym="W_{CED}",
    ),
    prompt_ratio=out(W["fig314.prompt_ratio"], unit="×", digits=3, em=True, ill=True),
    prompt_saved_pct=out(W["fig314.prompt_saved_pct"], digits=1, ill=True),
    decode_work_both=out(W["fig314.decode_work_both"], unit=W["fig314.unit"], ill=True, sym="W_{out}"),
    total_ratio=out(W["fig314.total_ratio"], unit="×", digits=3, ill=True),
)


@card(
    "fig-3-14",
    title=W["fig_3_14.title"],
    label=W["fig_3_14.label"],
    section="3.2",
    kind="chart",
    params=CedParams,
    outputs=FIG314,
    lead=W["fig_3_14.lead"],
)
def fig_3_14(p: CedParams) -> View:
    enc, dec, re_ = p.encoder_layers, p.decoder_layers, p.resend_tokens
    o = prefix.ced_outputs(p.input_tokens, p.output_tokens, enc, dec, re_)
    f1 = ch.ced_work(p.input_tokens, enc, dec, re_, (o["prompt_work_decoder_only"], o["prompt_work_ced"]))
    return View(
        o,
        headline=W["fig_3_14.headline"],
        ctx={"L": enc + dec},
        figures=[
            Figure(
                f1,
                W["fig_3_14.figures"],
                W["fig_3_14.figures_2"],
                illustrative=True,
                draws=frozenset({"prompt_ratio", "prompt_work_ced", "prompt_work_decoder_only", "total_ratio"}),
            ),
            Figure(
                ch.stacked_work((o["prompt_work_decoder_only"], o["prompt_work_ced"]), o["decode_work_both"]),
                W["fig_3_14.figures_3"],
                W["fig_3_14.figures_4"],
                illustrative=True,
                draws=frozenset({"decode_work_both", "prompt_work_ced", "prompt_work_decoder_only"}),
            ),
        ],
        notes=[
            Note(
                W["fig_3_14.notes"],
                "formula",
            ),
            Note(
                W["fig_3_14.notes_2"],
                "illustrative",
            ),
        ],
    )
