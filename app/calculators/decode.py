"""Decode-step estimates for a concrete model: the quick numbers (weights, KV, prefill/decode FLOPs
and reads), the TPOT lower bound with per-request KV reads, MBU/MFU, and the eager-mode launch
timeline. Base units: bytes, seconds, FLOPs. Model numbers come from ``model_config``."""
from __future__ import annotations

from dataclasses import dataclass

from ..trace import is_tracing
from . import roofline
from .model_config import ModelShape, decode_flops, decode_weight_read_bytes, prefill_flops, weight_bytes
from .roofline import pipeline_makespan, two_stage_pipeline


def _f(x: float) -> float:
    """``float(x)``, except while tracing a derivation (the cast would drop the trace)."""
    return x if is_tracing() else float(x)


def kv_bytes(s: ModelShape, tokens: int, requests: int = 1) -> float:
    """KV bytes held (or read once) for ``requests`` contexts of ``tokens`` each: kv/token · tokens · requests."""
    return _f(s.kv_bytes_per_token_bf16) * tokens * requests


@dataclass(frozen=True)
class QuickNumbers:
    n_params: int
    weights_bytes: float           # full BF16 weights, 2·N
    kv_per_token_bytes: float      # all layers, BF16
    kv_context_bytes: float        # one context of `context` tokens
    prefill_flops: float           # prefill of `prefill_tokens`
    decode_flops: float            # one decode step at `context`
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
        n_params=s.params_total, weights_bytes=_f(weight_bytes(s, "bf16")),
        kv_per_token_bytes=_f(s.kv_bytes_per_token_bf16), kv_context_bytes=kv_ctx,
        prefill_flops=prefill_flops(s, prefill_tokens), decode_flops=decode_flops(s, context),
        decode_weight_read_bytes=decode_weight_read_bytes(s, 2), decode_kv_read_bytes=kv_ctx,
        context=context, prefill_tokens=prefill_tokens)


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
