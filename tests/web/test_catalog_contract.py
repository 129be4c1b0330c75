"""The catalog is a contract: every card takes every parameter the catalog names, returns every
output key it names, and at the book's defaults shows each book value the catalog prints (to the
printed precision). Extracted once from the catalog into tests/data/catalog_contract.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CONTRACT = json.loads((Path(__file__).parent.parent / "data" / "catalog_contract.json").read_text(encoding="utf-8"))[
    "cards"
]


@pytest.mark.parametrize("cid", sorted(CONTRACT))
def test_card_honours_catalog(client, cid):
    body = client.get(f"/api/cards/{cid}").json()
    entry = CONTRACT[cid]
    assert set(entry["params"]) <= set(body["params"]), set(entry["params"]) - set(body["params"])
    assert set(entry["outputs"]) <= set(body["outputs"]), set(entry["outputs"]) - set(body["outputs"])
    for key, printed in entry["book"].items():
        got = body["outputs"][key]
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            continue
        want = float(printed.replace(",", ""))
        decimals = len(printed.split(".")[1]) if "." in printed else 0
        tol = max(0.5 * 10**-decimals, abs(want) * 0.006)
        assert abs(got - want) <= tol * 1.0001, f"{cid}.{key}: {got} vs printed {printed}"
