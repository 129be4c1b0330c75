"""Amdahl's law as 1.2.1's team example: 100 h, coding 20 % or 80 %, made 5× faster."""

from __future__ import annotations

import math

import pytest
from app.calculators import amdahl


def test_team_outputs_by_hand():
    o = amdahl.team_outputs(100, 20, 5)
    assert (o["part_before_h"], o["part_after_h"], o["rest_h"], o["new_total_h"]) == pytest.approx((20, 4, 80, 84))
    assert o["speedup"] == pytest.approx(100 / 84) and o["speedup_formula"] == pytest.approx(1 / (0.8 + 0.2 / 5))
    assert o["speedup_limit"] == pytest.approx(1.25)
    assert amdahl.team_outputs(100, 80, 5)["new_total_h"] == pytest.approx(36)
    assert math.isinf(amdahl.team_outputs(100, 100, 5)["speedup_limit"])
