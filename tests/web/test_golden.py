"""Every card's fragment and JSON, at its defaults and one other state, equal the committed record
(``tests/golden/``). A deliberate change to what is served is refreshed with ``make golden`` and
shows in review as a diff of that record."""

from __future__ import annotations

import difflib

import pytest
from app.cards import REGISTRY

from tests.web.golden import path_of, record


@pytest.mark.parametrize("cid", sorted(REGISTRY))
def test_served_bytes_equal_the_golden_record(client, cid):
    want = path_of(cid)
    assert want.exists(), f"no golden record for {cid}: run `make golden`"
    got = record(client, REGISTRY[cid])
    old = want.read_text()
    if got != old:
        diff = difflib.unified_diff(old.splitlines(), got.splitlines(), "golden", "served", n=1, lineterm="")
        shown = "\n".join(line[:300] for line in list(diff)[:40])
        pytest.fail(f"{cid}: served bytes differ from tests/golden/{cid}.txt (`make golden` if intended)\n{shown}")


def test_every_record_has_a_card():
    stale = {p.stem for p in path_of("x").parent.glob("*.txt")} - set(REGISTRY)
    assert not stale, f"golden records for cards that no longer exist: {sorted(stale)}"
