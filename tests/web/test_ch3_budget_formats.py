"""The number formats 3.6 prints (the output declaration's book formats) in tiles, template slots, tables and
derivations: scientific, scaled with a glued suffix, signed, prefixed, inputs as stated."""

from __future__ import annotations

import math

from app.cards import REGISTRY, explain, run, tiles
from app.chapters.shared.ch3_budget import big
from app.outputs import out, outputs
from app.trace import given, node_of, tracing

OUT = outputs(
    q=out("Q*", unit="项", sci=True, sig=3, none="无交点"),
    n=out("总参数", unit="B", scale=1e9, digits=0, approx=True),
    t=out("训练 token", unit="T", scale=1e12, trim=True),
    r=out("误差", digits=3, signed=True),
    x=out("倍数", unit="倍", digits=0, prefix="约 "),
    a=out("A", sig=6, stated=True),
)


def test_formats_with_and_without_unit():
    assert OUT["q"].fmt(5e8) == "5.00×10⁸ 项" and OUT["q"].fmt(5e8, flags="n") == "5.00×10⁸"
    assert OUT["q"].fmt(2.048e8, flags="n,s4") == "2.048×10⁸"
    assert OUT["q"].fmt(None) == OUT["q"].fmt(math.inf) == "无交点"
    assert OUT["n"].fmt(1.6e12) == "1,600B" and OUT["n"].fmt(13e9, approx=True) == "≈13B"
    assert OUT["t"].fmt(32e12) == "32T" and OUT["t"].fmt(10.5e12) == "10.5T"
    assert OUT["r"].fmt(0.0088) == "+0.009" and OUT["r"].fmt(-0.0354) == "-0.035"
    assert OUT["x"].fmt(225.0) == "约 225 倍"


def test_an_input_prints_as_stated_a_computed_value_at_its_precision():
    assert OUT["a"].fmt(given(120.715449, "A")) == "120.715449"  # a traced leaf: every digit
    assert OUT["a"].fmt(322.71634) == "322.716"  # computed: 6 significant figures


def test_tiles_print_the_declared_format_glued_units_inside():
    card = REGISTRY["lifetime-cost"]
    view = run(card, card.defaults())
    q = next(s for s in tiles(card, view, card.defaults()) if s.key == "q_star_tasks")
    assert (q.text, q.unit) == ("5.00×10⁸ 项", "")
    moe = REGISTRY["moe-flops"]
    shown = {s.key: (s.text, s.unit) for s in tiles(moe, run(moe, moe.defaults()), moe.defaults())}
    assert (
        shown["total_params"] == ("284B", "")
        and shown["active_params"] == ("≈13B", "")
        and shown["train_tokens"] == ("32T", "")
    )
    assert shown["total_flop"] == ("≈ 1.45438×10²⁴ FLOPs", "")


def test_derivation_results_use_the_same_format():
    card = REGISTRY["eg-3-5"]
    _, ders = explain(card, card.defaults())
    assert ders["resid_h1"].result == "+0.009" and ders["A"].input and ders["A"].result == "120.715449"


def test_big_counts_enter_as_the_book_writes_them():
    with tracing():
        n = big(2.81e9, "N_1", 9, "datablations")
        small = big(1.465e8, "N", None, "datablations")
    assert n == 2.81e9 and node_of(n).args[0].unit == "×10⁹" and node_of(n).args[0].value == 2.81
    assert node_of(small).args[0].unit == "×10⁸"
