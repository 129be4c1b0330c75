"""A live question holds back the figures that draw its value by declaration (``Figure.draws``, with
``Figure.answers``), not by searching the figures at run time. This checks the declarations are complete:
every card at its defaults and with each control alone at its ends and choices (sampled in ``make test``,
all under ``--full``), for every number a class can be asked (``askables``), no figure carries that value
(as a number to the 5 digits a figure keeps, or as its text) without declaring it. The search is the one
``app/render/card.py`` ran on every live fragment before issue 36.3 (``drawing``); it lives here now."""

from __future__ import annotations

import math
from typing import Any

import pytest
from app.cards import REGISTRY, Card, Figure, View, run
from app.live.cardinfo import askables
from app.outputs import undeclared

from tests.sampling import sample_and_rest
from tests.web.test_figure_numbers import states

PARTS = ("data", "layout", "frames")


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _carries(obj: Any, values: list[float], texts: list[str]) -> bool:
    """Whether figure data holds one of ``values`` (to 5 significant digits) or one of ``texts``."""
    if isinstance(obj, dict):
        return any(_carries(v, values, texts) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return any(_carries(v, values, texts) for v in obj)
    if isinstance(obj, str):
        return any(t in obj for t in texts)
    if _number(obj) and math.isfinite(obj):
        return any(math.isclose(obj, v, rel_tol=5e-5) for v in values)
    return False


def carries(card: Card, view: View, key: str, figure: Figure) -> bool:
    """Whether ``figure`` draws output ``key``'s value: as the number, in its display units, or as text."""
    v = view.outputs[key]
    if not (_number(v) and math.isfinite(v) and v != 0):
        return False
    d = card.outputs.get(key) or undeclared(key)
    t = d.fmt(v, unit=False).removeprefix("≈ ")
    texts = sorted({t, t.replace(",", "")}, key=len, reverse=True)
    return _carries([figure.fig.get(p) for p in PARTS], [float(v), v / d.scale / 10**d.exp], texts)


def undeclared_draws(cid: str) -> list[tuple[str, dict, int, str]]:
    """(card, state, figure index, key) for each askable value a figure carries but does not declare."""
    card, found = REGISTRY[cid], []
    for params in states(card):
        view = run(card, params)
        for a in askables(card, params, view):
            for i, f in enumerate(view.figures):
                if a.key not in f.draws | f.answers and carries(card, view, a.key, f):
                    found.append((cid, params.model_dump(), i, a.key))
    return found


@pytest.mark.parametrize("group", sample_and_rest(REGISTRY))
def test_every_figure_declares_the_askable_values_it_draws(group):
    missing = [m for cid in group for m in undeclared_draws(cid)]
    assert not missing, missing[:10]


def test_the_search_finds_an_undeclared_value():
    """The check can fail: 例题 1-1's step figure without its declaration is reported."""
    card = REGISTRY["eg-1-1"]
    p = card.defaults()
    view = run(card, p)
    f = next(f for f in view.figures if "t_step_ms" in f.draws)
    assert carries(card, view, "t_step_ms", f)
    assert not carries(card, view, "t_step_ms", Figure({"data": [{"y": [1.0, 2.0]}], "layout": {}}))


def test_a_live_question_holds_exactly_the_declared_figures(client):
    """hide=<key> holds the figures that declare the key (and only those); the rest are drawn."""
    card = REGISTRY["eg-1-1"]
    view = run(card, card.defaults())
    held = [i for i, f in enumerate(view.figures) if "throughput_tok_s" in f.draws | f.answers]
    assert held and len(held) < len(view.figures)
    html = client.get("/cards/eg-1-1/fragment", params={"hide": "throughput_tok_s", "answers": "shown"}).text
    for i in range(len(view.figures)):
        drawn = f'class="figdata" data-plot="plot-eg-1-1-{i}"' in html
        assert drawn == (i not in held), i
