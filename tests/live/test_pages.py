"""Live-class pages as HTTP sees them: join, follow, control, QR, the card stage; strict CSP, no
inline script, the presenter's 开课 button."""

from __future__ import annotations

import json
import re

from app.live.ids import ALPHABET


def _scripts_are_external_or_data(html: str) -> None:
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert 'src="' in tag or 'type="application/json"' in tag, tag
    assert not re.search(r"\son[a-z]+=", html), "inline event handler"


def _data(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="live-data">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def test_follow_page(client, klass):
    r = client.get(f"/live/{klass.code}")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    assert "script-src 'self'" in r.headers["content-security-policy"]
    _scripts_are_external_or_data(r.text)
    d = _data(r.text)
    assert d["code"] == klass.code and d["state"]["card"] == "eg-1-1" and d["state"]["seq"] == 1
    assert 'id="eg-1-1-batch"' in r.text and "/static/live.js" in r.text
    assert klass.token not in r.text


def test_follow_page_follows_the_current_state(client, klass):
    client.put(f"/api/live/{klass.code}/state", json={"card": "eg-1-1", "query": "batch=32"}, headers=klass.auth)
    html = client.get(f"/live/{klass.code}").text
    assert re.search(r'id="eg-1-1-batch" name="batch" value="32"', html)


def test_codes_in_any_case_redirect_and_unknown_codes_get_the_join_form(client, klass):
    r = client.get(f"/live/{klass.code.lower()}", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == f"/live/{klass.code}"
    r = client.get("/live/ZZZZZZ")
    assert r.status_code == 404 and "ZZZZZZ" in r.text and 'action="/live"' in r.text


def test_join_form(client, klass):
    assert client.get("/live").status_code == 200
    r = client.get("/live", params={"code": f" {klass.code.lower()} "}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/live/{klass.code}"
    r = client.get("/live", params={"code": "<b>x</b>"})
    assert r.status_code == 422 and "<b>x</b>" not in r.text and "&lt;b&gt;" in r.text


def test_control_page(client, klass):
    r = client.get(f"/live/{klass.code}/control")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    _scripts_are_external_or_data(r.text)
    assert klass.token not in r.text
    assert re.search(r'<svg [^>]*class="qr"', r.text)
    assert f"http://testserver/live/{klass.code}" in r.text  # the QR's link, on this host
    assert 'class="present-bar"' in r.text and "live-control" in r.text
    assert _data(r.text)["follow_url"] == f"http://testserver/live/{klass.code}"


def test_qr_svg(client, klass):
    r = client.get(f"/live/{klass.code}/qr.svg")
    assert r.status_code == 200 and r.headers["content-type"] == "image/svg+xml"
    assert r.text.startswith("<?xml") and "<svg" in r.text
    assert client.get("/live/ZZZZZZ/qr.svg").status_code == 404


def test_stage_is_the_card_shell_cached_per_url(client):
    r = client.get("/live/card/eg-1-1?batch=8")
    assert r.status_code == 200 and "public" in r.headers["cache-control"]
    assert 'data-card="eg-1-1"' in r.text and 'id="r-eg-1-1"' in r.text
    assert re.search(r'name="batch" value="8"', r.text)
    assert "data-url-sync" not in r.text  # followers' address bars never change
    assert client.get("/live/card/fig-1-11?batch=8").text.count('data-card="eg-1-1"') >= 1  # aliases resolve
    bad = client.get("/live/card/eg-1-1?batch=0")
    assert bad.status_code == 422 and 'data-field="batch"' in bad.text
    assert client.get("/live/card/no-such-card").status_code == 422


def test_presenter_has_the_start_button(client):
    html = client.get("/present/eg-1-1").text
    assert re.search(r'<button type="button" class="live-start" data-card="eg-1-1">开课</button>', html)
    assert "/static/live.js" in html
    _scripts_are_external_or_data(html)


def test_alphabet_has_no_lookalikes():
    assert len(ALPHABET) == len(set(ALPHABET)) == 31
    assert not set("0O1IL") & set(ALPHABET)


def test_number_boxes_write_values_as_typed(client):
    """A state the live stage renders from its query (no raw text to echo) writes 70, not 70.0, in the
    number box and on the slider; a fraction keeps its digits."""
    for q, want in (("bw_eff_pct=70", "70"), ("bw_eff_pct=72.5", "72.5")):
        html = client.get(f"/live/card/eg-1-1?{q}").text
        box = re.search(r'<input type="text"[^>]*id="eg-1-1-bw_eff_pct"[^>]*value="([^"]*)"', html).group(1)
        rng = re.search(r'<input type="range"[^>]*value="([^"]*)" data-for="eg-1-1-bw_eff_pct"', html).group(1)
        assert (box, rng) == (want, want)
    assert not re.search(
        r'class="num" id="[^"]+" name="[^"]+" value="\d+\.0"',
        client.get("/live/card/eg-1-1?bw_eff_pct=70&batch=8").text,
    )
