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
    assert chk.expect, f"{chk.card}: a check must expect something"
    derived = {
        "row_ids": lambda o: [x["id"] for x in o["rows"]],
        "thread_ids": lambda o: [x["id"] for x in o["threads"]],
        "questions": lambda o: [x["question"] for x in o["rows"]],
    }
    for key in list(chk.expect):
        if key in derived and key not in out:
            out[key] = derived[key](out)
    for key, want in chk.expect.items():
        assert key in out, f"{chk.card}: output key {key} missing"
        got = out[key]
        if (
            isinstance(want, (bool, str, dict))
            or want is None
            or (isinstance(want, (list, tuple)) and not all(isinstance(w, (int, float)) for w in want))
        ):
            assert got == want, f"{chk.card}.{key}: {got!r} != {want!r}"
        elif isinstance(want, (list, tuple)):
            assert len(got) == len(want), f"{chk.card}.{key}: {got!r} != {want!r}"
            for g, w in zip(got, want):
                assert math.isclose(g, w, rel_tol=chk.rel_tol, abs_tol=chk.abs_tol), (
                    f"{chk.card}.{key}: {got!r} != {want!r}"
                )
        else:
            assert isinstance(got, (int, float)) and not isinstance(got, bool), f"{chk.card}.{key}: {got!r}"
            assert math.isclose(got, want, rel_tol=chk.rel_tol, abs_tol=chk.abs_tol), (
                f"{chk.card}.{key}: {got} vs book {want} (rel_tol {chk.rel_tol})"
            )


def test_every_registered_card_has_book_checks():
    from app.cards import REGISTRY

    checked = {c.card for c in CHECKS}
    missing = sorted(set(REGISTRY) - checked)
    assert not missing, f"cards without a book-value check: {missing}"
