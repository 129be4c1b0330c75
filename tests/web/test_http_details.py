"""HTTP details a cache or a client relies on: one ``Vary`` header on fragments, an ETag valid for
both the gzip and the identity bytes (weak) with If-None-Match handled by the weak comparison, and
bodies over the limit answered 413 in the JSON error shape, readable by Python's urllib from a real
uvicorn (the body is read before the answer)."""

from __future__ import annotations

import gzip
import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from app.web.limits import MAX_BODY
from bench.live_cluster import free_port, start_uvicorn

ROOT = Path(__file__).resolve().parents[2]
BIG = "/cards/ex-1-3/fragment"  # well over GZipMiddleware's 800-byte minimum


def _vary(r) -> list[str]:
    return r.headers.get_list("vary")


@pytest.mark.parametrize("encoding", ["gzip", "identity"])
def test_fragment_sends_one_vary(client, encoding):
    r = client.get(BIG, headers={"Accept-Encoding": encoding})
    assert r.status_code == 200
    assert len(r.content) > 800
    assert (r.headers.get("content-encoding") == "gzip") == (encoding == "gzip")
    assert _vary(r) == ["Accept-Encoding"], _vary(r)
    r304 = client.get(BIG, headers={"Accept-Encoding": encoding, "If-None-Match": r.headers["etag"]})
    assert r304.status_code == 304 and _vary(r304) == ["Accept-Encoding"]


def test_etag_is_weak_and_serves_both_representations(client):
    z = client.get(BIG + "?x=1", headers={"Accept-Encoding": "gzip"})
    i = client.get(BIG + "?x=1", headers={"Accept-Encoding": "identity"})
    assert z.headers["content-encoding"] == "gzip" and "content-encoding" not in i.headers
    assert z.headers["etag"].startswith('W/"') and z.headers["etag"] == i.headers["etag"]
    assert z.content == i.content  # httpx decodes the gzip bytes: the same document
    etag = z.headers["etag"]
    strong = etag.removeprefix("W/")
    for inm in (etag, strong, f'"nope", {etag}', "*"):
        for enc in ("gzip", "identity"):
            r = client.get(BIG + "?x=1", headers={"Accept-Encoding": enc, "If-None-Match": inm})
            assert r.status_code == 304 and r.content == b"", (inm, enc)
            assert r.headers["etag"] == etag
    other = client.get("/cards/ex-1-3/fragment?x=2", headers={"If-None-Match": '"nope"'})
    assert other.status_code == 200
    changed = client.get("/cards/eg-1-1/fragment?batch=17", headers={"If-None-Match": etag})
    assert changed.status_code == 200


def _assert_413(status: int, body: bytes, size: int | None):
    assert status == 413
    item = json.loads(body)["detail"][0]
    assert item["loc"] == ["body"] and item["field"] == "body" and item["type"] == "too_large"
    assert f"{MAX_BODY:,}" in item["msg"]
    if size is not None:
        assert f"{size:,}" in item["msg"]


@pytest.mark.parametrize("path", ["/api/models/derive", "/api/cards/ex-1-3/check"])
def test_body_over_limit_is_413(client, path):
    size = 5 * 1024 * 1024
    r = client.post(path, content=b" " * size, headers={"content-type": "application/json"})
    _assert_413(r.status_code, r.content, size)
    assert r.headers["connection"] == "close" and r.headers["cache-control"] == "no-store"

    def chunks():
        for _ in range(3):
            yield b" " * MAX_BODY

    r = client.post(path, content=chunks(), headers={"content-type": "application/json"})
    assert "content-length" not in r.request.headers
    _assert_413(r.status_code, r.content, None)


def test_chunked_body_under_limit_reaches_the_route(client):
    cfg = (ROOT / "data" / "models" / "qwen3-8b.json").read_bytes()
    r = client.post(
        "/api/models/derive", content=iter([cfg[:100], cfg[100:]]), headers={"content-type": "application/json"}
    )
    assert "content-length" not in r.request.headers
    assert r.status_code == 200 and r.json()["params_total"] == 8_190_735_360
    body = json.dumps({"answers": {"t_step_ms_b1": 29.85}}).encode()
    r = client.post("/api/cards/ex-1-3/check", content=iter([body]), headers={"content-type": "application/json"})
    assert r.json()["results"]["t_step_ms_b1"]["verdict"] == "correct"


@pytest.fixture(scope="module")
def real_server():
    port = free_port()
    # no card pre-render (AIINFRA_WARM=0): the server is up sooner, and no test here reads it
    proc = start_uvicorn(port, {"PYTHONDONTWRITEBYTECODE": "1", "AIINFRA_WARM": "0"})
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.stop()


def test_urllib_reads_the_413_from_a_real_server(real_server):
    size = 5 * 1024 * 1024
    req = urllib.request.Request(
        real_server + "/api/models/derive",
        method="POST",
        data=b" " * size,
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=30)
    _assert_413(e.value.code, e.value.read(), size)
    assert e.value.headers["Connection"] == "close"
    # the server is still fine afterwards
    assert urllib.request.urlopen(real_server + "/healthz", timeout=10).read() == b"ok"


def test_real_server_gzip_and_vary(real_server):
    req = urllib.request.Request(real_server + BIG, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.headers["Content-Encoding"] == "gzip"
        assert r.headers.get_all("Vary") == ["Accept-Encoding"]
        assert b"<" in gzip.decompress(r.read())


def test_drain_stops_at_its_hard_cap():
    """An endless body is read up to the drain cap only, then answered 413 (and the connection closed)."""
    from app.web.limits import BodyLimit

    from tests.aio import run_async

    async def app(scope, receive, send):  # never reached
        raise AssertionError("the route must not see an oversized body")

    read, sent = [0], []

    async def receive():
        read[0] += 1000
        return {"type": "http.request", "body": b"x" * 1000, "more_body": True}

    async def send(msg):
        sent.append(msg)

    for headers in ([(b"content-length", b"99999999")], [(b"transfer-encoding", b"chunked")]):
        read[0], sent[:] = 0, []
        mw = BodyLimit(app, max_body=5_000, drain_cap=50_000)
        run_async(mw({"type": "http", "method": "POST", "headers": headers}, receive, send))
        assert 50_000 <= read[0] <= 52_000, (headers, read[0])
        assert sent[0]["status"] == 413 and (b"connection", b"close") in sent[0]["headers"]
        assert json.loads(sent[1]["body"])["detail"][0]["type"] == "too_large"


ETAGS = """
from app.cards import REGISTRY
from app.chapters import load_all
from app.render import fragment_html
from app.web.edge import etag_of
load_all()
for cid in sorted(REGISTRY):
    print(cid, etag_of(fragment_html(REGISTRY[cid], REGISTRY[cid].defaults()).encode()))
"""


def test_every_worker_sends_the_same_bytes_for_one_state(tmp_path):
    """Two processes with different string hashing (as two workers have) render the same fragment
    bytes for every card, so an ETag from one worker is a 304 at the other. Cards whose section
    prose quotes several of their values (the fragment ships those values as JSON) differed."""
    import os
    import subprocess
    import sys

    from app.cards import REGISTRY

    out = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "AIINFRA_LIVE_DB": str(tmp_path / "x.db")}
        out.append(
            subprocess.run(
                [sys.executable, "-c", ETAGS], cwd=ROOT, env=env, capture_output=True, text=True, check=True
            ).stdout.split("\n")
        )
    assert out[0] == out[1]
    assert len([line for line in out[0] if line]) == len(REGISTRY) >= 99


def test_answers_the_edge_passes_by_are_compressed_once(client):
    """What is not the edge's (the live class here) goes through GZip alone: compressed for a client that
    takes gzip, one Vary header, the security headers still on; a client that takes none gets identity."""
    z = client.get("/live/card/eg-1-1", headers={"Accept-Encoding": "gzip"})
    assert z.status_code == 200 and z.headers["content-encoding"] == "gzip"
    assert _vary(z) == ["Accept-Encoding"] and "script-src 'self'" in z.headers["content-security-policy"]
    i = client.get("/live/card/eg-1-1", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in i.headers and i.content == z.content and len(i.content) > 800
    assert "etag" not in z.headers  # not an edge entry: the live class is never kept
