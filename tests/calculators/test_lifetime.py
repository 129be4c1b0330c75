"""Lifetime cost, break-even, A100 equivalents and calendar time (3.6, 练习 3-10)."""

import math

import pytest
from app.calculators import lifetime as lt


def test_break_even_and_net_saving_exercise_3_10():
    dc0 = 100_000 * lt.HOUR  # GPU-seconds
    assert lt.break_even(dc0, 0.72) == pytest.approx(5e8)
    assert lt.net_saving(dc0, 0.72, 2e8) / lt.HOUR == pytest.approx(-60_000)
    assert lt.net_saving(dc0, 0.72, 1e9) / lt.HOUR == pytest.approx(100_000)
    assert math.isinf(lt.break_even(dc0, 0))


def test_lifetime_cost_lines_cross_at_q_star():
    c0_small, c0_large, c_small, c_large = 125.74 * 3600, 52.24 * 3600, 0.000323, 0.001615
    q = lt.break_even(c0_small - c0_large, c_large - c_small)
    assert lt.lifetime_cost(c0_small, q, c_small) == pytest.approx(lt.lifetime_cost(c0_large, q, c_large))
    assert lt.lifetime_cost_mix(10, 100, [0.5, 0.5], [1, 3]) == 210


def test_rates_and_gpu_time():
    rate = lt.sustained_rate(989.4e12, 0.40)
    assert rate / 1e12 == pytest.approx(395.76)
    assert lt.gpu_seconds(6 * 1e8 * 298.58e9, rate) / lt.HOUR == pytest.approx(125.74, rel=1e-4)


def test_a100_equivalent_and_calendar():
    assert lt.a100_equivalent(1, 989.4e12) == pytest.approx(3.1712, rel=1e-4)
    assert lt.a100_equivalent(17_920, 312e12) == 17_920
    assert lt.calendar_seconds(1_022_362 * lt.HOUR, 2048) / lt.DAY == pytest.approx(20.80, abs=0.005)
    assert lt.calendar_seconds(1_022_362 * lt.HOUR, 1024) / lt.DAY == pytest.approx(41.60, abs=0.005)
