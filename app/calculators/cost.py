"""Cost per successful task: every attempt (failed ones included) goes into the numerator, only
tasks that pass go into the denominator. C_success = c / p."""

from __future__ import annotations


def success_cost(cost_per_attempt: float, success_frac: float) -> float | None:
    """C_success = c/p; undefined (None) when nothing succeeds."""
    if success_frac <= 0:
        return None
    return cost_per_attempt / success_frac


def batch_success_cost(total_cost: float, successes: int) -> float | None:
    """Spending of a batch ÷ tasks that passed; None for a zero-success batch."""
    return None if successes <= 0 else total_cost / successes


def new_cheaper(c1: float, p1: float, c2: float, p2: float) -> bool | None:
    """New method is cheaper per success ⇔ p₂/p₁ > c₂/c₁ (None when p₁ = 0)."""
    if p1 <= 0:
        return None
    return p2 / p1 > c2 / c1


def breakeven_success(p1: float, c1: float, c2: float) -> float | None:
    """p₂ at which both methods cost the same per success: p₁·c₂/c₁ (None when p₁ = 0)."""
    if p1 <= 0:
        return None
    return p1 * c2 / c1


def success_cost_ratio(price_ratio: float, token_ratio: float, p_old: float, p_new: float) -> float:
    """New/old cost per success, model cost only, stable retries: price × tokens × p_old/p_new."""
    return price_ratio * token_ratio * p_old / p_new


def success_outputs(c1: float, p1: float, c2: float, p2: float, attempts: int = 100) -> dict:
    """图 3-9 / 练习 3-3 (success rates as fractions): n attempts each cost n·c and succeed round(n·p)
    times; C = c/p; ratios p₂/p₁ and c₂/c₁; break-even p₂ = p₁c₂/c₁ (in %)."""
    be = breakeven_success(p1, c1, c2)
    return {
        "total_cost_old": attempts * c1,
        "total_cost_new": attempts * c2,
        "successes_old": round(attempts * p1),
        "successes_new": round(attempts * p2),
        "success_cost_old": success_cost(c1, p1),
        "success_cost_new": success_cost(c2, p2),
        "success_ratio": p2 / p1 if p1 > 0 else None,
        "cost_ratio": c2 / c1,
        "new_cheaper": new_cheaper(c1, p1, c2, p2),
        "breakeven_success_new_pct": None if be is None else 100 * be,
    }


def price_cut_outputs(price_ratio: float, token_ratio: float, p_old: float, p_new: float) -> dict:
    """New/old per attempt (price × tokens), success rates p_new/p_old, per success (× p_old/p_new)."""
    return {
        "attempt_cost_ratio": price_ratio * token_ratio,
        "success_ratio": p_new / p_old,
        "success_cost_ratio": success_cost_ratio(price_ratio, token_ratio, p_old, p_new),
    }
