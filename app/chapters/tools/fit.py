"""The fit planner (/tools/fit): does a model fit on tp accelerators, how many KV tokens, how long a context,
how many concurrent requests, and the decode step's lower bound at that batch (issue 17); memory as the
runtime reports it, the interconnect by topology, separate verdicts for the model and the batch, what would
make a model fit, and public measurements beside the bound (issue 24)."""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any, Literal

from ...calculators import engine_memory, parallel, planner
from ...calculators.formats import KV_FORMATS, WEIGHT_FORMATS, Format
from ...calculators.model_config import ConfigError, ModelShape, shape_of
from ...calculators.units import GB
from ...cards import Figure, Note, Params, Table, View, card, choice, slider, toggle
from ...charts.fit import memory_breakdown, step_terms
from ...data import (
    CUSTOM_GPU,
    extended_gpu_ids,
    extended_gpu_options,
    gpu,
    measured_decode,
    model_config,
    model_ids,
)
from ...outputs import data, out, outputs
from ...params_domain import gpu_choice, gpu_of, gpu_type, model_choice, model_type, shape_of_model
from ...trace import given, leaf
from .. import words
from ..shared.tp import LINK_RULE, TpDegree, link_bytes_s, link_override, peaks_flops, tp_choice

NAMES = {
    "qwen3-8b": "Qwen3-8B",
    "deepseek-r1-distill-llama-70b": "DeepSeek-R1-Distill-Llama-70B",
    "qwen3-vl-4b-text": "Qwen3-VL-4B(语言部分)",
    "qwen3-30b-a3b": "Qwen3-30B-A3B",
    "qwen3-14b-awq": "Qwen3-14B-AWQ",
    "gpt-oss-120b": "gpt-oss-120b",
}
WORDS = words("tools", "fit")
STORED = "stored"  # the checkpoint's own format (quantization_config), a weight-format choice


def _readable(mid: str) -> bool:
    try:
        shape_of(model_config(mid))
        return True
    except (ConfigError, KeyError, TypeError, ValueError):
        return False


MODELS = {m: NAMES.get(m, m) for m in model_ids() if _readable(m)}  # the presets a config reader can count


def _format_options(formats: dict[str, Format]) -> dict[str, str]:
    return {k: f"{f.label} · {float(f.bits):g} 位" for k, f in formats.items()}


WEIGHT_OPTIONS = {STORED: "按 checkpoint 的存储(config.json 的 quantization_config)", **_format_options(WEIGHT_FORMATS)}
WIDEST_FIRST = sorted(WEIGHT_FORMATS, key=lambda k: -WEIGHT_FORMATS[k].bits)  # what a smaller format would be


class FitParams(Params):
    model: model_type(MODELS) = model_choice("qwen3-8b", MODELS, label="模型")  # type: ignore[valid-type]
    gpu: gpu_type(extended_gpu_ids()) = gpu_choice("h100-sxm", extended_gpu_options(), label="加速器")  # type: ignore[valid-type]
    link_gbps: float | None = link_override()
    tp: TpDegree = tp_choice()
    weight_format: Literal[tuple(WEIGHT_OPTIONS)] = choice(  # type: ignore[valid-type]
        "bf16", WEIGHT_OPTIONS, label="权重格式(位数含缩放)"
    )
    kv_format: Literal[tuple(KV_FORMATS)] = choice(  # type: ignore[valid-type]
        "bf16", _format_options(KV_FORMATS), label="KV 缓存格式(位数含缩放)"
    )
    mem_util: float = slider(0.9, ge=0.1, le=1, step=0.01, label="显存利用率上限 η", sym="η")
    reserve_gb: float | None = slider(
        None,
        ge=0,
        le=64,
        step=0.1,
        label="每卡预留(固定值,留空按 vLLM 剖析估算)",
        unit="GB",
        sym="M_{res}",
        placeholder="按 vLLM 剖析估算",
        help="留空:按 vLLM 的显存剖析逐项估算(激活峰值、非 torch 显存、CUDA graph);填数:每卡固定预留这么多(旧算法,例如 3.3 GB)",
    )
    max_num_batched_tokens: int | None = slider(
        None,
        ge=1,
        le=engine_memory.MAX_BATCHED_TOKENS,
        step=1,
        label="每步最多 token 数 max_num_batched_tokens",
        unit="token",
        log=True,
        sym="T_{batch}",
        placeholder="vLLM 默认",
        help="vLLM 剖析时跑一次这么多 token 的前向;留空取 vLLM 的默认值(显存 ≥ 70 GiB 的卡 8192,其余 2048)",
    )
    mtp: bool = toggle(
        False,
        label="加载 MTP 层(投机解码)",
        help="checkpoint 带 MTP 层时(DeepSeek-V3、GLM-4.5、Qwen3.5 等),开投机解码 vLLM 才加载它们,显存里多算这些权重",
    )
    context: int = slider(8192, ge=1, le=1_048_576, step=1, label="上下文长度 S", unit="token", log=True)
    concurrency: int = slider(16, ge=1, le=1000, step=1, label="并发请求数 C", unit="个", log=True)
    cross_field_rules = (LINK_RULE,)


FIT = outputs(
    fits=out(
        "放得下吗?",
        em=True,
        text={True: "放得下(KV 预算还余 [[free_gb|n]] GB)", False: "[[not_fit_text]]还差 [[short_gb|n]] GB"},
    ),
    model_fits=out("模型本身放得下吗?", text={True: "放得下", False: "放不下(还差 [[model_short_gb|n]] GB)"}),
    kv_capacity_tokens=out("KV 能放下的 token 数", unit="token", em=True, sym="N_{KV}"),
    max_context_at_concurrency=out(
        "并发 [[concurrency|n]] 时最长上下文", unit="token", none="不受显存限制", sym="S_{max}"
    ),
    max_concurrency_at_context=out("上下文 [[context|n]] 时最多并发", unit="个", sym="C_{max}"),
    t_step_lb_ms=out("decode 单步下界 T_step", sig=4, em=True, sym="T_{step}", none="无(模型放不下)"),
    tokens_per_s_ideal=out("理想吞吐(整组卡)", unit="token/s", sig=4, none="无(模型放不下)"),
    weights_per_gpu_gb=out("每卡权重 W_gpu", digits=2, sym="W_{gpu}"),
    kv_bytes_per_token_per_gpu=out("每卡每 token 的 KV", unit="B", sym="kv_{gpu}"),
    kv_budget_gb=out("每卡 KV 预算 M_KV", digits=2, sym="M_{KV}", none="无(权重与预留已超出可用显存)"),
    kv_held_gb=out("当前批的 KV([[concurrency|n]] × [[context|n]] token)", digits=2, sym="KV_{held}"),
    usable_gb=out("每卡可用 η·M", digits=2, sym="M_{use}"),
    t_mem_ms=out("读取项 R/β", sig=4, sym="T_{mem}", none="—"),
    t_compute_ms=out("计算项 F/Π", sig=4, sym="T_{comp}", none="—"),
    t_allreduce_ms=out("all-reduce 通信 T_AR(另加的一项)", sig=4, sym="T_{AR}", none="—"),
    bound=out("读取与计算谁大", text={"memory": "读取(memory)", "compute": "计算(compute)", "none": "—(模型放不下)"}),
    peak_used_tflops=out("计算峰值 Π(按 [[peak_name]])", sig=5, sym="Π"),
    peak_fell_back=out("回退到 BF16 峰值?", text={True: "是:[[peak_reason]]", False: "否([[peak_name]])"}),
    kv_heads_per_gpu=out("每卡 KV 头数", unit="个", tile="gqa", sym="n_{kv,gpu}"),
    kv_replicated=out("KV 在卡间复制?", text={True: "[[replication]]", False: "否"}),
    distinct_experts=out("每层平均触及的专家数 E_B", sig=4, tile="moe", sym="E_B"),
    state_per_seq_per_gpu_mb=out("每条序列的固定状态(每卡)", unit="MB", digits=2, tile="hybrid", sym="S_{seq,gpu}"),
    weight_read_per_gpu_gb=out("每卡每步读权重", digits=2, sym="R_{W,gpu}"),
    kv_read_per_gpu_gb=out("每卡每步读 KV", digits=2, tile=False),
    flops_per_gpu_gflop=out("每卡每步运算", sig=4, tile=False, sym="F_{gpu}"),
    params_total=out("总参数(显存按它)", tile="moe", sym="N"),
    params_active=out("激活参数(读取按它)", tile="moe", sym="N_{act}"),
    weight_bits=out("每个权重的位数(含缩放)", unit="bit", trim=True, tile=False),
    kv_bits=out("每个 KV 值的位数(含缩放)", unit="bit", trim=True, tile=False),
    weights_per_gpu_bytes=out("每卡权重(字节)", unit="B", tile=False, sym="W_{gpu}"),
    capacity_gb=out("每卡显存 M(驱动报告)", digits=2, tile=False, sym="M"),
    marketed_gb=out("每卡标称显存", tile=False),
    reserve_per_gpu_gb=out("每卡预留 M_res", digits=2, tile=False, sym="M_{res}"),
    reserve_activation_gb=out("其中激活峰值 A_peak", digits=2, tile=False, sym="A_{peak}", none="—(固定预留)"),
    reserve_non_torch_gb=out("其中非 torch 显存 M_nt", digits=2, tile=False, sym="M_{nt}", none="—(固定预留)"),
    reserve_cuda_graph_gb=out("其中 CUDA graph(计入 KV 预算的部分)", digits=2, tile=False, none="—(固定预留)"),
    reserve_loaded_extra_gb=out("其中权重加载时多出的部分 ΔW_load", digits=2, tile=False, none="—(固定预留)"),
    batched_tokens_used=out("剖析用的 max_num_batched_tokens", unit="token", tile=False, none="—(固定预留)"),
    vllm_kv_tokens=out(
        "vLLM 日志会打印的 GPU KV cache size", unit="token", tile="hybrid", sym="N_{vLLM}", none="无(模型放不下)"
    ),
    vllm_max_concurrency=out(
        "vLLM 日志的 Maximum concurrency(上下文 [[context|n]])", sig=4, tile=False, none="无(模型放不下)"
    ),
    free_gb=out("KV 预算余量", digits=2, tile=False),
    short_gb=out("还差", digits=2, tile=False),
    model_short_gb=out("权重与预留超出可用显存", digits=2, tile=False),
    peak_format=out("计算格式", tile=False, text={"bf16": "BF16", "fp8": "FP8", "fp4": "FP4"}),
    link_used_gbps=out("所用互连带宽 β_link(单向)", unit="GB/s", sig=4, tile=False, none="—"),
    fix_tp=out("换更大的 tp", tile=False, none="到 tp = 8 也放不下"),
    fix_weight_format=out("换更小的权重格式", tile=False, none="列出的格式都放不下"),
    fix_gpu=out("换显存更大的加速器", tile=False, none="预设里没有放得下的"),
    measured=data("公开实测与本页下界:id, engine, setup, measured_ms, bound_ms, ratio_pct, source", type=list),
)


def model_shape(ref: str) -> ModelShape:
    """The model's counts as traced inputs; MoE counts (E, k, MoE layers) too."""
    s = shape_of_model(ref, MODELS.get(ref, ""))
    if not s.n_experts:
        return s
    src = f"{MODELS.get(ref, '自定义')} 的 config.json"
    return dataclasses.replace(
        s,
        n_experts=leaf(s.n_experts, "E", "", src),
        experts_per_token=leaf(s.experts_per_token, "k", "", src),
        n_moe_layers=leaf(s.n_moe_layers, "L_{MoE}", "", src),
    )


def runtime_memory(ref: str) -> float:
    """M: what the driver reports for the preset (traced, naming where it was read); the marketed capacity,
    said so, where no report was found and for a reader's own card."""
    g = gpu(ref)
    if g.mem_bytes:
        return leaf(float(g.mem_bytes), "M", "B", f"{g.name}:驱动报告的显存 {g.mem_source}")
    if ref.startswith(CUSTOM_GPU):
        return leaf(g.mem_gb * GB, "M", "B", f"自定义 GPU:按填写的 {g.mem_gb:g} GB")
    return leaf(g.mem_gb * GB, "M", "B", f"{g.name}:未找到驱动报告值,按标称 {g.mem_gb:g} GB")


def planner_link(ref: str, override_gbps: float | None, tp: int) -> float | None:
    """β_link at this tp: the override; else the preset's link by its topology (a mesh gives tp − 1 links)."""
    if override_gbps is not None:
        return link_bytes_s(ref, override_gbps)
    g = gpu(ref)
    peer = g.link_peer_bytes_s
    if g.topology == "mesh" and peer:
        src = f"{g.name} 预设(data/gpus.json):{g.interconnect},每条单向"
        return parallel.link_for_tp("mesh", None, given(g.link_peer_gbps, "β_{peer}", "GB/s", source=src) * 1e9, tp)
    return link_bytes_s(ref, None)


def accelerator(ref: str, override_gbps: float | None, tp: int) -> planner.Accelerator:
    g = gpu_of(ref)
    return planner.Accelerator(
        runtime_memory(ref), g.bw_bytes_s, peaks_flops(ref), planner_link(ref, override_gbps, tp)
    )


def engine_reserve(p: FitParams, s: ModelShape, tp: int | None = None) -> engine_memory.EngineReserve | None:
    """vLLM's terms before the KV cache (None when the reader fixed the reserve)."""
    if p.reserve_gb is not None:
        return None
    tp = tp or p.tp
    mem = gpu(p.gpu).runtime_mem_bytes
    tokens = p.max_num_batched_tokens or engine_memory.default_max_num_batched_tokens(mem)
    mxfp4_marlin = p.weight_format == STORED and s.stored_method == "mxfp4" and "fp4" not in peaks_flops(p.gpu)
    return engine_memory.vllm_reserve(
        s,
        tp=tp,
        max_num_batched_tokens=tokens,
        max_num_seqs=engine_memory.default_max_num_seqs(mem),
        stored_weight_bytes_per_gpu=parallel.weight_bytes_per_gpu(s, p.weight_format, tp),
        mxfp4_marlin=mxfp4_marlin,
        vision_params=s.vision_params,
        mtp_bytes=_mtp_bytes(s) if p.mtp else 0.0,
    )


def _mtp_bytes(s: ModelShape) -> float:
    """The MTP layers' bytes at the checkpoint's average bytes per parameter (BF16 when unquantised)."""
    per_param = (s.stored_bytes / s.params_total) if s.stored_bytes else 2.0
    return s.mtp_params * per_param


def reserve_bytes(p: FitParams, s: ModelShape) -> float:
    """M_res: the fixed reserve the reader typed, else vLLM's profiled terms summed."""
    r = engine_reserve(p, s)
    return p.reserve_gb * GB if r is None else r.total  # type: ignore[operator]


def plan_of(p: FitParams, s: ModelShape) -> planner.Plan:
    """The planner on this state: the accelerator's numbers as traced inputs."""
    return planner.plan(
        s,
        accelerator(p.gpu, p.link_gbps, p.tp),
        tp=p.tp,
        weight_format=p.weight_format,
        kv_format=p.kv_format,
        context=p.context,
        concurrency=p.concurrency,
        mem_util=p.mem_util,
        reserve_bytes=reserve_bytes(p, s),
    )


def alternatives(p: FitParams, s: ModelShape, mem: float) -> planner.Alternatives:
    """What would make the model fit: a larger tp, a smaller format, a larger preset (runtime memory)."""
    mems = {k: gpu(k).runtime_mem_bytes for k in extended_gpu_ids() if k != p.gpu}
    fmts = [STORED, *WIDEST_FIRST] if s.stored_bytes else WIDEST_FIRST
    return planner.fit_alternatives(
        s,
        tp=p.tp,
        weight_format=p.weight_format,
        mem_bytes=mem,
        mem_util=p.mem_util,
        reserve_bytes=reserve_bytes(p, s),
        formats=[f for f in fmts if f != p.weight_format],
        accelerators=mems,
    )


def _bits(p: FitParams, s: ModelShape) -> float:
    if p.weight_format == STORED:
        bits = round(8 * (s.stored_bytes or 2 * s.params_total) / s.params_total, 3)
        return given(bits, "q_W", "bit", source=f"checkpoint:{s.stored_label or 'BF16'}(全部参数的平均)")
    wf = WEIGHT_FORMATS[p.weight_format]
    return given(float(wf.bits), "q_W", "bit", source=f"{wf.label}:{wf.layout}")


def reserve_outputs(r: engine_memory.EngineReserve | None) -> dict[str, Any]:
    """The engine's terms in GB (None each when the reserve is a fixed number)."""
    if r is None:
        keys = ("activation", "non_torch", "cuda_graph", "loaded_extra")
        return {f"reserve_{k}_gb": None for k in keys} | {"batched_tokens_used": None}
    return {
        "reserve_activation_gb": r.activation / GB,
        "reserve_non_torch_gb": r.non_torch / GB,
        "reserve_cuda_graph_gb": r.cuda_graph / GB,
        "reserve_loaded_extra_gb": r.loaded_extra / GB,
        "batched_tokens_used": r.max_num_batched_tokens,
    }


def fit_outputs(pl: planner.Plan, s: ModelShape, p: FitParams) -> dict[str, Any]:
    """Every output key of the card (contract keys first), converted at the edge (GB, ms, TFLOP/s). Without
    room for the model there is no budget, no step and no throughput (None), only the shortfall."""
    m, kf = pl.memory, KV_FORMATS[p.kv_format]
    ok = pl.model_fits
    return {
        "weights_per_gpu_bytes": pl.weights_per_gpu_bytes,
        "kv_bytes_per_token_per_gpu": pl.kv_bytes_per_token_per_gpu,
        "kv_capacity_tokens": pl.kv_capacity_tokens,
        "max_context_at_concurrency": pl.max_context_at_concurrency,
        "max_concurrency_at_context": pl.max_concurrency_at_context,
        "fits": pl.fits,
        "model_fits": ok,
        "t_step_lb_ms": pl.t_step_lb_ms,
        "tokens_per_s_ideal": pl.tokens_per_s_ideal,
        "weights_per_gpu_gb": pl.weights_per_gpu_bytes / GB,
        "kv_budget_gb": pl.kv_budget_bytes / GB if ok else None,
        "kv_held_gb": m.kv / GB,
        "usable_gb": pl.usable_bytes / GB,
        "t_mem_ms": pl.t_mem_s * 1e3 if ok else None,
        "t_compute_ms": pl.t_compute_s * 1e3 if ok else None,
        "t_allreduce_ms": pl.t_allreduce_s * 1e3 if ok else None,
        "bound": pl.bound if ok else "none",
        "peak_used_tflops": pl.peak.flops / 1e12,
        "peak_fell_back": pl.peak.fell_back,
        "kv_heads_per_gpu": pl.kv_heads_per_gpu,
        "kv_replicated": pl.kv_replicated,
        "distinct_experts": pl.distinct_experts,
        "state_per_seq_per_gpu_mb": pl.state_bytes_per_seq_per_gpu / 1e6 if s.state_bytes_per_sequence else None,
        "weight_read_per_gpu_gb": pl.weight_read_bytes_per_gpu / GB,
        "kv_read_per_gpu_gb": pl.kv_read_bytes_per_gpu / GB,
        "flops_per_gpu_gflop": pl.flops_per_gpu / 1e9,
        "params_total": s.params_total,
        "params_active": s.params_active,
        "weight_bits": _bits(p, s),
        "kv_bits": given(float(kf.bits), "q_{KV}", "bit", source=f"{kf.label}:{kf.layout}"),
        "capacity_gb": (pl.usable_bytes + m.outside_util) / GB,
        "marketed_gb": gpu_of(p.gpu).mem_gb,
        "reserve_per_gpu_gb": m.reserve / GB,
        "free_gb": m.free / GB,
        "short_gb": -m.free / GB if ok else pl.model_short_bytes / GB,
        "model_short_gb": None if ok else pl.model_short_bytes / GB,
        "peak_format": pl.peak.used,
        "vllm_kv_tokens": pl.vllm_kv_tokens if ok else None,
        "vllm_max_concurrency": pl.vllm_max_concurrency if ok else None,
    } | reserve_outputs(engine_reserve(p, s))


def fix_outputs(p: FitParams, s: ModelShape, pl: planner.Plan) -> dict[str, Any]:
    """The three ways out when the model does not fit (None each when the model fits or nothing offered does)."""
    if pl.model_fits:
        return {"fix_tp": None, "fix_weight_format": None, "fix_gpu": None}
    alt = alternatives(p, s, pl.usable_bytes + pl.memory.outside_util)
    return {
        "fix_tp": f"tp = {alt.tp}" if alt.tp else None,
        "fix_weight_format": WEIGHT_OPTIONS[alt.weight_format] if alt.weight_format else None,
        "fix_gpu": gpu(alt.accelerator).name if alt.accelerator else None,
    }


# --- public measurements beside the bound ----------------------------------------------------------------


def point_bound_ms(pt: dict[str, Any]) -> float | None:
    """The page's lower bound for one public measurement's setup (context = input + output / 2)."""
    s = shape_of(model_config(pt["model"]))
    g = gpu(pt["gpu"])
    acc = planner.Accelerator(
        g.runtime_mem_bytes,
        g.bw_bytes_s,
        g.peaks_flops(),
        parallel.link_for_tp(g.topology, g.interconnect_bytes_s, g.link_peer_bytes_s, pt["tp"]),
    )
    plan = planner.plan(
        s,
        acc,
        tp=pt["tp"],
        weight_format=pt["weight_format"],
        kv_format=pt["kv_format"],
        context=planner.decode_context(pt["input_tokens"], pt["output_tokens"]),
        concurrency=pt["concurrency"],
    )
    return plan.t_step_lb_ms


@cache
def measured_rows() -> tuple[dict[str, Any], ...]:
    """Every public point with its bound and 实测 / 下界 (data/measured_decode.json)."""
    rows = []
    for pt in measured_decode():
        bound = point_bound_ms(pt)
        rows.append(
            {
                "id": pt["id"],
                "engine": pt["engine"],
                "model": pt["model"],
                "gpu": pt["gpu"],
                "setup": f"{NAMES.get(pt['model'], pt['model'])} · {pt['tp']} × {gpu(pt['gpu']).name} · "
                f"{WEIGHT_OPTIONS[pt['weight_format']].split(' · ')[0]} · 输入 {pt['input_tokens']:,} / 输出 "
                f"{pt['output_tokens']:,} · 并发 {pt['concurrency']}",
                "metric": pt["metric"],
                "measured_ms": pt["measured_ms"],
                "bound_ms": bound,
                "ratio_pct": planner.measured_over_bound_pct(pt["measured_ms"], bound) if bound else None,
                "source": pt["source"],
            }
        )
    return tuple(rows)


def measured_table(p: FitParams) -> Table:
    rows = measured_rows()
    here = [i for i, r in enumerate(rows) if r["model"] == p.model and r["gpu"] == p.gpu]
    return Table(
        ["公开实测的设置", "引擎", "实测", "本页下界(ms)", "实测 / 下界(%)", "来源"],
        [
            [
                r["setup"],
                r["engine"],
                f"{r['measured_ms']:g} ms({r['metric']})",
                r["bound_ms"],
                r["ratio_pct"],
                r["source"],
            ]
            for r in rows
        ],
        title="实测离下界有多远",
        note=WORDS["measured_note"]
        + ("(与当前模型和加速器相同的行:第 " + "、".join(str(i + 1) for i in here) + " 行)" if here else ""),
        formats=(None, None, None, FIT["t_step_lb_ms"], out("", unit="%", digits=0), None),
    )


# --- words --------------------------------------------------------------------------------------------


def context_flags(pl: planner.Plan, s: ModelShape, p: FitParams, o: dict[str, Any]) -> dict[str, Any]:
    """Run-time words and flags for labels, notes and the headline."""
    ref = gpu(p.gpu)
    link = o.get("link_used_gbps")
    peak_names = {"bf16": "BF16", "fp8": "FP8", "fp4": "FP4"}
    if not pl.model_fits:
        verdict, not_fit = "✗ 模型放不下", "模型放不下:权重与预留"
    elif not pl.fits:
        verdict, not_fit = "模型放得下 · ✗ 这批放不下", "模型放得下,这批放不下:KV "
    else:
        verdict, not_fit = "✓ 放得下", ""
    return {
        "verdict": verdict,
        "not_fit_text": not_fit,
        "model_name": MODELS.get(p.model, "自定义模型"),
        "gpu_name": ref.name,
        "peak_name": peak_names[pl.peak.used] + " 峰值",
        "peak_reason": pl.peak.reason or "BF16 权重按 BF16 峰值算",
        "fell_back": pl.peak.fell_back,
        "weight_only": bool(pl.peak.reason) and not pl.peak.fell_back and pl.peak.used == "bf16",
        "replication": "是:潜向量每卡一份" if s.mla else "是:KV 头不够分,每个头复制到多张卡",
        "replicated_gqa": pl.kv_replicated and not s.mla,
        "mla_split": pl.kv_replicated and s.mla,
        "gqa": not s.mla,
        "moe": bool(s.n_experts),
        "hybrid": bool(s.state_bytes_per_sequence),
        "n_linear": s.n_linear_layers,
        "multi": p.tp > 1,
        "mesh": ref.topology == "mesh" and p.tp > 1 and p.link_gbps is None,
        "n_kv": s.n_kv_heads,
        "sliding": bool(s.n_sliding_layers),
        "n_sliding": s.n_sliding_layers,
        "window": s.sliding_window or 0,
        "unbounded": pl.max_context_at_concurrency is None,
        "model_out": not pl.model_fits,
        "batch_out": pl.model_fits and not pl.fits,
        "stored": p.weight_format == STORED,
        "stored_label": s.stored_label or "未量化",
        "marketed_only": not ref.mem_bytes and not p.gpu.startswith(CUSTOM_GPU),
        "engine": p.reserve_gb is None,
        "fixed_reserve": p.reserve_gb is not None,
        "two_counts": pl.model_fits and (bool(s.n_sliding_layers) or bool(s.state_bytes_per_sequence)),
        "link_text": "—" if link is None else f"{link:g} GB/s" + (f"({ref.interconnect})" if ref.interconnect else ""),
    }


def notes(ctx: dict[str, Any]) -> list[Note]:
    return [
        Note(n["text"], n.get("kind", "note"))
        for n in WORDS["notes"]["fit-planner"]
        if ctx.get(n.get("when", ""), True)
    ]


def figures(o: dict[str, Any], fits: bool) -> list[Figure]:
    def gb(k: str) -> str:
        return FIT[k].fmt(o[k])

    parts = {
        "weights": o["weights_per_gpu_gb"],
        "reserve": o["reserve_per_gpu_gb"],
        "kv": o["kv_held_gb"] if fits else 0.0,
        "free": max(o["free_gb"], 0.0) if fits else 0.0,
        "outside": o["capacity_gb"] - o["usable_gb"],
    }
    labels = {
        "weights": "权重",
        "reserve": "预留",
        "kv": "当前批的 KV",
        "free": "KV 预算余量",
        "outside": "η 之外(引擎不用)",
    }
    mem = memory_breakdown(
        parts, {"weights": gb("weights_per_gpu_gb"), "kv": gb("kv_held_gb")}, o["usable_gb"], o["capacity_gb"], labels
    )
    out_figs = [
        Figure(
            mem,
            "每卡显存怎么分",
            "每卡:权重 [[weights_per_gpu_gb]] + 预留 [[reserve_per_gpu_gb]] + 当前批 KV "
            "[[kv_held_gb]],对可用 [[usable_gb]](驱动报告的显存 [[capacity_gb]]):[[verdict]]。",
            height=220,
        )
    ]
    if not fits:
        return out_figs
    keys = ["t_mem_ms", "t_compute_ms", "t_allreduce_ms"]
    steps = step_terms(
        ["读取 R/β", "计算 F/Π", "all-reduce T_AR"],
        [o[k] for k in keys],
        ["read", "compute", "network"],
        [FIT[k].fmt(o[k]) for k in keys],
        o["t_step_lb_ms"],
        "下界 " + FIT["t_step_lb_ms"].fmt(o["t_step_lb_ms"]),
    )
    out_figs.append(
        Figure(
            steps,
            "decode 一步的时间下界",
            "读取 [[t_mem_ms]]、计算 [[t_compute_ms]] 取大者,再加 all-reduce "
            "[[t_allreduce_ms]],得下界 [[t_step_lb_ms]]。",
            height=230,
        )
    )
    return out_figs


@card(
    "fit-planner",
    title="放得下吗,最快多快:显存与速度规划",
    section="tools",
    kind="calculator",
    params=FitParams,
    outputs=FIT,
    lead="选模型(或粘贴 config.json)、加速器、张量并行和数值格式:每张卡的权重、KV 预算、能放的 token 数、"
    "最长上下文与最多并发,以及 decode 一步的时间下界,和公开实测离它多远。",
)
def fit_planner(p: FitParams) -> View:
    s = model_shape(p.model)
    pl = plan_of(p, s)
    o = fit_outputs(pl, s, p) | fix_outputs(p, s, pl)
    link = planner_link(p.gpu, p.link_gbps, p.tp)
    o["link_used_gbps"] = link / 1e9 if (link is not None and p.tp > 1) else None
    o["measured"] = [dict(r) for r in measured_rows()]
    ctx = context_flags(pl, s, p, o)
    return View(
        o,
        headline="[[verdict]] · [[model_name]] · [[tp|n]] × [[gpu_name]] · 并发 [[concurrency|n]] × [[context]]",
        ctx=ctx,
        figures=figures(o, pl.model_fits),
        tables=[measured_table(p)],
        notes=notes(ctx),
    )
