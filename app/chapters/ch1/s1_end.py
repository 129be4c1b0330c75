"""Chapter 1 end matter: 谬误与陷阱 (four fallacies) and 本章数字速查 (Qwen3-8B quick numbers and the
lower-bound calculator built on them)."""

from __future__ import annotations

import math
from typing import Any

from ...calculators import decode, parallel, roofline
from ...calculators.units import GIB
from ...cards import Figure, Note, Params, Table, View, card, slider
from ...charts.decode import stage_bounds
from ...data import gpu_options
from ...outputs import out, outputs
from ...params_domain import gpu_choice, gpu_of
from ...trace import given, name, tmax
from ...words import words_for
from ..shared import ch1 as shared
from ..shared.tp import LINK_RULE, TpDegree, link_bytes_s, link_override, tp_choice

W = words_for(__name__)

WORKSPACE = given(2, "M_{work}", "GiB", source=W["workspace.source"])  # fallacy 2: workspace + runtime reserve


class FallacyParams(Params):
    context_tokens: int = slider(
        2048,
        ge=128,
        le=32768,
        step=128,
        label=W["fallacyparams.context_tokens.label"],
        unit="token",
        illustrative=True,
        sym="S",
    )


FALLACIES = outputs(
    compute_x2_t_step_ms=out(W["fallacies.compute_x2_t_step_ms"], digits=2, sym="T_{step}'"),
    compute_x2_speedup=out(W["fallacies.compute_x2_speedup"], unit="×", digits=3),
    free_after_weights_gb=out(W["fallacies.free_after_weights_gb"], digits=2),
    kv_per_request_gb=out(W["fallacies.kv_per_request_gb"], sig=3, ill=True),
    requests_fit=out(W["fallacies.requests_fit"], unit=W["fallacies.unit"], ill=True),
    kv_for_b_star_gb=out(W["fallacies.kv_for_b_star_gb"], sig=3, ill=True, sym="KV(⌈B*⌉)"),
    b_star_requests=out("⌈B*⌉", unit=W["fallacies.unit"], tile=False),
    t_step_ms=out(W["fallacies.t_step_ms"], digits=2, tile=False, sym="T_{step}"),
    throughput_b8_tok_s=out(W["fallacies.throughput_b8_tok_s"], digits=0, tile=False),
)


def fallacy_outputs(context_tokens: int) -> dict:
    """① 例题 1-1 with twice the compute; ② the real 70B in 8-bit on one H100 plus per-request KV."""
    bw, peak = shared.rates("h100-sxm", 100, 100)
    n, b_w, one = (
        shared.HAND_N_BILLION * 1e9,
        shared.HAND_B_W,
        given(1, "B", W["fallacy_outputs.given"], source=shared.HAND),
    )
    s1, s2 = (roofline.step_outputs(n, b_w, one, bw, pk, 10) for pk in (peak, 2 * peak))
    s70 = shared.model(shared.LLAMA_70B)
    free = gpu_of("h100-sxm").mem_gb * 1e9 - shared.stored_weights(s70, "w8-g128")
    kv = decode.kv_bytes(s70, context_tokens)
    b_ceil = math.ceil(roofline.b_star(b_w, bw, peak))
    t1, t2 = name(s1["t_step_ms"], "T_{step}", "ms"), name(s2["t_step_ms"], "T_{step}'", "ms")
    return {
        "compute_x2_t_step_ms": t2,
        "compute_x2_speedup": t1 / t2,
        "free_after_weights_gb": free / 1e9,
        "kv_per_request_gb": kv / 1e9,
        "requests_fit": tmax(0, math.floor((free - WORKSPACE * GIB) / kv)),
        "kv_for_b_star_gb": b_ceil * kv / 1e9,
        "b_star_requests": b_ceil,
        "t_step_ms": s1["t_step_ms"],
        "throughput_b8_tok_s": roofline.step_outputs(
            n, b_w, given(8, "B", W["fallacy_outputs.given"], source=W["fallacy_outputs.source"]), bw, peak, 10
        )["throughput_tok_s"],
    }


@card(
    "fallacies",
    title=W["fallacies.title"],
    section="1.end",
    kind="diagram",
    params=FallacyParams,
    outputs=FALLACIES,
    lead=W["fallacies.lead"],
)
def fallacies(p: FallacyParams) -> View:
    v = View(fallacy_outputs(p.context_tokens), notes=shared.notes("fallacies"))
    items = [
        dict(it, facts=[shared.filled("fallacies", v, p, f) for f in it["facts"]]) for it in shared.CONTENT["fallacies"]
    ]
    v.blocks.append(shared.diagram("fallacies", items=items))
    return v


# ---- Qwen3-8B 的关键数字 · 用速查数字估下界 ---------------------------------------------------------------------------

TAB = outputs(
    n_params=out(W["tab.n_params"], tile=False),
    weights_gb=out(W["tab.weights_gb"], digits=2, tile=False),
    kv_per_token_kib=out(W["tab.kv_per_token_kib"], digits=0, tile=False),
    kv_context_mib=out(W["tab.kv_context_mib"], digits=0, tile=False),
    kv_context_gb=out(W["tab.kv_context_gb"], digits=3, tile=False),
    prefill_tflop=out(W["tab.prefill_tflop"], digits=2, tile=False),
    decode_gflop=out(W["tab.decode_gflop"], digits=2, tile=False),
    decode_weight_read_gb=out(W["tab.decode_weight_read_gb"], digits=2, tile=False),
    decode_kv_read_gb=out(W["tab.decode_kv_read_gb"], digits=3, tile=False),
)
TAB_ROWS = [
    ("weights_gb", W["tab_rows"]),
    ("kv_per_token_kib", W["tab_rows_2"]),
    ("kv_context_mib", W["tab_rows_3"]),
    ("prefill_tflop", W["tab_rows_4"]),
    ("decode_gflop", W["tab_rows_5"]),
    ("decode_weight_read_gb", W["tab_rows_6"]),
    ("decode_kv_read_gb", W["tab_rows_7"]),
]


def quick_numbers(context: int = 2048) -> decode.QuickNumbers:
    """Qwen3-8B's quick numbers: BF16, batch 1, a 2048-token prefill and a decode step at ``context``."""
    return decode.quick_numbers(
        shared.model(shared.QWEN3_8B),
        context=context,
        prefill_tokens=given(2048, "n", "token", source=W["quick_numbers.source"]),
    )


@card(
    "tab-qwen3-8b",
    title=W["tab_qwen3_8b.title"],
    section="1.end",
    kind="table",
    outputs=TAB,
    lead=W["tab_qwen3_8b.lead"],
)
def tab_qwen3_8b(p: Params) -> View:
    o = decode.quick_table(quick_numbers())
    v = View(o, headline=W["tab_qwen3_8b.headline"], notes=shared.notes("tab-qwen3-8b"))
    v.tables.append(
        Table(
            [W["tab_qwen3_8b.table"], W["tab_qwen3_8b.table_2"], W["tab_qwen3_8b.table_3"]],
            [[TAB[k].label, shared.shown(TAB, o, k), shared.filled("tab-qwen3-8b", v, p, use)] for k, use in TAB_ROWS],
            note=W["tab_qwen3_8b.note"],
        )
    )
    return v


class QuickParams(Params):
    gpu: shared.GpuId = gpu_choice("rtx-pro-6000", gpu_options(), label=W["quickparams.gpu.label"])
    context_tokens: int = slider(
        2048, ge=128, le=32768, step=128, label=W["quickparams.context_tokens.label"], unit="token"
    )
    link_gbps: float | None = link_override()
    tp: TpDegree = tp_choice()
    cross_field_rules = (LINK_RULE,)


QUICK = outputs(
    prefill_tflop=out(W["quick.prefill_tflop"], digits=2, sym="F_{prefill}"),
    prefill_compute_ms=out(W["quick.prefill_compute_ms"], sig=4),
    decode_gflop=out(W["quick.decode_gflop"], digits=2, sym="F_1"),
    decode_read_gb=out(W["quick.decode_read_gb"], digits=2),
    decode_compute_ms=out(W["quick.decode_compute_ms"], sig=3),
    decode_memory_ms=out(W["quick.decode_memory_ms"], digits=2),
    decode_lb_ms=out(W["quick.decode_lb_ms"], digits=2, em=True, sym="T_{step}"),
    fits=out(
        W["quick.fits"],
        text={True: W["quick.t"], False: W["quick.t_2"]},
    ),
    need_gb=out(W["quick.need_gb"], digits=2, tile=False),
    capacity_gb=out(W["quick.capacity_gb"], digits=1, tile=False, sym="M"),
    decode_read_per_gpu_gb=out(W["quick.decode_read_per_gpu_gb"], digits=2, tile="multi", sym="R_{gpu}"),
    decode_allreduce_ms=out(W["quick.decode_allreduce_ms"], sig=3, tile="multi", sym="T_{AR}"),
    prefill_allreduce_ms=out(W["quick.prefill_allreduce_ms"], sig=3, tile="multi", sym="T_{AR,prefill}"),
)


def tp_quick(q: decode.QuickNumbers, p: QuickParams, bw: float, peak: float, cap_gb: float) -> dict[str, Any]:
    """Qwen3-8B on tp ranks: each reads 1/tp of the weights and its ⌈n_kv/tp⌉ of 8 KV heads, does 1/tp of the FLOPs;
    the all-reduce (per token: twice per layer, ring) is its own term. At tp = 1 the book's outputs stand."""
    s = shared.model(shared.QWEN3_8B)
    share, link = parallel.kv_share(s, p.tp), link_bytes_s(p.gpu, p.link_gbps)
    t_ar = parallel.allreduce_time(
        given(1, "B", W["fallacy_outputs.given"], source=W["tp_quick.source"]), s, p.tp, link
    )
    t_ar_pre = parallel.allreduce_time(q.prefill_tokens, s, p.tp, link)
    r_gpu = name(q.decode_weight_read_bytes / p.tp + share * q.decode_kv_read_bytes, "R_{gpu}", "B")
    x = {
        "decode_read_per_gpu_gb": r_gpu / 1e9,
        "decode_allreduce_ms": t_ar * 1e3,
        "prefill_allreduce_ms": t_ar_pre * 1e3,
    }
    if p.tp == 1:
        return x
    st = parallel.tp_step(r_gpu, name(q.decode_flops / p.tp, "F_{gpu}", "FLOP"), bw, peak, t_ar)
    need = name(q.weights_bytes / p.tp + share * q.kv_context_bytes, "M_{gpu}", "B")
    return x | {
        "prefill_compute_ms": q.prefill_flops / p.tp / peak * 1e3,
        "decode_compute_ms": st.t_compute * 1e3,
        "decode_memory_ms": st.t_mem * 1e3,
        "decode_lb_ms": st.t_step * 1e3,
        "fits": need <= cap_gb * 1e9,
        "need_gb": need / 1e9,
    }


@card(
    "quick-bounds",
    title=W["quick_bounds.title"],
    section="1.end",
    kind="calculator",
    params=QuickParams,
    outputs=QUICK,
    badges=((W["quick_bounds.badges"], "tab-qwen3-8b"),),
    lead=W["quick_bounds.lead"],
)
def quick_bounds(p: QuickParams) -> View:
    g = gpu_of(p.gpu)
    bw, peak = g.bw_bytes_s, g.flops
    q = quick_numbers(p.context_tokens)
    o = decode.quick_bounds(
        q, bw, peak, g.mem_gb, given(1, "B", W["fallacy_outputs.given"], source=W["tp_quick.source"])
    )
    o |= tp_quick(q, p, bw, peak, g.mem_gb)
    multi = p.tp > 1
    keys = ["prefill_compute_ms", "decode_compute_ms", "decode_memory_ms"] + (["decode_allreduce_ms"] if multi else [])
    names = [W["quick_bounds"], W["quick_bounds_2"], W["quick_bounds_3"]] + (
        ["decode · all-reduce T_AR"] if multi else []
    )
    fig = stage_bounds(
        names,
        [o[k] for k in keys],
        ["compute", "compute", "read", "network"][: len(keys)],
        [shared.shown(QUICK, o, k, "s3") for k in keys],
    )
    tp_note = [Note(W["quick_bounds.note"])] if multi else []
    return View(
        o,
        headline=W["quick_bounds.headline"] + (" · tp = [[tp|n]]" if multi else ""),
        ctx={"gpu_name": g.name, "multi": multi},
        figures=[
            Figure(
                fig,
                W["quick_bounds.figures"],
                W["quick_bounds.figures_2"] + (W["quick_bounds.figures_3"] if multi else ""),
                draws=frozenset(
                    {
                        "decode_allreduce_ms",
                        "decode_compute_ms",
                        "decode_lb_ms",
                        "decode_memory_ms",
                        "prefill_compute_ms",
                    }
                ),
            )
        ],
        notes=shared.notes("quick-bounds") + tp_note,
    )
