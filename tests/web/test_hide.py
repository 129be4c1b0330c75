"""``hide=<output>`` (a live question's asked value): the fragment carries no trace of that value —
not in its tile, the prose slots, captions, summaries, notes, diagrams, tables, the prose-values JSON or
figure data — at the defaults and with the sliders moved. Held by declaration: the fragment is not
searched (app/render/card.py has no scan), so a text that went back to typed digits fails here."""

from __future__ import annotations

import json
import math
import re

import pytest
from app.cards import REGISTRY, run, tiles
from app.outputs import undeclared
from app.state import parse_query

from tests.web.test_derivations import moved_states


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _cases(moved: bool = False):
    """(card, output, its text) for each tile whose text is telling (3 digits or more, not a parameter's
    value, not part of another output's text): at the defaults, or ``moved`` (every slider at 70 % of
    its range, :func:`~tests.web.test_derivations.moved_states`), each with that state's query."""
    out = []
    for cid in sorted(REGISTRY):
        card = REGISTRY[cid]
        query = moved_states(cid)[1] if moved else {}
        if moved and not query:
            continue
        p = parse_query(card, list(query.items()))
        view = run(card, p)
        texts = {}
        for k, v in view.outputs.items():
            if _number(v):
                texts[k] = (card.outputs.get(k) or undeclared(k)).fmt(v, unit=False)
        shown = {s.key for s in tiles(card, view, p)}
        inputs = {f"{v:g}" for v in p.model_dump().values() if _number(v)}
        styling = json.dumps([f.fig.get("layout") for f in view.figures]) if moved else ""
        for k in sorted(shown & set(texts)):
            t = texts[k]
            digits = re.sub(r"\D", "", t)
            others = [x for j, x in texts.items() if j != k]
            plain = t.replace(",", "")
            if (
                len(digits) >= 3
                and digits.strip("0")
                and plain not in inputs
                and not any(t in x or x in t for x in others)
                and not (moved and _coincidence(view.outputs[k], t, styling))
            ):
                out.append((cid, k, t, query) if moved else (cid, k, t))
    return out


def _coincidence(value, text: str, styling: str) -> bool:
    """A value no reader would take for this output's once the sliders moved: a small whole number (a
    ratio of 1.00) or a styling constant of a figure's layout (a legend at y = 1.02)."""
    return (value == round(value) and abs(value) < 100) or text in styling


CASES = _cases()
MOVED = _cases(moved=True)


def test_the_sweep_covers_most_cards():
    assert len({c for c, _, _ in CASES}) >= 60 and len(CASES) >= 200


@pytest.mark.parametrize(("cid", "key", "text"), CASES)
def test_a_hidden_output_leaves_no_trace(client, cid, key, text):
    _no_trace(client, cid, key, text, {})


@pytest.mark.parametrize(("cid", "key", "text"), CASES)
def test_a_hidden_outputs_derivations_leave_no_trace(client, cid, key, text):
    """The derivations a held tile's neighbours expand into (``/explain`` with the same flags): no other
    output's working prints the value (a max's term, an input equal to it before a unit conversion, a
    fixed control's label)."""
    _no_trace_in_derivations(client, cid, key, text, {})


@pytest.mark.parametrize(("cid", "key", "text", "query"), MOVED, ids=[f"{c}-{k}" for c, k, _, _ in MOVED])
def test_a_hidden_outputs_derivations_leave_no_trace_once_the_sliders_moved(client, cid, key, text, query):
    _no_trace_in_derivations(client, cid, key, text, query)


def _no_trace_in_derivations(client, cid, key, text, query):
    held = client.get(f"/cards/{cid}/explain", params={**query, "hide": key, "answers": "shown"})
    assert held.status_code == 200
    number = re.compile(rf"(?<![\d.,]){re.escape(text)}(?![\d]|[.,]\d)")
    assert not number.search(held.text), f"{cid}.{key} = {text} still in the derivations"


def test_the_moved_sweep_covers_most_cards():
    assert len({c for c, _, _, _ in MOVED}) >= 45 and len(MOVED) >= 180  # 49 cards, 197 outputs


@pytest.mark.parametrize(("cid", "key", "text", "query"), MOVED, ids=[f"{c}-{k}" for c, k, _, _ in MOVED])
def test_a_hidden_output_leaves_no_trace_once_the_sliders_moved(client, cid, key, text, query):
    """The same with every slider moved: a number held by structure follows the state (a note typed with
    the book's digits, a diagram label or a table cell formatted outside a slot would stay)."""
    _no_trace(client, cid, key, text, query)


def _no_trace(client, cid, key, text, query):
    plain = client.get(f"/cards/{cid}/fragment", params={**query, "answers": "shown"}).text
    assert text in plain
    held = client.get(f"/cards/{cid}/fragment", params={**query, "hide": key, "answers": "shown"})
    assert held.status_code == 200
    number = re.compile(rf"(?<![\d.,]){re.escape(text)}(?![\d]|[.,]\d)")
    assert not number.search(held.text), f"{cid}.{key} = {text} still in the fragment"
    assert f'data-key="{key}"' in held.text  # its tile is there, with a placeholder
    card = REGISTRY[cid]
    value, d = run(card, parse_query(card, list(query.items()))).outputs[key], card.outputs.get(key)
    shown = [value] + ([value / d.scale / 10**d.exp] if d else [])
    for data in re.findall(r'<script type="application/json" class="figdata"[^>]*>(.*?)</script>', held.text, re.S):
        assert not [x for x in _numbers(json.loads(data)) if any(math.isclose(x, v, rel_tol=5e-5) for v in shown)]


def _numbers(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _numbers(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _numbers(v)
    elif _number(obj):
        yield obj
