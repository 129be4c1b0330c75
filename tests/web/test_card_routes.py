"""Every registered card, through the same checks: page, fragment, JSON, presenter, aliases, and a
rejected bad input. New cards are covered the moment they register."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app.cards import REGISTRY, controls_of

IDS = sorted(REGISTRY)
CATALOG = json.loads((Path(__file__).parent.parent / "data" / "catalog_ids.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("cid", IDS)
def test_card_page_fragment_json_present(client, cid):
    card = REGISTRY[cid]
    page = client.get(f"/cards/{cid}")
    assert page.status_code == 200
    assert card.title in page.text
    assert f'id="{cid}"' in page.text
    frag = client.get(f"/cards/{cid}/fragment")
    assert frag.status_code == 200
    assert "<html" not in frag.text
    assert frag.headers.get("etag")
    api = client.get(f"/api/cards/{cid}")
    assert api.status_code == 200
    body = api.json()
    assert body["card"] == cid and isinstance(body["outputs"], dict) and body["outputs"]
    pres = client.get(f"/present/{cid}")
    assert pres.status_code == 200 and 'class="present"' in pres.text


@pytest.mark.parametrize("cid", IDS)
def test_card_matches_catalog_entry(cid):
    assert cid in CATALOG, f"{cid} is not a catalog id"
    assert sorted(REGISTRY[cid].aliases) == sorted(CATALOG[cid]["aliases"])


ALIASES = [(a, cid) for cid in IDS for a in REGISTRY[cid].aliases]


@pytest.mark.parametrize("alias,cid", ALIASES)
def test_alias_redirects_keeping_query(client, alias, cid):
    for prefix, suffix in (("/cards/", ""), ("/cards/", "/fragment"), ("/api/cards/", ""), ("/present/", "")):
        r = client.get(f"{prefix}{alias}{suffix}?x=1", follow_redirects=False)
        assert r.status_code == 307, (prefix, r.status_code)
        assert r.headers["location"] == f"{prefix}{cid}{suffix}?x=1"


def _bad_value(spec):
    if spec.control in ("slider", "list") and spec.le is not None:
        return str(spec.le * 10 + 1)
    if spec.control == "select":
        return "no-such-option"
    if spec.control == "toggle":
        return "maybe"
    return None


@pytest.mark.parametrize("cid", IDS)
def test_bad_input_rejected_with_field_name(client, cid):
    specs = controls_of(REGISTRY[cid].params)
    if not specs:
        # a card without parameters ignores unknown keys and still answers
        assert client.get(f"/api/cards/{cid}?zzz=1").status_code == 200
        return
    spec = specs[0]
    bad = _bad_value(spec)
    r = client.get(f"/api/cards/{cid}", params={spec.name: bad})
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == spec.name
    f = client.get(f"/cards/{cid}/fragment", params={spec.name: bad})
    assert f.status_code == 422 and spec.name in f.text
    page = client.get(f"/cards/{cid}", params={spec.name: bad})
    assert page.status_code == 422 and f'data-error-for="{spec.name}"' in page.text
    assert spec.name in page.text


def test_every_catalog_id_listed_has_unique_registration():
    ids = [c["id"] for c in __import__("app.web.api", fromlist=["api_cards"]).api_cards()["cards"]]
    assert len(ids) == len(set(ids)) == len(REGISTRY)
