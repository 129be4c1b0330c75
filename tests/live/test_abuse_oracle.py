"""Abuse suite, issue 39 point 6: while a live question on a card is open, ``POST /api/cards/{id}/check``
is no oracle for it: no ``expected`` for the asked output at any parameters (an unrelated parameter
changed used to hand it out), and verdicts on it are rate-limited per address and per /24 or /48
(a three-way verdict found the exact value in ~130 requests). Outside a class the route is as before
(tests/web/test_checkable.py and test_grading.py, unchanged)."""

from __future__ import annotations

from app.live import limits

from .conftest import from_

CARD, KEY = "ex-1-3", "t_step_ms_b64"
STATES = [{}, {"target_ms": 20}, {"target_ms": 5}, {"bw_eff_pct": 50}, {"compute_eff_pct": 80, "target_ms": 1}]


def _ask(client, k):
    r = client.post(f"/api/live/{k.code}/questions", json={"card": CARD, "key": KEY, "query": ""}, headers=k.auth)
    assert r.status_code == 201, r.text


def _check(client, params, value=1.0, host="203.0.113.60", reveal=True):
    body = {"params": params, "answers": {KEY: value}, "reveal": reveal}
    return client.post(f"/api/cards/{CARD}/check", json=body, headers=from_(host))


def test_no_expected_value_at_any_parameters_while_asked(client, klass):
    truth = _check(client, {}, host="203.0.113.61").json()["results"][KEY]["expected"]
    assert _check(client, {"target_ms": 20}, host="203.0.113.61").json()["results"][KEY]["expected"] == truth
    _ask(client, klass)
    for i, params in enumerate(STATES):
        r = _check(client, params, host=f"203.0.113.{70 + i}")
        assert r.status_code == 200, r.text
        assert "expected" not in r.json()["results"][KEY], params  # before: target_ms=20 gave the asked value
    client.post(f"/api/live/{klass.code}/questions/1/reveal", headers=klass.auth)
    assert _check(client, {"target_ms": 20}, host="203.0.113.79").json()["results"][KEY]["expected"] == truth


def test_verdicts_on_the_asked_output_are_rate_limited_per_address_and_network(client, klass, frozen):
    assert (limits.CHECKS_PER_ADDRESS, limits.CHECKS_PER_NETWORK, limits.CHECK_WINDOW_S) == (6, 30, 60)
    _ask(client, klass)
    got = [_check(client, {}, 29.85 + i / 100, host="198.51.100.9").status_code for i in range(20)]
    assert got == [200] * 6 + [429] * 14  # before: 20 verdicts (and ~130 find the value)
    r = _check(client, {}, host="198.51.100.9")
    assert r.status_code == 429 and 1 <= int(r.headers["retry-after"]) <= 60
    assert "课堂正在问这道题" in r.json()["detail"][0]["msg"]
    # another output of the card is not counted; another address has its own budget
    other = {"params": {}, "answers": {"b_star": 1.0}, "reveal": True}
    assert client.post(f"/api/cards/{CARD}/check", json=other, headers=from_("198.51.100.9")).status_code == 200
    assert _check(client, {}, host="198.51.101.9").status_code == 200
    # 40 /64s of one /48: 30 verdicts a minute in all, not 40 × 6
    ok = sum(_check(client, {}, host=f"2001:db8:77:{i:x}::1").status_code == 200 for i in range(40) for _ in range(6))
    assert ok == limits.CHECKS_PER_NETWORK


def test_outside_a_class_the_route_counts_nothing(client, klass):
    """No class asks this card: as many checks as before, each with its expected value."""
    for i in range(40):
        r = _check(client, {"target_ms": 20}, host="198.51.100.10")
        assert r.status_code == 200 and "expected" in r.json()["results"][KEY], i
