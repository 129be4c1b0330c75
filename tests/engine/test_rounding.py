"""Figure numbers go out rounded to 5 significant digits. Long lists are rounded with numpy; the
result must be exactly what formatting each value gives (same doubles, so the same JSON bytes)."""

from __future__ import annotations

import math
import random

from app.charts.theme import VECTOR_MIN, SharedRounding, _round_floats, r


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


def test_vectorised_rounding_gives_the_same_doubles_as_formatting():
    for xs in _cases():
        got, want = _round_floats(xs, 5), _one_by_one(xs)
        assert len(got) == len(want)
        for x, g, w in zip(xs, got, want):
            assert (g is None and w is None) or (g == w and math.copysign(1, g) == math.copysign(1, w)), (x, g, w)
        for sig in (3, 7):
            assert _round_floats(xs, sig) == _one_by_one(xs, sig)


def test_short_float_lists_round_as_formatting_each_value():
    """Below the vector size a list of plain floats is formatted in one pass; a list holding inf or
    nan falls back to the item loop (those become None). Same doubles, sign of zero included."""
    for xs in _cases():
        for i in range(0, len(xs), 37):
            chunk = xs[i : i + 37]
            got, want = r(chunk), _one_by_one(chunk)
            assert [(g, None if g is None else math.copysign(1, g)) for g in got] == [
                (w, None if w is None else math.copysign(1, w)) for w in want
            ], chunk
            for sig in (3, 7):
                assert r(chunk, sig) == _one_by_one(chunk, sig)


def test_r_takes_the_vector_path_only_for_long_float_lists():
    long = [i * 1.234567 for i in range(VECTOR_MIN)]
    assert r(long) == _one_by_one(long)
    mixed = long[:-1] + [None]  # not all floats: one by one, None kept
    assert r(mixed) == _one_by_one(long[:-1]) + [None]
    ints = list(range(VECTOR_MIN * 2))  # integers stay integers
    assert r(ints) == ints and all(type(v) is int for v in r(ints))


def test_shared_rounding_matches_r():
    rs = SharedRounding()
    xs = [1 / 3, 2 / 3, 1 / 3, None, 5, math.inf]
    assert rs(xs) == r(xs) == [0.33333, 0.66667, 0.33333, None, 5, None]


def test_shared_rounding_of_float_lists_matches_formatting_each_value():
    """Plain-float lists take SharedRounding's lookup path: the same doubles as formatting each value,
    repeats (within a list and across lists) included, non-finite values as None."""
    for xs in _cases():
        rs = SharedRounding()
        for i in range(0, len(xs), 50):
            chunk = xs[i : i + 50] + xs[i : i + 5]  # repeats within the list
            assert rs(chunk) == _one_by_one(chunk), chunk
        assert rs(xs[:40]) == _one_by_one(xs[:40])  # seen before: looked up
