"""A number format's text: fmt.num's digits, then the format's trim / separators / sign. The trim is a
strip of trailing zeros after the point; it must read as the book's rule (the regex the engine used
before) for every kind of number fmt.num writes."""

from __future__ import annotations

import random
import re

from app import format as fmt


def _compact_reference(text: str) -> str:
    return re.sub(
        r"(\d)\.(\d*?)0+(?!\d)", lambda m: m.group(1) + ("." + m.group(2) if m.group(2) else ""), text, count=1
    )


def test_number_format_follows_num_and_the_trim_rule():
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
                        form = fmt.NumberFormat(digits=digits, sig=sig, trim=trim, sep=sep, signed=signed)
                        assert form.text(v, unit=False) == want, (
                            v,
                            digits,
                            sig,
                            trim,
                            sep,
                            signed,
                        )
