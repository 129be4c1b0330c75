"""Fixtures for the live class: an in-process client on a fresh SQLite file, real server processes
(uvicorn on SQLite; two workers of `make serve-prod` on Redis) and redis-server. Tests that need
Redis or nginx start them and skip only when the binary is missing (never under CI=true)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest
from app.live.hub import HUB
from app.live.sqlite_store import SQLiteStore
from app.live.store import set_store
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
    """A started class: its code, the instructor's token and header."""

    code: str
    token: str
    follow_url: str
    control_url: str

    @property
    def auth(self) -> dict:
        return {"Authorization": f"Bearer {self.token}"}


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "live.db", HUB.deliver)
    set_store(s)
    yield s
    set_store(None)


@pytest.fixture
def client(store, app):
    with TestClient(app) as c:
        yield c


def start_class(client, card: str = "eg-1-1", query: str = "") -> Class:
    r = client.post("/api/live", json={"card": card, "query": query})
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
    env = {"AIINFRA_LIVE_DB": str(d / "live.db"), "AIINFRA_LIVE_KEEPALIVE_S": "1", "AIINFRA_REDIS_URL": ""}
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


def api_class(base: str, card: str = "eg-1-1", query: str = "") -> Class:
    status, body = call(base, "POST", "/api/live", {"card": card, "query": query})
    assert status == 201, body
    return Class(**body)
