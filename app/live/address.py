"""The client's address, as the live class's limits count it: the socket peer, or — only when the
peer is a trusted proxy (``AIINFRA_TRUSTED_PROXIES``, the same rule as uvicorn's
``--forwarded-allow-ips``) — the first untrusted address in X-Forwarded-For read from the right
(each proxy appends the address it saw; the ones a client wrote itself are further left and never
read). IPv6 clients are counted per /64 (one subscriber's prefix), or else one phone could take
every limit again with a new address per request."""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from starlette.requests import HTTPConnection

MAX_HOST_LEN = 64


class Trusted:
    """A parsed trust list: addresses, networks, or ``*`` (every peer is a trusted proxy)."""

    def __init__(self, spec: str):
        items = [x.strip() for x in spec.split(",") if x.strip()]
        self.everyone = "*" in items
        self.networks = [ipaddress.ip_network(x, strict=False) for x in items if x != "*"]

    def __contains__(self, host: str) -> bool:
        if self.everyone:
            return True
        ip = _ip(host)
        return ip is not None and any(ip in n for n in self.networks)


@lru_cache(maxsize=16)
def trusted(spec: str) -> Trusted:
    return Trusted(spec)


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        return ip.ipv4_mapped
    return ip


def _host(entry: str) -> str:
    """An X-Forwarded-For entry without its port (``1.2.3.4:5``, ``[::1]:5``)."""
    e = entry.strip()
    if e.startswith("[") and "]" in e:
        return e[1 : e.index("]")]
    if e.count(":") == 1:
        return e.split(":", 1)[0]
    return e


def bucket(host: str) -> str:
    """What one client is counted as: an IPv4 address, an IPv6 /64, or the raw text (capped)."""
    ip = _ip(host)
    if ip is None:
        return host[:MAX_HOST_LEN] or "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def resolve(peer: str, forwarded: list[str], trust: Trusted) -> str:
    """The client behind ``peer`` given the X-Forwarded-For values it sent."""
    if peer not in trust or not forwarded:
        return peer
    hops = [_host(h) for value in forwarded for h in value.split(",") if h.strip()]
    for hop in reversed(hops):
        if hop not in trust:
            return hop
    return hops[0] if hops else peer  # every hop is a trusted proxy: the first one is the client


def client_address(conn: HTTPConnection, trusted_proxies: str) -> str:
    """The counted address of the client of ``conn`` (a request or a stream)."""
    peer = conn.client.host if conn.client else "unknown"
    forwarded = [v.decode("latin-1") for k, v in conn.scope.get("headers", []) if k == b"x-forwarded-for"]
    return bucket(resolve(peer, forwarded, trusted(trusted_proxies)))
