"""The client's address, as the live class's limits count it: the socket peer, or — only when the
peer is a trusted proxy (``AIINFRA_TRUSTED_PROXIES``, the same rule as uvicorn's
``--forwarded-allow-ips``) — the first untrusted address in X-Forwarded-For read from the right
(each proxy appends the address it saw; the ones a client wrote itself are further left and never
read; the rule of uvicorn's ``--forwarded-allow-ips`` with a trusted list, ``_TrustedHosts`` in
uvicorn/middleware/proxy_headers.py). IPv6 clients are counted per /64 (one subscriber's prefix), or
else one phone could take every limit again with a new address per request, and every limit also
counts the network around the address (:func:`network`: the IPv4 /24, the IPv6 /48), or else one
site's 65,536 /64s would be 65,536 clients.

``*`` (or a network that holds every address, 0.0.0.0/0, ::/0) is refused: it makes every peer a
proxy, so the address a client writes itself at the left of X-Forwarded-For would be believed (the
issue: 1,200/1,200 joins and every class slot from one client). A deployment behind a proxy names
the proxy's address or network instead."""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from starlette.requests import HTTPConnection

MAX_HOST_LEN = 64


EVERYONE = "AIINFRA_TRUSTED_PROXIES: “{item}” would trust every peer as a proxy, so any client could name itself in X-Forwarded-For; list the proxy's own address or network instead (e.g. 127.0.0.1 or 10.0.0.0/8)"


def trust_networks(spec: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """The networks of a trust list (comma-separated addresses or CIDR networks). ValueError, with a
    message naming the setting, for ``*``, a network that holds every address, or a malformed entry."""
    out = []
    for item in (x.strip() for x in spec.split(",")):
        if not item:
            continue
        if item == "*":
            raise ValueError(EVERYONE.format(item=item))
        try:
            net = ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ValueError(f"AIINFRA_TRUSTED_PROXIES: “{item[:60]}” is not an address or a network") from None
        if net.prefixlen == 0:
            raise ValueError(EVERYONE.format(item=item))
        out.append(net)
    return out


class Trusted:
    """A parsed trust list: addresses and networks (see :func:`trust_networks`; ``*`` is refused)."""

    def __init__(self, spec: str):
        self.networks = trust_networks(spec)

    def __contains__(self, host: str) -> bool:
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


def network(bucket_: str) -> str:
    """The aggregate a counted address belongs to: an IPv4 /24 or an IPv6 /48 (anything else: itself,
    marked, so it never equals an address)."""
    try:
        net = ipaddress.ip_network(bucket_, strict=False)
    except ValueError:
        return "net:" + bucket_
    return str(net.supernet(new_prefix=24 if net.version == 4 else 48))


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


def client_network(conn: HTTPConnection, trusted_proxies: str) -> tuple[str, str]:
    """The counted address of the client of ``conn`` and its network (/24, /48), in clear."""
    where = client_address(conn, trusted_proxies)
    return where, network(where)
