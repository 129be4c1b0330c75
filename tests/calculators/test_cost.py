"""Cost per successful task (3.2.2, 练习 3-3) against the book's numbers."""

import math

from app.calculators import cost


def test_exercise_3_3_success_costs():
    assert cost.success_cost(1, 0.5) == 2.0
    assert cost.success_cost(2, 0.8) == 2.5
    assert cost.new_cheaper(1, 0.5, 2, 0.8) is False


def test_breakeven_success_rates():
    assert math.isclose(cost.breakeven_success(0.5, 1, 2), 1.0)  # only a perfect new method ties
    assert math.isclose(cost.breakeven_success(0.5, 1, 1.5), 0.75)  # 练习 3-3 answer
    assert math.isclose(cost.success_cost(1.5, 0.8), 1.875)
    assert cost.breakeven_success(0, 1, 2) is None


def test_zero_success_has_no_success_cost():
    assert cost.success_cost(1, 0) is None
    assert cost.batch_success_cost(123.0, 0) is None
    assert cost.batch_success_cost(100, 50) == 2.0


def test_price_cut_paradox_is_1_25():
    assert math.isclose(cost.success_cost_ratio(0.1, 20, 0.5, 0.8), 1.25)


def test_success_outputs_figure_3_9():
    o = cost.success_outputs(1, 0.5, 2, 0.8)
    assert (o["total_cost_old"], o["total_cost_new"], o["successes_old"], o["successes_new"]) == (100, 200, 50, 80)
    assert (o["success_cost_old"], o["success_cost_new"], o["new_cheaper"]) == (2.0, 2.5, False)
    assert (
        math.isclose(o["success_ratio"], 1.6)
        and o["cost_ratio"] == 2
        and math.isclose(o["breakeven_success_new_pct"], 100)
    )
    none = cost.success_outputs(1, 0, 2, 0.8)
    assert (
        none["success_cost_old"] is None and none["success_ratio"] is None and none["breakeven_success_new_pct"] is None
    )


def test_price_cut_outputs():
    o = cost.price_cut_outputs(0.1, 20, 0.5, 0.8)
    assert math.isclose(o["attempt_cost_ratio"], 2) and math.isclose(o["success_ratio"], 1.6)
    assert math.isclose(o["success_cost_ratio"], 1.25)
