"""Scaling law L(N, D) = E + A/N^α + B/D^β, the compute-optimal split under C ≈ 6ND, a bounded
least-squares fit (a search: its coefficients come out as rule values), training / per-call FLOPs
and MoE expert FLOPs (chapter 3.6). Pure: the datablations runs are passed in (``runs_from_rows``).

Base units: N in parameters, D in tokens, L in nats/token, FLOPs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ..trace import by_rule, plain, tsqrt, tsum
from ..words import words_for

W = words_for(__name__)


@dataclass(frozen=True)
class Law:
    E: float
    A: float
    B: float
    alpha: float
    beta: float


# Reconstructed from the book's printed numbers (2.583/2.363, +0.009/+0.026, 0.0193, 298.6B, 125.7,
# 73.5); NOT the book's own fit, whose coefficients are not printed. Keep every digit.
RECONSTRUCTED = Law(E=1.760752, A=120.715449, B=385.775028, alpha=0.2701515, beta=0.2701515)


def loss(law: Law, n: float, d: float) -> float:
    """L(N, D) = E + A/N^α + B/D^β."""
    return law.E + law.A / n**law.alpha + law.B / d**law.beta


def tokens_for_loss(law: Law, n: float, target: float) -> float:
    """D such that L(N, D) = L*: D = (B / (L* − E − A/N^α))^{1/β}; inf when L* is out of reach."""
    gap = target - law.E - law.A / n**law.alpha
    return (law.B / gap) ** (1 / law.beta) if gap > 0 else math.inf


def optimal_n(c: float, A: float, B: float, alpha: float, beta: float) -> float:
    """N_opt = (αA/(βB))^{1/(α+β)} · (C/6)^{β/(α+β)} (minimise L under C = 6ND)."""
    g = (alpha * A / (beta * B)) ** (1 / (alpha + beta))
    return g * (c / 6) ** (beta / (alpha + beta))


def optimal_d(c: float, A: float, B: float, alpha: float, beta: float) -> float:
    """D_opt = C / (6 N_opt)  (∝ C^{α/(α+β)})."""
    return c / (6 * optimal_n(c, A, B, alpha, beta))


def budget_multipliers(k: float, alpha: float, beta: float) -> tuple[float, float]:
    """Budget ×k scales N_opt by k^{β/(α+β)} and D_opt by k^{α/(α+β)}."""
    return k ** (beta / (alpha + beta)), k ** (alpha / (alpha + beta))


def train_flops(n: float, d: float) -> float:
    """Training compute C ≈ 6ND."""
    return 6 * n * d


def call_flops(n: float, prompt: int, gen: int) -> float:
    """One request: 2N[P + (G − 1)] (one prefill over P tokens, G − 1 decode steps)."""
    return 2 * n * (prompt + gen - 1)


def moe_expert_flops_per_token(n_layers: int, hidden: int, ffn: int, routed: int, shared: int) -> float:
    """Expert training FLOPs per token = 18·n_L·h·f·(routed + shared): 3 matrices × 2 FLOP × 3 passes."""
    return 18 * n_layers * hidden * ffn * (routed + shared)


def rmse(residuals: Iterable[float]) -> float:
    """RMSE = √(Σ r²/n)."""
    r = list(residuals)
    return tsqrt(tsum(x**2 for x in r) / len(r)) if r else math.nan


# ---------------------------------------------------------------------------------------------
# Fit: minimise Σ (E + A/N^α + B/D^β − L)² with A, B ≥ 0. For fixed exponents the model is linear
# in (E, A, B); an outer search over α (and β) with an inner non-negative linear solve finds the
# global minimum. Work is bounded: a fixed grid plus a fixed number of refinement steps.
# ---------------------------------------------------------------------------------------------

_LO, _HI = 0.01, 2.0


def _inner(n: np.ndarray, d: np.ndarray, y: np.ndarray, alphas: np.ndarray, betas: np.ndarray):
    """For each (α_k, β_k): best (E, A, B) with A, B ≥ 0 and its SSE. Shapes: (K,), (K, 3).

    E is free, so centre everything (E = ȳ − A·ū − B·v̄) and solve the 2×2 normal equations in
    closed form; if A or B comes out negative, the better of the one-term fits (or E alone) wins."""
    u = n[None, :] ** -alphas[:, None]  # (K, m)
    v = d[None, :] ** -betas[:, None]
    uc = u - u.mean(axis=1, keepdims=True)
    vc = v - v.mean(axis=1, keepdims=True)
    yc = y - y.mean()
    suu, svv, suv = (uc * uc).sum(1), (vc * vc).sum(1), (uc * vc).sum(1)
    suy, svy, syy = (uc * yc).sum(1), (vc * yc).sum(1), float((yc * yc).sum())
    K = alphas.size
    best_sse = np.full(K, syy)  # E alone
    best_a, best_b = np.zeros(K), np.zeros(K)
    with np.errstate(divide="ignore", invalid="ignore"):
        a1 = suy / suu  # E + A/N^α
        sse1 = syy - a1 * suy
        ok = (a1 >= 0) & np.isfinite(a1) & (sse1 < best_sse)
        best_sse, best_a = np.where(ok, sse1, best_sse), np.where(ok, a1, best_a)
        b1 = svy / svv  # E + B/D^β
        sse2 = syy - b1 * svy
        ok = (b1 >= 0) & np.isfinite(b1) & (sse2 < best_sse)
        best_sse, best_a, best_b = np.where(ok, sse2, best_sse), np.where(ok, 0.0, best_a), np.where(ok, b1, best_b)
        det = suu * svv - suv * suv  # both terms
        a2 = (svv * suy - suv * svy) / det
        b2 = (suu * svy - suv * suy) / det
        sse3 = syy - a2 * suy - b2 * svy
        ok = (a2 >= 0) & (b2 >= 0) & np.isfinite(a2) & np.isfinite(b2) & (sse3 < best_sse)
        best_sse = np.where(ok, sse3, best_sse)
        best_a, best_b = np.where(ok, a2, best_a), np.where(ok, b2, best_b)
    E = y.mean() - best_a * u.mean(axis=1) - best_b * v.mean(axis=1)
    return np.maximum(best_sse, 0.0), np.stack([E, best_a, best_b], axis=1)


@dataclass(frozen=True)
class FitResult:
    law: Law
    fit_rmse: float  # RMSE over the fitted points
    residuals: tuple[float, ...]


FIT_RULE = W["fit_rule"]
LAW_SYMBOLS = ("E", "A", "B", "α", "β")


def fit(n, d, y, tied: bool = True) -> FitResult:
    """Least squares in L over E, A ≥ 0, B ≥ 0, α (β = α if tied, else free), α, β ∈ [0.01, 2]. A
    search, so the coefficients are rule values (explained in words, each with its symbol); the
    residuals and their RMSE are arithmetic on them."""
    coef = _search([plain(x) for x in n], [plain(x) for x in d], [plain(x) for x in y], tied)
    law = Law(*(by_rule(c, FIT_RULE, s) for c, s in zip(coef, LAW_SYMBOLS)))
    res = tuple(loss(law, ni, di) - yi for ni, di, yi in zip(n, d, y))
    return FitResult(law, rmse(res), res)


def _search(n, d, y, tied: bool) -> tuple[float, float, float, float, float]:
    """(E, A, B, α, β): an outer grid-and-zoom search over the exponents, the inner linear solve."""
    n, d, y = (np.asarray(v, dtype=float) for v in (n, d, y))
    if tied:
        grid = np.linspace(_LO, _HI, 400)
        sse, _ = _inner(n, d, y, grid, grid)
        al, h = float(grid[int(np.argmin(sse))]), float(grid[1] - grid[0])
        for _ in range(8):  # zoom: 41 points over ±h, h ÷ 20 per round
            g = np.clip(np.linspace(al - h, al + h, 41), _LO, _HI)
            sse, _ = _inner(n, d, y, g, g)
            al, h = float(g[int(np.argmin(sse))]), h / 20
        be = al
    else:
        g1 = np.linspace(_LO, _HI, 40)
        A_, B_ = np.meshgrid(g1, g1, indexing="ij")
        sse, _ = _inner(n, d, y, A_.ravel(), B_.ravel())
        i = int(np.argmin(sse))
        al, be, h = float(A_.ravel()[i]), float(B_.ravel()[i]), float(g1[1] - g1[0])
        for _ in range(13):  # zoom: 17×17 over ±2h, h ÷ 4 per round
            ga = np.clip(np.linspace(al - 2 * h, al + 2 * h, 17), _LO, _HI)
            gb = np.clip(np.linspace(be - 2 * h, be + 2 * h, 17), _LO, _HI)
            A_, B_ = np.meshgrid(ga, gb, indexing="ij")
            sse, _ = _inner(n, d, y, A_.ravel(), B_.ravel())
            i = int(np.argmin(sse))
            al, be, h = float(A_.ravel()[i]), float(B_.ravel()[i]), h / 4
    _, coef = _inner(n, d, y, np.array([al]), np.array([be]))
    E, A, B = (float(v) for v in coef[0])
    return E, A, B, al, be


# ---------------------------------------------------------------------------------------------
# The datablations C4 runs: rows as read by app.data (data/datablations_c4_points.csv)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    run: str
    params: float
    tokens: float
    unique_tokens: float
    epochs: float
    loss: float
    seed: str


def runs_from_rows(rows: Iterable[Mapping[str, str]]) -> dict[str, Run]:
    """Runs by name from the CSV's rows (run, params, tokens, unique_tokens, epochs, loss, seed)."""
    return {
        r["run"]: Run(
            r["run"],
            float(r["params"]),
            float(r["tokens"]),
            float(r["unique_tokens"]),
            float(r["epochs"]),
            float(r["loss"]),
            r["seed"],
        )
        for r in rows
    }
