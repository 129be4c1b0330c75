"""latency_metrics.py: TTFT, request time, token gap (3.1.2) and the nearest-rank percentile."""
from __future__ import annotations

import math

import pytest

from app.calculators import latency_metrics as lm


def test_three_times():
    assert lm.ttft(1.0, 1.45) == pytest.approx(0.45)
    assert lm.request_time(1.0, 6.425) == pytest.approx(5.425)
    assert lm.token_gap(0.45, 5.425, 200) == pytest.approx(0.025)      # divides by G − 1
    assert math.isnan(lm.token_gap(0.45, 0.45, 1))


def test_timeline_queue_moves_ttft_and_request_not_gap():
    a = lm.request_timeline(0.3, 0.15, 0.025, 200)
    b = lm.request_timeline(1.3, 0.15, 0.025, 200)
    assert a.ttft == pytest.approx(0.45) and a.request == pytest.approx(5.425) and a.token == pytest.approx(0.025)
    assert b.ttft - a.ttft == pytest.approx(1.0) and b.request - a.request == pytest.approx(1.0)
    assert b.token == pytest.approx(a.token)
    c = lm.request_timeline(0.3, 0.15, 0.025, 200, thinking_tokens=100, audio_delay_s=0.2)
    assert c.t_first_useful == pytest.approx(2.95) and c.t_first_audible == pytest.approx(3.15)


@pytest.mark.parametrize("n,rank", [(20, 19), (100, 95), (480, 456), (1013, 963), (1, 1), (19, 19)])
def test_nearest_rank_p95(n, rank):
    assert lm.nearest_rank(95, n) == rank


def test_nearest_rank_is_exact_ceiling():
    for q in range(50, 100):
        for n in range(1, 2000):
            assert lm.nearest_rank(q, n) == -(-q * n // 100)
    with pytest.raises(ValueError):
        lm.nearest_rank(95, 0)


def test_pick_is_stable_and_reports_the_request():
    vals = [5, 1, 5, 3]
    assert lm.sorted_with_ids(vals) == [(1, 1), (3, 3), (5, 0), (5, 2)]
    assert lm.nearest_rank_pick(vals, 50) == (3, 3)
    assert lm.nearest_rank_pick(vals, 75) == (5, 0)
