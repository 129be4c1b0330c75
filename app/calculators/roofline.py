"""Time lower bounds: T ≥ max(F/Π, R/β), the turning point B*, chunked read/compute overlap."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StepBound:
    flops: float          # F, FLOPs per step
    read_bytes: float     # R, bytes read per step
    bw: float             # β used, B/s
    peak: float           # Π used, FLOP/s
    t_mem: float          # s
    t_compute: float      # s

    @property
    def t_step(self) -> float:
        return max(self.t_mem, self.t_compute)

    @property
    def bound(self) -> str:
        return "memory" if self.t_mem >= self.t_compute else "compute"


def step_bound(flops: float, read_bytes: float, bw: float, peak: float) -> StepBound:
    """T_step ≥ max(F/Π, R/β)."""
    return StepBound(flops, read_bytes, bw, peak, read_bytes / bw, flops / peak)


def decode_step(n_params: float, bytes_per_param: float, batch: int, bw: float, peak: float) -> StepBound:
    """One decode step of a batch: R_W = b_W·N read once, F = 2·B·N."""
    return step_bound(2.0 * batch * n_params, bytes_per_param * n_params, bw, peak)


def b_star(bytes_per_param: float, bw: float, peak: float) -> float:
    """Turning point B* = b_W·Π/(2β): where intensity 2B/b_W reaches Π/β."""
    return bytes_per_param * peak / (2.0 * bw)


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


def chunk_schedule(t_mem: float, t_compute: float, n_chunks: int) -> list[tuple[float, float, float, float]]:
    """Chunk k is read over [(k−1)·t_mem/n, k·t_mem/n]; its compute starts at max(read end, previous
    compute end) and lasts t_compute/n. Returns (read_start, read_end, comp_start, comp_end) each."""
    return two_stage_pipeline(n_chunks, t_mem / n_chunks, t_compute / n_chunks)
