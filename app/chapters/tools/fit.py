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
from ...format import compact
from ...outputs import data, out, outputs
from ...params_domain import gpu_choice, gpu_of, gpu_type, model_choice, model_type, shape_of_model
from ...trace import given, leaf
from ...words import LANGS, in_edition, said, words_for
from .. import words
from ..shared.tp import LINK_RULE, TpDegree, link_bytes_s, link_override, peaks_flops, tp_choice

W = words_for(__name__)

NAMES = {
    "qwen3-8b": "Qwen3-8B",
    "deepseek-r1-distill-llama-70b": "DeepSeek-R1-Distill-Llama-70B",
    "qwen3-vl-4b-text": W["names.qwen3_vl_4b_text"],
    "qwen3-30b-a3b": "Qwen3-30B-A3B",
    "qwen3-14b-awq": "Qwen3-14B-AWQ",
    "gpt-oss-120b": "gpt-oss-120b",
}
WORDS = words("tools", "fit_page")
STORED = "stored"  # the checkpoint's own format (quantization_config), a weight-format choice


def _readable(mid: str) -> bool:
    try:
        shape_of(model_config(mid))
        return True
    except (ConfigError, KeyError, TypeError, ValueError):
        return False


MODELS = {m: NAMES.get(m, m) for m in model_ids() if _readable(m)}  # the presets a config reader can count


def _format_options(formats: dict[str, Format]) -> dict[str, str]:
    return {k: W.f("format_options", label=f.label, float=float(f.bits)) for k, f in formats.items()}


WEIGHT_OPTIONS = {STORED: W["weight_options.t"], **_format_options(WEIGHT_FORMATS)}
WIDEST_FIRST = sorted(WEIGHT_FORMATS, key=lambda k: -WEIGHT_FORMATS[k].bits)  # what a smaller format would be


class FitParams(Params):
    model: model_type(MODELS) = model_choice("qwen3-8b", MODELS, label=W["fitparams.model.label"])  # type: ignore[valid-type]
    gpu: gpu_type(extended_gpu_ids()) = gpu_choice("h100-sxm", extended_gpu_options(), label=W["fitparams.gpu.label"])  # type: ignore[valid-type]
    link_gbps: float | None = link_override()
    tp: TpDegree = tp_choice()
    weight_format: Literal[tuple(WEIGHT_OPTIONS)] = choice(  # type: ignore[valid-type]
        "bf16", WEIGHT_OPTIONS, label=W["fitparams.weight_format.label"]
    )
    kv_format: Literal[tuple(KV_FORMATS)] = choice(  # type: ignore[valid-type]
        "bf16", _format_options(KV_FORMATS), label=W["fitparams.kv_format.label"]
    )
    mem_util: float = slider(0.9, ge=0.1, le=1, step=0.01, label=W["fitparams.mem_util.label"], sym="η")
    reserve_gb: float | None = slider(
        None,
        ge=0,
        le=64,
        step=0.1,
        label=W["fitparams.reserve_gb.label"],
        unit="GB",
        sym="M_{res}",
        placeholder=W["fitparams.reserve_gb.placeholder"],
        help=W["fitparams.reserve_gb.help"],
    )
    max_num_batched_tokens: int | None = slider(
        None,
        ge=1,
        le=engine_memory.MAX_BATCHED_TOKENS,
        step=1,
        label=W["fitparams.max_num_batched_tokens.label"],
        unit="token",
        log=True,
        sym="T_{batch}",
        placeholder=W["fitparams.max_num_batched_tokens.placeholder"],
        help=W["fitparams.max_num_batched_tokens.help"],
    )
    mtp: bool = toggle(
        False,
        label=W["fitparams.mtp.label"],
        help=W["fitparams.mtp.help"],
    )
    context: int = slider(8192, ge=1, le=1_048_576, step=1, label=W["fitparams.context.label"], unit="token", log=True)
    concurrency: int = slider(
        16,
        ge=1,
        le=1000,
        step=1,
        label=W["fitparams.concurrency.label"],
        unit=W["fitparams.concurrency.unit"],
        log=True,
    )
    cross_field_rules = (LINK_RULE,)


FIT = outputs(
    fits=out(
        W["fit.fits"],
        em=True,
        text={True: W["fit.t"], False: W["fit.t_2"]},
    ),
    model_fits=out(W["fit.model_fits"], text={True: W["fit.t_3"], False: W["fit.t_4"]}),
    kv_capacity_tokens=out(W["fit.kv_capacity_tokens"], unit="token", em=True, sym="N_{KV}"),
    max_context_at_concurrency=out(
        W["fit.max_context_at_concurrency"], unit="token", none=W["fit.none"], sym="S_{max}"
    ),
    max_concurrency_at_context=out(
        W["fit.max_concurrency_at_context"], unit=W["fitparams.concurrency.unit"], sym="C_{max}"
    ),
    t_step_lb_ms=out(W["fit.t_step_lb_ms"], sig=4, em=True, sym="T_{step}", none=W["fit.none_2"]),
    tokens_per_s_ideal=out(W["fit.tokens_per_s_ideal"], unit="token/s", sig=4, none=W["fit.none_2"]),
    weights_per_gpu_gb=out(W["fit.weights_per_gpu_gb"], digits=2, sym="W_{gpu}"),
    kv_bytes_per_token_per_gpu=out(W["fit.kv_bytes_per_token_per_gpu"], unit="B", sym="kv_{gpu}"),
    kv_budget_gb=out(W["fit.kv_budget_gb"], digits=2, sym="M_{KV}", none=W["fit.none_3"]),
    kv_held_gb=out(W["fit.kv_held_gb"], digits=2, sym="KV_{held}"),
    usable_gb=out(W["fit.usable_gb"], digits=2, sym="M_{use}"),
    t_mem_ms=out(W["fit.t_mem_ms"], sig=4, sym="T_{mem}", none="—"),
    t_compute_ms=out(W["fit.t_compute_ms"], sig=4, sym="T_{comp}", none="—"),
    t_allreduce_ms=out(W["fit.t_allreduce_ms"], sig=4, sym="T_{AR}", none="—"),
    bound=out(W["fit.bound"], text={"memory": W["fit.memory"], "compute": W["fit.compute"], "none": W["fit.none_4"]}),
    peak_used_tflops=out(W["fit.peak_used_tflops"], sig=5, sym="Π"),
    peak_fell_back=out(W["fit.peak_fell_back"], text={True: W["fit.t_5"], False: W["fit.t_6"]}),
    kv_heads_per_gpu=out(W["fit.kv_heads_per_gpu"], unit=W["fitparams.concurrency.unit"], tile="gqa", sym="n_{kv,gpu}"),
    kv_replicated=out(W["fit.kv_replicated"], text={True: "[[replication]]", False: W["fit.t_7"]}),
    distinct_experts=out(W["fit.distinct_experts"], sig=4, tile="moe", sym="E_B"),
    state_per_seq_per_gpu_mb=out(
        W["fit.state_per_seq_per_gpu_mb"], unit="MB", digits=2, tile="hybrid", sym="S_{seq,gpu}"
    ),
    weight_read_per_gpu_gb=out(W["fit.weight_read_per_gpu_gb"], digits=2, sym="R_{W,gpu}"),
    kv_read_per_gpu_gb=out(W["fit.kv_read_per_gpu_gb"], digits=2, tile=False),
    flops_per_gpu_gflop=out(W["fit.flops_per_gpu_gflop"], sig=4, tile=False, sym="F_{gpu}"),
    params_total=out(W["fit.params_total"], tile="moe", sym="N"),
    params_active=out(W["fit.params_active"], tile="moe", sym="N_{act}"),
    weight_bits=out(W["fit.weight_bits"], unit="bit", trim=True, tile=False),
    kv_bits=out(W["fit.kv_bits"], unit="bit", trim=True, tile=False),
    weights_per_gpu_bytes=out(W["fit.weights_per_gpu_bytes"], unit="B", tile=False, sym="W_{gpu}"),
    capacity_gb=out(W["fit.capacity_gb"], digits=2, tile=False, sym="M"),
    marketed_gb=out(W["fit.marketed_gb"], tile=False),
    reserve_per_gpu_gb=out(W["fit.reserve_per_gpu_gb"], digits=2, tile=False, sym="M_{res}"),
    reserve_activation_gb=out(
        W["fit.reserve_activation_gb"], digits=2, tile=False, sym="A_{peak}", none=W["fit.none_5"]
    ),
    reserve_non_torch_gb=out(W["fit.reserve_non_torch_gb"], digits=2, tile=False, sym="M_{nt}", none=W["fit.none_5"]),
    reserve_cuda_graph_gb=out(W["fit.reserve_cuda_graph_gb"], digits=2, tile=False, none=W["fit.none_5"]),
    reserve_loaded_extra_gb=out(W["fit.reserve_loaded_extra_gb"], digits=2, tile=False, none=W["fit.none_5"]),
    batched_tokens_used=out(W["fit.batched_tokens_used"], unit="token", tile=False, none=W["fit.none_5"]),
    vllm_kv_tokens=out(W["fit.vllm_kv_tokens"], unit="token", tile="hybrid", sym="N_{vLLM}", none=W["fit.none_2"]),
    vllm_max_concurrency=out(W["fit.vllm_max_concurrency"], sig=4, tile=False, none=W["fit.none_2"]),
    free_gb=out(W["fit.free_gb"], digits=2, tile=False),
    short_gb=out(W["fit.short_gb"], digits=2, tile=False),
    model_short_gb=out(W["fit.model_short_gb"], digits=2, tile=False),
    peak_format=out(W["fit.peak_format"], tile=False, text={"bf16": "BF16", "fp8": "FP8", "fp4": "FP4"}),
    link_used_gbps=out(W["fit.link_used_gbps"], unit="GB/s", sig=4, tile=False, none="—"),
    fix_tp=out(W["fit.fix_tp"], tile=False, none=W["fit.none_6"]),
    fix_weight_format=out(W["fit.fix_weight_format"], tile=False, none=W["fit.none_7"]),
    fix_gpu=out(W["fit.fix_gpu"], tile=False, none=W["fit.none_8"]),
    measured=data(W["fit.measured"], type=list),
)


def model_shape(ref: str) -> ModelShape:
    """The model's counts as traced inputs; MoE counts (E, k, MoE layers) too."""
    s = shape_of_model(ref, MODELS.get(ref, ""))
    if not s.n_experts:
        return s
    src = W.f("model_shape", get=MODELS.get(ref, "自定义"))
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
        return leaf(float(g.mem_bytes), "M", "B", W.f("runtime_memory.leaf", name=g.name, mem_source=g.mem_source))
    if ref.startswith(CUSTOM_GPU):
        return leaf(g.mem_gb * GB, "M", "B", W.f("runtime_memory.leaf_2", mem_gb=g.mem_gb))
    return leaf(g.mem_gb * GB, "M", "B", W.f("runtime_memory.leaf_3", name=g.name, mem_gb=g.mem_gb))


def planner_link(ref: str, override_gbps: float | None, tp: int) -> float | None:
    """β_link at this tp: the override; else the preset's link by its topology (a mesh gives tp − 1 links)."""
    if override_gbps is not None:
        return link_bytes_s(ref, override_gbps)
    g = gpu(ref)
    peer = g.link_peer_bytes_s
    if g.topology == "mesh" and peer:
        src = W.f("planner_link", name=g.name, interconnect=g.interconnect)
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
        topology=gpu(p.gpu).topology,
        link=interconnect_source(p.gpu),
    )


def interconnect_source(ref: str) -> str:
    """Where the preset's interconnect (which sets vLLM's non-torch growth per tp doubling) was read: its
    data/gpus.json ``topology`` and link; a reader's own GPU has none (the engine term then says unknown)."""
    g = gpu(ref)
    if g.topology is None:
        return W.f("interconnect_source_2", name=g.name)
    return W.f("interconnect_source", name=g.name, interconnect=g.interconnect or g.topology, topology=g.topology)


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
        return given(bits, "q_W", "bit", source=W.f("bits.source", v=s.stored_label or "BF16"))
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


def _short(option: str) -> str:
    """A weight format's name without its description (``BF16 · 16 位`` → ``BF16``), in every edition."""
    return said(option.split(" · ")[0], {lang: in_edition(option, lang).split(" · ")[0] for lang in LANGS})


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
                "setup": W.f(
                    "measured_rows.setup",
                    get=NAMES.get(pt["model"], pt["model"]),
                    v=pt["tp"],
                    name=gpu(pt["gpu"]).name,
                    v2=_short(WEIGHT_OPTIONS[pt["weight_format"]]),
                    v3=pt["input_tokens"],
                    v4=pt["output_tokens"],
                    v5=pt["concurrency"],
                ),
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
        [
            W["measured_table.table"],
            W["measured_table.table_2"],
            W["measured_table.table_3"],
            W["measured_table.table_4"],
            W["measured_table.table_5"],
            W["measured_table.table_6"],
        ],
        [
            [
                r["setup"],
                r["engine"],
                W.f("measured_cell", v=compact(r["measured_ms"]), metric=r["metric"]),
                r["bound_ms"],
                r["ratio_pct"],
                r["source"],
            ]
            for r in rows
        ],
        title=W["measured_table.title"],
        note=WORDS["measured_note"]
        + (
            W["measured_table.note"]
            + W["measured_table.note_2"].join(str(i + 1) for i in here)
            + W["measured_table.note_3"]
            if here
            else ""
        ),
        formats=(None, None, None, FIT["t_step_lb_ms"], out("", unit="%", digits=0), None),
    )


# --- words --------------------------------------------------------------------------------------------


def context_flags(pl: planner.Plan, s: ModelShape, p: FitParams, o: dict[str, Any]) -> dict[str, Any]:
    """Run-time words and flags for labels, notes and the headline."""
    ref = gpu(p.gpu)
    link = o.get("link_used_gbps")
    peak_names = {"bf16": "BF16", "fp8": "FP8", "fp4": "FP4"}
    if not pl.model_fits:
        verdict, not_fit = W["context_flags"], W["context_flags_2"]
    elif not pl.fits:
        verdict, not_fit = W["context_flags_3"], W["context_flags_4"]
    else:
        verdict, not_fit = W["context_flags_5"], ""
    return {
        "verdict": verdict,
        "not_fit_text": not_fit,
        "model_name": MODELS.get(p.model, W["context_flags.model_name"]),
        "gpu_name": ref.name,
        "peak_name": peak_names[pl.peak.used] + W["context_flags.peak_name"],
        "peak_reason": pl.peak.reason or W["context_flags.peak_reason"],
        "fell_back": pl.peak.fell_back,
        "weight_only": bool(pl.peak.reason) and not pl.peak.fell_back and pl.peak.used == "bf16",
        "replication": W["context_flags.replication"] if s.mla else W["context_flags.replication_2"],
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
        "stored_label": s.stored_label or W["context_flags.stored_label"],
        "marketed_only": not ref.mem_bytes and not p.gpu.startswith(CUSTOM_GPU),
        "engine": p.reserve_gb is None,
        "fixed_reserve": p.reserve_gb is not None,
        "two_counts": pl.model_fits and (bool(s.n_sliding_layers) or bool(s.state_bytes_per_sequence)),
        "link_text": "—"
        if link is None
        else W.f("context_flags.link_text", rate=compact(link, unit="GB/s"), link=ref.interconnect)
        if ref.interconnect
        else compact(link, unit="GB/s"),
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
        "weights": W["figures.weights"],
        "reserve": W["figures.reserve"],
        "kv": W["figures.kv"],
        "free": W["fit.free_gb"],
        "outside": W["figures.outside"],
    }
    mem = memory_breakdown(
        parts, {"weights": gb("weights_per_gpu_gb"), "kv": gb("kv_held_gb")}, o["usable_gb"], o["capacity_gb"], labels
    )
    out_figs = [
        Figure(
            mem,
            W["figures.figure"],
            W["figures.figure_2"],
            height=220,
            draws=frozenset(
                {
                    "kv_budget_gb",
                    "kv_heads_per_gpu",
                    "kv_held_gb",
                    "max_concurrency_at_context",
                    "usable_gb",
                    "weight_read_per_gpu_gb",
                    "weights_per_gpu_gb",
                }
            ),
        )
    ]
    if not fits:
        return out_figs
    keys = ["t_mem_ms", "t_compute_ms", "t_allreduce_ms"]
    steps = step_terms(
        [W["figures.step_terms"], W["figures.step_terms_2"], "all-reduce T_AR"],
        [o[k] for k in keys],
        ["read", "compute", "network"],
        [FIT[k].fmt(o[k]) for k in keys],
        o["t_step_lb_ms"],
        W["figures.step_terms_3"] + FIT["t_step_lb_ms"].fmt(o["t_step_lb_ms"]),
    )
    out_figs.append(
        Figure(
            steps,
            W["figures.figure_3"],
            W["figures.figure_4"],
            height=230,
            draws=frozenset(
                {
                    "kv_heads_per_gpu",
                    "max_concurrency_at_context",
                    "max_context_at_concurrency",
                    "t_allreduce_ms",
                    "t_compute_ms",
                    "t_mem_ms",
                    "t_step_lb_ms",
                }
            ),
        )
    )
    return out_figs


@card(
    "fit-planner",
    title=W["fit_planner.title"],
    section="tools",
    kind="calculator",
    params=FitParams,
    outputs=FIT,
    lead=W["fit_planner.lead"],
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
        headline=W["fit_planner.headline"],
        ctx=ctx,
        figures=figures(o, pl.model_fits),
        tables=[measured_table(p)],
        notes=notes(ctx),
    )
