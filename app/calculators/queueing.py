"""Decode work of requests, the backlog recursion, drain time and state occupancy (ch3 3.1).

A request restores S context tokens, prefills P new tokens and returns G tokens: 1 prefill + (G−1)
decode calls; decode j (0-based) starts with S+P+j tokens of context. Work arriving as decode steps
is served at μ steps/s: Q_{k+1} = max(0, Q_k + A_k − μΔt). Waiting state: mean occupancy ≈ λ·M0·τ.

Base units: tokens, decode steps, seconds, bytes. The one backlog simulation every chapter-3 card
calls is :func:`run_two_class` (built on :func:`simulate_backlog`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

# ---------------------------------------------------------------------------------------------
# One request: calls, contexts, KV
# ---------------------------------------------------------------------------------------------


def decode_calls(output_tokens: int) -> int:
    """Decode calls of a request returning G tokens: G − 1 (the first token comes from the prefill)."""
    return max(int(output_tokens) - 1, 0)


def decode_context(restored: int, input_tokens: int, j: int) -> int:
    """Context present when decode j (0-based) starts: S + P + j."""
    return restored + input_tokens + j


def decode_context_sum(restored: int, input_tokens: int, output_tokens: int) -> int:
    """Σ_{j=0}^{G−2} (S+P+j) = (G−1)(S+P) + (G−1)(G−2)/2: old-KV tokens read over all decodes."""
    n = decode_calls(output_tokens)
    return n * (restored + input_tokens) + n * (n - 1) // 2


def final_kv_tokens(restored: int, input_tokens: int, output_tokens: int) -> int:
    """KV tokens held at the end: S + P + G − 1 (the last token is returned, never fed back)."""
    return restored + input_tokens + max(output_tokens - 1, 0)


def final_text_tokens(restored: int, input_tokens: int, output_tokens: int) -> int:
    """Text length at the end: S + P + G."""
    return restored + input_tokens + output_tokens


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
    steps = sum(w * c.decode_steps for w, c in mix)
    return sum(w * c.context_sum for w, c in mix) / steps if steps else 0.0


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
    return int(math.floor(q + 1e-9 * max(1.0, abs(q))))


def drain_time(backlog: float, capacity: float) -> float:
    """Time to clear a backlog with no new arrivals: Q/μ."""
    return backlog / capacity if backlog > 0 else 0.0


def fluid_backlog(demand: float, capacity: float, duration: float) -> float:
    """Backlog after a burst of constant demand λw against μ, starting empty: max(0, (λw − μ)·τ)."""
    return max(0.0, (demand - capacity) * duration)


@dataclass(frozen=True)
class BacklogRun:
    """The recursion's trajectory. ``queue[k]`` is Q at ``times[k]``; the arrival window is
    [0, arrival_end) in steps of ``dt``; after it the same recursion runs with A = 0 until Q = 0."""

    dt: float
    capacity: float                 # μ, steps/s
    arrival_end: float              # s
    arrivals: tuple[float, ...]     # A_k, steps per interval
    interval_s: tuple[float, ...]   # length of each arrival interval (the last may be partial)
    times: tuple[float, ...]
    queue: tuple[float, ...]
    backlog_end: float              # Q when arrivals stop
    peak: float
    truncated: bool = False         # the drain was too long to list step by step

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


def simulate_backlog(arrivals: Sequence[float], capacity: float, dt: float, *,
                     interval_s: Sequence[float] | None = None, q0: float = 0.0,
                     max_drain_points: int = 1000) -> BacklogRun:
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
    return BacklogRun(dt=dt, capacity=capacity, arrival_end=end_t, arrivals=tuple(arrivals),
                      interval_s=tuple(lens), times=tuple(times), queue=tuple(queue),
                      backlog_end=q_end, peak=peak, truncated=truncated)


def two_phase_arrivals(rate: float, duration: float, split: float, share_a_before: float,
                       share_a_after: float, steps_a: float, steps_b: float, dt: float
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


def run_two_class(rate: float, duration: float, split: float, share_a_before: float, share_a_after: float,
                  steps_a: float, steps_b: float, capacity: float, dt: float = 1.0) -> BacklogRun:
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


def occupancy_area(rate: float, state_bytes: float, wait: float, horizon: float) -> float:
    """A_M = ∫_0^H M(t) dt for arrivals at k/λ: Σ_k M0·min(τ, H − k/λ)."""
    return sum(state_bytes * min(wait, horizon - t) for t in arrival_times(rate, horizon))


def occupancy_at(t: float, rate: float, state_bytes: float, wait: float) -> float:
    """M(t) = M0·#{k : k/λ ≤ t < k/λ + τ} for arrivals at k/λ (k ≥ 0)."""
    if t < 0:
        return 0.0
    hi = math.floor(t * rate + 1e-9)                       # last arrival at or before t
    lo = max(0, math.floor((t - wait) * rate + 1e-9) + 1)  # first arrival still waiting
    return state_bytes * max(0, hi - lo + 1)
