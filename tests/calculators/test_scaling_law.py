"""Scaling law, compute-optimal split, fit and FLOPs formulas against the book's numbers (3.6)."""

import math

import pytest
from app.calculators import scaling_law as sl
from app.data import c4_points
from app.derivation import derive
from app.trace import evaluate, leaf, node_of, tracing

R = sl.RECONSTRUCTED


def c4_runs() -> dict[str, sl.Run]:
    """The datablations runs as the cards read them (app.data passes the rows in)."""
    return sl.runs_from_rows(c4_points())


def test_reconstructed_law_reproduces_holdout_numbers():
    runs = c4_runs()
    h1, h2 = runs["2b855b55b"], runs["8b7178b178b"]
    assert (h1.params, h1.tokens, h1.loss) == (2.81e9, 55e9, 2.574117)
    assert (h2.params, h2.tokens, h2.loss) == (8.67e9, 178e9, 2.336741)
    p1, p2 = sl.loss(R, h1.params, h1.tokens), sl.loss(R, h2.params, h2.tokens)
    assert round(p1, 3) == 2.583 and round(p2, 3) == 2.363
    assert round(p1 - h1.loss, 3) == 0.009 and round(p2 - h2.loss, 3) == 0.026
    assert round(sl.rmse([p1 - h1.loss, p2 - h2.loss]), 4) == 0.0193


def test_tokens_for_target_loss_and_gpu_hours():
    d_small = sl.tokens_for_loss(R, 1e8, 2.9)
    d_large = sl.tokens_for_loss(R, 5e8, 2.9)
    assert round(d_small / 1e9, 1) == 298.6
    assert d_large / 1e9 == pytest.approx(24.81, rel=1e-4)
    rate = 989.4e12 * 0.40
    c0_s = sl.train_flops(1e8, d_small) / rate / 3600
    c0_l = sl.train_flops(5e8, d_large) / rate / 3600
    assert round(c0_s, 1) == 125.7 and round(c0_s - c0_l, 1) == 73.5
    dc = (sl.call_flops(5e8, 512, 128) - sl.call_flops(1e8, 512, 128)) / rate
    assert round(dc, 5) == 0.00129
    assert math.isinf(sl.tokens_for_loss(R, 1e8, 1.5))  # below the law's floor


def test_optimal_split_and_multipliers():
    assert sl.budget_multipliers(4, 0.3, 0.3) == pytest.approx((2, 2))
    assert sl.budget_multipliers(9, 0.27, 0.27) == pytest.approx((3, 3))
    n_mult, d_mult = sl.budget_multipliers(8, 0.2, 0.6)
    assert n_mult == pytest.approx(8**0.75) and n_mult * d_mult == pytest.approx(8)
    c = 1e21
    n = sl.optimal_n(c, R.A, R.B, R.alpha, R.beta)
    d = sl.optimal_d(c, R.A, R.B, R.alpha, R.beta)
    assert 6 * n * d == pytest.approx(c)
    # it is the minimum along 6ND = C
    f = lambda nn: sl.loss(R, nn, c / (6 * nn))  # noqa: E731
    assert f(n) < f(n * 1.05) and f(n) < f(n / 1.05)


def test_fit_recovers_catalog_example():
    runs = c4_runs()
    names = ["146m14b14b", "220m7b57b5", "421m32b32b", "619m22b22b", "1b191b91b", "1b566b66b"]
    sel = [runs[x] for x in names]
    res = sl.fit([r.params for r in sel], [r.tokens for r in sel], [r.loss for r in sel], tied=True)
    assert res.law.alpha == pytest.approx(0.306993, abs=2e-6)
    assert res.law.E == pytest.approx(1.78687, rel=1e-4)
    assert res.law.A == pytest.approx(322.716, rel=1e-4)
    assert res.law.B == pytest.approx(686.37, rel=1e-4)
    h = [runs["2b855b55b"], runs["8b7178b178b"]]
    pred = [sl.loss(res.law, r.params, r.tokens) for r in h]
    assert pred == pytest.approx([2.53870, 2.31530], abs=2e-5)
    assert sl.rmse([p - r.loss for p, r in zip(pred, h)]) == pytest.approx(0.029274, rel=1e-4)
    # untied has one more free parameter: it cannot fit the same points worse
    un = sl.fit([r.params for r in sel], [r.tokens for r in sel], [r.loss for r in sel], tied=False)
    assert un.fit_rmse <= res.fit_rmse + 1e-9
    assert un.law.A >= 0 and un.law.B >= 0


def test_fit_recovers_a_known_law_exactly():
    law = sl.Law(1.8, 300.0, 500.0, 0.33, 0.28)
    ns = [1e8, 3e8, 1e9, 2e8, 6e8, 1.5e9, 4e8]
    ds = [2e9, 1e10, 5e10, 3e10, 4e9, 2e10, 8e10]
    ls = [sl.loss(law, n, d) for n, d in zip(ns, ds)]
    un = sl.fit(ns, ds, ls, tied=False)
    assert un.fit_rmse < 1e-6
    assert un.law.alpha == pytest.approx(0.33, abs=1e-3) and un.law.beta == pytest.approx(0.28, abs=1e-3)


def test_moe_expert_flops():
    assert sl.moe_expert_flops_per_token(43, 4096, 2048, 6, 1) / 1e9 == pytest.approx(45.449478, rel=1e-8)
    assert sl.moe_expert_flops_per_token(43, 4096, 2048, 6, 1) * 32e12 == pytest.approx(1.4543833e24, rel=1e-7)
    assert sl.moe_expert_flops_per_token(61, 7168, 3072, 6, 1) / 1e9 == pytest.approx(169.246458, rel=1e-8)
    assert sl.moe_expert_flops_per_token(61, 7168, 3072, 6, 1) * 33e12 == pytest.approx(5.5851331e24, rel=1e-7)


def test_training_and_call_flops():
    assert sl.train_flops(8e9, 36e12) == pytest.approx(1.728e24)
    assert sl.call_flops(1e8, 512, 128) == 2 * 1e8 * 639


def test_runs_from_rows_parses_the_csv_columns():
    rows = [
        {
            "run": "x",
            "params": "2.81e9",
            "tokens": "55000000000",
            "unique_tokens": "5.5e10",
            "epochs": "1",
            "loss": "2.574117",
            "seed": "",
        }
    ]
    r = sl.runs_from_rows(rows)["x"]
    assert (r.params, r.tokens, r.unique_tokens, r.epochs, r.loss, r.seed) == (2.81e9, 55e9, 55e9, 1.0, 2.574117, "")
    assert len(c4_runs()) == 296 and all(not k.startswith("#") for k in c4_runs())


def test_rmse_is_root_mean_square_and_traceable():
    assert sl.rmse([3.0, 4.0]) == pytest.approx(math.sqrt(12.5))
    assert math.isnan(sl.rmse([]))
    with tracing():
        r = sl.rmse([leaf(0.0088, "r_1"), leaf(0.02585, "r_2")])
    assert r == pytest.approx(0.0193088, abs=1e-7)  # √((0.0088² + 0.02585²)/2) by hand
    assert evaluate(derive(r, "RMSE", "").check) == pytest.approx(r, rel=1e-12)


def test_fit_coefficients_are_rule_values_and_its_rmse_is_arithmetic():
    runs = c4_runs()
    sel = [runs[x] for x in ["146m14b14b", "220m7b57b5", "421m32b32b", "619m22b22b", "1b191b91b", "1b566b66b"]]
    with tracing():
        res = sl.fit(
            [leaf(r.params, "N") for r in sel], [leaf(r.tokens, "D") for r in sel], [leaf(r.loss, "L") for r in sel]
        )
    for coef, sym in zip((res.law.E, res.law.A, res.law.B, res.law.alpha, res.law.beta), sl.LAW_SYMBOLS):
        node = node_of(coef)
        assert node.kind == "rule" and node.sym == sym and node.text == sl.FIT_RULE
    assert node_of(res.fit_rmse).kind == "op"  # √(Σ r²/n) over the rule values and the inputs
    plain = sl.fit([r.params for r in sel], [r.tokens for r in sel], [r.loss for r in sel])
    assert float(res.fit_rmse) == pytest.approx(plain.fit_rmse, rel=1e-12)
