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
from ..shared import ch1 as shared
from ..shared.tp import LINK_RULE, TpDegree, link_bytes_s, link_override, tp_choice

WORKSPACE = given(2, "M_{work}", "GiB", source="示意值(书中未给出)")  # fallacy 2: workspace + runtime reserve


class FallacyParams(Params):
    context_tokens: int = slider(
        2048, ge=128, le=32768, step=128, label="每请求上下文(误区二用)", unit="token", illustrative=True, sym="S"
    )


FALLACIES = outputs(
    compute_x2_t_step_ms=out("误区一 · 算力 ×2 后单步下界", digits=2, sym="T_{step}'"),
    compute_x2_speedup=out("误区一 · 加速比", unit="×", digits=3),
    free_after_weights_gb=out("误区二 · 放下权重后剩余", digits=2),
    kv_per_request_gb=out("误区二 · 每请求 KV", sig=3, ill=True),
    requests_fit=out("误区二 · 还能容纳的请求数", unit="个", ill=True),
    kv_for_b_star_gb=out("误区二 · [[b_star_requests|n]] 个请求的 KV", sig=3, ill=True, sym="KV(⌈B*⌉)"),
    b_star_requests=out("⌈B*⌉", unit="个", tile=False),
    t_step_ms=out("例题 1-1 单步下界", digits=2, tile=False, sym="T_{step}"),
    throughput_b8_tok_s=out("B = 8 时的理想吞吐", digits=0, tile=False),
)


def fallacy_outputs(context_tokens: int) -> dict:
    """① 例题 1-1 with twice the compute; ② the real 70B in 8-bit on one H100 plus per-request KV."""
    bw, peak = shared.rates("h100-sxm", 100, 100)
    n, b_w, one = shared.HAND_N_BILLION * 1e9, shared.HAND_B_W, given(1, "B", "请求", source=shared.HAND)
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
        "throughput_b8_tok_s": roofline.step_outputs(n, b_w, given(8, "B", "请求", source="书中举例"), bw, peak, 10)[
            "throughput_tok_s"
        ],
    }


@card(
    "fallacies",
    title="谬误与陷阱 · 四个常见误区",
    section="1.end",
    kind="diagram",
    params=FallacyParams,
    outputs=FALLACIES,
    lead="四个听上去很自然的判断,每一个都能用本章的数字拆穿。点开每张卡片看反驳和证据。",
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
    n_params=out("参数量 N", tile=False),
    weights_gb=out("完整 BF16 权重", digits=2, tile=False),
    kv_per_token_kib=out("每个上下文 token 的全模型 KV", digits=0, tile=False),
    kv_context_mib=out("2048 token 上下文的 KV", digits=0, tile=False),
    kv_context_gb=out("2048 token 上下文的 KV(GB)", digits=3, tile=False),
    prefill_tflop=out("2048 token prefill 的矩阵运算", digits=2, tile=False),
    decode_gflop=out("一步 decode 的矩阵运算", digits=2, tile=False),
    decode_weight_read_gb=out("一步 decode 的主要权重读取", digits=2, tile=False),
    decode_kv_read_gb=out("一步 decode 的旧 KV 读取", digits=3, tile=False),
)
TAB_ROWS = [
    ("weights_gb", "判断加载要多少显存"),
    ("kv_per_token_kib", "× 上下文长度 = 单请求的 KV 容量"),
    ("kv_context_mib", "约 [[kv_context_gb]],随独立请求数线性增加"),
    ("prefill_tflop", "÷ 矩阵算力 = 计算时间下界"),
    ("decode_gflop", "只输入一个 token,另外要访问已有上下文"),
    ("decode_weight_read_gb", "权重读一遍;嵌入表只读当前 token 那一行"),
    ("decode_kv_read_gb", "每份上下文的 KV 读一遍"),
]


def quick_numbers(context: int = 2048) -> decode.QuickNumbers:
    """Qwen3-8B's quick numbers: BF16, batch 1, a 2048-token prefill and a decode step at ``context``."""
    return decode.quick_numbers(
        shared.model(shared.QWEN3_8B), context=context, prefill_tokens=given(2048, "n", "token", source="书中条件")
    )


@card(
    "tab-qwen3-8b",
    title="Qwen3-8B 的关键数字",
    section="1.end",
    kind="table",
    outputs=TAB,
    lead="BF16 权重、激活和 KV,并发 1。prefill 一次处理全部已有输入并给出第一个输出;decode 每次只送入一个新 token,靠已存的 KV 接着生成。",
)
def tab_qwen3_8b(p: Params) -> View:
    o = decode.quick_table(quick_numbers())
    v = View(o, headline="Qwen3-8B · [[n_params|n]] 个参数 · BF16 · 并发 1", notes=shared.notes("tab-qwen3-8b"))
    v.tables.append(
        Table(
            ["模型需求", "数值", "怎么用"],
            [[TAB[k].label, shared.shown(TAB, o, k), shared.filled("tab-qwen3-8b", v, p, use)] for k, use in TAB_ROWS],
            note="全部由公开 config.json 的形状算出:36 层、hidden 4096、32 个 query 头、8 个 KV 头、head_dim 128、FFN 12288、词表 151936。",
        )
    )
    return v


class QuickParams(Params):
    gpu: shared.GpuId = gpu_choice("rtx-pro-6000", gpu_options(), label="加速器")
    context_tokens: int = slider(2048, ge=128, le=32768, step=128, label="decode 上下文长度 S", unit="token")
    link_gbps: float | None = link_override()
    tp: TpDegree = tp_choice()
    cross_field_rules = (LINK_RULE,)


QUICK = outputs(
    prefill_tflop=out("prefill 运算(2048 token)", digits=2, sym="F_{prefill}"),
    prefill_compute_ms=out("prefill 计算下界", sig=4),
    decode_gflop=out("decode 运算", digits=2, sym="F_1"),
    decode_read_gb=out("decode 读取(权重 + 旧 KV)", digits=2),
    decode_compute_ms=out("decode 计算项", sig=3),
    decode_memory_ms=out("decode 读取项", digits=2),
    decode_lb_ms=out("decode 单步下界", digits=2, em=True, sym="T_{step}"),
    fits=out(
        "权重 + 一份 KV 放得下?",
        text={True: "放得下 [[need_gb|n]]/[[capacity_gb|c]]", False: "放不下 [[need_gb|n]]/[[capacity_gb|c]]"},
    ),
    need_gb=out("权重 + 一份 KV", digits=2, tile=False),
    capacity_gb=out("显存容量", digits=1, tile=False, sym="M"),
    decode_read_per_gpu_gb=out("每卡 decode 读取", digits=2, tile="multi", sym="R_{gpu}"),
    decode_allreduce_ms=out("decode all-reduce T_AR(另加)", sig=3, tile="multi", sym="T_{AR}"),
    prefill_allreduce_ms=out("prefill all-reduce(2048 token,另计)", sig=3, tile="multi", sym="T_{AR,prefill}"),
)


def tp_quick(q: decode.QuickNumbers, p: QuickParams, bw: float, peak: float, cap_gb: float) -> dict[str, Any]:
    """Qwen3-8B on tp ranks: each reads 1/tp of the weights and its ⌈n_kv/tp⌉ of 8 KV heads, does 1/tp of the FLOPs;
    the all-reduce (per token: twice per layer, ring) is its own term. At tp = 1 the book's outputs stand."""
    s = shared.model(shared.QWEN3_8B)
    share, link = parallel.kv_share(s, p.tp), link_bytes_s(p.gpu, p.link_gbps)
    t_ar = parallel.allreduce_time(given(1, "B", "请求", source="书中条件:并发 1"), s, p.tp, link)
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
    title="用速查数字估下界",
    section="1.end",
    kind="calculator",
    params=QuickParams,
    outputs=QUICK,
    badges=(("速查表", "tab-qwen3-8b"),),
    lead="把速查表里的数字除以算力或带宽,就得到 prefill 与 decode 的时间下界。换加速器、改上下文看哪一项变。",
)
def quick_bounds(p: QuickParams) -> View:
    g = gpu_of(p.gpu)
    bw, peak = g.bw_bytes_s, g.flops
    q = quick_numbers(p.context_tokens)
    o = decode.quick_bounds(q, bw, peak, g.mem_gb, given(1, "B", "请求", source="书中条件:并发 1"))
    o |= tp_quick(q, p, bw, peak, g.mem_gb)
    multi = p.tp > 1
    keys = ["prefill_compute_ms", "decode_compute_ms", "decode_memory_ms"] + (["decode_allreduce_ms"] if multi else [])
    names = ["prefill · 计算 F/Π", "decode · 计算 F/Π", "decode · 读取 R/β"] + (
        ["decode · all-reduce T_AR"] if multi else []
    )
    fig = stage_bounds(
        names,
        [o[k] for k in keys],
        ["compute", "compute", "read", "network"][: len(keys)],
        [shared.shown(QUICK, o, k, "s3") for k in keys],
    )
    tp_note = (
        [
            Note(
                "张量并行 tp = [[tp|n]]:每卡读 1/tp 的权重和自己那 ⌈8/tp⌉ 个 KV 头,做 1/tp 的运算;每层两次 all-reduce "
                "走卡间互连,decode 一步另加 [[decode_allreduce_ms]](prefill 的 2048 个 token 另需 [[prefill_allreduce_ms]])。"
                "“放得下”按每卡算。"
            )
        ]
        if multi
        else []
    )
    return View(
        o,
        headline="[[gpu_name]] · prefill 2048 token · decode 上下文 [[context_tokens]]"
        + (" · tp = [[tp|n]]" if multi else ""),
        ctx={"gpu_name": g.name, "multi": multi},
        figures=[
            Figure(
                fig,
                "各阶段的时间下界",
                "prefill 计算下界 [[prefill_compute_ms]];decode 计算 [[decode_compute_ms]],"
                "读取 [[decode_memory_ms]],较大者是读取。"
                + ("另加 all-reduce [[decode_allreduce_ms]]。" if multi else ""),
            )
        ],
        notes=shared.notes("quick-bounds") + tp_note,
    )
