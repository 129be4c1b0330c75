"""Abuse suite, issue 39 point 1: event streams are bounded. One credential holds at most
STREAMS_PER_PARTICIPANT streams (the newest replaces the oldest, which gets ``event: replaced``), one
address and one network a share, and the process no more than its descriptor budget allows
(RLIMIT_NOFILE at start); a stream that ends gives its descriptor back at once. A real uvicorn runs
under ``RLIMIT_NOFILE`` 1,024 (set in its own process before uvicorn starts): 1,100 streams on one
credential, then a second client still gets its page, its join and its stream; server memory after
3,000 stream attempts is measured (the issue: 215 → 347 MB, never returned)."""

from __future__ import annotations

import asyncio
import os
import resource
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from app.live import limits
from app.live.hub import Hub, stream_budget
from app.live.store import Full
from bench.live_cluster import PY, ROOT, SERVE, call, free_port, run_coroutine, spawn, wait_http

from .conftest import api_class, api_join

NOFILE = 1_024
ANSWER_S = 20  # how long a stream's answer may take to begin on a loaded machine
HOLD_S = 5.0  # how long a round of the flood waits at most for its replaced events (they come in ~0.1 s quiet)
LAUNCH = (
    "import resource, sys; resource.setrlimit(resource.RLIMIT_NOFILE, ({n}, {n})); "
    "from uvicorn.main import main; sys.argv = ['uvicorn'] + sys.argv[1:]; main()"
)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _settled(read, below: float, within: float = 2.0):
    """``read()`` once it is below ``below``, or its value after ``within`` seconds (a fixed 2 s wait
    before: the condition is the same, the wait ends when it holds)."""
    end = time.monotonic() + within
    value = read()
    while value >= below and time.monotonic() < end:
        time.sleep(0.05)
        value = read()
    return value


@pytest.fixture(scope="module")
def tight_server(tmp_path_factory):
    """uvicorn as `make run` starts it, in a process whose descriptor limit is 1,024 (soft and hard)."""
    d = tmp_path_factory.mktemp("live-streams")
    port = free_port()
    env = {"AIINFRA_LIVE_DB": str(d / "live.db"), "AIINFRA_LIVE_KEEPALIVE_S": "5", "AIINFRA_REDIS_URL": ""}
    env["AIINFRA_WARM"] = "0"  # no card pre-render: the server is up sooner
    args = [PY, "-c", LAUNCH.format(n=NOFILE), "--factory", "app.main:create_app", "--host", "127.0.0.1"]
    args += ["--port", str(port), *SERVE, "--no-access-log", "--log-level", "warning"]
    proc = spawn(f"uvicorn:{port}", args, env, d / "server.log")
    wait_http(f"http://127.0.0.1:{port}/healthz")
    yield {"base": f"http://127.0.0.1:{port}", "port": port, "pid": proc.popen.pid, "log": d / "server.log"}
    proc.stop()


async def _open(
    port: int,
    path: str,
    hold: float,
    first_only: bool = False,
    enough: asyncio.Event | None = None,
    on_replaced: Callable[[], None] | None = None,
) -> tuple[int, bytes]:
    """One event stream: its status and what arrived within ``hold`` seconds of its first bytes (or
    until closed; with ``first_only`` until its first event; with ``enough``, until that event is set).
    ``on_replaced`` is called once, when the stream's ``event: replaced`` arrives. The answer itself may
    take up to ANSWER_S (a loaded machine)."""
    try:
        r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 10)
    except (OSError, TimeoutError):
        return 0, b""
    got = b""
    stop = asyncio.ensure_future(enough.wait()) if enough is not None else None
    read: asyncio.Future | None = None
    try:
        w.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
        await w.drain()
        got = await asyncio.wait_for(r.read(4096), ANSWER_S)
        end = time.monotonic() + hold
        while got and time.monotonic() < end and not (first_only and b"data: " in got and got.endswith(b"\r\n\r\n")):
            read = asyncio.ensure_future(r.read(4096))
            done, _ = await asyncio.wait(
                {read} if stop is None else {read, stop}, timeout=end - time.monotonic(), return_when="FIRST_COMPLETED"
            )
            if read not in done:  # the hold is over, or ``enough``
                break
            chunk, read = read.result(), None
            if not chunk:
                break
            told = b"event: replaced" in got
            got += chunk
            if on_replaced is not None and not told and b"event: replaced" in got:
                on_replaced()
    except (OSError, TimeoutError):
        pass
    finally:
        for task in (read, stop):
            if task is not None:
                task.cancel()
        w.close()
    status = int(got[9:12]) if got.startswith(b"HTTP/1.1 ") else 0
    return status, got


async def _round(port: int, path: str, n: int, hold: float, keep: int) -> list[tuple[int, bytes]]:
    """``n`` streams at once, each held ``hold`` seconds unless the server closes it. With ``keep`` (the
    streams a credential may hold), the round ends as soon as all its streams but the newest ``keep``
    were told they were replaced: every stream is left then instead of at the end of the hold (which
    still bounds the round)."""
    enough = asyncio.Event() if keep else None
    replaced = 0

    def told() -> None:
        nonlocal replaced
        replaced += 1
        if enough is not None and replaced >= n - keep:
            enough.set()

    return list(
        await asyncio.gather(
            *(_open(port, path, hold, enough=enough, on_replaced=told if keep else None) for _ in range(n))
        )
    )


async def _flood(port: int, path: str, total: int, batch: int, hold: float, keep: int = 0) -> list[tuple[int, bytes]]:
    """``total`` streams in rounds of ``batch`` (see :func:`_round`)."""
    out: list[tuple[int, bytes]] = []
    for i in range(0, total, batch):
        out += await _round(port, path, min(batch, total - i), hold, keep)
    return out


def test_1100_streams_on_one_credential_leave_the_server_to_everyone(tight_server):
    base, port, pid = tight_server["base"], tight_server["port"], tight_server["pid"]
    k = api_class(base)
    cred = api_join(base, k)
    path = f"/api/live/{k.code}/events?participant={cred}"
    fds_before = _fds(pid)
    # a replaced stream ends when the server closes it; the newest of a round are left once all the others of
    # the round were replaced (a fixed hold before: at 0.8 s a loaded machine delivered one replaced event
    # after the client left, and once even at 1.5 s); HOLD_S only bounds a round whose events never all come
    results = run_coroutine(_flood(port, path, 1_100, 100, HOLD_S, keep=limits.STREAMS_PER_PARTICIPANT))
    fds_after = _settled(lambda: _fds(pid), fds_before + 20)  # the last streams' disconnects reach the server
    statuses = [s for s, _ in results]
    replaced = sum(b"event: replaced" in body for _, body in results)
    assert statuses.count(200) == 1_100, {s: statuses.count(s) for s in set(statuses)}
    # every stream but the newest STREAMS_PER_PARTICIPANT was told it was replaced, then closed
    assert replaced >= 1_100 - limits.STREAMS_PER_PARTICIPANT * 11  # 11 rounds: the newest 3 of each end on their own
    print(
        f"\n1,100 streams on one credential: {statuses.count(200)} × 200, {replaced} replaced; fds {fds_before} → {fds_after}"
    )
    assert fds_after < fds_before + 20  # the replaced streams' descriptors are back
    status, state = call(base, "GET", f"/api/live/{k.code}")
    assert status == 200 and state["followers"] <= 1  # one credential: never more than one follower
    # a second client: its page, its join and its stream
    with urllib.request.urlopen(f"{base}/live/{k.code}", timeout=10) as page:
        assert page.status == 200
    other = api_join(base, k)
    status, body = run_coroutine(_open(port, f"/api/live/{k.code}/events?participant={other}", 1.0))
    assert status == 200 and f'"code":"{k.code}"'.encode() in body


def test_memory_after_3000_stream_attempts_is_returned(tight_server):
    base, port, pid = tight_server["base"], tight_server["port"], tight_server["pid"]
    k = api_class(base)
    cred = api_join(base, k)  # one participant credential, as in the issue (3,000 streams on one)
    run_coroutine(_open(port, f"/api/live/{k.code}/events?participant={cred}", 0.2))  # warm the path once
    rss0 = _rss_mb(pid)

    async def attempts():
        out = []
        for _ in range(3_000 // 150):
            out += await asyncio.gather(
                *(_open(port, f"/api/live/{k.code}/events?participant={cred}", 10, first_only=True) for _ in range(150))
            )
        return out

    results = run_coroutine(attempts())
    rss_peak = _rss_mb(pid)
    rss1 = _settled(lambda: _rss_mb(pid), rss0 + 25)  # within 2 s, as before: the memory is given back
    ok = sum(s == 200 for s, _ in results)
    print(f"\n3,000 stream attempts: {ok} accepted; RSS {rss0:.0f} → {rss_peak:.0f} (peak) → {rss1:.0f} MB after")
    assert ok == 3_000, {s: [r[0] for r in results].count(s) for s in {r[0] for r in results}}
    assert rss1 - rss0 < 25, (rss0, rss_peak, rss1)  # before: +132 MB, kept


# ------------------------------------------------------------------ the hub's own counts (in process)


def test_the_newest_stream_of_a_credential_replaces_the_oldest():
    hub = Hub(max_streams=100)
    conns = [hub.subscribe("C", "p", "a", "n") for _ in range(5)]
    assert [c.active for c in conns] == [False, False, True, True, True]
    assert hub.open_streams == limits.STREAMS_PER_PARTICIPANT == 3
    seq, wire = conns[0].queue.get_nowait()
    assert seq is None and wire.startswith(b"event: replaced") and "最多同时连 3 条".encode() in wire
    assert hub.unsubscribe(conns[0]) == 3  # the replaced stream ending counts nothing twice
    for c in conns[2:]:
        hub.unsubscribe(c)
    assert (hub.open_streams, dict(hub.per_address), dict(hub.conns), hub.by_participant) == (0, {}, {}, {})


def test_streams_per_address_network_and_process():
    hub = Hub(max_streams=limits.STREAMS_PER_NETWORK + 5)
    for _ in range(limits.STREAMS_PER_PARTICIPANT):
        hub.subscribe("C", "tabs", "hall", "campus")
    for i in range(limits.STREAMS_PER_ADDRESS - limits.STREAMS_PER_PARTICIPANT):
        hub.admit("C", f"p{i}", "hall", "campus")
        hub.subscribe("C", f"p{i}", "hall", "campus")
    with pytest.raises(Full, match="stream_address"):
        hub.admit("C", "late", "hall", "campus")
    hub.admit("C", "tabs", "hall", "campus")  # a participant already at its cap replaces: always admitted
    for i in range(limits.STREAMS_PER_NETWORK - limits.STREAMS_PER_ADDRESS):
        hub.subscribe("C", f"q{i}", f"room-{i % 3}", "campus")
    with pytest.raises(Full, match="stream_network"):
        hub.admit("C", "late", "room-9", "campus")
    for i in range(5):
        hub.admit("C", f"r{i}", f"far-{i}", f"net-{i}")
        hub.subscribe("C", f"r{i}", f"far-{i}", f"net-{i}")
    with pytest.raises(Full, match="^streams$"):  # the process's budget is spent
        hub.admit("C", "late", "elsewhere", "other")


def test_the_budget_follows_rlimit_nofile():
    """A process under `ulimit -n 1024` keeps FD_RESERVE descriptors from streams; one that may raise its
    soft limit does so first."""
    # one process (the import is what takes the time): first may raise (4,096 hard), then may not (1,024 hard)
    code = (
        "import resource; from app.live.hub import stream_budget\n"
        "for soft, hard in ((1024, 4096), (1024, 1024)):\n"
        "    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))\n"
        "    print(stream_budget(), resource.getrlimit(resource.RLIMIT_NOFILE)[0])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    raised, kept = out.stdout.splitlines()
    assert raised.split() == [str(4096 - limits.FD_RESERVE), "4096"]
    assert kept.split() == [str(1024 - limits.FD_RESERVE), "1024"]
    assert stream_budget() >= limits.MIN_STREAMS
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] >= 1024
