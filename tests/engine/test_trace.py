"""Traced numbers and their derivations: the values never change, the formula/substitution/check
are written from the same arithmetic, checks evaluate safely, and tracing costs nothing when off."""

from __future__ import annotations

import math

import pytest
from app.derivation import derive
from app.trace import (
    MAX_DEPTH,
    TFloat,
    TInt,
    evaluate,
    given,
    is_tracing,
    leaf,
    name,
    node_of,
    plain,
    rule,
    tmax,
    tmin,
    tracing,
    tsum,
)


def _inputs():
    return (
        leaf(1, "b_W", "B", "滑块:每参数字节 b_W"),
        leaf(70, "N", "×10⁹", "滑块:参数量 N"),
        leaf(3.35, "β", "TB/s", "H100 SXM 预设"),
        leaf(989.4, "Π", "TFLOP/s", "H100 SXM 预设"),
    )


def test_off_by_default_and_plain_results():
    b_w, n, bw, _ = _inputs()
    assert not is_tracing()
    r = b_w * n * 1e9 / (bw * 1e12)
    assert type(r) is float and r == 1 * 70e9 / 3.35e12


def test_book_example_reads_as_the_book():
    with tracing():
        b_w, n, bw, pk = _inputs()
        b_star = b_w * (pk * 1e12) / (2 * (bw * 1e12))
        d = derive(b_star, "B^*", "≈ 148")
    assert d.formula == "B^* = b_W·Π/(2β)"
    assert d.substituted == "1 B × 989.4 TFLOP/s ÷ (2 × 3.35 TB/s)"
    assert math.isclose(evaluate(d.check), 1 * 989.4e12 / (2 * 3.35e12), rel_tol=1e-12)
    assert "1000000000000.0" in d.check  # unit conversions explicit in the check only
    assert [i.sym for i in d.inputs] == ["b_W", "Π", "β"] and d.inputs[1].result == "H100 SXM 预设"


def test_named_intermediates_become_steps():
    with tracing():
        b_w, n, bw, _ = _inputs()
        r_w = name(b_w * (n * 1e9), "R_W", "B")
        t_ms = r_w / (bw * 1e12) * 1e3
        d = derive(t_ms, "T_{mem}", "20.90 ms")
    assert d.formula == "T_mem = R_W/β" and d.substituted == "70 GB ÷ 3.35 TB/s"
    assert [(s.sym, s.formula, s.substituted, s.result) for s in d.steps] == [("R_W", "b_W·N", "1 B × 70×10⁹", "70 GB")]
    assert math.isclose(evaluate(d.check), 70e9 / 3.35e12 * 1e3, rel_tol=1e-12)


def test_inputs_say_where_they_come_from():
    with tracing():
        b = leaf(16, "B", "请求", "滑块:批大小 B")
        d = derive(b, "B", "16")
    assert d.input and d.source == "滑块:批大小 B"


def test_ints_stay_ints_and_usable():
    with tracing():
        k = leaf(5, "k", "", "滑块")
        j = k * 2 + 1
        assert isinstance(j, TInt) and j == 11 and list(range(j))[-1] == 10
        assert math.ceil(leaf(2.5, "x")) == 3 and isinstance(math.ceil(leaf(2.5, "x")), TInt)
        assert evaluate(derive(k // 2, "h", "2").check) == 2
        assert evaluate(derive(round(leaf(2.6, "x")), "r", "3").check) == 3


def test_max_min_sum_keep_their_shape():
    with tracing():
        a, b = leaf(2.0, "a"), leaf(3.0, "b")
        assert derive(tmax(a, b), "m", "3").formula == "m = max(a, b)"
        assert derive(tmin([a, b]), "m", "2").formula == "m = min(a, b)"
        assert tmax([a]) is a and tmin(a) is a
        s = tsum([leaf(float(i), f"x_{i}") for i in range(20)])
        d = derive(s, "S", "190")
    assert "…" in d.formula and evaluate(d.check) == 190.0


def test_deep_loops_come_out_untraced():
    with tracing():
        x = leaf(1.0, "x")
        for _ in range(MAX_DEPTH + 5):
            x = x * 1.0001 - 0.00001
        assert node_of(x) is None and isinstance(x, float)


def test_rule_runs_plain_and_explains_in_words():
    seen = []

    @rule("递推 Q ← max(0, Q + A − μΔt)", sym="Q", unit="步")
    def backlog(rate, mu):
        seen.append((type(rate), type(mu)))
        return max(0.0, (rate - mu) * 10)

    with tracing():
        q = backlog(leaf(7.0, "λ"), leaf(5.0, "μ"))
        d = derive(q * 2, "2Q", "40")
    assert seen == [(float, float)]
    assert d.check is not None and evaluate(d.check) == 40.0  # arithmetic after the rule is checkable
    r = derive(q, "Q", "20")
    assert r.check is None and "递推" in r.formula and "λ = 7" in r.substituted


@pytest.mark.parametrize(
    "bad",
    [
        "__import__('os')",
        "a + 1",
        "(1).real",
        "[1][0]",
        "2 ** 100000",
        "max(*[1])",
        "lambda: 1",
        "1 if 1 else 2",
        "exp(x=1)",
        "open('f')",
    ],
)
def test_evaluate_is_not_eval(bad):
    with pytest.raises((ValueError, SyntaxError)):
        evaluate(bad)


def test_evaluate_allows_the_documented_grammar():
    assert (
        evaluate(
            "max(1.5, 2) + min(3, 4) * abs(-2) - floor(2.7) + ceil(0.1) + sqrt(16) + log2(8) + log10(100) + exp(0) + log(1)"
        )
        == 17.0
    )
    assert evaluate("2 ** 10 / 4") == 256


def test_given_and_plain():
    mu = given(2795.66, "μ", "步/s", source="书中取值")
    assert isinstance(mu, TFloat) and plain(mu) == 2795.66 and type(plain(mu)) is float
    with tracing():
        assert derive(mu, "μ", "2,796").source == "书中取值"
