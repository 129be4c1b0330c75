"""Decode-step estimates for a concrete model: the quick numbers (weights, KV, prefill/decode FLOPs
and reads), the TPOT lower bound with per-request KV reads, MBU/MFU, and the eager-mode launch
timeline. Base units: bytes, seconds, FLOPs. Model numbers come from ``model_config``."""

from __future__ import annotations

from dataclasses import dataclass

from ..trace import is_tracing, name
from . import roofline
from .model_config import ModelShape, decode_flops, decode_weight_read_bytes, prefill_flops, weight_bytes
from .roofline import pipeline_makespan, two_stage_pipeline
from .units import KIB, MIB


def _f(x: float) -> float:
    """``float(x)``, except while tracing a derivation (the cast would drop the trace)."""
    return x if is_tracing() else float(x)


def kv_bytes(s: ModelShape, tokens: int, requests: int = 1) -> float:
    """KV bytes held (or read once) for ``requests`` contexts of ``tokens`` each: kv/token · tokens · requests."""
    return _f(s.kv_bytes_per_token_bf16) * tokens * requests


@dataclass(frozen=True)
class QuickNumbers:
    n_params: int
    weights_bytes: float  # full BF16 weights, 2·N
    kv_per_token_bytes: float  # all layers, BF16
    kv_context_bytes: float  # one context of `context` tokens
    prefill_flops: float  # prefill of `prefill_tokens`
    decode_flops: float  # one decode step at `context`
    decode_weight_read_bytes: float
    decode_kv_read_bytes: float
    context: int
    prefill_tokens: int

    @property
    def decode_read_bytes(self) -> float:
        return self.decode_weight_read_bytes + self.decode_kv_read_bytes


def quick_numbers(s: ModelShape, context: int = 2048, prefill_tokens: int = 2048) -> QuickNumbers:
    """The chapter's quick numbers for a BF16 model at batch 1 (weights, KV, prefill/decode FLOPs and reads)."""
    kv_ctx = kv_bytes(s, context)
    return QuickNumbers(
        n_params=s.params_total,
        weights_bytes=_f(weight_bytes(s, "bf16")),
        kv_per_token_bytes=_f(s.kv_bytes_per_token_bf16),
        kv_context_bytes=kv_ctx,
        prefill_flops=prefill_flops(s, prefill_tokens),
        decode_flops=decode_flops(s, context),
        decode_weight_read_bytes=decode_weight_read_bytes(s, 2),
        decode_kv_read_bytes=kv_ctx,
        context=context,
        prefill_tokens=prefill_tokens,
    )


def tpot_bound(f1: float, r_w: float, r_state1: float, batch: int, bw: float, peak: float) -> roofline.StepBound:
    """Decode step of B requests: T ≥ max(B·F1/Π, (R_W + B·R_state,1)/β)."""
    return roofline.step_bound(batch * f1, r_w + batch * r_state1, bw, peak)


def mbu(read_bytes: float, bw: float, t: float) -> float:
    """Memory-bandwidth utilisation R/(β·T), 0–1."""
    return read_bytes / (bw * t)


def mfu(flops: float, peak: float, t: float) -> float:
    """Model FLOP utilisation F/(Π·T), 0–1."""
    return flops / (peak * t)


def eager_timeline(kernels: int, launch: float, kernel: float) -> list[tuple[float, float, float, float]]:
    """Eager submission: the host launches kernel k over [k·launch, (k+1)·launch]; the device runs it
    from max(launch end, previous kernel end) for ``kernel``. Returns (cpu_start, cpu_end, gpu_start, gpu_end)."""
    return two_stage_pipeline(kernels, launch, kernel)


def eager_busy_fraction(kernels: int, launch: float, kernel: float) -> float:
    """Device busy share of :func:`eager_timeline`, in closed form: n·t_kernel / makespan."""
    return kernels * kernel / pipeline_makespan(kernels, launch, kernel)


def busy_fraction(timeline: list[tuple[float, float, float, float]]) -> float:
    """Device busy share from t = 0 to the last kernel's end: Σ kernel time / makespan."""
    if not timeline:
        return 0.0
    return sum(ge - gs for _, _, gs, ge in timeline) / timeline[-1][3]


def named_tpot_bound(q: QuickNumbers, batch: int, bw: float, peak: float) -> roofline.StepBound:
    """:func:`tpot_bound` of a model's quick numbers, with the book's names F₁, R_W and R_state,1 on them."""
    return tpot_bound(
        name(q.decode_flops, "F_1", "FLOP"),
        name(q.decode_weight_read_bytes, "R_W", "B"),
        name(q.decode_kv_read_bytes, "R_{state,1}", "B"),
        batch,
        bw,
        peak,
    )


def tpot_outputs(q: QuickNumbers, batch: int, bw: float, peak: float) -> dict:
    """图 1-13 / 1-14 at B: F₁, R_W, R_state,1 and the TPOT bound's two terms and max (GFLOP, GB, ms)."""
    b = named_tpot_bound(q, batch, bw, peak)
    return {
        "f1_gflop": q.decode_flops / 1e9,
        "r_w_gb": q.decode_weight_read_bytes / 1e9,
        "r_state_gb": q.decode_kv_read_bytes / 1e9,
        "tpot_compute_ms": b.t_compute * 1e3,
        "tpot_memory_ms": b.t_mem * 1e3,
        "tpot_lb_ms": b.t_step * 1e3,
    }


def batching_check(
    tpot1: float, tpot_b: float, ratio1: float, ratio_b: float, lb1: float, lb_b: float, batch: int
) -> dict:
    """练习 1-4: measured throughput ratio and TPOT growth from 1 to B requests against the shared-read
    model (ratio B, TPOT unchanged) and the TPOT lower bound (ms, %, ×). Keys are the card's outputs at B = 64."""
    ratio, tpot_ratio = ratio_b / ratio1, tpot_b / tpot1
    return {
        "throughput_ratio_b64": ratio,
        "ideal_throughput_ratio_b64": batch,
        "scaling_efficiency_pct": 100 * ratio / batch,
        "tpot_ratio_b64": tpot_ratio,
        "tpot_growth_pct": 100 * (tpot_ratio - 1),
        "tpot_implied_throughput_ratio_b64": batch * tpot1 / tpot_b,
        "tpot_lb_ms_b1": lb1,
        "tpot_lb_ms_b64": lb_b,
        "tpot_lb_ratio_b64": lb_b / lb1,
        "tpot_ms_b1": tpot1,
        "tpot_ms_b64": tpot_b,
    }


def gap_outputs(q: QuickNumbers, bw: float, peak: float, measured_ms: float, batch: int = 1) -> dict:
    """1.3.4: the lower bound at B against a measured TPOT: the gap, their ratio, MBU and MFU (ms, ×, %)."""
    lb, t = named_tpot_bound(q, batch, bw, peak).t_step * 1e3, measured_ms / 1e3
    return {
        "measured_tpot_ms": measured_ms,
        "lb_ms": lb,
        "gap_ms": measured_ms - lb,
        "ratio": measured_ms / lb,
        "mbu_pct": 100 * mbu(q.decode_read_bytes, bw, t),
        "mfu_pct": 100 * mfu(q.decode_flops, peak, t),
    }


def quick_table(q: QuickNumbers) -> dict:
    """The chapter's quick-number table: weights, KV per token and per context, prefill and decode work and reads."""
    return {
        "n_params": q.n_params,
        "weights_gb": q.weights_bytes / 1e9,
        "kv_per_token_kib": q.kv_per_token_bytes / KIB,
        "kv_context_mib": q.kv_context_bytes / MIB,
        "kv_context_gb": q.kv_context_bytes / 1e9,
        "prefill_tflop": q.prefill_flops / 1e12,
        "decode_gflop": q.decode_flops / 1e9,
        "decode_weight_read_gb": q.decode_weight_read_bytes / 1e9,
        "decode_kv_read_gb": q.decode_kv_read_bytes / 1e9,
    }


def quick_bounds(q: QuickNumbers, bw: float, peak: float, capacity_gb: float, batch: int = 1) -> dict:
    """Time lower bounds from the quick numbers: prefill F/Π, decode's two terms and max, and whether
    weights plus one context fit (TFLOP, GFLOP, GB, ms)."""
    d, need = named_tpot_bound(q, batch, bw, peak), q.weights_bytes + q.kv_context_bytes
    return {
        "prefill_tflop": q.prefill_flops / 1e12,
        "prefill_compute_ms": q.prefill_flops / peak * 1e3,
        "decode_gflop": q.decode_flops / 1e9,
        "decode_read_gb": q.decode_read_bytes / 1e9,
        "decode_compute_ms": d.t_compute * 1e3,
        "decode_memory_ms": d.t_mem * 1e3,
        "decode_lb_ms": d.t_step * 1e3,
        "fits": need <= capacity_gb * 1e9,
        "need_gb": need / 1e9,
        "capacity_gb": capacity_gb,
    }
