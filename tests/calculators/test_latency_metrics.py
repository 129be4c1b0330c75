"""latency_metrics.py: TTFT, request time, token gap (3.1.2) and the nearest-rank percentile."""

from __future__ import annotations

import math

import pytest
from app.calculators import latency_metrics as lm
from app.derivation import derive
from app.trace import evaluate, leaf, node_of, tracing


def test_three_times():
    assert lm.ttft(1.0, 1.45) == pytest.approx(0.45)
    assert lm.request_time(1.0, 6.425) == pytest.approx(5.425)
    assert lm.token_gap(0.45, 5.425, 200) == pytest.approx(0.025)  # divides by G − 1
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


def test_timeline_outputs_and_traced_arrival():
    o = lm.timeline_outputs(lm.request_timeline(0.3, 0.15, 0.025, 200, 100, 0.2))
    assert (
        o["ttft_ms"] == pytest.approx(450)
        and o["request_ms"] == pytest.approx(5425)
        and o["token_ms"] == pytest.approx(25)
    )
    assert o["first_useful_ms"] == pytest.approx(2950) and o["first_audible_ms"] == pytest.approx(3150)
    with tracing():
        t = lm.request_timeline(leaf(0.3, "T_q", "s"), leaf(0.15, "T_p", "s"), 0.025, 200, t_a=leaf(0.0, "t_a", "s"))
        ttft = t.ttft
    d = derive(ttft, "T_TTFT", "")
    assert d.formula == "T_TTFT = t_1 − t_a" and evaluate(d.check) == pytest.approx(0.45)


def test_sample_columns_and_percentile_outputs():
    cols = lm.sample_columns([(10, 100, 1.0), (20, 300, 0.5), (30, 50, 2.0)])
    assert cols == {"queue_ms": [10, 20, 30], "ttft_ms": [110, 320, 80], "request_s": [1.11, 0.82, 2.08]}
    o = lm.percentile_outputs(cols, 50)  # rank ⌈1.5⌉ = 2
    assert (o["p95_queue_ms"], o["p95_queue_ms_request_id"], o["max_queue_ms"]) == (20, 2, 30)
    assert (o["p95_ttft_ms"], o["p95_ttft_ms_request_id"], o["max_ttft_ms"]) == (110, 1, 320)
    assert (o["p95_request_s"], o["p95_request_s_request_id"]) == (1.11, 1)
    single = lm.percentile_outputs(lm.sample_columns([(12, 180, 6.1)]), 95)
    assert single["max_queue_ms"] == 12 and single["p95_request_s_request_id"] == 1
    with tracing():
        traced = lm.percentile_outputs(cols, leaf(50, "q", "%"))
    assert node_of(traced["p95_queue_ms"]).kind == "rule" and traced["p95_queue_ms"] == 20
