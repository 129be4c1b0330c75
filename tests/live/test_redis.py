"""Redis: several processes serve one class. Followers split across two instances receive every
change in order whichever instance took the write; answers and follower counts are shared; the
state outlives both instances; `make serve-prod` with two workers runs on Redis and refuses
to start without it."""

from __future__ import annotations

import asyncio
import os
import subprocess

import pytest
from bench.live_cluster import ROOT, Follower, call, free_port, run_coroutine, start_serve_prod, start_uvicorn

from .conftest import api_class, api_join


@pytest.fixture(scope="module")
def two_instances(redis_url, tmp_path_factory):
    log = tmp_path_factory.mktemp("redis-live") / "app.log"
    env = {"AIINFRA_REDIS_URL": redis_url, "AIINFRA_LIVE_KEEPALIVE_S": "1", "AIINFRA_WARM": "0"}
    ports = [free_port(), free_port()]
    procs = [start_uvicorn(p, env, log) for p in ports]
    yield [f"http://127.0.0.1:{p}" for p in ports], ports
    for p in procs:
        p.stop()


async def _follow(ports, code, n_each, changes):
    stop = asyncio.Event()
    base = f"http://127.0.0.1:{ports[0]}"
    creds = await asyncio.to_thread(lambda: [api_join(base, _K(code)) for _ in range(n_each * len(ports))])
    fs = [Follower("127.0.0.1", port, code, creds.pop()) for port in ports for _ in range(n_each)]
    tasks = [asyncio.create_task(f.run(stop, reconnect=False)) for f in fs]
    await asyncio.wait_for(asyncio.gather(*(f.connected.wait() for f in fs)), 30)
    await asyncio.sleep(0.3)
    await asyncio.to_thread(changes)
    for _ in range(100):
        if all(f.last is not None and f.last >= fs[0].last for f in fs) and fs[0].last and fs[0].last > 1:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return fs


class _K:
    """Just a code, for api_join."""

    def __init__(self, code):
        self.code = code


def test_followers_on_both_instances_get_every_change_in_order(two_instances):
    (a, b), ports = two_instances
    k = api_class(a)

    def changes():
        for i in range(30):  # writes alternate between the instances
            status, body = call(
                (a, b)[i % 2],
                "PUT",
                f"/api/live/{k.code}/state",
                {"card": "eg-1-1", "query": f"batch={i + 2}"},
                k.token,
            )
            assert status == 200, body

    fs = run_coroutine(_follow(ports, k.code, 10, changes))
    for f in fs:
        assert f.seqs == list(range(1, 32)), (f.participant, f.seqs)
        assert f.lost == 0 and f.out_of_order == 0 and f.errors == 0


def test_state_answers_and_followers_are_shared(two_instances):
    (a, b), ports = two_instances
    k = api_class(a)
    assert call(b, "GET", f"/api/live/{k.code}")[1]["seq"] == 1
    status, q = call(
        b, "POST", f"/api/live/{k.code}/questions", {"card": "eg-1-1", "key": "b_star", "query": ""}, k.token
    )
    assert status == 201
    # a credential one instance issued is good on the other: the key is shared through Redis
    creds = [api_join((a, b)[i % 2], k) for i in range(40)]
    for i, cred in enumerate(creds):
        status, _ = call(
            (b, a)[i % 2],
            "POST",
            f"/api/live/{k.code}/questions/{q['qid']}/answers",
            {"participant": cred, "value": 148},
        )
        assert status == 200
    res = call(a, "GET", f"/api/live/{k.code}/questions/{q['qid']}/results", token=k.token)[1]
    assert res["answered"] == 40 and res["verdicts"]["correct"] == 40
    fs = run_coroutine(_hold(ports, k.code, creds[:6]))
    assert fs == 6  # six streams, three on each instance, counted once each across both
    call(a, "POST", f"/api/live/{k.code}/questions/{q['qid']}/close", token=k.token)
    body = {"participant": creds[0], "value": 1}
    assert call(b, "POST", f"/api/live/{k.code}/questions/{q['qid']}/answers", body)[0] == 409
    status, snap = call(
        b, "POST", f"/api/live/{k.code}/share", {"participant": creds[1], "card": "eg-1-1", "query": "batch=3"}
    )
    assert status == 201
    assert call(a, "GET", f"/api/live/{k.code}/snapshots", token=k.token)[1]["snapshots"][0]["query"] == "batch=3"
    assert call(a, "GET", f"/api/live/{k.code}/snapshots")[0] == 401


async def _hold(ports, code, creds):
    """Open a stream per credential (alternating instances) and read the follower count meanwhile."""
    stop = asyncio.Event()
    fs = [Follower("127.0.0.1", ports[i % 2], code, c) for i, c in enumerate(creds)]
    tasks = [asyncio.create_task(f.run(stop, reconnect=False)) for f in fs]
    await asyncio.wait_for(asyncio.gather(*(f.connected.wait() for f in fs)), 30)
    await asyncio.sleep(0.3)
    n = (await asyncio.to_thread(call, f"http://127.0.0.1:{ports[1]}", "GET", f"/api/live/{code}"))[1]["followers"]
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return n


def test_ending_on_one_instance_is_410_on_both_and_frees_the_slot(two_instances):
    (a, b), _ = two_instances
    me = {"X-Forwarded-For": "198.19.7.7"}
    ks = [api_class(a, headers=me) for _ in range(5)]
    assert call(b, "POST", "/api/live", {}, headers=me)[0] == 429  # open classes per address, across instances
    assert call(b, "DELETE", f"/api/live/{ks[0].code}", token=ks[0].token)[0] == 204
    assert call(a, "GET", f"/api/live/{ks[0].code}")[0] == 410
    assert call(b, "GET", f"/api/live/{ks[0].code}")[0] == 410
    assert call(a, "POST", "/api/live", {}, headers=me)[0] == 201


def test_redis_keys_expire_after_idle(two_instances, redis_url):
    import redis

    (a, _), _ = two_instances
    k = api_class(a)
    call(a, "POST", f"/api/live/{k.code}/questions", {"card": "eg-1-1", "key": "b_star", "query": ""}, k.token)
    cred = api_join(a, k)
    call(a, "POST", f"/api/live/{k.code}/questions/1/answers", {"participant": cred, "value": 148})
    r = redis.Redis.from_url(redis_url)
    keys = r.keys(f"aiinfra:live:*{k.code}*")
    assert len(keys) >= 4
    from app.live.limits import IDLE_TTL_S

    for key in keys:
        ttl = r.ttl(key)
        assert 0 < ttl <= IDLE_TTL_S, (key, ttl)


def test_serve_prod_two_workers_with_redis(redis_url, tmp_path):
    port = free_port()
    p = start_serve_prod(port, {"AIINFRA_REDIS_URL": redis_url}, workers=2, log=tmp_path / "prod.log")
    try:
        base = f"http://127.0.0.1:{port}"
        k = api_class(base)

        def changes():
            for i in range(10):
                assert (
                    call(
                        base, "PUT", f"/api/live/{k.code}/state", {"card": "eg-1-1", "query": f"batch={i + 2}"}, k.token
                    )[0]
                    == 200
                )

        fs = run_coroutine(_follow([port], k.code, 16, changes))
        assert all(f.seqs == list(range(1, 12)) for f in fs), [f.seqs for f in fs]
        assert "Booting worker" in (tmp_path / "prod.log").read_text()
    finally:
        p.stop()


def test_serve_prod_refuses_several_workers_without_redis():
    env = {k: v for k, v in os.environ.items() if k != "AIINFRA_REDIS_URL"}
    r = subprocess.run(
        ["make", "-s", "serve-prod", f"PORT={free_port()}", "WORKERS=2"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode != 0
    assert "without AIINFRA_REDIS_URL" in r.stderr and "WORKERS=1" in r.stderr
