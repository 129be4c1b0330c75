"""The one HTTP cache in front of the app (app/web/edge.py + the key of app/web/urls.py): keyed by the
normalised URL, bounded by bytes, never keeping what is not public, and the only place that answers
a URL seen before."""

from __future__ import annotations

import pytest
from app.web.edge import EdgeCache
from app.web.urls import cache_key
from fastapi.testclient import TestClient

from tests.apps import build_app


class Counting:
    """The app behind the edge, counting what reaches it."""

    def __init__(self, app):
        self.app, self.calls = app, 0

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            self.calls += 1
        await self.app(scope, receive, send)


@pytest.fixture(scope="module")
def inner():
    return build_app(edge_mb=0)  # the app's own edge keeps nothing: the test's edge is the one observed


def edge_client(inner, max_bytes: int = 10_000_000) -> tuple[TestClient, EdgeCache, Counting]:
    counting = Counting(inner)
    edge = EdgeCache(counting, max_bytes, key=cache_key)
    return TestClient(edge), edge, counting


def test_unknown_parameters_make_no_new_entry(inner):
    c, edge, app = edge_client(inner)
    first = c.get("/cards/eg-1-1/fragment?batch=16")
    bodies = {c.get(f"/cards/eg-1-1/fragment?batch=16&utm_source=x{i}").content for i in range(300)}
    assert bodies == {first.content}
    assert len(edge.entries) == 1 and app.calls == 1


def test_known_parameters_in_another_order_are_the_same_entry(inner):
    c, edge, app = edge_client(inner)
    a = c.get("/cards/eg-1-1/fragment?batch=16&tp=2")
    b = c.get("/cards/eg-1-1/fragment?tp=2&batch=16")
    assert a.status_code == b.status_code == 200 and a.content == b.content
    assert len(edge.entries) == 1 and app.calls == 1


def test_view_flags_are_part_of_the_key(inner):
    c, edge, app = edge_client(inner)
    on = c.get("/cards/ex-1-1/fragment")
    off = c.get("/cards/ex-1-1/fragment?solutions=off")
    assert "查看解答" in on.text and "查看解答" not in off.text
    assert len(edge.entries) == 2


def test_memory_stays_within_its_byte_bound(inner):
    bound = 150_000
    c, edge, app = edge_client(inner, bound)
    for b in range(1, 120):
        assert c.get(f"/cards/eg-1-1/fragment?batch={b}", headers={"Accept-Encoding": "br, gzip"}).status_code == 200
        assert edge.bytes <= bound
        assert edge.bytes == sum(e.size(k) for k, e in edge.entries.items())
    assert 0 < len(edge.entries) < 119  # the oldest went first
    assert "/cards/eg-1-1/fragment?batch=119" in edge.entries and "/cards/eg-1-1/fragment?batch=1" not in edge.entries


def test_rejected_and_private_answers_are_not_kept(inner):
    c, edge, app = edge_client(inner)
    assert c.get("/cards/eg-1-1/fragment?batch=0").status_code == 422
    assert c.get("/cards/eg-1-1/fragment?batch=0").status_code == 422
    assert app.calls == 2 and not edge.entries


def test_a_kept_answer_is_revalidated_and_compressed_once_per_encoding(inner):
    c, edge, app = edge_client(inner)
    r = c.get("/cards/eg-1-1/fragment?batch=3", headers={"Accept-Encoding": "br"})
    assert r.headers["content-encoding"] == "br" and r.headers["etag"].startswith('W/"')
    again = c.get("/cards/eg-1-1/fragment?batch=3", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    c.get("/cards/eg-1-1/fragment?batch=3", headers={"Accept-Encoding": "br"})
    assert set(edge.entries["/cards/eg-1-1/fragment?batch=3"].bodies) == {"identity", "br"} and app.calls == 1


@pytest.mark.parametrize(
    ("path", "query", "key"),
    [
        ("/cards/eg-1-1/fragment", b"utm=1&batch=16", "/cards/eg-1-1/fragment?batch=16"),
        ("/api/cards/eg-1-1", b"batch=16&x=1", "/api/cards/eg-1-1?batch=16"),
        ("/cards/eg-1-1", b"embed=1&ref=a", "/cards/eg-1-1?embed=1"),
        ("/ch/1/1.3", b"utm_source=x", "/ch/1/1.3"),
        ("/present/deck", b"c=eg-1-1&at=1&z=9", "/present/deck?at=1&c=eg-1-1"),
        ("/tools/fit", b"tp=2&utm=1", "/tools/fit?tp=2"),
        ("/static/app.js", b"v=1", None),
        ("/live/ABC234", b"", None),
        ("/api/live/ABC234/events", b"", None),
        ("/cards/fig-1-11", b"batch=16", None),  # an alias: a redirect, not kept
        ("/somewhere/else", b"a=1", None),
    ],
)
def test_cache_key(path, query, key):
    assert cache_key(path, query) == key
