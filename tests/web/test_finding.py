"""Finding a card by what a reader types: printed labels in their usual forms, or title words."""

from __future__ import annotations

import pytest
from app.labels import label_to_id


@pytest.mark.parametrize(
    "typed,cid",
    [
        ("图 1-11", "eg-1-1"),
        ("fig 1-11", "eg-1-1"),
        ("Figure 1-12", "eg-1-1"),
        ("FIG1-9", "eg-1-1"),
        ("例题 1-1", "eg-1-1"),
        ("eg-1-1", "eg-1-1"),
        ("例 1-1", "eg-1-1"),
        ("图１－11", "eg-1-1"),
    ],
)
def test_label_forms(typed, cid):
    assert label_to_id(typed) == cid


def test_jump_redirects_by_label_and_title(client):
    r = client.get("/jump", params={"q": "图 1-12"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/cards/eg-1-1"
    r = client.get("/jump", params={"q": "单步生成计算器"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/cards/eg-1-1"
    r = client.get("/jump", params={"q": "zzzz-nothing"})
    assert r.status_code == 404 and "没有找到" in r.text


def test_cards_path_accepts_printed_label(client):
    r = client.get("/cards/图 1-11?batch=4", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/cards/eg-1-1?batch=4"


def test_jump_escapes_query(client):
    r = client.get("/jump", params={"q": '<script>alert(1)</script>"onmouseover='})
    assert "<script>alert" not in r.text and '"onmouseover=' not in r.text
