"""Figure numbers go out rounded to 5 significant digits: exactly what formatting each value gives
(same doubles, sign of zero included, so the same JSON bytes); non-finite values become null, other
items stay as they are."""

from __future__ import annotations

import math
import random

import numpy as np
from app.charts.theme import r


def _one_by_one(xs, sig=5):
    return [float(format(v, f".{sig}g")) if v == v and abs(v) != math.inf else None for v in xs]


def _cases():
    rnd = random.Random(7)
    yield [rnd.gauss(0, 1) * 10.0 ** rnd.randint(-40, 40) for _ in range(4000)]  # every decade
    yield [i / 10 for i in range(3000)]  # decimal steps
    yield [i * 0.05 + 0.00005 for i in range(3000)]  # ties in the 5th digit
    yield [k + 0.5 for k in range(10000, 11000)] + [1.00005, 2.00015, 12345.5, 99999.5, 999995.0]
    yield [0.0, -0.0, 1e-300, 5e-324, 1e300, 1e23, 9.99995e22, 1e-22, math.nan, math.inf, -math.inf] * 10
    yield [rnd.random() * 100 for _ in range(500)]


def test_float_lists_round_as_formatting_each_value():
    for xs in _cases():
        got, want = r(xs), _one_by_one(xs)
        assert [(g, None if g is None else math.copysign(1, g)) for g in got] == [
            (w, None if w is None else math.copysign(1, w)) for w in want
        ]
        for sig in (3, 7):
            assert r(xs, sig) == _one_by_one(xs, sig)


def test_other_items_stay_and_nesting_is_rounded():
    assert r([1 / 3, None, 5, "a", [2 / 3, (1e-7 / 3,)]]) == [0.33333, None, 5, "a", [0.66667, [3.3333e-08]]]
    ints = list(range(200))
    assert r(ints) == ints and all(type(v) is int for v in r(ints))
    assert r(np.array([1 / 3, 2 / 3])) == [0.33333, 0.66667]
    assert r(math.inf) is None and r(7) == 7


def test_a_figure_rounds_its_traces_in_one_pass():
    """The trace builders leave numbers as given; ``figure`` rounds every trace's lists as ``r`` does."""
    from app.charts.theme import bar, figure, layout, line, points

    xs = [1 / 3, 2 / 3, 1e-7 / 3, 12345.5, 0.0]
    fig = figure(
        [
            line(xs, np.array(xs), "a", "read"),
            points([7], [math.nan], "b", "ink"),
            bar(["p", "q"], [1 / 7, 2], "c", "ink"),
        ],
        layout(),
    )
    a, b, c = fig["data"]
    assert a["x"] == a["y"] == _one_by_one(xs)
    assert b["x"] == [7] and b["y"] == [None]
    assert c["x"] == ["p", "q"] and c["y"] == [0.14286, 2]
