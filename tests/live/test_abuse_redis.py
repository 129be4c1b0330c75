"""Abuse suite, issue 39 point 5: Redis keeps the class. deploy/redis.conf (AOF, appendfsync everysec)
is what the project's Redis runs; the app asks the Redis it is given how it persists and warns when a
crash would lose everything (or says it could not check); a Redis that comes back without the class
ends its open streams (``event: ended``, ``lost: true``), never ``status ok``; and a Redis killed
(SIGKILL) mid-class keeps every acknowledged answer but about the last second's (everysec) or all of
them (always). Loopback redis-server and uvicorn, started here."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis
from app.live.redis_store import RedisStore, check_persistence
from bench.live_cluster import REDIS_CONF, call, free_port, run_coroutine, start_redis, start_uvicorn

from .conftest import api_class, api_join, need


@pytest.fixture(autouse=True)
def _redis_installed():
    need("redis-server")


def test_the_project_s_redis_runs_the_deploy_conf():
    text = REDIS_CONF.read_text()
    assert "\nappendonly yes\n" in text and "\nappendfsync everysec\n" in text
    proc, url = start_redis()
    try:
        r = redis.Redis.from_url(url, decode_responses=True)
        assert r.config_get("appendonly") == {"appendonly": "yes"}
        assert r.config_get("appendfsync") == {"appendfsync": "everysec"}
    finally:
        proc.stop()


@pytest.mark.parametrize(
    ("extra", "verdict", "says"),
    [
        ((), "aof", None),
        (("--appendonly", "no"), "none", "persists NOTHING"),
        (("--appendonly", "no", "--save", "900 1"), "rdb", "only snapshots"),
        (("--rename-command", "CONFIG", ""), "unknown", "could not check"),
    ],
)
def test_the_app_says_what_a_redis_crash_would_lose(caplog, extra, verdict, says):
    proc, url = start_redis(extra=extra)

    async def check():
        store = RedisStore(url.replace("redis://", "redis://:hunter2@"))  # a password never reaches the log
        try:
            return await check_persistence(store)
        finally:
            await store.close()

    try:
        with caplog.at_level(logging.INFO, logger="aiinfra.live"):
            assert run_coroutine(check()) == verdict
    finally:
        proc.stop()
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert all("hunter2" not in r.getMessage() for r in caplog.records)
    if says is None:
        assert warnings == []
    else:
        assert len(warnings) == 1 and says in warnings[0] and url.split("@")[-1].split("/0")[0] in warnings[0]


def test_the_check_runs_when_the_app_starts(caplog):
    from app.main import create_app
    from fastapi.testclient import TestClient

    from tests.apps import settings_for_tests

    proc, url = start_redis(extra=("--appendonly", "no"))
    try:
        with caplog.at_level(logging.WARNING, logger="aiinfra.live"):
            with TestClient(create_app(settings_for_tests(redis_url=url))):
                pass
    finally:
        proc.stop()
    assert any("persists NOTHING" in r.getMessage() for r in caplog.records)


# ------------------------------------------------------------------ a Redis that lost the class


async def _stream_until_ended(port: int, path: str, during, timeout: float = 20) -> bytes:
    r, w = await asyncio.open_connection("127.0.0.1", port)
    w.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    await w.drain()
    got = await r.read(4096)  # the headers and the current state
    task = asyncio.get_running_loop().run_in_executor(None, during)
    end = time.monotonic() + timeout
    try:
        while b"event: ended" not in got and time.monotonic() < end:
            try:
                chunk = await asyncio.wait_for(r.read(4096), 1)
            except TimeoutError:
                continue
            if not chunk:
                break
            got += chunk
    finally:
        w.close()
        await task
    return got


def test_a_redis_that_lost_the_class_ends_its_streams(tmp_path):
    rport = free_port()
    state = {"redis": start_redis(rport, extra=("--appendonly", "no"))[0]}
    port = free_port()
    env = {"AIINFRA_REDIS_URL": f"redis://127.0.0.1:{rport}/0", "AIINFRA_LIVE_KEEPALIVE_S": "1", "AIINFRA_WARM": "0"}
    app = start_uvicorn(port, env, tmp_path / "app.log")
    try:
        base = f"http://127.0.0.1:{port}"
        k = api_class(base)
        cred = api_join(base, k)

        def crash_and_come_back_empty():
            state["redis"].kill()  # SIGKILL, and nothing on disk: it restarts without the class
            time.sleep(1.0)
            state["redis"] = start_redis(rport, extra=("--appendonly", "no"))[0]

        got = run_coroutine(
            _stream_until_ended(port, f"/api/live/{k.code}/events?participant={cred}", crash_and_come_back_empty)
        ).decode()
        assert "event: ended" in got and '"lost":true' in got, got[-600:]
        before_end = got[: got.index("event: ended")]
        assert '"ok":true' not in before_end  # before: status ok=true for a class that no longer exists
        assert call(base, "GET", f"/api/live/{k.code}")[0] == 404
    finally:
        app.stop()
        state["redis"].stop()


# ------------------------------------------------------------------ kill -9 mid-class: acknowledged answers kept


def _join(base: str, k, address: str) -> str:
    """A participant joined from ``address``, as a phone would: again after a 503 (Retry-After 2 s). With
    appendfsync always on a loaded machine, one of 300 joins can outlast STORE_TIMEOUT_S and get the
    store's 503 (seen once in a full run); the class and the kill under test come after the joins."""
    for _ in range(3):
        status, body = call(base, "POST", f"/api/live/{k.code}/join", {}, headers={"X-Forwarded-For": address})
        if status != 503:
            break
        time.sleep(0.5)
    assert status == 200, body
    return body["participant"]


def _kill_mid_class(tmp_path, fsync: str, n: int = 300) -> dict:
    rport, d = free_port(), tmp_path / f"redis-{fsync}"
    d.mkdir()
    rproc = start_redis(rport, data_dir=d, fsync=fsync)[0]
    port = free_port()
    env = {"AIINFRA_REDIS_URL": f"redis://127.0.0.1:{rport}/0", "AIINFRA_WARM": "0"}
    app = start_uvicorn(port, env, tmp_path / f"app-{fsync}.log")
    base = f"http://127.0.0.1:{port}"
    try:
        k = api_class(base)
        status, q = call(base, "POST", f"/api/live/{k.code}/questions", {"card": "eg-1-1", "key": "b_star"}, k.token)
        assert status == 201, q
        creds = [_join(base, k, f"198.51.{i // 200}.{i % 200 + 1}") for i in range(n)]
        acked: dict[str, float] = {}
        lock, killed = threading.Lock(), {}

        def answer(cred: str) -> None:
            path = f"/api/live/{k.code}/questions/{q['qid']}/answers"
            status, _ = call(base, "POST", path, {"participant": cred, "value": 148}, timeout=5)
            if status == 200:
                with lock:
                    acked[cred.split(".")[3]] = time.monotonic()
                    if len(acked) == n // 2 and not killed:
                        killed["t"] = time.monotonic()
                        rproc.kill()  # SIGKILL mid-class: no goodbye, no last fsync

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(answer, creds))
        assert killed, "Redis was not killed"
        rproc = start_redis(rport, data_dir=d, fsync=fsync)[0]
        stored = set(redis.Redis(port=rport, decode_responses=True).hkeys(f"aiinfra:live:a:{k.code}:{q['qid']}"))
        t = killed["t"]
        return {
            "acked": len(acked),
            "kept": len(stored & set(acked)),
            "last_1s": sum(1 for x in acked.values() if x > t - 1.0),
            "last_2s": sum(1 for x in acked.values() if x > t - 2.0),
            "rate": len(acked) / max(1e-3, max(acked.values()) - min(acked.values())),
        }
    finally:
        app.stop()
        rproc.stop()


def test_a_redis_killed_mid_class_keeps_all_but_about_a_second_of_answers(tmp_path):
    """appendfsync everysec (deploy/redis.conf): what was acknowledged more than ~1 s before the kill
    is on disk. Measured here on loopback: see the printed line (docs/live-class.md has the figures)."""
    m = _kill_mid_class(tmp_path, "everysec")
    print(f"\neverysec: {m['kept']}/{m['acked']} acknowledged answers kept; {m['last_1s']} acked in the last 1 s")
    assert m["acked"] >= 120
    assert m["acked"] - m["kept"] <= max(m["last_2s"], 5)  # at most the last ~1–2 s (fsync once a second)


def test_with_appendfsync_always_a_kill_loses_no_acknowledged_answer(tmp_path):
    m = _kill_mid_class(tmp_path, "always")
    print(f"\nalways: {m['kept']}/{m['acked']} acknowledged answers kept ({m['rate']:.0f} answers/s)")
    assert m["acked"] >= 120 and m["kept"] == m["acked"]
