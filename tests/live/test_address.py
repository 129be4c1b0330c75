"""The client's address as the live limits count it: the socket peer, or X-Forwarded-For read from
the right only when the peer is a trusted proxy (uvicorn's --forwarded-allow-ips rule); IPv6 per /64."""

from __future__ import annotations

import pytest
from app.live.address import Trusted, bucket, network, resolve

from tests.apps import settings_for_tests

LOCAL = Trusted("127.0.0.1")


def test_a_direct_client_is_its_peer_whatever_it_writes():
    assert resolve("203.0.113.5", ["1.2.3.4"], LOCAL) == "203.0.113.5"
    assert resolve("203.0.113.5", [], LOCAL) == "203.0.113.5"


def test_behind_a_trusted_proxy_the_address_the_proxy_saw():
    assert resolve("127.0.0.1", ["198.51.100.7"], LOCAL) == "198.51.100.7"
    # what the client wrote itself is further left and never read: the proxy appended what it saw
    assert resolve("127.0.0.1", ["6.6.6.6, 198.51.100.7"], LOCAL) == "198.51.100.7"
    assert resolve("127.0.0.1", ["6.6.6.6", "198.51.100.7"], LOCAL) == "198.51.100.7"  # two header lines


def test_a_chain_of_trusted_proxies_is_walked():
    t = Trusted("127.0.0.1, 10.0.0.0/8")
    assert resolve("127.0.0.1", ["198.51.100.7, 10.1.2.3"], t) == "198.51.100.7"
    assert resolve("127.0.0.1", ["10.9.9.9, 10.1.2.3"], t) == "10.9.9.9"  # all trusted: the first
    assert resolve("127.0.0.1", ["198.51.100.7:4711"], t) == "198.51.100.7"  # ports are dropped
    assert resolve("127.0.0.1", ["[2001:db8::1]:443"], t) == "2001:db8::1"


def test_trusting_everyone_is_refused():
    """``*`` made every peer a proxy: the leftmost, client-written X-Forwarded-For was believed (issue 39:
    1,200/1,200 joins from one client). It is refused, as is a network that holds every address."""
    for spec in ("*", "127.0.0.1, *", "0.0.0.0/0", "::/0"):
        with pytest.raises(ValueError, match="would trust every peer"):
            Trusted(spec)
        with pytest.raises(ValueError, match="would trust every peer"):
            settings_for_tests(trusted_proxies=spec)


def test_ipv6_clients_count_per_64_and_mapped_ipv4_as_ipv4():
    assert bucket("2001:db8:1:2:aaaa::1") == bucket("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert bucket("2001:db8:1:3::1") != bucket("2001:db8:1:2::1")
    assert bucket("::ffff:198.51.100.7") == "198.51.100.7"
    assert bucket("198.51.100.7") == "198.51.100.7"


def test_junk_is_counted_as_written_but_bounded():
    assert bucket("not-an-ip") == "not-an-ip"
    assert len(bucket("x" * 1000)) == 64 and bucket("") == "unknown"


def test_the_setting_is_checked():
    from pydantic import ValidationError

    from tests.apps import settings_for_tests

    assert settings_for_tests(trusted_proxies="127.0.0.1, 10.0.0.0/8, ::1").trusted_proxies
    with pytest.raises(ValidationError):
        settings_for_tests(trusted_proxies="127.0.0.1, localhost")


def test_every_address_belongs_to_a_network():
    """Limits count the /24 or /48 around an address too: one site's 65,536 /64s are one network."""
    assert network(bucket("2001:db8:1:2::1")) == network(bucket("2001:db8:1:ffff::9")) == "2001:db8:1::/48"
    assert network(bucket("2001:db8:2:2::1")) != network(bucket("2001:db8:1:2::1"))
    assert network(bucket("198.51.100.7")) == network(bucket("198.51.100.250")) == "198.51.100.0/24"
    assert network(bucket("::ffff:198.51.100.7")) == "198.51.100.0/24"
    assert network(bucket("198.51.101.7")) != "198.51.100.0/24"
    assert network("unknown") == "net:unknown"
