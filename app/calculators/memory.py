"""Memory budgets: weights + KV state + workspace ≤ capacity, checked card by card; even and
proportional multi-GPU splits. Bytes throughout."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..trace import tmax, tsum
from .model_config import ModelShape, weight_bytes
from .units import GB, GIB


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
    capacity: float  # per card, bytes
    weights: float  # whole model
    kv: float  # all requests
    workspace: float  # per card

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


def budget_outputs(
    weights: float, kv_per_token: float, kv_tokens: int, workspace_gib: float, n: int, capacity_gb: float
) -> dict:
    """图 1-7: weights + KV (tokens × kv/token) + workspace on each of n cards (even split) against one
    card's capacity; the KV tokens that still fit. Keys are the card's outputs (GB, GiB, tokens)."""
    kv, ws = kv_bytes(kv_tokens, kv_per_token), workspace_gib * GIB
    b = even_split(weights, kv, ws, n, capacity_gb * GB)
    return {
        "weights_gb": weights / GB,
        "kv_gb": kv / GB,
        "kv_gib": kv / GIB,
        "workspace_gb": ws / GB,
        "per_gpu_weights_gb": b.per_gpu_weights / GB,
        "per_gpu_kv_gb": b.per_gpu_kv / GB,
        "per_gpu_total_gb": b.per_gpu_total / GB,
        "capacity_gb": capacity_gb,
        "headroom_gb": b.headroom / GB,
        "over_gb": -b.headroom / GB,
        "fits": b.fits,
        "max_kv_tokens": max_kv_tokens(capacity_gb * GB, weights, ws, n, kv_per_token),
        "kv_per_token_kib": kv_per_token / 1024,
        "kv_per_token_bytes": kv_per_token,
    }


def weight_outputs(n_params: float, bf16: float, w8: float, parts: dict, capacity_gb: float, n_gpus: int) -> dict:
    """M_W = N·b_W in both formats against one card: BF16 (2N) whole and split over n cards, 8-bit
    group quantisation and its parts, what one card keeps free. Keys are the card's outputs."""
    cap = capacity_gb * GB
    return {
        "n_params": n_params,
        "n_params_billion": n_params / 1e9,
        "n_params_yi": n_params / 1e8,
        "bf16_bytes": bf16,
        "bf16_gb": bf16 / GB,
        "bf16_gib": bf16 / GIB,
        "bf16_per_gpu_gb": bf16 / n_gpus / GB,
        "w8_g128_gb": w8 / GB,
        "w8_g128_gib": w8 / GIB,
        "w8_g128_bytes": w8,
        "w8_part_gb": parts["w8"] / GB,
        "scale_part_gb": parts["scales"] / GB,
        "bf16_kept_part_gb": parts["bf16_kept"] / GB,
        "bf16_fits_one_gpu": bf16 <= cap,
        "free_after_w8_gb": (cap - w8) / GB,
        "bf16_over_gb": bf16 / GB - capacity_gb,
    }


def placement_outputs(weights: dict[str, float], big: float, small: float, reserve: float) -> dict:
    """练习 1-2: each weight format (bytes) on one big card, two big cards (even split) and a small +
    a big card, every card keeping ``reserve`` bytes; one split in proportion to the mixed pair's room."""
    rooms = weight_room([small, big], reserve)
    room = tsum(rooms)
    o: dict = {
        "mixed_weight_room_gb": room / GB,
        "h100_gb": big / GB,
        "a6000_room_gb": rooms[0] / GB,
        "h100_room_gb": rooms[1] / GB,
    }
    for k, w in weights.items():
        one, two = need_with_reserve(w, 1, reserve), need_with_reserve(w, 2, reserve)
        o |= {
            f"{k}_gb": w / GB,
            f"one_h100_{k}_need_gb": one / GB,
            f"one_h100_{k}_margin_gb": (big - one) / GB,
            f"one_h100_{k}_fits": one <= big,
            f"two_h100_{k}_per_gpu_gb": two / GB,
            f"two_h100_{k}_margin_gb": (big - two) / GB,
            f"two_h100_{k}_fits": two <= big,
            f"mixed_{k}_margin_gb": (room - w) / GB,
            f"mixed_{k}_fits": w <= room and all(x > 0 for x in rooms),
        }
    split = proportional_split(weights["w8"], rooms)
    return o | {
        "mixed_w8_a6000_gb": split[0] / GB,
        "mixed_w8_h100_gb": split[1] / GB,
        "h100_w8_left_gb": (rooms[1] - weights["w8"]) / GB,
    }
