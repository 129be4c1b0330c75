"""Section 3.6's budgets, one dict per card keyed by its output names: the compute-optimal split, the
hold-out check, training as intercept and calls as slope, the lifetime break-even, tokens per
parameter, MoE expert FLOPs, A100 equivalents and calendar time. Pure: data (runs, model tables,
peaks) are passed in. Base units inside (parameters, tokens, FLOPs, FLOP/s, GPU·s); GPU·h, 10⁹ tokens
and TFLOP/s only in the returned keys that say so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ..trace import name
from . import lifetime as lt
from . import scaling_law as sl


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def budget_outputs(k: float, alpha: float, beta: float, c: float, a: float, b: float) -> dict:
    """Budget C → k·C: N_opt = (αA/βB)^{1/(α+β)}·(C/6)^{β/(α+β)}, D_opt = C/(6N_opt); they grow by
    k^{β/(α+β)} and k^{α/(α+β)}."""
    n_mult, d_mult = sl.budget_multipliers(k, alpha, beta)
    n0 = name(sl.optimal_n(c, a, b, alpha, beta), "N_{opt}")
    n1 = name(sl.optimal_n(k * c, a, b, alpha, beta), "N'_{opt}")
    return {
        "n_mult": n_mult,
        "d_mult": d_mult,
        "n_exponent": beta / (alpha + beta),
        "d_exponent": alpha / (alpha + beta),
        "n_opt_params": n0,
        "d_opt_tokens": c / (6 * n0),
        "n_opt_params_after": n1,
        "d_opt_tokens_after": k * c / (6 * n1),
    }


def holdout_outputs(law: sl.Law, held: Sequence[sl.Run]) -> dict:
    """Two held-out runs: predictions L̂ = L(N, D), residuals r = L̂ − L, RMSE = √((r₁² + r₂²)/2), and
    the coefficients in use."""
    pred = [name(sl.loss(law, r.params, r.tokens), f"L̂_{i}") for i, r in enumerate(held, 1)]
    res = [name(p - r.loss, f"r_{i}") for i, (p, r) in enumerate(zip(pred, held), 1)]
    return {
        "obs_h1": held[0].loss,
        "obs_h2": held[1].loss,
        "pred_h1": pred[0],
        "pred_h2": pred[1],
        "resid_h1": res[0],
        "resid_h2": res[1],
        "holdout_rmse": sl.rmse(res),
        "E": law.E,
        "A": law.A,
        "B": law.B,
        "alpha": law.alpha,
        "beta": law.beta,
    }


def intercept_outputs(
    law: sl.Law, peak_flops: float, mfu_pct: float, n_small: float, n_large: float, target: float, prompt: int, gen: int
) -> dict:
    """图 3-28 at loss L*: training C₀ = 6ND/R (the intercept) and one call c = 2N[P + (G − 1)]/R (the
    slope) for two model sizes, R = peak × MFU; the totals cross at Q* = ΔC₀/Δc."""
    rate = name(peak_flops * mfu_pct / 100, "R", "FLOP/s")
    d_s = name(sl.tokens_for_loss(law, n_small, target), "D_{small}", "token")
    d_l = name(sl.tokens_for_loss(law, n_large, target), "D_{large}", "token")
    c0_s = name(sl.train_flops(n_small, d_s) / rate / lt.HOUR, "C_{0,small}", "GPU·h")
    c0_l = name(sl.train_flops(n_large, d_l) / rate / lt.HOUR, "C_{0,large}", "GPU·h")
    c_s = name(sl.call_flops(n_small, prompt, gen) / rate, "c_{small}", "GPU·s")
    c_l = name(sl.call_flops(n_large, prompt, gen) / rate, "c_{large}", "GPU·s")
    dc0, dc = name(c0_s - c0_l, "ΔC_0", "GPU·h"), name(c_l - c_s, "Δc", "GPU·s")
    q = dc0 * lt.HOUR / dc if math.isfinite(dc0) and dc0 > 0 and dc > 0 else None
    return {
        "sustained_tflops": rate / 1e12,
        "d_small_btokens": _finite(d_s / 1e9),
        "d_large_btokens": _finite(d_l / 1e9),
        "train_gpu_h_small": _finite(c0_s),
        "train_gpu_h_large": _finite(c0_l),
        "delta_train_gpu_h": _finite(dc0),
        "call_gpu_s_small": c_s,
        "call_gpu_s_large": c_l,
        "saving_gpu_s_per_call": dc,
        "q_star_calls": q,
    }


def lifetime_outputs(delta_train_gpu_h: float, saving_gpu_s: float, tasks: float) -> dict:
    """Extra training ΔC₀ (GPU·h) against a saving Δc (GPU·s) per task: Q* = ΔC₀/Δc, net saving
    Q·Δc − ΔC₀ (> 0: the extra-trained small model is cheaper over its life)."""
    net = tasks * saving_gpu_s / lt.HOUR - delta_train_gpu_h
    return {
        "q_star_tasks": delta_train_gpu_h * lt.HOUR / saving_gpu_s if saving_gpu_s > 0 else None,
        "serving_saved_gpu_h": tasks * saving_gpu_s / lt.HOUR,
        "net_saving_gpu_h": net,
        "choose_small": net > 0,
        "cost_gap_gpu_h": abs(net),
    }


def llama_qwen_outputs(
    models: Sequence[tuple[float, float]], quality: Mapping[str, float], per_param: float, n_ref: float
) -> dict:
    """Per model (N, D): D/N, 6ND and (D/N) ÷ the compute-optimal tokens per parameter; the optimal
    tokens of an ``n_ref`` model (10⁹ tokens); the quality scores and the two gaps (70B − 8B)."""
    o: dict = {}
    for i, (n, d) in enumerate(models, 1):
        o[f"row{i}_d_over_n"] = d / n
        o[f"row{i}_six_nd_flop"] = sl.train_flops(n, d)
        o[f"row{i}_x_chinchilla"] = d / n / per_param
    o["chinchilla_8b_btokens"] = per_param * n_ref / 1e9
    o.update(quality)
    o["mmlu_gap_pts"] = quality["mmlu_llama2_70b"] - quality["mmlu_llama3_8b"]
    o["triviaqa_gap_pts"] = quality["triviaqa_llama2_70b"] - quality["triviaqa_llama3_8b"]
    return o


def moe_outputs(
    n_layers: int,
    hidden: int,
    ffn: int,
    routed: int,
    shared: int,
    tokens: float,
    total_params: float,
    active_params: float,
) -> dict:
    """Expert training FLOPs per token F = 18·n_L·h·f·(k_routed + k_shared), over D tokens; active ÷ total."""
    per_tok = name(sl.moe_expert_flops_per_token(n_layers, hidden, ffn, routed, shared), "F_{tok}", "FLOP")
    return {
        "gflop_per_token": per_tok / 1e9,
        "total_flop": per_tok * tokens,
        "total_params": total_params,
        "active_params": active_params,
        "train_tokens": tokens,
        "active_frac_pct": 100 * active_params / total_params,
    }


def data_vs_experts(n: float, d: float, data_mult: float, expert_mult: float, moe: Sequence[int]) -> dict:
    """练习 3-9: k× data scales training compute (6N·kD ÷ 6ND) but not the weights (∝ N); k× experts
    scale the routed-expert parameters but not the per-token expert FLOPs (no expert-count term).
    ``moe`` = (n_L, h, f, k_routed, k_shared)."""
    per_tok = name(sl.moe_expert_flops_per_token(*moe), "F_{tok}", "FLOP")
    return {
        "train_compute_mult": sl.train_flops(n, data_mult * d) / sl.train_flops(n, d),
        "weight_capacity_mult": n / n,
        "expert_param_mult": expert_mult,
        "expert_train_flop_mult": per_tok / per_tok,
    }


def a100_outputs(
    gpu_hours: float, peak_flops: float, a100_peak_flops: float, rl_gpu_h: float, opd_gpu_h: float
) -> dict:
    """A100 equivalent = GPU·h × peak ÷ A100 peak; the Qwen3 post-training routes RL ÷ OPD."""
    return {
        "a100_equiv_ratio": peak_flops / a100_peak_flops,
        "a100_equiv_gpu_h": lt.a100_equivalent(gpu_hours, peak_flops, a100_peak_flops),
        "qwen3_rl_gpu_h": rl_gpu_h,
        "qwen3_opd_gpu_h": opd_gpu_h,
        "qwen3_rl_over_opd": rl_gpu_h / opd_gpu_h,
    }


def calendar_outputs(gpu_hours: float, n_gpus: int) -> dict:
    """Wall-clock T = GPU·h ÷ cards (every card busy throughout), in hours, days and weeks."""
    wall = name(gpu_hours / n_gpus, "T_{wall}", "h")
    return {"wall_h": wall, "wall_days": wall / 24, "wall_weeks": wall / 24 / 7}
