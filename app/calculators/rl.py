"""RL workload (book ch 3.5): group-relative advantage, loss averaging over micro-batches, and the
cycle cost F_cycle(n) = n(f_g + f_r) + F_u. Base units: FLOPs, bytes, tokens.

Vocabulary-projection rows (the convention that reproduces 例题 3-4): generation projects only the rows
that produce an output (prefill's last row + each decode row); a teacher-forced forward (reference,
reward, teacher, training) projects every row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..trace import name, tsum
from .model_config import ModelShape, attn_flops_per_context_token, decode_flops, prefill_flops
from .training import causal_pairs, ceil_div, teacher_forced_forward_flops

# ---------------------------------------------------------------- advantage and loss averaging


def group_advantages(rewards: Sequence[float], *, std_normalise: bool = False) -> list[float]:
    """A_i = r_i − mean(r) (GRPO also divides by the group's standard deviation)."""
    n = len(rewards)
    mean = sum(rewards) / n
    adv = [r - mean for r in rewards]
    if std_normalise:
        sd = math.sqrt(sum(a * a for a in adv) / n)
        adv = [a / sd if sd > 0 else 0.0 for a in adv]
    return adv


@dataclass(frozen=True)
class LossWeights:
    global_mean: float  # 1/(n₁+n₂): every valid token of the batch weighs the same
    mb1_mean_of_means: float  # 1/(2n₁)
    mb2_mean_of_means: float  # 1/(2n₂)

    @property
    def mb1_overweight(self) -> float:
        return self.mb1_mean_of_means / self.global_mean


def loss_weights(n1: int, n2: int) -> LossWeights:
    """Per-token weight: batch-wide mean 1/(n₁+n₂) vs mean of micro-batch means 1/(2n_i)."""
    return LossWeights(name(1 / (n1 + n2), "w"), name(1 / (2 * n1), "w_1"), name(1 / (2 * n2), "w_2"))


def group_outputs(rewards: Sequence[float]) -> dict:
    """group-advantage's outputs: mean reward, A_1…A_G, whether all are zero, Σ|A_i|."""
    mean = name(tsum(rewards) / len(rewards), "r̄")
    adv = [r - mean for r in rewards]
    return {
        "mean_reward": mean,
        **{f"advantage_{i}": a for i, a in enumerate(adv, 1)},
        "all_zero": all(abs(a) < 1e-12 for a in adv),
        "sum_abs_advantage": tsum(abs(a) for a in adv),
    }


def loss_outputs(n1: int, n2: int) -> dict:
    """loss-average's outputs: per-token weights of both averages and MB1's overweight (2n₁)⁻¹ ÷ (n₁+n₂)⁻¹."""
    w = loss_weights(n1, n2)
    return {
        "weight_global": w.global_mean,
        "weight_mb1_mean_of_means": w.mb1_mean_of_means,
        "weight_mb2_mean_of_means": w.mb2_mean_of_means,
        "mb1_overweight": w.mb1_overweight,
    }


# ---------------------------------------------------------------- 例题 3-4: the RL cycle


def generation_flops(s: ModelShape, prompt: int, gen: int) -> float:
    """f_g: one prefill of P tokens + (G − 1) decode steps, step j seeing P + j + 1 tokens.
    = 2·blocks·(P+G−1) + 2·(h·V)·G + 4·n_L·H·d·(P+G−1)(P+G)/2 (the closed form; sliding layers step by step)."""
    if s.n_sliding_layers:
        return prefill_flops(s, prompt) + sum(decode_flops(s, prompt + j + 1) for j in range(gen - 1))
    length = prompt + gen - 1
    return (
        2 * s.active_linear_params * length
        + 2 * s.lm_head_matrix_params * gen
        + attn_flops_per_context_token(s) * causal_pairs(length)
    )


def reference_flops(s: ModelShape, prompt: int, gen: int) -> float:
    """f_r: one teacher-forced forward over the P + G − 1 known tokens, vocabulary projection on all rows."""
    return teacher_forced_forward_flops(s, prompt + gen - 1)


def update_flops(s: ModelShape, prompt: int, gen: int, n_keep: int) -> float:
    """F_u = n_keep · 3 · f_r (forward + backward over each kept trajectory)."""
    return 3 * n_keep * reference_flops(s, prompt, gen)


def n_generate(n_keep: int, keep_ratio: float) -> int:
    """n ≈ ⌈n_keep / a⌉."""
    return ceil_div(n_keep, keep_ratio)


def f_cycle(n: float, f_g: float, f_r: float, f_u: float) -> float:
    """F_cycle(n) = n(f_g + f_r) + F_u."""
    return n * (f_g + f_r) + f_u


@dataclass(frozen=True)
class Cycle:
    seq_tokens: int
    decode_steps: int
    update_input_tokens: int
    update_supervised_tokens: int
    f_g: float
    f_r: float
    f_u: float
    n: int
    teacher: float
    weight_sync_bytes: float

    @property
    def total(self) -> float:
        base = f_cycle(self.n, self.f_g, self.f_r, self.f_u)
        return base + self.teacher if self.teacher else base


def rl_cycle(
    s: ModelShape,
    prompt: int,
    gen: int,
    n_keep: int,
    n: int,
    *,
    teacher: bool = False,
    replicas: int = 4,
    weight_bytes_per_param: float = 2,
) -> Cycle:
    """One RL cycle: n generations + n reference forwards + one update on n_keep samples
    (+ n teacher forwards), and replicas × BF16 weights sent after the update."""
    L = prompt + gen - 1
    fg, fr = name(generation_flops(s, prompt, gen), "f_g", "FLOP"), name(reference_flops(s, prompt, gen), "f_r", "FLOP")
    return Cycle(
        L,
        gen - 1,
        n_keep * L,
        n_keep * gen,
        fg,
        fr,
        name(3 * n_keep * fr, "F_u", "FLOP"),
        n,
        fr * (n if teacher else 0),
        replicas * weight_bytes_per_param * name(s.params_total, "N"),
    )


def cycle_outputs(c: Cycle) -> dict:
    """例题 3-4's outputs (TFLOP, GB) of one cycle."""
    return {
        "seq_tokens": c.seq_tokens,
        "decode_steps_per_response": c.decode_steps,
        "update_input_tokens": c.update_input_tokens,
        "update_supervised_tokens": c.update_supervised_tokens,
        "f_g_tflop": c.f_g / 1e12,
        "f_r_tflop": c.f_r / 1e12,
        "fg_plus_fr_tflop": (c.f_g + c.f_r) / 1e12,
        "f_u_tflop": c.f_u / 1e12,
        "n_generate": c.n,
        "teacher_tflop": c.teacher / 1e12,
        "f_cycle_tflop": c.total / 1e12,
        "weight_sync_gb": c.weight_sync_bytes / 1e9,
    }


def line_through(n_a: float, f_a: float, n_b: float, f_b: float) -> tuple[float, float]:
    """Slope and intercept of F = slope·n + intercept through two cycles."""
    slope = (f_b - f_a) / (n_b - n_a)
    return slope, f_a - slope * n_a
