"""Time lower bounds: T ≥ max(F/Π, R/β), the turning point B*, chunked read/compute overlap."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..trace import name, tmax


@dataclass(frozen=True)
class StepBound:
    flops: float  # F, FLOPs per step
    read_bytes: float  # R, bytes read per step
    bw: float  # β used, B/s
    peak: float  # Π used, FLOP/s
    t_mem: float  # s
    t_compute: float  # s

    @property
    def t_step(self) -> float:
        return name(tmax(self.t_compute, self.t_mem), "T_{step}", "s")

    @property
    def bound(self) -> str:
        return "memory" if self.t_mem >= self.t_compute else "compute"


def step_bound(flops: float, read_bytes: float, bw: float, peak: float) -> StepBound:
    """T_step ≥ max(F/Π, R/β)."""
    return StepBound(flops, read_bytes, bw, peak, read_bytes / bw, flops / peak)


def decode_step(n_params: float, bytes_per_param: float, batch: int, bw: float, peak: float) -> StepBound:
    """One decode step of a batch: R_W = b_W·N read once, F = 2·B·N."""
    return step_bound(name(2 * batch * n_params, "F", "FLOP"), name(bytes_per_param * n_params, "R_W", "B"), bw, peak)


def b_star(bytes_per_param: float, bw: float, peak: float) -> float:
    """Turning point B* = b_W·Π/(2β): where intensity 2B/b_W reaches Π/β."""
    return bytes_per_param * peak / (2.0 * bw)


def step_outputs(
    n: float,
    b_w: float,
    batch: int,
    bw: float,
    peak: float,
    target_ms: float,
    model: tuple[float, float, float] | None = None,
) -> dict:
    """例题 1-1's quantities for one setting (catalog keys; base units converted at the edge).
    ``model`` = (resident bytes, bytes read per step, FLOPs per token) from a config replaces the
    N-based hand calculation (R_W = b_W·N, F = 2·B·N)."""
    if model is None:
        s = decode_step(n, b_w, batch, bw, peak)
        bs = b_star(b_w, bw, peak)
        resident = name(b_w * n, "M_W", "B")
    else:
        resident, read, f_tok = model
        s = step_bound(name(batch * f_tok, "F", "FLOP"), name(read, "R_W", "B"), bw, peak)
        bs = read * peak / (f_tok * bw)  # B where B·F/Π = R/β
    t_step = s.t_step
    return {
        "m_w_gb": resident / 1e9,
        "r_w_gb": s.read_bytes / 1e9,
        "f_gflop": s.flops / 1e9,
        "bw_eff_tbps": bw / 1e12,
        "peak_eff_tflops": peak / 1e12,
        "t_mem_ms": s.t_mem * 1e3,
        "t_compute_ms": s.t_compute * 1e3,
        "t_step_ms": t_step * 1e3,
        "bound": s.bound,
        "read_to_compute_ratio": s.t_mem / s.t_compute,
        "per_output_ms": t_step * 1e3 / batch,
        "throughput_tok_s": batch / t_step,
        "b_star": bs,
        "intensity_flop_per_byte": 2 * batch / b_w,
        "ridge_flop_per_byte": peak / bw,
        "meets_target": t_step * 1e3 <= target_ms,
        "target_margin_ms": target_ms - t_step * 1e3,
    }


BATCH_RANGE = (1, 512)  # the B axis of 图 1-11 / 1-12 (requests)
# 28 log-spaced B values across BATCH_RANGE, to 3 decimals: the grid every batch curve is drawn on
LOG_BATCHES = frozenset(round(BATCH_RANGE[0] * (BATCH_RANGE[1] / BATCH_RANGE[0]) ** (i / 27), 3) for i in range(28))


def batch_grid(b_star: float, current: int | None) -> list[float]:
    """The B values of :data:`LOG_BATCHES` with ⌊B*⌋, ⌈B*⌉ (the kink sits where it is) and the current B
    (a marker there sits on a curve drawn through these points) added, unless ``current`` is None."""
    lo, hi = BATCH_RANGE
    pts = set(LOG_BATCHES)
    if current is not None:
        pts |= {float(current)}
    if lo <= b_star <= hi:
        pts |= {float(b_star), float(math.floor(b_star)), float(math.ceil(b_star))}
    return sorted(x for x in pts if lo <= x <= hi)


def batch_curves(grid: list[float], t_mem_ms: float, f_per_token: float, peak: float) -> dict:
    """图 1-11 / 1-12 along B: the read bound (flat), the compute bound B·F_tok/Π, their max (ms)
    and the ideal throughput B/T (token/s)."""
    t_cmp = [b * f_per_token / peak * 1e3 for b in grid]
    t_max = [c if c > t_mem_ms else t_mem_ms for c in t_cmp]  # max(t_mem_ms, c), without a call per point
    return {
        "batch": grid,
        "t_mem_ms": [t_mem_ms] * len(grid),
        "t_compute_ms": t_cmp,
        "t_step_ms": t_max,
        "throughput_tok_s": [b / (t / 1e3) for b, t in zip(grid, t_max)],
    }


def two_stage_pipeline(n: int, first: float, second: float) -> list[tuple[float, float, float, float]]:
    """n items pass two stages: stage 1 runs back to back ([k·first, (k+1)·first]); item k's stage 2
    starts at max(its stage-1 end, item k−1's stage-2 end) and lasts ``second``.
    Returns (s1_start, s1_end, s2_start, s2_end) per item."""
    out, prev_end = [], 0.0
    for k in range(n):
        a0, a1 = k * first, (k + 1) * first
        b0 = max(a1, prev_end)
        prev_end = b0 + second
        out.append((a0, a1, b0, prev_end))
    return out


def pipeline_makespan(n: int, first: float, second: float) -> float:
    """End of the last item of :func:`two_stage_pipeline`: first + (n − 1)·max(first, second) + second."""
    return first + (n - 1) * tmax(first, second) + second


def chunk_schedule(t_mem: float, t_compute: float, n_chunks: int) -> list[tuple[float, float, float, float]]:
    """Chunk k is read over [(k−1)·t_mem/n, k·t_mem/n]; its compute starts at max(read end, previous
    compute end) and lasts t_compute/n. Returns (read_start, read_end, comp_start, comp_end) each."""
    return two_stage_pipeline(n_chunks, t_mem / n_chunks, t_compute / n_chunks)


def chunk_outputs(t_mem_ms: float, t_compute_ms: float, n_chunks: int) -> dict:
    """图 1-10: weights read in n chunks while the batch computes on the ones already there: each
    chunk's read and compute, how busy compute is, when the last chunk's compute ends, the schedule (ms, %)."""
    sched = chunk_schedule(t_mem_ms, t_compute_ms, n_chunks)
    return {
        "chunk_read_ms": t_mem_ms / n_chunks,
        "chunk_compute_ms": t_compute_ms / n_chunks,
        "compute_busy_pct": 100 * t_compute_ms / tmax(t_mem_ms, t_compute_ms),
        "pipeline_makespan_ms": pipeline_makespan(n_chunks, t_mem_ms / n_chunks, t_compute_ms / n_chunks),
        "schedule": [
            {"chunk": k + 1, "read_start_ms": a, "read_end_ms": b, "compute_start_ms": c, "compute_end_ms": d}
            for k, (a, b, c, d) in enumerate(sched)
        ],
    }
