"""Every exercise card through the one checking mechanism: each numeric question accepts the right
answer, rejects ×1.5, and calls a unit slip 不对 with a diagnosis naming the slip."""

from __future__ import annotations

import pytest
from app.cards import REGISTRY
from app.cards import run as compute

EXERCISES = sorted(c for c, v in REGISTRY.items() if v.kind == "exercise")


def _questions(cid):
    card = REGISTRY[cid]
    view = compute(card, card.defaults())
    return view, view.questions


def test_all_fourteen_exercises_present_when_chapters_done():
    expected = {f"ex-1-{i}" for i in range(1, 5)} | {f"ex-3-{i}" for i in range(1, 11)}
    present = set(EXERCISES)
    assert present <= expected
    for cid in present:
        assert _questions(cid)[1], f"{cid} lists no questions"


@pytest.mark.parametrize("cid", EXERCISES)
def test_api_lists_questions_keyed_by_outputs(client, cid):
    body = client.get(f"/api/cards/{cid}").json()
    qs = body["questions"]
    assert qs and all({"key", "prompt", "unit"} <= set(q) for q in qs)
    for q in qs:
        if q["kind"] != "open":
            assert q["key"] in body["outputs"], f"{cid}: question key {q['key']} is not an output key"


def _slip(q, expected):
    """A plausible unit slip for this question and the hint word that must name it."""
    if q.units:
        name, factor = next(iter(q.units.items()))
        return expected / factor, ("单位", "GB", "GiB", "倍")
    if q.unit == "%":
        return expected / 100, ("100",)
    return expected * 1000, ("1000", "单位")


@pytest.mark.parametrize("cid", EXERCISES)
def test_numeric_questions_correct_wrong_slip(client, cid):
    view, qs = _questions(cid)
    numeric = [q for q in qs if q.kind == "numeric"]
    for q in numeric:
        e = view.outputs[q.key]
        url = f"/api/cards/{cid}/check"
        r = client.post(url, json={"answers": {q.key: e}})
        assert r.status_code == 200, r.text
        assert r.json()["results"][q.key]["verdict"] == "correct", (cid, q.key)
        if e != 0:
            r = client.post(url, json={"answers": {q.key: e * 1.5}})
            assert r.json()["results"][q.key]["verdict"] == "incorrect", (cid, q.key, e)
            slip, words = _slip(q, e)
            r = client.post(url, json={"answers": {q.key: slip}}).json()["results"][q.key]
            assert r["verdict"] == "incorrect" and r["diagnosis"], (cid, q.key, e, slip, r)  # named, not 接近
            assert any(w in r["hint"] for w in words), r["hint"]
    for q in qs:
        if q.kind == "bool":
            e = view.outputs[q.key]
            r = client.post(f"/api/cards/{cid}/check", json={"answers": {q.key: e}}).json()
            assert r["results"][q.key]["verdict"] == "correct"
            r = client.post(f"/api/cards/{cid}/check", json={"answers": {q.key: not e}}).json()
            assert r["results"][q.key]["verdict"] == "incorrect"


@pytest.mark.parametrize("cid", EXERCISES)
def test_reveal_and_solutions_off(client, cid):
    view, qs = _questions(cid)
    q = next((q for q in qs if q.kind != "open"), None)
    if q is None:
        return
    e = view.outputs[q.key]
    r = client.post(f"/api/cards/{cid}/check", json={"answers": {q.key: e}, "reveal": True}).json()
    assert r["results"][q.key]["expected"] == e
    r = client.post(f"/api/cards/{cid}/check", json={"answers": {q.key: e}}).json()
    assert r["results"][q.key].get("expected") is None
    r = client.post(f"/api/cards/{cid}/check?solutions=off", json={"answers": {q.key: e}, "reveal": True}).json()
    assert r["results"][q.key].get("expected") is None and r["solutions"] is False
    page = client.get(f"/cards/{cid}?solutions=off").text
    assert "查看解答" not in page and "查看参考答案" not in page
    assert "查看解答" in client.get(f"/cards/{cid}").text or "查看参考答案" in client.get(f"/cards/{cid}").text


@pytest.mark.parametrize("cid", EXERCISES)
def test_malformed_bodies_422(client, cid):
    url = f"/api/cards/{cid}/check"
    assert client.post(url, content=b"not json", headers={"content-type": "application/json"}).status_code == 422
    assert client.post(url, json={"answers": "x"}).status_code == 422
    assert client.post(url, json={"answers": {"no_such_key": 1}}).status_code == 422
    assert client.post(url, json={"answers": {}, "bogus": 1}).status_code == 422


def test_try_links_render_and_open_valid_states(client):
    """Every "try it" link a card offers opens its target card in a valid state (no 404/422)."""
    with_links = []
    for cid, card in sorted(REGISTRY.items()):
        view = compute(card, card.defaults())
        if not view.links:
            continue
        with_links.append(cid)
        assert 'class="try-links"' in client.get(f"/cards/{cid}/fragment").text
        for link in view.links:
            assert client.get(link.href).status_code == 200, (cid, link.href)
    assert {"ex-3-3", "ex-3-4", "ex-3-5", "ex-3-6", "ex-3-7", "ex-3-8", "ex-3-9", "ex-3-10"} <= set(with_links)
