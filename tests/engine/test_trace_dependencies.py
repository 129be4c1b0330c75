"""A traced value that loses its formula fails here instead of silently. Arithmetic can drop a trace
without an error (``0.5 * n`` with a traced integer ``n`` is a plain float; so is ``float(x)`` or a
``math`` function of a traced value): the derivation then shows a bare number where the book's symbol
belongs. So for every card and every free slider: when moving the slider changes an output, the
output's derivation must name that slider at the defaults or at the moved state. A slider that only
*selects* what is shown (a round, an animation frame) is listed in SELECTORS with its reason."""

from __future__ import annotations

import math

import pytest
from app.cards import REGISTRY, Card, Params, View, controls_of, explain, run, slider
from app.trace import Node, node_of

from tests.web.test_derivations import _at

SELECTORS = {
    ("prefix-cache-4round", "round_index"): "picks which of the four rounds the numbers describe",
    ("fig-1-3", "frame"): "picks the animation frame whose numbers are shown",
}


def _leaves(n, acc: set[str]) -> set[str]:
    if isinstance(n, Node):
        if n.kind == "leaf":
            acc.add(n.source)
        for a in n.args:
            _leaves(a, acc)
    return acc


def _numeric(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _named(card, params) -> dict[str, set[str]]:
    view, _ = explain(card, params)
    return {k: _leaves(node_of(v), set()) for k, v in view.outputs.items() if _numeric(v)}


def _moved(card, spec):
    for frac in (0.3, 0.7):
        try:
            q = card.parse({spec.name: _at(spec, frac)})
        except ValueError:
            continue
        if getattr(q, spec.name) != getattr(card.defaults(), spec.name):
            return q
    return None


CASES = [
    (cid, s.name)
    for cid in sorted(REGISTRY)
    for s in controls_of(REGISTRY[cid].params)
    if s.control == "slider" and not s.fixed and not s.optional and (cid, s.name) not in SELECTORS
]


def test_the_sweep_covers_every_card_with_a_slider():
    assert len({c for c, _ in CASES}) >= 55 and len(CASES) >= 180


def lost_outputs(card, slider: str) -> list[str] | None:
    """The outputs that change with ``slider`` while their derivations never name it (None: the card
    accepts no other value of it on its own)."""
    spec = next(s for s in controls_of(card.params) if s.name == slider)
    moved = _moved(card, spec)
    if moved is None:
        return None
    p = card.defaults()
    before, after = run(card, p).outputs, run(card, moved).outputs
    changed = [
        k
        for k, v in before.items()
        if _numeric(v) and _numeric(after.get(k)) and not math.isclose(v, after[k], rel_tol=1e-9, abs_tol=1e-15)
    ]
    named_before, named_after = _named(card, p), _named(card, moved)
    return [
        k
        for k in changed
        if not any(src.startswith(spec.source) for src in named_before[k] | named_after.get(k, set()))
    ]


@pytest.mark.parametrize(("cid", "slider"), CASES)
def test_an_output_that_depends_on_a_slider_names_it(cid, slider):
    lost = lost_outputs(REGISTRY[cid], slider)
    if lost is None:
        pytest.skip("no other value the card accepts on its own")
    assert not lost, (
        f"{cid}: {lost} change with {slider} but their derivations never name it: a trace was lost "
        "(float()/int() of a traced value, a float constant times a traced int — write n * 0.5 —, a math "
        "function instead of tlog/tsqrt, or a @rule/relabel without the input)"
    )


class _N(Params):
    n: int = slider(4, ge=1, le=64, step=1, label="个数 n")


def _card(compute) -> Card:
    return Card(id="t", title="t", label="", section="1.1", kind="calculator", params=_N, compute=compute)


def test_the_check_catches_a_lost_trace():
    """``0.5 * n`` loses n's trace (float.__mul__ takes the int subclass); ``n * 0.5`` keeps it."""
    lost = _card(lambda p: View({"half": 0.5 * p.n}))
    kept = _card(lambda p: View({"half": p.n * 0.5}))
    rounded = _card(lambda p: View({"half": float(p.n) / 2}))
    assert lost_outputs(lost, "n") == ["half"]
    assert lost_outputs(rounded, "n") == ["half"]
    assert lost_outputs(kept, "n") == []
