"""Memory budgets: weights + KV state + workspace ≤ capacity, checked card by card; even and
proportional multi-GPU splits. Bytes throughout."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..trace import tmax, tsum
from .model_config import ModelShape, weight_bytes


def weight_parts(s: ModelShape, precision: str) -> dict[str, int]:
    """Stored weight bytes by part. ``w8-g128``: block linear weights at 1 B, one 2-byte scale per
    128 of them, everything else (embedding, LM head, norms) at 2 B. ``bf16``: 2 B each.
    The parts sum to ``model_config.weight_bytes``."""
    lin, rest = s.linear_params, s.params_total - s.linear_params
    if precision == "w8-g128":
        parts = {"w8": lin, "scales": (lin // 128) * 2, "bf16_kept": 2 * rest}
    elif precision == "bf16":
        parts = {"linear": 2 * lin, "other": 2 * rest}
    else:
        raise ValueError(precision)
    assert sum(parts.values()) == weight_bytes(s, precision)
    return parts


def kv_bytes(tokens: int, kv_per_token: float) -> float:
    """KV state = tokens × bytes per token (all layers, K and V)."""
    return tokens * kv_per_token


@dataclass(frozen=True)
class Budget:
    """One card's share under an even split: weights/n + kv/n + one workspace per card."""

    n: int
    capacity: float            # per card, bytes
    weights: float             # whole model
    kv: float                  # all requests
    workspace: float           # per card

    @property
    def per_gpu_weights(self) -> float:
        return self.weights / self.n

    @property
    def per_gpu_kv(self) -> float:
        return self.kv / self.n

    @property
    def per_gpu_total(self) -> float:
        return self.per_gpu_weights + self.per_gpu_kv + self.workspace

    @property
    def headroom(self) -> float:
        return self.capacity - self.per_gpu_total

    @property
    def fits(self) -> bool:
        return self.per_gpu_total <= self.capacity


def even_split(weights: float, kv: float, workspace: float, n: int, capacity: float) -> Budget:
    """M_W/n + M_state/n + M_work ≤ M_cap on every card (the page's even-split rule)."""
    return Budget(n, capacity, weights, kv, workspace)


def max_kv_tokens(capacity: float, weights: float, workspace: float, n: int, kv_per_token: float) -> int:
    """KV tokens that still fit: ⌊n·(M_cap − M_work − M_W/n) / KV per token⌋, at least 0."""
    room = n * (capacity - workspace - weights / n)
    return tmax(0, math.floor(room / kv_per_token))


def need_with_reserve(weights: float, n: int, reserve: float) -> float:
    """Per-card need when weights are split evenly and each card reserves ``reserve`` bytes."""
    return weights / n + reserve


def weight_room(capacities: list[float], reserve: float) -> list[float]:
    """Room left for weights on each card: capacity − reserve (never below 0)."""
    return [tmax(0.0, c - reserve) for c in capacities]


def proportional_split(total: float, rooms: list[float]) -> list[float]:
    """One allocation of ``total`` bytes in proportion to each card's room."""
    s = tsum(rooms)
    return [total * r / s for r in rooms] if s > 0 else [0.0 for _ in rooms]
