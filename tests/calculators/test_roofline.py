"""Roofline lower bounds (例题 1-1): the step quantities, the B-curves of 图 1-11/1-12 and the
two-stage pipeline of 图 1-10, worked by hand."""

from __future__ import annotations

import math

import pytest
from app.calculators import roofline


def test_step_outputs_by_hand():
    # N = 70e9 at 1 B, B = 1, β = 3.35 TB/s, Π = 989.4 TFLOP/s
    o = roofline.step_outputs(70e9, 1, 1, 3.35e12, 989.4e12, 10)
    assert math.isclose(o["t_mem_ms"], 70e9 / 3.35e12 * 1e3)  # 20.90 ms
    assert math.isclose(o["t_compute_ms"], 140e9 / 989.4e12 * 1e3)  # 0.1415 ms
    assert round(o["b_star"]) == 148 and o["bound"] == "memory" and not o["meets_target"]


def test_batch_curves():
    grid = [1.0, 100.0, 200.0]
    c = roofline.batch_curves(grid, 20.0, 140e9, 989.4e12)  # 20 ms read bound, 140 GFLOP per token
    assert c["t_mem_ms"] == [20.0, 20.0, 20.0]
    assert math.isclose(c["t_compute_ms"][1], 100 * 140e9 / 989.4e12 * 1e3)  # 14.15 ms
    assert c["t_step_ms"][:2] == [20.0, 20.0] and math.isclose(c["t_step_ms"][2], 2 * c["t_compute_ms"][1])
    assert math.isclose(c["throughput_tok_s"][0], 1 / 0.020) and math.isclose(c["throughput_tok_s"][1], 100 / 0.020)


def test_pipeline_makespan_is_the_last_end_of_the_schedule():
    # 8 chunks of 2.6125 ms read and 0.0177 ms compute: 2.6125·8 + 0.0177
    assert math.isclose(roofline.pipeline_makespan(8, 2.6125, 0.0177), 8 * 2.6125 + 0.0177)
    # compute-bound: 1 + 3·4 + 4 = 17
    assert roofline.pipeline_makespan(4, 1.0, 4.0) == 17.0
    for n, a, b in [(1, 2.0, 3.0), (8, 2.6, 0.02), (5, 0.3, 0.7), (64, 1.0, 1.0)]:
        assert math.isclose(roofline.pipeline_makespan(n, a, b), roofline.two_stage_pipeline(n, a, b)[-1][3])


def test_chunk_outputs_figure_1_10():
    # 例题 1-1 at B = 1: 20.896 ms of reads, 0.1415 ms of compute, 8 chunks
    o = roofline.chunk_outputs(20.896, 0.1415, 8)
    assert o["chunk_read_ms"] == 20.896 / 8 and o["chunk_compute_ms"] == 0.1415 / 8
    assert o["compute_busy_pct"] == pytest.approx(100 * 0.1415 / 20.896)
    assert o["pipeline_makespan_ms"] == pytest.approx(20.896 + 0.1415 / 8) == o["schedule"][-1]["compute_end_ms"]
    assert len(o["schedule"]) == 8 and o["schedule"][0] == {
        "chunk": 1,
        "read_start_ms": 0,
        "read_end_ms": 20.896 / 8,
        "compute_start_ms": 20.896 / 8,
        "compute_end_ms": 20.896 / 8 + 0.1415 / 8,
    }
    assert roofline.chunk_outputs(1.0, 4.0, 4)["compute_busy_pct"] == 100
