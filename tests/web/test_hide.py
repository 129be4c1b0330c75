"""``hide=<output>`` (a live question's asked value): the fragment carries no trace of that value —
not in its tile, the prose slots, captions, summaries, tables, the prose-values JSON or figure data."""

from __future__ import annotations

import json
import math
import re

import pytest
from app.cards import REGISTRY, run, tiles
from app.outputs import undeclared


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _cases():
    out = []
    for cid in sorted(REGISTRY):
        card = REGISTRY[cid]
        p = card.defaults()
        view = run(card, p)
        texts = {}
        for k, v in view.outputs.items():
            if _number(v):
                texts[k] = (card.outputs.get(k) or undeclared(k)).fmt(v, unit=False)
        shown = {s.key for s in tiles(card, view, p)}
        inputs = {f"{v:g}" for v in p.model_dump().values() if _number(v)}
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
            ):
                out.append((cid, k, t))
    return out


CASES = _cases()


def test_the_sweep_covers_most_cards():
    assert len({c for c, _, _ in CASES}) >= 60 and len(CASES) >= 200


@pytest.mark.parametrize(("cid", "key", "text"), CASES)
def test_a_hidden_output_leaves_no_trace(client, cid, key, text):
    plain = client.get(f"/cards/{cid}/fragment", params={"answers": "shown"}).text
    assert text in plain
    held = client.get(f"/cards/{cid}/fragment", params={"hide": key, "answers": "shown"})
    assert held.status_code == 200
    number = re.compile(rf"(?<![\d.,]){re.escape(text)}(?![\d]|[.,]\d)")
    assert not number.search(held.text), f"{cid}.{key} = {text} still in the fragment"
    assert f'data-key="{key}"' in held.text  # its tile is there, with a placeholder
    value, d = REGISTRY[cid].compute(REGISTRY[cid].defaults()).outputs[key], REGISTRY[cid].outputs.get(key)
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
