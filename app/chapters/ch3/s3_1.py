"""Section 3.1 从单次请求到持续到达的负载: 图 3-1 … 3-3, 练习 3-1, the metrics table, p95,
例题 3-1 (the backlog recursion, ``shared.ch3_load.eg31``) and the vLLM replay."""

from __future__ import annotations

from ...calculators import latency_metrics as lm
from ...calculators import queueing as qu
from ...calculators import roofline
from ...calculators.units import GB, GIB, KIB
from ...cards import Figure, Note, Params, Question, Table, View, card, choice, fixed, number_type, slider
from ...charts import backlog as bk
from ...charts import requests as rq
from ...data import read_json
from ...format import decimals, with_unit
from ...outputs import data, out, outputs
from ...trace import given
from ...words import words_for
from ..shared import ch3_load as ld
from ..shared.ch3_load import Eg31Params, quiet, say

W = words_for(__name__)

# --- 例题 3-1 · the backlog recursion ----------------------------------------------------------------

EG31 = outputs(
    total_requests=out(W["eg31.total_requests"], unit=W["eg31.unit"], sym="N"),
    total_decode_steps=out(W["eg31.total_decode_steps"], sym="D"),
    avg_demand_steps_s=out(W["eg31.avg_demand_steps_s"], digits=0, sym="λw_{avg}"),
    capacity_steps_s=out(W["eg31.capacity_steps_s"], digits=0, approx=True, sym="μ"),
    demand_before_steps_s=out(W["eg31.demand_before_steps_s"], digits=1, sym="λw_1"),
    demand_after_steps_s=out(W["eg31.demand_after_steps_s"], digits=1, sym="λw_2"),
    util_avg_pct=out(W["eg31.util_avg_pct"], digits=1, sym="ρ"),
    util_after_pct=out(W["eg31.util_after_pct"], digits=1, sym="ρ_2"),
    backlog_end_steps_display=out(W["eg31.backlog_end_steps_display"], unit=W["eg31.unit_2"], em=True, sym="Q_{disp}"),
    drain_s=out(W["eg31.drain_s"], digits=2, sym="T_{drain}"),
    completion_s=out(W["eg31.completion_s"], digits=2, sym="T_{done}"),
    min_time_one_card_s=out(W["eg31.min_time_one_card_s"], digits=1, sym="T_1"),
    mean_ctx_tokens=out(W["eg31.mean_ctx_tokens"], digits=2, book=W["eg31.book"], sym="c̄"),
    step_read_write_gb=out(W["eg31.step_read_write_gb"], digits=2, sym="R_{step}"),
    step_ms=out(W["eg31.step_ms"], digits=2, sym="T_{step}"),
    mu_bw_per_card=out(W["eg31.mu_bw_per_card"], unit=W["eg31.unit_3"], digits=2, sym="μ_β"),
    mu_per_card=out(W["eg31.mu_per_card"], unit=W["eg31.unit_3"], digits=2, book=W["eg31.book_2"], sym="μ_1"),
    preset=quiet(W["eg31.preset"], text=ld.PRESET_LABELS),
    duration_s=quiet(W["eg31.duration_s"], sym="T"),
    split_s=quiet(W["eg31.split_s"], sym="t_s"),
    n_cards=quiet(W["eg31.n_cards"], sym="n"),
    share_li_before_pct=quiet(W["eg31.share_li_before_pct"], sym="s_1"),
    share_li_after_pct=quiet(W["eg31.share_li_after_pct"], sym="s_2"),
    long_input_requests=quiet(W["eg31.long_input_requests"], unit=W["eg31.unit"], sym="N_A"),
    long_output_requests=quiet(W["eg31.long_output_requests"], unit=W["eg31.unit"], sym="N_B"),
    decode_steps_long_input=quiet(W["eg31.decode_steps_long_input"]),
    decode_steps_long_output=quiet(W["eg31.decode_steps_long_output"]),
    mu_per_card_rounded=quiet(W["eg31.mu_per_card_rounded"], unit=W["eg31.unit_3"]),
    util_before_pct=quiet(W["eg31.util_before_pct"], digits=1, sym="ρ_1"),
    backlog_end_steps=quiet(W["eg31.backlog_end_steps"], digits=1, sym="Q_{end}"),
    backlog_fluid_steps=quiet(W["eg31.backlog_fluid_steps"], digits=1, sym="Q_{fluid}"),
    peak_backlog_steps=quiet(W["eg31.peak_backlog_steps"], digits=1, sym="Q_{max}"),
    min_time_all_cards_s=quiet(W["eg31.min_time_all_cards_s"], digits=1, sym="T_n"),
    queue_series=data(W["eg31.queue_series"]),
    arrival_series=data(W["eg31.arrival_series"]),
)


@card(
    "eg-3-1",
    title=W["eg_3_1.title"],
    label=W["eg_3_1.label"],
    section="3.1",
    kind="animation",
    outputs=EG31,
    params=Eg31Params,
    badges=((W["eg_3_1.badges"], "ex-3-2"),),
    template="diagrams/eg-3-1.html",
    lead=W["eg_3_1.lead"],
)
def eg_3_1(p: Eg31Params) -> View:
    o, run, m = ld.eg31(p)
    kv_gb = o["step_read_write_gb"] - p.weight_gb
    # the μ note's 两者差 …: words, not an output (a derivation would print μ_β to 4 figures, 2,796, and
    # so hide the 0.001 % it explains); a plain number, as it enters no derivation
    gap_pct = float(abs(o["mu_bw_per_card"] - ld.MU_BOOK) / ld.MU_BOOK * 100)
    same = W.f("eg_3_1", gap_pct=gap_pct) if gap_pct >= 0.0005 else W["eg_3_1_2"]
    notes = [
        Note(
            W["eg_3_1.note"],
            "formula",
        ),
        Note(W["eg_3_1.note_2"]),
        Note(W["eg_3_1.note_3"]),
        Note(
            W.f("eg_3_1.note_joined", a=W["eg_3_1.note_4"], b=same, c=W["eg_3_1.note_5"]),
            "book",
        ),
        Note(W["eg_3_1.note_6"]),
        Note(W["eg_3_1.note_7"], "warn"),
    ]
    if p.preset.startswith("burst"):
        notes.append(Note(W["eg_3_1.note_8"], "illustrative"))
    if run.truncated:
        notes.append(Note(W["eg_3_1.note_9"], "warn"))
    return View(
        o,
        headline=W["eg_3_1.headline"],
        notes=notes,
        ctx={"kv_gb": decimals(kv_gb, 2, "GB")},
        figures=[
            Figure(
                bk.backlog_figure(run, qu.class_a_steps(m, run), o["capacity_steps_s"]),
                W["eg_3_1.figures"],
                W["eg_3_1.figures_2"],
                animated=True,
                draws=frozenset(
                    {
                        "backlog_end_steps_display",
                        "capacity_steps_s",
                        "completion_s",
                        "demand_after_steps_s",
                        "demand_before_steps_s",
                        "mu_bw_per_card",
                        "mu_per_card",
                        "total_requests",
                    }
                ),
            ),
            Figure(
                bk.stacked_step_bytes(p.weight_gb, kv_gb, p.batch_seqs),
                W["eg_3_1.figures_3"],
                W["eg_3_1.figures_4"],
                draws=frozenset(),
            ),
        ],
    )


# --- 图 3-1 · one prefill, then decode after decode -------------------------------------------------


class Fig31Params(Params):
    restored_tokens: int = slider(0, ge=0, le=32768, step=1, label=W["fig31params.restored_tokens.label"], unit="token")
    input_tokens: int = slider(
        ld.CLASS_A[0], ge=1, le=32768, step=1, label=W["fig31params.input_tokens.label"], unit="token"
    )
    output_tokens: int = slider(
        ld.CLASS_A[1], ge=1, le=4096, step=1, label=W["fig31params.output_tokens.label"], unit="token"
    )
    batch: int = slider(1, ge=1, le=256, step=1, label=W["fig31params.batch.label"], unit=W["eg31.unit"])
    peak_tflops: float = fixed(ld.PEAK_TFLOPS, W["fig31params.peak_tflops.fixed"], "TFLOP/s")
    bandwidth_tbps: float = fixed(ld.BW_TBPS, W["fig31params.bandwidth_tbps.fixed"], "TB/s")
    weight_bytes_per_param: float = fixed(2, W["fig31params.weight_bytes_per_param.fixed"], "B")
    kv_kib_per_token: float = fixed(ld.KV_KIB, W["fig31params.kv_kib_per_token.fixed"], "KiB", sym="c_{KV}")


BOUND_ZH = {"compute": W["bound_zh.compute"], "bandwidth": W["bound_zh.bandwidth"]}
FIG31 = outputs(
    total_calls=out(W["fig31.total_calls"], unit=W["fig31.unit"], sym="n_{call}"),
    decode_calls=out(W["fig31.decode_calls"], unit=W["fig31.unit"], sym="n_{dec}"),
    first_decode_ctx_tokens=out(W["fig31.first_decode_ctx_tokens"], sym="C_0"),
    last_decode_ctx_tokens=out(W["fig31.last_decode_ctx_tokens"], tile="has_decode", sym="C_{last}"),
    final_kv_tokens=out(W["fig31.final_kv_tokens"], sym="KV_{end}"),
    final_text_tokens=out(W["fig31.final_text_tokens"], sym="L_{end}"),
    final_kv_mib=out(W["fig31.final_kv_mib"], digits=1, sym="M_{KV}"),
    decode_kv_read_gb=out(W["fig31.decode_kv_read_gb"], digits=1, sym="R_{KV}"),
    ridge_rows=out(W["fig31.ridge_rows"], unit=W["fig31.unit_2"], digits=1, sym="B^*"),
    prefill_bound=out("prefill", text=BOUND_ZH),
    decode_bound=out("decode", text=BOUND_ZH),
    prefill_calls=quiet(W["fig31.prefill_calls"], unit=W["fig31.unit"]),
    prefill_rows_per_weight_read=quiet(W["fig31.prefill_rows_per_weight_read"], unit=W["fig31.unit_2"], sym="r_{pre}"),
    decode_rows_per_weight_read=quiet(W["fig31.decode_rows_per_weight_read"], unit=W["fig31.unit_2"], sym="r_{dec}"),
    decode_kv_read_tokens=quiet(W["fig31.decode_kv_read_gb"], sym="ΣC"),
)


@card(
    "fig-3-1",
    title=W["fig_3_1.title"],
    label=W["fig_3_1.label"],
    section="3.1",
    kind="animation",
    params=Fig31Params,
    outputs=FIG31,
    lead=W["fig_3_1.lead"],
)
def fig_3_1(p: Fig31Params) -> View:
    S, P, B = p.restored_tokens, p.input_tokens, p.batch
    ridge = roofline.b_star(p.weight_bytes_per_param, p.bandwidth_tbps * 1e12, p.peak_tflops * 1e12)
    o = {
        "prefill_calls": given(1, "n_{pre}", W["fig31.unit"], W["fig_3_1.prefill_calls"]),
        **qu.request_outputs(S, P, p.output_tokens, B, ridge, p.kv_kib_per_token * KIB),
    }
    n_dec = o["decode_calls"]
    # the outputs both figures draw: a live question on one holds both back
    drawn = frozenset(
        {
            "decode_calls",
            "final_kv_mib",
            "final_kv_tokens",
            "final_text_tokens",
            "first_decode_ctx_tokens",
            "last_decode_ctx_tokens",
            "total_calls",
        }
    )
    timeline = rq.call_timeline(n_dec, P, lambda j: B * (S + P + (0 if j is None else j + 1)), p.kv_kib_per_token)
    return View(
        o,
        headline="S = [[restored_tokens|n]] · P = [[input_tokens|n]] · G = [[output_tokens|n]] · B = [[batch|n]]",
        ctx={"has_decode": bool(n_dec), "last_j": n_dec - 1, "no_dec": "" if n_dec else W["fig_3_1.no_dec"]},
        figures=[
            Figure(
                timeline,
                W["fig_3_1.figures"],
                W["fig_3_1.figures_2"],
                animated=True,
                draws=drawn,
            ),
            Figure(
                rq.context_staircase([S] + [S + P + j for j in range(n_dec)]),
                W["fig_3_1.figures_3"],
                W["fig_3_1.figures_4"],
                draws=drawn,
            ),
            Figure(
                rq.rows_per_read(o["prefill_rows_per_weight_read"], B, ridge),
                W["fig_3_1.figures_5"],
                W["fig_3_1.figures_6"],
                draws=frozenset({"final_kv_tokens", "first_decode_ctx_tokens", "ridge_rows", "total_calls"}),
            ),
        ],
        notes=[
            Note(
                W["fig_3_1.notes"],
                "formula",
            ),
            Note(W["fig_3_1.notes_2"]),
            Note(W["fig_3_1.notes_3"]),
            Note(
                W["fig_3_1.notes_4"],
                "illustrative",
            ),
        ],
    )


# --- 练习 3-1 · same total output, different request count -------------------------------------------

N_REQUESTS = (1, 2, 4, 8, 16, 32, 64, 128)


class Ex31Params(Params):
    n_requests: number_type(N_REQUESTS) = choice(  # type: ignore[valid-type]
        8, {k: W.f("ex31params.n_requests.choice", k=k) for k in N_REQUESTS}, label=W["ex31params.n_requests.label"]
    )
    total_output_tokens: int = fixed(1024, W["ex31params.total_output_tokens.fixed"], "token", sym="G_{tot}")
    input_tokens: int = slider(1024, ge=128, le=8192, step=128, label=W["ex31params.input_tokens.label"], unit="token")
    weight_gb: float = fixed(ld.WEIGHT_GB, W["ex31params.weight_gb.fixed"], "GB", sym="W")
    kv_kib_per_token: float = fixed(ld.KV_KIB, W["fig31params.kv_kib_per_token.fixed"], "KiB", sym="c_{KV}")
    bandwidth_tbps: float = fixed(ld.BW_TBPS, W["ex31params.bandwidth_tbps.fixed"], "TB/s", sym="β")


# key: (table row, tile label or "" (no tile), unit, digits)
EX31_ROWS = {
    "output_per_request": (W["ex31_rows.output_per_request"], "", "token", None),
    "prefill_count": (W["ex31_rows.prefill_count"], W["fig31.prefill_calls"], W["fig31.unit"], None),
    "prefill_batches": (W["ex31_rows.prefill_batches"], "", W["ex31_rows.prefill_batches_2"], None),
    "prefill_tokens": (W["ex31_rows.prefill_tokens"], "", "token", None),
    "decode_steps_total": (
        W["ex31_rows.decode_steps_total"],
        W["ex31_rows.decode_steps_total_2"],
        W["eg31.unit_2"],
        None,
    ),
    "decode_rounds": (
        W["ex31_rows.decode_rounds"],
        W["ex31_rows.decode_rounds_2"],
        W["ex31_rows.decode_rounds_3"],
        None,
    ),
    "weight_read_rounds": (
        W["ex31_rows.weight_read_rounds"],
        W["ex31_rows.weight_read_rounds_2"],
        W["ex31_rows.decode_rounds_3"],
        None,
    ),
    "end_context_tokens": (W["ex31_rows.end_context_tokens"], W["ex31_rows.end_context_tokens_2"], "token", None),
    "end_kv_tokens_per_request": (W["ex31_rows.end_kv_tokens_per_request"], "", "token", None),
    "end_kv_mib_total": (W["ex31_rows.end_kv_mib_total"], W["ex31_rows.end_kv_mib_total_2"], "MiB", 1),
    "weight_read_gb": (W["ex31_rows.weight_read_gb"], "", "GB", 1),
    "decode_lb_s": (W["ex31_rows.decode_lb_s"], W["ex31_rows.decode_lb_s_2"], "s", 3),
}
EX31 = outputs(
    **{
        k: out(tile_ or row, unit=u, digits=d, tile=bool(tile_))
        for k, (row, tile_, u, d) in list(EX31_ROWS.items())[:7]
    },
    weight_read_ratio=out(W["ex31.weight_read_ratio"], unit="×", digits=0),
    **{
        k: out(tile_ or row, unit=u, digits=d, tile=bool(tile_))
        for k, (row, tile_, u, d) in list(EX31_ROWS.items())[7:]
    },
    **{f"ref_{k}": quiet(W.f("ex31.kw", row=row), unit=u, digits=d) for k, (row, _, u, d) in EX31_ROWS.items()},
    total_output_tokens=quiet(W["ex31params.total_output_tokens.fixed"], unit="token"),
    input_tokens=quiet(W["ex31params.input_tokens.label"]),
    n_requests=quiet(W["ex31params.n_requests.label"], unit=W["eg31.unit"]),
)


@card(
    "ex-3-1",
    title=W["ex_3_1.title"],
    label=W["ex_3_1.label"],
    section="3.1",
    kind="calculator",
    params=Ex31Params,
    outputs=EX31,
    lead=W["ex_3_1.lead"],
)
def ex_3_1(p: Ex31Params) -> View:
    n, args = (
        int(p.n_requests),
        (p.total_output_tokens, p.input_tokens, p.weight_gb * GB, p.kv_kib_per_token * KIB, p.bandwidth_tbps * 1e12),
    )
    cur = qu.sync_column(given(n, "n", W["eg31.unit"], W["ex_3_1.given"]), *args)  # n requests against one (keys ref_*)
    ref, batches = (
        qu.sync_column(given(1, "n_1", W["eg31.unit"], W["ex_3_1.given_2"]), *args, tag="_1"),
        given(1, "n_{batch}", W["ex31_rows.prefill_batches_2"], W["ex_3_1.given_3"]),
    )
    o = {
        "total_output_tokens": p.total_output_tokens,
        "input_tokens": p.input_tokens,
        "n_requests": cur["prefill_count"],
        **cur,
        "prefill_batches": batches,
        **{f"ref_{k}": v for k, v in ref.items()},
        "ref_prefill_batches": batches,
        "weight_read_ratio": ref["weight_read_rounds"] / cur["weight_read_rounds"],
    }
    counts = [
        (
            W.f("ex_3_1", label=label),
            role,
            [o[f"{pre}{k}"] for k in ("prefill_batches", "decode_rounds", "weight_read_rounds")],
        )
        for label, role, pre in (("1", "idle", "ref_"), (str(n), "decode", ""))
    ]
    rows = [[row, f"[[ref_{k}|n]]", f"[[{k}|n]]"] for k, (row, *_r) in EX31_ROWS.items()]  # filled as shown
    return View(
        o,
        headline=W["ex_3_1.headline"],
        tables=[
            Table(
                ["", W["ex_3_1.tables"], W.f("ex_3_1.tables_2", n=n)],
                rows,
                title=W["ex_3_1.title_2"],
                note=W["ex_3_1.note"],
            )
        ],
        figures=[
            Figure(
                rq.grouped_counts(
                    [W["ex31_rows.prefill_batches"], W["ex31_rows.decode_rounds_2"], W["ex_3_1.figures"]],
                    counts,
                    W["ex_3_1.figures_2"],
                    log=True,
                ),
                W["ex_3_1.figures_3"],
                W.f(
                    "ex_3_1.figures_joined",
                    a=W["ex_3_1.figures_4"],
                    b=W["ex_3_1.figures_5"] if n == 1 else W["ex_3_1.figures_6"],
                ),
                answers=frozenset({"weight_read_rounds"}),  # its bars count the weight reads asked for
                draws=frozenset(
                    {"decode_rounds", "decode_steps_total", "prefill_count", "weight_read_ratio", "weight_read_rounds"}
                ),
            ),
            Figure(
                rq.grouped_counts(
                    [W["ex_3_1.figures_7"], W.f("ex_3_1.figures_8", n=n)],
                    [(W["ex_3_1.figures_9"], "state", [o["ref_end_kv_mib_total"], o["end_kv_mib_total"]])],
                    "KV (MiB)",
                    label=lambda x: with_unit(x, "MiB", 1),
                    height=240,
                ),
                W["ex_3_1.figures_10"],
                W["ex_3_1.figures_11"],
                draws=frozenset(
                    {"decode_rounds", "end_kv_mib_total", "prefill_count", "weight_read_ratio", "weight_read_rounds"}
                ),
            ),
        ],
        questions=[
            Question(
                key="prefill_count",
                prompt=say(EX31, o, W.f("ex_3_1.prompt", n=n)),  # also read by the live class, as written
                unit=W["fig31.unit"],
                hint=W["ex_3_1.hint"],
                solution=[W["ex_3_1.solution"]],
            ),
            Question(
                key="decode_steps_total",
                tolerance=2e-4,
                prompt=W.f("ex_3_1.prompt_2", n=n),
                unit=W["eg31.unit_2"],
                hint=W["ex_3_1.hint_2"],
                solution=[W["ex_3_1.solution_2"]],
            ),
            Question(
                key="end_context_tokens",
                prompt=W["ex_3_1.prompt_3"],
                unit="token",
                tolerance=2e-4,
                hint=W["ex_3_1.hint_3"],
                solution=[W["ex_3_1.solution_3"]],
            ),
            Question(
                key="weight_read_rounds",
                tolerance=2e-4,
                prompt=W.f("ex_3_1.prompt_4", n=n),
                unit=W["ex31_rows.decode_rounds_3"],
                hint=W["ex_3_1.hint_4"],
                solution=[W["ex_3_1.solution_4"]],
            ),
            Question(
                key="decode_lb_s",
                kind="open",
                prompt=W["ex_3_1.prompt_5"],
                answer_text=(
                    W.f(
                        "ex_3_1.answer_joined",
                        a=W["ex_3_1.answer_text"] if n == 1 else W.f("ex_3_1.answer_text_2", n=n),
                        b=W["ex_3_1.answer_text_3"],
                    )
                ),
            ),
        ],
        notes=[
            Note(W["ex_3_1.notes"]),
            Note(W["ex_3_1.notes_2"]),
        ],
    )


# --- 图 3-2 · shortening one segment changes only the metrics that contain it -----------------------


class Fig32Params(Params):
    queue_ms: float = slider(
        300,
        ge=0,
        le=5000,
        step=10,
        label=W["fig32params.queue_ms.label"],
        unit="ms",
        illustrative=True,
        sym="T_{queue}",
    )
    prefill_ms: float = slider(
        150, ge=10, le=5000, step=10, label="prefill", unit="ms", illustrative=True, sym="T_{prefill}"
    )
    inter_token_ms: float = slider(
        25, ge=5, le=200, step=1, label=W["fig32params.inter_token_ms.label"], unit="ms", illustrative=True, sym="Δ"
    )
    output_tokens: int = slider(
        200, ge=2, le=4096, step=1, label=W["fig32params.output_tokens.label"], unit="token", illustrative=True
    )
    thinking_tokens: int = slider(
        0,
        ge=0,
        le=4000,
        step=10,
        label=W["fig32params.thinking_tokens.label"],
        unit="token",
        illustrative=True,
        sym="G_{think}",
    )
    audio_delay_ms: float = slider(
        0,
        ge=0,
        le=1000,
        step=10,
        label=W["fig32params.audio_delay_ms.label"],
        unit="ms",
        illustrative=True,
        sym="T_{audio}",
    )


FIG32 = outputs(
    ttft_ms=out("TTFT = t₁ − t_a", digits=0, ill=True, sym="T_{TTFT}"),
    request_ms=out(W["fig32.request_ms"], digits=0, ill=True, sym="T_{request}"),
    token_ms=out(W["fig32.token_ms"], sig=3, ill=True, sym="T_{token}"),
    first_useful_ms=out(W["fig32.first_useful_ms"], digits=0, ill=True, sym="T_{useful}"),
    first_audible_ms=out(W["fig32.first_audible_ms"], digits=0, ill=True, sym="T_{audible}"),
)


@card(
    "fig-3-2",
    title=W["fig_3_2.title"],
    label=W["fig_3_2.label"],
    section="3.1",
    kind="calculator",
    params=Fig32Params,
    outputs=FIG32,
    lead=W["fig_3_2.lead"],
)
def fig_3_2(p: Fig32Params) -> View:
    tl = lm.request_timeline(
        p.queue_ms / 1e3,
        p.prefill_ms / 1e3,
        p.inter_token_ms / 1e3,
        p.output_tokens,
        p.thinking_tokens,
        p.audio_delay_ms / 1e3,
        given(0.0, "t_a", "s", W["fig_3_2.given"]),
    )
    o = lm.timeline_outputs(tl)
    fig = rq.request_events(
        p.queue_ms,
        tl.t_1 * 1e3,
        tl.t_G * 1e3,
        p.inter_token_ms,
        p.output_tokens,
        p.thinking_tokens,
        bool(p.audio_delay_ms),
        o,
    )
    return View(
        o,
        headline=W["fig_3_2.headline"],
        ctx={"gaps": p.output_tokens - 1},
        figures=[
            Figure(
                fig,
                W["fig_3_2.figures"],
                W["fig_3_2.figures_2"],
                illustrative=True,
                draws=frozenset({"first_audible_ms", "first_useful_ms", "request_ms", "token_ms", "ttft_ms"}),
            )
        ],
        notes=[
            Note(
                W["fig_3_2.notes"],
                "formula",
            ),
            Note(W["fig_3_2.notes_2"]),
            Note(W["fig_3_2.notes_3"], "illustrative"),
        ],
    )


# --- The metrics table and p95 by nearest rank -----------------------------------------------------

METRIC_ROWS = [
    (W["metric_rows"], W["metric_rows_2"], "fig-3-2"),
    (W["metric_rows_3"], W["metric_rows_4"], "p95-nearest-rank"),
    (W["metric_rows_5"], W["metric_rows_6"], "fig-3-2"),
    (W["metric_rows_7"], W["metric_rows_8"], "p95-nearest-rank"),
    (W["metric_rows_9"], W["metric_rows_10"], "fig-3-9"),
    (W["metric_rows_11"], W["metric_rows_12"], "fig-3-3"),
]


@card(
    "metrics-table",
    title=W["metrics_table.title"],
    section="3.1",
    kind="table",
    aliases=("tab-metrics",),
    outputs=outputs(n_rows=quiet(W["metrics_table.n_rows"]), rows=data(W["metrics_table.rows"])),
    lead=W["metrics_table.lead"],
)
def metrics_table(p: Params) -> View:
    rows = [[q, m] for q, m, _ in METRIC_ROWS]
    return View(
        {"n_rows": given(len(rows), "n", W["fig31.unit_2"], W["metrics_table.n_rows_2"]), "rows": rows},
        tables=[
            Table(
                [W["metrics_table.tables"], W["metrics_table.tables_2"]],
                rows,
                links={i: cid for i, (_, _, cid) in enumerate(METRIC_ROWS)},
            )
        ],
    )


P95_SAMPLE = [
    tuple(
        given(x, f"{s}_{{{i}}}", u, W["p95_sample.given"]) for x, s, u in zip(row, ("q", "p", "d"), ("ms", "ms", "s"))
    )
    for i, row in enumerate(read_json("p95-sample.json")["rows"], 1)
]  # (queue ms, prefill ms, decode s): 示意


class P95Params(Params):
    n: int = slider(20, ge=1, le=100000, step=1, label=W["p95params.n.label"], log=True)
    q_pct: int = slider(95, ge=50, le=99, step=1, label=W["p95params.q_pct.label"], unit="%")


COLS = {
    "queue_ms": (W["fig32params.queue_ms.label"], "ms"),
    "ttft_ms": (W["cols.ttft_ms"], "ms"),
    "request_s": (W["cols.request_s"], "s"),
}
P95 = outputs(
    rank=out(W["p95.rank"], em=True, sym="r"),
    p95_queue_ms=out(W["p95.p95_queue_ms"], ill=True, sym="T_{queue,(r)}"),
    p95_ttft_ms=out("TTFT p[[q_pct|n]]", ill=True, sym="T_{TTFT,(r)}"),
    p95_request_s=out(W["p95.p95_request_s"], ill=True, sym="T_{req,(r)}"),
    **{
        f"p95_{k}_request_id": out(W.f("p95.kw", nm=nm), ill=True, sym=f"i_{{{k.rsplit('_', 1)[0]}}}")
        for k, (nm, _) in COLS.items()
    },
    max_ttft_ms=out(W["p95.max_ttft_ms"], ill=True, sym="T_{TTFT,max}"),
    max_queue_ms=quiet(W["p95.max_queue_ms"], sym="T_{queue,max}"),
    max_request_s=quiet(W["p95.max_request_s"], sym="T_{req,max}"),
)


@card(
    "p95-nearest-rank",
    title=W["p95_nearest_rank.title"],
    section="3.1",
    kind="calculator",
    params=P95Params,
    aliases=("p95",),
    outputs=P95,
    lead=W["p95_nearest_rank.lead"],
)
def p95_nearest_rank(p: P95Params) -> View:
    o: dict = {"rank": lm.nearest_rank(p.q_pct, p.n)}
    v = View(
        o,
        headline=W["p95_nearest_rank.headline"],
        notes=[Note(W["p95_nearest_rank.notes"], "formula")],
    )
    if p.n > len(P95_SAMPLE):
        v.notes.append(Note(W.f("p95_nearest_rank.note", len=len(P95_SAMPLE))))
        return v
    cols = lm.sample_columns(P95_SAMPLE[: p.n])
    o.update(lm.percentile_outputs(cols, p.q_pct))
    picks = {k: (o[f"p95_{k}"], o[f"p95_{k}_request_id"] - 1) for k in cols}
    v.figures.append(
        Figure(
            rq.ranked_columns(cols, COLS, o["rank"], picks, p.q_pct),
            say(P95, o, W["p95_nearest_rank.say"]),
            W["p95_nearest_rank.figure"],
            illustrative=True,
            draws=frozenset(
                {
                    "max_ttft_ms",
                    "p95_queue_ms",
                    "p95_queue_ms_request_id",
                    "p95_request_s",
                    "p95_request_s_request_id",
                    "p95_ttft_ms",
                    "p95_ttft_ms_request_id",
                    "rank",
                }
            ),
        )
    )
    rows = [
        [i + 1, q, pf, d, t, r]
        for i, ((q, pf, d), t, r) in enumerate(zip(P95_SAMPLE[: p.n], cols["ttft_ms"], cols["request_s"]))
    ]
    v.tables.append(
        Table(
            [
                W["p95_nearest_rank.table"],
                W["p95_nearest_rank.table_2"],
                "prefill ms",
                "decode s",
                "TTFT ms",
                W["p95_nearest_rank.table_3"],
            ],
            rows,
            title=W["p95_nearest_rank.title_2"],
            illustrative_cells={(i, c) for i in range(len(rows)) for c in range(1, 6)},
            keys=_p95_cells(rows, o),
        )
    )
    return v


def _p95_cells(rows: list[list[float]], o: dict) -> dict[tuple[int, int], frozenset[str]]:
    """The sample table's cells that show an output: a column's value equal to its percentile or its
    maximum, and the number of the request each percentile comes from."""
    cells: dict[tuple[int, int], set[str]] = {}
    for col, name in ((1, "queue_ms"), (4, "ttft_ms"), (5, "request_s")):
        cells.setdefault((o[f"p95_{name}_request_id"] - 1, 0), set()).add(f"p95_{name}_request_id")
        for i, row in enumerate(rows):
            cells.setdefault((i, col), set()).update(k for k in (f"p95_{name}", f"max_{name}") if row[col] == o[k])
    return {c: frozenset(k) for c, k in cells.items() if k}


# --- 图 3-3 · waiting state occupies capacity -------------------------------------------------------


class Fig33Params(Params):
    arrival_rate_per_s: float = slider(
        2,
        ge=0.5,
        le=10,
        step=0.5,
        label=W["fig33params.arrival_rate_per_s.label"],
        unit=W["fig33params.arrival_rate_per_s.unit"],
    )
    wait_s: float = slider(10, ge=1, le=60, step=1, label=W["fig33params.wait_s.label"], unit="s")
    state_gib: float = slider(
        1, ge=0.25, le=8, step=0.25, label=W["fig33params.state_gib.label"], unit="GiB", sym="M_0"
    )
    horizon_s: float = slider(
        40, ge=10, le=120, step=10, label=W["fig33params.horizon_s.label"], unit="s", illustrative=True, sym="H"
    )


FIG33 = outputs(
    mean_waiting_tasks=out(W["fig33.mean_waiting_tasks"], unit=W["fig33.unit"], sig=4, sym="L"),
    mean_occupancy_gib=out(W["fig33.mean_occupancy_gib"], sig=4, em=True, sym="M̄"),
    area_per_task_gib_s=out(W["fig33.area_per_task_gib_s"], sig=4, sym="A_1"),
    area_horizon_gib_s=out(W["fig33.area_horizon_gib_s"], sig=6, ill=True, sym="A_M"),
    steady_from_s=out(W["fig33.steady_from_s"], sig=4),
)


@card(
    "fig-3-3",
    title=W["fig_3_3.title"],
    label=W["fig_3_3.label"],
    section="3.1",
    kind="animation",
    params=Fig33Params,
    outputs=FIG33,
    badges=((W["fig_3_3.badges"], "ex-3-2"),),
    lead=W["fig_3_3.lead"],
)
def fig_3_3(p: Fig33Params) -> View:
    lam, tau, m0, H = p.arrival_rate_per_s, p.wait_s, p.state_gib, p.horizon_s
    o = qu.wait_outputs(lam, tau, m0 * GIB, H)
    arr = qu.arrival_times(lam, H)
    brk = sorted({0.0, H} | set(arr) | {t + tau for t in arr if t + tau < H})
    brk = brk if len(brk) <= 400 else [H * i / 399 for i in range(400)]
    fig = bk.occupancy_figure(
        brk,
        [qu.occupancy_at(t, lam, m0, tau) for t in brk],
        m0,
        tau,
        o["mean_occupancy_gib"],
        H,
        say(FIG33, o, W["fig_3_3.say"]),
        say(FIG33, o, "λ·M₀·τ = [[mean_occupancy_gib|c]]"),
    )
    return View(
        o,
        headline="λ = [[arrival_rate_per_s]] · τ = [[wait_s]] · M₀ = [[state_gib]]",
        figures=[
            Figure(
                fig,
                W["fig_3_3.figures"],
                W["fig_3_3.figures_2"],
                animated=True,
                draws=frozenset({"area_per_task_gib_s", "mean_occupancy_gib", "mean_waiting_tasks", "steady_from_s"}),
            )
        ],
        notes=[
            Note(
                W["fig_3_3.notes"],
                "formula",
            ),
            Note(
                W["fig_3_3.notes_2"],
                "illustrative",
            ),
            Note(W["fig_3_3.notes_3"]),
        ],
    )


# --- 真实回放 · vLLM replay of 例题 3-1 on one card ------------------------------------------------------


class ReplayParams(Params):
    kv_pool_gib: float = fixed(24, W["replayparams.kv_pool_gib.fixed"], "GiB", sym="M_{KV}")
    max_seqs: int = fixed(64, W["replayparams.max_seqs.fixed"], W["eg31.unit"], sym="B_{max}")
    mu_per_card: float = fixed(ld.MU_BOOK, W["replayparams.mu_per_card.fixed"], W["eg31.unit_3"], sym="μ_1")


MEASURES = {
    "request_p95_s": (W["measures.request_p95_s"], "s", W["measures.request_p95_s_2"]),
    "ttft_p95_s": ("TTFT p95", "s", ""),
    "first_sched_wait_p95_s": (W["measures.first_sched_wait_p95_s"], "s", ""),
    "last_finish_s": (W["measures.last_finish_s"], "s", ""),
    "preemptions": (W["measures.preemptions"], "", ""),
    "kv_pool_peak_pct": (W["measures.kv_pool_peak_pct"], "%", ""),
}
MIXES = {"uniform": W["mixes.uniform"], "skewed": W["mixes.skewed"]}
REPLAY = outputs(
    mu_per_card_rounded=out(W["replay.mu_per_card_rounded"], unit=W["eg31.unit_3"], approx=True),
    avg_demand_steps_s=out(W["replay.avg_demand_steps_s"]),
    total_decode_steps=out(W["replay.total_decode_steps"], sym="D"),
    min_time_one_card_s=out(W["replay.min_time_one_card_s"], digits=1, book=W["replay.book"], sym="T_1"),
    ttft_p95_diff_s=out(W["replay.ttft_p95_diff_s"], digits=1, approx=True),
    kv_pool_tokens=out(W["replay.kv_pool_tokens"], digits=1),
    max_resident_long_input=out(W["replay.max_resident_long_input"], unit=W["eg31.unit"]),
    max_resident_long_output=out(W["replay.max_resident_long_output"], unit=W["eg31.unit"]),
    **{
        f"{k}_{m}": quiet(W.f("measures.in_mix", lab=lab, ml=ml), unit=u)
        for k, (lab, u, _) in MEASURES.items()
        for m, ml in MIXES.items()
    },
    total_requests=quiet(W["eg31.total_requests"], unit=W["eg31.unit"]),
    arrival_window_s=quiet(W["eg31.duration_s"]),
    max_seqs=quiet(W["replayparams.max_seqs.fixed"], unit=W["eg31.unit"]),
)


@card(
    "real-replay",
    title=W["real_replay.title"],
    label=W["real_replay.label"],
    section="3.1",
    kind="table",
    params=ReplayParams,
    outputs=REPLAY,
    lead=W["real_replay.lead"],
)
def real_replay(p: ReplayParams) -> View:
    mixes = read_json("real-replay.json")["mixes"]
    o: dict = {
        f"{k}_{m}": given(mixes[m][k], W.f("measures.in_mix", lab=lab, ml=ml), u, W["real_replay.o.given"])
        for k, (lab, u, _) in MEASURES.items()
        for m, ml in MIXES.items()
    }
    eg, _, mix = ld.book_run("uniform")
    tokens, (li, lo) = qu.kv_pool_residency(p.kv_pool_gib * GIB, ld.KV_BYTES, (mix.a, mix.b))
    o.update(
        {
            "ttft_p95_diff_s": o["ttft_p95_s_skewed"] - o["ttft_p95_s_uniform"],
            "mu_per_card_rounded": round(p.mu_per_card),
            "avg_demand_steps_s": eg["avg_demand_steps_s"],
            "total_decode_steps": eg["total_decode_steps"],
            "total_requests": eg["total_requests"],
            "arrival_window_s": eg["duration_s"],
            "max_seqs": p.max_seqs,
            "min_time_one_card_s": eg["total_decode_steps"] / p.mu_per_card,
            "kv_pool_tokens": tokens,
            "max_resident_long_input": li,
            "max_resident_long_output": lo,
        }
    )
    rows = [
        [lab, say(REPLAY, o, pre + f"[[{k}_uniform]]"), say(REPLAY, o, pre + f"[[{k}_skewed]]")]
        for k, (lab, _, pre) in MEASURES.items()
    ]
    texts = (say(REPLAY, o, W["real_replay.say"]), say(REPLAY, o, "[[avg_demand_steps_s|n,d0]]"))
    return View(
        o,
        headline=W["real_replay.headline"],
        tables=[
            Table(
                [W["real_replay.tables"], MIXES["uniform"], MIXES["skewed"]],  # the data file's labels, in words
                rows,
                title=W["real_replay.title_2"],
            )
        ],
        figures=[
            Figure(
                bk.rate_vs_demand(p.mu_per_card, o["avg_demand_steps_s"], texts),
                W["real_replay.figures"],
                W["real_replay.figures_2"],
                draws=frozenset({"avg_demand_steps_s", "mu_per_card_rounded", "ttft_p95_diff_s"}),
            )
        ],
        notes=[
            Note(W["real_replay.notes"], "book"),
            Note(W["real_replay.notes_2"]),
            Note(W["real_replay.notes_3"]),
        ],
    )
