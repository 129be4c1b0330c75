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
