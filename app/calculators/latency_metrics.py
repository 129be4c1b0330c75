"""What "done" means for one request (ch3 3.1.2): TTFT, full request time, token gap, and the
nearest-rank percentile. Seconds in, seconds out; ranks in integer arithmetic."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..trace import name, rule, tmax
from ..words import words_for

W = words_for(__name__)


def ttft(t_arrival: float, t_first: float) -> float:
    """T_TTFT = t₁ − t_a."""
    return t_first - t_arrival


def request_time(t_arrival: float, t_last: float) -> float:
    """T_request = t_G − t_a."""
    return t_last - t_arrival


def token_gap(t_first: float, t_last: float, output_tokens: int) -> float:
    """T_token = (t_G − t₁)/(G − 1); undefined (nan) for G = 1."""
    return (t_last - t_first) / (output_tokens - 1) if output_tokens > 1 else float("nan")


@dataclass(frozen=True)
class Timeline:
    """One request's events (s, from arrival t_a = 0) and the metrics they define."""

    t_a: float
    t_prefill_start: float
    t_1: float
    t_G: float
    t_first_useful: float
    t_first_audible: float
    output_tokens: int

    @property
    def ttft(self) -> float:
        return ttft(self.t_a, self.t_1)

    @property
    def request(self) -> float:
        return request_time(self.t_a, self.t_G)

    @property
    def token(self) -> float:
        return token_gap(self.t_1, self.t_G, self.output_tokens)


def request_timeline(
    queue_s: float,
    prefill_s: float,
    gap_s: float,
    output_tokens: int,
    thinking_tokens: int = 0,
    audio_delay_s: float = 0.0,
    t_a: float = 0.0,
) -> Timeline:
    """t₁ = t_a + queue + prefill; t_G = t₁ + (G−1)·gap; first useful = t₁ + thinking·gap; audible = + delay."""
    t1 = name(t_a + queue_s + prefill_s, "t_1", "s")
    tg = name(t1 + (output_tokens - 1) * gap_s, "t_G", "s")
    useful = t1 + thinking_tokens * gap_s
    return Timeline(t_a, t_a + queue_s, t1, tg, useful, useful + audio_delay_s, output_tokens)


def nearest_rank(q_pct: int, n: int) -> int:
    """1-based nearest rank ⌈q·n/100⌉, exactly, in integers: (q·n + 99) // 100."""
    if n < 1:
        raise ValueError("n ≥ 1")
    q, m = (x if isinstance(x, int) else int(x) for x in (q_pct, n))
    return (q * m + 99) // 100


def sorted_with_ids(values: Sequence[float]) -> list[tuple[float, int]]:
    """(value, 0-based index) sorted by value; equal values keep their original order (stable)."""
    return sorted(((v, i) for i, v in enumerate(values)), key=lambda x: x[0])


@rule(W["r_q_n_100.rule"])
def nearest_rank_pick(values: Sequence[float], q_pct: int) -> tuple[float, int]:
    """The q-th percentile by nearest rank and the 0-based index of the observation that supplies it."""
    ranked = sorted_with_ids(values)
    return ranked[nearest_rank(q_pct, len(values)) - 1]


def _max(xs: Sequence[float]) -> float:
    """max that keeps the trace (``tmax`` of one item would unpack it)."""
    return tmax(*xs) if len(xs) > 1 else xs[0]


def timeline_outputs(t: Timeline) -> dict:
    """图 3-2's five times in ms: TTFT, full request, token gap, first useful output, first sound."""
    return {
        "ttft_ms": t.ttft * 1e3,
        "request_ms": t.request * 1e3,
        "token_ms": t.token * 1e3,
        "first_useful_ms": t.t_first_useful * 1e3,
        "first_audible_ms": t.t_first_audible * 1e3,
    }


def sample_columns(rows: Sequence[tuple[float, float, float]]) -> dict[str, list[float]]:
    """(queue ms, prefill ms, decode s) per request → queue, TTFT = queue + prefill, request = TTFT + decode (s)."""
    ttft = [q + pf for q, pf, _ in rows]
    return {
        "queue_ms": [q for q, _, _ in rows],
        "ttft_ms": ttft,
        "request_s": [round(t / 1000 + d, 3) for t, (_, _, d) in zip(ttft, rows)],
    }


def percentile_outputs(cols: dict[str, list[float]], q_pct: int) -> dict:
    """Per column: the q-th percentile by nearest rank, the (1-based) request it comes from, the maximum."""
    o: dict = {}
    for key, vals in cols.items():
        val, i0 = nearest_rank_pick(vals, q_pct)
        o[f"p95_{key}"], o[f"p95_{key}_request_id"], o[f"max_{key}"] = val, i0 + 1, _max(vals)
    return o
