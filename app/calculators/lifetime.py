"""Lifetime cost of a model, the break-even call count, GPU-hours, A100 equivalents and calendar
time (chapter 3.6). Base units: FLOPs, FLOP/s, seconds (GPU-seconds); hours only at the edges."""

from __future__ import annotations

import math

HOUR = 3600.0
DAY = 24 * HOUR


def gpu_seconds(flops: float, rate_flops: float) -> float:
    """GPU time = FLOPs / sustained rate (FLOP/s per GPU)."""
    return flops / rate_flops


def sustained_rate(peak_flops: float, mfu_frac: float) -> float:
    """Sustained rate = peak · MFU."""
    return peak_flops * mfu_frac


def lifetime_cost(c0: float, calls: float, c_per_call: float) -> float:
    """C_life = C₀ + Q·c (same unit for C₀ and c·Q, e.g. GPU-seconds)."""
    return c0 + calls * c_per_call


def lifetime_cost_mix(c0: float, calls: float, weights, costs) -> float:
    """C_life = C₀ + Q·Σ_j w_j c_j (task mix: weights sum to 1; c_j includes failures and retries)."""
    return c0 + calls * sum(w * c for w, c in zip(weights, costs))


def break_even(delta_c0: float, delta_c: float) -> float:
    """Q* = ΔC₀ / Δc: the call count where extra training is paid back by cheaper calls."""
    return delta_c0 / delta_c if delta_c > 0 else math.inf


def net_saving(delta_c0: float, delta_c: float, calls: float) -> float:
    """Net saving of the extra-trained small model = Q·Δc − ΔC₀ (> 0: the small model is cheaper)."""
    return calls * delta_c - delta_c0


def a100_equivalent(gpu_hours: float, peak_flops: float, a100_peak_flops: float = 312e12) -> float:
    """A100-equivalent hours = hours · (BF16 dense peak / A100's 312 TFLOP/s), assuming equal utilisation."""
    return gpu_hours * peak_flops / a100_peak_flops


def calendar_seconds(gpu_seconds_total: float, n_gpus: int) -> float:
    """Wall-clock time = GPU time / cards (every card busy all the time; no failures or pauses)."""
    return gpu_seconds_total / n_gpus
