"""rl.py against 例题 3-4 and 练习 3-7 (ch 3.5)."""

import pytest
from app.calculators import rl
from app.calculators.model_config import shape_of
from app.data import model_config


@pytest.fixture(scope="module")
def s():
    return shape_of(model_config("qwen3-8b"))


def test_group_advantage():
    assert rl.group_advantages([1, 0, 1, 0]) == [0.5, -0.5, 0.5, -0.5]
    assert rl.group_advantages([1, 1, 1, 1]) == [0, 0, 0, 0]
    assert rl.group_advantages([0, 0, 0, 0]) == [0, 0, 0, 0]
    assert rl.group_advantages([1, 1, 1, 1], std_normalise=True) == [0, 0, 0, 0]
    assert rl.group_advantages([1, 0, 1, 0], std_normalise=True) == [1, -1, 1, -1]


def test_loss_weights():
    w = rl.loss_weights(100, 300)
    assert w.global_mean == 0.0025 and w.mb1_mean_of_means == 0.005
    assert w.mb2_mean_of_means == pytest.approx(1 / 600) and w.mb1_overweight == 2


def test_eg_3_4_per_answer_and_update(s):
    fg, fr = rl.generation_flops(s, 1024, 256), rl.reference_flops(s, 1024, 256)
    # closed form of f_g (catalog): 2·blocks·1279 + 2·LM·256 + 589,824·818,560
    assert fg == 2 * 6_945_767_424 * 1279 + 2 * 622_329_856 * 256 + 589_824 * 818_560
    assert fr == 2 * 7_568_097_280 * 1279 + 589_824 * 818_560
    assert (fg + fr) / 1e12 == pytest.approx(38.411, abs=5e-4)
    assert rl.update_flops(s, 1024, 256, 16) / 1e12 == pytest.approx(952.416, abs=5e-4)


def test_mixed_rows_are_what_reproduce_the_book(s):
    from app.calculators.training import teacher_forced_forward_flops as tf

    all_rows = 2 * tf(s, 1279) / 1e12
    lm256 = 2 * tf(s, 1279, lm_rows=256) / 1e12
    assert all_rows == pytest.approx(39.684, abs=5e-4)
    assert lm256 == pytest.approx(37.137, abs=5e-4)


@pytest.mark.parametrize("a,n,total", [(1, 16, 1566.99), (0.5, 32, 2181.56), (0.25, 64, 3410.70)])
def test_cycle_presets(s, a, n, total):
    assert rl.n_generate(16, a) == n
    c = rl.rl_cycle(s, 1024, 256, 16, n)
    assert c.total / 1e12 == pytest.approx(total, abs=5e-3)
    assert (c.seq_tokens, c.decode_steps, c.update_input_tokens, c.update_supervised_tokens) == (1279, 255, 20464, 4096)


def test_ex_3_7_line_teacher_sync(s):
    fa = rl.rl_cycle(s, 1024, 256, 16, 32).total / 1e12
    fb = rl.rl_cycle(s, 1024, 256, 16, 64).total / 1e12
    slope, icpt = rl.line_through(32, fa, 64, fb)
    assert slope == pytest.approx(38.411, abs=5e-4) and icpt == pytest.approx(952.416, abs=5e-4)
    assert icpt + 48 * slope == pytest.approx(2796.13, abs=5e-3)
    c = rl.rl_cycle(s, 1024, 256, 16, 48, teacher=True, replicas=4)
    assert c.teacher / 1e12 == pytest.approx(952.416, abs=5e-4)
    assert c.weight_sync_bytes / 1e9 == pytest.approx(65.53, abs=5e-3)
    assert rl.f_cycle(48, c.f_g, c.f_r, c.f_u) / 1e12 == pytest.approx(2796.13, abs=5e-3)


def test_generation_closed_form_equals_step_by_step(s):
    """f_g = prefill(P) + Σ decode(P + j + 1), written in closed form for a model without sliding layers."""
    from app.calculators.model_config import decode_flops, prefill_flops

    for p_, g in ((1024, 256), (64, 2), (100, 7)):
        steps = prefill_flops(s, p_) + sum(decode_flops(s, p_ + j + 1) for j in range(g - 1))
        assert rl.generation_flops(s, p_, g) == pytest.approx(steps, rel=1e-12)


def test_group_and_loss_outputs():
    o = rl.group_outputs([1, 0, 1, 0])
    assert o["mean_reward"] == 0.5 and [o[f"advantage_{i}"] for i in range(1, 5)] == [0.5, -0.5, 0.5, -0.5]
    assert o["all_zero"] is False and o["sum_abs_advantage"] == 2
    assert rl.group_outputs([1, 1, 1, 1])["all_zero"] is True
    w = rl.loss_outputs(100, 300)
    assert (w["weight_global"], w["weight_mb1_mean_of_means"], w["mb1_overweight"]) == (0.0025, 0.005, 2)


def test_cycle_outputs(s):
    o = rl.cycle_outputs(rl.rl_cycle(s, 1024, 256, 16, 16))
    assert o["fg_plus_fr_tflop"] == pytest.approx(38.411, abs=5e-4) and o["f_u_tflop"] == pytest.approx(
        952.416, abs=5e-4
    )
    assert (o["seq_tokens"], o["decode_steps_per_response"], o["n_generate"]) == (1279, 255, 16)
    assert o["f_cycle_tflop"] == pytest.approx(16 * 38.411 + 952.416, abs=0.01) and o["teacher_tflop"] == 0
    assert o["weight_sync_gb"] == pytest.approx(4 * 2 * 8_190_735_360 / 1e9)


def test_cycle_with_teacher_adds_its_forwards(s):
    c = rl.rl_cycle(s, 1024, 256, 16, 48, teacher=True)
    assert c.total / 1e12 == pytest.approx(3748.55, abs=5e-3)  # 练习 3-7: 2796.13 + 952.416
    assert rl.rl_cycle(s, 1024, 256, 16, 48).teacher == 0
