"""Loopback processes for the live-class bench, fault demo and tests: redis-server, app instances
(uvicorn, or `make serve-prod`), nginx in front, each on a free port and stopped by its own id;
plus a small asyncio SSE client that checks every follower's sequence of event ids."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable


def run_coroutine(coro):
    """asyncio.run, also from a thread that already has a running loop (e.g. under pytest with
    Playwright's sync API loaded): then in a thread of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def missing(*binaries: str) -> list[str]:
    return [b for b in binaries if shutil.which(b) is None and not Path("/usr/sbin", b).exists()]


def wait_http(url: str, timeout: float = 90.0) -> None:
    end = time.time() + timeout
    while time.time() < end:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except Exception:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


@dataclass
class Proc:
    """A started process (its own process group, so `make` and gunicorn children stop with it)."""

    name: str
    popen: subprocess.Popen
    log: Path | None = None
    scratch: Path | None = None  # a directory of its own, removed once it has stopped

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> None:
        try:
            self._stop(sig, timeout)
        finally:
            if self.scratch is not None and self.popen.poll() is not None:
                shutil.rmtree(self.scratch, ignore_errors=True)

    def _stop(self, sig: int, timeout: float) -> None:
        if self.popen.poll() is not None:
            return
        try:
            os.killpg(self.popen.pid, sig)
        except ProcessLookupError:
            return
        try:
            self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout=5)

    def kill(self) -> None:
        """A crash: SIGKILL, no goodbye to any connection."""
        self.stop(signal.SIGKILL)


def spawn(name: str, args: list[str], env: dict | None = None, log: Path | None = None, cwd: Path = ROOT) -> Proc:
    out = open(log, "ab") if log else subprocess.DEVNULL
    p = subprocess.Popen(
        args, cwd=cwd, env={**os.environ, **(env or {})}, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
    )
    return Proc(name, p, log)


REDIS_CONF = ROOT / "deploy" / "redis.conf"  # AOF, appendfsync everysec: what a deployment runs


def start_redis(
    port: int | None = None, data_dir: Path | None = None, fsync: str | None = None, extra: tuple[str, ...] = ()
) -> tuple[Proc, str]:
    """redis-server on loopback with deploy/redis.conf (an append-only file, fsynced every second), its
    files in ``data_dir`` — so a restart on the same port and directory comes back with the data (the
    fault tests stop and start it) — or in a scratch directory removed when it stops. ``fsync``
    overrides appendfsync (``always``: the measurement in docs/live-class.md); ``extra`` are further
    redis-server options (a test of a Redis that persists nothing)."""
    port = port or free_port()
    redis = shutil.which("redis-server") or "/usr/bin/redis-server"
    scratch = None if data_dir else Path(tempfile.mkdtemp(prefix="aiinfra-redis-"))
    args = [redis, str(REDIS_CONF), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data_dir or scratch)]
    args += (["--appendfsync", fsync] if fsync else []) + list(extra)
    p = spawn("redis", args)
    p.scratch = scratch
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return p, f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.05)
    p.stop()
    raise RuntimeError("redis-server did not start")


SERVE = ["--http", "app.live.serving:GuardedHttpTools", "--timeout-keep-alive", "5"]  # as `make run`


def start_uvicorn(port: int, env: dict, log: Path | None = None, access_log: bool = False) -> Proc:
    """uvicorn as `make run` starts it (the guarded protocol, explicit keep-alive) on ``port``."""
    args = [PY, "-m", "uvicorn", "--factory", "app.main:create_app", "--host", "127.0.0.1", "--port", str(port)]
    args += SERVE
    args += [] if access_log else ["--no-access-log", "--log-level", "warning"]
    p = spawn(f"uvicorn:{port}", args, env, log)
    wait_http(f"http://127.0.0.1:{port}/healthz")
    return p


def start_serve_prod(port: int, env: dict, workers: int = 2, log: Path | None = None) -> Proc:
    """`make serve-prod` itself (gunicorn, deploy/gunicorn.conf.py) on ``port``."""
    p = spawn(
        "serve-prod",
        ["make", "-s", "serve-prod", "HOST=127.0.0.1", f"PORT={port}"],
        {**env, "WORKERS": str(workers)},
        log,
    )
    wait_http(f"http://127.0.0.1:{port}/healthz")
    return p


def start_nginx(port: int, upstreams: list[int]) -> tuple[Proc, Path]:
    """nginx with deploy/nginx.conf.template (least-conn balancing, SSE unbuffered) on loopback."""
    prefix = Path(tempfile.mkdtemp(prefix="aiinfra-nginx-"))
    prefix.chmod(0o755)
    (prefix / "cache").mkdir()
    (prefix / "cache").chmod(0o777)
    ups = "".join(f"        server 127.0.0.1:{u} max_fails=1 fail_timeout=10s;\n" for u in upstreams)
    conf = (ROOT / "deploy" / "nginx.conf.template").read_text()
    conf = conf.replace("@PREFIX@", str(prefix)).replace("@LISTEN@", f"127.0.0.1:{port}").replace("@UPSTREAMS@\n", ups)
    (prefix / "nginx.conf").write_text(conf)
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    p = spawn("nginx", [nginx, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"])
    wait_http(f"http://127.0.0.1:{port}/healthz", 20)
    return p, prefix


# ------------------------------------------------------------------ HTTP and SSE clients


def call(
    base: str,
    method: str,
    path: str,
    body: dict | None = None,
    token: str | None = None,
    timeout: float = 30,
    headers: dict | None = None,
) -> tuple[int, dict]:
    """One JSON request (``headers`` e.g. X-Forwarded-For, to stand for a client behind a proxy)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        raw = e.read() or b"{}"
        try:
            return e.code, json.loads(raw)
        except ValueError:
            return e.code, {"raw": raw.decode(errors="replace")}


@dataclass
class Follower:
    """One SSE follower: records each event's seq and arrival time; counts gaps and reorders while
    connected, and reconnects with Last-Event-ID when the stream drops."""

    host: str
    port: int
    code: str
    participant: str  # the credential from join
    xff: str | None = None  # X-Forwarded-For: the client address a trusted proxy would name
    seqs: list[int] = field(default_factory=list)
    arrivals: dict[int, float] = field(default_factory=dict)
    lost: int = 0
    out_of_order: int = 0
    errors: int = 0
    reconnects: int = 0
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    last: int | None = None

    def on_event(self, seq: int, fresh: bool) -> None:
        now = time.perf_counter()
        if self.last is not None:
            if seq <= self.last:
                self.out_of_order += 1
                return
            if seq > self.last + 1 and not fresh:
                self.lost += seq - self.last - 1
        self.last = seq
        self.seqs.append(seq)
        self.arrivals[seq] = now

    async def run(self, stop: asyncio.Event, reconnect: bool = True) -> None:
        while not stop.is_set():
            try:
                await self._stream(stop)
            except (OSError, asyncio.IncompleteReadError, ConnectionError, ValueError):
                pass  # a dropped stream is what reconnecting is for (counted as a reconnect)
            if stop.is_set() or not reconnect:
                return
            self.reconnects += 1
            self.connected.clear()
            await asyncio.sleep(0.3)

    async def _stream(self, stop: asyncio.Event) -> None:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        try:
            head = (
                f"GET /api/live/{self.code}/events?participant={self.participant} HTTP/1.1\r\n"
                f"Host: {self.host}:{self.port}\r\nAccept: text/event-stream\r\n"
            )
            if self.xff:
                head += f"X-Forwarded-For: {self.xff}\r\n"
            if self.last is not None:
                head += f"Last-Event-ID: {self.last}\r\n"
            writer.write((head + "\r\n").encode())
            await writer.drain()
            status = await reader.readline()
            if b" 200 " not in status:
                self.errors += 1
                raise ConnectionError(status.decode(errors="replace").strip())
            chunked = False
            while (line := await reader.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"transfer-encoding:") and b"chunked" in line.lower():
                    chunked = True
            self.connected.set()
            first = True
            async for block in _blocks(reader, chunked, stop):
                ev = _parse(block)
                if ev is not None:
                    self.on_event(ev, fresh=first)
                    first = False
        finally:
            writer.close()


async def _blocks(reader: asyncio.StreamReader, chunked: bool, stop: asyncio.Event):
    """SSE event blocks (separated by a blank line) from a chunked or plain body."""
    buf = b""
    while not stop.is_set():
        if chunked:
            size_line = await reader.readline()
            if not size_line:
                return
            size = int(size_line.strip().split(b";")[0] or b"0", 16)
            if size == 0:
                return
            data = await reader.readexactly(size + 2)
            buf += data[:-2]
        else:
            data = await reader.read(65536)
            if not data:
                return
            buf += data
        buf = buf.replace(b"\r\n", b"\n")
        while b"\n\n" in buf:
            block, buf = buf.split(b"\n\n", 1)
            yield block


def _parse(block: bytes) -> int | None:
    seq = None
    for line in block.split(b"\n"):
        if line.startswith(b"id:"):
            seq = int(line[3:].strip())
        elif line.startswith(b"data:"):
            json.loads(line[5:])  # the data must be JSON
    return seq


class KeepAlive:
    """A minimal HTTP/1.1 keep-alive client (JSON in, status + JSON out): light enough that a bench
    measures the server, not the client."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: dict | None = None, token: str | None = None, headers: dict | None = None
    ) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else b""
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Length: {len(data)}\r\n"
        head += "Content-Type: application/json\r\n" if body is not None else ""
        head += f"Authorization: Bearer {token}\r\n" if token else ""
        head += "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        for attempt in (0, 1):
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
                self.writer.write(head.encode() + b"\r\n" + data)
                await self.writer.drain()
                status = int((await self.reader.readline()).split()[1])
                length = 0
                while (line := await self.reader.readline()) not in (b"\r\n", b""):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                payload = await self.reader.readexactly(length) if length else b""
                return status, (json.loads(payload) if payload else {})
            except (OSError, IndexError, ValueError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None
