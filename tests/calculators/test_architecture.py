"""Section 1.4 formulas: minimum-frame packet rate, cores for packet processing, scale vs cost."""

from __future__ import annotations

import math

import pytest
from app.calculators import architecture as arch


def test_minimum_frame_occupies_84_bytes_of_wire_time():
    assert arch.wire_bytes() == 84  # 64 B frame + 8 B preamble/SFD + 12 B gap (1.4.2)
    assert arch.wire_bytes(1518) == 1538


def test_packet_rate_at_40_gbit_s_minimum_frames():
    lam = arch.packet_rate(40e9, 84)  # the seed's 40 Gbit/s Azure server, 84 B per frame
    assert lam == pytest.approx(59.5238e6, rel=1e-5)
    assert arch.per_packet_time(40e9, 84) == pytest.approx(16.8e-9, rel=1e-12)


def test_cores_needed_is_lambda_over_mu():
    lam = arch.packet_rate(40e9, 84)
    n = arch.cores_needed(lam, 10e6)  # μ_core = 10 Mpps is the page's 示意 value
    assert n == pytest.approx(5.952, rel=1e-3)
    assert arch.whole_cores(n) == 6
    assert arch.whole_cores(6.0) == 6
    assert arch.whole_cores(0.0) == 0
    assert arch.cores_needed(lam, 5e6) == pytest.approx(2 * n)


def test_bad_rates_rejected():
    with pytest.raises(ValueError):
        arch.packet_rate(0, 84)
    with pytest.raises(ValueError):
        arch.cores_needed(1e6, 0)


def test_scale_vs_cost_placeholder_break_even():
    m = arch.CostModel()  # 示意 constants C0 = 1, g = 1, d = 0.3
    s = arch.break_even_scale(m)
    assert s == pytest.approx(1 / 0.7) and round(s, 2) == 1.43
    assert arch.cost_general(s, m) == pytest.approx(arch.cost_dedicated(s, m))
    assert arch.cost_general(0.5, m) < arch.cost_dedicated(0.5, m)  # left of the crossing
    assert arch.cost_general(2.5, m) > arch.cost_dedicated(2.5, m)  # right of it
    assert arch.cost_dedicated(0, m) == 1.0  # the up-front cost
    assert math.isinf(arch.break_even_scale(arch.CostModel(1, 0.3, 0.3)))


def test_daily_demand_is_q_times_f1():
    assert arch.daily_demand(1e9, 2e12) == 2e21


def test_remote_access_layers():
    from app.chapters.ch1.s1_4 import path_layers

    conv = path_layers("conventional")
    assert conv == [
        "消息传递接口",
        "缓冲区重排",
        "网卡驱动",
        "协议栈",
        "线路",
        "协议栈",
        "网卡驱动",
        "缓冲区重排",
        "消息传递接口",
    ]
    assert path_layers("ub") == ["UB 直接访问", "线路", "UB 直接访问"]
