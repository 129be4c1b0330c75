"""Every displayed number states its value: no tile, derivation result or prose-quoted value is more
than 5 % from the value it shows, and nothing nonzero reads 0 — over every card at its defaults and two
other states (answers shown: practice first holds some back)."""

from __future__ import annotations

import json
import re

import pytest
from app.cards import REGISTRY, run
from app.outputs import undeclared
from app.state import parse_query

from tests.web.test_derivations import moved_states

_SUP = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
NUMBER = re.compile(r"([+-]?\d[\d,]*(?:\.\d+)?)(?:×10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))?")


def shown_value(text: str, sci: bool) -> float | None:
    """The number a text states (the first one in it: ``≈ 20.90``, ``+0.009``, ``284B``; with ``sci``
    ``1.454×10²⁴``, else a ×10ⁿ is the unit's)."""
    m = NUMBER.search(text.replace("−", "-"))
    if m is None:
        return None
    x = float(m.group(1).replace(",", ""))
    return x * 10 ** int(m.group(2).translate(_SUP)) if m.group(2) and sci else x


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) != float("inf")


def misstated(card, key, value, text) -> str | None:
    d = card.outputs.get(key) or undeclared(key)
    if d.show is not None or d.stated:
        return None  # printed in full by a hook / every digit it was given
    target = value / d.scale / 10**d.exp
    x = shown_value(text, d.sci)
    if x is None:
        return None
    if target != 0 and x == 0:
        return f"{key}: {value} shown as {text!r} (nonzero as 0)"
    if abs(x - target) > 0.05 * abs(target) + 1e-12:
        return f"{key}: {value} shown as {text!r} ({x} vs {target})"
    return None


CASES = [(cid, i) for cid in sorted(REGISTRY) for i in range(3)]


@pytest.mark.parametrize(("cid", "which"), CASES, ids=[f"{c}-{i}" for c, i in CASES])
def test_displayed_numbers_state_their_values(client, cid, which):
    card = REGISTRY[cid]
    query = {} if which == 0 else moved_states(cid)[which - 1]
    view = run(card, parse_query(card, list(query.items())))
    html = client.get(f"/cards/{cid}/fragment", params={**query, "answers": "shown", "prose": "1"}).text
    bad = []
    for key, text in re.findall(
        r'<div class="stat[^"]*" data-key="([^"]+)">\s*<dt>.*?</dt>\s*<dd>(?:<button[^>]*>|<span class="v">)([^<]*)<',
        html,
        re.S,
    ):
        if _number(view.outputs.get(key)):
            bad.append(misstated(card, key, view.outputs[key], text))
    live = re.search(r'<script type="application/json" class="livevals"[^>]*>(.*?)</script>', html, re.S)
    for k, text in (json.loads(live.group(1)) if live else {}).items():
        key = k.split("|")[0]
        if _number(view.outputs.get(key)):
            bad.append(misstated(card, key, view.outputs[key], text))
    api = client.get(f"/api/cards/{cid}", params=query).json()
    for key, d in api["derivations"].items():
        if not d.get("input") and d.get("result") and _number(api["outputs"].get(key)):
            bad.append(misstated(card, key, api["outputs"][key], d["result"]))
    bad = [b for b in bad if b]
    assert not bad, bad


@pytest.mark.parametrize(("batch", "want"), [(449, "≈ 0.33"), (64, "≈ 2.3"), (1, "≈ 148")])
def test_the_read_to_compute_tile_states_its_ratio(client, batch, want):
    """1.3's 读取 ÷ 计算 tile: 0.33 read ≈ 0× and 2.31 read ≈ 2× before."""
    html = client.get("/cards/eg-1-1/fragment", params={"batch": batch}).text
    tile = re.search(r'data-key="read_to_compute_ratio">.*?<dd><button[^>]*>([^<]*)<', html, re.S).group(1)
    assert tile == want
