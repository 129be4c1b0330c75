"""``/docs`` is self-contained: every script is a same-origin file that the app serves (no inline
script, no CDN), under the same strict CSP as every page; ``/redoc`` is off."""

from __future__ import annotations

import re


def test_docs_page_loads_only_same_origin_files(client):
    r = client.get("/docs")
    assert r.status_code == 200
    assert "script-src 'self'" in r.headers["content-security-policy"]
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", r.text, re.S)
    assert scripts and all('src="/static/' in attrs and body.strip() == "" for attrs, body in scripts), scripts
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', r.text)
    assert any("swagger-ui-bundle.js" in a for a in assets) and any("swagger-ui.css" in a for a in assets)
    for a in assets:
        assert client.get(a).status_code == 200, a
    assert "cdn" not in r.text.lower() and "http://" not in r.text and "https://" not in r.text


def test_redoc_is_off(client):
    assert client.get("/redoc").status_code == 404
