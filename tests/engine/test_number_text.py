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
            if v and abs(float(text.replace(",", "")) - v) > 0.05 * abs(v):
                continue  # too few digits to state v: the faithful rule takes over (tested below)
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


def test_a_number_on_screen_states_its_value_within_5_percent():
    """Fixed decimals that would misstate a value (0.33 with none reads 0, 2.31 reads 2) give way to
    significant figures; nothing nonzero reads 0."""
    rnd = random.Random(5)
    values = [0.33, 2.31, 0.004, -0.04, 1.05, 0.5, 2.5] + [rnd.random() * 10 ** rnd.randint(-5, 3) for _ in range(3000)]
    for digits in (0, 1, 2):
        form = fmt.NumberFormat(digits=digits, unit="×")
        for v in values:
            shown = form.text(v).removesuffix("×")
            x = float(shown.replace(",", ""))
            assert x != 0 and abs(x - v) <= 0.05 * abs(v), (v, digits, shown)
    assert fmt.NumberFormat(digits=0, unit="×").text(0.33) == "0.33×"
    assert fmt.NumberFormat(digits=0, unit="×").text(2.31) == "2.3×"
    assert fmt.NumberFormat(digits=0, unit="×").text(148.2) == "148×"
