"""Every limit in app/live/limits.py, at its real value, with the clear message a user sees."""

from __future__ import annotations

import time
import types

import pytest
from app.live import limits, sqlite_store

from .conftest import start_class


@pytest.fixture
def frozen(monkeypatch):
    """Rate windows at a fixed instant (no window boundary in the middle of a test)."""
    now = [time.time() // 60 * 60 + 0.5]  # the start of a minute: every window starts here
    monkeypatch.setattr(sqlite_store, "time", types.SimpleNamespace(time=lambda: now[0]))
    return now


def test_followers_per_session(client, klass):
    assert limits.MAX_FOLLOWERS == 1_000
    for i in range(limits.MAX_FOLLOWERS):
        r = client.post(f"/api/live/{klass.code}/join", json={"device": f"device-{i:05d}"})
        assert r.status_code == 200, (i, r.text)
    assert r.json()["followers"] == limits.MAX_FOLLOWERS
    full = client.post(f"/api/live/{klass.code}/join", json={"device": "device-extra"})
    assert full.status_code == 503
    assert full.json()["detail"][0]["msg"] == "code:本课堂已满:最多 1,000 人同时跟随"
    assert client.get(f"/api/live/{klass.code}/events?device=device-extra").status_code == 503
    # someone already in can come back (a phone that slept), and the count stays at the limit
    assert client.post(f"/api/live/{klass.code}/join", json={"device": "device-00007"}).status_code == 200
    assert client.get(f"/api/live/{klass.code}").json()["followers"] == limits.MAX_FOLLOWERS


def test_sessions_per_instance(client):
    assert limits.MAX_SESSIONS == 200
    for _ in range(limits.MAX_SESSIONS):
        start_class(client)
    r = client.post("/api/live", json={"card": "eg-1-1"})
    assert r.status_code == 503 and f"{limits.MAX_SESSIONS} 个" in r.json()["detail"][0]["msg"]


def test_expired_sessions_do_not_count_and_are_purged(client, store):
    k = start_class(client)
    db = store._conn(create=False)
    db.execute("UPDATE sessions SET touched=? WHERE code=?", (time.time() - limits.IDLE_TTL_S - 1, k.code))
    assert client.get(f"/api/live/{k.code}").status_code == 404
    start_class(client)  # creating purges
    assert db.execute("SELECT COUNT(*) FROM sessions WHERE code=?", (k.code,)).fetchone()[0] == 0


def test_answers_are_rate_limited_per_device(client, klass, frozen):
    qid = client.post(
        f"/api/live/{klass.code}/questions", json={"card": "eg-1-1", "key": "b_star", "query": ""}, headers=klass.auth
    ).json()["qid"]
    url = f"/api/live/{klass.code}/questions/{qid}/answers"
    for i in range(limits.ANSWERS_PER_WINDOW):
        assert client.post(url, json={"device": "device-0001", "value": 100 + i}).status_code == 200
    r = client.post(url, json={"device": "device-0001", "value": 1})
    assert r.status_code == 429 and "作答太频繁" in r.json()["detail"][0]["msg"]
    assert client.post(url, json={"device": "device-0002", "value": 1}).status_code == 200  # per device
    frozen[0] += limits.ANSWER_WINDOW_S
    assert client.post(url, json={"device": "device-0001", "value": 148}).status_code == 200


def test_snapshots_are_rate_limited_per_device(client, klass, frozen):
    url = f"/api/live/{klass.code}/share"
    for _ in range(limits.SNAPSHOTS_PER_WINDOW):
        assert client.post(url, json={"device": "device-0001", "card": "eg-1-1"}).status_code == 201
    r = client.post(url, json={"device": "device-0001", "card": "eg-1-1"})
    assert r.status_code == 429 and "分享太频繁" in r.json()["detail"][0]["msg"]


def test_snapshots_kept_per_session(client, klass):
    for i in range(limits.MAX_SNAPSHOTS + 5):
        assert (
            client.post(
                f"/api/live/{klass.code}/share",
                json={"device": f"device-{i:04d}", "card": "eg-1-1", "query": f"batch={i + 1}"},
            ).status_code
            == 201
        )
    snaps = client.get(f"/api/live/{klass.code}/snapshots", headers=klass.auth).json()["snapshots"]
    assert len(snaps) == limits.MAX_SNAPSHOTS and snaps[0]["query"] == f"batch={limits.MAX_SNAPSHOTS + 5}"


def test_joins_are_rate_limited_per_device(client, klass, frozen):
    for _ in range(limits.JOINS_PER_WINDOW):
        assert client.post(f"/api/live/{klass.code}/join", json={"device": "device-0001"}).status_code == 200
    assert client.post(f"/api/live/{klass.code}/join", json={"device": "device-0001"}).status_code == 429


def test_body_size(client, klass):
    big = b'{"card": "eg-1-1", "query": "' + b"x" * limits.MAX_BODY_BYTES + b'"}'
    r = client.put(
        f"/api/live/{klass.code}/state", content=big, headers={**klass.auth, "Content-Type": "application/json"}
    )
    assert r.status_code == 413 and "64 KB" in r.json()["detail"][0]["msg"]
    r = client.post("/api/live", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_query_length(client, klass):
    r = client.put(
        f"/api/live/{klass.code}/state",
        json={"card": "eg-1-1", "query": "a=" + "1" * limits.MAX_QUERY_LEN},
        headers=klass.auth,
    )
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "query"


def test_nickname_length_and_characters(client, klass):
    url = f"/api/live/{klass.code}/join"
    assert client.post(url, json={"device": "device-0001", "nick": "字" * limits.NICK_MAX}).status_code == 200
    r = client.post(url, json={"device": "device-0002", "nick": "字" * (limits.NICK_MAX + 1)})
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "nick"
    assert client.post(url, json={"device": "device-0003", "nick": "a\u0007b"}).status_code == 422


def test_device_ids(client, klass):
    url = f"/api/live/{klass.code}/join"
    assert client.post(url, json={"device": "short"}).status_code == 422
    assert client.post(url, json={"device": "x" * (limits.DEVICE_MAX + 1)}).status_code == 422
    assert client.post(url, json={"device": "has space!"}).status_code == 422


def test_questions_per_session(client, klass, monkeypatch):
    monkeypatch.setattr("app.live.api.MAX_QUESTIONS", 3)
    for _ in range(3):
        assert (
            client.post(
                f"/api/live/{klass.code}/questions", json={"card": "eg-1-1", "key": "b_star"}, headers=klass.auth
            ).status_code
            == 201
        )
    r = client.post(f"/api/live/{klass.code}/questions", json={"card": "eg-1-1", "key": "b_star"}, headers=klass.auth)
    assert r.status_code == 429 and "最多提问 3 次" in r.json()["detail"][0]["msg"]
    assert limits.MAX_QUESTIONS == 200
