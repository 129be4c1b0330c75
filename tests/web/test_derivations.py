"""Show the math: every numeric scalar output of every card has a derivation in the JSON API, at the
defaults and at two other slider states; arithmetic derivations carry a ``check`` that evaluates
(safely, not with ``eval``) to the output; and each card declares its outputs once."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from app.cards import REGISTRY, controls_of
from app.state import ParamError, parse_query
from app.trace import evaluate

CONTRACT = json.loads((Path(__file__).parent.parent / "data" / "catalog_contract.json").read_text(encoding="utf-8"))[
    "cards"
]
FRACTIONS = (0.3, 0.7)


def _at(spec, frac: float) -> str:
    """A slider value at ``frac`` of its range (log sliders on a log scale), snapped to its step."""
    lo, hi = spec.ge, spec.le
    v = lo * (hi / lo) ** frac if spec.log and lo > 0 else lo + (hi - lo) * frac
    step = spec.step or 1
    v = lo + round((v - lo) / step) * step
    v = min(max(v, lo), hi)
    return str(int(round(v))) if spec.is_int else repr(round(v, 10))


def moved_states(cid: str) -> list[dict[str, str]]:
    """Two states away from the defaults: every free slider moved to 30 % / 70 % of its range, or,
    when a cross-field rule rejects that, as many sliders as the rules allow, one at a time."""
    card = REGISTRY[cid]
    sliders = [s for s in controls_of(card.params) if s.control == "slider" and not s.fixed and not s.optional]
    states = []
    for frac in FRACTIONS:
        state: dict[str, str] = {}
        for s in sliders:
            trial = {**state, s.name: _at(s, frac)}
            try:
                parse_query(card, list(trial.items()))
            except ParamError:
                continue
            state = trial
        states.append(state)
    return states


CASES = [(cid, i) for cid in sorted(REGISTRY) for i in range(3)]


def _numeric(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


@pytest.mark.parametrize("cid,which", CASES, ids=[f"{c}-{i}" for c, i in CASES])
def test_every_numeric_output_explains_itself(client, cid, which):
    query = {} if which == 0 else moved_states(cid)[which - 1]
    r = client.get(f"/api/cards/{cid}", params=query)
    assert r.status_code == 200, r.text
    body = r.json()
    outs, ders = body["outputs"], body["derivations"]
    numeric = {k for k, v in outs.items() if _numeric(v)}
    assert numeric <= set(ders), f"no derivation for {sorted(numeric - set(ders))}"
    for key in numeric:
        d = ders[key]
        if d.get("input"):
            assert d["source"], key
            continue
        assert d["formula"] and d["formula"] != "(未记录推导)", f"{cid}.{key} has no recorded derivation"
        assert d["result"], key
        if "check" in d:
            got = evaluate(d["check"])
            assert math.isclose(got, outs[key], rel_tol=1e-6, abs_tol=1e-12), (
                f"{cid}.{key}: {d['check']} = {got} ≠ {outs[key]}"
            )


def test_moved_states_really_move():
    """The two extra states differ from the defaults for every card that has a free slider."""
    for cid in sorted(REGISTRY):
        card = REGISTRY[cid]
        if any(s.control == "slider" and not s.fixed and not s.optional for s in controls_of(card.params)):
            assert any(moved_states(cid)), cid


def test_checkable_share(client):
    """At least 80 % of the derived (non-input) entries carry a check; the counts are printed."""
    counts = {"entries": 0, "inputs": 0, "checkable": 0, "rule_only": 0}
    for cid in sorted(REGISTRY):
        for query in [{}, *moved_states(cid)]:
            body = client.get(f"/api/cards/{cid}", params=query).json()
            for d in body["derivations"].values():
                counts["entries"] += 1
                if d.get("input"):
                    counts["inputs"] += 1
                elif "check" in d:
                    counts["checkable"] += 1
                else:
                    counts["rule_only"] += 1
    print("derivation counts:", counts)
    derived = counts["checkable"] + counts["rule_only"]
    assert derived and counts["checkable"] / derived >= 0.8, counts


@pytest.mark.parametrize("cid", sorted(REGISTRY))
def test_outputs_declared_once(client, cid):
    """The declaration names exactly the keys the card returns, and covers the catalog's keys."""
    card = REGISTRY[cid]
    assert card.outputs, f"{cid} declares no outputs"
    returned = set(client.get(f"/api/cards/{cid}").json()["outputs"])
    declared = set(card.outputs)
    assert returned == declared, {
        "undeclared": sorted(returned - declared),
        "not returned": sorted(declared - returned),
    }
    if cid in CONTRACT:
        assert set(CONTRACT[cid]["outputs"]) <= declared, sorted(set(CONTRACT[cid]["outputs"]) - declared)
