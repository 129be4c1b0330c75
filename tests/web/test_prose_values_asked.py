"""The values a page's prose quotes from a card travel with the card's fragment only when a page that
quotes it asks (``prose=1``): a section page renders them with its cards and its script asks for them
on every slider move; a card page, the presenter and a phone get the fragment without them."""

from __future__ import annotations

import json
import re

from app.web.urls import cache_key

LIVE = re.compile(r'<script type="application/json" class="livevals" data-card="eg-1-1">(.*?)</script>', re.S)


def test_the_fragment_carries_the_prose_values_only_when_asked(client):
    plain = client.get("/cards/eg-1-1/fragment?batch=64")
    asked = client.get("/cards/eg-1-1/fragment?batch=64&prose=1")
    assert plain.status_code == asked.status_code == 200
    assert "livevals" not in plain.text
    vals = json.loads(LIVE.search(asked.text).group(1))
    assert vals["batch|n"] == "64" and vals["t_mem_ms"] == "20.90 ms"
    # everything else is the same fragment; the state named for the address bar leaves the flag out
    assert LIVE.sub("", asked.text).strip() == plain.text.strip()
    assert asked.headers["x-card-query"] == plain.headers["x-card-query"] == "batch=64"


def test_the_pages_that_quote_a_card_render_its_values(client):
    section = client.get("/ch/1/1.3").text
    assert LIVE.search(section), "1.3 quotes 例题 1-1: its eager card carries the values"
    assert "livevals" not in client.get("/cards/eg-1-1").text
    assert "livevals" not in client.get("/present/eg-1-1").text


def test_the_edge_keeps_the_two_apart():
    assert cache_key("/cards/eg-1-1/fragment", b"batch=64&prose=1") != cache_key("/cards/eg-1-1/fragment", b"batch=64")
