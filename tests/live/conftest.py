"""Fixtures for the live class: an in-process client on a fresh SQLite file, real server processes
(uvicorn on SQLite; two workers of `make serve-prod` on Redis) and redis-server. Tests that need
Redis or nginx start them and skip only when the binary is missing (never under CI=true)."""

from __future__ import annotations

import itertools
import os
import threading
import time
import types
from dataclasses import dataclass, field

import pytest
from app.live.sqlite_store import SQLiteStore
from bench.live_cluster import call, free_port, missing, start_redis, start_uvicorn
from fastapi.testclient import TestClient


def need(*binaries: str) -> None:
    gone = missing(*binaries)
    if gone:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{', '.join(gone)} not installed: CI must run the live-class tests (.ci/run installs them)")
        pytest.skip(f"{', '.join(gone)} not installed (apt-get install {' '.join(gone)})")


@dataclass
class Class:
    """A started class: its code, the instructor's token and header, and the participant credential
    of each student a test names (joined once, on first use)."""

    code: str
    token: str
    follow_url: str
    control_url: str
    creds: dict = field(default_factory=dict)

    @property
    def auth(self) -> dict:
        return {"Authorization": f"Bearer {self.token}"}

    def who(self, client, name: str) -> str:
        """The participant credential of the student called ``name`` (joining them if new)."""
        if name not in self.creds:
            r = client.post(f"/api/live/{self.code}/join", json={})
            assert r.status_code == 200, r.text
            self.creds[name] = r.json()["participant"]
        return self.creds[name]


@pytest.fixture
def frozen(monkeypatch):
    """Rate windows and the stores' clock at a fixed instant: a test that counts up to a per-window limit
    must not cross a window boundary midway (under load, 1,000 joins can take longer than what is left
    of the minute, and the count starts again). Move it by hand: ``frozen[0] += 60``."""
    from app.live import redis_store, sqlite_store

    now = [time.time() // 60 * 60 + 0.5]  # the start of a minute: every window starts here
    clock = types.SimpleNamespace(time=lambda: now[0])
    monkeypatch.setattr(sqlite_store, "time", clock)
    monkeypatch.setattr(redis_store, "time", clock)
    return now


@pytest.fixture
def store(app, tmp_path):
    """A fresh SQLite store for this test, put on the session's app (which chooses its own again after)."""
    live = app.state.live
    s = SQLiteStore(tmp_path / "live.db", live.hub.deliver)
    live.store = s
    yield s
    live.store = None


PROXY = ("127.0.0.1", 50000)  # the in-process client's peer: a trusted proxy (the default AIINFRA_TRUSTED_PROXIES)
_addresses = itertools.count(1)


def new_address() -> str:
    """A client address of its own (benchmarking range 198.18.0.0/15), sent as X-Forwarded-For: each of
    the first 512 in a /24 of its own too (limits also count the /24 around an address)."""
    n = next(_addresses)
    return f"198.{18 + n // 256 % 2}.{n % 256}.{n // 512 % 250 + 1}"


def from_(address: str) -> dict:
    return {"X-Forwarded-For": address}


@pytest.fixture
def client(store, app):
    with TestClient(app, client=PROXY) as c:
        yield c


def start_class(client, card: str = "eg-1-1", query: str = "", address: str | None = None) -> Class:
    """A class started by an instructor at ``address`` (a new one each time unless named: the
    open-classes-per-address limit has its own tests)."""
    r = client.post("/api/live", json={"card": card, "query": query}, headers=from_(address or new_address()))
    assert r.status_code == 201, r.text
    return Class(**r.json())


@pytest.fixture
def klass(client) -> Class:
    return start_class(client)


@pytest.fixture(scope="module")
def sqlite_server(tmp_path_factory):
    """A real uvicorn process on its own SQLite file, access log captured (the token test reads it)."""
    d = tmp_path_factory.mktemp("live-server")
    port, log = free_port(), d / "server.log"
    env = {
        "AIINFRA_LIVE_DB": str(d / "live.db"),
        "AIINFRA_LIVE_KEEPALIVE_S": "1",
        "AIINFRA_REDIS_URL": "",
        "AIINFRA_WARM": "0",
    }
    info = {
        "base": f"http://127.0.0.1:{port}",
        "port": port,
        "log": log,
        "db": d / "live.db",
        "env": env,
        "proc": start_uvicorn(port, env, log, access_log=True),
    }
    yield info
    info["proc"].stop()  # the restart test swaps in a new process


@pytest.fixture(scope="module")
def redis_url():
    need("redis-server")
    proc, url = start_redis()
    yield url
    proc.stop()


def api_class(base: str, card: str = "eg-1-1", query: str = "", headers: dict | None = None) -> Class:
    """A class on a real server, started from an address of its own (unless ``headers`` say one)."""
    headers = headers or from_(new_address())
    status, body = call(base, "POST", "/api/live", {"card": card, "query": query}, headers=headers)
    assert status == 201, body
    return Class(**body)


def api_join(base: str, k: Class, credential: str | None = None, headers: dict | None = None) -> str:
    """A participant of ``k`` over HTTP (a real server): its credential."""
    status, body = call(base, "POST", f"/api/live/{k.code}/join", {"participant": credential}, headers=headers)
    assert status == 200, body
    return body["participant"]


def ask_at_once(bases: list[str], code: str, sid: int, creds: list[str]) -> list[int]:
    """Every phone asks for its point at the same moment (a barrier), phone i on ``bases[i % len]``:
    the points they are handed, in phone order."""
    start = threading.Barrier(len(creds))
    got: list[int | None] = [None] * len(creds)

    def ask(i: int) -> None:
        start.wait(10)
        status, m = call(bases[i % len(bases)], "GET", f"/api/live/{code}/sweeps/{sid}/mine?participant={creds[i]}")
        assert status == 200, m
        got[i] = m["point"]

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(creds))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert None not in got, got
    return [g for g in got if g is not None]
