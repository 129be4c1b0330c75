"""Issue 40, point 3: answers typed as the site writes them are read by one parser (app/answers.py)
for the page, the check API and the live class."""

from __future__ import annotations

import math

import pytest
from app import answers as A
from app.words import speaking


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("4.02×10²²", 4.02e22),  # as the cards print it
        ("4.02 × 10²²", 4.02e22),
        ("4.02×10^22", 4.02e22),
        ("4.02x10^22", 4.02e22),
        ("4.02*10^(22)", 4.02e22),
        ("4.02e22", 4.02e22),
        ("4.02E+22", 4.02e22),
        ("1.5×10⁻³", 1.5e-3),
        ("７３．７", 73.7),  # full-width digits and point
        ("１，０２４", 1024.0),  # full-width comma as a thousands separator
        ("1,024", 1024.0),
        ("1,234,567.5", 1234567.5),
        ("≈73.7", 73.7),
        ("≈ 73.7", 73.7),
        ("约 73.7", 73.7),
        ("~73.7", 73.7),
        ("−0.5", -0.5),  # the typographic minus the site prints
        (".5", 0.5),
        ("  42  ", 42.0),
    ],
)
def test_numbers_as_the_site_writes_them(text, value):
    r = A.read(text, "GB", ["GB"])
    assert r.error is None and r.value == pytest.approx(value, rel=1e-12) and r.unit is None and r.note is None


@pytest.mark.parametrize(
    ("text", "unit", "allowed", "value", "got"),
    [
        ("73.7GB", "GB", ["GB"], 73.7, "GB"),
        ("73.7 GB", "GB", ["GB"], 73.7, "GB"),
        ("73.7 gb", "GB", ["GB"], 73.7, "GB"),
        ("20 ms", "ms", ["ms", "s"], 20.0, "ms"),
        ("0.02 s", "ms", ["ms", "s"], 0.02, "s"),  # an alternative unit the question offers
        ("2,144 token/s", "token/s", ["token/s"], 2144.0, "token/s"),
        ("703.5 MiB", "GB", ["GB", "GiB", "MiB"], 703.5, "MiB"),
    ],
)
def test_a_unit_the_question_accepts(text, unit, allowed, value, got):
    r = A.read(text, unit, allowed)
    assert r.error is None and r.value == pytest.approx(value) and r.unit == got and r.note is None


def test_a_sibling_unit_is_converted_and_said():
    r = A.read("68.6 GiB", "GB", ["GB"])
    assert r.error is None and r.unit == "GiB" and r.value == 68.6
    assert A.factor("GiB", "GB") == 2**30 / 1e9
    assert "68.6 GiB" in r.note and "73.6587 GB" in r.note and "换算" in r.note
    with speaking("en"):
        assert str(r.note.localized("en")).startswith("Converted 68.6 GiB to 73.6587 GB")
    assert A.read("70 MB", "GB", ["GB"]).unit == "MB"
    assert A.read("1 h", "天", ["天"]).unit == "h" and A.factor("h", "天") == pytest.approx(1 / 24)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("abc", "读不懂“abc”"),
        ("", "读不懂“”"),
        ("≈", "读不懂“≈”"),
        ("1.2.3", "读不懂单位“.3”"),
        ("73.7 parsecs", "读不懂单位“parsecs”:本题用 GB、GiB"),
        ("73.7 ms", "读不懂单位“ms”"),  # a time for a size: no conversion across quantities
        ("1e999", "太大"),
        ("9" * 60, "最多 50 个字符"),
        ("1,0", "读不懂单位“,0”"),
    ],
)
def test_what_cannot_be_read_is_named(text, said):
    r = A.read(text, "GB", ["GB", "GiB"])
    assert r.error is not None and said in r.error and math.isnan(r.value)


def test_the_message_is_in_the_edition():
    r = A.read("abc", "GB", ["GB"])
    assert (
        str(r.error.localized("en"))
        == "Could not read “abc”: enter a number, optionally with a unit (e.g. 4.02×10²², 73.7 GB)."
    )
