"""queueing.py against chapter 3's printed numbers (例题 3-1, 练习 3-2, 图 3-3, 真实回放)."""
from __future__ import annotations

import math

import pytest

from app.calculators import model_config as mc
from app.calculators import queueing as qu
from app.data import gpu, model_config

LI, LO = qu.RequestClass(8192, 256), qu.RequestClass(1024, 2048)
MU_BOOK = 2795.66


def test_request_structure():
    assert qu.decode_calls(256) == 255 and qu.decode_calls(1) == 0
    assert qu.decode_context(0, 8192, 0) == 8192
    assert qu.decode_context_sum(0, 8192, 256) == 2_121_345
    assert qu.decode_context_sum(0, 1024, 2048) == 4_190_209
    assert qu.final_kv_tokens(0, 8192, 256) == 8447 and qu.final_text_tokens(0, 8192, 256) == 8448
    # brute force agrees
    assert qu.decode_context_sum(5, 7, 9) == sum(5 + 7 + j for j in range(8))


def test_mean_context_and_step_bytes_from_config():
    shape = mc.shape_of(model_config("qwen3-8b"))
    kv = shape.kv_bytes_per_token_bf16
    assert kv == 147_456
    w = round(mc.decode_weight_read_bytes(shape, 2) / 1e9, 2) * 1e9
    assert w == pytest.approx(15.14e9)
    c = qu.mean_decode_context([(240, LI), (240, LO)])
    assert c == pytest.approx(6_311_554 / 2_302)                  # 约 2,742
    assert round(c) == 2742
    b = qu.decode_step_bytes(w, 64, c, kv)
    assert round(b / 1e9, 2) == 41.02
    bw = gpu("rtx-pro-6000").bw_bytes_s
    assert round(b / bw * 1e3, 2) == 22.89
    assert qu.decode_rate_bandwidth(64, b, bw) == pytest.approx(2795.63, abs=0.005)  # the book states 2,795.66
    # the conventions the catalog rules out
    assert round(qu.decode_step_bytes(w, 64, c - 1, kv) / 1e9, 2) == 41.01
    assert round(qu.decode_step_bytes(w, 64, 2742, kv) / 1e9, 2) == 41.03


def test_mix_demand():
    assert qu.mix_demand(4, 0.5, 255, 2047) == pytest.approx(4604)
    assert qu.mix_demand(4, 0.9, 255, 2047) == pytest.approx(1736.8)
    assert qu.mix_demand(4, 0.1, 255, 2047) == pytest.approx(7471.2)


def test_skewed_two_minutes_backlog_is_floor_of_112792_8():
    run = qu.run_two_class(4, 120, 60, 0.9, 0.1, 255, 2047, 2 * MU_BOOK)
    assert run.backlog_end == pytest.approx(112_792.8, abs=1e-6)
    assert run.backlog_end_display == 112_792                   # floor, not round (112,793)
    assert run.queue[60] == 0                                    # minute 1 ends with an empty queue
    assert run.drain_s == pytest.approx(20.17, abs=0.005)
    assert run.completion_s == pytest.approx(140.17, abs=0.005)
    assert run.total_arrived == pytest.approx(552_480)
    assert run.queue[-1] == 0 and run.times[-1] >= run.completion_s
    for dt in (0.5, 0.1):
        assert qu.run_two_class(4, 120, 60, 0.9, 0.1, 255, 2047, 2 * MU_BOOK, dt).backlog_end_display == 112_792


def test_uniform_never_queues_and_fluid_formula():
    assert qu.run_two_class(4, 120, 60, 0.5, 0.5, 255, 2047, 2 * MU_BOOK).peak == 0
    assert qu.fluid_backlog(7471.2, 2 * MU_BOOK, 60) == pytest.approx(112_792.8)
    assert qu.fluid_backlog(1736.8, 2 * MU_BOOK, 60) == 0


def test_exercise_3_2_burst():
    two = qu.run_two_class(4, 30, 0, 0.1, 0.1, 255, 2047, 2 * MU_BOOK)
    assert two.backlog_end == pytest.approx(56_396.4, abs=1e-6)
    assert two.drain_s == pytest.approx(10.09, abs=0.005)
    assert all(b >= a for a, b in zip(two.queue[:31], two.queue[1:31]))   # a straight ramp
    three = qu.run_two_class(4, 30, 0, 0.1, 0.1, 255, 2047, 3 * MU_BOOK)
    assert three.peak == 0 and three.drain_s == 0
    rounded = qu.run_two_class(4, 30, 0, 0.1, 0.1, 255, 2047, 2 * 2796)
    assert rounded.backlog_end == pytest.approx(56_376) and rounded.drain_s == pytest.approx(10.08, abs=0.005)


def test_recursion_rule():
    run = qu.simulate_backlog([10, 0, 0, 5], capacity=4, dt=1)
    assert list(run.queue[:5]) == [0, 6, 2, 0, 1]
    assert run.backlog_end == 1 and run.queue[-1] == 0
    long = qu.simulate_backlog([1e9], capacity=1, dt=1, max_drain_points=10)
    assert long.truncated and long.times[-1] == pytest.approx(1 + (1e9 - 1))


def test_floor_steps():
    assert qu.floor_steps(112_792.8) == 112_792
    assert qu.floor_steps(1000 - 1e-10) == 1000
    assert qu.floor_steps(0.0) == 0


def test_occupancy():
    assert qu.mean_in_wait(2, 10) == 20 and qu.mean_in_wait(2, 30) == 60
    gib = 2**30
    assert qu.mean_occupancy(2, gib, 10) / gib == 20
    assert qu.mean_occupancy(2, gib, 30) / gib == 60
    assert qu.occupancy_area_one(gib, 10) / gib == 10
    assert qu.occupancy_area(2, 1, 10, 40) == pytest.approx(705)
    assert qu.occupancy_at(15, 2, 1, 10) == 20          # plateau λτ after τ
    assert qu.occupancy_at(0, 2, 1, 10) == 1
    assert qu.occupancy_at(10, 2, 1, 10) == 20          # the t = 0 task leaves exactly at 10 s
    # ∫M dt by the step function agrees with the sum
    H, n = 40, 4000
    assert sum(qu.occupancy_at(H * i / n, 2, 1, 10) for i in range(n)) * H / n == pytest.approx(705, rel=1e-3)


def test_kv_pool_binds_before_the_sequence_cap():
    tokens = 24 * 2**30 / 147_456
    assert tokens == pytest.approx(174_762.7, abs=0.05)
    assert math.floor(tokens / qu.final_kv_tokens(0, 8192, 256)) == 20
    assert math.floor(tokens / qu.final_kv_tokens(0, 1024, 2048)) == 56
    assert 552_480 / MU_BOOK == pytest.approx(197.6, abs=0.05)
