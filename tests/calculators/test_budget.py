"""Section 3.6's per-card formulas (app/calculators/budget.py) against arithmetic worked by hand, and
the book's scientific notation (app/format.sci) that their cards print."""

import math

import pytest
from app.calculators import budget as bd
from app.calculators import scaling_law as sl
from app.derivation import derive
from app.format import sci, superscript
from app.trace import evaluate, leaf, node_of, tracing

R = sl.RECONSTRUCTED


def test_budget_split_alpha_equals_beta():
    o = bd.budget_outputs(4, 0.3, 0.3, 1e21, R.A, R.B)
    assert o["n_mult"] == pytest.approx(2) and o["d_mult"] == pytest.approx(2)  # 4^(1/2)
    assert o["n_exponent"] == o["d_exponent"] == pytest.approx(0.5)
    # C = 6·N·D at both budgets, and N grows by the multiplier
    assert 6 * o["n_opt_params"] * o["d_opt_tokens"] == pytest.approx(1e21)
    assert 6 * o["n_opt_params_after"] * o["d_opt_tokens_after"] == pytest.approx(4e21)
    assert o["n_opt_params_after"] / o["n_opt_params"] == pytest.approx(2)
    # N_opt = (αA/βB)^{1/(α+β)}·(C/6)^{β/(α+β)} with α = β = 0.3: (A/B)^{1/0.6}·(C/6)^{1/2}
    assert o["n_opt_params"] == pytest.approx((R.A / R.B) ** (1 / 0.6) * (1e21 / 6) ** 0.5)


def test_budget_split_unequal_exponents():
    o = bd.budget_outputs(8, 0.2, 0.6, 1e21, R.A, R.B)
    assert o["n_exponent"] == pytest.approx(0.75) and o["d_exponent"] == pytest.approx(0.25)
    assert o["n_mult"] == pytest.approx(8**0.75) and o["n_mult"] * o["d_mult"] == pytest.approx(8)


def _run(n, d, loss):
    return sl.Run("x", n, d, d, 1, loss, "")


def test_holdout_residuals_and_rmse():
    law = sl.Law(2.0, 0.0, 0.0, 0.3, 0.3)  # predicts 2.0 everywhere
    o = bd.holdout_outputs(law, [_run(1e9, 1e10, 1.97), _run(2e9, 2e10, 2.04)])
    assert (o["pred_h1"], o["pred_h2"]) == (2.0, 2.0)
    assert o["resid_h1"] == pytest.approx(0.03) and o["resid_h2"] == pytest.approx(-0.04)
    assert o["holdout_rmse"] == pytest.approx(math.sqrt((0.03**2 + 0.04**2) / 2))  # = 0.035355…
    assert (o["E"], o["alpha"]) == (2.0, 0.3)


def test_intercept_and_slope_fig_3_28():
    o = bd.intercept_outputs(R, 989.4e12, 40, 1e8, 5e8, 2.9, 512, 128)
    assert o["sustained_tflops"] == pytest.approx(395.76)  # 989.4 × 0.40
    assert o["call_gpu_s_small"] == pytest.approx(2 * 1e8 * 639 / 395.76e12)
    assert o["saving_gpu_s_per_call"] == pytest.approx(2 * 4e8 * 639 / 395.76e12)
    assert round(o["d_small_btokens"], 1) == 298.6 and round(o["train_gpu_h_small"], 1) == 125.7
    assert round(o["delta_train_gpu_h"], 1) == 73.5
    assert o["q_star_calls"] == pytest.approx(o["delta_train_gpu_h"] * 3600 / o["saving_gpu_s_per_call"])
    # Q* depends on FLOPs only: halving the MFU leaves it where it was
    assert bd.intercept_outputs(R, 989.4e12, 20, 1e8, 5e8, 2.9, 512, 128)["q_star_calls"] == pytest.approx(
        o["q_star_calls"]
    )


def test_intercept_unreachable_loss_and_no_crossing():
    o = bd.intercept_outputs(R, 989.4e12, 40, 1e8, 5e8, 2.5, 512, 128)  # 0.1B never reaches 2.5
    assert o["d_small_btokens"] is None and o["train_gpu_h_small"] is None and o["q_star_calls"] is None
    swapped = bd.intercept_outputs(R, 989.4e12, 40, 5e8, 1e8, 2.9, 512, 128)
    assert swapped["delta_train_gpu_h"] < 0 and swapped["q_star_calls"] is None


def test_lifetime_break_even_exercise_3_10():
    o = bd.lifetime_outputs(100_000, 0.72, 2e8)
    assert o["q_star_tasks"] == pytest.approx(5e8)  # 100,000 × 3600 / 0.72
    assert o["serving_saved_gpu_h"] == pytest.approx(40_000)  # 2×10⁸ × 0.72 / 3600
    assert o["net_saving_gpu_h"] == pytest.approx(-60_000) and o["cost_gap_gpu_h"] == pytest.approx(60_000)
    assert o["choose_small"] is False
    o = bd.lifetime_outputs(100_000, 0.72, 1e9)
    assert o["net_saving_gpu_h"] == pytest.approx(100_000) and o["choose_small"] is True


def test_tokens_per_parameter_table():
    q = {"mmlu_llama3_8b": 66.6, "mmlu_llama2_70b": 69.7, "triviaqa_llama3_8b": 78.5, "triviaqa_llama2_70b": 87.5}
    o = bd.llama_qwen_outputs([(6.7e9, 1e12), (8e9, 36e12)], q, 20, 8e9)
    assert o["row1_d_over_n"] == pytest.approx(149.25, abs=0.01) and o["row2_d_over_n"] == pytest.approx(4500)
    assert o["row1_six_nd_flop"] == pytest.approx(4.02e22) and o["row2_six_nd_flop"] == pytest.approx(1.728e24)
    assert o["row2_x_chinchilla"] == pytest.approx(225)
    assert o["chinchilla_8b_btokens"] == pytest.approx(160)
    assert o["mmlu_gap_pts"] == pytest.approx(3.1) and o["triviaqa_gap_pts"] == pytest.approx(9.0)
    assert o["mmlu_llama3_8b"] == 66.6


def test_moe_expert_flops_and_share():
    o = bd.moe_outputs(43, 4096, 2048, 6, 1, 32e12, 284e9, 13e9)
    assert o["gflop_per_token"] == pytest.approx(18 * 43 * 4096 * 2048 * 7 / 1e9)  # 45.449478
    assert o["total_flop"] == pytest.approx(1.4543833e24, rel=1e-7)
    assert o["active_frac_pct"] == pytest.approx(100 * 13 / 284)
    assert (o["total_params"], o["active_params"], o["train_tokens"]) == (284e9, 13e9, 32e12)


def test_data_vs_experts_exercise_3_9():
    o = bd.data_vs_experts(8e9, 36e12, 4, 2, (43, 4096, 2048, 6, 1))
    assert o == {
        "train_compute_mult": pytest.approx(4),
        "weight_capacity_mult": 1,
        "expert_param_mult": 2,
        "expert_train_flop_mult": 1,
    }


def test_a100_equivalents_and_calendar():
    o = bd.a100_outputs(1000, 989.4, 312, 17_920, 1_800)
    assert o["a100_equiv_ratio"] == pytest.approx(3.1712, rel=1e-4) and o["a100_equiv_gpu_h"] == pytest.approx(
        3171.15, rel=1e-5
    )
    assert o["qwen3_rl_over_opd"] == pytest.approx(9.9556, rel=1e-4)
    c = bd.calendar_outputs(1_022_362, 2048)
    assert c["wall_h"] == pytest.approx(499.2, abs=0.05) and c["wall_days"] == pytest.approx(20.80, abs=0.005)
    assert c["wall_weeks"] == pytest.approx(c["wall_days"] / 7)
    assert bd.calendar_outputs(1_022_362, 1024)["wall_days"] == pytest.approx(41.60, abs=0.005)


def test_traced_outputs_check_to_their_values():
    """With traced inputs every budget formula writes out a check that evaluates to the value."""
    with tracing():
        o = bd.calendar_outputs(leaf(1_022_362, "H", "GPU·h"), leaf(2048, "n"))
        life = bd.lifetime_outputs(leaf(100_000, "ΔC_0"), leaf(0.72, "Δc"), leaf(2e8, "Q"))
    for v in (o["wall_h"], o["wall_days"], life["q_star_tasks"], life["net_saving_gpu_h"], life["cost_gap_gpu_h"]):
        d = derive(v, "x", "")
        assert node_of(v) is not None and evaluate(d.check) == pytest.approx(v, rel=1e-9)
    days = derive(o["wall_days"], "T", "")
    assert days.formula == "T = T_wall/24" and (days.steps[0].sym, days.steps[0].formula) == ("T_wall", "H/n")


def test_sci_is_the_books_notation():
    assert sci(1.45438e24, 6) == "1.45438×10²⁴"
    assert sci(1.503e9) == "1.503×10⁹" and sci(2e8, 3) == "2.00×10⁸"
    assert sci(9.9996e8, 3) == "1.00×10⁹"  # rounding carries into the exponent
    assert sci(-0.00129, 3) == "-1.29×10⁻³" and sci(0) == "0"
    assert sci(None) == sci(math.inf) == sci(True) == "—"
    assert superscript(-12) == "⁻¹²"
