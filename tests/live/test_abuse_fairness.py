"""Abuse suite, issue 39 points 2–4: addresses are counted by network (IPv6 /64 and /48, IPv4 address
and /24), a proxy's X-Forwarded-For is read from the right and ``*`` is refused, class slots are fair
(a /48 flood leaves a real instructor a class; an idle class gives its slot back; the cap says when a
slot frees) and followers are fair (two addresses cannot fill a class). Bounded loops, in process or
against a loopback Redis; each case fails on the code before the fix."""

from __future__ import annotations

import pytest
from app.live import limits, sqlite_store
from app.live.store import Full
from bench.live_cluster import run_coroutine

from .conftest import from_, start_class

SITE = "2001:db8:39:{:x}::1"  # 40 /64s of one /48 (2001:db8:39::/48)


@pytest.fixture
def clock(frozen):
    """The stores' clock, moved by hand (tests/live/conftest.py)."""
    return frozen


def _flood_classes(client, hosts: list[str], per_host: int) -> tuple[int, dict[int, int]]:
    made, statuses = 0, {}
    for host in hosts:
        for _ in range(per_host):
            r = client.post("/api/live", json={"card": "eg-1-1"}, headers=from_(host))
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
            made += r.status_code == 201
    return made, statuses


def test_a_flood_from_40_prefixes_of_one_48_leaves_a_real_instructor_a_class(client):
    """Before: 5 classes per /64 × 40 /64s = all 200 slots, a real instructor got 503 for 3 hours."""
    assert (limits.MAX_SESSIONS, limits.MAX_CLASSES_PER_NETWORK) == (200, 10)
    made, statuses = _flood_classes(client, [SITE.format(i) for i in range(40)], limits.MAX_CLASSES_PER_ADDRESS)
    assert made == limits.MAX_CLASSES_PER_NETWORK and statuses == {201: 10, 429: 190}
    r = client.post("/api/live", json={"card": "eg-1-1"}, headers=from_(SITE.format(99)))
    assert r.status_code == 429 and "同一网段最多同时开 10 个课堂" in r.json()["detail"][0]["msg"]
    assert 1 <= int(r.headers["retry-after"]) <= limits.SLOT_IDLE_S
    start_class(client, address="203.0.113.40")  # the real instructor elsewhere: 201


def test_an_ipv4_24_is_one_network_too(client):
    made, _ = _flood_classes(client, [f"192.0.2.{i}" for i in range(1, 41)], limits.MAX_CLASSES_PER_ADDRESS)
    assert made == limits.MAX_CLASSES_PER_NETWORK
    start_class(client, address="192.0.3.1")  # the next /24


def test_joins_from_one_48_are_bounded_whatever_the_64(client, klass, frozen):
    """Before: 600 new participants per /64 per minute, so 40 /64s joined 24,000 (1,333 votes in 30 s)."""
    assert (limits.JOINS_PER_ADDRESS, limits.JOINS_PER_NETWORK) == (600, 900)
    ok = 0
    for i in range(1_000):
        r = client.post(f"/api/live/{klass.code}/join", json={}, headers=from_(SITE.format(i % 40)))
        ok += r.status_code == 200
    assert ok == limits.JOINS_PER_NETWORK
    assert "同一网段每分钟最多加入 900 人" in r.json()["detail"][0]["msg"]
    r = client.post(f"/api/live/{klass.code}/join", json={}, headers=from_("2001:db8:40::1"))
    assert r.status_code == 200  # another /48


def test_a_proxy_chain_is_read_from_the_right(client, klass, frozen):
    """Through the trusted proxy (the test client's peer), a client writing 1,200 different addresses
    at the left of X-Forwarded-For is still counted as the one address the proxy appended."""
    ok = 0
    for i in range(1_200):
        xff = f"10.{i // 250}.{i % 250}.1, 198.51.100.{i % 7}, 203.0.113.77"
        r = client.post(f"/api/live/{klass.code}/join", json={}, headers={"X-Forwarded-For": xff})
        ok += r.status_code == 200
    assert ok == limits.JOINS_PER_ADDRESS  # 600 of 1,200: the per-address window, not one per forged name


def test_trusting_every_peer_stops_the_app_at_start():
    """``AIINFRA_TRUSTED_PROXIES=*`` believed the leftmost, client-written address (1,200/1,200 joins)."""
    from app.main import create_app
    from pydantic import ValidationError

    from tests.apps import settings_for_tests

    with pytest.raises(ValidationError, match="would trust every peer as a proxy"):
        create_app(settings_for_tests(trusted_proxies="*"))


def test_an_idle_unfollowed_class_gives_its_slot_back_and_the_cap_says_when(client, store, clock, monkeypatch):
    monkeypatch.setattr(sqlite_store, "MAX_SESSIONS", 3)
    first = start_class(client)
    clock[0] += 600
    start_class(client)
    start_class(client)
    r = client.post("/api/live", json={"card": "eg-1-1"}, headers=from_("203.0.113.50"))
    assert r.status_code == 503
    wait = int(r.headers["retry-after"])
    assert limits.SLOT_IDLE_S - 600 - 5 <= wait <= limits.SLOT_IDLE_S - 600  # the first class's slot, ~20 min
    assert "约 20 分钟后会有名额空出" in r.json()["detail"][0]["msg"]
    # a follower keeps a class's slot…
    run_coroutine(store.connect(first.code, "p1", "a1"))
    clock[0] += limits.SLOT_IDLE_S - 600 + 1
    run_coroutine(store.refresh(first.code, [("p1", "a1", "a1")]))  # its stream's presence beat
    assert client.post("/api/live", json={}, headers=from_("203.0.113.51")).status_code == 503
    # …until it leaves: no instructor action for 30 minutes, no follower: the slot is free
    run_coroutine(store.leave(first.code, "p1", "a1"))
    start_class(client, address="203.0.113.52")
    assert client.get(f"/api/live/{first.code}").status_code == 200  # the idle class itself is kept


# ------------------------------------------------------------------ followers (both stores)


async def _fill(store, code: str) -> dict[str, int]:
    """Followers from two addresses of two networks until each is refused, then a third student."""
    got = {}
    for who, addr, net in (("a", "addr-a", "net-a"), ("b", "addr-b", "net-b")):
        n = 0
        for i in range(limits.MAX_FOLLOWERS):
            try:
                await store.connect(code, f"{who}-{i}", addr, net)
            except Full as e:
                assert e.args[0] == "address"
                break
            n += 1
        got[who] = n
    got["third"] = await store.connect(code, "third", "addr-c", "net-c")
    return got


async def _followers_are_fair(store, code: str) -> None:
    assert (limits.MAX_FOLLOWERS, limits.MAX_FOLLOWERS_PER_ADDRESS, limits.MAX_FOLLOWERS_PER_NETWORK) == (
        1_000,
        450,
        600,
    )

    async def go():
        await store.create(code, "h", "eg-1-1", "", "owner")
        got = await _fill(store, code)
        assert got == {"a": 450, "b": 450, "third": 901}  # before: 600 + 400 filled it, the third got 503
        # one network (a /24 or /48 of many addresses) stops at its share
        n = 0
        for i in range(limits.MAX_FOLLOWERS):
            try:
                await store.connect(code, f"n-{i}", f"addr-n{i % 40}", "net-n")
            except Full as e:
                assert e.args[0] in ("network", "followers")
                break
            n += 1
        assert n == limits.MAX_FOLLOWERS - 901  # the class is full before the network's 600 here

    await go()


def test_two_addresses_cannot_fill_a_class_sqlite(store):
    run_coroutine(_followers_are_fair(store, "FAIRSQ"))


def test_two_addresses_cannot_fill_a_class_redis(redis_url):
    from app.live.redis_store import RedisStore

    async def go():
        s = RedisStore(redis_url)
        try:
            await _followers_are_fair(s, "FAIRRD")
        finally:
            await s.close()

    run_coroutine(go())


def test_one_network_stops_at_its_share(store):
    async def go():
        await store.create("NETSHR", "h", "eg-1-1", "", "owner")
        n = 0
        for i in range(limits.MAX_FOLLOWERS):
            try:
                await store.connect("NETSHR", f"n-{i}", f"addr-{i % 40}", "one-48")
            except Full as e:
                assert e.args[0] == "network"
                break
            n += 1
        assert n == limits.MAX_FOLLOWERS_PER_NETWORK
        assert await store.connect("NETSHR", "else", "addr-x", "other-48") == n + 1

    run_coroutine(go())


def test_class_slots_per_network_and_idle_slots_in_redis(redis_url, frozen):
    """The same rules in the Redis store's Lua (a class's slot: touched within SLOT_IDLE_S or followed)."""
    from app.live.redis_store import RedisStore

    now = frozen

    async def go():
        s = RedisStore(redis_url)
        try:
            tag = f"{int(now[0] * 1000) % 10**8:08d}"
            for i in range(limits.MAX_CLASSES_PER_NETWORK):
                assert await s.create(f"N{tag}{i:02d}", "h", "eg-1-1", "", f"owner-{tag}-{i}", f"net-{tag}") is not None
            with pytest.raises(Full) as e:
                await s.create(f"N{tag}XX", "h", "eg-1-1", "", f"owner-{tag}-x", f"net-{tag}")
            assert e.value.args[0] == "network" and limits.SLOT_IDLE_S - 5 <= e.value.args[1] <= limits.SLOT_IDLE_S
            now[0] += limits.SLOT_IDLE_S + 1
            for i in range(limits.MAX_CLASSES_PER_NETWORK):  # 30 min untouched, but followed: slots held
                await s.connect(f"N{tag}{i:02d}", f"p{i}", "a1", "n1")
            with pytest.raises(Full, match="network"):
                await s.create(f"N{tag}XX", "h", "eg-1-1", "", f"owner-{tag}-x", f"net-{tag}")
            await s.leave(f"N{tag}03", "p3", "a1", "n1")  # untouched and unfollowed: its slot is free
            assert await s.create(f"N{tag}YY", "h", "eg-1-1", "", f"owner-{tag}-y", f"net-{tag}") is not None
            assert (await s.get(f"N{tag}01")) is not None  # an idle class is kept, it only gave its slot back
        finally:
            await s.close()

    run_coroutine(go())
