"""Derivations read step by step: a max/min shows its evaluated terms before the result, and where
the batch size B is a symbol, bytes are written 字节 (B means one thing in one derivation)."""

from __future__ import annotations

import re

import pytest
from app.cards import REGISTRY, explain

from tests.web.test_numbers_state_values import shown_value


def test_the_step_bound_shows_both_terms(client):
    html = client.get("/cards/eg-1-1/explain").text
    sec = re.search(r'<section class="deriv" data-key="t_step_ms">(.*?)</section>', html, re.S).group(1)
    subbed = sec.index("max(140 GFLOP ÷ 989.4 TFLOP/s, 70 GB ÷ 3.35 TB/s)")
    terms = sec.index("max(0.1415 ms, 20.9 ms)")
    assert subbed < terms < sec.rindex("20.90 ms")


CHOICES = [
    (cid, k) for cid, c in sorted(REGISTRY.items()) for k, d in explain(c, c.defaults())[1].items() if d.evaluated
]


def test_max_min_derivations_are_found():
    assert len(CHOICES) >= 20


@pytest.mark.parametrize(("cid", "key"), CHOICES)
def test_the_evaluated_terms_give_the_result(cid, key):
    card = REGISTRY[cid]
    view, ders = explain(card, card.defaults())
    d = ders[key]
    op, inner = re.fullmatch(r"(max|min)\((.*)\)", d.evaluated).groups()
    terms = [shown_value(t, False) for t in inner.split(", ")]
    pick = max(terms) if op == "max" else min(terms)
    decl = card.outputs[key]
    target = float(view.outputs[key]) / decl.scale / 10**decl.exp
    assert abs(pick - target) <= 0.005 * abs(target) + 1e-9, (d.evaluated, target)


def test_bytes_are_words_where_batch_is_a_symbol():
    view, ders = explain(REGISTRY["eg-1-1"], REGISTRY["eg-1-1"].defaults())
    with_batch = [d for d in ders.values() if any(i.sym == "B" for i in d.inputs)]
    texts = [s.substituted for d in with_batch for s in d.steps + d.inputs] + [d.substituted for d in with_batch]
    assert with_batch and any("1 字节" in t for t in texts)
    assert not any(re.search(r"\d B(?![\w/])", t) for t in texts), texts
