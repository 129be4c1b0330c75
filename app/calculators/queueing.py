"""Decode work of requests, the backlog recursion, drain time and state occupancy (ch3 3.1).

A request restores S context tokens, prefills P new tokens and returns G tokens: 1 prefill + (G−1)
decode calls; decode j (0-based) starts with S+P+j tokens of context. Work arriving as decode steps
is served at μ steps/s: Q_{k+1} = max(0, Q_k + A_k − μΔt). Waiting state: mean occupancy ≈ λ·M0·τ.

Base units: tokens, decode steps, seconds, bytes. The one backlog simulation every chapter-3 card
calls is :func:`run_two_class` (built on :func:`simulate_backlog`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..trace import by_rule, name, node_of, plain, rule, tmax, tsum
from ..words import words_for
from .units import GIB, MIB

W = words_for(__name__)

# ---------------------------------------------------------------------------------------------
# One request: calls, contexts, KV
# ---------------------------------------------------------------------------------------------


def decode_calls(output_tokens: int) -> int:
    """Decode calls of a request returning G tokens: G − 1 (the first token comes from the prefill)."""
    return output_tokens - 1 if output_tokens > 1 else tmax(output_tokens - 1, 0)


def _plus(a: Any, b: Any) -> Any:
    """a + b, leaving out a plain zero ``a`` (S = 0 restored tokens) so a formula reads ``P`` not ``0 + P``."""
    return b if (a == 0 and node_of(a) is None) else a + b


def decode_context(restored: int, input_tokens: int, j: int) -> int:
    """Context present when decode j (0-based) starts: S + P + j."""
    return restored + input_tokens + j


def decode_context_sum(restored: int, input_tokens: int, output_tokens: int) -> int:
    """Σ_{j=0}^{G−2} (S+P+j) = (G−1)(S+P) + (G−1)(G−2)/2: old-KV tokens read over all decodes."""
    n = decode_calls(output_tokens)
    return n * _plus(restored, input_tokens) + n * (n - 1) // 2


def final_kv_tokens(restored: int, input_tokens: int, output_tokens: int) -> int:
    """KV tokens held at the end: S + P + G − 1 (the last token is returned, never fed back)."""
    return _plus(restored, input_tokens) + decode_calls(output_tokens)


def final_text_tokens(restored: int, input_tokens: int, output_tokens: int) -> int:
    """Text length at the end: S + P + G."""
    return _plus(restored, input_tokens) + output_tokens


@dataclass(frozen=True)
class RequestClass:
    """A request type of a mix: P new input tokens → G output tokens, S restored."""

    input_tokens: int
    output_tokens: int
    restored: int = 0

    @property
    def decode_steps(self) -> int:
        return decode_calls(self.output_tokens)

    @property
    def context_sum(self) -> int:
        return decode_context_sum(self.restored, self.input_tokens, self.output_tokens)


def mean_decode_context(mix: Sequence[tuple[float, RequestClass]]) -> float:
    """Step-weighted mean old-KV context c̄ = Σ w·Σ_j(S+P+j) / Σ w·(G−1) over (weight, class) pairs."""
    steps = tsum(w * c.decode_steps for w, c in mix)
    return tsum(w * c.context_sum for w, c in mix) / steps if steps else 0.0


def decode_step_bytes(weight_bytes: float, batch: int, mean_context: float, kv_bytes_per_token: float) -> float:
    """Bytes of one batched decode step: W + B·(c̄ + 1)·c_KV (read the old KV, write one new token each)."""
    return weight_bytes + batch * (mean_context + 1) * kv_bytes_per_token


def decode_rate_bandwidth(batch: int, step_bytes: float, bandwidth: float) -> float:
    """Decode steps per second a card can do when bandwidth-bound: B / (bytes/β)."""
    return batch * bandwidth / step_bytes


def mix_demand(rate: float, share_a: float, steps_a: float, steps_b: float) -> float:
    """Decode-step demand of a two-class mix: λ·(s·w_a + (1−s)·w_b) steps/s (s = share of class a)."""
    return rate * (share_a * steps_a + (1 - share_a) * steps_b)


# ---------------------------------------------------------------------------------------------
# The backlog recursion
# ---------------------------------------------------------------------------------------------


def floor_steps(q: float) -> int:
    """⌊Q⌋ as the book prints backlogs (112,792.8 → 112,792); a float a hair under an integer counts as it."""
    f = math.floor(q)
    return f + 1 if q - f >= 1 - 1e-9 * max(1.0, abs(q)) else f


def drain_time(backlog: float, capacity: float) -> float:
    """Time to clear a backlog with no new arrivals: Q/μ."""
    return max(backlog, 0.0) / capacity


def fluid_backlog(demand: float, capacity: float, duration: float) -> float:
    """Backlog after a burst of constant demand λw against μ, starting empty: max(0, (λw − μ)·τ)."""
    return tmax(0.0, (demand - capacity) * duration)


@dataclass(frozen=True)
class BacklogRun:
    """The recursion's trajectory. ``queue[k]`` is Q at ``times[k]``; the arrival window is
    [0, arrival_end) in steps of ``dt``; after it the same recursion runs with A = 0 until Q = 0."""

    dt: float
    capacity: float  # μ, steps/s
    arrival_end: float  # s
    arrivals: tuple[float, ...]  # A_k, steps per interval
    interval_s: tuple[float, ...]  # length of each arrival interval (the last may be partial)
    times: tuple[float, ...]
    queue: tuple[float, ...]
    backlog_end: float  # Q when arrivals stop
    peak: float
    truncated: bool = False  # the drain was too long to list step by step

    @property
    def drain_s(self) -> float:
        return drain_time(self.backlog_end, self.capacity)

    @property
    def completion_s(self) -> float:
        return self.arrival_end + self.drain_s

    @property
    def backlog_end_display(self) -> int:
        return floor_steps(self.backlog_end)

    @property
    def total_arrived(self) -> float:
        return sum(self.arrivals)


BACKLOG_RULE = W["backlog_rule"]


@rule(BACKLOG_RULE)
def simulate_backlog(
    arrivals: Sequence[float],
    capacity: float,
    dt: float,
    *,
    interval_s: Sequence[float] | None = None,
    q0: float = 0.0,
    max_drain_points: int = 1000,
) -> BacklogRun:
    """Q_{k+1} = max(0, Q_k + A_k − μΔt_k); after the last arrival the same recursion with A = 0
    until Q = 0 (at most ``max_drain_points`` listed steps, then the exact empty time Q/μ)."""
    lens = list(interval_s) if interval_s is not None else [dt] * len(arrivals)
    q, t = q0, 0.0
    times, queue = [0.0], [q0]
    peak = q0
    for a, d in zip(arrivals, lens):
        q = max(0.0, q + a - capacity * d)
        t += d
        times.append(t)
        queue.append(q)
        peak = max(peak, q)
    end_t, q_end = t, q
    truncated = False
    n = 0
    while q > 0:
        if n >= max_drain_points:
            truncated = True
            times.append(end_t + q_end / capacity)
            queue.append(0.0)
            break
        q = max(0.0, q - capacity * dt)
        t += dt
        n += 1
        times.append(t)
        queue.append(q)
    return BacklogRun(
        dt=dt,
        capacity=capacity,
        arrival_end=end_t,
        arrivals=tuple(arrivals),
        interval_s=tuple(lens),
        times=tuple(times),
        queue=tuple(queue),
        backlog_end=q_end,
        peak=peak,
        truncated=truncated,
    )


def two_phase_arrivals(
    rate: float,
    duration: float,
    split: float,
    share_a_before: float,
    share_a_after: float,
    steps_a: float,
    steps_b: float,
    dt: float,
) -> tuple[list[float], list[float]]:
    """Fluid arrivals of a two-class mix over [0, duration): each interval [kΔt, (k+1)Δt) brings
    λ·(time before split · w_before + time after split · w_after) decode steps, where a request's
    G−1 steps all count in the interval it arrives. Returns (A_k, interval lengths)."""
    w_before = share_a_before * steps_a + (1 - share_a_before) * steps_b
    w_after = share_a_after * steps_a + (1 - share_a_after) * steps_b
    n = max(1, math.ceil(duration / dt - 1e-9))
    arr, lens = [], []
    for k in range(n):
        t0, t1 = k * dt, min((k + 1) * dt, duration)
        before = max(0.0, min(t1, split) - t0)
        after = (t1 - t0) - before
        arr.append(rate * (before * w_before + after * w_after))
        lens.append(t1 - t0)
    return arr, lens


@rule(BACKLOG_RULE)
def run_two_class(
    rate: float,
    duration: float,
    split: float,
    share_a_before: float,
    share_a_after: float,
    steps_a: float,
    steps_b: float,
    capacity: float,
    dt: float = 1.0,
) -> BacklogRun:
    """The backlog of a two-class mix arriving at λ for ``duration`` s, switching shares at ``split``,
    served at μ = ``capacity`` steps/s: Q_{k+1} = max(0, Q_k + A_k − μΔt) from an empty queue."""
    arr, lens = two_phase_arrivals(rate, duration, split, share_a_before, share_a_after, steps_a, steps_b, dt)
    return simulate_backlog(arr, capacity, dt, interval_s=lens)


# ---------------------------------------------------------------------------------------------
# Waiting state: occupancy and its area
# ---------------------------------------------------------------------------------------------


def mean_in_wait(rate: float, wait: float) -> float:
    """Tasks waiting at once in steady state (Little): λ·τ."""
    return rate * wait


def mean_occupancy(rate: float, state_bytes: float, wait: float) -> float:
    """Mean state held by waiting tasks: λ·M0·τ (bytes if M0 in bytes)."""
    return rate * state_bytes * wait


def occupancy_area_one(state_bytes: float, wait: float) -> float:
    """One waiting task's A_M = M0·τ (byte·s)."""
    return state_bytes * wait


def arrival_times(rate: float, horizon: float) -> list[float]:
    """Deterministic arrivals at t = k/λ with k/λ < H."""
    out, k = [], 0
    while k / rate < horizon - 1e-12:
        out.append(k / rate)
        k += 1
    return out


@rule(W["k_min_h_k_k_k_h.rule"], "Στ", "s")
def waiting_seconds(rate: float, wait: float, horizon: float) -> float:
    """Σ_k min(τ, H − k/λ): task-seconds spent waiting in [0, H] for arrivals at k/λ."""
    return sum(min(wait, horizon - t) for t in arrival_times(rate, horizon))


def occupancy_area(rate: float, state_bytes: float, wait: float, horizon: float) -> float:
    """A_M = ∫_0^H M(t) dt for arrivals at k/λ: M0·Σ_k min(τ, H − k/λ)."""
    return state_bytes * waiting_seconds(rate, wait, horizon)


def occupancy_at(t: float, rate: float, state_bytes: float, wait: float) -> float:
    """M(t) = M0·#{k : k/λ ≤ t < k/λ + τ} for arrivals at k/λ (k ≥ 0)."""
    if t < 0:
        return 0.0
    hi = math.floor(t * rate + 1e-9)  # last arrival at or before t
    lo = max(0, math.floor((t - wait) * rate + 1e-9) + 1)  # first arrival still waiting
    return state_bytes * max(0, hi - lo + 1)


# ---------------------------------------------------------------------------------------------
# Cards' quantities (dicts keyed by the catalog's output names; base units converted at the edge)
# ---------------------------------------------------------------------------------------------


def relabel(x: Any, sym: str, unit: str, inputs: tuple = ()) -> Any:
    """A simulated value (a rule value of :func:`run_two_class`) under the book's symbol."""
    n = node_of(x)
    return by_rule(x, n.text if n is not None else BACKLOG_RULE, sym, unit, inputs)


@dataclass(frozen=True)
class TwoClassMix:
    """例题 3-1's arrivals: λ requests/s for T s; class A (long input) has share s₁ before t_s and
    s₂ after (fractions); class B (long output) the rest."""

    rate: float
    duration: float
    split: float
    share_before: float
    share_after: float
    a: RequestClass
    b: RequestClass


@dataclass(frozen=True)
class DecodeCard:
    """One decode card: shared weights W read per step, c_KV bytes per context token, bandwidth β,
    B sequences per step."""

    weight_bytes: float
    kv_bytes_per_token: float
    bandwidth: float
    batch: int


def two_class_outputs(
    m: TwoClassMix, card: DecodeCard, cards: int, mu_card: float | None = None, dt: float = 1.0
) -> tuple[dict, BacklogRun]:
    """例题 3-1: requests N = λT, A-class N_A = λ(t_s·s₁ + (T − t_s)·s₂), decode work D = Σ N·(G − 1),
    per-card rate μ₁ (given, or B·β/(W + B(c̄ + 1)c_KV)), μ = n·μ₁ and the backlog Q(t)."""
    wa, wb = m.a.decode_steps, m.b.decode_steps
    n = name(m.rate * m.duration, "N", W["two_class_outputs.name"])
    n_a = name(
        m.rate * (m.split * m.share_before + (m.duration - m.split) * m.share_after), "N_A", W["two_class_outputs.name"]
    )
    n_b = name(n - n_a, "N_B", W["two_class_outputs.name"])
    work = name(n_a * wa + n_b * wb, "D", W["two_class_outputs.name_2"])
    c_bar = name(mean_decode_context([(n_a, m.a), (n_b, m.b)]), "c̄", "token")
    step = name(decode_step_bytes(card.weight_bytes, card.batch, c_bar, card.kv_bytes_per_token), "R_{step}", "B")
    mu_bw = name(decode_rate_bandwidth(card.batch, step, card.bandwidth), "μ_β", W["two_class_outputs.name_3"])
    mu1 = mu_bw if mu_card is None else mu_card
    cap = name(cards * mu1, "μ", W["two_class_outputs.name_3"])
    d1 = name(mix_demand(m.rate, m.share_before, wa, wb), "λw_1", W["two_class_outputs.name_3"])
    d2 = name(mix_demand(m.rate, m.share_after, wa, wb), "λw_2", W["two_class_outputs.name_3"])
    run = run_two_class(m.rate, m.duration, m.split, m.share_before, m.share_after, wa, wb, cap, dt)
    q_end = relabel(run.backlog_end, "Q_{end}", W["two_class_outputs.name_2"], (d1, d2, cap, m.duration, m.split, dt))
    drain = drain_time(q_end, cap)
    o = {
        "total_requests": n,
        "long_input_requests": n_a,
        "long_output_requests": n_b,
        "decode_steps_long_input": wa,
        "decode_steps_long_output": wb,
        "total_decode_steps": work,
        "avg_demand_steps_s": work / m.duration,
        "demand_before_steps_s": d1,
        "demand_after_steps_s": d2,
        "mean_ctx_tokens": c_bar,
        "step_read_write_gb": step / 1e9,
        "step_ms": step / card.bandwidth * 1e3,
        "mu_bw_per_card": mu_bw,
        "mu_per_card": mu1,
        "mu_per_card_rounded": round(mu1),
        "capacity_steps_s": cap,
        "util_avg_pct": 100 * work / m.duration / cap,
        "util_before_pct": 100 * d1 / cap,
        "util_after_pct": 100 * d2 / cap,
        "backlog_end_steps": q_end,
        "backlog_end_steps_display": floor_steps(q_end),
        "backlog_fluid_steps": fluid_backlog(d2, cap, m.duration - m.split),
        "peak_backlog_steps": relabel(
            run.peak, "Q_{max}", W["two_class_outputs.name_2"], (d1, d2, cap, m.duration, m.split, dt)
        ),
        "drain_s": drain,
        "completion_s": m.duration + drain,
        "min_time_one_card_s": work / mu1,
        "min_time_all_cards_s": work / cap,
        "queue_series": [round(q, 3) for q in run.queue],
        "arrival_series": [round(a, 3) for a in run.arrivals],
    }
    return o, run


def class_a_steps(m: TwoClassMix, run: BacklogRun) -> list[float]:
    """Decode steps of class A arriving in each recursion interval: λ·(G_A − 1)·(s₁·before + s₂·after)."""
    # the mix's numbers as plain floats once (traced inputs would trace every step of the loop;
    # the same arithmetic in the same order, so the same floats)
    per_s, split = plain(m.rate) * plain(m.a.decode_steps), plain(m.split)
    s1, s2 = plain(m.share_before), plain(m.share_after)
    out, t = [], 0.0
    for d in run.interval_s:
        before = max(0.0, min(t + d, split) - t)
        out.append(per_s * (before * s1 + (d - before) * s2))
        t += d
    return out


def request_outputs(s: int, p: int, g: int, batch: int, ridge: float, kv_bytes: float) -> dict:
    """图 3-1: one prefill and G − 1 decodes; decode j starts with S + P + j tokens; B requests read
    B·Σ_j(S + P + j) old-KV tokens; rows per weight read B·P (prefill) and B (decode) against B*."""
    n_dec = name(decode_calls(g), "n_{dec}", W["request_outputs.name"])
    kv_end = final_kv_tokens(s, p, g)
    ctx_sum = decode_context_sum(s, p, g)
    return {
        "decode_calls": n_dec,
        "total_calls": 1 + n_dec,
        "first_decode_ctx_tokens": _plus(s, p) if n_dec else None,
        "last_decode_ctx_tokens": _plus(s, p) + (n_dec - 1) if n_dec else None,
        "final_kv_tokens": kv_end,
        "final_text_tokens": final_text_tokens(s, p, g),
        "prefill_rows_per_weight_read": batch * p,
        "decode_rows_per_weight_read": batch,
        "ridge_rows": ridge,
        "prefill_bound": "compute" if batch * p >= ridge else "bandwidth",
        "decode_bound": "compute" if batch >= ridge else "bandwidth",
        "decode_kv_read_tokens": batch * ctx_sum,
        "decode_kv_read_gb": batch * ctx_sum * kv_bytes / 1e9,
        "final_kv_mib": batch * kv_end * kv_bytes / MIB,
    }


def sync_column(n: int, total: int, p: int, weight_bytes: float, kv_bytes: float, bw: float, tag: str = "") -> dict:
    """练习 3-1, one column: n synchronous requests of G = ⌊total/n⌋ tokens: n prefills in one batch,
    G − 1 shared decode rounds, 1 + (G − 1) weight reads, decode bound Σ rounds·(W + n(c̄ + 1)c_KV)/β.
    ``tag`` subscripts the column's symbols (G_1 for the one-request column)."""
    g = name(total // n, f"G{tag}", "token")
    rounds = decode_calls(g)
    c_bar = decode_context_sum(0, p, g) / rounds if rounds else 0 * rounds
    decode_bytes = rounds * decode_step_bytes(weight_bytes, n, c_bar, kv_bytes)
    kv_end = final_kv_tokens(0, p, g)
    return {
        "output_per_request": g,
        "prefill_count": n,
        "prefill_tokens": n * p,
        "decode_steps_total": n * rounds,
        "decode_rounds": rounds,
        "weight_read_rounds": 1 + rounds,
        "end_context_tokens": final_text_tokens(0, p, g),
        "end_kv_tokens_per_request": kv_end,
        "end_kv_mib_total": n * kv_end * kv_bytes / MIB,
        "weight_read_gb": (1 + rounds) * weight_bytes / 1e9,
        "decode_lb_s": name(decode_bytes / bw, f"T_{{dec{tag}}}", "s"),
    }


def wait_outputs(rate: float, wait: float, state_bytes: float, horizon: float) -> dict:
    """图 3-3 / 练习 3-2: λτ tasks wait at once, holding λ·M₀·τ; one task's area M₀·τ; the area up to H."""
    return {
        "mean_waiting_tasks": mean_in_wait(rate, wait),
        "mean_occupancy_gib": mean_occupancy(rate, state_bytes, wait) / GIB,
        "area_per_task_gib_s": occupancy_area_one(state_bytes, wait) / GIB,
        "area_horizon_gib_s": occupancy_area(rate, state_bytes, wait, horizon) / GIB,
        "steady_from_s": wait,
    }


def kv_pool_residency(pool_bytes: float, kv_bytes: float, classes: Sequence[RequestClass]) -> tuple[float, list[int]]:
    """Tokens a KV pool holds (pool ÷ c_KV) and, per class, requests resident at full length
    ⌊tokens ÷ (P + G − 1)⌋."""
    tokens = pool_bytes / kv_bytes
    return tokens, [math.floor(tokens / final_kv_tokens(c.restored, c.input_tokens, c.output_tokens)) for c in classes]
