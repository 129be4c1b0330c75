"""Faults answer clearly: with Redis stopped or frozen every live route answers 503 in the app's
JSON error shape (pages: a short HTML page) with Retry-After within 2 s — never a 500 or a reset
connection; an open event stream says the store went away and carries on; after Redis returns,
no request gets a 5xx (health-checked pool, one retry on a fresh connection). redis-server is
started here (with an append-only file, so its restart keeps the class)."""

from __future__ import annotations

import json
import signal
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from bench.live_cluster import free_port, start_redis, start_uvicorn

from .conftest import api_class, api_join, need


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.3) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    need("redis-server")
    d = tmp_path_factory.mktemp("redis-fault")
    rport = free_port()
    state = {"redis": start_redis(rport, data_dir=d)[0], "rport": rport, "dir": d}
    port = free_port()
    env = {"AIINFRA_REDIS_URL": f"redis://127.0.0.1:{rport}/0", "AIINFRA_LIVE_KEEPALIVE_S": "1", "AIINFRA_WARM": "0"}
    app = start_uvicorn(port, env, d / "app.log")
    state["base"] = f"http://127.0.0.1:{port}"
    yield state
    app.stop()
    state["redis"].stop()


def _restart_redis(cluster) -> None:
    cluster["redis"].stop()
    cluster["redis"] = start_redis(cluster["rport"], data_dir=cluster["dir"])[0]
    assert _ping(cluster["rport"])


def _routes(k, cred):
    """One request of every kind a class makes (method, path, JSON body or None, token?)."""
    return [
        ("GET", f"/api/live/{k.code}", None, False),
        ("POST", "/api/live", {"card": "eg-1-1"}, False),
        ("POST", f"/api/live/{k.code}/join", {"participant": cred}, False),
        ("POST", f"/api/live/{k.code}/questions/1/answers", {"participant": cred, "value": 140}, False),
        ("GET", f"/api/live/{k.code}/questions/1/results", None, False),
        ("PUT", f"/api/live/{k.code}/state", {"card": "eg-1-1", "query": "batch=3"}, True),
        ("POST", f"/api/live/{k.code}/share", {"participant": cred, "card": "eg-1-1"}, False),
        ("GET", f"/api/live/{k.code}/events?participant={cred}", None, False),
        ("GET", f"/api/live/{k.code}/results.csv", None, True),
        ("DELETE", "/api/live/ZZZZZZ", None, True),
    ]


def _send(base, k, route, timeout=5.0):
    method, path, body, auth = route
    headers = {"Authorization": f"Bearer {k.token}"} if auth else {}
    # the client is made before the clock starts: an httpx client builds an SSL context (~0.1 s, and
    # ~0.5 s each when ten threads build theirs at once), which is the test's own time, not the server's
    with httpx.Client(timeout=timeout) as c:
        t0 = time.perf_counter()
        r = c.request(method, base + path, json=body, headers=headers)
        return r, time.perf_counter() - t0


def _class_with_a_question(base):
    k = api_class(base)
    r = httpx.post(
        f"{base}/api/live/{k.code}/questions",
        json={"card": "eg-1-1", "key": "b_star", "query": ""},
        headers={"Authorization": f"Bearer {k.token}"},
    )
    assert r.status_code == 201
    return k, api_join(base, k)


def _assert_clear_503(r: httpx.Response, took: float, what) -> None:
    assert r.status_code == 503, (what, r.status_code, r.text[:200])
    assert took < 2.0, (what, took)
    assert r.headers["retry-after"] == "2"
    body = r.json()
    assert body["detail"][0]["field"] == "store" and "暂时不可用" in body["detail"][0]["msg"]


def test_redis_down_then_back(cluster):
    base = cluster["base"]
    k, cred = _class_with_a_question(base)
    stream = httpx.Client(timeout=10).stream("GET", f"{base}/api/live/{k.code}/events", params={"participant": cred})
    resp = stream.__enter__()
    lines = resp.iter_lines()
    assert next(line for line in lines if line.startswith("data:"))
    cluster["redis"].stop()
    try:
        for route in _routes(k, cred):
            r, took = _send(base, k, route)
            _assert_clear_503(r, took, route[:2])
        page = httpx.get(f"{base}/live/{k.code}", timeout=5)
        assert page.status_code == 503 and "课堂服务暂时不可用" in page.text
        # the open stream stays and says why nothing moves
        status = None
        for line in lines:
            if line.startswith("event: status"):
                status = json.loads(next(lines)[5:])
                break
        assert status == {"ok": False, "retry_ms": 1500}
    finally:
        cluster["redis"] = start_redis(cluster["rport"], data_dir=cluster["dir"])[0]
    assert _ping(cluster["rport"])
    results = _burst_after_return(base, k, cred)
    assert [s for s, _ in results if s >= 500] == [], results
    # the stream says the store is back, and moves again (the class survived: Redis kept its file)
    for line in lines:
        if line.startswith("event: status"):
            assert json.loads(next(lines)[5:])["ok"] is True
            break
    stream.__exit__(None, None, None)


def _burst_after_return(base, k, cred) -> list[tuple[int, str]]:
    """60 requests over the 3 s after Redis is back, 6 at a time, of every kind."""
    routes = [r for r in _routes(k, cred) if "events" not in r[1]]
    out: list[tuple[int, str]] = []
    with ThreadPoolExecutor(6) as pool:
        for i in range(10):
            got = pool.map(lambda rt: (_send(base, k, rt)[0].status_code, rt[1]), routes[:6] if i % 2 else routes[-6:])
            out += list(got)
            time.sleep(0.25)
    assert len(out) == 60
    return out


def test_redis_frozen_answers_503_in_time(cluster):
    base = cluster["base"]
    k, cred = _class_with_a_question(base)
    proc = cluster["redis"].popen
    proc.send_signal(signal.SIGSTOP)
    try:
        with ThreadPoolExecutor(10) as pool:  # at once: the pool's connections all hang, the rest wait
            got = list(pool.map(lambda rt: (_send(base, k, rt), rt[:2]), _routes(k, cred) * 4))
        for (r, took), what in got:
            _assert_clear_503(r, took, what)
    finally:
        proc.send_signal(signal.SIGCONT)
    results = _burst_after_return(base, k, cred)
    assert [s for s, _ in results if s >= 500] == [], results


def test_redis_restarted_while_idle_no_stale_connections(cluster):
    """The issue's case: Redis restarts while the app's pooled connections sit idle; the next
    requests must not meet those dead sockets."""
    base = cluster["base"]
    k, cred = _class_with_a_question(base)
    with ThreadPoolExecutor(8) as pool:  # fill the pool with connections
        list(pool.map(lambda _: httpx.get(f"{base}/api/live/{k.code}"), range(32)))
    _restart_redis(cluster)
    results = _burst_after_return(base, k, cred)
    assert [s for s, _ in results if s >= 500] == [], results
    assert httpx.get(f"{base}/api/live/{k.code}").json()["question"]["key"] == "b_star"
