"""Link conversion and decimal/binary units (1.2.3, 练习 1-2)."""

from __future__ import annotations

import pytest
from app.calculators import units


def test_bits_to_bytes():
    assert units.bits_to_bytes_rate(400e9) == 50e9


def test_transfer_time():
    rate = units.bits_to_bytes_rate(400e9)
    assert units.transfer_time(1e9, rate) == pytest.approx(0.020)
    assert units.transfer_time(73.73e9, rate) == pytest.approx(1.4746)
    assert units.transfer_time(1e9, units.effective_rate(rate, 0.5), 100e-6) == pytest.approx(0.0401)


def test_gb_gib():
    assert units.gib_to_bytes(2) / units.GB == pytest.approx(2.147483648)
    assert round(units.bytes_to_gib(141_107_412_992), 2) == 131.42
    assert round(units.bytes_to_gb(141_107_412_992), 2) == 141.11


def test_link_times_by_hand():
    o = units.link_times(400, 1)  # 400 Gbit/s ÷ 8 = 50 GB/s; 1 GB ÷ 50 GB/s = 20 ms
    assert o == pytest.approx({"link_gbps": 50, "effective_gbps": 50, "transfer_ms": 20, "ideal_transfer_ms": 20})
    o = units.link_times(400, 1, startup_us=100, efficiency_pct=80)  # 40 GB/s; 0.1 ms + 25 ms
    assert o["effective_gbps"] == pytest.approx(40) and o["transfer_ms"] == pytest.approx(25.1)
    assert o["ideal_transfer_ms"] == pytest.approx(20)
    assert units.transfer_time(1e9, 50e9, 0.001) == pytest.approx(0.021)
