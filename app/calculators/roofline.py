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


def chunk_schedule(t_mem: float, t_compute: float, n_chunks: int) -> list[tuple[float, float, float, float]]:
    """Chunk k is read over [(k−1)·t_mem/n, k·t_mem/n]; its compute starts at max(read end, previous
    compute end) and lasts t_compute/n. Returns (read_start, read_end, comp_start, comp_end) each."""
    r, c = t_mem / n_chunks, t_compute / n_chunks
    out, prev_end = [], 0.0
    for k in range(n_chunks):
        rs, re = k * r, (k + 1) * r
        cs = max(re, prev_end)
        prev_end = cs + c
        out.append((rs, re, cs, prev_end))
    return out
