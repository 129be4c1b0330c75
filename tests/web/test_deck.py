"""Lecture decks: /present/deck lists steps (card id or alias, each with its own state); the short
form ?cards=a,b,c redirects to the canonical ?c=… form; a bad step answers a page naming it."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit


def test_short_form_redirects_to_canonical_steps(client):
    r = client.get("/present/deck?cards=fig-1-11,ex-1-3,fig-3-1", follow_redirects=False)
    assert r.status_code == 307
    q = parse_qs(urlsplit(r.headers["location"]).query)
    assert q == {"c": ["eg-1-1", "ex-1-3", "fig-3-1"], "at": ["1"]}


def test_each_step_keeps_its_own_state(client):
    url = "/present/deck?c=eg-1-1%3Fbatch%3D16&c=ex-3-2%3Fmu_per_card%3D2796.0&c=fig-3-1&at=2"
    r = client.get(url)
    assert r.status_code == 200
    assert 'data-deck-at="2"' in r.text and 'data-deck-size="3"' in r.text and "第 2 / 3 步" in r.text
    assert '<option value="2796" selected>' in r.text
    prev = re.search(r'data-prev="([^"]*)"', r.text).group(1).replace("&amp;", "&")
    nxt = re.search(r'data-next="([^"]*)"', r.text).group(1).replace("&amp;", "&")
    assert parse_qs(urlsplit(prev).query) == {
        "c": ["eg-1-1?batch=16", "ex-3-2?mu_per_card=2796", "fig-3-1"],
        "at": ["1"],
    }
    assert parse_qs(urlsplit(nxt).query)["at"] == ["3"]
    first = client.get(prev)
    assert first.status_code == 200 and 'id="eg-1-1-batch" name="batch" value="16"' in first.text
    assert 'href="/cards/eg-1-1?batch=16" class="back"' in first.text


def test_bad_steps_name_the_step(client):
    r = client.get("/present/deck?c=eg-1-1&c=no-such-card")
    assert r.status_code == 404 and "第 2 步" in r.text and "no-such-card" in r.text
    r = client.get("/present/deck?c=eg-1-1%3Fbatch%3D0")
    assert r.status_code == 422 and "第 1 步" in r.text and "batch" in r.text
    r = client.get("/present/deck?cards=eg-1-1,<script>x</script>")
    assert r.status_code == 404 and "<script>x" not in r.text
    assert client.get("/present/deck?c=eg-1-1&at=2").status_code == 422
    assert client.get("/present/deck?c=eg-1-1&at=x").status_code == 422
    assert client.get("/present/deck").status_code == 422
    r = client.get("/present/deck?" + "&".join(["c=eg-1-1"] * 61))
    assert r.status_code == 422 and "60" in r.text
