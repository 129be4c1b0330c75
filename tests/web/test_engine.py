"""Engine behaviour shared by every card: query handling, redirects, headers, caching."""

from __future__ import annotations


def test_book_index_and_chapters(client):
    r = client.get("/")
    assert r.status_code == 200 and "第 1 章" in r.text and "第 3 章" in r.text
    ch1 = client.get("/ch/1")
    assert ch1.status_code == 200
    for s in ("1.1", "1.2", "1.3", "1.4"):
        assert f'href="/ch/1/{s}"' in ch1.text
    assert 'href="/ch/1/end"' in ch1.text


def test_section_13_has_cards_in_reading_order(client):
    r = client.get("/ch/1/1.3")
    assert r.status_code == 200
    order = [m for m in ('id="eg-1-1"', 'id="fig-1-10"', 'id="ex-1-3"') if m in r.text]
    assert order == ['id="eg-1-1"', 'id="fig-1-10"', 'id="ex-1-3"'], order
    assert r.text.index('id="eg-1-1"') < r.text.index('id="fig-1-10"') < r.text.index('id="ex-1-3"')


def test_unknown_card_404(client):
    assert client.get("/cards/fig-1-8").status_code == 404
    assert client.get("/api/cards/fig-1-8").status_code == 404


def test_eg11_batch_rejections_name_batch(client):
    for bad in ("0", "abc", "1e308", "nan", "inf", "-3", "2.5"):
        r = client.get("/api/cards/eg-1-1", params={"batch": bad})
        assert r.status_code == 422, bad
        d = r.json()["detail"][0]
        assert d["field"] == "batch" and "batch" in d["msg"] and "1–512" in d["msg"]


def test_repeated_scalar_key_rejected_unknown_ignored(client):
    assert client.get("/api/cards/eg-1-1?batch=2&batch=3").status_code == 422
    r = client.get("/api/cards/eg-1-1?nonsense=1&batch=2")
    assert r.status_code == 200 and r.json()["params"]["batch"] == 2


def test_absent_override_means_preset_blank_rejected(client):
    r = client.get("/api/cards/eg-1-1")
    assert r.status_code == 200 and r.json()["outputs"]["bw_eff_tbps"] == 3.35
    assert client.get("/api/cards/eg-1-1?bw_tbps=6.7").json()["outputs"]["t_step_ms"] < 11
    r = client.get("/api/cards/eg-1-1?bw_tbps=")
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "bw_tbps"


def test_etag_304(client):
    r = client.get("/cards/eg-1-1/fragment?batch=16")
    etag = r.headers["etag"]
    assert "max-age" in r.headers["cache-control"]
    r2 = client.get("/cards/eg-1-1/fragment?batch=16", headers={"If-None-Match": etag})
    assert r2.status_code == 304 and r2.content == b""
    r3 = client.get("/cards/eg-1-1/fragment?batch=17", headers={"If-None-Match": etag})
    assert r3.status_code == 200


def test_security_headers(client):
    r = client.get("/cards/eg-1-1")
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "object-src 'none'" in csp and "frame-ancestors 'self'" in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    e = client.get("/cards/eg-1-1?embed=1")
    assert "frame-ancestors *" in e.headers["content-security-policy"]
    assert "x-frame-options" not in e.headers
    assert 'class="site"' not in e.text


def test_no_inline_script(client):
    import re

    for url in ("/", "/ch/1", "/ch/1/1.3", "/cards/eg-1-1", "/present/eg-1-1"):
        html = client.get(url).text
        for m in re.finditer(r"<script([^>]*)>(.*?)</script>", html, re.S):
            attrs, body = m.groups()
            assert "src=" in attrs or 'type="application/json"' in attrs, (url, attrs)
        assert not re.search(r"\son[a-z]+=", html), url


def test_figure_csv_matches_plotted_data(client):
    import csv
    import io
    import json
    import re

    frag = client.get("/cards/eg-1-1/fragment?batch=8").text
    fig = json.loads(
        re.search(r'<script type="application/json" class="figdata"[^>]*>(.*?)</script>', frag, re.S).group(1)
    )
    rows = list(csv.DictReader(io.StringIO(client.get("/cards/eg-1-1/figure/0.csv?batch=8").text)))
    first = fig["data"][0]
    got = [r for r in rows if r["series"] == first["name"]]
    assert [float(r["x"]) for r in got] == first["x"] and [float(r["y"]) for r in got] == first["y"]


def test_openapi_documents_each_card(client):
    spec = client.get("/openapi.json").json()
    op = spec["paths"]["/api/cards/eg-1-1"]["get"]
    names = {p["name"] for p in op["parameters"]}
    assert {"batch", "gpu", "bytes_per_param", "bw_tbps"} <= names


def test_every_catalog_id_is_registered_and_api_lists_them():
    import json
    from pathlib import Path

    from app.cards import REGISTRY

    cat = json.loads((Path(__file__).parent.parent / "data" / "catalog_ids.json").read_text(encoding="utf-8"))
    assert set(REGISTRY) == set(cat)
    from fastapi.testclient import TestClient

    from tests.apps import build_app

    listed = [c["id"] for c in TestClient(build_app()).get("/api/cards").json()["cards"]]
    assert len([i for i in listed if cat[i]["file"] == "ch1.md"]) == 36
    assert len([i for i in listed if cat[i]["file"] == "ch3a.md"]) == 25
    assert len([i for i in listed if cat[i]["file"] == "ch3b.md"]) == 38


def test_integer_parameters_take_only_integers(client):
    for bad in ("+0.0", "1.0", "1e2", "0x10"):
        r = client.get("/api/cards/eg-1-1", params={"batch": bad})
        assert r.status_code == 422 and r.json()["detail"][0]["field"] == "batch", bad
    assert client.get("/api/cards/eg-1-1", params={"batch": "+8"}).json()["outputs"]["throughput_tok_s"] > 380
