"""扫参 on Redis with two server processes: points are handed out distinctly whichever process a
phone asks, predictions and the reveal are shared, and a sweep started on one process reaches a
follower's event stream on the other. Nothing of a sweep lives only in one process's memory."""

from __future__ import annotations

import http.client
import json
import threading

import pytest
from bench.live_cluster import call, free_port, start_uvicorn

from .conftest import api_class, api_join, ask_at_once

SWEEP = {
    "card": "eg-1-1",
    "query": "",
    "vary": {"batch": [1, 2, 4, 8, 16, 32], "tp": [1, 2]},
    "predict": "t_step_ms",
    "x": "t_step_ms",
    "x_better": "lower",
    "y": "throughput_tok_s",
    "y_better": "higher",
}


@pytest.fixture(scope="module")
def two(redis_url, tmp_path_factory):
    log = tmp_path_factory.mktemp("redis-sweeps") / "app.log"
    env = {"AIINFRA_REDIS_URL": redis_url, "AIINFRA_LIVE_KEEPALIVE_S": "1", "AIINFRA_WARM": "0"}
    ports = [free_port(), free_port()]
    procs = [start_uvicorn(p, env, log) for p in ports]
    yield [f"http://127.0.0.1:{p}" for p in ports], ports
    for p in procs:
        p.stop()


def _first_event_with(port: int, code: str, cred: str, needle: str, out: dict, ready: threading.Event) -> None:
    """Read the event stream on ``port`` until a data line holds ``needle`` (or the socket times out)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    conn.request("GET", f"/api/live/{code}/events?participant={cred}", headers={"Accept": "text/event-stream"})
    resp = conn.getresponse()
    ready.set()
    try:
        while True:
            line = resp.fp.readline().decode()
            if not line:
                return
            if line.startswith("data:") and needle in line:
                out["event"] = json.loads(line[5:])
                return
    except TimeoutError:
        return
    finally:
        conn.close()


def test_sweep_across_two_processes(two):
    (a, b), ports = two
    k = api_class(a)
    listener = api_join(b, k)
    got: dict = {}
    ready = threading.Event()
    t = threading.Thread(target=_first_event_with, args=(ports[1], k.code, listener, '"sweep":{', got, ready))
    t.start()
    assert ready.wait(15)

    status, body = call(a, "POST", f"/api/live/{k.code}/sweeps", SWEEP, k.token)
    assert status == 201 and body["points"] == 12, body
    sid = body["sid"]
    t.join(20)
    ev = got.get("event")
    assert ev is not None, "the sweep never reached the stream on the other process"
    assert ev["sweep"]["sid"] == sid and ev["sweep"]["status"] == "open" and ev["sweep"]["predict"] == "t_step_ms"
    assert "points" not in ev["sweep"]

    # twelve phones alternate between the processes: twelve distinct points, then a repeat
    creds = [api_join((a, b)[i % 2], k) for i in range(13)]
    mine = []
    for i, cred in enumerate(creds):
        status, m = call((b, a)[i % 2], "GET", f"/api/live/{k.code}/sweeps/{sid}/mine?participant={cred}")
        assert status == 200, m
        mine.append(m)
    assert sorted(m["point"] for m in mine[:12]) == list(range(12))
    assert mine[12]["point"] == 0
    again = call(a, "GET", f"/api/live/{k.code}/sweeps/{sid}/mine?participant={creds[5]}")[1]
    assert again["point"] == mine[5]["point"]

    _, full = call(b, "GET", f"/api/live/{k.code}/sweeps/{sid}", token=k.token)
    truth = {p["i"]: p["truth"] for p in full["points"]}
    for i, cred in enumerate(creds[:6]):  # the first guess far off, the second right: the latest counts
        path = f"/api/live/{k.code}/sweeps/{sid}/predictions"
        assert call((a, b)[i % 2], "POST", path, {"participant": cred, "value": 1e6})[0] == 200
        assert call((b, a)[i % 2], "POST", path, {"participant": cred, "value": truth[mine[i]["point"]]})[0] == 200
    hidden = call(a, "GET", f"/api/live/{k.code}/sweeps/{sid}")[1]
    assert hidden == {"sid": sid, "status": "open", "npoints": 12, "predicted": 6}

    assert call(b, "POST", f"/api/live/{k.code}/sweeps/{sid}/reveal", token=k.token)[0] == 200
    assert call(a, "GET", f"/api/live/{k.code}")[1]["sweep"]["status"] == "revealed"
    status, res = call(a, "GET", f"/api/live/{k.code}/sweeps/{sid}?participant={creds[0]}")
    assert status == 200 and res["predicted"] == 6
    verdicts = [p["verdict"] for p in res["points"]]
    assert verdicts.count("correct") == 6 and verdicts.count(None) == 6
    assert res["mine"]["point"] == mine[0]["point"] and res["mine"]["verdict"] == "correct"
    assert [p["frontier"] for p in res["points"]] == [p["frontier"] for p in full["points"]]
    body = {"participant": creds[0], "value": 1}
    assert call(b, "POST", f"/api/live/{k.code}/sweeps/{sid}/predictions", body)[0] == 409


def test_sweep_keys_expire_with_the_class(two, redis_url):
    import redis
    from app.live.limits import IDLE_TTL_S

    (a, _), _ = two
    k = api_class(a)
    sid = call(a, "POST", f"/api/live/{k.code}/sweeps", SWEEP, k.token)[1]["sid"]
    cred = api_join(a, k)
    call(a, "POST", f"/api/live/{k.code}/sweeps/{sid}/predictions", {"participant": cred, "value": 20})
    r = redis.Redis.from_url(redis_url)
    keys = {key.decode() for key in r.keys(f"aiinfra:live:sw*:{k.code}*")}
    assert {f"aiinfra:live:sw:{k.code}", f"aiinfra:live:swst:{k.code}"} <= keys
    assert f"aiinfra:live:swo:{k.code}:{sid}" in keys and f"aiinfra:live:swp:{k.code}:{sid}" in keys
    for key in keys:
        assert 0 < r.ttl(key) <= IDLE_TTL_S, key


def test_points_handed_out_at_the_same_moment_on_two_processes_are_distinct(two):
    """A whole row of phones opening the sweep at once, spread over both processes: 24 phones, 12
    points, each point owned by exactly two (no point handed out twice before every point is out)."""
    (a, b), _ = two
    k = api_class(a)
    sid = call(a, "POST", f"/api/live/{k.code}/sweeps", SWEEP, k.token)[1]["sid"]
    creds = [api_join((a, b)[i % 2], k) for i in range(24)]
    points = ask_at_once([a, b], k.code, sid, creds)
    assert sorted(points) == sorted(list(range(12)) * 2)
    assert ask_at_once([b, a], k.code, sid, creds) == points  # asked again, each keeps its own
