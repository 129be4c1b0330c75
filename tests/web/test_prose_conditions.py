"""Conditional prose (``{{if card: …}}…{{end}}``, app/text/cond.py): the grammar admits comparisons of a
card's values and nothing else, and Markdown renders the case that holds with every case's HTML
beside it for the page script."""

from __future__ import annotations

import json
import re

import pytest
from app.text import markdown
from app.text.cond import ProseError, condition, conditionals


def values(**kw):
    return lambda name: kw[name]


# --------------------------------------------------------------------------- the grammar


@pytest.mark.parametrize(
    "src,env,holds",
    [
        ("ratio >= 2", {"ratio": 148}, True),
        ("ratio >= 2", {"ratio": 1.99}, False),
        ("2 < r < 3", {"r": 2.09}, True),
        ("2 < r < 3", {"r": 3.0}, False),
        ('gpu == "h100-sxm" and b == 1', {"gpu": "h100-sxm", "b": 1}, True),
        ('gpu == "h100-sxm" and b == 1', {"gpu": "a100-80gb-sxm", "b": 1}, False),
        ("not fits or n > 1", {"fits": True, "n": 1}, False),
        ("not fits or n > 1", {"fits": False, "n": 1}, True),
        ("x == None", {"x": None}, True),
        ("x > 0", {"x": None}, False),  # an order with a missing value is false, not an error
        ("x < -1", {"x": -2}, True),
        ("flag", {"flag": False}, False),
    ],
)
def test_a_condition_compares_named_values(src, env, holds):
    assert condition(src).holds(values(**env)) is holds


@pytest.mark.parametrize(
    "src",
    [
        "a * 2 > b",  # arithmetic belongs in the card's outputs
        "a / b >= 2",
        "f(a) > 1",
        "a.b > 1",
        "a[0] > 1",
        "__import__('os')",
        "(lambda: 1)()",
        "a if b else c",
        "a in b",
        "a = 1",
    ],
)
def test_anything_but_comparisons_is_refused(src):
    with pytest.raises(ProseError):
        condition(src)


def test_the_first_holding_case_is_read_and_else_catches_the_rest():
    text = "{{if c: r >= 2}}A{{elif r <= 0.5}}B{{else}}C{{end}}"
    (c,) = conditionals(text)
    assert (c.card, c.texts) == ("c", ("A", "B", "C"))
    assert [c.choose(values(r=r)) for r in (3, 0.1, 1)] == [0, 1, 2]
    (no_else,) = conditionals("{{if c: r >= 2}}A{{end}}")
    assert no_else.choose(values(r=1)) == -1  # reads as nothing


@pytest.mark.parametrize(
    "text",
    ["{{if c: a}}x{{if c: b}}y{{end}}{{end}}", "{{if c: a}}x\n\ny{{end}}", "{{if c: a}}x{{else}}y{{elif b}}z{{end}}"],
)
def test_malformed_blocks_are_refused(text):
    with pytest.raises(ProseError):
        conditionals(text)


def test_markdown_renders_the_chosen_case_and_ships_every_case():
    """Without a chooser the first case reads (the one written for the defaults); each case's HTML,
    maths and Markdown included, travels in the page's prose-if block."""
    out = str(markdown("前文{{if c: r >= 2}}相差 **$N$** 倍{{else}}两项相近{{end}}。"))
    (c,) = conditionals("{{if c: r >= 2}}相差 **$N$** 倍{{else}}两项相近{{end}}")
    assert f'<span class="if" data-card="c" data-if="{c.id}" data-case="0">相差 <strong><math' in out
    cases = json.loads(re.search(r'<script type="application/json" class="prose-if">(.*?)</script>', out).group(1))
    assert cases[c.id][1] == "两项相近" and "<strong><math" in cases[c.id][0]
    assert "<" not in re.search(r'class="prose-if">(.*?)</script>', out).group(1)  # escaped inside the script
