"""A declaration's number text: fmt.num's digits, then the declaration's trim / separators / sign.
The trim is a strip of trailing zeros after the point; it must read as the book's rule (the regex
the engine used before) for every kind of number fmt.num writes."""

from __future__ import annotations

import random
import re

from app import format as fmt
from app.outputs import _fixed_text, out


def _compact_reference(text: str) -> str:
    return re.sub(
        r"(\d)\.(\d*?)0+(?!\d)", lambda m: m.group(1) + ("." + m.group(2) if m.group(2) else ""), text, count=1
    )


def test_fixed_text_follows_num_and_the_trim_rule():
    rnd = random.Random(11)
    values = [0.0, -0.0, 1.0, 10.0, 100.5, 70.0, 0.5, -0.05, 1234567.0, 1e15, 2.5e-7]
    values += [rnd.choice([1, -1]) * rnd.random() * 10 ** rnd.randint(-6, 12) for _ in range(3000)]
    for v in values:
        for digits, sig in ((None, None), (0, None), (2, None), (4, None), (None, 3), (None, 9)):
            text = fmt.num(v, digits, sig)
            for trim in (False, True):
                for sep in (True, False):
                    for signed in (False, True):
                        want = _compact_reference(text) if trim else text
                        want = want if sep else want.replace(",", "")
                        want = "+" + want if signed and v >= 0 else want
                        assert _fixed_text(v, digits, sig, trim, sep, signed) == want, (
                            v,
                            digits,
                            sig,
                            trim,
                            sep,
                            signed,
                        )


def test_a_declaration_prints_the_same_through_fmt_and_number():
    """fmt (the per-declaration formatter) and number (the step-by-step path a traced value takes)."""
    decls = [
        out("x", digits=2),
        out("x", sig=3, trim=True),
        out("x", digits=1, signed=True, unit="%"),
        out("x", sig=4, sep=False, prefix="约 ", unit="倍"),
        out("x", scale=1e9, unit="B", sig=3),
    ]
    for d in decls:
        for v in (0.0, -0.0, 3.14159, 1234.5, -2.5e-3, 7.0e11, 42):
            for approx in (False, True):
                for unit in (False, True):
                    assert d.fmt(v, approx=approx, unit=unit) == d.number(v, approx=approx, unit=unit), (d, v)
