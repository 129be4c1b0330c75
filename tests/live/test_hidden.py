"""Hidden means absent: until 公布, no follower HTML, fragment or event carries the value of the asked
output, and the card check route does not hand out its expected value.

The live class's side (what is asked for, what is sent) is tested here directly, and then that the
card's own HTML, through the card engine's mask (``hide=<key>``), has no value anywhere."""

from __future__ import annotations

import json
import re

from app import format as fmt
from app.cards import REGISTRY
from app.live import pages

from .conftest import start_class


def _truth(card="eg-1-1", key="b_star", **params):
    c = REGISTRY[card]
    return c.compute(c.parse(params) if params else c.defaults()).outputs[key]


def _shown(value: float) -> list[str]:
    """How the value could appear: as the tile prints it, and at a few precisions."""
    return sorted({fmt.num(value), f"{value:.1f}", f"{value:.2f}", repr(value)}, key=len, reverse=True)


def _ask(client, k, key="b_star", card="eg-1-1", query=""):
    r = client.post(f"/api/live/{k.code}/questions", json={"card": card, "key": key, "query": query}, headers=k.auth)
    assert r.status_code == 201, r.text
    return r.json()["qid"]


def _stage(html: str) -> str:
    return html[html.index('<div id="live-stage"') :]


def test_state_join_and_events_carry_no_value_of_the_asked_output(client, klass):
    truth = _truth()
    _ask(client, klass)
    state = client.get(f"/api/live/{klass.code}").text
    joined = client.post(f"/api/live/{klass.code}/join", json={}).text
    for text in (state, joined):
        q = json.loads(text)["question"] if "question" in json.loads(text) else json.loads(text)["state"]["question"]
        assert q["key"] == "b_star" and "expected" not in q and "axis" not in q and "true_value" not in q
        for shown in _shown(truth):
            assert shown not in text, shown
    from app.live.store import PUBLIC_KEYS

    assert "expected" not in PUBLIC_KEYS and "axis" not in PUBLIC_KEYS


def test_results_before_reveal_are_a_count(client, klass):
    qid = _ask(client, klass)
    cred = klass.who(client, "me")
    client.post(f"/api/live/{klass.code}/questions/{qid}/answers", json={"participant": cred, "value": 148})
    r = client.get(f"/api/live/{klass.code}/questions/{qid}/results", params={"participant": cred})
    assert r.json() == {"qid": qid, "status": "open", "answered": 1}  # not even one's own verdict


def test_follow_and_control_pages_load_the_stage_masked_while_the_question_is_open(client, klass):
    _ask(client, klass)
    for path in (f"/live/{klass.code}", f"/live/{klass.code}/control"):
        stage = _stage(client.get(path).text)
        assert re.search(r'class="live-card"[^>]*data-hide="b_star"', stage), path
        assert 'name="solutions" value="off"' in stage  # the fragments its sliders ask for: no solutions
    client.post(f"/api/live/{klass.code}/questions/1/close", headers=klass.auth)
    assert 'data-hide="b_star"' in _stage(client.get(f"/live/{klass.code}").text)  # closed is not revealed
    client.post(f"/api/live/{klass.code}/questions/1/reveal", headers=klass.auth)
    stage = _stage(client.get(f"/live/{klass.code}").text)
    assert 'data-hide=""' in stage and 'name="solutions"' not in stage


def test_another_card_on_the_stage_is_not_masked(client, klass):
    _ask(client, klass)
    client.put(f"/api/live/{klass.code}/state", json={"card": "fig-1-10", "query": ""}, headers=klass.auth)
    assert 'data-hide=""' in _stage(client.get(f"/live/{klass.code}").text)


def test_the_stage_route_asks_the_engine_for_the_mask(client, monkeypatch):
    """/live/card/{id}?…&hide=<key>&solutions=off renders through the engine with hide={key} and no
    solutions (the engine's own part is tested by the lead's card tests)."""
    calls = []

    def fake(card, params, reading):
        calls.append((card.id, params.batch, reading.solutions, reading.hide))
        return "<p>masked</p>"

    monkeypatch.setattr(pages, "fragment_html", fake)
    r = client.get("/live/card/eg-1-1?batch=8&hide=b_star&solutions=off")
    assert r.status_code == 200 and "<p>masked</p>" in r.text and 'data-hide="b_star"' in r.text
    assert calls == [("eg-1-1", 8, False, frozenset({"b_star"}))]
    r = client.get("/live/card/eg-1-1?batch=8")
    assert calls[-1] == ("eg-1-1", 8, True, frozenset())


def test_the_page_scripts_ask_for_the_mask_on_every_load():
    """live.js adds hide=<key>&solutions=off to each stage load and each fragment a slider asks for
    while a question (or a sweep) is open (the browser test sees it happen)."""
    from app.render import STATIC

    js = (STATIC / "live.js").read_text()
    assert '"hide=" + encodeURIComponent(k); }).join("&") + "&solutions=off"' in js
    assert 'params.append("hide", k)' in js


def test_follower_html_has_no_value_of_the_asked_output(client, klass):
    truth = _truth()
    _ask(client, klass)
    stage = _stage(client.get(f"/live/{klass.code}").text)
    for shown in _shown(truth):
        assert shown not in stage, shown


def test_stage_and_fragment_loads_with_hide_have_no_value(client):
    truth = _truth(batch=8)
    for url in ("/live/card/eg-1-1?batch=8&hide=b_star&solutions=off", "/cards/eg-1-1/fragment?batch=8&hide=b_star"):
        text = client.get(url).text
        for shown in _shown(truth):
            assert shown not in text, (url, shown)


# ------------------------------------------------------------------ the check route


def _check(client, key, value, reveal=True, **params):
    body = {"params": params, "answers": {key: value}, "reveal": reveal}
    r = client.post("/api/cards/ex-1-3/check", json=body)
    assert r.status_code == 200, r.text
    return r.json()["results"][key]


def test_the_check_route_withholds_the_expected_value_of_an_open_live_question(client, klass):
    key = "t_step_ms_b64"
    truth = _truth("ex-1-3", key)
    assert _check(client, key, 1.0)["expected"] == truth  # no class asks it: the reader may see it
    _ask(client, klass, key, card="ex-1-3")
    asked = _check(client, key, 1.0)
    assert "expected" not in asked and asked["verdict"] == "incorrect"  # still checked, no answer handed out
    assert "expected" not in _check(client, key, 1.0, target_ms=20)  # nor at any other state (issue 39: an oracle)
    assert "expected" in _check(client, "b_star", 1.0)  # nor another output
    client.post(f"/api/live/{klass.code}/questions/1/reveal", headers=klass.auth)
    assert _check(client, key, 1.0)["expected"] == truth  # 公布: the answer is out


def test_the_check_route_withholds_while_closed_and_releases_when_the_class_ends(client, klass):
    key = "t_step_ms_b64"
    _ask(client, klass, key, card="ex-1-3")
    client.post(f"/api/live/{klass.code}/questions/1/close", headers=klass.auth)
    assert "expected" not in _check(client, key, 1.0)
    assert client.delete(f"/api/live/{klass.code}", headers=klass.auth).status_code == 204
    assert "expected" in _check(client, key, 1.0)


def test_the_check_route_fails_closed_when_the_store_cannot_say(client, klass, store, monkeypatch):
    from app.live.store import StoreUnavailable

    async def down(card):
        raise StoreUnavailable("test")

    monkeypatch.setattr(store, "pending", down)
    assert "expected" not in _check(client, "t_step_ms_b64", 1.0)


def test_a_question_on_another_class_withholds_too(client):
    """The route does not know which class a reader is in: any open class asking it withholds."""
    _ask(client, start_class(client), "t_step_ms_b64", card="ex-1-3")
    assert "expected" not in _check(client, "t_step_ms_b64", 1.0)
