"""The server's own limits (app/live/serving.py, limits.py): a header deadline, a header size cap, a
body deadline and an explicit keep-alive, against a real uvicorn started as `make run` starts it,
and the protocol's deadlines in-process with short timeouts."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import pytest
from app.live import limits, serving
from bench.live_cluster import free_port, start_uvicorn

from tests.aio import run_async


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("serving")
    port = free_port()
    proc = start_uvicorn(port, {"AIINFRA_LIVE_DB": str(d / "live.db"), "AIINFRA_REDIS_URL": "", "AIINFRA_WARM": "0"})
    yield port
    proc.stop()


def _exchange(port: int, data: bytes, wait: float = 2.0) -> bytes:
    """Send ``data``, read until the server closes or ``wait`` passes."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(data)
        s.settimeout(wait)
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except TimeoutError:
            pass
        return out


def test_header_size_is_capped(server):
    assert limits.MAX_HEADER_BYTES == 16 * 1024
    ok = _exchange(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 15_000 + b"\r\n\r\n")
    assert ok.startswith(b"HTTP/1.1 200 ")
    big = _exchange(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 17_000 + b"\r\n\r\n")
    assert big.startswith(b"HTTP/1.1 431 ")


def test_a_header_sent_forever_is_cut_off_early(server):
    """A client streaming a 16 MB header is refused after about MAX_HEADER_BYTES, not buffered."""
    sent = 0
    with socket.create_connection(("127.0.0.1", server)) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ")
        with pytest.raises(OSError):  # the server closed: the pipe breaks (or the connection resets)
            while sent < 16 * 1024 * 1024:
                s.sendall(b"a" * 4096)
                sent += 4096
                time.sleep(0.001)
    assert sent < 1024 * 1024


def _idle_keep_alive(port: int) -> tuple[bytes, float]:
    """One request on a kept-alive connection, then silence: what came back and how long the server
    kept the idle connection open."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        s.settimeout(limits.KEEPALIVE_S + 3)
        t0, got = time.perf_counter(), b""
        while chunk := s.recv(65536):
            got += chunk
        return got, time.perf_counter() - t0


def test_slow_clients_are_closed_at_the_header_deadline_others_are_served_and_idle_keep_alive_closes(server):
    """Two waits of the server's own clock in one test (they would take 10 s and 5 s one after the
    other): 40 slowloris clients cut at the header deadline while others are served, and meanwhile an
    idle kept-alive connection closed after KEEPALIVE_S."""
    assert limits.HEADER_TIMEOUT_S == 10.0
    assert limits.KEEPALIVE_S == 5
    results: list[tuple[bytes, float]] = []
    idle: list[tuple[bytes, float]] = []

    def slow():
        t0 = time.perf_counter()
        with socket.create_connection(("127.0.0.1", server)) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            s.settimeout(0.5)
            got = b""
            for _ in range(40):  # a byte a second, for up to 40 s (what a slowloris client does)
                try:
                    got += s.recv(4096)
                    if got:
                        break
                except TimeoutError:
                    pass
                try:
                    s.sendall(b"a")
                except OSError:
                    break
                time.sleep(0.5)
        results.append((got, time.perf_counter() - t0))

    threads = [threading.Thread(target=slow) for _ in range(40)]
    for t in threads:
        t.start()
    keep_alive = threading.Thread(target=lambda: idle.append(_idle_keep_alive(server)))
    keep_alive.start()
    time.sleep(1)
    t0 = time.perf_counter()
    assert _exchange(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").startswith(
        b"HTTP/1.1 200"
    )
    assert time.perf_counter() - t0 < 1.0  # served at once beside them
    for t in [*threads, keep_alive]:
        t.join(timeout=30)
    assert len(results) == 40
    for got, took in results:
        assert got.startswith(b"HTTP/1.1 408 "), got[:40]
        assert limits.HEADER_TIMEOUT_S - 0.5 < took < limits.HEADER_TIMEOUT_S + 3
    [(got, took)] = idle
    assert got.startswith(b"HTTP/1.1 200 ") and limits.KEEPALIVE_S - 0.5 < took < limits.KEEPALIVE_S + 2


# ------------------------------------------------------------------ the protocol in-process (short deadlines)


class FakeTransport:
    def __init__(self):
        self.written = b""
        self.closed = False

    def get_extra_info(self, name, default=None):
        return {"peername": ("127.0.0.1", 5000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def write(self, data):
        self.written += data

    def close(self):
        self.closed = True

    def is_closing(self):
        return self.closed

    def pause_reading(self):
        pass

    def resume_reading(self):
        pass

    def set_protocol(self, p):
        pass


def _protocol(app):
    from uvicorn.config import Config
    from uvicorn.server import ServerState

    config = Config(app=app, http=serving.GuardedHttpTools, lifespan="off", log_level="error")
    config.load()
    proto = serving.GuardedHttpTools(config=config, server_state=ServerState(), app_state={})
    transport = FakeTransport()
    proto.connection_made(transport)  # type: ignore[arg-type]
    return proto, transport


async def _reads_body(scope, receive, send):
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"done"})


def test_a_body_that_never_completes_closes_the_connection(monkeypatch):
    assert limits.BODY_TIMEOUT_S == 30.0
    monkeypatch.setattr(serving, "BODY_TIMEOUT_S", 0.3)

    async def go():
        proto, transport = _protocol(_reads_body)
        proto.data_received(b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789")
        await asyncio.sleep(0.6)
        return transport

    transport = run_async(go())
    assert transport.closed and b"done" not in transport.written


def test_a_complete_body_in_time_is_served(monkeypatch):
    monkeypatch.setattr(serving, "BODY_TIMEOUT_S", 0.3)

    async def go():
        proto, transport = _protocol(_reads_body)
        proto.data_received(b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcd")
        await asyncio.sleep(0.6)
        return transport

    transport = run_async(go())
    assert transport.written.startswith(b"HTTP/1.1 200 ") and b"done" in transport.written and not transport.closed


def test_a_silent_connection_is_closed_at_the_header_deadline(monkeypatch):
    monkeypatch.setattr(serving, "HEADER_TIMEOUT_S", 0.3)

    async def go():
        _, transport = _protocol(_reads_body)
        await asyncio.sleep(0.6)
        return transport

    transport = run_async(go())
    assert transport.closed and transport.written.startswith(b"HTTP/1.1 408 ")
