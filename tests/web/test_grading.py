"""One grading rule (正确 within the card's display rounding or 0.5 %, 接近 within 5 %, else 不对) and
diagnoses that name the slip, over probes around every numeric answer of every exercise, through the
check API: ×1.003, ×1.03, ×2, ×0.5, ×1000 (and ×8, ×1.0737 for byte quantities), and each factor or
term of the answer's own derivation left out."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from app import exercises as X
from app.cards import REGISTRY, explain
from app.outputs import undeclared
from app.trace import plain

PROBES = [("×1.003", 1.003), ("×1.03", 1.03), ("×2", 2.0), ("×0.5", 0.5), ("×1000", 1e3)]
BYTE_PROBES = [("×8", 8.0), ("×1.0737", 2**30 / 1e9)]
UNIT_PROBES = {"×1000", "×8", "×1.0737"}


def _questions():
    for cid in sorted(REGISTRY):
        card = REGISTRY[cid]
        if not X.questions_of(card):
            continue
        view, _ = explain(card, card.defaults())
        for q in view.questions:
            e = view.outputs.get(q.key)
            if q.kind == "numeric" and isinstance(e, (int, float)) and not isinstance(e, bool) and e != 0:
                yield card, q, e


CASES = list(_questions())


def _check(client, card, key, answer):
    r = client.post(f"/api/cards/{card.id}/check", json={"params": {}, "answers": {key: answer}})
    assert r.status_code == 200, r.text
    return r.json()["results"][key]


def test_every_exercise_is_probed():
    assert len({c.id for c, _, _ in CASES}) == 14 and len(CASES) >= 60


def _sampled(cases):
    """Every case as a parameter: the first question of each exercise in ``make test``, the others marked
    ``full`` (the same probes on each; make test-full and .ci/run check every question, tests/sampling.py).
    test_diagnosis_coverage still runs the probes on every question in make test."""
    seen: set[str] = set()
    out = []
    for card, q, e in cases:
        marks = () if card.id not in seen else pytest.mark.full
        seen.add(card.id)
        out.append(pytest.param(card, q, e, id=f"{card.id}.{q.key}", marks=marks))
    return out


@pytest.mark.parametrize(("card", "q", "expected"), _sampled(CASES))
def test_verdicts_follow_the_rule_and_slips_are_named(client, card, q, expected):
    e = plain(expected)
    # a question with its own band (issue 40: the unchanged value must not pass) is graded by it exactly
    step = 0.0 if q.tolerance else X.display_step(card.outputs.get(q.key) or undeclared(q.key), e)
    correct, close = (0.005, 0.05) if q.tolerance is None else (q.tolerance, 10 * q.tolerance)
    probes = PROBES + (BYTE_PROBES if X.BYTE_UNITS.search(q.unit or "") else [])
    for name, f in probes:
        answer = e * f
        got = _check(client, card, q.key, answer)
        err = abs(answer - e)
        want = (
            "correct"
            if err <= max(step, correct * abs(e)) * 1.000001
            else "close"
            if err <= max(step, close * abs(e))
            else "incorrect"
        )
        assert got["verdict"] == want, (name, answer, got)
        if name in UNIT_PROBES:
            assert got["verdict"] != "close" and got.get("diagnosis"), (name, got)  # a 1000× slip is never 接近
    for slip in X.factor_slips(expected):
        if not slip.id.startswith("dropped") or math.isclose(slip.value, e, rel_tol=0.05):
            continue
        got = _check(client, card, q.key, slip.value)
        assert got["verdict"] == "incorrect", (slip, got)
        if got.get("diagnosis"):  # the slip named is one whose value the answer is
            assert got["diagnosis_text"] and got["hint"] == got["diagnosis_text"]


def test_diagnosis_coverage():
    """Unit slips are named in ≥ 90 % of the probes, forgotten factors in ≥ 70 % of those the
    derivations offer (the counts are printed: ``pytest -s``)."""
    counts: Counter = Counter()
    for card, q, expected in CASES:
        e, decl = plain(expected), card.outputs.get(q.key)
        for name, f in PROBES + (BYTE_PROBES if X.BYTE_UNITS.search(q.unit or "") else []):
            if name in UNIT_PROBES:
                counts["unit slips"] += 1
                counts["unit slips named"] += bool(X.check(q, expected, e * f, None, decl).get("diagnosis"))
        for slip in X.factor_slips(expected):
            if slip.id.startswith("dropped") and not math.isclose(slip.value, e, rel_tol=0.05):
                counts["forgotten factors"] += 1
                counts["forgotten factors named"] += bool(X.check(q, expected, slip.value, None, decl).get("diagnosis"))
    print(dict(counts))
    assert counts["unit slips named"] >= 0.9 * counts["unit slips"] > 0
    assert counts["forgotten factors named"] >= 0.7 * counts["forgotten factors"] > 0


def test_a_forgotten_batch_is_named(client):
    """练习 1-3: the whole batch's time without ×B (forgetting the batch) is 不对, and says so."""
    card = REGISTRY["ex-1-3"]
    view, _ = explain(card, card.defaults())
    q = next(q for q in view.questions if q.key == "per_output_ms_b16")
    e = plain(view.outputs[q.key])
    got = _check(client, card, q.key, e * 16)  # T_step: forgot to divide by B = 16
    assert got["verdict"] == "incorrect" and got["diagnosis"] == "dropped_divisor:B", got
    assert got["diagnosis_text"] == "少除以 B"


def test_a_slip_the_card_declares_is_named(client):
    """练习 3-9 (c): scaling the per-token expert compute with the total number of experts is the
    total-vs-active slip the card declares."""
    r = client.post(
        "/api/cards/ex-3-9/check", json={"params": {"expert_mult": 2}, "answers": {"expert_train_flop_mult": 2}}
    )
    got = r.json()["results"]["expert_train_flop_mult"]
    assert got["verdict"] == "incorrect" and got["diagnosis"] == "total_vs_active", got


def test_the_rule_is_stated_on_the_page(client):
    html = client.get("/cards/ex-1-3/fragment").text
    assert X.RULE_TEXT in html
