"""Every card's book numbers at the book's defaults (and derived settings), through the JSON API."""
from __future__ import annotations

import math

import pytest

from tests.checks import all_checks

CHECKS = all_checks()


@pytest.mark.parametrize("chk", CHECKS, ids=[c.id for c in CHECKS])
def test_book_value(client, chk):
    r = client.get(f"/api/cards/{chk.card}", params=chk.params)
    assert r.status_code == 200, r.text
    out = r.json()["outputs"]
    for key, want in chk.expect.items():
        assert key in out, f"{chk.card}: output key {key} missing"
        got = out[key]
        if isinstance(want, bool) or isinstance(want, str) or want is None:
            assert got == want, f"{chk.card}.{key}: {got!r} != {want!r}"
        elif isinstance(want, (list, tuple)):
            assert len(got) == len(want), f"{chk.card}.{key}: {got!r} != {want!r}"
            for g, w in zip(got, want):
                assert math.isclose(g, w, rel_tol=chk.rel_tol, abs_tol=chk.abs_tol), f"{chk.card}.{key}: {got!r} != {want!r}"
        else:
            assert isinstance(got, (int, float)) and not isinstance(got, bool), f"{chk.card}.{key}: {got!r}"
            assert math.isclose(got, want, rel_tol=chk.rel_tol, abs_tol=chk.abs_tol), \
                f"{chk.card}.{key}: {got} vs book {want} (rel_tol {chk.rel_tol})"


def test_every_registered_card_has_book_checks():
    from app.cards import REGISTRY
    checked = {c.card for c in CHECKS}
    missing = sorted(set(REGISTRY) - checked)
    assert not missing, f"cards without a book-value check: {missing}"
